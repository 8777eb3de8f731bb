/**
 * Privacy-request operations (docs/design.md §5 Privacy-request clocks) on the real PostgreSQL: the intake
 * from the API and the workflow-side steps, each run twice with one effect, one task, one row.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privacyRequestEvidence, privacyRequests, tenants, workflowStartIntents } from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { privacyRequestWorkflowId } from '../../domain/ids';
import { privacyRequestStartSpec } from '../../domain/servicing/privacy-request';
import { asTemporalActivities } from '../../workers/activities';
import {
  type ActivityHarness,
  createHarness,
  domainErrorOf,
  effectsOf,
  expectDomainError,
  newRequestKey,
  newTenant,
  tasksOf,
} from './helpers';

let h: ActivityHarness;
let tenant: string;
let otherTenant: string;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'dsr');
  otherTenant = await newTenant(h, 'dsr-other');
});
afterAll(async () => h?.close());

/** A case and an inbound interaction of `tenantId` to hang a request on. */
async function caseWithInteraction(tenantId: string) {
  const { caseId } = await h.activities.openCase({
    tenantId,
    customerRef: 'cus_9',
    caseTypeCode: 'PRIVACY',
    summary: 'DSR',
  });
  const { interactionId } = await h.activities.logInteraction({
    tenantId,
    customerRef: 'cus_9',
    caseId,
    channel: 'EMAIL',
    direction: 'INBOUND',
    summary: 'Delete my data',
  });
  return { caseId, interactionId };
}

async function openRequest(
  tenantId = tenant,
  options: { requestKey?: string | null; regime?: 'CCPA_CPRA' | 'GDPR'; receivedAt?: string } = {},
) {
  const { caseId, interactionId } = await caseWithInteraction(tenantId);
  h.now.value = new Date(options.receivedAt ?? '2026-03-02T18:00:00Z');
  try {
    const result = await h.activities.openPrivacyRequest({
      tenantId,
      requestKey: options.requestKey === undefined ? newRequestKey() : options.requestKey,
      actor: 'agent-3',
      correlationId: 'req-42',
      customerRef: 'cus_9',
      requestType: 'DELETION',
      regime: options.regime ?? 'CCPA_CPRA',
      summary: 'Delete my data',
      caseId,
      sourceInteractionId: interactionId,
    });
    return { ...result, caseId, interactionId };
  } finally {
    h.now.value = null;
  }
}

function requestRow(tenantId: string, requestId: number) {
  return withTenantTransaction(h.db, tenantId, async (tx) => {
    const [row] = await tx.select().from(privacyRequests).where(eq(privacyRequests.id, requestId));
    return row;
  });
}

function evidenceLinks(tenantId: string, requestId: number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx.select().from(privacyRequestEvidence).where(eq(privacyRequestEvidence.requestId, requestId)),
  );
}

async function addEvidence(tenantId: string, caseId: number) {
  return (
    await h.activities.addEvidence({
      tenantId,
      caseId,
      evidenceType: 'DELETION_CONFIRMATION',
      description: 'Deleted',
    })
  ).evidenceId;
}

describe('openPrivacyRequest', () => {
  it('stores the request RECEIVED with its CCPA due time, a review task and two effects', async () => {
    const r = await openRequest();
    expect(r.status).toBe('RECEIVED');
    // 2026-03-02 10:00 PST + 45 days = 2026-04-16, end of day in PDT.
    expect(r.statutoryDueAt).toBe('2026-04-16T23:59:59-07:00');
    expect(r.workflow.workflowId).toBe(privacyRequestWorkflowId(tenant, r.requestId));
    expect(r.workflow.input).toEqual({
      tenantId: tenant,
      requestId: r.requestId,
      caseId: r.caseId,
      customerRef: 'cus_9',
      regime: 'CCPA_CPRA',
      statutoryDueAt: '2026-04-16T23:59:59-07:00',
      dueAtMs: Date.parse('2026-04-16T23:59:59-07:00'),
      reminderAtMs: Date.parse('2026-04-06T23:59:59-07:00'),
    });

    const row = await requestRow(tenant, r.requestId);
    expect(row).toMatchObject({
      status: 'RECEIVED',
      dueDate: '2026-04-16',
      timeZone: 'America/Los_Angeles',
      reviewTaskId: r.reviewTaskId,
      workflowStartedAt: null,
    });
    expect(row?.receivedAt.toISOString()).toBe('2026-03-02T18:00:00.000Z');

    const review = await tasksOf(h, tenant, r.caseId, 'PRIVACY_REVIEW');
    expect(review).toHaveLength(1);
    expect(review[0]).toMatchObject({
      id: r.reviewTaskId,
      status: 'OPEN',
      subjectType: 'privacy_request',
      subjectId: String(r.requestId),
    });
    expect(review[0]?.dueAt?.getTime()).toBe(Date.parse('2026-04-16T23:59:59-07:00'));

    const received = await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_RECEIVED');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      actorUsername: 'agent-3',
      correlationId: 'req-42',
      detail: {
        requestId: r.requestId,
        requestType: 'DELETION',
        regime: 'CCPA_CPRA',
        status: 'RECEIVED',
        statutoryDueAt: r.statutoryDueAt,
      },
    });
    expect(await effectsOf(h, tenant, r.caseId, 'TASK_CREATED')).toHaveLength(1);
  });

  it('twice with the same request key stores one request, one task, one effect of each kind', async () => {
    const requestKey = newRequestKey();
    const { caseId, interactionId } = await caseWithInteraction(tenant);
    const input = {
      tenantId: tenant,
      requestKey,
      customerRef: 'cus_9',
      requestType: 'ACCESS' as const,
      regime: 'CCPA_CPRA' as const,
      summary: 'Send me my data',
      caseId,
      sourceInteractionId: interactionId,
    };
    const first = await h.activities.openPrivacyRequest(input);
    const second = await h.activities.openPrivacyRequest(input);
    expect(second).toEqual(first);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(privacyRequests).where(eq(privacyRequests.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(1);
    expect(await tasksOf(h, tenant, caseId, 'PRIVACY_REVIEW')).toHaveLength(1);
    expect(await effectsOf(h, tenant, caseId, 'PRIVACY_REQUEST_RECEIVED')).toHaveLength(1);
    expect(await effectsOf(h, tenant, caseId, 'TASK_CREATED')).toHaveLength(1);
  });

  it('concurrently with the same request key stores one request', async () => {
    const requestKey = newRequestKey();
    const { caseId, interactionId } = await caseWithInteraction(tenant);
    const input = {
      tenantId: tenant,
      requestKey,
      customerRef: 'cus_9',
      requestType: 'ACCESS' as const,
      regime: 'CCPA_CPRA' as const,
      summary: 'Send me my data',
      caseId,
      sourceInteractionId: interactionId,
    };
    const results = await Promise.all([
      h.activities.openPrivacyRequest(input),
      h.activities.openPrivacyRequest(input),
    ]);
    expect(results[1]).toEqual(results[0]);
    expect(await tasksOf(h, tenant, caseId, 'PRIVACY_REVIEW')).toHaveLength(1);
    expect(await effectsOf(h, tenant, caseId, 'PRIVACY_REQUEST_RECEIVED')).toHaveLength(1);
  });

  it('counts in the tenant compliance time zone (GDPR in Europe/Berlin)', async () => {
    const berlin = await newTenant(h, 'dsr-eu');
    await withPlatformTransaction(h.db, (tx) =>
      tx.update(tenants).set({ complianceTimeZone: 'Europe/Berlin' }).where(eq(tenants.id, berlin)),
    );
    // 2026-01-30T23:30Z is 31 January in Berlin: one month later is 28 February.
    const r = await openRequest(berlin, { regime: 'GDPR', receivedAt: '2026-01-30T23:30:00Z' });
    expect(r.statutoryDueAt).toBe('2026-02-28T23:59:59+01:00');
    expect((await requestRow(berlin, r.requestId))?.timeZone).toBe('Europe/Berlin');
  });

  it('rejects a case and an interaction of another tenant with one field error each, writing nothing', async () => {
    const foreign = await caseWithInteraction(otherTenant);
    const requestKey = newRequestKey();
    const err = await expectDomainError(
      h.activities.openPrivacyRequest({
        tenantId: tenant,
        requestKey,
        customerRef: 'cus_9',
        requestType: 'DELETION',
        regime: 'CCPA_CPRA',
        summary: 'x',
        caseId: foreign.caseId,
        sourceInteractionId: foreign.interactionId,
      }),
      'error.msg.resource.not.found',
    );
    expect(err.status).toBe(404);
    expect(err.errors.map((e) => [e.parameterName, e.value])).toEqual([
      ['caseId', foreign.caseId],
      ['sourceInteractionId', foreign.interactionId],
    ]);
    const stored = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(privacyRequests).where(eq(privacyRequests.requestKey, requestKey)),
    );
    expect(stored).toHaveLength(0);
  });

  it('rejects only the interaction when the case is the tenant’s', async () => {
    const own = await caseWithInteraction(tenant);
    const foreign = await caseWithInteraction(otherTenant);
    const err = await expectDomainError(
      h.activities.openPrivacyRequest({
        tenantId: tenant,
        customerRef: 'cus_9',
        requestType: 'DELETION',
        regime: 'CCPA_CPRA',
        summary: 'x',
        caseId: own.caseId,
        sourceInteractionId: foreign.interactionId,
      }),
      'error.msg.resource.not.found',
    );
    expect(err.errors.map((e) => e.parameterName)).toEqual(['sourceInteractionId']);
  });
});

describe('markPrivacyWorkflowStarted', () => {
  it('twice keeps the first start time', async () => {
    const r = await openRequest();
    h.now.value = new Date('2026-03-02T18:00:05Z');
    await h.activities.markPrivacyWorkflowStarted({ tenantId: tenant, requestId: r.requestId });
    h.now.value = new Date('2026-03-02T18:09:00Z');
    await h.activities.markPrivacyWorkflowStarted({ tenantId: tenant, requestId: r.requestId });
    h.now.value = null;
    expect((await requestRow(tenant, r.requestId))?.workflowStartedAt?.toISOString()).toBe(
      '2026-03-02T18:00:05.000Z',
    );
  });
});

describe('start intents of privacy requests', () => {
  /** Claims due intents of one tenant as a relay would at `now`. */
  async function claimAt(
    tenantId: string,
    now: string,
    options: { graceMs?: number; leaseMs?: number } = {},
  ) {
    h.now.value = new Date(now);
    try {
      return await h.platform.claimDueStartIntents({
        graceMs: options.graceMs ?? 60_000,
        leaseMs: options.leaseMs ?? 60_000,
        limit: 100,
        tenantId,
      });
    } finally {
      h.now.value = null;
    }
  }

  it('opening a request stores one intent (also when retried) with the start spec of its workflow', async () => {
    const t = await newTenant(h, 'dsr-intent');
    const key = newRequestKey();
    const r = await openRequest(t, { requestKey: key });
    const again = await openRequest(t, { requestKey: key });
    expect(again.requestId).toBe(r.requestId);
    const rows = await withPlatformTransaction(h.db, (tx) =>
      tx.select().from(workflowStartIntents).where(eq(workflowStartIntents.tenantId, t)),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      workflowId: privacyRequestWorkflowId(t, r.requestId),
      workflowType: 'privacyRequestWorkflow',
      taskQueue: 'servicing',
      input: r.workflow.input,
      searchAttributes: { CustomerRef: 'cus_9', CaseId: r.caseId },
      idReusePolicy: 'REJECT_DUPLICATE',
      startedAt: null,
      attempts: 0,
    });
    expect(rows[0]?.createdAt.toISOString()).toBe('2026-03-02T18:00:00.000Z');
    expect(rows[0]?.staticSummary).toContain(`Privacy request ${r.requestId}`);
  });

  it('is claimed only after the grace period, by one relay at a time, and never once started', async () => {
    const t = await newTenant(h, 'dsr-claim');
    const r = await openRequest(t); // received 2026-03-02T18:00:00Z
    expect(await claimAt(t, '2026-03-02T18:00:30Z')).toEqual([]);
    const first = await claimAt(t, '2026-03-02T18:05:00Z');
    expect(first).toEqual([
      {
        attempts: 1,
        createdAt: new Date('2026-03-02T18:00:00Z'),
        spec: privacyRequestStartSpec(r.workflow.input),
      },
    ]);
    // A second relay during the first one's lease finds nothing.
    expect(await claimAt(t, '2026-03-02T18:05:30Z')).toEqual([]);
    // After the lease expires (the first relay died), it is claimed again.
    expect((await claimAt(t, '2026-03-02T18:06:01Z')).map((c) => c.attempts)).toEqual([2]);
    await h.platform.markStartIntentStarted({ tenantId: t, workflowId: r.workflow.workflowId });
    await h.platform.markStartIntentStarted({ tenantId: t, workflowId: r.workflow.workflowId });
    expect(await claimAt(t, '2026-03-02T19:00:00Z')).toEqual([]);
  });

  it('two relays claiming at the same instant split the intents without overlap', async () => {
    const t = await newTenant(h, 'dsr-split');
    const opened = [];
    for (let i = 0; i < 6; i++) opened.push(await openRequest(t));
    // One clock for both relays (claimAt resets it when it ends, which would let the other see "now").
    h.now.value = new Date('2026-03-02T18:05:00Z');
    const claim = () =>
      h.platform.claimDueStartIntents({ graceMs: 60_000, leaseMs: 60_000, limit: 100, tenantId: t });
    const [a, b] = await Promise.all([claim(), claim()]).finally(() => {
      h.now.value = null;
    });
    const ids = [...a, ...b].map((c) => c.spec.workflowId).sort();
    expect(ids).toEqual(opened.map((o) => o.workflow.workflowId).sort());
  });

  it('a recorded failure keeps the intent unstarted and retries it after the back-off', async () => {
    const t = await newTenant(h, 'dsr-fail');
    const r = await openRequest(t);
    expect(await claimAt(t, '2026-03-02T18:05:00Z')).toHaveLength(1);
    h.now.value = new Date('2026-03-02T18:05:01Z');
    await h.platform.recordStartIntentFailure({
      tenantId: t,
      workflowId: r.workflow.workflowId,
      error: 'UNAVAILABLE',
      retryAfterMs: 10_000,
    });
    h.now.value = null;
    expect(await claimAt(t, '2026-03-02T18:05:05Z')).toEqual([]);
    expect((await claimAt(t, '2026-03-02T18:05:12Z')).map((c) => c.attempts)).toEqual([2]);
    const [row] = await withPlatformTransaction(h.db, (tx) =>
      tx.select().from(workflowStartIntents).where(eq(workflowStartIntents.tenantId, t)),
    );
    expect(row?.lastError).toBe('UNAVAILABLE');
    expect(row?.startedAt).toBeNull();
  });
});

describe('raisePrivacyReminder', () => {
  it('twice raises one reminder task and one reminder effect', async () => {
    const r = await openRequest();
    const ref = { tenantId: tenant, requestId: r.requestId };
    expect(await h.activities.raisePrivacyReminder(ref)).toEqual({ raised: true });
    expect(await h.activities.raisePrivacyReminder(ref)).toEqual({ raised: true });
    const reminders = await tasksOf(h, tenant, r.caseId, 'PRIVACY_DEADLINE_REMINDER');
    expect(reminders).toHaveLength(1);
    expect(reminders[0]?.dueAt?.getTime()).toBe(Date.parse(r.statutoryDueAt));
    const effects = await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_REMINDER');
    expect(effects).toHaveLength(1);
    expect(effects[0]?.detail).toEqual({
      requestId: r.requestId,
      statutoryDueAt: r.statutoryDueAt,
      taskId: reminders[0]?.id,
    });
    expect((await requestRow(tenant, r.requestId))?.status).toBe('RECEIVED');
  });

  it('does nothing once the request has an outcome', async () => {
    const r = await openRequest();
    await h.activities.fulfilPrivacyRequest({
      tenantId: tenant,
      requestId: r.requestId,
      outcome: 'DENIED',
      outcomeReason: 'x',
      evidenceIds: [],
    });
    expect(await h.activities.raisePrivacyReminder({ tenantId: tenant, requestId: r.requestId })).toEqual({
      raised: false,
    });
    expect(await tasksOf(h, tenant, r.caseId, 'PRIVACY_DEADLINE_REMINDER')).toHaveLength(0);
    expect(await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_REMINDER')).toHaveLength(0);
  });

  it("answers 404 for another tenant's request", async () => {
    const r = await openRequest(otherTenant);
    await expectDomainError(
      h.activities.raisePrivacyReminder({ tenantId: tenant, requestId: r.requestId }),
      'error.msg.resource.not.found',
    );
    expect(await tasksOf(h, otherTenant, r.caseId, 'PRIVACY_DEADLINE_REMINDER')).toHaveLength(0);
  });
});

describe('markPrivacyRequestOverdue', () => {
  it('twice: OVERDUE once, one escalation task, one overdue effect', async () => {
    const r = await openRequest();
    const ref = { tenantId: tenant, requestId: r.requestId };
    expect(await h.activities.markPrivacyRequestOverdue(ref)).toEqual({ status: 'OVERDUE' });
    expect(await h.activities.markPrivacyRequestOverdue(ref)).toEqual({ status: 'OVERDUE' });
    expect((await requestRow(tenant, r.requestId))?.status).toBe('OVERDUE');
    const escalations = await tasksOf(h, tenant, r.caseId, 'PRIVACY_ESCALATION');
    expect(escalations).toHaveLength(1);
    expect(escalations[0]?.status).toBe('OPEN');
    const effects = await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_OVERDUE');
    expect(effects).toHaveLength(1);
    expect(effects[0]?.detail).toEqual({
      requestId: r.requestId,
      fromStatus: 'RECEIVED',
      toStatus: 'OVERDUE',
      escalationTaskId: escalations[0]?.id,
    });
  });

  it('does nothing once the request has an outcome, and returns that outcome', async () => {
    const r = await openRequest();
    await h.activities.fulfilPrivacyRequest({
      tenantId: tenant,
      requestId: r.requestId,
      outcome: 'FULFILLED',
      outcomeReason: 'x',
      evidenceIds: [],
    });
    expect(
      await h.activities.markPrivacyRequestOverdue({ tenantId: tenant, requestId: r.requestId }),
    ).toEqual({ status: 'FULFILLED' });
    expect((await requestRow(tenant, r.requestId))?.status).toBe('FULFILLED');
    expect(await tasksOf(h, tenant, r.caseId, 'PRIVACY_ESCALATION')).toHaveLength(0);
    expect(await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_OVERDUE')).toHaveLength(0);
  });
});

describe('fulfilPrivacyRequest', () => {
  it('records the outcome, links the evidence, completes open tasks and writes one effect; a repeat returns the first result', async () => {
    const r = await openRequest();
    const ref = { tenantId: tenant, requestId: r.requestId };
    await h.activities.raisePrivacyReminder(ref);
    const e1 = await addEvidence(tenant, r.caseId);
    const e2 = await addEvidence(tenant, r.caseId);
    const args = {
      ...ref,
      outcome: 'FULFILLED' as const,
      outcomeReason: 'Deleted everywhere',
      evidenceIds: [e2, e1, e2],
      actor: 'agent-5',
    };

    h.now.value = new Date('2026-03-20T10:00:00Z');
    const first = await h.activities.fulfilPrivacyRequest(args);
    h.now.value = new Date('2026-03-21T10:00:00Z');
    const second = await h.activities.fulfilPrivacyRequest(args);
    h.now.value = null;
    expect(first).toEqual({ requestId: r.requestId, status: 'FULFILLED' });
    expect(second).toEqual(first);

    const row = await requestRow(tenant, r.requestId);
    expect(row).toMatchObject({
      status: 'FULFILLED',
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted everywhere',
    });
    expect(row?.fulfilledAt?.toISOString()).toBe('2026-03-20T10:00:00.000Z');
    expect((await evidenceLinks(tenant, r.requestId)).map((l) => l.evidenceId).sort((a, b) => a - b)).toEqual(
      [e1, e2].sort((a, b) => a - b),
    );
    const effects = await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_FULFILLED');
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatchObject({
      actorUsername: 'agent-5',
      detail: {
        requestId: r.requestId,
        fromStatus: 'RECEIVED',
        toStatus: 'FULFILLED',
        evidenceIds: [e1, e2].sort((a, b) => a - b),
      },
    });
    const requestTasks = (await tasksOf(h, tenant, r.caseId)).filter(
      (t) => t.subjectType === 'privacy_request',
    );
    expect(requestTasks.map((t) => t.taskType).sort()).toEqual([
      'PRIVACY_DEADLINE_REMINDER',
      'PRIVACY_REVIEW',
    ]);
    for (const t of requestTasks) expect(t).toMatchObject({ status: 'COMPLETED', completedBy: 'agent-5' });
  });

  it('fulfils an OVERDUE request and closes its escalation task', async () => {
    const r = await openRequest();
    const ref = { tenantId: tenant, requestId: r.requestId };
    await h.activities.markPrivacyRequestOverdue(ref);
    expect(
      await h.activities.fulfilPrivacyRequest({
        ...ref,
        outcome: 'PARTIALLY_FULFILLED',
        outcomeReason: 'x',
        evidenceIds: [],
      }),
    ).toEqual({
      requestId: r.requestId,
      status: 'PARTIALLY_FULFILLED',
    });
    const effects = await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_PARTIALLY_FULFILLED');
    expect(effects[0]?.detail).toMatchObject({ fromStatus: 'OVERDUE', toStatus: 'PARTIALLY_FULFILLED' });
    const [escalation] = await tasksOf(h, tenant, r.caseId, 'PRIVACY_ESCALATION');
    expect(escalation?.status).toBe('COMPLETED');
  });

  it('gives a field error evidenceIds[i] for each unknown or foreign evidence id, and changes nothing', async () => {
    const r = await openRequest();
    const own = await addEvidence(tenant, r.caseId);
    const foreignCase = await caseWithInteraction(otherTenant);
    const foreign = await addEvidence(otherTenant, foreignCase.caseId);
    const unknown = 9_000_000_000;
    const err = await expectDomainError(
      h.activities.fulfilPrivacyRequest({
        tenantId: tenant,
        requestId: r.requestId,
        outcome: 'FULFILLED',
        outcomeReason: 'x',
        evidenceIds: [own, unknown, own, foreign],
      }),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors.map((e) => [e.parameterName, e.value])).toEqual([
      ['evidenceIds[1]', unknown],
      ['evidenceIds[3]', foreign],
    ]);
    expect((await requestRow(tenant, r.requestId))?.status).toBe('RECEIVED');
    expect(await evidenceLinks(tenant, r.requestId)).toHaveLength(0);
    expect((await tasksOf(h, tenant, r.caseId, 'PRIVACY_REVIEW'))[0]?.status).toBe('OPEN');
  });

  it('rejects a second, different outcome with error.msg.privacy.request.invalid.state.transition', async () => {
    const r = await openRequest();
    const ref = { tenantId: tenant, requestId: r.requestId };
    const e1 = await addEvidence(tenant, r.caseId);
    await h.activities.fulfilPrivacyRequest({
      ...ref,
      outcome: 'FULFILLED',
      outcomeReason: 'done',
      evidenceIds: [e1],
    });
    const other = await expectDomainError(
      h.activities.fulfilPrivacyRequest({
        ...ref,
        outcome: 'DENIED',
        outcomeReason: 'no',
        evidenceIds: [e1],
      }),
      'error.msg.privacy.request.invalid.state.transition',
    );
    expect(other.status).toBe(409);
    // The same outcome with other evidence is another request too.
    await expectDomainError(
      h.activities.fulfilPrivacyRequest({
        ...ref,
        outcome: 'FULFILLED',
        outcomeReason: 'done',
        evidenceIds: [],
      }),
      'error.msg.privacy.request.invalid.state.transition',
    );
    expect((await requestRow(tenant, r.requestId))?.status).toBe('FULFILLED');
    expect(await effectsOf(h, tenant, r.caseId, 'PRIVACY_REQUEST_DENIED')).toHaveLength(0);
  });

  it("answers 404 for another tenant's request", async () => {
    const r = await openRequest(otherTenant);
    await expectDomainError(
      h.activities.fulfilPrivacyRequest({
        tenantId: tenant,
        requestId: r.requestId,
        outcome: 'FULFILLED',
        outcomeReason: 'x',
        evidenceIds: [],
      }),
      'error.msg.resource.not.found',
    );
    expect((await requestRow(otherTenant, r.requestId))?.status).toBe('RECEIVED');
  });
});

/** Keeps MockActivityEnvironment from logging every expected failure. */
const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('as Temporal activities (workers/activities.ts)', () => {
  it('turns a DomainError into a non-retryable ApplicationFailure whose type is the code', async () => {
    const r = await openRequest();
    const wrapped = asTemporalActivities(h.activities);
    const env = new MockActivityEnvironment(undefined, { logger: silentLogger });
    await env.run(wrapped.fulfilPrivacyRequest, {
      tenantId: tenant,
      requestId: r.requestId,
      outcome: 'WITHDRAWN' as const,
      outcomeReason: 'Customer withdrew',
      evidenceIds: [],
    });
    let failure: unknown;
    try {
      await env.run(wrapped.fulfilPrivacyRequest, {
        tenantId: tenant,
        requestId: r.requestId,
        outcome: 'FULFILLED' as const,
        outcomeReason: 'x',
        evidenceIds: [],
      });
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type: 'error.msg.privacy.request.invalid.state.transition',
      nonRetryable: true,
    });
    expect((failure as ApplicationFailure).details).toEqual([{ errors: [] }]);
  });

  it('carries the field errors in the first detail', async () => {
    const r = await openRequest();
    const env = new MockActivityEnvironment(undefined, { logger: silentLogger });
    const failure = await env
      .run(asTemporalActivities(h.activities).fulfilPrivacyRequest, {
        tenantId: tenant,
        requestId: r.requestId,
        outcome: 'FULFILLED' as const,
        outcomeReason: 'x',
        evidenceIds: [9_000_000_001],
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const details = (failure as ApplicationFailure).details as [{ errors: { parameterName: string }[] }];
    expect(details[0].errors.map((e) => e.parameterName)).toEqual(['evidenceIds[0]']);
  });

  it('leaves other errors retryable (plain errors pass through)', async () => {
    const failing = {
      ...h.activities,
      markPrivacyWorkflowStarted: async () => Promise.reject(new Error('connection reset')),
    };
    const env = new MockActivityEnvironment(undefined, { logger: silentLogger });
    const err = await env
      .run(asTemporalActivities(failing).markPrivacyWorkflowStarted, { tenantId: tenant, requestId: 1 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ApplicationFailure);
    expect((err as Error).message).toBe('connection reset');
    // A DomainError thrown directly is the operation's; the wrapper is what converts it.
    const direct = await domainErrorOf(
      h.activities.markPrivacyRequestOverdue({ tenantId: tenant, requestId: 9_000_000_002 }),
    );
    expect(direct.code).toBe('error.msg.resource.not.found');
  });
});

describe('row-level security on privacy tables', () => {
  it("a transaction of another tenant sees none of the request's rows", async () => {
    const r = await openRequest();
    const e = await addEvidence(tenant, r.caseId);
    await h.activities.fulfilPrivacyRequest({
      tenantId: tenant,
      requestId: r.requestId,
      outcome: 'FULFILLED',
      outcomeReason: 'x',
      evidenceIds: [e],
    });
    const seen = await withTenantTransaction(h.db, otherTenant, async (tx) => ({
      requests: await tx.select().from(privacyRequests).where(eq(privacyRequests.id, r.requestId)),
      links: await tx
        .select()
        .from(privacyRequestEvidence)
        .where(
          and(eq(privacyRequestEvidence.requestId, r.requestId), eq(privacyRequestEvidence.evidenceId, e)),
        ),
    }));
    expect(seen).toEqual({ requests: [], links: [] });
    expect(await evidenceLinks(tenant, r.requestId)).toHaveLength(1);
  });
});
