/**
 * `applyLoanRelief` (activities/lending/loan-relief.ts) on the real database: each relief type on a disbursed loan
 * with two payments conserves the total due (deferral, forbearance, reduced payment) or reduces it by exactly the
 * reported amount (fee waiver, rate reduction, principal forgiveness); due dates stay strictly increasing, no
 * amount is negative; the schedule history has versions 1 and 2 (3 after a second relief); a payment recorded
 * after a deferral is allocated against the new schedule; the tenant's trial balance stays zero; the summary
 * read answers the stored state and the replay alike; a relief the schedule cannot take is a 409 that changes
 * nothing. Loans from ledger-fixtures.ts: 600.00 USD, 6 monthly installments from 2025-01-01 (due 2025-02-01 …
 * 2025-07-01) of 100.00 principal, 6.00 flat interest and a 2.00 fee (108.00 each), the docs/design.md §5 default order.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApplyLoanReliefInput, applyLoanRelief } from '../../activities/lending/loan-relief';
import { getLoanSummary } from '../../db/queries/lending/ledger';
import { getLoanScheduleVersions } from '../../db/queries/lending/schedule-versions';
import { journalEntries, loanDelinquencyActions, loanInstallments, loans, payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import type { RequestedRelief } from '../../domain/hardship/offer';
import type { PaymentAllocationPayload } from '../../domain/lending/allocation/payload';
import { parseDecimalToMinor } from '../../domain/money';
import { type ActivityHarness, createHarness, expectDomainError, newTenant } from './helpers';
import { accountBalances, approvedLoan, type LoanFixture, tenantTrialBalance } from './ledger-fixtures';

let h: ActivityHarness;
let tenantId: string;
let refCounter = 0;

beforeAll(async () => {
  h = createHarness();
  tenantId = await newTenant(h, 'relief');
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.now.value = new Date('2025-03-15T12:00:00Z');
});

const newRef = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(refCounter++).toString(36)}`;
const cents = (amount: string): bigint => parseDecimalToMinor(amount, 2, { allowTrailingZeros: true });

function rows<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withTenantTransaction(h.db, tenantId, fn);
}

async function pay(loan: LoanFixture, amount: string, effectiveDate: string) {
  return h.activities.recordExternalPayment({
    tenantId,
    loanId: loan.loanId,
    amount,
    currency: 'USD',
    effectiveDate,
    externalRecordRef: newRef('pay'),
    source: 'IMPORT',
    rationale: 'Boarded history',
  });
}

/** A 600.00 loan funded on 2025-01-01 with its first two installments paid on their due dates. */
async function loanWithPayments(): Promise<LoanFixture> {
  const loan = await approvedLoan(h, tenantId, { principal: '600.00', numberOfRepayments: 6 });
  await h.activities.recordExternalFunding({
    tenantId,
    loanId: loan.loanId,
    amount: '600.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: newRef('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate: '2025-01-01',
  });
  await pay(loan, '108.00', '2025-02-01');
  await pay(loan, '108.00', '2025-03-01');
  return loan;
}

let offerCounter = 1;
function apply(
  loan: LoanFixture,
  requestedRelief: RequestedRelief,
  asOfDate = '2025-03-15',
  offerId = offerCounter++,
) {
  const input: ApplyLoanReliefInput = {
    tenantId,
    loanId: loan.loanId,
    requestedRelief,
    asOfDate,
    source: { kind: 'HARDSHIP_OFFER', offerId },
    actor: 'agent-relief',
    now: h.now.value!,
  };
  return withTenantTransaction(h.db, tenantId, (tx) => applyLoanRelief(tx, input));
}

const installmentsOf = (loan: LoanFixture) =>
  rows((tx) =>
    tx
      .select()
      .from(loanInstallments)
      .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loan.loanId)))
      .orderBy(loanInstallments.installmentNumber),
  );

type InstallmentRow = Awaited<ReturnType<typeof installmentsOf>>[number];
const dueOf = (row: InstallmentRow) =>
  cents(row.principalDue) + cents(row.interestDue) + cents(row.feeChargesDue) + cents(row.penaltyChargesDue);
const totalDue = (installments: readonly InstallmentRow[]) =>
  installments.reduce((sum, row) => sum + dueOf(row), 0n);

/** Due dates strictly increasing, every amount ≥ 0, every paid component ≤ its due component. */
function expectWellFormed(installments: readonly InstallmentRow[]) {
  installments.forEach((row, index) => {
    expect(row.installmentNumber).toBe(index + 1);
    if (index > 0) expect(row.dueDate > installments[index - 1]!.dueDate).toBe(true);
    expect(row.fromDate <= row.dueDate).toBe(true);
    for (const [due, paid] of [
      [row.principalDue, row.principalPaid],
      [row.interestDue, row.interestPaid],
      [row.feeChargesDue, row.feeChargesPaid],
      [row.penaltyChargesDue, row.penaltyChargesPaid],
    ] as const) {
      expect(cents(paid) >= 0n).toBe(true);
      expect(cents(due) >= cents(paid)).toBe(true);
    }
  });
}

async function expectTrialBalanceZero() {
  const totals = await tenantTrialBalance(h.db, tenantId);
  expect(totals.length).toBeGreaterThan(0);
  for (const total of totals) expect(total.debit, total.currency).toBe(total.credit);
}

/** The summary from the stored state equals the replay's (both read the stored installments). */
async function expectSummaryModesAgree(loan: LoanFixture, asOfDate: string) {
  const stored = await getLoanSummary(h.db, tenantId, loan.loanId, asOfDate, h.now.value!);
  const replayed = await getLoanSummary(h.db, tenantId, loan.loanId, asOfDate, h.now.value!, 'replay');
  expect(stored).toEqual(replayed);
  return stored!;
}

describe('applyLoanRelief', () => {
  it('PAYMENT_DEFERRAL moves the next installments to the end, keeps the total, writes versions 1 and 2, and a later payment is allocated against the new schedule', async () => {
    const loan = await loanWithPayments();
    const before = await installmentsOf(loan);
    const applied = await apply(loan, { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 2 } });

    expect(applied).toMatchObject({
      scheduleVersion: 2,
      installmentCountBefore: 6,
      installmentCountAfter: 8,
      totalDueBefore: '64800',
      totalDueAfter: '64800',
      journalEntryId: null,
      summary: {
        reliefType: 'PAYMENT_DEFERRAL',
        asOfDate: '2025-03-15',
        movedMinor: '21600',
        reductionTotalMinor: '0',
        changedInstallmentNumbers: [3, 4],
        addedInstallmentNumbers: [7, 8],
      },
    });
    const after = await installmentsOf(loan);
    expect(after).toHaveLength(8);
    expectWellFormed(after);
    expect(totalDue(after)).toBe(totalDue(before));
    expect(after.slice(2, 4).map(dueOf)).toEqual([0n, 0n]);
    expect(after.slice(6).map((row) => [row.fromDate, row.dueDate, dueOf(row)])).toEqual([
      ['2025-07-01', '2025-08-01', 10800n],
      ['2025-08-01', '2025-09-01', 10800n],
    ]);

    // the deferred span (installments 3 and 4, due 2025-04-01 and 2025-05-01) pauses the arrears' ageing
    const pauses = await rows((tx) =>
      tx
        .select({
          action: loanDelinquencyActions.action,
          startDate: loanDelinquencyActions.startDate,
          endDate: loanDelinquencyActions.endDate,
        })
        .from(loanDelinquencyActions)
        .where(eq(loanDelinquencyActions.loanId, loan.loanId)),
    );
    expect(pauses).toEqual([{ action: 'PAUSE', startDate: '2025-03-15', endDate: '2025-05-01' }]);

    const versions = await getLoanScheduleVersions(h.db, tenantId, loan.loanId);
    expect(versions.map((v) => [v.version, v.reason, v.installmentCount, v.totalDueMinor])).toEqual([
      [2, 'HARDSHIP_RELIEF', 8, '64800'],
      [1, 'ORIGINAL', 6, '64800'],
    ]);
    expect(versions[0]).toMatchObject({
      source: { kind: 'HARDSHIP_OFFER', id: expect.any(Number) },
      reliefType: 'PAYMENT_DEFERRAL',
      asOfDate: '2025-03-15',
      createdBy: 'agent-relief',
      summary: applied.summary,
    });
    expect(versions[1]!.installments.map((i) => i.dueDate)).toEqual(before.map((row) => row.dueDate));
    expect(versions[0]!.installments[2]).toMatchObject({ installmentNumber: 3, principalDueMinor: '0' });

    // A payment on the deferred installment's old due date: nothing is demanded of installments 3 and 4, so it
    // goes in advance to installment 5; the appended installments survive the repost.
    h.now.value = new Date('2025-04-02T12:00:00Z');
    const payment = await pay(loan, '108.00', '2025-04-01');
    const [stored] = await rows((tx) => tx.select().from(payments).where(eq(payments.id, payment.paymentId)));
    const lines = (stored!.allocation as unknown as PaymentAllocationPayload).lines;
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.installmentNumber === 5)).toBe(true);
    const reposted = await installmentsOf(loan);
    expect(reposted).toHaveLength(8);
    expect(totalDue(reposted)).toBe(totalDue(before));
    expect(dueOf(reposted[4]!)).toBe(10800n);
    expect(cents(reposted[4]!.principalPaid) + cents(reposted[4]!.interestPaid)).toBe(10600n);

    // the summary: nothing overdue on 2025-04-15 (installments 3 and 4 deferred), the stored state and the replay agree
    const summary = await expectSummaryModesAgree(loan, '2025-04-15');
    expect(summary.overdue.total).toBe('0.00');
    expect(summary.balances.totalOutstanding).toBe('324.00');
    await expectTrialBalanceZero();

    // a second relief: version 3
    const second = await apply(
      loan,
      { reliefType: 'FORBEARANCE', params: { installmentCount: 1, paymentReductionBasisPoints: 5000 } },
      '2025-04-15',
    );
    expect(second.scheduleVersion).toBe(3);
    const history = await getLoanScheduleVersions(h.db, tenantId, loan.loanId);
    expect(history.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(history[0]!.reliefType).toBe('FORBEARANCE');
    expectWellFormed(await installmentsOf(loan));
    await expectTrialBalanceZero();
  });

  it('FORBEARANCE halves the next installment and recovers it over the later ones: total and count kept', async () => {
    const loan = await loanWithPayments();
    const before = await installmentsOf(loan);
    const applied = await apply(loan, {
      reliefType: 'FORBEARANCE',
      params: { installmentCount: 1, paymentReductionBasisPoints: 5000 },
    });
    expect(applied).toMatchObject({
      scheduleVersion: 2,
      installmentCountBefore: 6,
      installmentCountAfter: 6,
      totalDueBefore: '64800',
      totalDueAfter: '64800',
      journalEntryId: null,
    });
    const after = await installmentsOf(loan);
    expectWellFormed(after);
    expect(totalDue(after)).toBe(totalDue(before));
    expect(dueOf(after[2]!)).toBe(5400n);
    expect(dueOf(after[3]!) + dueOf(after[4]!) + dueOf(after[5]!)).toBe(3n * 10800n + 5400n);
    expect(after.slice(0, 2).map(dueOf)).toEqual([10800n, 10800n]);
    await expectSummaryModesAgree(loan, '2025-03-15');
    await expectTrialBalanceZero();
  });

  it('REDUCED_PAYMENT caps the next installments and appends the shortfalls: total kept, count + 2', async () => {
    const loan = await loanWithPayments();
    const before = await installmentsOf(loan);
    const applied = await apply(loan, {
      reliefType: 'REDUCED_PAYMENT',
      params: { installmentCount: 2, reducedPaymentMinor: 5000n },
    });
    expect(applied).toMatchObject({
      installmentCountBefore: 6,
      installmentCountAfter: 8,
      totalDueBefore: '64800',
      totalDueAfter: '64800',
      journalEntryId: null,
    });
    const after = await installmentsOf(loan);
    expectWellFormed(after);
    expect(totalDue(after)).toBe(totalDue(before));
    expect(after.slice(2, 4).map(dueOf)).toEqual([5000n, 5000n]);
    expect(after.slice(6).map(dueOf)).toEqual([5800n, 5800n]);
    await expectTrialBalanceZero();
  });

  it('FEE_WAIVER reduces the total by exactly the waived fees; cash basis: no posting, trial balance zero', async () => {
    const loan = await loanWithPayments();
    const before = await installmentsOf(loan);
    const journalBefore = await accountBalances(h.db, tenantId, loan.loanId);
    const applied = await apply(loan, {
      reliefType: 'FEE_WAIVER',
      params: { fromDate: '2025-04-01', toDate: '2025-05-01', maximumWaiverMinor: 300n },
    });
    expect(applied).toMatchObject({
      totalDueBefore: '64800',
      totalDueAfter: '64500',
      journalEntryId: null,
      summary: { reductionTotalMinor: '300', reductionMinor: { feeMinor: '300', principalMinor: '0' } },
    });
    const after = await installmentsOf(loan);
    expectWellFormed(after);
    expect(totalDue(before) - totalDue(after)).toBe(300n);
    expect(after.map((row) => cents(row.feeChargesDue))).toEqual([200n, 200n, 0n, 100n, 200n, 200n]);
    expect(await accountBalances(h.db, tenantId, loan.loanId)).toEqual(journalBefore);
    const summary = await expectSummaryModesAgree(loan, '2025-03-15');
    expect(summary.balances.feeOutstanding).toBe('5.00');
    await expectTrialBalanceZero();
  });

  it('RATE_REDUCTION recomputes the open interest at the reduced rate: reduced by exactly the reported amount', async () => {
    const loan = await loanWithPayments();
    const before = await installmentsOf(loan);
    const applied = await apply(loan, {
      reliefType: 'RATE_REDUCTION',
      params: { currentRateBasisPoints: 1200, reducedRateBasisPoints: 600 },
    });
    expect(applied).toMatchObject({
      totalDueBefore: '64800',
      totalDueAfter: '63600',
      journalEntryId: null,
      summary: { reductionTotalMinor: '1200', reductionMinor: { interestMinor: '1200' } },
    });
    const after = await installmentsOf(loan);
    expectWellFormed(after);
    expect(totalDue(before) - totalDue(after)).toBe(1200n);
    expect(after.map((row) => cents(row.interestDue))).toEqual([600n, 600n, 300n, 300n, 300n, 300n]);
    expect(after.map((row) => row.principalDue)).toEqual(before.map((row) => row.principalDue));
    // a rate reduction defers nothing: no delinquency pause
    const pauses = await rows((tx) =>
      tx.select().from(loanDelinquencyActions).where(eq(loanDelinquencyActions.loanId, loan.loanId)),
    );
    expect(pauses).toEqual([]);
    await expectTrialBalanceZero();
  });

  it('PRINCIPAL_FORGIVENESS writes the principal off: Dr PRINCIPAL_FORGIVENESS_EXPENSE / Cr LOAN_PORTFOLIO, kept by later reposts; the payoff then closes the loan', async () => {
    const loan = await loanWithPayments();
    const before = await installmentsOf(loan);
    const applied = await apply(loan, {
      reliefType: 'PRINCIPAL_FORGIVENESS',
      params: { amountMinor: 15000n },
    });
    expect(applied).toMatchObject({
      scheduleVersion: 2,
      totalDueBefore: '64800',
      totalDueAfter: '49800',
      journalEntryId: expect.any(Number),
      summary: { reductionTotalMinor: '15000', reductionMinor: { principalMinor: '15000' } },
    });
    const after = await installmentsOf(loan);
    expectWellFormed(after);
    expect(totalDue(before) - totalDue(after)).toBe(15000n);
    expect(after.map((row) => cents(row.principalDue))).toEqual([10000n, 10000n, 10000n, 10000n, 5000n, 0n]);

    const journal = await rows((tx) =>
      tx
        .select()
        .from(journalEntries)
        .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.loanId, loan.loanId)))
        .orderBy(journalEntries.id),
    );
    const forgiveness = journal.filter((line) => line.transactionRef.startsWith('forgiveness/'));
    expect(forgiveness.map((line) => [line.accountCode, line.debit, line.credit, line.entryDate])).toEqual([
      ['PRINCIPAL_FORGIVENESS_EXPENSE', '150.000000', '0.000000', '2025-03-15'],
      ['LOAN_PORTFOLIO', '0.000000', '150.000000', '2025-03-15'],
    ]);
    expect(forgiveness[0]!.id).toBe(applied.journalEntryId);
    expect(await accountBalances(h.db, tenantId, loan.loanId)).toMatchObject({
      LOAN_PORTFOLIO: '250.00',
      PRINCIPAL_FORGIVENESS_EXPENSE: '150.00',
    });
    await expectTrialBalanceZero();
    const summary = await expectSummaryModesAgree(loan, '2025-03-15');
    expect(summary.balances.principalOutstanding).toBe('250.00');

    // a later payment reposts the loan: the forgiveness stays booked once, and paying the payoff closes the loan
    h.now.value = new Date('2025-03-20T12:00:00Z');
    await pay(loan, '108.00', '2025-03-16');
    const payoff = await expectSummaryModesAgree(loan, '2025-03-20');
    await pay(loan, payoff.payoff.total, '2025-03-20');
    const journalAfter = await rows((tx) =>
      tx
        .select()
        .from(journalEntries)
        .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.loanId, loan.loanId))),
    );
    expect(journalAfter.filter((line) => line.transactionRef.startsWith('forgiveness/'))).toHaveLength(2);
    expect(await accountBalances(h.db, tenantId, loan.loanId)).toMatchObject({
      LOAN_PORTFOLIO: '0.00',
      PRINCIPAL_FORGIVENESS_EXPENSE: '150.00',
    });
    const closed = await expectSummaryModesAgree(loan, '2025-03-20');
    const [loanRow] = await rows((tx) => tx.select().from(loans).where(eq(loans.id, loan.loanId)));
    expect(loanRow!.status).toBe('CLOSED_OBLIGATIONS_MET');
    expect(closed.balances.totalOutstanding).toBe('0.00');
    await expectTrialBalanceZero();
  });

  it('is idempotent per source: the same offer applied again answers the same and writes nothing', async () => {
    const loan = await loanWithPayments();
    const offerId = offerCounter++;
    const relief: RequestedRelief = { reliefType: 'PRINCIPAL_FORGIVENESS', params: { amountMinor: 5000n } };
    const first = await apply(loan, relief, '2025-03-15', offerId);
    const installments = await installmentsOf(loan);
    const balances = await accountBalances(h.db, tenantId, loan.loanId);
    const again = await apply(loan, relief, '2025-03-15', offerId);
    expect(again).toEqual(first);
    expect(await installmentsOf(loan)).toEqual(installments);
    expect(await accountBalances(h.db, tenantId, loan.loanId)).toEqual(balances);
    expect((await getLoanScheduleVersions(h.db, tenantId, loan.loanId)).map((v) => v.version)).toEqual([
      2, 1,
    ]);
    // the same offer on another loan is refused
    const other = await loanWithPayments();
    const error = await expectDomainError(
      apply(other, relief, '2025-03-15', offerId),
      'error.msg.hardship.relief.not.applicable',
    );
    expect(error.errors[0]).toMatchObject({ parameterName: 'loanId' });
    expect(await getLoanScheduleVersions(h.db, tenantId, other.loanId)).toEqual([]);
  });

  it('a relief the schedule cannot take is a 409 that changes nothing (installments, versions, journal)', async () => {
    const loan = await loanWithPayments();
    const before = await installmentsOf(loan);
    const journalBefore = await accountBalances(h.db, tenantId, loan.loanId);
    const error = await expectDomainError(
      apply(loan, { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 5 } }),
      'error.msg.hardship.relief.not.applicable',
    );
    expect(error.status).toBe(409);
    await expectDomainError(
      apply(loan, {
        reliefType: 'RATE_REDUCTION',
        params: { currentRateBasisPoints: 1200, reducedRateBasisPoints: 1200 },
      }),
      'error.msg.hardship.relief.not.applicable',
    );
    await expectDomainError(
      apply(loan, { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 0 } }),
      'validation.msg.validation.errors.exist',
    );
    // the loan's nominal rate is 12 % a year (1200 bp): a reduction from another current rate would scale wrongly
    const wrongRate = await expectDomainError(
      apply(loan, {
        reliefType: 'RATE_REDUCTION',
        params: { currentRateBasisPoints: 1800, reducedRateBasisPoints: 600 },
      }),
      'error.msg.hardship.relief.not.applicable',
    );
    expect(wrongRate.errors[0]).toMatchObject({
      parameterName: 'requestedRelief.params.currentRateBasisPoints',
    });
    expect(await installmentsOf(loan)).toEqual(before);
    expect(await getLoanScheduleVersions(h.db, tenantId, loan.loanId)).toEqual([]);
    expect(await accountBalances(h.db, tenantId, loan.loanId)).toEqual(journalBefore);
  });

  it('a loan that is not ACTIVE takes no relief (409 naming loanId)', async () => {
    const loan = await approvedLoan(h, tenantId, { principal: '600.00', numberOfRepayments: 6 });
    const error = await expectDomainError(
      apply(loan, { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 1 } }),
      'error.msg.hardship.relief.not.applicable',
    );
    expect(error.errors[0]).toMatchObject({ parameterName: 'loanId' });
    expect(await getLoanScheduleVersions(h.db, tenantId, loan.loanId)).toEqual([]);
  });
});
