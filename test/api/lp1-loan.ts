/**
 * Fineract's LP1-like loan and a specified-due-date charge through the API, shared by the loan-charge and
 * charge-off route tests (Apache Fineract e2e `LoanCharge.feature`, `LoanChargeOff.feature`: product LP1, 1,000 EUR,
 * one 30-day period at 0 %, mifos-standard-strategy).
 */
import { expect } from 'vitest';
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
