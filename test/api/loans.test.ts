/**
 * Loans through the app on the real database (docs/lending.md "Lending core": /v1/loans, the
 * calculateLoanSchedule and approve commands, parties; docs/lending.md "Lending core": submitted → approved with the APR disclosure;
 * OpenAPI `GET /v1/loans`; docs/design.md §4 Paging: native lists; docs/design.md §4 Errors: Shape A with `parameterName`; cross-tenant 404;
 * Idempotency-Key replay).
 *
 * Oracle of the preview: every case of test/vectors/fineract-schedules.json (Apache Fineract's own tests,
 * commit 4198b0bc): the product is created from the case's settings through `POST /v1/loanproducts`, the case's
 * loan is previewed through `POST /v1/loans?command=calculateLoanSchedule`, and every field the source asserts
 * (non-null) must match. The read's paid and outstanding amounts are checked against rows written here the way
 * the ledger writes them (installment paid columns, a funding, a payment with its allocation).
 */
import Decimal from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundings, loanInstallments, loans, payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
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
import { consumerConfig, personalLoanBody, personalLoanProductBody } from './lending-bodies';

const lendingScopes = { scopes: ['lending:read', 'lending:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let borrowerId: number;
let cosignerId: number;
let productId: number;

const productBody = personalLoanProductBody;
const loanBody = (overrides: Record<string, unknown> = {}) =>
  personalLoanBody({ clientId: borrowerId, productId }, { dateFormat: 'yyyy-MM-dd', ...overrides });

async function createCustomer(as: Credential, lastName = 'Borrower'): Promise<number> {
  const res = await call(ctx, as, 'POST', '/v1/customers', { firstName: 'Ada', lastName });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.customerId;
}

async function createProduct(as: Credential, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await call(ctx, as, 'POST', '/v1/loanproducts', productBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.productId;
}

async function createCharge(as: Credential, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await call(ctx, as, 'POST', '/v1/charges', {
    name: 'Origination fee',
    currencyCode: 'USD',
    amount: '100',
    chargeAppliesTo: 1,
    chargeTimeType: 1,
    chargeCalculationType: 1,
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.chargeId;
}

async function createLoan(as: Credential = cred, overrides: Record<string, unknown> = {}): Promise<Json> {
  const res = await call(ctx, as, 'POST', '/v1/loans', loanBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const approve = (loanId: number, body: Record<string, unknown> = {}, as: Credential = cred) =>
  call(ctx, as, 'POST', `/v1/loans/${loanId}?command=approve`, {
    approvedOnDate: '2025-03-12',
    approvedLoanAmount: '5000',
    ...body,
  });

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('loans'), lendingScopes);
  other = await credentialFor(ctx, uniqueTenant('loans-other'), lendingScopes);
  borrowerId = await createCustomer(cred);
  cosignerId = await createCustomer(cred, 'Cosigner');
  productId = await createProduct(cred);
});
afterAll(async () => ctx?.close());

// ---- the preview on the published vectors --------------------------------------------------------------------

interface VectorRow {
  period?: number | null;
  dueDate: string;
  [field: string]: unknown;
}
interface VectorCase {
  id: string;
  inputs: Json;
  expected: {
    numberOfPeriods: number;
    disbursementPeriod?: VectorRow;
    periods: VectorRow[];
    totals: Record<string, string> | null;
  };
}
const vectors = readVector<{
  cases: VectorCase[];
}>('fineract-schedules.json');

/** The product a vector case's loan was made from, in `POST /v1/loanproducts` terms. */
const productOfCase = (c: VectorCase): Json => productBodyOfVectorCase(c, consumerConfig);

/** The case's loan application as a Fineract client sends it (numbers for amounts and rates). */
function loanOfCase(c: VectorCase, caseProductId: number): Json {
  const i = c.inputs;
  return {
    clientId: borrowerId,
    productId: caseProductId,
    loanType: 'individual',
    principal: Number(i.principal),
    loanTermFrequency: i.loanTermFrequency,
    loanTermFrequencyType: i.loanTermFrequencyType,
    numberOfRepayments: i.numberOfRepayments,
    repaymentEvery: i.repaymentEvery,
    repaymentFrequencyType: i.repaymentFrequencyType,
    interestRatePerPeriod: Number(i.interestRatePerPeriod),
    interestType: i.interestType,
    interestCalculationPeriodType: i.interestCalculationPeriodType,
    amortizationType: i.amortizationType,
    allowPartialPeriodInterestCalcualtion: i.allowPartialPeriodInterestCalcualtion,
    graceOnPrincipalPayment: i.graceOnPrincipalPayment,
    graceOnInterestPayment: i.graceOnInterestPayment,
    transactionProcessingStrategyCode: i.transactionProcessingStrategyCode,
    expectedDisbursementDate: i.expectedDisbursementDate,
    submittedOnDate: i.submittedOnDate,
    charges: i.charges,
    locale: 'en',
  };
}

/** Every asserted (non-null) field of `expected` equals `actual`'s (amounts numerically: "278.0" = "278.00"). */
function expectAsserted(
  actual: Json,
  expected: Record<string, unknown>,
  where: string,
  fields: string[],
): void {
  for (const field of fields) {
    const want = expected[field];
    if (want === null || want === undefined) continue;
    expect(actual, `${where}: ${field} missing`).toHaveProperty(field);
    const got = actual[field];
    if (typeof want === 'number' || field === 'dueDate' || field === 'period') {
      expect(got, `${where} ${field}`).toBe(want);
    } else {
      expect(new Decimal(got).eq(want as string), `${where} ${field}: ${got} ≠ ${want}`).toBe(true);
    }
  }
}

const rowFields = [
  'period',
  'dueDate',
  'daysInPeriod',
  'principalDue',
  'interestDue',
  'feeChargesDue',
  'penaltyChargesDue',
  'totalDueForPeriod',
  'totalOutstandingForPeriod',
  'principalLoanBalanceOutstanding',
  'totalPaidForPeriod',
];

describe('POST /v1/loans?command=calculateLoanSchedule — Fineract vectors', () => {
  it('has the published cases', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(5);
  });

  it.each(vectors.cases.map((c) => [c.id, c] as const))(
    '%s: the preview reproduces every asserted field',
    async (_id, vectorCase) => {
      const product = await call(ctx, cred, 'POST', '/v1/loanproducts', productOfCase(vectorCase));
      expect(product.status, JSON.stringify(product.body)).toBe(201);
      const res = await call(
        ctx,
        cred,
        'POST',
        '/v1/loans?command=calculateLoanSchedule',
        loanOfCase(vectorCase, product.body.productId),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { expected } = vectorCase;
      const [disbursement, ...installments] = res.body.periods as Json[];
      expect(installments).toHaveLength(expected.numberOfPeriods);
      expect(disbursement).not.toHaveProperty('period');
      if (expected.disbursementPeriod) {
        expectAsserted(disbursement, expected.disbursementPeriod, 'disbursement', [
          'dueDate',
          'feeChargesDue',
          'totalDueForPeriod',
          'totalOutstandingForPeriod',
          'principalLoanBalanceOutstanding',
          'totalPaidForPeriod',
        ]);
      }
      for (const row of expected.periods) {
        const actual = installments[(row.period as number) - 1];
        expectAsserted(actual, row, `period ${row.period}`, rowFields);
      }
      const totals = expected.totals;
      if (totals) {
        const asserted: [string, string][] = [
          ['Principal due', 'totalPrincipalExpected'],
          ['Interest', 'totalInterestCharged'],
          ['Fees', 'totalFeeChargesCharged'],
          ['Penalties', 'totalPenaltyChargesCharged'],
          ['Due', 'totalRepaymentExpected'],
          ['Outstanding', 'totalRepaymentExpected'],
        ];
        for (const [source, field] of asserted) {
          if (totals[source] === undefined) continue;
          expect(new Decimal(res.body[field]).eq(totals[source] as string), `${source} → ${field}`).toBe(
            true,
          );
        }
        for (const unpaid of ['Paid', 'In advance', 'Late']) {
          if (totals[unpaid] !== undefined) expect(new Decimal(totals[unpaid] as string).isZero()).toBe(true);
        }
      }
      // the products are aprEnabled: the preview carries the disclosure approval would freeze
      expect(res.body.aprDisclosure).toMatchObject({
        currency: vectorCase.inputs.currency.code,
        annualPercentageRate: expect.stringMatching(/^\d+\.\d{2}$/),
      });
      expect(res.body.aprDisclosure).not.toHaveProperty('finalizedAt');
    },
  );
});

// ---- preview ---------------------------------------------------------------------------------------------------

describe('POST /v1/loans?command=calculateLoanSchedule', () => {
  it('answers the schedule shape and stores nothing', async () => {
    const before = await countRows(ctx, cred.tenant, loans);
    const res = await call(ctx, cred, 'POST', '/v1/loans?command=calculateLoanSchedule', loanBody());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'currency',
        'loanTermInDays',
        'totalPrincipalExpected',
        'totalInterestCharged',
        'totalFeeChargesCharged',
        'totalPenaltyChargesCharged',
        'totalRepaymentExpected',
        'totalPaidInAdvance',
        'totalPaidLate',
        'totalOutstanding',
        'periods',
        'aprDisclosure',
      ].sort(),
    );
    // Fineract's preview prints what is paid of each installment, in advance and late, as 0 (LoanDownPayment.feature)
    expect(res.body).toMatchObject({ totalPaidInAdvance: '0.00', totalPaidLate: '0.00' });
    expect(res.body.totalOutstanding).toBe(res.body.totalRepaymentExpected);
    for (const period of (res.body.periods as Record<string, unknown>[]).slice(1)) {
      expect(period).toMatchObject({
        totalPaidForPeriod: '0.00',
        totalPaidInAdvanceForPeriod: '0.00',
        totalPaidLateForPeriod: '0.00',
        totalOutstandingForPeriod: period.totalDueForPeriod,
      });
    }
    expect(res.body).toMatchObject({
      currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
      loanTermInDays: 365,
      totalPrincipalExpected: '5000.00',
      totalFeeChargesCharged: '0.00',
    });
    expect(res.body.periods[0]).toEqual({
      dueDate: '2025-03-15',
      principalDisbursed: '5000.00',
      feeChargesDue: '0.00',
      totalDueForPeriod: '0.00',
      totalPaidForPeriod: '0.00',
      totalOutstandingForPeriod: '0.00',
      principalLoanBalanceOutstanding: '5000.00',
    });
    expect(res.body.periods[12]).toMatchObject({ period: 12, dueDate: '2026-03-15' });
    expect(res.body.aprDisclosure).toMatchObject({
      annualPercentageRate: '12.00',
      amountFinanced: '5000.00',
      unitPeriod: 'MONTH',
    });
    expect(await countRows(ctx, cred.tenant, loans)).toBe(before);
  });

  it('says why approval would fail when the disclosure cannot be produced', async () => {
    const fee = await createCharge(cred, { name: 'Whole-loan fee', amount: '5000' });
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/loans?command=calculateLoanSchedule',
      loanBody({ charges: [{ chargeId: fee }] }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.aprDisclosure).toBeNull();
    expect(res.body.aprDisclosureUnavailable).toMatchObject({
      code: 'error.msg.loan.apr.disclosure.unavailable',
      reason: 'AMOUNT_FINANCED_NOT_POSITIVE',
    });
  });

  it('answers 400 naming command for another command', async () => {
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/loans?command=submit', loanBody()),
      400,
      'validation.msg.validation.errors.exist',
      ['command'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/loans?command=calculateLoanSchedule&x=1', loanBody()),
      400,
      'validation.msg.validation.errors.exist',
      ['x'],
    );
  });

  it('needs lending:read and CALCULATE_LOANSCHEDULE, not the creation’s grant', async () => {
    const reader = await credentialFor(ctx, cred.tenant, {
      scopes: ['lending:read'],
      permissions: ['CALCULATE_LOANSCHEDULE'],
    });
    const preview = await call(ctx, reader, 'POST', '/v1/loans?command=calculateLoanSchedule', loanBody());
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expectShapeA(await call(ctx, reader, 'POST', '/v1/loans', loanBody()), 403, 'error.msg.not.authorized');
    const creator = await credentialFor(ctx, cred.tenant, { ...lendingScopes, permissions: ['CREATE_LOAN'] });
    expectShapeA(
      await call(ctx, creator, 'POST', '/v1/loans?command=calculateLoanSchedule', loanBody()),
      403,
      'error.msg.not.authorized',
    );
  });
});

// ---- creation --------------------------------------------------------------------------------------------------

describe('POST /v1/loans', () => {
  it('submits a loan → 201, readable with its terms, and replays its Idempotency-Key', async () => {
    const key = newKey();
    const body = loanBody({ externalId: `app-${key}` });
    const res = await call(ctx, cred, 'POST', '/v1/loans', body, { 'idempotency-key': key });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      loanId: expect.any(Number),
      resourceId: res.body.loanId,
      clientId: borrowerId,
      accountNo: String(res.body.loanId).padStart(9, '0'),
      status: {
        id: 100,
        code: 'loanStatusType.submitted.and.pending.approval',
        value: 'Submitted and pending approval',
      },
    });
    const replay = await call(ctx, cred, 'POST', '/v1/loans', body, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(res.body);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(await countRows(ctx, cred.tenant, loans, eq(loans.externalId, `app-${key}`))).toBe(1);

    const read = await call(ctx, cred, 'GET', `/v1/loans/${res.body.loanId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: res.body.loanId,
      accountNo: res.body.accountNo,
      clientId: borrowerId,
      productId,
      loanType: 'individual',
      status: { code: 'loanStatusType.submitted.and.pending.approval' },
      currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
      principal: '5000.00',
      approvedPrincipal: null,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      terms: {
        loanTermFrequency: 12,
        loanTermFrequencyType: 2,
        numberOfRepayments: 12,
        repaymentEvery: 1,
        repaymentFrequencyType: 2,
        interestRatePerPeriod: 12,
        interestRateFrequencyType: 3,
        charges: [],
      },
      timeline: {
        submittedOnDate: '2025-03-10',
        expectedDisbursementDate: '2025-03-15',
        approvedOnDate: null,
        actualDisbursementDate: null,
      },
      externalId: `app-${key}`,
      aprDisclosure: null,
      parties: [],
    });
    expect(read.body).not.toHaveProperty('repaymentSchedule');
    expect(read.body).not.toHaveProperty('transactions');
  });

  it('reads Fineract’s "dd MMMM yyyy" dates with locale en', async () => {
    const created = await createLoan(cred, {
      dateFormat: 'dd MMMM yyyy',
      submittedOnDate: '10 March 2025',
      expectedDisbursementDate: '15 March 2025',
    });
    const read = await call(ctx, cred, 'GET', `/v1/loans/${created.loanId}`);
    expect(read.body.timeline).toMatchObject({
      submittedOnDate: '2025-03-10',
      expectedDisbursementDate: '2025-03-15',
    });
  });

  it.each([
    ['a principal above the product maximum', { principal: 20000.01 }, ['principal']],
    ['a principal with three decimals', { principal: '5000.001' }, ['principal']],
    [
      'repayments below the product minimum',
      { numberOfRepayments: 5, loanTermFrequency: 5 },
      ['numberOfRepayments'],
    ],
    ['a rate above the product maximum', { interestRatePerPeriod: 30.5 }, ['interestRatePerPeriod']],
    ['a term type other than the repayment type', { loanTermFrequencyType: 1 }, ['loanTermFrequencyType']],
    ['a term other than repayments × every', { loanTermFrequency: 13 }, ['loanTermFrequency']],
    [
      'another strategy',
      { transactionProcessingStrategyCode: 'mifos-standard-strategy' },
      ['transactionProcessingStrategyCode'],
    ],
    [
      'a disbursement before the submission',
      { expectedDisbursementDate: '2025-03-01' },
      ['expectedDisbursementDate'],
    ],
    ['a date in another format', { submittedOnDate: '10.03.2025' }, ['submittedOnDate']],
    ['an unknown charge', { charges: [{ chargeId: 987654321 }] }, ['charges[0].chargeId']],
    ['an unknown client', { clientId: 987654321 }, ['clientId']],
    ['an unknown product', { productId: 987654321 }, ['productId']],
    ['a negative principal', { principal: -5 }, ['principal']],
    ['an unknown field', { loanOfficerId: 3 }, ['loanOfficerId']],
    ['an unknown code', { amortizationType: 2 }, ['amortizationType']],
    ['a group loan', { loanType: 'group' }, ['loanType']],
    ['an externalId that looks like a card number', { externalId: '4111111111111111' }, ['externalId']],
  ])('rejects %s with 400 naming the field', async (_label, overrides, names) => {
    const res = await call(ctx, cred, 'POST', '/v1/loans', loanBody(overrides));
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', names);
  });

  it('names the charge amount that has too many digits, and never echoes a sensitive externalId or note', async () => {
    const fee = await createCharge(cred);
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/loans',
      loanBody({ charges: [{ chargeId: fee, amount: '12.345' }] }),
    );
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['charges[0].amount']);
    for (const path of ['/v1/loans', '/v1/loans?command=calculateLoanSchedule']) {
      const sensitive = await call(ctx, cred, 'POST', path, loanBody({ externalId: '4111111111111111' }));
      expectShapeA(sensitive, 400, 'validation.msg.validation.errors.exist', ['externalId']);
      expect(JSON.stringify(sensitive.body)).not.toContain('4111111111111111');
    }
    const { loanId } = await createLoan();
    const note = await approve(loanId, { note: 'SSN 123-45-6789 verified' });
    expectShapeA(note, 400, 'validation.msg.validation.errors.exist', ['note']);
    expect(JSON.stringify(note.body)).not.toContain('6789');
  });

  it('answers 409 for another loan’s externalId', async () => {
    await createLoan(cred, { externalId: 'taken-ext' });
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/loans', loanBody({ externalId: 'taken-ext' })),
      409,
      'error.msg.loan.external.id.conflict',
    );
  });

  it('refuses a client of another tenant as unknown', async () => {
    const foreignClient = await createCustomer(other);
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/loans', loanBody({ clientId: foreignClient })),
      400,
      'validation.msg.validation.errors.exist',
      ['clientId'],
    );
  });

  it('needs lending:write and CREATE_LOAN', async () => {
    const reader = await credentialFor(ctx, cred.tenant, { scopes: ['lending:read'] });
    expectShapeA(await call(ctx, reader, 'POST', '/v1/loans', loanBody()), 403, 'error.msg.not.authorized');
    const noPermission = await credentialFor(ctx, cred.tenant, {
      ...lendingScopes,
      permissions: ['READ_LOAN'],
    });
    expectShapeA(
      await call(ctx, noPermission, 'POST', '/v1/loans', loanBody()),
      403,
      'error.msg.not.authorized',
    );
  });
});

// ---- approval --------------------------------------------------------------------------------------------------

describe('POST /v1/loans/{loanId}?command=approve', () => {
  it('approves → 200, freezes the disclosure; a second approval is 409', async () => {
    const { loanId } = await createLoan();
    const res = await approve(loanId, { note: 'Checked income' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      loanId,
      resourceId: loanId,
      clientId: borrowerId,
      changes: {
        status: { code: 'loanStatusType.approved', value: 'Approved' },
        approvedOnDate: '2025-03-12',
        approvedLoanAmount: '5000.00',
        expectedDisbursementDate: '2025-03-15',
      },
    });
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}`);
    expect(read.body).toMatchObject({
      status: { id: 200, code: 'loanStatusType.approved', value: 'Approved' },
      approvedPrincipal: '5000.00',
      timeline: { approvedOnDate: '2025-03-12' },
      aprDisclosure: {
        annualPercentageRate: '12.00',
        amountFinanced: '5000.00',
        finalizedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
    });
    expectShapeA(await approve(loanId), 409, 'error.msg.loan.invalid.state.transition');
  });

  it('regenerates the schedule with a smaller approved amount', async () => {
    const { loanId } = await createLoan();
    const res = await approve(loanId, { approvedLoanAmount: 4000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.changes.approvedLoanAmount).toBe('4000.00');
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
    expect(read.body.principal).toBe('5000.00');
    expect(read.body.approvedPrincipal).toBe('4000.00');
    expect(read.body.repaymentSchedule.totalPrincipalExpected).toBe('4000.00');
    expect(read.body.aprDisclosure.amountFinanced).toBe('4000.00');
  });

  it('fails with 409 and keeps the loan submitted when the product is not CONFIGURED', async () => {
    const unconfigured = await createProduct(cred, { lmsConfig: { productClass: 'COVERED_CONSUMER' } });
    const preview = await call(
      ctx,
      cred,
      'POST',
      '/v1/loans?command=calculateLoanSchedule',
      loanBody({ productId: unconfigured }),
    );
    expect(preview.body).toMatchObject({
      aprDisclosure: null,
      aprDisclosureUnavailable: { reason: 'PRODUCT_NOT_CONFIGURED' },
    });
    const { loanId } = await createLoan(cred, { productId: unconfigured });
    const res = await approve(loanId);
    const body = expectShapeA(res, 409, 'error.msg.loan.apr.disclosure.unavailable');
    expect(body.developerMessage).toContain('PRODUCT_NOT_CONFIGURED');
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}`);
    expect(read.body).toMatchObject({
      status: { code: 'loanStatusType.submitted.and.pending.approval' },
      approvedPrincipal: null,
      aprDisclosure: null,
    });
  });

  it('fails with 409 when the disclosure cannot be produced (prepaid fees ≥ principal)', async () => {
    const fee = await createCharge(cred, { name: 'Whole-loan fee', amount: '5000' });
    const { loanId } = await createLoan(cred, { charges: [{ chargeId: fee }] });
    const body = expectShapeA(await approve(loanId), 409, 'error.msg.loan.apr.disclosure.unavailable');
    expect(body.developerMessage).toContain('AMOUNT_FINANCED_NOT_POSITIVE');
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}`);
    expect(read.body.status.code).toBe('loanStatusType.submitted.and.pending.approval');
  });

  it('approves a loan of a product without APR, without a disclosure', async () => {
    const commercial = await createProduct(cred, { lmsConfig: { productClass: 'COMMERCIAL' } });
    const { loanId } = await createLoan(cred, { productId: commercial });
    expect((await approve(loanId)).status).toBe(200);
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}`);
    expect(read.body).toMatchObject({ status: { code: 'loanStatusType.approved' }, aprDisclosure: null });
  });

  it.each([
    ['more than the principal', { approvedLoanAmount: '5000.01' }, ['approvedLoanAmount']],
    ['zero', { approvedLoanAmount: 0 }, ['approvedLoanAmount']],
    ['before the submission', { approvedOnDate: '2025-03-09' }, ['approvedOnDate']],
    ['an unknown field', { approvedBy: 'me' }, ['approvedBy']],
  ])('rejects an approval %s with 400 naming the field', async (_label, body, names) => {
    const { loanId } = await createLoan();
    expectShapeA(await approve(loanId, body), 400, 'validation.msg.validation.errors.exist', names);
  });

  it('needs command=approve, lending:write and APPROVE_LOAN; another tenant’s loan is 404', async () => {
    const { loanId } = await createLoan();
    const body = { approvedOnDate: '2025-03-12', approvedLoanAmount: '5000' };
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${loanId}`, body),
      400,
      'validation.msg.validation.errors.exist',
      ['command'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=reject`, body),
      400,
      'validation.msg.validation.errors.exist',
      ['command'],
    );
    const creator = await credentialFor(ctx, cred.tenant, { ...lendingScopes, permissions: ['CREATE_LOAN'] });
    expectShapeA(await approve(loanId, {}, creator), 403, 'error.msg.not.authorized');
    expectShapeA(await approve(loanId, {}, other), 404, 'error.msg.resource.not.found');
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}`);
    expect(read.body.status.code).toBe('loanStatusType.submitted.and.pending.approval');
  });
});

// ---- reads -----------------------------------------------------------------------------------------------------

describe('GET /v1/loans', () => {
  let lister: Credential;
  let ids: number[];

  beforeAll(async () => {
    lister = await credentialFor(ctx, uniqueTenant('loans-list'), lendingScopes);
    const client = await createCustomer(lister);
    const listProduct = await createProduct(lister);
    ids = [];
    for (const submittedOnDate of ['2025-02-03', '2025-01-02', '2025-03-04']) {
      const created = await createLoan(lister, {
        clientId: client,
        productId: listProduct,
        submittedOnDate,
        expectedDisbursementDate: '2025-03-15',
      });
      ids.push(created.loanId);
    }
    const approved = await approve(ids[2] as number, {}, lister);
    expect(approved.status).toBe(200);
  });

  it('pages the tenant’s loans with a total: {totalFilteredRecords, pageItems}', async () => {
    const res = await call(ctx, lister, 'GET', '/v1/loans?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.totalFilteredRecords).toBe(3);
    expect(res.body.pageItems.map((i: Json) => i.id)).toEqual(ids.slice(0, 2));
    expect(Object.keys(res.body.pageItems[0]).sort()).toEqual(['accountNo', 'clientId', 'id', 'status']);
    expect(res.body.pageItems[0].status).toEqual({
      id: 100,
      code: 'loanStatusType.submitted.and.pending.approval',
      value: 'Submitted and pending approval',
    });
    const rest = await call(ctx, lister, 'GET', '/v1/loans?limit=2&offset=2');
    expect(rest.body).toEqual({
      totalFilteredRecords: 3,
      pageItems: [
        {
          id: ids[2],
          accountNo: String(ids[2]).padStart(9, '0'),
          clientId: expect.any(Number),
          status: { id: 200, code: 'loanStatusType.approved', value: 'Approved' },
        },
      ],
    });
    const defaults = await call(ctx, lister, 'GET', '/v1/loans');
    expect(defaults.body.pageItems.map((i: Json) => i.id)).toEqual(ids);
  });

  it('orders by id, accountNo or submittedOnDate, ascending or descending', async () => {
    const order = async (query: string) =>
      (await call(ctx, lister, 'GET', `/v1/loans?${query}`)).body.pageItems.map((i: Json) => i.id);
    expect(await order('orderBy=id&sortOrder=DESC')).toEqual([...ids].reverse());
    expect(await order('orderBy=accountNo&sortOrder=desc')).toEqual([...ids].reverse());
    expect(await order('orderBy=submittedOnDate&sortOrder=ASC')).toEqual([ids[1], ids[0], ids[2]]);
    expect(await order('orderBy=submittedOnDate&sortOrder=DESC')).toEqual([ids[2], ids[0], ids[1]]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['offset=-1', 'offset'],
    ['orderBy=principal', 'orderBy'],
    ['sortOrder=UP', 'sortOrder'],
    ['status=active', 'status'],
  ])('rejects %s with 400 naming %s', async (query, name) => {
    expectShapeA(
      await call(ctx, lister, 'GET', `/v1/loans?${query}`),
      400,
      'validation.msg.validation.errors.exist',
      [name],
    );
  });

  it('shows nothing of another tenant and needs READ_LOAN', async () => {
    const res = await call(ctx, other, 'GET', '/v1/loans?limit=200');
    expect(res.body.pageItems.map((i: Json) => i.id)).not.toContain(ids[0]);
    const noPermission = await credentialFor(ctx, lister.tenant, {
      ...lendingScopes,
      permissions: ['READ_LOANPRODUCT'],
    });
    expectShapeA(await call(ctx, noPermission, 'GET', '/v1/loans'), 403, 'error.msg.not.authorized');
  });
});

describe('GET /v1/loans/{loanId}?associations=…', () => {
  it('shows the authoritative schedule with paid and outstanding amounts, and the posted transactions', async () => {
    const fee = await createCharge(cred, { name: 'Installment fee', chargeTimeType: 8, amount: '2.50' });
    const { loanId } = await createLoan(cred, { charges: [{ chargeId: fee }] });
    expect((await approve(loanId)).status).toBe(200);
    const before = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
    const first = before.body.repaymentSchedule.periods[1];

    // What the ledger writes for a disbursement and a first payment that covers installment 1 and part of 2.
    await withTenantTransaction(ctx.db, cred.tenant, async (tx) => {
      await tx.insert(fundings).values({
        tenantId: cred.tenant,
        loanId,
        amount: '5000',
        currencyCode: 'USD',
        fundingType: 'DISBURSEMENT',
        recipientType: 'BORROWER',
        recipientRef: 'acct-ref-1',
        externalRecordRef: `fund-${loanId}`,
        reason: 'test',
        fundingDate: '2025-03-15',
        status: 'RECORDED_EXTERNAL',
        contentDigest: 'x',
      });
      await tx.insert(payments).values([
        {
          tenantId: cred.tenant,
          loanId,
          amount: '500',
          currencyCode: 'USD',
          effectiveDate: '2025-04-15',
          status: 'POSTED',
          source: 'IMPORT',
          externalRecordRef: `pay-${loanId}`,
          allocation: {
            principal: '447.80',
            interest: '50.00',
            fee: '2.20',
            penalty: '0.00',
            overpayment: '0.00',
            lines: [],
          },
        },
        {
          tenantId: cred.tenant,
          loanId,
          amount: '75',
          currencyCode: 'USD',
          effectiveDate: '2025-03-20',
          status: 'FAILED',
          source: 'IMPORT',
          externalRecordRef: `pay-failed-${loanId}`,
        },
      ]);
      await tx
        .update(loanInstallments)
        .set({
          principalPaid: first.principalDue,
          interestPaid: first.interestDue,
          feeChargesPaid: first.feeChargesDue,
          obligationsMetOnDate: '2025-04-15',
        })
        .where(and(eq(loanInstallments.loanId, loanId), eq(loanInstallments.installmentNumber, 1)));
      await tx
        .update(loans)
        .set({ status: 'ACTIVE', disbursedOnDate: '2025-03-15' })
        .where(eq(loans.id, loanId));
    });

    const res = await call(
      ctx,
      cred,
      'GET',
      `/v1/loans/${loanId}?associations=repaymentSchedule,transactions`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toEqual({ id: 300, code: 'loanStatusType.active', value: 'Active' });
    const schedule = res.body.repaymentSchedule;
    expect(schedule.periods).toHaveLength(13);
    expect(schedule.periods[0]).toMatchObject({ dueDate: '2025-03-15', principalDisbursed: '5000.00' });
    expect(schedule.periods[0]).not.toHaveProperty('period');
    const paid = schedule.periods[1];
    expect(paid).toMatchObject({
      period: 1,
      principalPaid: first.principalDue,
      interestPaid: first.interestDue,
      feeChargesPaid: '2.50',
      penaltyChargesPaid: '0.00',
      totalPaidForPeriod: first.totalDueForPeriod,
      totalOutstandingForPeriod: '0.00',
      complete: true,
      obligationsMetOnDate: '2025-04-15',
    });
    expect(schedule.periods[2]).toMatchObject({
      period: 2,
      principalPaid: '0.00',
      totalPaidForPeriod: '0.00',
      complete: false,
      obligationsMetOnDate: null,
    });
    expect(schedule.periods[2].totalOutstandingForPeriod).toBe(schedule.periods[2].totalDueForPeriod);
    expect(schedule.totalRepayment).toBe(first.totalDueForPeriod);
    expect(
      new Decimal(schedule.totalOutstanding).eq(
        new Decimal(schedule.totalRepaymentExpected).minus(first.totalDueForPeriod),
      ),
    ).toBe(true);
    expect(schedule.totalFeeChargesCharged).toBe('30.00');

    expect(res.body.transactions).toEqual([
      {
        id: expect.any(Number),
        transactionRef: expect.stringMatching(/^funding\/\d+$/),
        type: { id: 1, code: 'loanTransactionType.disbursement', value: 'Disbursement' },
        date: '2025-03-15',
        currency: 'USD',
        amount: '5000.00',
        principalPortion: '0.00',
        interestPortion: '0.00',
        feeChargesPortion: '0.00',
        penaltyChargesPortion: '0.00',
        overpaymentPortion: '0.00',
        outstandingLoanBalance: '5000.00',
        externalId: `fund-${loanId}`,
      },
      {
        id: expect.any(Number),
        transactionRef: expect.stringMatching(/^payment\/\d+$/),
        type: { id: 2, code: 'loanTransactionType.repayment', value: 'Repayment' },
        date: '2025-04-15',
        currency: 'USD',
        amount: '500.00',
        principalPortion: '447.80',
        interestPortion: '50.00',
        feeChargesPortion: '2.20',
        penaltyChargesPortion: '0.00',
        overpaymentPortion: '0.00',
        outstandingLoanBalance: '4552.20',
        externalId: `pay-${loanId}`,
      },
    ]);

    const only = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=transactions`);
    expect(only.body).not.toHaveProperty('repaymentSchedule');
    expect(only.body.transactions).toHaveLength(2);
    const all = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=all`);
    expect(all.body.repaymentSchedule.periods).toHaveLength(13);
  });

  it('reads a loan whose terms were written around the operations (fixtures), with null terms', async () => {
    const loanId = await withTenantTransaction(ctx.db, cred.tenant, async (tx) => {
      const [row] = await tx
        .insert(loans)
        .values({
          tenantId: cred.tenant,
          accountNo: `FIX-${newKey()}`,
          clientId: borrowerId,
          productId,
          loanType: 'individual',
          status: 'APPROVED',
          currencyCode: 'JPY',
          principal: '100000',
          approvedPrincipal: '100000',
          terms: { numberOfRepayments: 1, interestRatePerPeriod: '9.50000000' },
          transactionProcessingStrategyCode: 'mifos-standard-strategy',
          submittedOnDate: '2025-01-01',
          expectedDisbursementDate: '2025-01-02',
        })
        .returning({ id: loans.id });
      await tx.insert(loanInstallments).values({
        tenantId: cred.tenant,
        loanId: row!.id,
        installmentNumber: 1,
        fromDate: '2025-01-02',
        dueDate: '2025-02-02',
        principalDue: '100000',
        interestDue: '790',
        feeChargesDue: '0',
        penaltyChargesDue: '0',
      });
      return row!.id;
    });
    const res = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=all`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      currency: { code: 'JPY', digitsAfterDecimal: 0, inMultiplesOf: 0 },
      principal: '100000',
      terms: { numberOfRepayments: 1, interestRatePerPeriod: 9.5, repaymentEvery: null, charges: [] },
      transactions: [],
    });
    expect(res.body.repaymentSchedule).toMatchObject({
      loanTermInDays: 31,
      totalRepaymentExpected: '100790',
      periods: [{ feeChargesDue: '0' }, { period: 1, totalDueForPeriod: '100790', complete: false }],
    });
  });

  it('answers 400 for an unknown association, 404 for another tenant’s or an unknown loan', async () => {
    const { loanId } = await createLoan();
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule,charges`),
      400,
      'validation.msg.validation.errors.exist',
      ['associations'],
    );
    expectShapeA(await call(ctx, other, 'GET', `/v1/loans/${loanId}`), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, cred, 'GET', '/v1/loans/987654321'), 404, 'error.msg.resource.not.found');
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/loans/abc'),
      400,
      'validation.msg.validation.errors.exist',
      ['loanId'],
    );
  });
});

// ---- parties ---------------------------------------------------------------------------------------------------

describe('POST /v1/loans/{loanId}/parties', () => {
  it('adds a party → 201, the same again → 200 with the existing one; shown on the loan', async () => {
    const { loanId } = await createLoan();
    const body = { customerId: cosignerId, role: 'CO_BORROWER' };
    const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/parties`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ resourceId: expect.any(Number), partyId: res.body.resourceId });
    const again = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/parties`, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}`);
    expect(read.body.parties).toEqual([
      { partyId: res.body.partyId, customerId: cosignerId, role: 'CO_BORROWER' },
    ]);
  });

  it.each([
    ['the borrower', () => ({ customerId: borrowerId, role: 'AUTHORIZED_PARTY' }), ['customerId']],
    ['an unknown customer', () => ({ customerId: 987654321, role: 'GUARANTOR' }), ['customerId']],
    ['an unknown role', () => ({ customerId: cosignerId, role: 'SPOUSE' }), ['role']],
  ])('refuses %s with 400 naming the field', async (_label, body, names) => {
    const { loanId } = await createLoan();
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${loanId}/parties`, body()),
      400,
      'validation.msg.validation.errors.exist',
      names,
    );
  });

  it('answers 404 for another tenant’s loan and needs CREATE_LOANPARTY', async () => {
    const { loanId } = await createLoan();
    const foreignCustomer = await createCustomer(other);
    expectShapeA(
      await call(ctx, other, 'POST', `/v1/loans/${loanId}/parties`, {
        customerId: foreignCustomer,
        role: 'GUARANTOR',
      }),
      404,
      'error.msg.resource.not.found',
    );
    const reader = await credentialFor(ctx, cred.tenant, { ...lendingScopes, permissions: ['READ_LOAN'] });
    expectShapeA(
      await call(ctx, reader, 'POST', `/v1/loans/${loanId}/parties`, {
        customerId: cosignerId,
        role: 'GUARANTOR',
      }),
      403,
      'error.msg.not.authorized',
    );
  });
});
