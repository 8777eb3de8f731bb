/**
 * Fineract's LP1-like loan and a specified-due-date charge through the API, shared by the loan-charge and
 * charge-off route tests (Apache Fineract e2e `LoanCharge.feature`, `LoanChargeOff.feature`: product LP1, 1,000 EUR,
 * one 30-day period at 0 %, mifos-standard-strategy).
 */
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { parseDecimalToMinor } from '../../domain/money';
import { type Credential, call, type TestContext } from '../support/context';

let products = 0;

/**
 * Defines a charge with `POST /v1/charges`: by default a 20 EUR flat specified-due-date fee ("Snooze fee");
 * `overrides` replace any field. Answers its chargeId; fails the test on any status but 201.
 */
export async function createLp1Charge(
  ctx: TestContext,
  cred: Credential,
  overrides: Record<string, unknown> = {},
): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/charges', {
    name: 'Snooze fee',
    currencyCode: 'EUR',
    amount: '20',
    chargeAppliesTo: 1,
    chargeTimeType: 2,
    chargeCalculationType: 1,
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.chargeId as number;
}

/**
 * The LP1-like loan: a new product, a borrower and a loan of 1,000 EUR in one 30-day period at 0 %,
 * mifos-standard-strategy, submitted and approved on `onDate` (ISO date). Answers its loanId; fails the test on any
 * refusal.
 */
export async function approvedLp1Loan(ctx: TestContext, cred: Credential, onDate: string): Promise<number> {
  products += 1;
  const product = await call(ctx, cred, 'POST', '/v1/loanproducts', {
    name: `LP1 product ${products}`,
    shortName: `L${products % 1000}`,
    currencyCode: 'EUR',
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    principal: '1000',
    numberOfRepayments: 1,
    interestRatePerPeriod: 0,
    repaymentEvery: 30,
    repaymentFrequencyType: 0,
    interestRateFrequencyType: 3,
    interestType: 0,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    daysInYearType: 1,
    daysInMonthType: 1,
    transactionProcessingStrategyCode: 'mifos-standard-strategy',
    lmsConfig: {
      productClass: 'COVERED_CONSUMER',
      aprEnabled: true,
      aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
      aprTolerancePolicy: 'REGULAR',
      statementEnabled: false,
    },
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  const customer = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'Fee', lastName: 'Payer' });
  const loan = await call(ctx, cred, 'POST', '/v1/loans', {
    clientId: customer.body.customerId,
    productId: product.body.productId,
    loanType: 'individual',
    principal: 1000,
    loanTermFrequency: 30,
    loanTermFrequencyType: 0,
    numberOfRepayments: 1,
    repaymentEvery: 30,
    repaymentFrequencyType: 0,
    interestRatePerPeriod: 0,
    interestType: 0,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode: 'mifos-standard-strategy',
    expectedDisbursementDate: onDate,
    submittedOnDate: onDate,
  });
  expect(loan.status, JSON.stringify(loan.body)).toBe(201);
  const loanId = loan.body.loanId as number;
  const approved = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, {
    approvedOnDate: onDate,
    approvedLoanAmount: '1000',
  });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  return loanId;
}

let refs = 0;
/** A source-system reference unique in the test run: `<prefix>-<random>-<n>`. */
export function uniqueRef(prefix: string): string {
  refs += 1;
  // Letters only around the counter: a run of 8 digits (even across a hyphen) reads as an account number and is refused.
  const letters = Math.random()
    .toString(36)
    .slice(2, 8)
    .replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)]!);
  return `${prefix}-${letters}-${refs}`;
}

/** `approvedLp1Loan` funded in full (1,000.00 EUR recorded as disbursed to the borrower on `onDate`). */
export async function activeLp1Loan(ctx: TestContext, cred: Credential, onDate: string): Promise<number> {
  const loanId = await approvedLp1Loan(ctx, cred, onDate);
  const funded = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, {
    amount: '1000.00',
    currency: 'EUR',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: uniqueRef('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate: onDate,
  });
  expect(funded.status, JSON.stringify(funded.body)).toBe(201);
  return loanId;
}

/** Records an imported EUR payment (`amount` a decimal string, `effectiveDate` ISO) on the loan; expects 201. */
export async function recordLp1Payment(
  ctx: TestContext,
  cred: Credential,
  loanId: number,
  effectiveDate: string,
  amount: string,
): Promise<void> {
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
    amount,
    currency: 'EUR',
    effectiveDate,
    externalRecordRef: uniqueRef('pay'),
    source: 'IMPORT',
    rationale: 'Boarded history',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** Σ debit − Σ credit of the loan's journal lines, in millionths (bigint; 0 when the loan's books balance). */
export async function loanTrialBalance(ctx: TestContext, cred: Credential, loanId: number): Promise<bigint> {
  const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ balance: string }>(
      sql`select coalesce(sum(debit) - sum(credit), 0)::text as balance from journal_entries where loan_id = ${loanId}`,
    ),
  );
  return parseDecimalToMinor(row!.balance, 6);
}
