/**
 * A charge due at disbursement, end to end through the public API: it is a prepaid finance charge in the
 * frozen disclosure (amount financed = principal − fee, 12 CFR 1026.18(b)) and, when the loan is funded, it is
 * withheld from the proceeds: Dr LOAN_PORTFOLIO principal / Cr EXTERNAL_CLEARING principal − fee / Cr FEE_INCOME
 * fee. The figures are the inputs themselves (1000.00 lent, 25.00 fee), not the service's answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDecimalToMinor } from '../../domain/money';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('dfee'), { scopes: ['lending:read', 'lending:write'] });
});
afterAll(async () => ctx?.close());

describe('origination fee withheld at disbursement', () => {
  it('is disclosed as a prepaid finance charge and booked as fee income when the loan is funded', async () => {
    const charge = await call(ctx, cred, 'POST', '/v1/charges', {
      name: 'Origination fee',
      currencyCode: 'USD',
      amount: '25',
      chargeAppliesTo: 1,
      chargeTimeType: 1,
      chargeCalculationType: 1,
    });
    expect(charge.status, JSON.stringify(charge.body)).toBe(201);
    const product = await call(ctx, cred, 'POST', '/v1/loanproducts', {
      name: 'Fee loan',
      shortName: 'FL1',
      currencyCode: 'USD',
      digitsAfterDecimal: 2,
      inMultiplesOf: 0,
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
      charges: [{ id: charge.body.chargeId }],
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
      loanTermFrequency: 6,
      loanTermFrequencyType: 2,
      numberOfRepayments: 6,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: 12,
      interestType: 0,
      interestCalculationPeriodType: 1,
      amortizationType: 1,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      expectedDisbursementDate: '2025-01-15',
      submittedOnDate: '2025-01-10',
      charges: [{ chargeId: charge.body.chargeId, amount: 25 }],
    });
    expect(loan.status, JSON.stringify(loan.body)).toBe(201);
    const loanId = loan.body.loanId as number;
    const approved = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, {
      approvedOnDate: '2025-01-12',
      approvedLoanAmount: '1000',
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);

    const funded = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, {
      amount: '1000.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-account-ref',
      externalRecordRef: 'FUND-fee-loan-a',
      reason: 'Boarded disbursement',
      fundingDate: '2025-01-15',
    });
    expect(funded.status, JSON.stringify(funded.body)).toBe(201);

    const summary = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=2025-01-20`);
    expect(summary.status).toBe(200);
    expect(summary.body.aprDisclosure).toMatchObject({ amountFinanced: '975.00' });

    const journal = await call(ctx, cred, 'GET', `/v1/journalentries?loanId=${loanId}`);
    expect(journal.status).toBe(200);
    const total = (account: string, side: 'debit' | 'credit') =>
      (journal.body.pageItems as { accountCode: string; debit: string; credit: string }[])
        .filter((line) => line.accountCode === account)
        .reduce((sum, line) => sum + parseDecimalToMinor(line[side], 2, { allowTrailingZeros: true }), 0n);
    expect(total('LOAN_PORTFOLIO', 'debit')).toBe(100_000n);
    expect(total('EXTERNAL_CLEARING', 'credit')).toBe(97_500n);
    expect(total('FEE_INCOME', 'credit')).toBe(2_500n);
    const debits = ['LOAN_PORTFOLIO', 'EXTERNAL_CLEARING', 'FEE_INCOME'].reduce(
      (s, a) => s + total(a, 'debit'),
      0n,
    );
    const credits = ['LOAN_PORTFOLIO', 'EXTERNAL_CLEARING', 'FEE_INCOME'].reduce(
      (s, a) => s + total(a, 'credit'),
      0n,
    );
    expect(debits).toBe(credits);
  });
});
