/**
 * Servicing operations on the real PostgreSQL: every write runs twice (same request key) and
 * leaves one row, one effect, one outbox event (docs/conventions.md §11).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cases, evidence, interactions, tasks } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type ActivityHarness,
  createHarness,
  domainErrorOf,
  effectsOf,
  expectDomainError,
  newRequestKey,
  newTenant,
  outboxOf,
  tasksOf,
} from './helpers';

let h: ActivityHarness;
let tenant: string;
let otherTenant: string;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'svc');
  otherTenant = await newTenant(h, 'svc-other');
});
afterAll(async () => h?.close());

function openCase(tenantId: string, requestKey: string | null = newRequestKey(), customerRef = 'cus_1') {
  return h.activities.openCase({
    tenantId,
    requestKey,
    actor: 'agent-7',
    correlationId: 'req-1',
    customerRef,
    caseTypeCode: 'GENERAL',
    summary: 'Customer called about a late fee',
  });
}

function casesWithKey(tenantId: string, requestKey: string) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx.select().from(cases).where(eq(cases.requestKey, requestKey)),
  );
}

describe('openCase', () => {
  it('twice with the same request key opens one case with one CASE_OPENED effect', async () => {
    const requestKey = newRequestKey();
    const first = await openCase(tenant, requestKey);
    const second = await openCase(tenant, requestKey);
    expect(second).toEqual(first);
    expect(first.status).toBe('OPEN');
    expect(await casesWithKey(tenant, requestKey)).toHaveLength(1);
    const effects = await effectsOf(h, tenant, first.caseId);
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatchObject({
      effectType: 'CASE_OPENED',
      subjectType: 'case',
      subjectId: String(first.caseId),
      actorUsername: 'agent-7',
      correlationId: 'req-1',
      detail: { caseTypeCode: 'GENERAL', customerRef: 'cus_1' },
    });
  });

  it('concurrently with the same request key opens one case', async () => {
    const requestKey = newRequestKey();
    const results = await Promise.all([
      openCase(tenant, requestKey),
      openCase(tenant, requestKey),
      openCase(tenant, requestKey),
    ]);
    expect(new Set(results.map((r) => r.caseId)).size).toBe(1);
    expect(await casesWithKey(tenant, requestKey)).toHaveLength(1);
    expect(await effectsOf(h, tenant, results[0]!.caseId)).toHaveLength(1);
  });

  it('without a request key opens a new case each time', async () => {
    const a = await openCase(tenant, null);
    const b = await openCase(tenant, null);
    expect(a.caseId).not.toBe(b.caseId);
  });

  it('uses the clock for openedAt', async () => {
    h.now.value = new Date('2026-05-01T12:00:00.123Z');
    try {
      const { caseId } = await openCase(tenant);
      const [row] = await withTenantTransaction(h.db, tenant, (tx) =>
        tx.select().from(cases).where(eq(cases.id, caseId)),
      );
      expect(row?.openedAt.toISOString()).toBe('2026-05-01T12:00:00.123Z');
    } finally {
      h.now.value = null;
    }
  });

  it('rejects an unknown case type with a field error and writes nothing', async () => {
    const requestKey = newRequestKey();
    const err = await expectDomainError(
      h.activities.openCase({
        tenantId: tenant,
        requestKey,
        customerRef: 'c',
        caseTypeCode: 'NOPE',
        summary: 's',
      }),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors.map((e) => [e.parameterName, e.value])).toEqual([['caseTypeCode', 'NOPE']]);
    expect(await casesWithKey(tenant, requestKey)).toHaveLength(0);
  });
});

describe('logInteraction', () => {
  it('twice with the same request key logs one interaction and one INTERACTION_LOGGED effect', async () => {
    const { caseId } = await openCase(tenant);
    const requestKey = newRequestKey();
    const input = {
      tenantId: tenant,
      requestKey,
      actor: 'agent-7',
      customerRef: 'cus_1',
      caseId,
      channel: 'PHONE' as const,
      direction: 'INBOUND' as const,
      summary: 'Asked about payoff',
    };
    const first = await h.activities.logInteraction(input);
    expect(await h.activities.logInteraction(input)).toEqual(first);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(interactions).where(eq(interactions.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: first.interactionId,
      caseId,
      channel: 'PHONE',
      actorUsername: 'agent-7',
    });
    const logged = await effectsOf(h, tenant, caseId, 'INTERACTION_LOGGED');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      subjectId: String(first.interactionId),
      detail: { channel: 'PHONE', direction: 'INBOUND' },
    });
  });

  it('without a case writes no effect', async () => {
    const { interactionId } = await h.activities.logInteraction({
      tenantId: tenant,
      customerRef: 'cus_2',
      channel: 'EMAIL',
      direction: 'OUTBOUND',
      summary: 'Sent statement',
    });
    const [row] = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(interactions).where(eq(interactions.id, interactionId)),
    );
    expect(row?.caseId).toBeNull();
  });

  it("rejects another tenant's case as a field error", async () => {
    const { caseId } = await openCase(otherTenant);
    const err = await expectDomainError(
      h.activities.logInteraction({
        tenantId: tenant,
        customerRef: 'cus_1',
        caseId,
        channel: 'SMS',
        direction: 'INBOUND',
        summary: 'x',
      }),
      'error.msg.resource.not.found',
    );
    expect(err.errors.map((e) => e.parameterName)).toEqual(['caseId']);
    expect(await effectsOf(h, otherTenant, caseId, 'INTERACTION_LOGGED')).toHaveLength(0);
  });
});

describe('addEvidence', () => {
  it('twice with the same request key adds one evidence row and one EVIDENCE_ADDED effect', async () => {
    const { caseId } = await openCase(tenant);
    const { documentId } = await h.activities.createDocument({
      tenantId: tenant,
      title: 'Hardship letter',
      documentType: 'LETTER',
    });
    const requestKey = newRequestKey();
    const input = {
      tenantId: tenant,
      requestKey,
      caseId,
      evidenceType: 'LETTER',
      description: 'Hardship letter',
      documentId,
    };
    const first = await h.activities.addEvidence(input);
    expect(await h.activities.addEvidence(input)).toEqual(first);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(evidence).where(eq(evidence.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: first.evidenceId, caseId, evidenceType: 'LETTER', documentId });
    const added = await effectsOf(h, tenant, caseId, 'EVIDENCE_ADDED');
    expect(added).toHaveLength(1);
    expect(added[0]?.detail).toEqual({ evidenceType: 'LETTER', documentId });
  });

  it("rejects a document that is not the tenant's as a field error, writing nothing", async () => {
    const { caseId } = await openCase(tenant);
    const { documentId } = await h.activities.createDocument({
      tenantId: otherTenant,
      title: 'Elsewhere',
      documentType: 'LETTER',
    });
    const err = await expectDomainError(
      h.activities.addEvidence({
        tenantId: tenant,
        caseId,
        evidenceType: 'LETTER',
        description: 'x',
        documentId,
      }),
      'error.msg.resource.not.found',
    );
    expect(err.errors[0]?.parameterName).toBe('documentId');
    expect(await effectsOf(h, tenant, caseId, 'EVIDENCE_ADDED')).toHaveLength(0);
  });

  it("rejects another tenant's case as a field error", async () => {
    const { caseId } = await openCase(otherTenant);
    const err = await expectDomainError(
      h.activities.addEvidence({ tenantId: tenant, caseId, evidenceType: 'LETTER', description: 'x' }),
      'error.msg.resource.not.found',
    );
    expect(err.errors[0]).toMatchObject({ parameterName: 'caseId', value: caseId });
  });
});

describe('closeCase', () => {
  it('closes the case, records CASE_CLOSED and writes one case.transitioned outbox event', async () => {
    const { caseId } = await openCase(tenant);
    h.now.value = new Date('2026-06-01T09:30:00.000Z');
    try {
      const result = await h.activities.closeCase({
        tenantId: tenant,
        requestKey: newRequestKey(),
        actor: 'agent-9',
        caseId,
        outcomeCode: 'PAID_IN_FULL',
        closureReason: 'Paid as promised',
      });
      expect(result).toEqual({ caseId, status: 'CLOSED', outcomeCode: 'PAID_IN_FULL' });
    } finally {
      h.now.value = null;
    }
    const [row] = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(cases).where(eq(cases.id, caseId)),
    );
    expect(row).toMatchObject({
      status: 'CLOSED',
      outcomeCode: 'PAID_IN_FULL',
      closureReason: 'Paid as promised',
    });
    expect(row?.closedAt?.toISOString()).toBe('2026-06-01T09:30:00.000Z');

    const closed = await effectsOf(h, tenant, caseId, 'CASE_CLOSED');
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({
      actorUsername: 'agent-9',
      detail: {
        caseId,
        fromStatus: 'OPEN',
        toStatus: 'CLOSED',
        outcomeCode: 'PAID_IN_FULL',
        closureReason: 'Paid as promised',
      },
    });

    const events = await outboxOf(h, tenant, caseId);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({
      eventType: 'case.transitioned',
      subjectType: 'case',
      subjectId: String(caseId),
      publishedAt: null,
    });
    expect(event?.data).toEqual({
      caseId,
      fromStatus: 'OPEN',
      toStatus: 'CLOSED',
      outcomeCode: 'PAID_IN_FULL',
    });
    expect(event?.eventId).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(event?.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(event?.occurredAt.toISOString()).toBe('2026-06-01T09:30:00.000Z');
  });

  it('twice with the same request key: the second is a 409 and nothing is written twice', async () => {
    const { caseId } = await openCase(tenant);
    const requestKey = newRequestKey();
    await h.activities.closeCase({
      tenantId: tenant,
      requestKey,
      caseId,
      outcomeCode: 'PAID_IN_FULL',
      closureReason: 'r',
    });
    const err = await expectDomainError(
      h.activities.closeCase({
        tenantId: tenant,
        requestKey,
        caseId,
        outcomeCode: 'WRITTEN_OFF',
        closureReason: 'other',
      }),
      'error.msg.case.invalid.state.transition',
    );
    expect(err.status).toBe(409);
    expect(await effectsOf(h, tenant, caseId, 'CASE_CLOSED')).toHaveLength(1);
    expect(await outboxOf(h, tenant, caseId)).toHaveLength(1);
    const [row] = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(cases).where(eq(cases.id, caseId)),
    );
    expect(row?.outcomeCode).toBe('PAID_IN_FULL');
  });

  it('concurrent closes: one wins, the other is a 409, one outbox event', async () => {
    const { caseId } = await openCase(tenant);
    const attempt = () =>
      h.activities.closeCase({ tenantId: tenant, caseId, outcomeCode: 'PAID_IN_FULL', closureReason: 'r' });
    const settled = await Promise.allSettled([attempt(), attempt()]);
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
    const rejected = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'error.msg.case.invalid.state.transition' });
    expect(await outboxOf(h, tenant, caseId)).toHaveLength(1);
  });

  it("answers 404 for another tenant's case and leaves it open", async () => {
    const { caseId } = await openCase(otherTenant);
    const err = await domainErrorOf(
      h.activities.closeCase({ tenantId: tenant, caseId, outcomeCode: 'PAID_IN_FULL', closureReason: 'r' }),
    );
    expect(err.code).toBe('error.msg.resource.not.found');
    const [row] = await withTenantTransaction(h.db, otherTenant, (tx) =>
      tx.select().from(cases).where(eq(cases.id, caseId)),
    );
    expect(row?.status).toBe('OPEN');
    expect(await outboxOf(h, otherTenant, caseId)).toHaveLength(0);
  });
});

describe('completeTask', () => {
  async function insertTask(tenantId: string, caseId: number | null) {
    const [row] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .insert(tasks)
        .values({
          tenantId,
          caseId,
          taskType: 'CALLBACK',
          title: 'Call the customer back',
          subjectType: 'case',
          subjectId: String(caseId),
          dedupeKey: `test/${newRequestKey()}`,
        })
        .returning(),
    );
    if (!row) throw new Error('no task');
    return row;
  }

  it('twice: the second is a 409, one TASK_COMPLETED effect, the first completion is kept', async () => {
    const { caseId } = await openCase(tenant);
    const task = await insertTask(tenant, caseId);
    const requestKey = newRequestKey();
    expect(
      await h.activities.completeTask({
        tenantId: tenant,
        requestKey,
        actor: 'agent-1',
        taskId: task.id,
        note: 'Done',
      }),
    ).toEqual({
      taskId: task.id,
      status: 'COMPLETED',
    });
    await expectDomainError(
      h.activities.completeTask({
        tenantId: tenant,
        requestKey,
        actor: 'agent-2',
        taskId: task.id,
        note: 'Again',
      }),
      'error.msg.task.invalid.state.transition',
    );
    const [row] = await tasksOf(h, tenant, caseId, 'CALLBACK');
    expect(row).toMatchObject({ status: 'COMPLETED', completedBy: 'agent-1', completionNote: 'Done' });
    const completed = await effectsOf(h, tenant, caseId, 'TASK_COMPLETED');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      subjectId: String(task.id),
      detail: { taskType: 'CALLBACK', note: 'Done' },
    });
  });

  it("answers 404 for another tenant's task and leaves it open", async () => {
    const task = await insertTask(otherTenant, null);
    await expectDomainError(
      h.activities.completeTask({ tenantId: tenant, taskId: task.id }),
      'error.msg.resource.not.found',
    );
    const [row] = await withTenantTransaction(h.db, otherTenant, (tx) =>
      tx
        .select()
        .from(tasks)
        .where(and(eq(tasks.id, task.id))),
    );
    expect(row?.status).toBe('OPEN');
  });
});
