/**
 * Apache Fineract's published delinquency-pause and charge-off tables replayed through the public API, with the
 * close of business run as an integrator runs it (`POST /v1/cob/runs` for the loan, a `lending` worker carrying the
 * run out). Source: repository apache/fineract, commit 4198b0bcf9a94e1c7aa0f386317ba71f40ceb1d9,
 * fineract-e2e-tests-runner/src/test/resources/features/:
 * - `LoanDelinquency.feature` "Verify Loan delinquency pause E2E - PAUSE period with RESUME and second PAUSE",
 *   "… - partial repayment during PAUSE period", and "Verify that in case of resume on end/start date of continous
 *   pause periods first period ends automatically, second period ended by resume";
 * - `LoanChargeOff.feature` "Verify that the accrual of charges is not happened when the loan is charged-off on
 *   charge's due date but resumed when the charge-off is reverted" (its Accrual rows are left out: this ledger is
 *   cash basis and records no accruals).
 *
 * How the steps map (docs/lending.md "Delinquency", "Close of business: the loan step"):
 * - "Admin sets the business date to X": the tenant's today is X (the test clock `ctx.now`, 20:00 UTC, which is X
 *   in the tenant's default time zone, America/Los_Angeles).
 * - "Admin runs inline COB job for Loan": a run of that loan for the day before X (Fineract's COB date), which
 *   stores the state as of X; it waits until the run has completed.
 * - A resume or a payment acts on the loan's business date, its `lastClosedBusinessDate` + 1, where Fineract acts
 *   on the tenant's business date. Where the scenario writes on a loan whose last close is older than yesterday,
 *   the loan is first closed up to yesterday (what Fineract's inline catch-up of a loan behind does); in these
 *   scenarios every day so closed lies inside an active pause, so it changes no tag.
 * - "LOAN level delinquency data": `delinquencyRange.classification` (null reads `NO_DELINQUENCY`) and
 *   `delinquent.{delinquentAmount, delinquentDate, delinquentDays, pastDueDays}`; "INSTALLMENT level delinquency":
 *   `delinquent.installmentLevelDelinquency` (Fineract's null is `[]`), its `rangeId` Fineract's id of the range
 *   of that classification (the ranges are created in Fineract's order).
 * - The product is Fineract's `LP2_DOWNPAYMENT_ADV_PMT_ALLOC_PROGRESSIVE_LOAN_SCHEDULE_HORIZONTAL_INSTALLMENT_LEVEL_DELINQUENCY`
 *   as test/vectors/fineract-delinquency.json describes it: 1,000 EUR disbursed on 2023-10-01, a 25 % down payment
 *   due that day and not paid automatically, three installments of 250.00 every 15 days, `graceOnArrearsAgeing` 3,
 *   installment-level delinquency, and its nine ranges (1–3, 4–30, 31–60, …).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../domain/calendar';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { activeLp1Loan, createLp1Charge, uniqueRef } from './lp1-loan';

let ctx: TestContext;
let cred: Credential;
/** Fineract's range id (creation order) → ours. */
const rangeIds = new Map<number, number>();
let bucketId = 0;
const fineractRanges: [string, number, number | null][] = [
  ['RANGE_1', 1, 3],
  ['RANGE_3', 4, 30],
  ['RANGE_30', 31, 60],
  ['RANGE_60', 61, 90],
  ['RANGE_90', 91, 120],
  ['RANGE_120', 121, 150],
  ['RANGE_150', 151, 180],
  ['RANGE_180', 181, 240],
  ['RANGE_240', 241, null],
];

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  cred = await credentialFor(ctx, uniqueTenant('dlqpause'), { scopes: ['lending:read', 'lending:write'] });
  for (const [index, [classification, minimumAgeDays, maximumAgeDays]] of fineractRanges.entries()) {
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', {
      classification,
      minimumAgeDays,
      maximumAgeDays,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    rangeIds.set(index + 1, res.body.resourceId as number);
  }
  const bucket = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', {
    name: 'Fineract default bucket',
    ranges: [...rangeIds.values()],
  });
  expect(bucket.status, JSON.stringify(bucket.body)).toBe(201);
  bucketId = bucket.body.resourceId as number;
}, 120_000);
afterEach(() => {
  if (ctx) ctx.now.value = null;
});
afterAll(async () => ctx?.close());

/** "Admin sets the business date to X" (ISO date). */
function setBusinessDate(date: string) {
  ctx.now.value = new Date(`${date}T20:00:00Z`);
}
const today = () => {
  const now = ctx.now.value;
  if (!now) throw new Error('no business date set');
  return now.toISOString().slice(0, 10);
};

async function loanRead(loanId: number) {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule,transactions`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** "Admin runs inline COB job for Loan": closes the day before today for the loan and waits for the run. */
async function inlineCob(loanId: number) {
  const started = await call(ctx, cred, 'POST', '/v1/cob/runs', {
    businessDate: addDays(today(), -1),
    loanIds: [loanId],
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  for (let i = 0; i < 300; i++) {
    const run = await call(ctx, cred, 'GET', `/v1/cob/runs/${started.body.runId}`);
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    if (run.body.status !== 'RUNNING') {
      expect(run.body).toMatchObject({ status: 'COMPLETED', loans: { failed: 0 } });
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the run did not finish');
}

/** Closes the loan up to yesterday when it was closed before but is behind (module note). */
async function catchUp(loanId: number) {
  const loan = await loanRead(loanId);
  const last = loan.lastClosedBusinessDate as string | null;
  if (last !== null && last < addDays(today(), -1)) await inlineCob(loanId);
}

async function delinquencyAction(loanId: number, body: Record<string, unknown>) {
  if (body.action === 'resume') await catchUp(loanId);
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/delinquency-actions`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** "Customer makes "AUTOPAY" repayment on X with N EUR". */
async function repayment(loanId: number, effectiveDate: string, amount: string) {
  await catchUp(loanId);
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
    amount,
    currency: 'EUR',
    effectiveDate,
    externalRecordRef: uniqueRef('pay'),
    source: 'IMPORT',
    rationale: 'Autopay collected by the servicer',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

type LoanLevel = [classification: string, amount: string, date: string | null, days: number, pastDue: number];
/** "Loan has the following LOAN level delinquency data". */
async function expectLoanLevel(loanId: number, [classification, amount, date, days, pastDue]: LoanLevel) {
  const loan = await loanRead(loanId);
  expect({
    classification: loan.delinquencyRange?.classification ?? 'NO_DELINQUENCY',
    delinquentAmount: loan.delinquent.delinquentAmount,
    delinquentDate: loan.delinquent.delinquentDate,
    delinquentDays: loan.delinquent.delinquentDays,
    pastDueDays: loan.delinquent.pastDueDays,
  }).toEqual({
    classification,
    delinquentAmount: amount,
    delinquentDate: date,
    delinquentDays: days,
    pastDueDays: pastDue,
  });
}

/** "Loan has the following INSTALLMENT level delinquency data" ([Fineract rangeId, Range, Amount]); [] = null. */
async function expectInstallmentLevel(loanId: number, rows: [number, string, string][]) {
  const loan = await loanRead(loanId);
  expect(
    (
      loan.delinquent.installmentLevelDelinquency as {
        rangeId: number;
        classification: string;
        delinquentAmount: string;
      }[]
    ).map((g) => [g.rangeId, g.classification, g.delinquentAmount]),
  ).toEqual(rows.map(([fineractId, range, amount]) => [rangeIds.get(fineractId), range, amount]));
}

/** "Loan Delinquency pause periods has the following data". */
async function expectPausePeriods(loanId: number, rows: [boolean, string, string][]) {
  const loan = await loanRead(loanId);
  expect(loan.delinquent.delinquencyPausePeriods).toEqual(
    rows.map(([active, pausePeriodStart, pausePeriodEnd]) => ({ active, pausePeriodStart, pausePeriodEnd })),
  );
}

/** "Delinquency-actions have the following data". */
async function expectActions(loanId: number, rows: [string, string, string | null][]) {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/delinquency-actions`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(
    (res.body as { action: string; startDate: string; endDate: string | null }[]).map((a) => [
      a.action,
      a.startDate,
      a.endDate,
    ]),
  ).toEqual(rows);
}

let products = 0;
/** The scenario's loan, created, approved and disbursed on 2023-10-01 (business date 2023-10-01). */
async function lp2Loan(): Promise<number> {
  setBusinessDate('2023-10-01');
  products += 1;
  const product = await call(ctx, cred, 'POST', '/v1/loanproducts', {
    name: `LP2 installment level delinquency ${products}`,
    shortName: `P${products}`,
    currencyCode: 'EUR',
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    principal: '1000',
    numberOfRepayments: 3,
    interestRatePerPeriod: 0,
    repaymentEvery: 15,
    repaymentFrequencyType: 0,
    interestRateFrequencyType: 3,
    interestType: 1,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    daysInYearType: 1,
    daysInMonthType: 1,
    transactionProcessingStrategyCode:
      'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy',
    lmsConfig: { productClass: 'COMMERCIAL', aprEnabled: false, statementEnabled: false },
    enableDownPayment: true,
    disbursedAmountPercentageForDownPayment: '25',
    enableAutoRepaymentForDownPayment: false,
    installmentAmountInMultiplesOf: 1,
    delinquencyBucketId: bucketId,
    graceOnArrearsAgeing: 3,
    enableInstallmentLevelDelinquency: true,
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  const customer = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'Pause', lastName: 'Tester' });
  expect(customer.status, JSON.stringify(customer.body)).toBe(201);
  const created = await call(ctx, cred, 'POST', '/v1/loans', {
    clientId: customer.body.customerId,
    productId: product.body.productId,
    loanType: 'individual',
    principal: 1000,
    loanTermFrequency: 45,
    loanTermFrequencyType: 0,
    numberOfRepayments: 3,
    repaymentEvery: 15,
    repaymentFrequencyType: 0,
    interestRatePerPeriod: 0,
    interestType: 1,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode:
      'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy',
    expectedDisbursementDate: '2023-10-01',
    submittedOnDate: '2023-10-01',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const loanId = created.body.loanId as number;
  const approved = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, {
    approvedOnDate: '2023-10-01',
    approvedLoanAmount: '1000',
  });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const funded = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, {
    amount: '1000.00',
    currency: 'EUR',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: uniqueRef('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate: '2023-10-01',
  });
  expect(funded.status, JSON.stringify(funded.body)).toBe(201);
  const loan = await loanRead(loanId);
  expect(
    (loan.repaymentSchedule.periods as { dueDate: string; totalDueForPeriod: string }[])
      .slice(1)
      .map((p) => [p.dueDate, p.totalDueForPeriod]),
  ).toEqual([
    ['2023-10-01', '250.00'],
    ['2023-10-16', '250.00'],
    ['2023-10-31', '250.00'],
    ['2023-11-15', '250.00'],
  ]);
  return loanId;
}

describe('Fineract LoanDelinquency.feature: delinquency pauses through the API', () => {
  it('Verify Loan delinquency pause E2E - PAUSE period with RESUME and second PAUSE', async () => {
    const loanId = await lp2Loan();
    // --- Delinquency pause ---
    setBusinessDate('2023-10-15');
    await delinquencyAction(loanId, { action: 'pause', startDate: '2023-10-15', endDate: '2023-10-30' });
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [[true, '2023-10-15', '2023-10-30']]);
    await expectActions(loanId, [['PAUSE', '2023-10-15', '2023-10-30']]);
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '250.00', '2023-10-04', 11, 14]);
    // --- Delinquency resume ---
    setBusinessDate('2023-10-25');
    await delinquencyAction(loanId, { action: 'resume', startDate: '2023-10-25' });
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [[true, '2023-10-15', '2023-10-25']]);
    setBusinessDate('2023-10-26');
    await expectPausePeriods(loanId, [[false, '2023-10-15', '2023-10-25']]);
    await expectActions(loanId, [
      ['PAUSE', '2023-10-15', '2023-10-30'],
      ['RESUME', '2023-10-25', null],
    ]);
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '500.00', '2023-10-04', 12, 25]);
    // --- Delinquency runs ---
    setBusinessDate('2023-11-13');
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [[false, '2023-10-15', '2023-10-25']]);
    await expectLoanLevel(loanId, ['RANGE_3', '750.00', '2023-10-04', 30, 43]);
    const tagsBeforePause: [number, string, string][] = [
      [1, 'RANGE_1', '250.00'],
      [2, 'RANGE_3', '250.00'],
      [3, 'RANGE_30', '250.00'],
    ];
    await expectInstallmentLevel(loanId, tagsBeforePause);
    // --- Second delinquency pause: the tags of 2023-11-13 stay while it is active, its end day included ---
    setBusinessDate('2023-11-14');
    await delinquencyAction(loanId, { action: 'pause', startDate: '2023-11-14', endDate: '2023-11-30' });
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [
      [false, '2023-10-15', '2023-10-25'],
      [true, '2023-11-14', '2023-11-30'],
    ]);
    await expectActions(loanId, [
      ['PAUSE', '2023-10-15', '2023-10-30'],
      ['RESUME', '2023-10-25', null],
      ['PAUSE', '2023-11-14', '2023-11-30'],
    ]);
    await expectLoanLevel(loanId, ['RANGE_3', '750.00', '2023-10-04', 31, 44]);
    await expectInstallmentLevel(loanId, tagsBeforePause);
    // --- Second delinquency ends ---
    setBusinessDate('2023-11-30');
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [
      [false, '2023-10-15', '2023-10-25'],
      [true, '2023-11-14', '2023-11-30'],
    ]);
    await expectLoanLevel(loanId, ['RANGE_3', '1000.00', '2023-10-04', 31, 60]);
    await expectInstallmentLevel(loanId, tagsBeforePause);
    // --- Delinquency runs again ---
    setBusinessDate('2023-12-01');
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [
      [false, '2023-10-15', '2023-10-25'],
      [false, '2023-11-14', '2023-11-30'],
    ]);
    await expectLoanLevel(loanId, ['RANGE_30', '1000.00', '2023-10-04', 32, 61]);
    await expectInstallmentLevel(loanId, [
      [2, 'RANGE_3', '500.00'],
      [3, 'RANGE_30', '250.00'],
    ]);
  }, 120_000);

  it('Verify Loan delinquency pause E2E - partial repayment during PAUSE period', async () => {
    const loanId = await lp2Loan();
    // --- Delinquency pause ---
    setBusinessDate('2023-10-06');
    await delinquencyAction(loanId, { action: 'pause', startDate: '2023-10-06', endDate: '2023-10-30' });
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [[true, '2023-10-06', '2023-10-30']]);
    await expectActions(loanId, [['PAUSE', '2023-10-06', '2023-10-30']]);
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '250.00', '2023-10-04', 2, 5]);
    // --- Partial repayment of the late installment: the payment sets the tags, the pause notwithstanding ---
    setBusinessDate('2023-10-16');
    await expectPausePeriods(loanId, [[true, '2023-10-06', '2023-10-30']]);
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '250.00', '2023-10-04', 2, 15]);
    await repayment(loanId, '2023-10-16', '150.00');
    await inlineCob(loanId);
    await expectPausePeriods(loanId, [[true, '2023-10-06', '2023-10-30']]);
    await expectActions(loanId, [['PAUSE', '2023-10-06', '2023-10-30']]);
    await expectLoanLevel(loanId, ['RANGE_1', '100.00', '2023-10-04', 2, 15]);
    await expectInstallmentLevel(loanId, [[2, 'RANGE_3', '100.00']]);
  }, 120_000);

  it('Verify that in case of resume on end/start date of continous pause periods first period ends automatically, second period ended by resume', async () => {
    const loanId = await lp2Loan();
    setBusinessDate('2023-10-25');
    await delinquencyAction(loanId, { action: 'pause', startDate: '2023-10-25', endDate: '2023-10-30' });
    await expectActions(loanId, [['PAUSE', '2023-10-25', '2023-10-30']]);
    await expectPausePeriods(loanId, [[true, '2023-10-25', '2023-10-30']]);
    setBusinessDate('2023-10-30');
    await delinquencyAction(loanId, { action: 'pause', startDate: '2023-10-30', endDate: '2023-11-15' });
    await expectActions(loanId, [
      ['PAUSE', '2023-10-25', '2023-10-30'],
      ['PAUSE', '2023-10-30', '2023-11-15'],
    ]);
    await expectPausePeriods(loanId, [
      [true, '2023-10-25', '2023-10-30'],
      [true, '2023-10-30', '2023-11-15'],
    ]);
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '500.00', '2023-10-04', 21, 29]);
    await expectInstallmentLevel(loanId, []);
    await delinquencyAction(loanId, { action: 'resume', startDate: '2023-10-30' });
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '500.00', '2023-10-04', 21, 29]);
    await expectInstallmentLevel(loanId, []);
    await inlineCob(loanId);
    await expectActions(loanId, [
      ['PAUSE', '2023-10-25', '2023-10-30'],
      ['PAUSE', '2023-10-30', '2023-11-15'],
      ['RESUME', '2023-10-30', null],
    ]);
    await expectPausePeriods(loanId, [
      [true, '2023-10-25', '2023-10-30'],
      [true, '2023-10-30', '2023-10-30'],
    ]);
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '500.00', '2023-10-04', 21, 29]);
    setBusinessDate('2023-10-31');
    await expectPausePeriods(loanId, [
      [false, '2023-10-25', '2023-10-30'],
      [false, '2023-10-30', '2023-10-30'],
    ]);
    await expectLoanLevel(loanId, ['NO_DELINQUENCY', '500.00', '2023-10-04', 22, 30]);
  }, 120_000);
});

describe('Fineract LoanChargeOff.feature: a charge-off on the charge’s due date with close-of-business runs', () => {
  it("Verify that the accrual of charges is not happened when the loan is charged-off on charge's due date but resumed when the charge-off is reverted", async () => {
    setBusinessDate('2023-01-01');
    const loanId = await activeLp1Loan(ctx, cred, '2023-01-01');
    const snoozeFee = (amount: string) =>
      createLp1Charge(ctx, cred, { name: `LOAN_SNOOZE_FEE ${uniqueRef('c')}`, amount });
    const addCharge = async (chargeId: number, dueDate: string) => {
      await catchUp(loanId);
      const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, { chargeId, dueDate });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    };
    await inlineCob(loanId);
    setBusinessDate('2023-01-02');
    await addCharge(await snoozeFee('10'), '2023-01-02');
    await inlineCob(loanId);
    setBusinessDate('2023-01-03');
    await inlineCob(loanId);
    const schedule = async () => {
      const loan = await loanRead(loanId);
      return {
        lastClosedBusinessDate: loan.lastClosedBusinessDate,
        chargedOff: loan.chargedOff,
        periods: (loan.repaymentSchedule.periods as Record<string, unknown>[])
          .slice(1)
          .map((p) => [
            p.dueDate,
            p.principalDue,
            p.feeChargesDue,
            p.totalDueForPeriod,
            p.totalOutstandingForPeriod,
          ]),
        transactions: (
          loan.transactions as {
            date: string;
            type: { value: string };
            amount: string;
            principalPortion: string;
            feeChargesPortion: string;
            outstandingLoanBalance: string;
          }[]
        ).map((t) => [
          t.date,
          t.type.value,
          t.amount,
          t.principalPortion,
          t.feeChargesPortion,
          t.outstandingLoanBalance,
        ]),
      };
    };
    expect(await schedule()).toEqual({
      lastClosedBusinessDate: '2023-01-02',
      chargedOff: false,
      periods: [['2023-01-31', '1000.00', '10.00', '1010.00', '1010.00']],
      transactions: [['2023-01-01', 'Disbursement', '1000.00', '0.00', '0.00', '1000.00']],
    });
    setBusinessDate('2023-01-04');
    await addCharge(await snoozeFee('15'), '2023-01-04');
    const chargedOff = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/transactions?command=charge-off`, {
      transactionDate: '2023-01-04',
      reason: 'Uncollectible',
    });
    expect(chargedOff.status, JSON.stringify(chargedOff.body)).toBe(200);
    await inlineCob(loanId);
    setBusinessDate('2023-01-05');
    await inlineCob(loanId);
    const afterChargeOff = [
      ['2023-01-01', 'Disbursement', '1000.00', '0.00', '0.00', '1000.00'],
      ['2023-01-04', 'Charge-off', '1025.00', '1000.00', '25.00', '0.00'],
    ];
    expect(await schedule()).toEqual({
      lastClosedBusinessDate: '2023-01-04',
      chargedOff: true,
      periods: [['2023-01-31', '1000.00', '25.00', '1025.00', '1025.00']],
      transactions: afterChargeOff,
    });
    setBusinessDate('2023-01-06');
    await inlineCob(loanId);
    setBusinessDate('2023-01-07');
    await catchUp(loanId);
    const undone = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/transactions?command=undo-charge-off`);
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    await inlineCob(loanId);
    // The reverted charge-off is no longer listed (docs/lending.md "Charge-off").
    expect(await schedule()).toEqual({
      lastClosedBusinessDate: '2023-01-06',
      chargedOff: false,
      periods: [['2023-01-31', '1000.00', '25.00', '1025.00', '1025.00']],
      transactions: [afterChargeOff[0]],
    });
  }, 120_000);
});
