/**
 * Down payments through the public API on the real database (docs/lending.md "Down payments"; Apache Fineract's
 * `enableDownPayment`, `disbursedAmountPercentageForDownPayment`, `enableAutoRepaymentForDownPayment`):
 *
 * - the product fields: stored and shown by the product reads; their rules as Shape A 400s naming the field
 *   (Fineract `LoanProductDataValidator`);
 * - the preview (`?command=calculateLoanSchedule`) and the loan's schedule show the down-payment period;
 * - Fineract's published scenarios (test/vectors/fineract-down-payment.json, those with repayments): product, loan,
 *   approval, funding (with the automatic down payment, or a repayment recorded by hand), the repayments; then the
 *   schedule's paid, in-advance, late and outstanding amounts and the transactions table to the cent, and the
 *   loan's journal balanced (trial balance zero) after each money event;
 * - pay in 4 (USD, 25 % at checkout, three installments two weeks apart): the funding records the DOWN_PAYMENT in
 *   its transaction (`<ref>:down-payment`, value-dated to the funding date, `payment.posted` with
 *   `transactionType`), a replayed funding records nothing more, and three payments close the loan.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { parseDecimalToMinor } from '../../domain/money';
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

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('downpay'), { scopes: ['lending:read', 'lending:write'] });
});
afterAll(async () => ctx?.close());

const ref = (prefix: string) => `${prefix}-${randomBytes(9).toString('base64url')}`;
/** The scenarios' loans name this strategy ("Payment strategy" DUE_PENALTY_INTEREST_PRINCIPAL_FEE_IN_ADVANCE_…). */
const strategy = 'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy';
/**
 * The LP2 products' own strategy (Fineract's LoanProductsRequestFactory: PENALTIES_FEES_INTEREST_PRINCIPAL_ORDER): the
 * loans choose another one, as Fineract's LoanApplicationValidator allows on a cumulative product.
 */
const productStrategy = 'mifos-standard-strategy';

interface VectorCase {
  id: string;
  source: string;
  product: {
    disbursedAmountPercentageForDownPayment: string;
    enableAutoRepaymentForDownPayment: boolean;
    installmentAmountInMultiplesOf: number | null;
  };
  loan: {
    principal: string;
    interestRatePerPeriod: string;
    interestType: number;
    amortizationType: number;
    repaymentEvery: number;
    repaymentFrequencyType: number;
    numberOfRepayments: number;
    loanTermFrequency: number;
    disbursementDate: string;
    penalty?: { amount: string; dueDate: string };
  };
  schedule: Record<string, unknown>[];
  manualDownPayment: { date: string; amount: string } | null;
  payments: { date: string; amount: string }[];
  after: {
    installments: { period: number; paid: string; inAdvance: string; late: string; outstanding: string }[];
    transactions: {
      date: string;
      type: string;
      amount: string;
      principal: string;
      interest: string;
      fees: string;
      penalties: string;
      loanBalance: string;
    }[];
  } | null;
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/fineract-down-payment.json', import.meta.url), 'utf8'),
) as { cases: VectorCase[] };

/** `POST /v1/loanproducts` body of a commercial product (no APR, no statements) with `overrides`. */
function productBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `Down payment ${randomBytes(3).toString('hex')}`,
    shortName: `D${randomBytes(2).toString('hex').slice(0, 3)}`,
    currencyCode: 'EUR',
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    principal: '1000',
    numberOfRepayments: 3,
    interestRatePerPeriod: 0,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRateFrequencyType: 3,
    interestType: 1,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    daysInYearType: 1,
    daysInMonthType: 1,
    transactionProcessingStrategyCode: productStrategy,
    lmsConfig: { productClass: 'COMMERCIAL', aprEnabled: false, statementEnabled: false },
    enableDownPayment: true,
    disbursedAmountPercentageForDownPayment: '25',
    enableAutoRepaymentForDownPayment: true,
    installmentAmountInMultiplesOf: 1,
    ...overrides,
  };
}

async function createProduct(overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/loanproducts', productBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.productId as number;
}

async function createCustomer(): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'Ada', lastName: 'Byron' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.customerId as number;
}

function loanBody(clientId: number, productId: number, c: VectorCase['loan'], charges?: unknown[]) {
  return {
    clientId,
    productId,
    loanType: 'individual',
    principal: c.principal,
    loanTermFrequency: c.loanTermFrequency,
    loanTermFrequencyType: c.repaymentFrequencyType,
    numberOfRepayments: c.numberOfRepayments,
    repaymentEvery: c.repaymentEvery,
    repaymentFrequencyType: c.repaymentFrequencyType,
    interestRatePerPeriod: c.interestRatePerPeriod,
    interestType: c.interestType,
    interestCalculationPeriodType: 1,
    amortizationType: c.amortizationType,
    transactionProcessingStrategyCode: strategy,
    expectedDisbursementDate: c.disbursementDate,
    submittedOnDate: c.disbursementDate,
    ...(charges ? { charges } : {}),
  };
}

async function approvedLoan(body: ReturnType<typeof loanBody>, approvedOnDate: string): Promise<number> {
  const created = await call(ctx, cred, 'POST', '/v1/loans', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const loanId = created.body.loanId as number;
  const approval = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, {
    approvedOnDate,
    approvedLoanAmount: body.principal,
  });
  expect(approval.status, JSON.stringify(approval.body)).toBe(200);
  return loanId;
}

const fundingBody = (
  amount: string,
  currency: string,
  fundingDate: string,
  externalRecordRef = ref('fund'),
) => ({
  amount,
  currency,
  fundingType: 'DISBURSEMENT',
  recipientType: 'BORROWER',
  recipientRef: 'borrower-primary',
  externalRecordRef,
  reason: 'Purchase financed at checkout',
  fundingDate,
});

async function pay(loanId: number, amount: string, currency: string, effectiveDate: string) {
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
    amount,
    currency,
    effectiveDate,
    externalRecordRef: ref('pay'),
    source: 'IMPORT',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

/** Σ debit − Σ credit of the loan's journal lines, in millionths (the `numeric(19,6)` scale). */
async function trialBalanceOf(loanId: number): Promise<bigint> {
  const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ balance: string }>(
      sql`select coalesce(sum(debit) - sum(credit), 0)::text as balance from journal_entries where loan_id = ${loanId}`,
    ),
  );
  return parseDecimalToMinor(row!.balance, 6);
}

async function loanWith(loanId: number) {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=all`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** One of `transactions` of the loan read, as the tests read it. */
interface TransactionJson {
  id: number;
  date: string;
  type: { id: number; code: string; value: string };
  amount: string;
  principalPortion: string | null;
  interestPortion: string | null;
  feeChargesPortion: string | null;
  penaltyChargesPortion: string | null;
  outstandingLoanBalance: string | null;
  externalId: string | null;
}

const scheduleColumns = (p: Record<string, unknown>) => ({
  period: p.period,
  daysInPeriod: p.daysInPeriod,
  dueDate: p.dueDate,
  principalLoanBalanceOutstanding: p.principalLoanBalanceOutstanding,
  principalDue: p.principalDue,
  interestDue: p.interestDue,
  feeChargesDue: p.feeChargesDue,
  penaltyChargesDue: p.penaltyChargesDue,
  totalDueForPeriod: p.totalDueForPeriod,
  downPaymentPeriod: p.downPaymentPeriod,
});

/**
 * Fineract's default advanced payment allocation (past due, due, in advance × penalty, fee, principal, interest), as a
 * product's `paymentAllocation` with `futureInstallmentAllocationRule`.
 */
const fineractDefaultAllocation = (futureInstallmentAllocationRule: string) => [
  {
    transactionType: 'DEFAULT',
    paymentAllocationOrder: (['PAST_DUE', 'DUE', 'IN_ADVANCE'] as const).flatMap((dueType, group) =>
      (['PENALTY', 'FEE', 'PRINCIPAL', 'INTEREST'] as const).map((component, index) => ({
        paymentAllocationRule: `${dueType}_${component}`,
        order: group * 4 + index + 1,
      })),
    ),
    futureInstallmentAllocationRule,
  },
];

/**
 * A loan of `principal` (decimal string) on advanced product `productId`, three monthly installments at 0 %, approved
 * and funded in full on 2024-01-01 (with the trial balance zero after the funding); returns its id.
 */
async function fundedAdvancedLoan(productId: number, principal: string, currency: string): Promise<number> {
  const clientId = await createCustomer();
  const loanId = await approvedLoan(
    {
      ...loanBody(clientId, productId, {
        principal,
        interestRatePerPeriod: '0',
        interestType: 1,
        amortizationType: 1,
        repaymentEvery: 1,
        repaymentFrequencyType: 2,
        numberOfRepayments: 3,
        loanTermFrequency: 3,
        disbursementDate: '2024-01-01',
      }),
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    },
    '2024-01-01',
  );
  const funding = await call(
    ctx,
    cred,
    'POST',
    `/v1/loans/${loanId}/fundings/record-external`,
    fundingBody(principal, currency, '2024-01-01'),
  );
  expect(funding.status, JSON.stringify(funding.body)).toBe(201);
  expect(await trialBalanceOf(loanId)).toBe(0n);
  return loanId;
}

describe('product fields', () => {
  it('stores and shows enableDownPayment, the percentage and the automatic repayment; without them, none', async () => {
    const withDown = await createProduct({ disbursedAmountPercentageForDownPayment: '12.345678' });
    const read = await call(ctx, cred, 'GET', `/v1/loanproducts/${withDown}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toMatchObject({
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: 12.345678,
      enableAutoRepaymentForDownPayment: true,
    });
    const plain = await createProduct({
      enableDownPayment: undefined,
      disbursedAmountPercentageForDownPayment: undefined,
      enableAutoRepaymentForDownPayment: undefined,
    });
    const list = await call(ctx, cred, 'GET', '/v1/loanproducts');
    expect(list.status).toBe(200);
    const listed = (list.body as { id: number }[]).find((p) => p.id === plain);
    expect(listed).toMatchObject({
      enableDownPayment: false,
      disbursedAmountPercentageForDownPayment: null,
      enableAutoRepaymentForDownPayment: false,
    });
  });

  it.each([
    [
      'the percentage missing',
      { disbursedAmountPercentageForDownPayment: undefined },
      'disbursedAmountPercentageForDownPayment',
    ],
    [
      'a percentage without a down payment',
      { enableDownPayment: false, enableAutoRepaymentForDownPayment: undefined },
      'disbursedAmountPercentageForDownPayment',
    ],
    [
      'automatic repayment without a down payment',
      { enableDownPayment: false, disbursedAmountPercentageForDownPayment: undefined },
      'enableAutoRepaymentForDownPayment',
    ],
    [
      'a percentage below 1',
      { disbursedAmountPercentageForDownPayment: '0.5' },
      'disbursedAmountPercentageForDownPayment',
    ],
    [
      'a percentage above 100',
      { disbursedAmountPercentageForDownPayment: 100.000001 },
      'disbursedAmountPercentageForDownPayment',
    ],
    [
      'seven fraction digits',
      { disbursedAmountPercentageForDownPayment: '25.0000001' },
      'disbursedAmountPercentageForDownPayment',
    ],
    [
      'a negative percentage',
      { disbursedAmountPercentageForDownPayment: '-25' },
      'disbursedAmountPercentageForDownPayment',
    ],
    ['enableDownPayment not a boolean', { enableDownPayment: 'yes' }, 'enableDownPayment'],
    [
      'enableAutoRepaymentForDownPayment not a boolean',
      { enableAutoRepaymentForDownPayment: 1 },
      'enableAutoRepaymentForDownPayment',
    ],
  ])('refuses %s: 400 naming the field, nothing stored', async (_label, overrides, field) => {
    const before = await call(ctx, cred, 'GET', '/v1/loanproducts');
    const res = await call(ctx, cred, 'POST', '/v1/loanproducts', productBody(overrides));
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [field]);
    const after = await call(ctx, cred, 'GET', '/v1/loanproducts');
    expect(after.body).toHaveLength((before.body as unknown[]).length);
  });
});

describe('the preview and the loan schedule show the down-payment period', () => {
  it('previews pay in 4 every 2 weeks: 25 % at checkout, then three equal installments', async () => {
    const productId = await createProduct({ repaymentEvery: 2, repaymentFrequencyType: 1 });
    const clientId = await createCustomer();
    const body = loanBody(clientId, productId, {
      principal: '1000.00',
      interestRatePerPeriod: '0',
      interestType: 1,
      amortizationType: 1,
      repaymentEvery: 2,
      repaymentFrequencyType: 1,
      numberOfRepayments: 3,
      loanTermFrequency: 6,
      disbursementDate: '2025-03-03',
    });
    const preview = await call(ctx, cred, 'POST', '/v1/loans?command=calculateLoanSchedule', body);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect((preview.body.periods as Record<string, unknown>[]).slice(1).map(scheduleColumns)).toEqual([
      {
        period: 1,
        daysInPeriod: 0,
        dueDate: '2025-03-03',
        principalLoanBalanceOutstanding: '750.00',
        principalDue: '250.00',
        interestDue: '0.00',
        feeChargesDue: '0.00',
        penaltyChargesDue: '0.00',
        totalDueForPeriod: '250.00',
        downPaymentPeriod: true,
      },
      {
        period: 2,
        daysInPeriod: 14,
        dueDate: '2025-03-17',
        principalLoanBalanceOutstanding: '500.00',
        principalDue: '250.00',
        interestDue: '0.00',
        feeChargesDue: '0.00',
        penaltyChargesDue: '0.00',
        totalDueForPeriod: '250.00',
        downPaymentPeriod: false,
      },
      {
        period: 3,
        daysInPeriod: 14,
        dueDate: '2025-03-31',
        principalLoanBalanceOutstanding: '250.00',
        principalDue: '250.00',
        interestDue: '0.00',
        feeChargesDue: '0.00',
        penaltyChargesDue: '0.00',
        totalDueForPeriod: '250.00',
        downPaymentPeriod: false,
      },
      {
        period: 4,
        daysInPeriod: 14,
        dueDate: '2025-04-14',
        principalLoanBalanceOutstanding: '0.00',
        principalDue: '250.00',
        interestDue: '0.00',
        feeChargesDue: '0.00',
        penaltyChargesDue: '0.00',
        totalDueForPeriod: '250.00',
        downPaymentPeriod: false,
      },
    ]);
    expect(preview.body.totalPrincipalExpected).toBe('1000.00');
  });
});

describe('Fineract scenarios with repayments (test/vectors/fineract-down-payment.json)', () => {
  const replayed = vectors.cases.filter((c) => c.after !== null);
  // each scenario with its penalty in the application, and (as Fineract's scenario adds it) through
  // `POST /v1/loans/{loanId}/charges` after the disbursement: due on the disbursement date, it lands on the first
  // installment after the down payment either way
  const runs = [
    ...replayed.map((c) => [c.id, c, false] as const),
    ...replayed
      .filter((c) => c.loan.penalty)
      .map((c) => [`${c.id} (penalty added to the active loan)`, c, true] as const),
  ];
  it.each(runs)('%s', async (_id, c, penaltyAdded) => {
    let charges: unknown[] | undefined;
    let productCharges: { id: number }[] | undefined;
    if (c.loan.penalty) {
      const charge = await call(ctx, cred, 'POST', '/v1/charges', {
        name: `NSF fee ${randomBytes(3).toString('hex')}`,
        currencyCode: 'EUR',
        amount: c.loan.penalty.amount,
        chargeAppliesTo: 1,
        chargeTimeType: 2,
        chargeCalculationType: 1,
        penalty: true,
      });
      expect(charge.status, JSON.stringify(charge.body)).toBe(201);
      productCharges = [{ id: charge.body.chargeId }];
      charges = [{ chargeId: charge.body.chargeId, dueDate: c.loan.penalty.dueDate }];
    }
    const productId = await createProduct({
      principal: c.loan.principal,
      repaymentEvery: c.loan.repaymentEvery,
      repaymentFrequencyType: c.loan.repaymentFrequencyType,
      interestType: c.loan.interestType,
      disbursedAmountPercentageForDownPayment: c.product.disbursedAmountPercentageForDownPayment,
      enableAutoRepaymentForDownPayment: c.product.enableAutoRepaymentForDownPayment,
      installmentAmountInMultiplesOf: c.product.installmentAmountInMultiplesOf,
      ...(productCharges ? { charges: productCharges } : {}),
    });
    const clientId = await createCustomer();
    const loanId = await approvedLoan(
      loanBody(clientId, productId, c.loan, penaltyAdded ? undefined : charges),
      c.loan.disbursementDate,
    );
    if (!penaltyAdded) {
      const submitted = await loanWith(loanId);
      expect(
        (submitted.repaymentSchedule.periods as Record<string, unknown>[]).slice(1).map(scheduleColumns),
      ).toEqual(c.schedule);
    }

    const funding = await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loanId}/fundings/record-external`,
      fundingBody(c.loan.principal, 'EUR', c.loan.disbursementDate),
    );
    expect(funding.status, JSON.stringify(funding.body)).toBe(201);
    expect(await trialBalanceOf(loanId)).toBe(0n);
    if (penaltyAdded) {
      const [charge] = charges as { chargeId: number; dueDate: string }[];
      const added = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, charge);
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      expect(await trialBalanceOf(loanId)).toBe(0n);
    }
    if (c.manualDownPayment) {
      await pay(loanId, c.manualDownPayment.amount, 'EUR', c.manualDownPayment.date);
      expect(await trialBalanceOf(loanId)).toBe(0n);
    }
    for (const payment of c.payments) {
      await pay(loanId, payment.amount, 'EUR', payment.date);
      expect(await trialBalanceOf(loanId)).toBe(0n);
    }

    const loan = await loanWith(loanId);
    const installments = (loan.repaymentSchedule.periods as Record<string, unknown>[]).slice(1);
    expect(installments.map(scheduleColumns)).toEqual(c.schedule);
    expect(
      installments.map((p) => ({
        period: p.period,
        paid: p.totalPaidForPeriod,
        inAdvance: p.totalPaidInAdvanceForPeriod,
        late: p.totalPaidLateForPeriod,
        outstanding: p.totalOutstandingForPeriod,
      })),
    ).toEqual(c.after!.installments);
    expect(
      (loan.transactions as TransactionJson[]).map((t) => ({
        date: t.date,
        type: t.type.value,
        amount: t.amount,
        principal: t.principalPortion,
        interest: t.interestPortion,
        fees: t.feeChargesPortion,
        penalties: t.penaltyChargesPortion,
        loanBalance: t.outstandingLoanBalance,
      })),
    ).toEqual(c.after!.transactions);
  });
});

describe('pay in 4 with the automatic down payment', () => {
  it('records the DOWN_PAYMENT with the funding, once; three payments two weeks apart close the loan', async () => {
    const productId = await createProduct({
      currencyCode: 'USD',
      principal: '400',
      repaymentEvery: 2,
      repaymentFrequencyType: 1,
      installmentAmountInMultiplesOf: undefined,
    });
    const clientId = await createCustomer();
    const body = loanBody(clientId, productId, {
      principal: '399.99',
      interestRatePerPeriod: '0',
      interestType: 1,
      amortizationType: 1,
      repaymentEvery: 2,
      repaymentFrequencyType: 1,
      numberOfRepayments: 3,
      loanTermFrequency: 6,
      disbursementDate: '2025-06-02',
    });
    const loanId = await approvedLoan(body, '2025-06-02');
    const fundingRef = ref('checkout');
    const fundBody = fundingBody('399.99', 'USD', '2025-06-02', fundingRef);
    const funding = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, fundBody);
    expect(funding.status, JSON.stringify(funding.body)).toBe(201);
    expect(await trialBalanceOf(loanId)).toBe(0n);

    // 399.99 × 25 % = 99.9975 → 100.00; the rest, 299.99, in three installments: 100.00, 100.00, 99.99
    let loan = await loanWith(loanId);
    expect(loan.status.code).toBe('loanStatusType.active');
    expect(loan.terms).toMatchObject({
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: 25,
      enableAutoRepaymentForDownPayment: true,
    });
    const dues = (loan.repaymentSchedule.periods as Record<string, unknown>[])
      .slice(1)
      .map((p) => [p.dueDate, p.totalDueForPeriod, p.totalOutstandingForPeriod, p.downPaymentPeriod]);
    expect(dues).toEqual([
      ['2025-06-02', '100.00', '0.00', true],
      ['2025-06-16', '100.00', '100.00', false],
      ['2025-06-30', '100.00', '100.00', false],
      ['2025-07-14', '99.99', '99.99', false],
    ]);
    const downPayment = (loan.transactions as TransactionJson[]).find(
      (t) => t.type.code === 'loanTransactionType.downPayment',
    );
    expect(downPayment).toMatchObject({
      type: { id: 28, code: 'loanTransactionType.downPayment', value: 'Down Payment' },
      date: '2025-06-02',
      amount: '100.00',
      principalPortion: '100.00',
      outstandingLoanBalance: '299.99',
      externalId: `${fundingRef}:down-payment`,
    });
    const paymentId = downPayment!.id as number;
    const events = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.execute<{ event_type: string; subject_id: string; data: Record<string, unknown> }>(
        sql`select event_type, subject_id, data from outbox_events
            where (event_type = 'funding.posted' and subject_id = ${String(funding.body.fundingId)})
               or (event_type = 'payment.posted' and subject_id = ${String(paymentId)})
            order by id`,
      ),
    );
    expect(events.map((e) => e.event_type)).toEqual(['funding.posted', 'payment.posted']);
    expect(events[1]!.data).toMatchObject({
      paymentId,
      status: 'POSTED',
      amount: '100.00',
      currency: 'USD',
      effectiveDate: '2025-06-02',
      transactionType: 'DOWN_PAYMENT',
    });

    // the same funding again is a replay: no second down payment
    const replay = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, fundBody);
    expect(replay.status, JSON.stringify(replay.body)).toBeLessThan(300);
    expect(replay.body.fundingId).toBe(funding.body.fundingId);
    loan = await loanWith(loanId);
    expect((loan.transactions as unknown[]).length).toBe(2);

    // the down payment's ref is taken: recording another payment under it is a conflict
    const clash = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
      amount: '1.00',
      currency: 'USD',
      effectiveDate: '2025-06-03',
      externalRecordRef: `${fundingRef}:down-payment`,
      source: 'IMPORT',
    });
    expectShapeA(clash, 409, 'error.msg.external.record.ref.conflict');

    for (const [date, amount] of [
      ['2025-06-16', '100.00'],
      ['2025-06-30', '100.00'],
      ['2025-07-14', '99.99'],
    ] as const) {
      await pay(loanId, amount, 'USD', date);
      expect(await trialBalanceOf(loanId)).toBe(0n);
    }
    loan = await loanWith(loanId);
    expect(loan.status.code).toBe('loanStatusType.closed.obligations.met');
    expect(loan.repaymentSchedule.totalOutstanding).toBe('0.00');
  });

  it('a product whose DEFAULT rule is REAMORTIZATION records the automatic down payment and shares in-advance money evenly', async () => {
    const productId = await createProduct({
      currencyCode: 'USD',
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      paymentAllocation: fineractDefaultAllocation('REAMORTIZATION'),
    });
    const loanId = await fundedAdvancedLoan(productId, '1000.00', 'USD');
    await pay(loanId, '500.00', 'USD', '2024-01-02');
    const loan = await loanWith(loanId);
    const installments = (loan.repaymentSchedule.periods as Record<string, unknown>[]).slice(1);
    expect(installments.map((p) => p.totalPaidForPeriod)).toEqual(['250.00', '166.67', '166.67', '166.66']);
    expect(await trialBalanceOf(loanId)).toBe(0n);
  });

  it('a penalty added to the loan is paid in advance by a payment of its due date, in the order recorded (LoanChargeback-Part2.feature)', async () => {
    const productId = await createProduct({
      principal: '100',
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      enableAutoRepaymentForDownPayment: false,
      paymentAllocation: fineractDefaultAllocation('NEXT_INSTALLMENT'),
    });
    const penalty = await call(ctx, cred, 'POST', '/v1/charges', {
      name: `NSF fee ${randomBytes(3).toString('hex')}`,
      currencyCode: 'EUR',
      amount: '5',
      chargeAppliesTo: 1,
      chargeTimeType: 2,
      chargeCalculationType: 1,
      penalty: true,
    });
    expect(penalty.status, JSON.stringify(penalty.body)).toBe(201);
    const loanId = await fundedAdvancedLoan(productId, '100.00', 'EUR');
    const added = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, {
      chargeId: penalty.body.chargeId,
      dueDate: '2024-01-05',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    await pay(loanId, '28.00', 'EUR', '2024-01-05');
    await pay(loanId, '10.00', 'EUR', '2024-01-06');
    const loan = await loanWith(loanId);
    const rows = (loan.repaymentSchedule.periods as Record<string, unknown>[]).slice(1).map((p) => ({
      period: p.period,
      penalties: p.penaltyChargesDue,
      paid: p.totalPaidForPeriod,
      inAdvance: p.totalPaidInAdvanceForPeriod,
      late: p.totalPaidLateForPeriod,
      outstanding: p.totalOutstandingForPeriod,
    }));
    expect(rows).toEqual([
      { period: 1, penalties: '0.00', paid: '25.00', inAdvance: '0.00', late: '25.00', outstanding: '0.00' },
      { period: 2, penalties: '5.00', paid: '13.00', inAdvance: '13.00', late: '0.00', outstanding: '17.00' },
      { period: 3, penalties: '0.00', paid: '0.00', inAdvance: '0.00', late: '0.00', outstanding: '25.00' },
      { period: 4, penalties: '0.00', paid: '0.00', inAdvance: '0.00', late: '0.00', outstanding: '25.00' },
    ]);
    expect(
      (loan.transactions as TransactionJson[])
        .filter((t) => t.type.id === 2)
        .map((t) => [
          t.date,
          t.amount,
          t.principalPortion,
          t.penaltyChargesPortion,
          t.outstandingLoanBalance,
        ]),
    ).toEqual([
      ['2024-01-05', '28.00', '25.00', '3.00', '75.00'],
      ['2024-01-06', '10.00', '8.00', '2.00', '67.00'],
    ]);
    expect(await trialBalanceOf(loanId)).toBe(0n);
  });

  it('a product without automatic repayment records no down payment with the funding', async () => {
    const productId = await createProduct({ currencyCode: 'USD', enableAutoRepaymentForDownPayment: false });
    const clientId = await createCustomer();
    const loanId = await approvedLoan(
      loanBody(clientId, productId, {
        principal: '1000.00',
        interestRatePerPeriod: '0',
        interestType: 1,
        amortizationType: 1,
        repaymentEvery: 1,
        repaymentFrequencyType: 2,
        numberOfRepayments: 3,
        loanTermFrequency: 3,
        disbursementDate: '2025-01-02',
      }),
      '2025-01-02',
    );
    const funding = await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loanId}/fundings/record-external`,
      fundingBody('1000.00', 'USD', '2025-01-02'),
    );
    expect(funding.status, JSON.stringify(funding.body)).toBe(201);
    const loan = await loanWith(loanId);
    expect((loan.transactions as { type: { value: string } }[]).map((t) => t.type.value)).toEqual([
      'Disbursement',
    ]);
    expect(loan.repaymentSchedule.periods[1]).toMatchObject({
      downPaymentPeriod: true,
      totalOutstandingForPeriod: '250.00',
    });
  });
});
