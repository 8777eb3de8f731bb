/**
 * The NSF fee on a returned payment (docs/lending.md "NSF fee on a returned payment"), through the app, the real
 * database and the Temporal dev server with a `lending` worker: a product names an NSF charge (`nsfChargeId`, a
 * penalty of a specified due date); a payment intent settled then returned R01 adds it to the loan, due on the
 * return day, in the return's transaction (`payment.returned` carries `nsfFee`); another return code adds nothing;
 * a borrower with an active SCRA_MLA_PROTECTED restriction is never charged; a product cannot name a fee as its NSF
 * charge.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { approvedLoan, type LoanFixture } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA, type Json } from './helpers';
import { paymentInstrument, paymentTestRef } from './payment-fixtures';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  cred = await credentialFor(ctx, uniqueTenant('nsf'), { scopes: ['lending:read', 'lending:write'] });
}, 120_000);
afterAll(async () => ctx?.close());

const today = () => new Date().toISOString().slice(0, 10);

async function nsfCharge(penalty = true): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/charges', {
    name: 'NSF fee',
    currencyCode: 'USD',
    amount: '25',
    chargeAppliesTo: 1,
    chargeTimeType: 2,
    chargeCalculationType: 1,
    penalty,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.chargeId as number;
}

async function fundedLoan(nsfChargeId: number): Promise<LoanFixture> {
  const loan = await approvedLoan(ctx, cred.tenant, { nsfChargeId, expectedDisbursementDate: '2025-01-01' });
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/fundings/record-external`, {
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: paymentTestRef('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate: '2025-01-01',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return loan;
}

/** A settled then returned ACH payment intent of 105.00 → its paymentId. */
async function returnedPayment(loan: LoanFixture, returnCode: string): Promise<number> {
  const instrumentId = await paymentInstrument(ctx, cred, loan.customerId);
  const created = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/payments`, {
    instrumentId,
    amount: '105.00',
    currency: 'USD',
    rail: 'ACH',
    effectiveDate: today(),
    source: 'borrower-portal',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const paymentId = created.body.paymentId as number;
  await vi.waitFor(
    async () => {
      const payment = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments/${paymentId}`);
      expect(payment.body.status).toBe('SUBMITTED');
    },
    { timeout: 20_000, interval: 100 },
  );
  const settled = await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/settle`, {});
  expect(settled.status, JSON.stringify(settled.body)).toBe(200);
  const returned = await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/return`, { returnCode });
  expect(returned.status, JSON.stringify(returned.body)).toBe(200);
  return paymentId;
}

async function returnedEventOf(paymentId: number): Promise<Json> {
  const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ data: Json }>(
      sql`select data from outbox_events where subject_id = ${String(paymentId)} and event_type = 'payment.returned'`,
    ),
  );
  return row?.data;
}

async function trialBalanceIsZero(loanId: number): Promise<boolean> {
  const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ balanced: boolean }>(
      sql`select coalesce(sum(debit) - sum(credit), 0) = 0 as balanced from journal_entries where loan_id = ${loanId}`,
    ),
  );
  return row!.balanced;
}

describe('NSF fee on a returned payment', () => {
  it('R01 adds the product NSF charge, due on the return day, once; payment.returned carries it', async () => {
    const chargeId = await nsfCharge();
    const loan = await fundedLoan(chargeId);
    const product = await call(ctx, cred, 'GET', `/v1/loanproducts/${loan.productId}`);
    expect(product.body.nsfChargeId).toBe(chargeId);
    const paymentId = await returnedPayment(loan, 'R01');
    const charges = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/charges`);
    expect(charges.status).toBe(200);
    expect(charges.body).toHaveLength(1);
    const [fee] = charges.body;
    expect(fee).toMatchObject({ chargeId, amount: '25.00', penalty: true, amountOutstanding: '25.00' });
    const event = await returnedEventOf(paymentId);
    expect(event).toMatchObject({
      returnCode: 'R01',
      nsfFee: { loanChargeId: fee.id, amount: '25.00', currency: 'USD' },
    });
    const payment = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments/${paymentId}`);
    const returnedOn = (payment.body.history as Json[]).find((h) => h.status === 'RETURNED')?.detail
      ?.returnedOn;
    expect(fee.dueDate).toBe(returnedOn);
    expect(await trialBalanceIsZero(loan.loanId)).toBe(true);

    // a retried return changes nothing
    const again = await call(ctx, cred, 'POST', `/v1/sandbox/payments/${paymentId}/return`, {
      returnCode: 'R01',
    });
    expect([200, 409]).toContain(again.status);
    expect((await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/charges`)).body).toHaveLength(1);
  });

  it('another return code adds no fee (nsfFee null)', async () => {
    const loan = await fundedLoan(await nsfCharge());
    const paymentId = await returnedPayment(loan, 'R02');
    expect(await returnedEventOf(paymentId)).toMatchObject({ returnCode: 'R02', nsfFee: null });
    expect((await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/charges`)).body).toEqual([]);
  });

  it('never charges a borrower with an active SCRA_MLA_PROTECTED restriction', async () => {
    const loan = await fundedLoan(await nsfCharge());
    const restricted = await call(ctx, cred, 'POST', `/v1/customers/${loan.customerId}/restrictions`, {
      restrictionType: 'SCRA_MLA_PROTECTED',
      reason: 'Active duty military status reported by the borrower',
    });
    expect(restricted.status, JSON.stringify(restricted.body)).toBe(201);
    const paymentId = await returnedPayment(loan, 'R01');
    expect(await returnedEventOf(paymentId)).toMatchObject({ returnCode: 'R01', nsfFee: null });
    expect((await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/charges`)).body).toEqual([]);
  });

  it('a product cannot name a fee as its NSF charge (400 naming nsfChargeId)', async () => {
    const fee = await nsfCharge(false);
    const res = await call(ctx, cred, 'POST', '/v1/loanproducts', {
      name: 'NSF product',
      shortName: 'NSF1',
      currencyCode: 'USD',
      digitsAfterDecimal: 2,
      principal: '1000',
      numberOfRepayments: 6,
      interestRatePerPeriod: 12,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRateFrequencyType: 3,
      interestType: 0,
      amortizationType: 1,
      interestCalculationPeriodType: 1,
      daysInYearType: 1,
      daysInMonthType: 1,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      nsfChargeId: fee,
    });
    const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['nsfChargeId']);
    expect(body.errors[0]).toMatchObject({
      userMessageGlobalisationCode: 'validation.msg.loanproduct.nsfChargeId.not.penalty',
    });
  });
});
