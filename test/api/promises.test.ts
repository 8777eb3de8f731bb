/**
 * Promises to pay over HTTP (docs/processes.md P4), on real PostgreSQL and a real worker on the
 * servicing queue of the dev server: create (201 PENDING with its deadline), validation (amount, currency, dates,
 * closed case, unknown loan or case), reads and the case list, other tenants (404), permissions (403), an
 * idempotent replay, the process keeping a promise as soon as record-external posts the amount, the resolution
 * operation for BROKEN / PARTIALLY_KEPT (effect, event, follow-up task, once), and the close of a case with
 * `PROMISE_KEPT`: 409 without a kept promise, 200 with one.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { caseEffects, outboxEvents, promises, tasks } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { promiseWorkflowId } from '../../domain/ids';
import { localDate } from '../../domain/time-zone';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, newKey, openCase } from './helpers';
import { fundedLoan, paymentInstrument, paymentTestRef } from './payment-fixtures';

let ctx: TestContext;
let cred: Credential;
let other: Credential;
const everything = { scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'] };

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  cred = await credentialFor(ctx, uniqueTenant('prm'), everything);
  other = await credentialFor(ctx, uniqueTenant('prm-other'), everything);
});
afterAll(async () => ctx?.close());

/** Today in the tenants' default compliance time zone (America/Los_Angeles). */
const today = () => localDate(Date.now(), 'America/Los_Angeles');

/** The `customerRef` of customer `customerId` of `c`'s tenant (docs/processes.md P4 "Refs"). */
async function customerRefOf(c: Credential, customerId: number): Promise<string> {
  const res = await call(ctx, c, 'GET', `/v1/customers/${customerId}`);
  expect(res.status).toBe(200);
  return res.body.customerRef as string;
}

/** A funded loan and an open case of its borrower. */
async function caseAndLoan(c: Credential = cred) {
  const loan = await fundedLoan(ctx, c);
  const customerRef = await customerRefOf(c, loan.customerId);
  const caseId = await openCase(ctx, c, { customerRef, caseTypeCode: 'GENERAL', summary: 'Past due' });
  return { caseId, loanId: loan.loanId, customerId: loan.customerId, customerRef };
}

function promiseBody(ids: { caseId: number; loanId: number }, overrides: Record<string, unknown> = {}) {
  return {
    caseId: ids.caseId,
    loanId: ids.loanId,
    amount: '100.00',
    currency: 'USD',
    promisedDate: addDays(today(), 5),
    channel: 'PHONE',
    ...overrides,
  };
}

async function recordPayment(loanId: number, amount: string, c: Credential = cred) {
  const res = await call(ctx, c, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
    amount,
    currency: 'USD',
    effectiveDate: today(),
    externalRecordRef: paymentTestRef('pay'),
    source: 'LOCKBOX',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.paymentId as number;
}

function untilStatus(promiseId: number, status: string) {
  return vi.waitFor(
    async () => {
      const read = await call(ctx, cred, 'GET', `/v1/servicing/promises/${promiseId}`);
      expect(read.body.status).toBe(status);
      return read.body;
    },
    { timeout: 30_000, interval: 200 },
  );
}

describe('POST /v1/servicing/promises', () => {
  it('takes a promise: 201 PENDING with its deadline, a PROMISE_CREATED effect, promise.created, a running process', async () => {
    const ids = await caseAndLoan();
    const body = promiseBody(ids);
    const res = await call(ctx, cred, 'POST', '/v1/servicing/promises', body, { 'service-actor': 'agent-3' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      promiseId: expect.any(Number),
      resourceId: res.body.promiseId,
      caseId: ids.caseId,
      loanId: ids.loanId,
      amount: '100.00',
      currency: 'USD',
      promisedDate: body.promisedDate,
      channel: 'PHONE',
      status: 'PENDING',
      paidAmount: '0.00',
      deadlineAt: expect.stringMatching(new RegExp(`^${addDays(body.promisedDate, 4)}T00:00:00-0[78]:00$`)),
      createdAt: expect.any(String),
      resolvedAt: null,
      followUpTaskId: null,
    });
    const promiseId = res.body.promiseId as number;
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${ids.caseId}/effects`);
    expect(effects.body.items.map((e: { effectType: string }) => e.effectType)).toContain('PROMISE_CREATED');
    const [event] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.subjectType, 'promise'), eq(outboxEvents.subjectId, String(promiseId)))),
    );
    expect(event).toMatchObject({
      eventType: 'promise.created',
      data: { promiseId, caseId: ids.caseId, loanId: ids.loanId, status: 'PENDING', amount: '100.00' },
    });
    const description = await ctx.client.workflow
      .getHandle(promiseWorkflowId(cred.tenant, promiseId))
      .describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.taskQueue).toBe('servicing');
  });

  it('refuses bad amounts, another currency, past or far dates, a bad channel; nothing stored', async () => {
    const ids = await caseAndLoan();
    const before = await countRows(ctx, cred.tenant, promises);
    const post = (overrides: Record<string, unknown>) =>
      call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids, overrides));
    expectShapeA(await post({ amount: 100 }), 400, 'validation.msg.validation.errors.exist', ['amount']);
    expectShapeA(await post({ amount: '100.001' }), 400, 'validation.msg.validation.errors.exist', [
      'amount',
    ]);
    expectShapeA(await post({ amount: '0.00' }), 400, 'validation.msg.validation.errors.exist', ['amount']);
    expectShapeA(await post({ amount: '-5.00' }), 400, 'validation.msg.validation.errors.exist', ['amount']);
    expectShapeA(await post({ currency: 'EUR' }), 400, 'validation.msg.payment.currency.mismatch', [
      'currency',
    ]);
    expectShapeA(
      await post({ promisedDate: addDays(today(), -1) }),
      400,
      'validation.msg.validation.errors.exist',
      ['promisedDate'],
    );
    expectShapeA(
      await post({ promisedDate: addDays(today(), 91) }),
      400,
      'validation.msg.validation.errors.exist',
      ['promisedDate'],
    );
    expectShapeA(await post({ promisedDate: '2026-02-30' }), 400, 'validation.msg.validation.errors.exist', [
      'promisedDate',
    ]);
    expectShapeA(await post({ channel: 'WEB' }), 400, 'validation.msg.validation.errors.exist', ['channel']);
    expectShapeA(await post({ extra: 1 }), 400, 'validation.msg.validation.errors.exist');
    expect(await countRows(ctx, cred.tenant, promises)).toBe(before);
    // Today and the 90th day are fine.
    expect((await post({ promisedDate: today() })).status).toBe(201);
    expect((await post({ promisedDate: addDays(today(), 90) })).status).toBe(201);
  });

  it('404 for an unknown or another tenant’s case or loan; 409 for a closed case', async () => {
    const ids = await caseAndLoan();
    const foreign = await caseAndLoan(other);
    const post = (overrides: Record<string, unknown>) =>
      call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids, overrides));
    expectShapeA(await post({ loanId: 987654321 }), 404, 'error.msg.resource.not.found', ['loanId']);
    expectShapeA(await post({ loanId: foreign.loanId }), 404, 'error.msg.resource.not.found', ['loanId']);
    expectShapeA(await post({ caseId: foreign.caseId }), 404, 'error.msg.resource.not.found', ['caseId']);
    expectShapeA(
      await post({ caseId: foreign.caseId, loanId: foreign.loanId }),
      404,
      'error.msg.resource.not.found',
      ['caseId', 'loanId'],
    );
    const closed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${ids.caseId}/close`, {
      outcomeCode: 'NO_CONTACT',
      closureReason: 'Closed',
    });
    expect(closed.status).toBe(200);
    expectShapeA(await post({}), 409, 'error.msg.case.invalid.state.transition', ['caseId']);
  });

  it('409 when the case is of a customer who is neither the borrower nor a party of the loan; nothing stored', async () => {
    const ids = await caseAndLoan();
    const stranger = await openCase(ctx, cred, {
      customerRef: 'cus_someone_else',
      summary: 'Not the borrower',
    });
    const otherBorrower = await caseAndLoan();
    for (const caseId of [stranger, otherBorrower.caseId]) {
      expectShapeA(
        await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody({ caseId, loanId: ids.loanId })),
        409,
        'error.msg.case.customer.mismatch',
        ['caseId'],
      );
    }
    const stored = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select({ id: promises.id }).from(promises).where(eq(promises.loanId, ids.loanId)),
    );
    expect(stored).toEqual([]);
  });

  it('replays the same Idempotency-Key with the same body; one promise', async () => {
    const ids = await caseAndLoan();
    const key = newKey('prm');
    const body = promiseBody(ids);
    const first = await call(ctx, cred, 'POST', '/v1/servicing/promises', body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const again = await call(ctx, cred, 'POST', '/v1/servicing/promises', body, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(promises).where(eq(promises.caseId, ids.caseId)),
    );
    expect(rows).toHaveLength(1);
    // The operation itself is idempotent by request key, too (a replay before the middleware stored the answer).
    const direct = await ctx.activities.createPromiseToPay({
      tenantId: cred.tenant,
      requestKey: rows[0]!.requestKey,
      ...body,
      channel: 'PHONE',
    });
    expect(direct.promise.promiseId).toBe(first.body.promiseId);
  });

  it('needs CREATE_PROMISETOPAY to take and READ_PROMISETOPAY to read (403)', async () => {
    const ids = await caseAndLoan();
    const created = await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids));
    const reader = await credentialFor(ctx, cred.tenant, { permissions: ['READ_PROMISETOPAY'] });
    const writer = await credentialFor(ctx, cred.tenant, { permissions: ['CREATE_PROMISETOPAY'] });
    expectShapeA(
      await call(ctx, reader, 'POST', '/v1/servicing/promises', promiseBody(ids)),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, reader, 'GET', `/v1/servicing/promises/${created.body.promiseId}`)).status).toBe(
      200,
    );
    expectShapeA(
      await call(ctx, writer, 'GET', `/v1/servicing/promises/${created.body.promiseId}`),
      403,
      'error.msg.not.authorized',
    );
    expectShapeA(
      await call(ctx, writer, 'GET', `/v1/servicing/promises?caseId=${ids.caseId}`),
      403,
      'error.msg.not.authorized',
    );
  });
});

describe('GET /v1/servicing/promises', () => {
  it('reads one promise and lists a case’s promises newest first; another tenant’s → 404 / empty', async () => {
    const ids = await caseAndLoan();
    const a = await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids));
    const b = await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids, { amount: '50.00' }));
    const read = await call(ctx, cred, 'GET', `/v1/servicing/promises/${a.body.promiseId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(a.body);
    const list = await call(ctx, cred, 'GET', `/v1/servicing/promises?caseId=${ids.caseId}&limit=1`);
    expect(list.body).toEqual({ items: [b.body], limit: 1, offset: 0, hasMore: true });
    const rest = await call(ctx, cred, 'GET', `/v1/servicing/promises?caseId=${ids.caseId}&limit=1&offset=1`);
    expect(rest.body).toEqual({ items: [a.body], limit: 1, offset: 1, hasMore: false });
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/servicing/promises/${a.body.promiseId}`),
      404,
      'error.msg.resource.not.found',
    );
    expect((await call(ctx, other, 'GET', `/v1/servicing/promises?caseId=${ids.caseId}`)).body.items).toEqual(
      [],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/servicing/promises'),
      400,
      'validation.msg.validation.errors.exist',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/servicing/promises?caseId=${ids.caseId}&status=PENDING`),
      400,
      'validation.msg.validation.errors.exist',
    );
  });
});

describe('the promise process and the case close', () => {
  it('PROMISE_KEPT: 409 while the promise is pending; record-external of the amount keeps it at once; then 200', async () => {
    const ids = await caseAndLoan();
    const created = await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids));
    const promiseId = created.body.promiseId as number;
    const close = () =>
      call(ctx, cred, 'POST', `/v1/servicing/cases/${ids.caseId}/close`, {
        outcomeCode: 'PROMISE_KEPT',
        closureReason: 'Customer paid as promised',
      });
    const refused = expectShapeA(await close(), 409, 'error.msg.case.outcome.not.grounded', ['outcomeCode']);
    expect(refused.developerMessage).toContain('no kept promise');
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${ids.caseId}`)).body.status).toBe('OPEN');

    // Two payments: 40.00 does not keep it, the next 60.00 does (each signals the process).
    await recordPayment(ids.loanId, '40.00');
    await recordPayment(ids.loanId, '60.00');
    const kept = await untilStatus(promiseId, 'KEPT');
    expect(kept).toMatchObject({
      paidAmount: '100.00',
      resolvedAt: expect.any(String),
      followUpTaskId: null,
    });

    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${ids.caseId}/effects`);
    expect(effects.body.items.map((e: { effectType: string }) => e.effectType)).toContain('PROMISE_KEPT');
    const events = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select({ eventType: outboxEvents.eventType, data: outboxEvents.data })
        .from(outboxEvents)
        .where(and(eq(outboxEvents.subjectType, 'promise'), eq(outboxEvents.subjectId, String(promiseId)))),
    );
    expect(events.map((e) => e.eventType).sort()).toEqual(['promise.created', 'promise.kept']);
    expect(events.find((e) => e.eventType === 'promise.kept')?.data).toMatchObject({
      status: 'KEPT',
      paidAmount: '100.00',
    });
    const result = await ctx.client.workflow.getHandle(promiseWorkflowId(cred.tenant, promiseId)).result();
    expect(result).toMatchObject({ status: 'KEPT', atDeadline: false });

    const closed = await close();
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body).toEqual({
      resourceId: ids.caseId,
      changes: { status: 'CLOSED', outcomeCode: 'PROMISE_KEPT' },
    });
  });

  it('a payment intent that settles and posts signals the promise: KEPT before the deadline', async () => {
    const ids = await caseAndLoan();
    const instrumentId = await paymentInstrument(ctx, cred, ids.customerId);
    const created = await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids));
    const promiseId = created.body.promiseId as number;
    const intent = await call(ctx, cred, 'POST', `/v1/loans/${ids.loanId}/payments`, {
      instrumentId,
      amount: '100.00',
      currency: 'USD',
      rail: 'ACH',
      effectiveDate: new Date().toISOString().slice(0, 10),
      source: 'borrower-portal',
    });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    const paymentId = intent.body.paymentId as number;
    await vi.waitFor(
      async () =>
        expect(
          (await call(ctx, cred, 'GET', `/v1/loans/${ids.loanId}/payments/${paymentId}`)).body.status,
        ).toBe('SUBMITTED'),
      { timeout: 20_000, interval: 100 },
    );
    const settled = await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/settle`, {});
    expect(settled.body).toMatchObject({ paymentId, status: 'POSTED' });
    expect(await untilStatus(promiseId, 'KEPT')).toMatchObject({ paidAmount: '100.00' });
    const result = await ctx.client.workflow.getHandle(promiseWorkflowId(cred.tenant, promiseId)).result();
    // Kept on the signal, not at the deadline days away.
    expect(result).toMatchObject({ status: 'KEPT', atDeadline: false });
  });

  it('a PROMISE_KEPT of another case does not ground this one', async () => {
    const ids = await caseAndLoan();
    const otherCase = await openCase(ctx, cred, { caseTypeCode: 'GENERAL', summary: 'Second case' });
    const created = await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids));
    await recordPayment(ids.loanId, '100.00');
    await untilStatus(created.body.promiseId, 'KEPT');
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/servicing/cases/${otherCase}/close`, {
        outcomeCode: 'PROMISE_KEPT',
        closureReason: 'Paid',
      }),
      409,
      'error.msg.case.outcome.not.grounded',
    );
  });

  it('readPromisePayments sums POSTED payments of the loan value-dated in the window only', async () => {
    const ids = await caseAndLoan();
    // A payment before the promise, value-dated yesterday: outside the window.
    const early = await call(ctx, cred, 'POST', `/v1/loans/${ids.loanId}/payments/record-external`, {
      amount: '25.00',
      currency: 'USD',
      effectiveDate: addDays(today(), -1),
      externalRecordRef: paymentTestRef('early'),
      source: 'LOCKBOX',
    });
    expect(early.status).toBe(201);
    const created = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/promises',
      promiseBody(ids, { amount: '300.00' }),
    );
    const ref = { tenantId: cred.tenant, promiseId: created.body.promiseId as number };
    expect(await ctx.activities.readPromisePayments(ref)).toEqual({ paidAmount: '0.00', status: 'PENDING' });
    await recordPayment(ids.loanId, '30.00');
    expect(await ctx.activities.readPromisePayments(ref)).toEqual({ paidAmount: '30.00', status: 'PENDING' });
    expect(
      await ctx.activities.findPendingPromisesOfLoan({ tenantId: cred.tenant, loanId: ids.loanId }),
    ).toEqual({
      promiseIds: [ref.promiseId],
    });
  });

  it.each([
    ['BROKEN', '0.00', 'PROMISE_BROKEN', 'promise.broken'],
    ['PARTIALLY_KEPT', '40.00', 'PROMISE_PARTIALLY_KEPT', 'promise.partially.kept'],
  ] as const)(
    'resolving %s: effect, event and a PROMISE_FOLLOW_UP task, once',
    async (outcome, paid, effectType, eventType) => {
      const ids = await caseAndLoan();
      const created = await call(ctx, cred, 'POST', '/v1/servicing/promises', promiseBody(ids));
      const promiseId = created.body.promiseId as number;
      const input = { tenantId: cred.tenant, promiseId, outcome, paidAmount: paid };
      const first = await ctx.activities.resolvePromiseToPay(input);
      const second = await ctx.activities.resolvePromiseToPay({
        ...input,
        outcome: 'KEPT',
        paidAmount: '100.00',
      });
      expect(first).toMatchObject({ status: outcome, paidAmount: paid, followUpTaskId: expect.any(Number) });
      expect(second).toEqual(first);
      const followUps = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
        tx
          .select()
          .from(tasks)
          .where(and(eq(tasks.caseId, ids.caseId), eq(tasks.taskType, 'PROMISE_FOLLOW_UP'))),
      );
      expect(followUps).toHaveLength(1);
      expect(followUps[0]).toMatchObject({
        id: first.followUpTaskId,
        status: 'OPEN',
        subjectType: 'promise',
      });
      const effects = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
        tx.select().from(caseEffects).where(eq(caseEffects.caseId, ids.caseId)),
      );
      expect(effects.filter((e) => e.effectType === effectType)).toHaveLength(1);
      expect(effects.filter((e) => e.effectType === 'PROMISE_KEPT')).toHaveLength(0);
      const events = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
        tx
          .select({ eventType: outboxEvents.eventType })
          .from(outboxEvents)
          .where(and(eq(outboxEvents.subjectType, 'promise'), eq(outboxEvents.subjectId, String(promiseId)))),
      );
      expect(events.map((e) => e.eventType).sort()).toEqual([eventType, 'promise.created'].sort());
      // Not kept: the case cannot close as PROMISE_KEPT.
      expectShapeA(
        await call(ctx, cred, 'POST', `/v1/servicing/cases/${ids.caseId}/close`, {
          outcomeCode: 'PROMISE_KEPT',
          closureReason: 'Paid',
        }),
        409,
        'error.msg.case.outcome.not.grounded',
      );
      // The process either found the promise resolved at its first read and ended, or still waits for the deadline.
      await ctx.client.workflow
        .getHandle(promiseWorkflowId(cred.tenant, promiseId))
        .terminate('test over')
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        });
    },
  );
});
