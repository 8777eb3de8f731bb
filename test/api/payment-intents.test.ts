/**
 * Payment intents through the app, the real database and the real Temporal dev server with a `lending` worker
 * (docs/processes.md P1): creation rules and their Shape A codes, Idempotency-Key replays,
 * cross-tenant 404s, twenty concurrent intents that never reserve more than the outstanding, and whole lives on the
 * sandbox rail driven by the simulation routes: settled → POSTED (summary, journal, event), returned → RETURNED
 * (reversed), a settlement of another amount → SETTLED_NOT_POSTED → resolved through the exception route, a
 * declined card → FAILED, a cancel before submission. Loans come from test/activities/ledger-fixtures.ts (300.00
 * USD, three installments of 100.00 principal + 3.00 interest + 2.00 fee: 315.00 outstanding once funded).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { parseDecimalToMinor } from '../../domain/money';
import { approvedLoan, type LoanFixture } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA, type Json, newKey } from './helpers';
import { fundedLoan as fundedLoanOf, paymentInstrument, paymentTestRef } from './payment-fixtures';

const lending = { scopes: ['lending:read', 'lending:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;
const ref = paymentTestRef;
const fundedLoan = (disbursedOn?: string) => fundedLoanOf(ctx, cred, disbursedOn);
const instrument = (customerId: number, options?: Parameters<typeof paymentInstrument>[3]) =>
  paymentInstrument(ctx, cred, customerId, options);
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  cred = await credentialFor(ctx, uniqueTenant('pay'), lending);
  other = await credentialFor(ctx, uniqueTenant('pay-other'), lending);
});
afterAll(async () => ctx?.close());

const intentBody = (instrumentId: number, overrides: Record<string, unknown> = {}) => ({
  instrumentId,
  amount: '105.00',
  currency: 'USD',
  rail: 'ACH',
  effectiveDate: today(),
  source: 'borrower-portal',
  ...overrides,
});

async function createIntent(
  loan: LoanFixture,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/payments`, body, headers);
}

async function paymentOf(loan: LoanFixture, paymentId: number): Promise<Json> {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments/${paymentId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function eventuallyStatus(loan: LoanFixture, paymentId: number, status: string): Promise<Json> {
  return vi.waitFor(
    async () => {
      const payment = await paymentOf(loan, paymentId);
      expect(payment.status).toBe(status);
      return payment;
    },
    { timeout: 20_000, interval: 100 },
  );
}

async function summaryOf(loan: LoanFixture): Promise<Json> {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary`);
  expect(res.status).toBe(200);
  return res.body;
}

async function trialBalanceOf(loan: LoanFixture): Promise<bigint> {
  const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ balance: string }>(
      sql`select coalesce(sum(debit) - sum(credit), 0)::text as balance from journal_entries where loan_id = ${loan.loanId}`,
    ),
  );
  return parseDecimalToMinor(row!.balance, 6);
}

async function eventsOf(paymentId: number): Promise<string[]> {
  const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ event_type: string }>(
      sql`select event_type from outbox_events where subject_id = ${String(paymentId)} and event_type like 'payment.%' order by id`,
    ),
  );
  return rows.map((r) => r.event_type);
}

describe('POST /v1/loans/{loanId}/payments: the rules', () => {
  it('201 with the P1 fields (CREATED or SUBMITTED); the same Idempotency-Key replays it', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const key = newKey();
    const first = await createIntent(loan, intentBody(instrumentId), { 'idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({
      paymentId: expect.any(Number),
      resourceId: first.body.paymentId,
      loanId: loan.loanId,
      loanRef: loan.accountNo,
      instrumentId,
      amount: '105.00',
      currency: 'USD',
      rail: 'ACH',
      effectiveDate: today(),
      source: 'borrower-portal',
      status: 'CREATED',
      providerRef: null,
      createdAt: expect.any(String),
    });
    const replay = await createIntent(loan, intentBody(instrumentId), { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    const submitted = await eventuallyStatus(loan, first.body.paymentId, 'SUBMITTED');
    expect(submitted.providerRef).toMatch(/^sbx_ach_/);
    expect(submitted.history.map((h: Json) => h.status)).toEqual(['CREATED', 'SUBMITTED']);
    // The summary shows it in flight, apart from posted money.
    const summary = await summaryOf(loan);
    expect(summary.paymentsInFlight).toEqual({ count: 1, amount: '105.00' });
    expect(summary.balances.totalOutstanding).toBe('315.00');
  });

  it('refuses what P1 and docs/design.md §5 refuse, and records nothing', async () => {
    const loan = await fundedLoan();
    const good = await instrument(loan.customerId);
    const unverified = await instrument(loan.customerId, { verified: false });
    const stranger = await approvedLoan(ctx, cred.tenant);
    const strangers = await instrument(stranger.customerId);
    const cases: [Record<string, unknown>, number, string][] = [
      [intentBody(unverified), 409, 'error.msg.payment.instrument.not.eligible'],
      [intentBody(strangers), 409, 'error.msg.payment.instrument.not.eligible'],
      [intentBody(999_999_999), 409, 'error.msg.payment.instrument.not.eligible'],
      [intentBody(good, { amount: '315.01' }), 409, 'error.msg.loan.payment.amount.exceeds.outstanding'],
      [intentBody(good, { currency: 'EUR' }), 400, 'validation.msg.payment.currency.mismatch'],
      [intentBody(good, { amount: '1.001' }), 400, 'validation.msg.validation.errors.exist'],
      [intentBody(good, { rail: 'SWIFT' }), 400, 'validation.msg.validation.errors.exist'],
      [
        intentBody(good, { effectiveDate: addDays(today(), -3) }),
        400,
        'validation.msg.validation.errors.exist',
      ],
      [
        intentBody(good, { effectiveDate: addDays(today(), 45) }),
        400,
        'validation.msg.validation.errors.exist',
      ],
      [{ ...intentBody(good), source: undefined }, 400, 'validation.msg.validation.errors.exist'],
    ];
    for (const [body, status, code] of cases) {
      expectShapeA(await createIntent(loan, body), status, code);
    }
    const list = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments`);
    expect(list.body.items).toEqual([]);
    // Another tenant's loan is not found.
    expectShapeA(
      await call(ctx, other, 'POST', `/v1/loans/${loan.loanId}/payments`, intentBody(good)),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('an active PAYMENT_HOLD blocks creation (409); released, the intent is accepted', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const hold = await call(ctx, cred, 'POST', `/v1/customers/${loan.customerId}/restrictions`, {
      restrictionType: 'PAYMENT_HOLD',
      reason: 'Dispute under review',
    });
    expect(hold.status, JSON.stringify(hold.body)).toBe(201);
    expectShapeA(
      await createIntent(loan, intentBody(instrumentId)),
      409,
      'error.msg.loan.payment.hold.active',
    );
    const released = await call(
      ctx,
      cred,
      'POST',
      `/v1/customers/${loan.customerId}/restrictions/${hold.body.restrictionId}/release`,
      { reason: 'Resolved' },
    );
    expect(released.status).toBe(200);
    expect((await createIntent(loan, intentBody(instrumentId))).status).toBe(201);
  });

  it("a co-borrower's verified instrument is eligible", async () => {
    const loan = await fundedLoan();
    const coBorrower = await approvedLoan(ctx, cred.tenant);
    const party = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/parties`, {
      customerId: coBorrower.customerId,
      role: 'CO_BORROWER',
    });
    expect(party.status, JSON.stringify(party.body)).toBe(201);
    const instrumentId = await instrument(coBorrower.customerId);
    expect((await createIntent(loan, intentBody(instrumentId, { amount: '10.00' }))).status).toBe(201);
  });

  it('twenty concurrent intents whose sum exceeds the outstanding: the accepted ones never exceed it', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => createIntent(loan, intentBody(instrumentId, { amount: '40.00' }))),
    );
    const accepted = answers.filter((a) => a.status === 201);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expectShapeA(refused, 409, 'error.msg.loan.payment.amount.exceeds.outstanding');
    }
    // 315.00 outstanding holds seven intents of 40.00 (280.00), not eight.
    expect(accepted).toHaveLength(7);
    const summary = await summaryOf(loan);
    expect(summary.paymentsInFlight).toEqual({ count: 7, amount: '280.00' });
  });
});

describe('a payment intent on the sandbox rail', () => {
  it('settled → POSTED (ledger, summary, payment.posted); returned R01 → RETURNED and reversed', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const balanceBefore = (await summaryOf(loan)).balances.totalOutstanding;
    const created = await createIntent(loan, intentBody(instrumentId));
    const paymentId = created.body.paymentId as number;
    await eventuallyStatus(loan, paymentId, 'SUBMITTED');

    const settled = await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/settle`, {});
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body).toMatchObject({ paymentId, status: 'POSTED' });
    const afterPosting = await summaryOf(loan);
    expect(afterPosting.balances.totalOutstanding).toBe('210.00');
    expect(afterPosting.paymentsInFlight).toEqual({ count: 0, amount: '0.00' });
    expect(await trialBalanceOf(loan)).toBe(0n);

    const returned = await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/return`, {
      returnCode: 'R01',
    });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    expect(returned.body).toMatchObject({ paymentId, status: 'RETURNED', returnCode: 'R01' });
    expect((await summaryOf(loan)).balances.totalOutstanding).toBe(balanceBefore);
    expect(await trialBalanceOf(loan)).toBe(0n);
    const detail = await paymentOf(loan, paymentId);
    expect(detail.history.map((h: Json) => h.status)).toEqual(['CREATED', 'SUBMITTED', 'POSTED', 'RETURNED']);
    expect(await eventsOf(paymentId)).toEqual(['payment.posted', 'payment.returned']);
    // The list shows it with its rail and return code.
    const list = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments?status=RETURNED`);
    expect(list.body.items).toEqual([
      expect.objectContaining({
        paymentId,
        rail: 'ACH',
        source: 'borrower-portal',
        returnCode: 'R01',
        status: 'RETURNED',
      }),
    ]);
    // A code of another rail, or a second return: refused.
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/return`, { returnCode: 'R02' }),
      409,
      'error.msg.payment.invalid.state.transition',
    );
  });

  it('a settlement of another amount opens SETTLED_NOT_POSTED; resolving it POST_AS_SETTLED posts that amount', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const created = await createIntent(loan, intentBody(instrumentId));
    const paymentId = created.body.paymentId as number;
    await eventuallyStatus(loan, paymentId, 'SUBMITTED');
    const settled = await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/settle`, {
      amount: '100.00',
    });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body.status).toBe('SUBMITTED');
    const open = await call(
      ctx,
      cred,
      'GET',
      '/v1/recon-exceptions?status=open&exceptionType=SETTLED_NOT_POSTED',
    );
    const exception = open.body.items.find((e: Json) => e.targetRef === String(paymentId));
    expect(exception).toMatchObject({
      exceptionType: 'SETTLED_NOT_POSTED',
      targetType: 'PAYMENT_INTENT',
      status: 'open',
      detail: expect.objectContaining({
        providerRef: expect.stringMatching(/^sbx_ach_/),
        settledAmount: '100.00',
        // the amounts' currency, the payment's (the workflow's detail names none; the activity adds it)
        currency: 'USD',
      }),
    });
    const resolved = await call(ctx, cred, 'POST', `/v1/recon-exceptions/${exception.exceptionId}/resolve`, {
      resolution: 'POST_AS_SETTLED',
      reason: 'The bank settled less; post what arrived',
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'resolved', resolution: 'POST_AS_SETTLED' });
    const payment = await paymentOf(loan, paymentId);
    expect(payment).toMatchObject({ status: 'POSTED', amount: '100.00' });
    expect((await summaryOf(loan)).balances.totalOutstanding).toBe('215.00');
  });

  it('a declined card fails at submission: FAILED, payment.failed, the reservation released', async () => {
    const loan = await fundedLoan();
    const card = await instrument(loan.customerId, {
      type: 'DEBIT_CARD',
      token: `tok_decline_${ref('c').replace(/[^a-z]/g, '')}`,
    });
    const created = await createIntent(loan, intentBody(card, { rail: 'DEBIT_CARD', amount: '315.00' }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const failed = await eventuallyStatus(loan, created.body.paymentId, 'FAILED');
    expect(failed.history.at(-1).detail.reason).toBeTruthy();
    await vi.waitFor(async () => expect(await eventsOf(created.body.paymentId)).toEqual(['payment.failed']), {
      timeout: 10_000,
    });
    // Released: the whole outstanding can be asked again.
    const bank = await instrument(loan.customerId);
    expect((await createIntent(loan, intentBody(bank, { amount: '315.00' }))).status).toBe(201);
  });

  it('cancel before submission → CANCELLED; after submission → 409; another tenant → 404', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const later = await createIntent(
      loan,
      intentBody(instrumentId, { rail: 'WIRE', effectiveDate: addDays(today(), 20) }),
    );
    const laterId = later.body.paymentId as number;
    expectShapeA(
      await call(ctx, other, 'POST', `/v1/loans/${loan.loanId}/payments/${laterId}/cancel`, {}),
      404,
      'error.msg.resource.not.found',
    );
    const cancelled = await vi.waitFor(
      async () => {
        const res = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/payments/${laterId}/cancel`, {
          reason: 'Borrower changed their mind',
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res;
      },
      { timeout: 10_000, interval: 200 },
    );
    expect(cancelled.body).toMatchObject({ paymentId: laterId, status: 'CANCELLED' });
    const now = await createIntent(loan, intentBody(instrumentId, { amount: '10.00' }));
    await eventuallyStatus(loan, now.body.paymentId, 'SUBMITTED');
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/payments/${now.body.paymentId}/cancel`, {}),
      409,
      'error.msg.payment.invalid.state.transition',
    );
    expectShapeA(
      await call(
        ctx,
        cred,
        'GET',
        `/v1/loans/${loan.loanId}/payments/${randomBytes(2).readUInt16BE() + 10_000_000}`,
      ),
      404,
      'error.msg.resource.not.found',
    );
  });
});
