/**
 * The servicing routes (docs/servicing.md; docs/design.md §5 Privacy-request clocks):
 * cases, interactions, evidence, tasks and privacy requests, through the app on the real
 * database and Temporal.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseEffects, interactions, outboxEvents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import {
  addEvidence,
  countRows,
  expectShapeA,
  logInteraction,
  openCase,
  openPrivacyRequest,
} from './helpers';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('svc'));
});
afterAll(async () => ctx?.close());

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function effectTypes(caseId: number): Promise<string[]> {
  const res = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects?limit=200`);
  expect(res.status).toBe(200);
  return res.body.items.map((e: { effectType: string }) => e.effectType);
}

describe('cases', () => {
  it('opens a case: 201 {caseId, resourceId, status OPEN}, readable with every field', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', {
      customerRef: 'cus_42',
      caseTypeCode: 'HARDSHIP',
      summary: '  Lost job, asks for help  ',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ caseId: expect.any(Number), resourceId: res.body.caseId, status: 'OPEN' });
    const read = await call(ctx, cred, 'GET', `/v1/servicing/cases/${res.body.caseId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      caseId: res.body.caseId,
      resourceId: res.body.caseId,
      customerRef: 'cus_42',
      caseTypeCode: 'HARDSHIP',
      summary: 'Lost job, asks for help',
      status: 'OPEN',
      outcomeCode: null,
      closureReason: null,
      openedAt: expect.stringMatching(isoInstant),
      closedAt: null,
    });
    expect(await effectTypes(res.body.caseId)).toEqual(['CASE_OPENED']);
  });

  it('opens a case of each default type', async () => {
    for (const caseTypeCode of ['GENERAL', 'PRIVACY', 'HARDSHIP', 'COMPLAINT']) {
      const caseId = await openCase(ctx, cred, { caseTypeCode });
      expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`)).body.caseTypeCode).toBe(
        caseTypeCode,
      );
    }
  });

  it('rejects an unknown case type with 400 naming caseTypeCode', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', {
      customerRef: 'cus_1',
      caseTypeCode: 'MORTGAGE_FRAUD',
      summary: 's',
    });
    const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['caseTypeCode']);
    expect(err.errors[0]?.value).toBe('MORTGAGE_FRAUD');
    expect(err.developerMessage).toBe('Unknown case type MORTGAGE_FRAUD.');
    const lower = await call(ctx, cred, 'POST', '/v1/servicing/cases', {
      customerRef: 'c',
      caseTypeCode: 'general',
      summary: 's',
    });
    expectShapeA(lower, 400, 'validation.msg.validation.errors.exist', ['caseTypeCode']);
  });

  it('rejects empty and over-long text fields', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', {
      customerRef: 'c'.repeat(129),
      caseTypeCode: 'GENERAL',
      summary: '   ',
    });
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['customerRef', 'summary']);
  });

  it('closes an open case, records the outcome, writes case.transitioned, and refuses a second close with 409', async () => {
    const caseId = await openCase(ctx, cred);
    const res = await call(
      ctx,
      cred,
      'POST',
      `/v1/servicing/cases/${caseId}/close`,
      { outcomeCode: 'PAID_IN_FULL', closureReason: 'Paid in full' },
      { 'service-actor': 'agent-7' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      resourceId: caseId,
      changes: { status: 'CLOSED', outcomeCode: 'PAID_IN_FULL' },
    });

    const read = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`);
    expect(read.body).toMatchObject({
      status: 'CLOSED',
      outcomeCode: 'PAID_IN_FULL',
      closureReason: 'Paid in full',
      closedAt: expect.stringMatching(isoInstant),
    });

    const again = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'RESOLVED',
      closureReason: 'Again',
    });
    const err = expectShapeA(again, 409, 'error.msg.case.invalid.state.transition', []);
    expect(err.developerMessage).toBe(`Case ${caseId} is already CLOSED.`);
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`)).body.outcomeCode).toBe(
      'PAID_IN_FULL',
    );

    const events = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.subjectType, 'case'), eq(outboxEvents.subjectId, String(caseId)))),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      tenantId: cred.tenant,
      eventType: 'case.transitioned',
      eventId: expect.stringMatching(/^evt_/),
      apiVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      data: { caseId, fromStatus: 'OPEN', toStatus: 'CLOSED', outcomeCode: 'PAID_IN_FULL' },
      publishedAt: null,
    });

    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(effects.body.items.at(-1)).toMatchObject({
      effectType: 'CASE_CLOSED',
      actorUsername: 'agent-7',
      detail: {
        fromStatus: 'OPEN',
        toStatus: 'CLOSED',
        outcomeCode: 'PAID_IN_FULL',
        closureReason: 'Paid in full',
      },
    });
  });

  it('answers 404 when closing a case that does not exist and 400 for a bad close body', async () => {
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/cases/987654321/close', {
        outcomeCode: 'RESOLVED',
        closureReason: 'x',
      }),
      404,
      'error.msg.resource.not.found',
    );
    const caseId = await openCase(ctx, cred);
    const bad = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'resolved',
      closureReason: '',
    });
    expectShapeA(bad, 400, 'validation.msg.validation.errors.exist', ['outcomeCode', 'closureReason']);
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`)).body.status).toBe('OPEN');
  });
});

describe('interactions', () => {
  it('records every channel in both directions, each readable', async () => {
    const caseId = await openCase(ctx, cred, { customerRef: 'cus_5' });
    const channels = ['PHONE', 'SMS', 'EMAIL', 'CHAT', 'LETTER', 'VOICE'];
    const expected: { interactionId: number; channel: string; direction: string }[] = [];
    for (const channel of channels) {
      for (const direction of ['INBOUND', 'OUTBOUND']) {
        const res = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
          customerRef: 'cus_5',
          caseId,
          channel,
          direction,
          summary: `${direction} ${channel}`,
        });
        expect(res.status).toBe(201);
        expect(res.body).toEqual({ interactionId: expect.any(Number), resourceId: res.body.interactionId });
        expected.push({ interactionId: res.body.interactionId, channel, direction });
      }
    }
    for (const e of expected) {
      const read = await call(ctx, cred, 'GET', `/v1/servicing/interactions/${e.interactionId}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        interactionId: e.interactionId,
        resourceId: e.interactionId,
        customerRef: 'cus_5',
        caseId,
        channel: e.channel,
        direction: e.direction,
        summary: `${e.direction} ${e.channel}`,
        actorUsername: null,
        occurredAt: expect.stringMatching(isoInstant),
      });
    }
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    const logged = effects.body.items.filter(
      (e: { effectType: string }) => e.effectType === 'INTERACTION_LOGGED',
    );
    expect(logged.map((e: { subjectId: string }) => Number(e.subjectId))).toEqual(
      expected.map((e) => e.interactionId),
    );
    expect(logged[0]).toMatchObject({
      subjectType: 'interaction',
      detail: { channel: 'PHONE', direction: 'INBOUND' },
    });
  });

  it('records an interaction without a case (caseId absent or null)', async () => {
    const absent = await logInteraction(ctx, cred, null, { caseId: undefined });
    const nulled = await logInteraction(ctx, cred, null);
    for (const id of [absent, nulled]) {
      const read = await call(ctx, cred, 'GET', `/v1/servicing/interactions/${id}`);
      expect(read.body).toMatchObject({ interactionId: id, caseId: null });
    }
  });

  it('rejects an unknown channel or direction with 400 naming the field', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
      customerRef: 'c',
      channel: 'FAX',
      direction: 'INBOUND',
      summary: 'x',
    });
    const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['channel']);
    expect(err.errors[0]?.value).toBe('FAX');
    const lower = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
      customerRef: 'c',
      channel: 'email',
      direction: 'inbound',
      summary: 'x',
    });
    expectShapeA(lower, 400, 'validation.msg.validation.errors.exist', ['channel', 'direction']);
  });

  it('rejects a caseId of no case with 404 naming caseId (a malformed one with 400), and creates nothing', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('svc'));
    const res = await call(ctx, owner, 'POST', '/v1/servicing/interactions', {
      customerRef: 'c',
      caseId: 987654321,
      channel: 'CHAT',
      direction: 'INBOUND',
      summary: 'x',
    });
    const err = expectShapeA(res, 404, 'error.msg.resource.not.found', ['caseId']);
    expect(err.errors[0]?.value).toBe(987654321);
    for (const caseId of [0, -3, 1.5, '12']) {
      const bad = await call(ctx, owner, 'POST', '/v1/servicing/interactions', {
        customerRef: 'c',
        caseId,
        channel: 'CHAT',
        direction: 'INBOUND',
        summary: 'x',
      });
      expectShapeA(bad, 400, 'validation.msg.validation.errors.exist', ['caseId']);
    }
    expect(await countRows(ctx, owner.tenant, interactions)).toBe(0);
  });

  it('answers 404 for an interaction that does not exist', async () => {
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/servicing/interactions/987654321'),
      404,
      'error.msg.resource.not.found',
    );
  });
});

describe('evidence', () => {
  it('records evidence on a case: 201 {evidenceId, resourceId}, readable, with an EVIDENCE_ADDED effect', async () => {
    const caseId = await openCase(ctx, cred);
    const { documentId } = await ctx.activities.createDocument({
      tenantId: cred.tenant,
      title: 'Call recording',
      documentType: 'CALL_RECORDING',
    });
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/evidence',
      { caseId, evidenceType: 'CALL_RECORDING', description: 'Recording of the call', documentId },
      { 'service-actor': 'agent-9' },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ evidenceId: expect.any(Number), resourceId: res.body.evidenceId });
    const read = await call(ctx, cred, 'GET', `/v1/servicing/evidence/${res.body.evidenceId}`);
    expect(read.body).toEqual({
      evidenceId: res.body.evidenceId,
      resourceId: res.body.evidenceId,
      caseId,
      evidenceType: 'CALL_RECORDING',
      description: 'Recording of the call',
      documentId,
      actorUsername: 'agent-9',
      createdAt: expect.stringMatching(isoInstant),
    });
    const without = await addEvidence(ctx, cred, caseId);
    expect((await call(ctx, cred, 'GET', `/v1/servicing/evidence/${without}`)).body.documentId).toBeNull();
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(effects.body.items.slice(1)).toMatchObject([
      {
        effectType: 'EVIDENCE_ADDED',
        subjectType: 'evidence',
        subjectId: String(res.body.evidenceId),
        detail: { evidenceType: 'CALL_RECORDING', documentId },
      },
      { effectType: 'EVIDENCE_ADDED', subjectId: String(without) },
    ]);
  });

  it('rejects evidence on no case (404 caseId) and a missing or malformed field (400)', async () => {
    const unknown = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
      caseId: 987654321,
      evidenceType: 'NOTE',
      description: 'x',
    });
    expectShapeA(unknown, 404, 'error.msg.resource.not.found', ['caseId']);
    const missing = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
      evidenceType: 'NOTE',
      description: 'x',
    });
    expectShapeA(missing, 400, 'validation.msg.validation.errors.exist', ['caseId']);
    const caseId = await openCase(ctx, cred);
    const badType = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
      caseId,
      evidenceType: 'a note',
      description: 'x',
    });
    expectShapeA(badType, 400, 'validation.msg.validation.errors.exist', ['evidenceType']);
  });

  it('answers 404 for evidence that does not exist', async () => {
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/servicing/evidence/987654321'),
      404,
      'error.msg.resource.not.found',
    );
  });
});

describe('tasks', () => {
  it('completes an open task once; a second completion answers 409', async () => {
    const { reviewTaskId, caseId } = await openPrivacyRequest(ctx, cred);
    const before = await call(ctx, cred, 'GET', `/v1/servicing/tasks/${reviewTaskId}`);
    expect(before.body).toEqual({
      taskId: reviewTaskId,
      resourceId: reviewTaskId,
      caseId,
      taskType: 'PRIVACY_REVIEW',
      title: expect.stringContaining('CCPA_CPRA DELETION'),
      status: 'OPEN',
      subjectType: 'privacy_request',
      subjectId: expect.any(String),
      dueAt: expect.stringMatching(isoInstant),
      createdAt: expect.stringMatching(isoInstant),
      completedAt: null,
      completedBy: null,
      completionNote: null,
    });

    const res = await call(
      ctx,
      cred,
      'POST',
      `/v1/servicing/tasks/${reviewTaskId}/complete`,
      { note: 'Reviewed' },
      { 'service-actor': 'reviewer-1' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ resourceId: reviewTaskId, changes: { status: 'COMPLETED' } });
    const after = await call(ctx, cred, 'GET', `/v1/servicing/tasks/${reviewTaskId}`);
    expect(after.body).toMatchObject({
      status: 'COMPLETED',
      completedBy: 'reviewer-1',
      completionNote: 'Reviewed',
      completedAt: expect.stringMatching(isoInstant),
    });
    expect((await effectTypes(caseId)).at(-1)).toBe('TASK_COMPLETED');

    const again = await call(ctx, cred, 'POST', `/v1/servicing/tasks/${reviewTaskId}/complete`, {});
    const err = expectShapeA(again, 409, 'error.msg.task.invalid.state.transition', []);
    expect(err.developerMessage).toBe(`Task ${reviewTaskId} is already COMPLETED.`);
  });

  it('completes without a note, rejects an empty note, and answers 404 for no task', async () => {
    const { reviewTaskId } = await openPrivacyRequest(ctx, cred);
    const empty = await call(ctx, cred, 'POST', `/v1/servicing/tasks/${reviewTaskId}/complete`, { note: '' });
    expectShapeA(empty, 400, 'validation.msg.validation.errors.exist', ['note']);
    const done = await call(ctx, cred, 'POST', `/v1/servicing/tasks/${reviewTaskId}/complete`, {});
    expect(done.status).toBe(200);
    expect(
      (await call(ctx, cred, 'GET', `/v1/servicing/tasks/${reviewTaskId}`)).body.completionNote,
    ).toBeNull();
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/tasks/987654321/complete', {}),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/servicing/tasks/987654321'),
      404,
      'error.msg.resource.not.found',
    );
  });
});

describe('privacy requests', () => {
  async function receive(body: Record<string, unknown>, at?: string) {
    const caseId = await openCase(ctx, cred, { caseTypeCode: 'PRIVACY' });
    const interactionId = await logInteraction(ctx, cred, caseId);
    ctx.now.value = at === undefined ? null : new Date(at);
    try {
      return await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
        customerRef: 'cus_1',
        requestType: 'ACCESS',
        summary: 'Send me my data',
        caseId,
        sourceInteractionId: interactionId,
        ...body,
      });
    } finally {
      ctx.now.value = null;
    }
  }

  it.each([
    // CCPA/CPRA: 45 calendar days (11 CCR §7021), end of day in America/Los_Angeles.
    ['CCPA_CPRA', '2027-02-20T20:00:00Z', '2027-04-06T23:59:59-07:00'],
    ['CCPA_CPRA', '2027-10-01T19:00:00Z', '2027-11-15T23:59:59-08:00'],
    ['VCDPA', '2027-02-20T20:00:00Z', '2027-04-06T23:59:59-07:00'],
    // GDPR / UK GDPR: one calendar month (Art. 12(3)), clamped to the month's last day.
    ['GDPR', '2027-01-15T20:00:00Z', '2027-02-15T23:59:59-08:00'],
    ['GDPR', '2027-01-31T20:00:00Z', '2027-02-28T23:59:59-08:00'],
    ['UK_GDPR', '2027-05-10T16:00:00Z', '2027-06-10T23:59:59-07:00'],
    // Received 21:00 in Los Angeles on 15 January (already the 16th in UTC): counted from the 15th.
    ['GDPR', '2027-01-16T05:00:00Z', '2027-02-15T23:59:59-08:00'],
  ])('computes statutoryDueAt for %s received at %s as %s', async (regime, at, due) => {
    const res = await receive({ regime }, at);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      requestId: expect.any(Number),
      status: 'RECEIVED',
      statutoryDueAt: due,
      reviewTaskId: expect.any(Number),
      resourceId: res.body.requestId,
    });
    const read = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${res.body.requestId}`);
    expect(read.body).toMatchObject({ regime, statutoryDueAt: due, receivedAt: new Date(at).toISOString() });
    const task = await call(ctx, cred, 'GET', `/v1/servicing/tasks/${res.body.reviewTaskId}`);
    expect(Date.parse(task.body.dueAt)).toBe(Date.parse(due));
  });

  it('reads a request with its fields and without internal ones', async () => {
    const { requestId, caseId, interactionId, reviewTaskId } = await openPrivacyRequest(ctx, cred);
    const read = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${requestId}`);
    expect(read.body).toEqual({
      requestId,
      resourceId: requestId,
      customerRef: 'cus_1',
      requestType: 'DELETION',
      regime: 'CCPA_CPRA',
      summary: 'Delete my data',
      caseId,
      sourceInteractionId: interactionId,
      status: 'RECEIVED',
      receivedAt: expect.stringMatching(isoInstant),
      statutoryDueAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T23:59:59-0[78]:00$/),
      reviewTaskId,
      outcome: null,
      outcomeReason: null,
      fulfilledAt: null,
      evidenceIds: [],
    });
  });

  it('rejects an unknown caseId or sourceInteractionId with 404 naming the field', async () => {
    const caseId = await openCase(ctx, cred);
    const interactionId = await logInteraction(ctx, cred, caseId);
    const base = { customerRef: 'c', requestType: 'DELETION', regime: 'CCPA_CPRA', summary: 'x' };
    const noCase = await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
      ...base,
      caseId: 987654321,
      sourceInteractionId: interactionId,
    });
    const err = expectShapeA(noCase, 404, 'error.msg.resource.not.found', ['caseId']);
    expect(err.errors[0]?.value).toBe(987654321);
    const noInteraction = await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
      ...base,
      caseId,
      sourceInteractionId: 987654321,
    });
    expectShapeA(noInteraction, 404, 'error.msg.resource.not.found', ['sourceInteractionId']);
    const neither = await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
      ...base,
      caseId: 987654321,
      sourceInteractionId: 987654322,
    });
    expectShapeA(neither, 404, 'error.msg.resource.not.found', ['caseId', 'sourceInteractionId']);
    expect(await effectTypes(caseId)).toEqual(['CASE_OPENED', 'INTERACTION_LOGGED']);
  });

  it('rejects an unknown request type or regime with 400', async () => {
    const bad = await receive({ requestType: 'ERASE_EVERYTHING', regime: 'PIPEDA' });
    expectShapeA(bad, 400, 'validation.msg.validation.errors.exist', ['requestType', 'regime']);
  });

  it('rejects unknown evidence on fulfil with 400 evidenceIds[i], then accepts a valid fulfilment', async () => {
    const { requestId, caseId } = await openPrivacyRequest(ctx, cred);
    const evidenceId = await addEvidence(ctx, cred, caseId);
    const unknown = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [987654321],
    });
    const err = expectShapeA(unknown, 400, 'validation.msg.validation.errors.exist', ['evidenceIds[0]']);
    expect(err.errors[0]?.value).toBe(987654321);
    const second = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [evidenceId, 987654321],
    });
    expectShapeA(second, 400, 'validation.msg.validation.errors.exist', ['evidenceIds[1]']);
    const other = await credentialFor(ctx, uniqueTenant('svc'));
    const foreign = await addEvidence(ctx, other, await openCase(ctx, other));
    const foreignRes = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [foreign],
    });
    expectShapeA(foreignRes, 400, 'validation.msg.validation.errors.exist', ['evidenceIds[0]']);
    expect((await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${requestId}`)).body.status).toBe(
      'RECEIVED',
    );

    const ok = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [evidenceId],
    });
    expect(ok).toMatchObject({
      status: 200,
      body: { resourceId: requestId, changes: { status: 'FULFILLED' } },
    });
  });

  it('rejects a malformed fulfil body and answers 404 for a request that does not exist', async () => {
    const { requestId } = await openPrivacyRequest(ctx, cred);
    const bad = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'DONE',
      outcomeReason: 'x',
      evidenceIds: [0, 'x'],
    });
    expectShapeA(bad, 400, 'validation.msg.validation.errors.exist', [
      'outcome',
      'evidenceIds[0]',
      'evidenceIds[1]',
    ]);
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests/987654321/fulfill', {
        outcome: 'FULFILLED',
        outcomeReason: 'x',
        evidenceIds: [],
      }),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/servicing/privacy-requests/987654321'),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('lists PRIVACY_REQUEST_RECEIVED, TASK_CREATED and PRIVACY_REQUEST_FULFILLED in the case effects, in order', async () => {
    const { requestId, caseId, reviewTaskId, body } = await openPrivacyRequest(ctx, cred);
    const evidenceId = await addEvidence(ctx, cred, caseId);
    const fulfilled = await call(
      ctx,
      cred,
      'POST',
      `/v1/servicing/privacy-requests/${requestId}/fulfill`,
      { outcome: 'FULFILLED', outcomeReason: 'Deleted everywhere', evidenceIds: [evidenceId] },
      { 'service-actor': 'dpo-1' },
    );
    expect(fulfilled.status).toBe(200);
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(effects.body.items.map((e: { effectType: string }) => e.effectType)).toEqual([
      'CASE_OPENED',
      'INTERACTION_LOGGED',
      'PRIVACY_REQUEST_RECEIVED',
      'TASK_CREATED',
      'EVIDENCE_ADDED',
      'PRIVACY_REQUEST_FULFILLED',
    ]);
    const [received, taskCreated, , outcome] = effects.body.items.slice(2);
    expect(received).toMatchObject({
      subjectType: 'privacy_request',
      subjectId: String(requestId),
      detail: {
        requestId,
        requestType: 'DELETION',
        regime: 'CCPA_CPRA',
        status: 'RECEIVED',
        statutoryDueAt: body.statutoryDueAt,
      },
    });
    expect(taskCreated).toMatchObject({
      subjectType: 'task',
      subjectId: String(reviewTaskId),
      detail: { taskType: 'PRIVACY_REVIEW', requestId },
    });
    expect(outcome).toMatchObject({
      subjectId: String(requestId),
      actorUsername: 'dpo-1',
      detail: {
        fromStatus: 'RECEIVED',
        toStatus: 'FULFILLED',
        outcomeReason: 'Deleted everywhere',
        evidenceIds: [evidenceId],
      },
    });
    const read = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${requestId}`);
    expect(read.body).toMatchObject({
      status: 'FULFILLED',
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted everywhere',
      fulfilledAt: expect.stringMatching(isoInstant),
      evidenceIds: [evidenceId],
    });
    const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(caseEffects).where(eq(caseEffects.caseId, caseId)),
    );
    expect(rows).toHaveLength(6);
  });

  it('records other outcomes (DENIED) and refuses a second outcome with 409', async () => {
    const { requestId } = await openPrivacyRequest(ctx, cred);
    const denied = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'DENIED',
      outcomeReason: 'Identity not verified',
      evidenceIds: [],
    });
    expect(denied).toMatchObject({
      status: 200,
      body: { resourceId: requestId, changes: { status: 'DENIED' } },
    });
    const again = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Changed my mind',
      evidenceIds: [],
    });
    expectShapeA(again, 409, 'error.msg.privacy.request.invalid.state.transition', []);
    const result = await ctx.client.workflow
      .getHandle(`privacy-request/${cred.tenant}/${requestId}`)
      .result();
    expect(result).toMatchObject({ status: 'DENIED', wasOverdue: false });
  });
});
