/**
 * Charge definitions and loan products through the app on the real database (OpenAPI `GET /v1/loanproducts`; docs/lending.md "Lending core": /v1/charges, /v1/loanproducts; Shape A errors with `parameterName`; cross-tenant 404;
 * Idempotency-Key replay), and `getProductForLoan`: the product built from each case's settings of
 * test/vectors/fineract-schedules.json is accepted, and its terms, fed to domain/lending/schedule.ts, give the
 * schedule Fineract asserted.
 */
import Decimal from 'decimal.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProductForLoan } from '../../db/queries/lending/products';
import { charges, loanProducts } from '../../db/schema';
import { generateSchedule, type ScheduleInput } from '../../domain/lending/schedule';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { productBodyOfVectorCase, readVector } from '../support/vectors';
import { countRows, expectShapeA, type Json, newKey } from './helpers';
import { consumerConfig } from './lending-bodies';

const lendingScopes = { scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('prod'), lendingScopes);
  other = await credentialFor(ctx, uniqueTenant('prod-other'), lendingScopes);
});
afterAll(async () => ctx?.close());

const feeBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Origination fee',
  currencyCode: 'USD',
  amount: '25',
  chargeAppliesTo: 1,
  chargeTimeType: 1,
  chargeCalculationType: 1,
  penalty: false,
  active: true,
  ...overrides,
});

const productBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Personal loan',
  shortName: 'PL1',
  currencyCode: 'USD',
  digitsAfterDecimal: 2,
  inMultiplesOf: 0,
  installmentAmountInMultiplesOf: 1,
  principal: '5000',
  minPrincipal: '1000',
  maxPrincipal: '20000',
  numberOfRepayments: 12,
  minNumberOfRepayments: 6,
  maxNumberOfRepayments: 36,
  interestRatePerPeriod: 12.5,
  minInterestRatePerPeriod: '5',
  maxInterestRatePerPeriod: '30',
  repaymentEvery: 1,
  repaymentFrequencyType: 2,
  interestRateFrequencyType: 3,
  interestType: 0,
  amortizationType: 1,
  interestCalculationPeriodType: 1,
  allowPartialPeriodInterestCalcualtion: false,
  daysInYearType: 1,
  daysInMonthType: 1,
  graceOnPrincipalPayment: 0,
  graceOnInterestPayment: 0,
  transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
  lmsConfig: consumerConfig,
  ...overrides,
});

async function createCharge(as: Credential, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await call(ctx, as, 'POST', '/v1/charges', feeBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.chargeId;
}

async function createProduct(as: Credential, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await call(ctx, as, 'POST', '/v1/loanproducts', productBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.productId;
}

describe('POST /v1/charges', () => {
  it('defines a charge: 201 {resourceId, chargeId}, readable alone and in the list', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/charges', feeBody({ amount: '25.5' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ resourceId: expect.any(Number), chargeId: res.body.resourceId });
    const expected = {
      id: res.body.chargeId,
      name: 'Origination fee',
      currency: { code: 'USD', digitsAfterDecimal: 2 },
      amount: '25.50',
      chargeAppliesTo: 1,
      chargeTimeType: 1,
      chargeCalculationType: 1,
      penalty: false,
      active: true,
    };
    const read = await call(ctx, cred, 'GET', `/v1/charges/${res.body.chargeId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(expected);
    const list = await call(ctx, cred, 'GET', '/v1/charges');
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(expected);
  });

  it('takes a Fineract body: amount as a number, locale, dateFormat, chargePaymentMode 0', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/charges', {
      ...feeBody({ name: 'Installment fee %', chargeTimeType: 8, chargeCalculationType: 2, amount: 1.5 }),
      chargePaymentMode: 0,
      locale: 'en',
      dateFormat: 'dd MMMM yyyy',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await call(ctx, cred, 'GET', `/v1/charges/${res.body.chargeId}`);
    expect(read.body).toMatchObject({ amount: '1.5', chargeTimeType: 8, chargeCalculationType: 2 });
  });

  it('replays a request with the same Idempotency-Key and stores one charge', async () => {
    const key = newKey();
    const body = feeBody({ name: `Replayed ${key}` });
    const first = await call(ctx, cred, 'POST', '/v1/charges', body, { 'idempotency-key': key });
    const second = await call(ctx, cred, 'POST', '/v1/charges', body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('x-served-from-cache')).toBe('true');
    expect(await countRows(ctx, cred.tenant, charges, eq(charges.name, `Replayed ${key}`))).toBe(1);
  });

  it.each([
    ['an unknown currency', { currencyCode: 'ABC' }, ['currencyCode']],
    ['a lower-case currency', { currencyCode: 'usd' }, ['currencyCode']],
    ['too many decimals for the currency', { currencyCode: 'JPY', amount: '100.5' }, ['amount']],
    ['a zero amount', { amount: 0 }, ['amount']],
    ['an exponent', { amount: 1e21 }, ['amount']],
    ['a negative amount', { amount: '-5' }, ['amount']],
    ['an unsupported time type', { chargeTimeType: 12 }, ['chargeTimeType']],
    ['% of disbursement amount', { chargeCalculationType: 5 }, ['chargeCalculationType']],
    ['a savings charge', { chargeAppliesTo: 2 }, ['chargeAppliesTo']],
    ['a penalty at disbursement', { penalty: true }, ['penalty']],
    ['account-transfer payment mode', { chargePaymentMode: 1 }, ['chargePaymentMode']],
    ['an unknown field', { minCap: '1' }, ['minCap']],
    ['a blank name', { name: '   ' }, ['name']],
  ])('rejects %s with 400 naming the field', async (_label, overrides, names) => {
    const res = await call(ctx, cred, 'POST', '/v1/charges', feeBody(overrides));
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', names);
  });

  it('answers 404 for another tenant’s charge and 400 for a malformed id', async () => {
    const chargeId = await createCharge(cred);
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/charges/${chargeId}`),
      404,
      'error.msg.resource.not.found',
    );
    expect((await call(ctx, other, 'GET', '/v1/charges')).body).not.toContainEqual(
      expect.objectContaining({ id: chargeId }),
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/charges/abc'),
      400,
      'validation.msg.validation.errors.exist',
      ['chargeId'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/charges?limit=5'),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
  });

  it('needs lending:write and CREATE_CHARGE', async () => {
    const readOnly = await credentialFor(ctx, cred.tenant, { scopes: ['lending:read'] });
    expectShapeA(
      await call(ctx, readOnly, 'POST', '/v1/charges', feeBody()),
      403,
      'error.msg.not.authorized',
    );
    const noPermission = await credentialFor(ctx, cred.tenant, {
      ...lendingScopes,
      permissions: ['READ_CHARGE'],
    });
    expectShapeA(
      await call(ctx, noPermission, 'POST', '/v1/charges', feeBody()),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, noPermission, 'GET', '/v1/charges')).status).toBe(200);
  });
});

describe('POST /v1/loanproducts and the reads', () => {
  it('creates a product: 201, read with exactly the spec fields plus the settings and charges', async () => {
    const feeId = await createCharge(cred);
    const installmentFeeId = await createCharge(cred, {
      chargeTimeType: 8,
      chargeCalculationType: 2,
      amount: '0.5',
    });
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      productBody({ charges: [{ id: feeId }, { id: installmentFeeId }], locale: 'en' }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ resourceId: expect.any(Number), productId: res.body.resourceId });
    const productId = res.body.productId;

    const list = await call(ctx, cred, 'GET', '/v1/loanproducts');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    const item = list.body.find((p: Json) => p.id === productId);
    expect(item).toMatchObject({
      id: productId,
      name: 'Personal loan',
      shortName: 'PL1',
      status: 'loanProduct.active',
      currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
      numberOfRepayments: 12,
      interestRatePerPeriod: 12.5,
      lmsConfig: consumerConfig,
      configurationStatus: 'CONFIGURED',
    });
    expect(typeof item.interestRatePerPeriod).toBe('number');
    expect(Object.keys(item).sort()).toEqual(
      [
        'id',
        'name',
        'shortName',
        'status',
        'currency',
        'installmentAmountInMultiplesOf',
        'principal',
        'minPrincipal',
        'maxPrincipal',
        'numberOfRepayments',
        'minNumberOfRepayments',
        'maxNumberOfRepayments',
        'interestRatePerPeriod',
        'minInterestRatePerPeriod',
        'maxInterestRatePerPeriod',
        'repaymentEvery',
        'repaymentFrequencyType',
        'interestRateFrequencyType',
        'interestType',
        'amortizationType',
        'interestCalculationPeriodType',
        'allowPartialPeriodInterestCalcualtion',
        'daysInYearType',
        'daysInMonthType',
        'graceOnPrincipalPayment',
        'graceOnInterestPayment',
        'transactionProcessingStrategyCode',
        'paymentAllocation',
        'nsfChargeId',
        'charges',
        'lmsConfig',
        'configurationStatus',
        'enableDownPayment',
        'disbursedAmountPercentageForDownPayment',
        'enableAutoRepaymentForDownPayment',
        'delinquencyBucketId',
        'graceOnArrearsAgeing',
        'enableInstallmentLevelDelinquency',
        'chargeOffDaysPastDue',
      ].sort(),
    );
    expect(item.nsfChargeId).toBeNull();
    expect(item).toMatchObject({
      enableDownPayment: false,
      disbursedAmountPercentageForDownPayment: null,
      enableAutoRepaymentForDownPayment: false,
      installmentAmountInMultiplesOf: 1,
      principal: '5000.00',
      minPrincipal: '1000.00',
      maxPrincipal: '20000.00',
      minNumberOfRepayments: 6,
      maxNumberOfRepayments: 36,
      minInterestRatePerPeriod: 5,
      maxInterestRatePerPeriod: 30,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRateFrequencyType: 3,
      interestType: 0,
      amortizationType: 1,
      interestCalculationPeriodType: 1,
      allowPartialPeriodInterestCalcualtion: false,
      daysInYearType: 1,
      daysInMonthType: 1,
      graceOnPrincipalPayment: 0,
      graceOnInterestPayment: 0,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    });
    expect(item.charges.map((c: Json) => [c.id, c.amount])).toEqual([
      [feeId, '25.00'],
      [installmentFeeId, '0.5'],
    ]);
    expect(item.paymentAllocation).toHaveLength(1);
    expect(item.paymentAllocation[0]).toMatchObject({
      transactionType: 'DEFAULT',
      futureInstallmentAllocationRule: 'NEXT_INSTALLMENT',
    });
    expect(item.paymentAllocation[0].paymentAllocationOrder.slice(0, 4)).toEqual([
      { paymentAllocationRule: 'PAST_DUE_INTEREST', order: 1 },
      { paymentAllocationRule: 'PAST_DUE_PRINCIPAL', order: 2 },
      { paymentAllocationRule: 'PAST_DUE_FEE', order: 3 },
      { paymentAllocationRule: 'PAST_DUE_PENALTY', order: 4 },
    ]);

    const one = await call(ctx, cred, 'GET', `/v1/loanproducts/${productId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(item);
  });

  it('keeps given allocation rules, sorted by order', async () => {
    const order = [
      'DUE_PENALTY',
      'DUE_FEE',
      'DUE_INTEREST',
      'DUE_PRINCIPAL',
      'PAST_DUE_PENALTY',
      'PAST_DUE_FEE',
      'PAST_DUE_INTEREST',
      'PAST_DUE_PRINCIPAL',
      'IN_ADVANCE_PENALTY',
      'IN_ADVANCE_FEE',
      'IN_ADVANCE_INTEREST',
      'IN_ADVANCE_PRINCIPAL',
    ];
    const paymentAllocation = [
      {
        transactionType: 'DEFAULT',
        futureInstallmentAllocationRule: 'LAST_INSTALLMENT',
        paymentAllocationOrder: order
          .map((rule, i) => ({ paymentAllocationRule: rule, order: i + 1 }))
          .reverse(),
      },
    ];
    const productId = await createProduct(cred, { paymentAllocation });
    const read = await call(ctx, cred, 'GET', `/v1/loanproducts/${productId}`);
    expect(read.body.paymentAllocation).toEqual([
      {
        transactionType: 'DEFAULT',
        futureInstallmentAllocationRule: 'LAST_INSTALLMENT',
        paymentAllocationOrder: order.map((rule, i) => ({ paymentAllocationRule: rule, order: i + 1 })),
      },
    ]);
  });

  it('reports what approval misses in configurationStatus', async () => {
    const missingApr = await createProduct(cred, { lmsConfig: { productClass: 'COVERED_CONSUMER' } });
    const missingClass = await createProduct(cred, { lmsConfig: undefined });
    const commercial = await createProduct(cred, { lmsConfig: { productClass: 'COMMERCIAL' } });
    const statuses = await Promise.all(
      [missingApr, missingClass, commercial].map(
        async (id) => (await call(ctx, cred, 'GET', `/v1/loanproducts/${id}`)).body,
      ),
    );
    expect(statuses.map((p) => p.configurationStatus)).toEqual([
      'MISSING_APR_SETTINGS',
      'MISSING_PRODUCT_CLASS',
      'CONFIGURED',
    ]);
    expect(statuses[1].lmsConfig).toEqual({
      productClass: null,
      aprEnabled: false,
      aprRounding: null,
      aprTolerancePolicy: null,
      statementEnabled: false,
      statementLeadDays: 21,
    });
  });

  it('replays a request with the same Idempotency-Key and stores one product', async () => {
    const key = newKey();
    const body = productBody({ name: `Replayed ${key}` });
    const first = await call(ctx, cred, 'POST', '/v1/loanproducts', body, { 'idempotency-key': key });
    const second = await call(ctx, cred, 'POST', '/v1/loanproducts', body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('x-served-from-cache')).toBe('true');
    expect(await countRows(ctx, cred.tenant, loanProducts, eq(loanProducts.name, `Replayed ${key}`))).toBe(1);
    const changed = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      { ...body, numberOfRepayments: 24 },
      {
        'idempotency-key': key,
      },
    );
    expectShapeA(changed, 422, 'idempotency.key.payload.mismatch');
  });

  it('lets one of two concurrent requests with one Idempotency-Key create the product', async () => {
    const key = newKey();
    const body = productBody({ name: `Concurrent ${key}` });
    const results = await Promise.all([
      call(ctx, cred, 'POST', '/v1/loanproducts', body, { 'idempotency-key': key }),
      call(ctx, cred, 'POST', '/v1/loanproducts', body, { 'idempotency-key': key }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect([
      [201, 201],
      [201, 409],
    ]).toContainEqual(statuses);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.headers.get('retry-after')).toBeTruthy();
    expect(await countRows(ctx, cred.tenant, loanProducts, eq(loanProducts.name, `Concurrent ${key}`))).toBe(
      1,
    );
  });

  it('answers 404 for another tenant’s product and leaves it out of the list', async () => {
    const productId = await createProduct(cred);
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/loanproducts/${productId}`),
      404,
      'error.msg.resource.not.found',
    );
    const list = await call(ctx, other, 'GET', '/v1/loanproducts');
    expect(list.body.map((p: Json) => p.id)).not.toContain(productId);
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/loanproducts/0'),
      400,
      'validation.msg.validation.errors.exist',
      ['productId'],
    );
  });

  const badAllocation = (count: number) => [
    {
      transactionType: 'DEFAULT',
      futureInstallmentAllocationRule: 'NEXT_INSTALLMENT',
      paymentAllocationOrder: ['PAST_DUE_PENALTY', 'PAST_DUE_FEE', 'PAST_DUE_PRINCIPAL', 'PAST_DUE_INTEREST']
        .concat(['DUE_PENALTY', 'DUE_FEE', 'DUE_PRINCIPAL', 'DUE_INTEREST'])
        .concat(['IN_ADVANCE_PENALTY', 'IN_ADVANCE_FEE', 'IN_ADVANCE_PRINCIPAL', 'IN_ADVANCE_INTEREST'])
        .slice(0, count)
        .map((rule, i) => ({ paymentAllocationRule: rule, order: i + 1 })),
    },
  ];
  const mixed = badAllocation(12);
  const mixedOrder = mixed[0]!.paymentAllocationOrder;
  [mixedOrder[3], mixedOrder[4]] = [mixedOrder[4]!, mixedOrder[3]!];
  mixedOrder[3]!.order = 4;
  mixedOrder[4]!.order = 5;

  it.each([
    ['an unknown interest type', { interestType: 2 }, ['interestType']],
    ['an unknown days-in-year type', { daysInYearType: 366 }, ['daysInYearType']],
    [
      'an unknown strategy',
      { transactionProcessingStrategyCode: 'heavensfamily-strategy' },
      ['transactionProcessingStrategyCode'],
    ],
    ['min principal above max', { minPrincipal: '30000' }, ['maxPrincipal']],
    ['a principal above max', { principal: '25000' }, ['principal']],
    ['min repayments above max', { minNumberOfRepayments: 40 }, ['maxNumberOfRepayments']],
    ['a rate below min', { interestRatePerPeriod: '4.99' }, ['interestRatePerPeriod']],
    ['digitsAfterDecimal above the currency’s minor unit', { digitsAfterDecimal: 3 }, ['digitsAfterDecimal']],
    ['too many decimals for the currency', { principal: '5000.001' }, ['principal']],
    [
      'decimals on a JPY product',
      {
        currencyCode: 'JPY',
        digitsAfterDecimal: 0,
        principal: '5000.5',
        minPrincipal: null,
        maxPrincipal: null,
      },
      ['principal'],
    ],
    ['an unknown currency', { currencyCode: 'ABC' }, ['currencyCode']],
    ['grace not below the repayments', { graceOnPrincipalPayment: 12 }, ['graceOnPrincipalPayment']],
    ['a rate with nine decimals', { interestRatePerPeriod: '12.123456789' }, ['interestRatePerPeriod']],
    ['a short name over four characters', { shortName: 'PL-12' }, ['shortName']],
    ['interest recalculation', { isInterestRecalculationEnabled: true }, ['isInterestRecalculationEnabled']],
    ['an unknown field', { loanScheduleType: 'PROGRESSIVE' }, ['loanScheduleType']],
    [
      'allocation rules with another strategy',
      { transactionProcessingStrategyCode: 'mifos-standard-strategy', paymentAllocation: badAllocation(12) },
      ['paymentAllocation'],
    ],
    [
      'an allocation order of 11 entries',
      { paymentAllocation: badAllocation(11) },
      ['paymentAllocation[0].paymentAllocationOrder'],
    ],
    [
      'mixed due types in the allocation order',
      { paymentAllocation: mixed },
      ['paymentAllocation[0].paymentAllocationOrder'],
    ],
    [
      'an allocation without DEFAULT',
      { paymentAllocation: [{ ...badAllocation(12)[0], transactionType: 'REPAYMENT' }] },
      ['paymentAllocation'],
    ],
    [
      'an unknown allocation type',
      { paymentAllocation: [{ ...badAllocation(12)[0], futureInstallmentAllocationRule: 'SOMEWHERE' }] },
      ['paymentAllocation[0].futureInstallmentAllocationRule'],
    ],
    [
      'a statement lead time of 30 days',
      { lmsConfig: { ...consumerConfig, statementLeadDays: 30 } },
      ['lmsConfig.statementLeadDays'],
    ],
    [
      'a lead time as long as a month',
      { lmsConfig: { ...consumerConfig, statementLeadDays: 28 } },
      ['lmsConfig.statementLeadDays'],
    ],
    [
      'an unknown product class',
      { lmsConfig: { ...consumerConfig, productClass: 'PAYDAY' } },
      ['lmsConfig.productClass'],
    ],
    [
      'an unknown APR rounding',
      { lmsConfig: { ...consumerConfig, aprRounding: 'NEAREST_0_125' } },
      ['lmsConfig.aprRounding'],
    ],
  ])('rejects %s with 400 naming the field', async (_label, overrides, names) => {
    const res = await call(ctx, cred, 'POST', '/v1/loanproducts', productBody(overrides));
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', names);
  });

  it('rejects attached charges that are unknown, another tenant’s, inactive or in another currency', async () => {
    const before = await countRows(ctx, cred.tenant, loanProducts);
    const foreign = await createCharge(other);
    const inactive = await createCharge(cred, { active: false });
    const euro = await createCharge(cred, { currencyCode: 'EUR' });
    for (const [id, code] of [
      [987_654_321, 'validation.msg.loanproduct.charges.not.found'],
      [foreign, 'validation.msg.loanproduct.charges.not.found'],
      [inactive, 'validation.msg.loanproduct.charges.inactive'],
      [euro, 'validation.msg.loanproduct.charges.currency.mismatch'],
    ] as const) {
      const res = await call(ctx, cred, 'POST', '/v1/loanproducts', productBody({ charges: [{ id }] }));
      const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['charges[0].id']);
      expect(res.body.errors[0].userMessageGlobalisationCode).toBe(code);
      expect(body.errors[0]?.value).toBe(id);
    }
    expect(await countRows(ctx, cred.tenant, loanProducts)).toBe(before);
  });

  it('needs lending:read and READ_LOANPRODUCT to read', async () => {
    const writer = await credentialFor(ctx, cred.tenant, { scopes: ['servicing:read'] });
    expectShapeA(await call(ctx, writer, 'GET', '/v1/loanproducts'), 403, 'error.msg.not.authorized');
    const chargesOnly = await credentialFor(ctx, cred.tenant, {
      ...lendingScopes,
      permissions: ['READ_CHARGE'],
    });
    expectShapeA(await call(ctx, chargesOnly, 'GET', '/v1/loanproducts'), 403, 'error.msg.not.authorized');
  });
});

// ---- the read for loans, on the published vectors ----------------------------------------------------------

interface VectorCase {
  id: string;
  inputs: Json;
  expected: {
    periods: { period: number; dueDate: string; principalDue?: string | null; interestDue?: string | null }[];
  };
}
const vectors = readVector<{
  e2eProductSettings: Json;
  cases: VectorCase[];
}>('fineract-schedules.json');

/** The product a vector case's loan was made from, in `POST /v1/loanproducts` terms. */
const productOfCase = (c: VectorCase): Json => productBodyOfVectorCase(c, consumerConfig);

describe('getProductForLoan', () => {
  it('finds the published vectors’ products in e2eProductSettings terms', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(5);
    expect(vectors.e2eProductSettings).toMatchObject({
      daysInYearType: 1,
      daysInMonthType: 1,
      inMultiplesOf: 0,
    });
  });

  it.each(vectors.cases.map((c) => [c.id, c] as const))(
    '%s: the product is accepted and its terms reproduce Fineract’s schedule',
    async (_id, vectorCase) => {
      const res = await call(ctx, cred, 'POST', '/v1/loanproducts', productOfCase(vectorCase));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const product = await getProductForLoan(ctx.db, cred.tenant, res.body.productId);
      expect(product).not.toBeNull();
      if (!product) return;
      expect(product.configurationStatus).toBe('CONFIGURED');
      expect(product.transactionProcessingStrategyCode).toBe(
        vectorCase.inputs.transactionProcessingStrategyCode,
      );
      expect(product.charges).toEqual([]);
      const input: ScheduleInput = {
        ...product.terms,
        expectedDisbursementDate: vectorCase.inputs.expectedDisbursementDate,
        charges: product.charges,
      };
      expect(new Decimal(input.principal).eq(vectorCase.inputs.principal)).toBe(true);
      expect(new Decimal(input.interestRatePerPeriod).eq(vectorCase.inputs.interestRatePerPeriod)).toBe(true);
      const schedule = generateSchedule(input);
      const installments = schedule.periods.slice(1) as {
        dueDate: string;
        principalDue: string;
        interestDue: string;
      }[];
      expect(installments).toHaveLength(vectorCase.expected.periods.length);
      vectorCase.expected.periods.forEach((expected, index) => {
        const actual = installments[index]!;
        expect(actual.dueDate).toBe(expected.dueDate);
        if (expected.principalDue != null)
          expect(new Decimal(actual.principalDue).eq(expected.principalDue)).toBe(true);
        if (expected.interestDue != null)
          expect(new Decimal(actual.interestDue).eq(expected.interestDue)).toBe(true);
      });
    },
  );

  it('returns attached charges as schedule charges and null for another tenant', async () => {
    const feeId = await createCharge(cred, { amount: '10' });
    const installmentFeeId = await createCharge(cred, {
      chargeTimeType: 8,
      chargeCalculationType: 1,
      amount: '2.5',
      penalty: false,
    });
    const productId = await createProduct(cred, {
      charges: [{ id: installmentFeeId }, { id: feeId }],
      minInterestRatePerPeriod: '5.125',
    });
    const product = await getProductForLoan(ctx.db, cred.tenant, productId);
    expect(product).toMatchObject({
      productId,
      status: 'loanProduct.active',
      configurationStatus: 'CONFIGURED',
      lmsConfig: consumerConfig,
      terms: {
        principal: '5000.00',
        numberOfRepayments: 12,
        interestRatePerPeriod: '12.5',
        currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
        installmentAmountInMultiplesOf: 1,
      },
      bounds: {
        minPrincipal: '1000.00',
        maxPrincipal: '20000.00',
        minNumberOfRepayments: 6,
        maxNumberOfRepayments: 36,
        minInterestRatePerPeriod: '5.125',
        maxInterestRatePerPeriod: '30',
      },
    });
    expect(product?.charges).toEqual([
      {
        chargeId: feeId,
        name: 'Origination fee',
        currencyCode: 'USD',
        active: true,
        chargeTimeType: 1,
        chargeCalculationType: 1,
        amount: '10.00',
        penalty: false,
        minCap: null,
        maxCap: null,
      },
      expect.objectContaining({ chargeId: installmentFeeId, chargeTimeType: 8, amount: '2.50' }),
    ]);
    const schedule = generateSchedule({
      ...product!.terms,
      expectedDisbursementDate: '2024-01-15',
      charges: product!.charges,
    });
    expect(schedule.periods[0].feeChargesDue).toBe('10.00');
    expect(schedule.periods[1]).toMatchObject({ feeChargesDue: '2.50' });
    expect(await getProductForLoan(ctx.db, other.tenant, productId)).toBeNull();
  });
});
