/**
 * Loan products with fewer fraction digits than their currency's ISO 4217 minor unit (docs/design.md §5
 * Currencies; domain/lending/products.ts): Fineract allows `digitsAfterDecimal` from 0 to the minor unit and
 * lenders use it (USD with 0 digits and `inMultiplesOf` 100, so installments are whole hundreds). More digits
 * than the minor unit stays a 400. A loan of such a product may not carry amounts finer than the product's digits:
 * Fineract would round them (its `Money` rounds every amount to the currency's digits and multiple); we refuse
 * them with a 400 naming the field instead, because a value is never changed silently. Money recorded on such a loan
 * afterwards (fundings, payments) is kept in the currency's ISO minor unit, exactly as received: the ledger and the
 * loan read work in minor units, which represent the product's coarser amounts without loss.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';

let ctx: TestContext;
let cred: Credential;
let borrowerId: number;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('digits'), { scopes: ['lending:read', 'lending:write'] });
  const customer = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'Ada', lastName: 'Whole' });
  expect(customer.status, JSON.stringify(customer.body)).toBe(201);
  borrowerId = customer.body.customerId;
});
afterAll(async () => ctx?.close());

const productBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Whole-hundred loan',
  shortName: 'WH1',
  currencyCode: 'USD',
  digitsAfterDecimal: 0,
  inMultiplesOf: 100,
  principal: '1000',
  minPrincipal: '100',
  maxPrincipal: '20000',
  numberOfRepayments: 3,
  interestRatePerPeriod: 0,
  repaymentEvery: 1,
  repaymentFrequencyType: 2,
  interestRateFrequencyType: 3,
  interestType: 0,
  amortizationType: 1,
  interestCalculationPeriodType: 1,
  daysInYearType: 1,
  daysInMonthType: 1,
  transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
  lmsConfig: {
    productClass: 'COMMERCIAL',
    aprEnabled: false,
    statementEnabled: false,
  },
  ...overrides,
});

const loanBody = (productId: number, overrides: Record<string, unknown> = {}) => ({
  clientId: borrowerId,
  productId,
  loanType: 'individual',
  principal: '1000',
  loanTermFrequency: 3,
  loanTermFrequencyType: 2,
  numberOfRepayments: 3,
  repaymentEvery: 1,
  repaymentFrequencyType: 2,
  interestRatePerPeriod: 0,
  interestType: 0,
  interestCalculationPeriodType: 1,
  amortizationType: 1,
  transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
  expectedDisbursementDate: '2025-03-15',
  submittedOnDate: '2025-03-10',
  ...overrides,
});

async function createProduct(overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/loanproducts', productBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.productId;
}

describe('digitsAfterDecimal below the currency minor unit', () => {
  it('accepts a USD product with 0 digits and inMultiplesOf 100, and reads it back so', async () => {
    const productId = await createProduct();
    const read = await call(ctx, cred, 'GET', `/v1/loanproducts/${productId}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toMatchObject({
      currency: { code: 'USD', digitsAfterDecimal: 0, inMultiplesOf: 100 },
      principal: '1000',
    });
  });

  it('schedules whole-hundred installments as Fineract does', async () => {
    // Worked by hand: 1000 USD at 0 % over 3 monthly equal installments. The exact installment 1000 / 3 =
    // 333.33… is rounded by Fineract's Money to 0 digits (333) and then to the nearest multiple of 100 (300);
    // periods 1 and 2 are 300 each, and the last period takes what is left of the principal: 1000 − 600 = 400.
    const productId = await createProduct();
    const res = await call(ctx, cred, 'POST', '/v1/loans?command=calculateLoanSchedule', loanBody(productId));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.currency).toEqual({ code: 'USD', digitsAfterDecimal: 0, inMultiplesOf: 100 });
    expect(res.body.totalPrincipalExpected).toBe('1000');
    const installments = res.body.periods.slice(1);
    expect(installments.map((p: { principalDue: string }) => p.principalDue)).toEqual(['300', '300', '400']);
    expect(installments.map((p: { totalDueForPeriod: string }) => p.totalDueForPeriod)).toEqual([
      '300',
      '300',
      '400',
    ]);
  });

  it('accepts 1 digit for USD; amounts with more digits than the product has → 400 naming the field', async () => {
    const productId = await createProduct({ digitsAfterDecimal: 1, inMultiplesOf: 0, principal: '1000.5' });
    const read = await call(ctx, cred, 'GET', `/v1/loanproducts/${productId}`);
    expect(read.body).toMatchObject({ currency: { digitsAfterDecimal: 1 }, principal: '1000.5' });
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        '/v1/loanproducts',
        productBody({ digitsAfterDecimal: 1, principal: '1000.55' }),
      ),
      400,
      'validation.msg.validation.errors.exist',
      ['principal'],
    );
  });

  it('refuses a loan principal with cents on a 0-digit product (Fineract would round it; we never do)', async () => {
    const productId = await createProduct({ inMultiplesOf: 0 });
    for (const path of ['/v1/loans', '/v1/loans?command=calculateLoanSchedule']) {
      expectShapeA(
        await call(ctx, cred, 'POST', path, loanBody(productId, { principal: '1000.50' })),
        400,
        'validation.msg.validation.errors.exist',
        ['principal'],
      );
    }
  });

  it('records a payment with cents on a 0-digit loan exactly as received (the ledger keeps minor units)', async () => {
    // Schedule 300, 300, 400 (see above). A payment of 300.50 on the first due date pays installment 1 in full
    // and 0.50 of installment 2: nothing is rounded to the product's whole units (Fineract would round the
    // payment with its Money; money actually received is kept to the cent here).
    const productId = await createProduct();
    const created = await call(ctx, cred, 'POST', '/v1/loans', loanBody(productId));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const loanId = created.body.loanId as number;
    const approved = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, {
      approvedOnDate: '2025-03-12',
      approvedLoanAmount: '1000',
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const funded = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, {
      amount: '1000',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: `fund-${loanId}`,
      reason: 'Disbursed by the originating bank',
    });
    expect(funded.status, JSON.stringify(funded.body)).toBe(201);
    const paid = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
      amount: '300.50',
      currency: 'USD',
      effectiveDate: '2025-04-15',
      externalRecordRef: `pay-${loanId}`,
      source: 'IMPORT',
      rationale: 'Boarded history',
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body).toMatchObject({
      amount: '300.50',
      allocation: { principal: '300.50', overpayment: '0.00' },
    });
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
    const [, first, second] = read.body.repaymentSchedule.periods;
    expect(first).toMatchObject({ principalDue: '300.00', principalPaid: '300.00', complete: true });
    expect(second).toMatchObject({
      principalDue: '300.00',
      principalPaid: '0.50',
      totalOutstandingForPeriod: '299.50',
    });
  });

  it('refuses 3 digits on USD (above its minor unit 2) → 400 on digitsAfterDecimal', async () => {
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      productBody({ digitsAfterDecimal: 3, inMultiplesOf: 0 }),
    );
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['digitsAfterDecimal']);
    expect(res.body.errors[0].userMessageGlobalisationCode).toBe(
      'validation.msg.loanproduct.digitsAfterDecimal.above.currency.minor.unit',
    );
  });
});
