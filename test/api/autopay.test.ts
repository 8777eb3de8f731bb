/**
 * Autopay through the app, the real database and the real Temporal dev server with a `lending` worker (docs/processes.md P1 Autopay; docs/lending.md "Autopay": "Autopay enrollment carries authorizationRef and never
 * backfills history"; docs/design.md §5 Holds): enrol → 201, read, cancel; the 400s of the body (FIXED without
 * fixedAmount, unknown rail, daysBeforeDue out of range, an identifier-looking authorizationRef) change nothing;
 * 409 for a second ACTIVE enrolment and for an ineligible instrument; cross-tenant 404s; and real cycles: a loan
 * whose first installment is past and whose second is due within daysBeforeDue of today gets one AUTOPAY intent,
 * for the second installment only, at once; under a PAYMENT_HOLD that installment is skipped with a case effect
 * and a task instead. Loans come from test/activities/ledger-fixtures.ts (300.00 USD, three monthly installments
 * of 105.00).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import type { LoanFixture } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';
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
  cred = await credentialFor(ctx, uniqueTenant('autopay'), lending);
  other = await credentialFor(ctx, uniqueTenant('autopay-other'), lending);
});
afterAll(async () => ctx?.close());

const enrolBody = (instrumentId: number, overrides: Record<string, unknown> = {}) => ({
  instrumentId,
  authorizationRef: ref('auth'),
  rail: 'ACH',
  amountType: 'INSTALLMENT_DUE',
  daysBeforeDue: 5,
  ...overrides,
});

function enrol(loan: LoanFixture, body: Record<string, unknown>, as: Credential = cred) {
  return call(ctx, as, 'POST', `/v1/loans/${loan.loanId}/autopay`, body, { 'Idempotency-Key': ref('key') });
}

async function cancel(loan: LoanFixture, as: Credential = cred) {
  return call(
    ctx,
    as,
    'POST',
    `/v1/loans/${loan.loanId}/autopay/cancel`,
    {},
    { 'Idempotency-Key': ref('key') },
  );
}

/** The loan's intents created by autopay enrolment `enrolmentId`: request key and source. */
async function autopayIntentsOf(enrolmentId: number) {
  return withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ id: string; request_key: string; source: string; amount: string; effective_date: string }>(
      sql`select id::text, request_key, source, amount::text, effective_date::text from payments where request_key like ${`autopay/${enrolmentId}/%`} order by id`,
    ),
  );
}

describe('POST/GET /v1/loans/{loanId}/autopay and cancel', () => {
  it('enrols (201), reads the enrolment (200), cancels it (200 CANCELLED); a repeat cancel answers it again', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/autopay`),
      404,
      'error.msg.resource.not.found',
    );
    const body = enrolBody(instrumentId, { amountType: 'FIXED', fixedAmount: '50.5', daysBeforeDue: 0 });
    const created = await enrol(loan, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      loanId: loan.loanId,
      instrumentId,
      authorizationRef: body.authorizationRef,
      rail: 'ACH',
      amountType: 'FIXED',
      fixedAmount: '50.50',
      currency: 'USD',
      daysBeforeDue: 0,
      status: 'ACTIVE',
      enrolledOn: today(),
      cancelledAt: null,
    });
    expect(created.body.enrolmentId).toBe(created.body.resourceId);
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/autopay`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const cancelled = await cancel(loan);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ enrolmentId: created.body.enrolmentId, status: 'CANCELLED' });
    expect(typeof cancelled.body.cancelledAt).toBe('string');
    const again = await cancel(loan);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    expect((await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/autopay`)).body).toEqual(cancelled.body);
  });

  it('a replay with the same Idempotency-Key answers the same enrolment without a second one', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const key = ref('key');
    const body = enrolBody(instrumentId);
    const first = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/autopay`, body, {
      'Idempotency-Key': key,
    });
    const second = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/autopay`, body, {
      'Idempotency-Key': key,
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    await cancel(loan);
  });

  it('400 for FIXED without fixedAmount, fixedAmount with INSTALLMENT_DUE, an unknown rail, daysBeforeDue out of range or fractional, an identifier-looking authorizationRef; nothing is stored', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    const cases: [Record<string, unknown>, string][] = [
      [{ amountType: 'FIXED' }, 'fixedAmount'],
      [{ amountType: 'INSTALLMENT_DUE', fixedAmount: '10.00' }, 'fixedAmount'],
      [{ amountType: 'FIXED', fixedAmount: '10.001' }, 'fixedAmount'],
      [{ rail: 'CARRIER_PIGEON' }, 'rail'],
      [{ daysBeforeDue: 16 }, 'daysBeforeDue'],
      [{ daysBeforeDue: -1 }, 'daysBeforeDue'],
      [{ daysBeforeDue: 1.5 }, 'daysBeforeDue'],
      [{ authorizationRef: 'mandate 123456789012' }, 'authorizationRef'],
      [{ amountType: 'WEEKLY' }, 'amountType'],
    ];
    for (const [overrides, field] of cases) {
      const res = await enrol(loan, enrolBody(instrumentId, overrides));
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
      const fields = (res.body.errors as { parameterName: string }[]).map((e) => e.parameterName);
      expect(fields, JSON.stringify(overrides)).toContain(field);
    }
    expect(
      JSON.stringify(
        await enrol(loan, enrolBody(instrumentId, { authorizationRef: 'mandate 123456789012' })),
      ),
    ).not.toContain('123456789012');
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/autopay`),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('409 error.msg.loan.autopay.already.active for a second ACTIVE enrolment; after cancel a new one is accepted', async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    expect((await enrol(loan, enrolBody(instrumentId))).status).toBe(201);
    expectShapeA(await enrol(loan, enrolBody(instrumentId)), 409, 'error.msg.loan.autopay.already.active');
    expect((await cancel(loan)).status).toBe(200);
    const again = await enrol(loan, enrolBody(instrumentId));
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body.status).toBe('ACTIVE');
    await cancel(loan);
  });

  it("409 error.msg.payment.instrument.not.eligible for an unverified instrument or another customer's", async () => {
    const loan = await fundedLoan();
    const unverified = await instrument(loan.customerId, { verified: false });
    expectShapeA(await enrol(loan, enrolBody(unverified)), 409, 'error.msg.payment.instrument.not.eligible');
    const stranger = await fundedLoan();
    const strangers = await instrument(stranger.customerId);
    expectShapeA(await enrol(loan, enrolBody(strangers)), 409, 'error.msg.payment.instrument.not.eligible');
  });

  it("another tenant's loan is 404 for enrol, read and cancel", async () => {
    const loan = await fundedLoan();
    const instrumentId = await instrument(loan.customerId);
    expect((await enrol(loan, enrolBody(instrumentId))).status).toBe(201);
    expectShapeA(await enrol(loan, enrolBody(instrumentId), other), 404, 'error.msg.resource.not.found');
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/loans/${loan.loanId}/autopay`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(await cancel(loan, other), 404, 'error.msg.resource.not.found');
    expect((await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/autopay`)).body.status).toBe('ACTIVE');
    await cancel(loan);
  });
});

describe('autopay cycles end to end', () => {
  /** A loan disbursed 50 days ago: installment 1 is past (never collected), installment 2 due in 8-12 days. */
  async function midScheduleLoan() {
    const loan = await fundedLoan(addDays(today(), -50));
    const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.execute<{ installment_number: number; due_date: string }>(
        sql`select installment_number, due_date::text from loan_installments where loan_id = ${loan.loanId} order by installment_number`,
      ),
    );
    expect(rows[0]!.due_date < today()).toBe(true);
    expect(rows[1]!.due_date > today()).toBe(true);
    expect(rows[1]!.due_date <= addDays(today(), 15)).toBe(true);
    return { loan, secondDueDate: rows[1]!.due_date };
  }

  it('creates one AUTOPAY intent, for the installment due after enrolment only (no backfill), at once when due − daysBeforeDue has come', async () => {
    const { loan, secondDueDate } = await midScheduleLoan();
    const instrumentId = await instrument(loan.customerId);
    const created = await enrol(loan, enrolBody(instrumentId, { daysBeforeDue: 15 }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const enrolmentId = created.body.enrolmentId as number;
    const intents = await vi.waitFor(
      async () => {
        const rows = await autopayIntentsOf(enrolmentId);
        expect(rows.length).toBe(1);
        return rows;
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(intents[0]).toMatchObject({
      request_key: `autopay/${enrolmentId}/2`,
      source: 'AUTOPAY',
      effective_date: secondDueDate,
    });
    expect(Number(intents[0]!.amount)).toBe(105);
    const listed = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments/${intents[0]!.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ source: 'AUTOPAY', rail: 'ACH', instrumentId, amount: '105.00' });
    // The intent's process runs (started by the autopay process as a child, its start intent marked started).
    await vi.waitFor(
      async () => {
        const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
          tx.execute<{ started: boolean }>(
            sql`select started_at is not null as started from workflow_start_intents where workflow_id = ${`payment-intent/${cred.tenant}/${intents[0]!.id}`}`,
          ),
        );
        expect(row?.started).toBe(true);
      },
      { timeout: 20_000, interval: 200 },
    );
    // Installment 3 is weeks away: nothing more now; cancelling ends the process without another intent.
    expect((await cancel(loan)).status).toBe(200);
    expect((await autopayIntentsOf(enrolmentId)).length).toBe(1);
  });

  it('under a PAYMENT_HOLD the installment is skipped with an effect and a task, and no intent is created', async () => {
    const { loan } = await midScheduleLoan();
    const instrumentId = await instrument(loan.customerId);
    const hold = await call(ctx, cred, 'POST', `/v1/customers/${loan.customerId}/restrictions`, {
      restrictionType: 'PAYMENT_HOLD',
      reason: 'Dispute under review',
    });
    expect(hold.status, JSON.stringify(hold.body)).toBe(201);
    const created = await enrol(loan, enrolBody(instrumentId, { daysBeforeDue: 15 }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const enrolmentId = created.body.enrolmentId as number;
    const dedupeKey = `autopay/${enrolmentId}/2/skipped`;
    await vi.waitFor(
      async () => {
        const [task] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
          tx.execute<{ task_type: string; case_id: string }>(
            sql`select task_type, case_id::text from tasks where dedupe_key = ${dedupeKey}`,
          ),
        );
        expect(task?.task_type).toBe('AUTOPAY_SKIPPED_REVIEW');
        const [effect] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
          tx.execute<{ effect_type: string; detail: { reasonCode: string; installmentNumber: number } }>(
            sql`select effect_type, detail from case_effects where dedupe_key = ${dedupeKey} and case_id = ${task!.case_id}`,
          ),
        );
        expect(effect).toMatchObject({
          effect_type: 'AUTOPAY_INSTALLMENT_SKIPPED',
          detail: { reasonCode: 'error.msg.loan.payment.hold.active', installmentNumber: 2 },
        });
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await autopayIntentsOf(enrolmentId)).toHaveLength(0);
    await cancel(loan);
  });
});
