/**
 * Loans and instruments for the payment API tests (test/api/payment-intents.test.ts, autopay.test.ts), made through
 * the public routes: an approved loan from test/activities/ledger-fixtures.ts (300.00 USD, three installments of
 * 100.00 principal + 3.00 interest + 2.00 fee) funded with 300.00, and a borrower's payment instrument, verified
 * unless asked otherwise. Each step asserts its status, so a broken fixture fails where it broke.
 */
import { expect } from 'vitest';
import { approvedLoan, type LoanFixture } from '../activities/ledger-fixtures';
import { type Credential, call, type TestContext } from '../support/context';

let counter = 0;
/** A reference of letters and counters (never a 9-digit run the identifier guard would refuse). */
export const paymentTestRef = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** An approved loan of `cred`'s tenant disbursed on `disbursedOn` and funded with 300.00 then (ACTIVE). */
export async function fundedLoan(
  ctx: TestContext,
  cred: Credential,
  disbursedOn = '2025-01-01',
): Promise<LoanFixture> {
  const loan = await approvedLoan(ctx, cred.tenant, { expectedDisbursementDate: disbursedOn });
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/fundings/record-external`, {
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: paymentTestRef('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate: disbursedOn,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return loan;
}

/** A payment instrument of `customerId` (VERIFIED + ACTIVE unless `verified: false`); answers its id. */
export async function paymentInstrument(
  ctx: TestContext,
  cred: Credential,
  customerId: number,
  options: { type?: 'BANK_ACCOUNT' | 'DEBIT_CARD'; token?: string; verified?: boolean } = {},
): Promise<number> {
  const created = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/payment-instruments`, {
    instrumentType: options.type ?? 'BANK_ACCOUNT',
    providerTokenRef: options.token ?? `tok_${paymentTestRef('bank').replace(/-/g, '_')}`,
    lastFour: '6789',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const instrumentId = created.body.instrumentId as number;
  if (options.verified !== false) {
    const verified = await call(
      ctx,
      cred,
      'POST',
      `/v1/customers/${customerId}/payment-instruments/${instrumentId}/verification`,
      { verificationSource: 'PLAID' },
    );
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  }
  return instrumentId;
}
