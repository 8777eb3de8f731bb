/**
 * Issue 14 (adversarial pass) defects of a loan's money, through the public API on the real database: loans are
 * created, approved and funded by `POST /v1/loans`, `?command=approve` and `fundings/record-external`.
 *
 * - §1 payoff: the summary's payoff quote for a date, paid on that date, closes the loan to the cent — schedule,
 *   summary and journal all show nothing owed (the hand-computed loan: 1,200.00 at 12 % a year, 12 monthly equal
 *   installments, 79.42 of interest; a quote of 1,212.00 used to leave 67.42 owed).
 * - A payment above the payoff (test/vectors/fineract-payoff-in-advance.json, Fineract's table): allocated by the
 *   strategy before anything is waived, it pays the later fee in advance and the loan closes
 *   (`closed.obligations.met`, not `overpaid`); the payoff quote itself still closes the loan.
 * - §2 partly funded loan: after each funding (600.00 of 1,200.00, then the rest) the schedule, the summary and the
 *   journal agree on the principal outstanding, and the schedule and the summary on the interest (interest on the
 *   money lent only).
 * - §3 a first funding smaller than the charges due at disbursement → 409
 *   `error.msg.loan.funding.below.disbursement.charges`, nothing recorded (it used to be a 500).
 * - §4 a loan at the products' maximum term (10,000 installments) is created, approved, funded and paid (it used
 *   to fail on PostgreSQL's 65,535 bind-parameter limit).
 * - §5 approval below the product's minimum principal → 400 naming `approvedLoanAmount` with
 *   `validation.msg.loan.approvedLoanAmount.is.not.within.min.max.range`.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMinor, parseDecimalToMinor } from '../../domain/money';
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
  cred = await credentialFor(ctx, uniqueTenant('agree'), { scopes: ['lending:read', 'lending:write'] });
});
afterAll(async () => ctx?.close());

const cents = (amount: string): bigint => parseDecimalToMinor(amount, 2, { allowTrailingZeros: true });
const usd = (minor: bigint): string => formatMinor(minor, 2);
const ref = (prefix: string) => `${prefix}-${randomBytes(9).toString('base64url')}`;

interface LoanOptions {
  principal?: string;
  numberOfRepayments?: number;
  repaymentFrequencyType?: number;
  minPrincipal?: string;
  chargeAmount?: string;
  /** The charge's `chargeTimeType`: 1 at disbursement (default), 8 with every installment. */
  chargeTimeType?: 1 | 8;
  /** Nominal annual rate, percent; default 12. */
  interestRate?: number;
  expectedDisbursementDate?: string;
  approve?: string | null;
}

/** A customer, a product (12 % a year, declining balance, equal installments) and a submitted loan; approved unless `approve` is null. */
async function newLoan(
  options: LoanOptions = {},
): Promise<{ loanId: number; approval: Awaited<ReturnType<typeof call>> | null }> {
  const principal = options.principal ?? '1200';
  const n = options.numberOfRepayments ?? 12;
  const frequency = options.repaymentFrequencyType ?? 2;
  let chargeId: number | null = null;
  if (options.chargeAmount) {
    const charge = await call(ctx, cred, 'POST', '/v1/charges', {
      name: `Origination fee ${randomBytes(3).toString('hex')}`,
      currencyCode: 'USD',
      amount: options.chargeAmount,
      chargeAppliesTo: 1,
      chargeTimeType: options.chargeTimeType ?? 1,
      chargeCalculationType: 1,
    });
    expect(charge.status, JSON.stringify(charge.body)).toBe(201);
    chargeId = charge.body.chargeId;
  }
  const product = await call(ctx, cred, 'POST', '/v1/loanproducts', {
    name: `Agreement loan ${randomBytes(3).toString('hex')}`,
    shortName: `A${randomBytes(2).toString('hex').slice(0, 3)}`,
    currencyCode: 'USD',
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    principal,
    ...(options.minPrincipal ? { minPrincipal: options.minPrincipal } : {}),
    numberOfRepayments: n,
    ...(n > 1000 ? { maxNumberOfRepayments: n } : {}),
    interestRatePerPeriod: options.interestRate ?? 12,
    repaymentEvery: 1,
    repaymentFrequencyType: frequency,
    interestRateFrequencyType: 3,
    interestType: 0,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    daysInYearType: 1,
    daysInMonthType: 1,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    ...(chargeId === null ? {} : { charges: [{ id: chargeId }] }),
    lmsConfig:
      frequency === 2
        ? {
            productClass: 'COVERED_CONSUMER',
            aprEnabled: true,
            aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
            aprTolerancePolicy: 'REGULAR',
            statementEnabled: false,
          }
        : { productClass: 'COMMERCIAL', aprEnabled: false, statementEnabled: false },
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  const customer = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'Ida', lastName: 'Rhodes' });
  expect(customer.status, JSON.stringify(customer.body)).toBe(201);
  const created = await call(ctx, cred, 'POST', '/v1/loans', {
    clientId: customer.body.customerId,
    productId: product.body.productId,
    loanType: 'individual',
    principal: Number(principal),
    loanTermFrequency: n,
    loanTermFrequencyType: frequency,
    numberOfRepayments: n,
    repaymentEvery: 1,
    repaymentFrequencyType: frequency,
    interestRatePerPeriod: options.interestRate ?? 12,
    interestType: 0,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    expectedDisbursementDate: options.expectedDisbursementDate ?? '2025-01-01',
    submittedOnDate: '2024-12-20',
    ...(chargeId === null ? {} : { charges: [{ chargeId }] }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const loanId = created.body.loanId as number;
  if (options.approve === null) return { loanId, approval: null };
  const approval = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, {
    approvedOnDate: '2024-12-22',
    approvedLoanAmount: options.approve ?? principal,
  });
  return { loanId, approval };
}

const fund = (loanId: number, amount: string, fundingDate = '2025-01-01') =>
  call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, {
    amount,
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: ref('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate,
  });

const pay = (loanId: number, amount: string, effectiveDate: string) =>
  call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
    amount,
    currency: 'USD',
    effectiveDate,
    externalRecordRef: ref('pay'),
    source: 'IMPORT',
    rationale: 'Boarded history',
  });

/** Principal and interest outstanding by the schedule, the summary and the journal (loan portfolio). */
async function views(loanId: number, asOfDate: string) {
  const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
  expect(loan.status, JSON.stringify(loan.body)).toBe(200);
  const schedule = loan.body.repaymentSchedule;
  const periods = schedule.periods.slice(1) as Record<string, string>[];
  const sum = (key: string) => usd(periods.reduce((s, p) => s + cents(p[key]!), 0n));
  const summary = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=${asOfDate}`);
  expect(summary.status, JSON.stringify(summary.body)).toBe(200);
  const journal = await call(ctx, cred, 'GET', `/v1/journalentries?loanId=${loanId}&limit=200`);
  expect(journal.status, JSON.stringify(journal.body)).toBe(200);
  let portfolio = 0n;
  for (const line of journal.body.pageItems as { accountCode: string; debit: string; credit: string }[]) {
    if (line.accountCode === 'LOAN_PORTFOLIO') portfolio += cents(line.debit) - cents(line.credit);
  }
  return {
    status: loan.body.status.code as string,
    schedule: {
      principal: sum('principalOutstanding'),
      interest: sum('interestOutstanding'),
      total: schedule.totalOutstanding as string,
      principalDisbursed: schedule.periods[0].principalDisbursed as string,
    },
    summary: {
      principal: summary.body.balances.principalOutstanding as string,
      interest: summary.body.balances.interestOutstanding as string,
      total: summary.body.balances.totalOutstanding as string,
      payoff: summary.body.payoff.total as string,
    },
    journalPrincipal: usd(portfolio),
  };
}

describe('§1 a payoff quote pays the loan off', () => {
  it.each([
    ['mid first period', '2025-01-16', []],
    ['after two on-time installments', '2025-03-20', ['2025-02-01', '2025-03-01']],
    ['on a due date', '2025-04-01', ['2025-02-01', '2025-03-01']],
  ] as const)(
    '%s: paying the quoted payoff on its date closes the loan with nothing owed',
    async (_label, date, onTime) => {
      const { loanId, approval } = await newLoan();
      expect(approval?.status, JSON.stringify(approval?.body)).toBe(200);
      expect((await fund(loanId, '1200.00')).status).toBe(201);
      const schedule = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
      expect(schedule.body.repaymentSchedule.totalInterestCharged).toBe('79.42');
      for (const dueDate of onTime) {
        const period = schedule.body.repaymentSchedule.periods.find(
          (p: { dueDate: string }) => p.dueDate === dueDate,
        );
        expect((await pay(loanId, period.totalDueForPeriod, dueDate)).status).toBe(201);
      }
      const quote = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=${date}`);
      expect(quote.status).toBe(200);
      const payoff = quote.body.payoff.total as string;
      // below the full remaining balance: no interest of later periods
      expect(cents(payoff) < cents(quote.body.balances.totalOutstanding)).toBe(true);
      const paid = await pay(loanId, payoff, date);
      expect(paid.status, JSON.stringify(paid.body)).toBe(201);
      expect(paid.body.allocation.overpayment).toBe('0.00');

      const after = await views(loanId, date);
      expect(after).toEqual({
        status: 'loanStatusType.closed.obligations.met',
        schedule: { principal: '0.00', interest: '0.00', total: '0.00', principalDisbursed: '1200.00' },
        summary: { principal: '0.00', interest: '0.00', total: '0.00', payoff: '0.00' },
        journalPrincipal: '0.00',
      });
      // closed: a further payment is refused
      expectShapeA(await pay(loanId, '1.00', date), 409, 'error.msg.loan.invalid.state.transition');
    },
  );

  it('the first date: the quote is principal plus the interest accrued so far (12.00 × 15 / 31 = 5.81)', async () => {
    const { loanId } = await newLoan();
    expect((await fund(loanId, '1200.00')).status).toBe(201);
    const quote = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=2025-01-16`);
    expect(quote.body.payoff).toMatchObject({
      principal: '1200.00',
      interest: '5.81',
      total: '1205.81',
      currentInstallmentNumber: 1,
      currentPeriodInterest: '5.81',
    });
  });
});

describe('a payment above the payoff pays later charges in advance (test/vectors/fineract-payoff-in-advance.json)', () => {
  // Fineract's table, two years on (this file's loans are dated 2025): 1,000.00 lent on 01-01, no interest, one
  // installment due 02-01 carrying a 20.00 fee; 1,020.00 paid on 01-10, where the payoff quote is 1,000.00.
  const feeLoan = async () => {
    const { loanId, approval } = await newLoan({
      principal: '1000',
      numberOfRepayments: 1,
      interestRate: 0,
      chargeAmount: '20',
      chargeTimeType: 8,
    });
    expect(approval?.status, JSON.stringify(approval?.body)).toBe(200);
    expect((await fund(loanId, '1000.00')).status).toBe(201);
    const quote = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=2025-01-10`);
    expect(quote.body.payoff.total).toBe('1000.00');
    expect(quote.body.balances.totalOutstanding).toBe('1020.00');
    return loanId;
  };

  it('1,020.00 on 01-10: fee portion 20.00, nothing over, the loan closed.obligations.met (not overpaid)', async () => {
    const loanId = await feeLoan();
    const paid = await pay(loanId, '1020.00', '2025-01-10');
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.allocation).toMatchObject({
      principal: '1000.00',
      interest: '0.00',
      fee: '20.00',
      penalty: '0.00',
      overpayment: '0.00',
    });
    const after = await views(loanId, '2025-01-10');
    expect(after.status).toBe('loanStatusType.closed.obligations.met');
    expect(after.summary).toEqual({ principal: '0.00', interest: '0.00', total: '0.00', payoff: '0.00' });
  });

  it('the payoff quote (1,000.00) on 01-10 also closes the loan: the later fee is waived', async () => {
    const loanId = await feeLoan();
    const paid = await pay(loanId, '1000.00', '2025-01-10');
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.allocation).toMatchObject({ principal: '1000.00', fee: '0.00', overpayment: '0.00' });
    const after = await views(loanId, '2025-01-10');
    expect(after.status).toBe('loanStatusType.closed.obligations.met');
    expect(after.summary.total).toBe('0.00');
  });
});

describe('§2 a partly funded loan', () => {
  it('after each funding the schedule, the summary and the journal agree', async () => {
    const { loanId } = await newLoan();
    const asOf = '2025-01-10';
    expect((await fund(loanId, '600.00', '2025-01-01')).status).toBe(201);
    const half = await views(loanId, asOf);
    // the schedule is regenerated on 600.00: interest is 39.71 (the 1,200.00 schedule's halved, as an annuity)
    expect(half.schedule.principalDisbursed).toBe('600.00');
    expect(half.schedule.principal).toBe('600.00');
    expect(half.summary.principal).toBe('600.00');
    expect(half.journalPrincipal).toBe('600.00');
    expect(half.summary.interest).toBe(half.schedule.interest);
    expect(half.summary.total).toBe(half.schedule.total);
    expect(half.schedule.total).toBe(usd(cents('600.00') + cents(half.schedule.interest)));
    expect(cents(half.schedule.interest) < cents('79.42')).toBe(true);

    expect((await fund(loanId, '600.00', '2025-01-05')).status).toBe(201);
    const full = await views(loanId, asOf);
    expect(full).toMatchObject({
      schedule: { principal: '1200.00', interest: '79.42', total: '1279.42', principalDisbursed: '1200.00' },
      summary: { principal: '1200.00', interest: '79.42', total: '1279.42' },
      journalPrincipal: '1200.00',
    });
  });
});

describe('§3 a first funding smaller than the charges due at disbursement', () => {
  it('is refused with 409 and nothing is recorded; a funding that covers them is accepted', async () => {
    const { loanId, approval } = await newLoan({ chargeAmount: '50' });
    expect(approval?.status, JSON.stringify(approval?.body)).toBe(200);
    expectShapeA(await fund(loanId, '49.99'), 409, 'error.msg.loan.funding.below.disbursement.charges');
    const listed = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/fundings`);
    expect(listed.body.items).toEqual([]);
    expect((await fund(loanId, '600.00')).status).toBe(201);
    // a later funding back-dated before it would become the first: refused as well when too small
    expectShapeA(
      await fund(loanId, '10.00', '2024-12-31'),
      409,
      'error.msg.loan.funding.below.disbursement.charges',
    );
    expect((await fund(loanId, '10.00', '2025-01-02')).status).toBe(201);
    const journal = await call(ctx, cred, 'GET', `/v1/journalentries?loanId=${loanId}`);
    const fee = (journal.body.pageItems as { accountCode: string; credit: string }[])
      .filter((l) => l.accountCode === 'FEE_INCOME')
      .reduce((s, l) => s + cents(l.credit), 0n);
    expect(usd(fee)).toBe('50.00');
  });
});

describe('§4 a loan at the maximum term', () => {
  it('creates, approves, funds and pays a loan of 10,000 installments', async () => {
    const { loanId, approval } = await newLoan({
      numberOfRepayments: 10_000,
      repaymentFrequencyType: 0,
      principal: '100000',
      expectedDisbursementDate: '2025-01-01',
    });
    expect(approval?.status, JSON.stringify(approval?.body)).toBe(200);
    expect((await fund(loanId, '60000.00')).status).toBe(201);
    expect((await fund(loanId, '40000.00')).status).toBe(201);
    const paid = await pay(loanId, '100.00', '2025-01-03');
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
    expect(loan.status).toBe(200);
    expect(loan.body.repaymentSchedule.periods).toHaveLength(10_001);
    expect(loan.body.repaymentSchedule.totalPrincipalExpected).toBe('100000.00');
  }, 120_000);
});

describe('§5 approval below the product’s minimum principal', () => {
  it('is refused with the bounds rule of loan creation; at the minimum it is approved', async () => {
    const below = await newLoan({ principal: '1200', minPrincipal: '1000', approve: '999.99' });
    expectShapeA(below.approval!, 400, 'validation.msg.validation.errors.exist', ['approvedLoanAmount']);
    expect(below.approval!.body.errors[0].userMessageGlobalisationCode).toBe(
      'validation.msg.loan.approvedLoanAmount.is.not.within.min.max.range',
    );
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${below.loanId}`);
    expect(loan.body.status.code).toBe('loanStatusType.submitted.and.pending.approval');
    const at = await newLoan({ principal: '1200', minPrincipal: '1000', approve: '1000' });
    expect(at.approval!.status, JSON.stringify(at.approval!.body)).toBe(200);
  });
});
