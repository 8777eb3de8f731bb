/**
 * A loan's step of close of business (activities/lending/close-loan-business-day.ts; docs/processes.md P7) on the
 * real database: penalties, delinquency tag and history, notices, collections cases, automatic charge-off, the
 * boarded loan's start, and the same day twice changing nothing; the tenant's trial balance zero after each step.
 * Loans come from ledger-fixtures.ts: 300.00 USD disbursed 2025-01-01, 3 monthly installments due 2025-02-01,
 * 03-01 and 04-01 of 100.00 principal, 3.00 interest and a 2.00 fee (105.00 each).
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeLoansForDay } from '../../activities/lending/close-loan-business-day';
import {
  caseEffects,
  cases,
  loanChargeOffs,
  loanCharges,
  loanDelinquencyHistory,
  loanProductCharges,
  loans,
  outboxEvents,
  tasks,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, newTenant } from './helpers';
import {
  approvedLoan,
  type LoanFixture,
  type LoanFixtureOptions,
  tenantTrialBalance,
} from './ledger-fixtures';

let h: ActivityHarness;
let refCounter = 0;

beforeAll(() => {
  h = createHarness();
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.now.value = new Date('2025-06-01T12:00:00Z');
});

const newRef = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(refCounter++).toString(36)}`;

/** An ACTIVE fixture loan (funded 2025-01-01) with the given delinquency settings in its terms. */
async function activeLoan(
  tenantId: string,
  delinquency: { delinquencyBucketId?: number | null; chargeOffDaysPastDue?: number | null } = {},
  options: LoanFixtureOptions = {},
): Promise<LoanFixture> {
  const loan = await approvedLoan(h, tenantId, options);
  await h.activities.recordExternalFunding({
    tenantId,
    loanId: loan.loanId,
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: newRef('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate: '2025-01-01',
  });
  await withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .update(loans)
      .set({
        terms: sql`${loans.terms} || ${JSON.stringify({
          delinquency: {
            delinquencyBucketId: delinquency.delinquencyBucketId ?? null,
            graceOnArrearsAgeing: 0,
            enableInstallmentLevelDelinquency: false,
            chargeOffDaysPastDue: delinquency.chargeOffDaysPastDue ?? null,
          },
        })}::jsonb`,
        createdAt: new Date('2024-12-15T12:00:00Z'),
      })
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loan.loanId))),
  );
  return loan;
}

async function overdueCharge(tenantId: string, productId: number, amount: string, calculation: 1 | 2 | 3) {
  const { chargeId } = await h.activities.createCharge({
    tenantId,
    name: `Late ${calculation}`,
    currencyCode: 'USD',
    amount,
    chargeAppliesTo: 1,
    chargeTimeType: 9,
    chargeCalculationType: calculation,
    penalty: true,
    active: true,
  });
  await withTenantTransaction(h.db, tenantId, (tx) =>
    tx.insert(loanProductCharges).values({ tenantId, productId, chargeId }),
  );
  return chargeId;
}

const close = (tenantId: string, businessDate: string, loanIds: number[]) =>
  closeLoansForDay(h.deps)({ tenantId, businessDate, loanIds });

const loanRow = async (tenantId: string, loanId: number) =>
  (
    await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(loans)
        .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId))),
    )
  )[0]!;

const eventsOf = async (tenantId: string, loanId: number, eventType: string) =>
  withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select({ data: outboxEvents.data })
      .from(outboxEvents)
      .where(
        and(
          eq(outboxEvents.tenantId, tenantId),
          eq(outboxEvents.subjectId, String(loanId)),
          eq(outboxEvents.eventType, eventType),
        ),
      )
      .orderBy(outboxEvents.id),
  ).then((rows) => rows.map((r) => r.data as Record<string, unknown>));

const penaltiesOf = async (tenantId: string, loanId: number) =>
  withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select({
        chargeId: loanCharges.chargeId,
        installmentNumber: loanCharges.installmentNumber,
        dueDate: loanCharges.dueDate,
        amount: sql<string>`${loanCharges.amount}::numeric(19,2)::text`,
      })
      .from(loanCharges)
      .where(
        and(
          eq(loanCharges.tenantId, tenantId),
          eq(loanCharges.loanId, loanId),
          eq(loanCharges.penalty, true),
        ),
      )
      .orderBy(loanCharges.id),
  );

const historyOf = async (tenantId: string, loanId: number) =>
  withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(loanDelinquencyHistory)
      .where(and(eq(loanDelinquencyHistory.tenantId, tenantId), eq(loanDelinquencyHistory.loanId, loanId)))
      .orderBy(loanDelinquencyHistory.id),
  );

async function expectBalanced(tenantId: string) {
  const rows = await tenantTrialBalance(h.db, tenantId);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) expect(row.debit).toBe(row.credit);
}

/** A bucket: 1–3 days EARLY, 4–60 LATE (opens a GENERAL collections case), 61+ SEVERE. */
async function bucket(tenantId: string) {
  const early = await h.activities.createDelinquencyRange({
    tenantId,
    classification: `EARLY-${tenantId}`,
    minimumAgeDays: 1,
    maximumAgeDays: 3,
  });
  const late = await h.activities.createDelinquencyRange({
    tenantId,
    classification: `LATE-${tenantId}`,
    minimumAgeDays: 4,
    maximumAgeDays: 60,
    collectionsCaseTypeCode: 'GENERAL',
  });
  const severe = await h.activities.createDelinquencyRange({
    tenantId,
    classification: `SEVERE-${tenantId}`,
    minimumAgeDays: 61,
    maximumAgeDays: null,
  });
  const { bucketId } = await h.activities.createDelinquencyBucket({
    tenantId,
    name: `B-${tenantId}`,
    ranges: [early.rangeId, late.rangeId, severe.rangeId],
  });
  return { bucketId, early: `EARLY-${tenantId}`, late: `LATE-${tenantId}`, severe: `SEVERE-${tenantId}` };
}

describe('close of business: the loan step', () => {
  it('a current loan with nothing due gets only the stamp; the same day again is SKIPPED', async () => {
    const tenantId = await newTenant(h, 'cob');
    const loan = await activeLoan(tenantId);
    const before = await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed');
    expect(await close(tenantId, '2025-01-10', [loan.loanId])).toEqual([
      { loanId: loan.loanId, outcome: 'CLOSED' },
    ]);
    const row = await loanRow(tenantId, loan.loanId);
    expect(row.lastClosedBusinessDate).toBe('2025-01-10');
    expect(row.delinquencyRangeId).toBeNull();
    expect(await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed')).toEqual(before);
    expect(await close(tenantId, '2025-01-10', [loan.loanId])).toEqual([
      { loanId: loan.loanId, outcome: 'SKIPPED' },
    ]);
    expect(await close(tenantId, '2025-01-09', [loan.loanId])).toEqual([
      { loanId: loan.loanId, outcome: 'SKIPPED' },
    ]);
  });

  it('answers FAILED for an unknown loan without stopping the others', async () => {
    const tenantId = await newTenant(h, 'cob');
    const loan = await activeLoan(tenantId);
    const outcomes = await close(tenantId, '2025-01-10', [999_999_999, loan.loanId]);
    expect(outcomes[0]).toMatchObject({ loanId: 999_999_999, outcome: 'FAILED' });
    expect(outcomes[1]).toEqual({ loanId: loan.loanId, outcome: 'CLOSED' });
  });

  it('assesses a flat penalty once per installment after the wait period, dated the due date', async () => {
    const tenantId = await newTenant(h, 'cob');
    const loan = await activeLoan(tenantId);
    const chargeId = await overdueCharge(tenantId, loan.productId, '10', 1);
    // As of 2025-02-03 installment 1 is 2 days overdue: not more than the 2-day wait.
    await close(tenantId, '2025-02-02', [loan.loanId]);
    expect(await penaltiesOf(tenantId, loan.loanId)).toEqual([]);
    await close(tenantId, '2025-02-03', [loan.loanId]);
    expect(await penaltiesOf(tenantId, loan.loanId)).toEqual([
      { chargeId, installmentNumber: 1, dueDate: '2025-02-01', amount: '10.00' },
    ]);
    const events = await eventsOf(tenantId, loan.loanId, 'loan.penalty.assessed');
    expect(events).toEqual([
      expect.objectContaining({
        chargeId,
        installmentNumber: 1,
        dueDate: '2025-02-01',
        amount: '10.00',
        currency: 'USD',
        businessDate: '2025-02-03',
      }),
    ]);
    await expectBalanced(tenantId);
    await close(tenantId, '2025-02-04', [loan.loanId]);
    await close(tenantId, '2025-02-20', [loan.loanId]);
    expect(await penaltiesOf(tenantId, loan.loanId)).toHaveLength(1);
    // The installment's penalty is owed: a payment of 115.00 pays installment 1 whole.
    const summary = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx.execute(
        sql`select penalty_charges_due::numeric(19,2)::text as p from loan_installments where tenant_id = ${tenantId} and loan_id = ${loan.loanId} and installment_number = 1`,
      ),
    );
    expect((summary as unknown as { p: string }[])[0]?.p).toBe('10.00');
    await expectBalanced(tenantId);
  });

  it('computes % of principal and % of principal + interest to the cent, HALF_EVEN', async () => {
    const tenantId = await newTenant(h, 'cob');
    const loan = await activeLoan(tenantId);
    const ofPrincipal = await overdueCharge(tenantId, loan.productId, '1.5', 2);
    const ofPrincipalAndInterest = await overdueCharge(tenantId, loan.productId, '1.5', 3);
    await close(tenantId, '2025-02-05', [loan.loanId]);
    expect(await penaltiesOf(tenantId, loan.loanId)).toEqual([
      { chargeId: ofPrincipal, installmentNumber: 1, dueDate: '2025-02-01', amount: '1.50' },
      // 1.5 % of 103.00 = 1.545 → 1.54 (HALF_EVEN)
      { chargeId: ofPrincipalAndInterest, installmentNumber: 1, dueDate: '2025-02-01', amount: '1.54' },
    ]);
    await expectBalanced(tenantId);
  });

  it('assesses no penalty while the borrower is SCRA/MLA protected, nor after charge-off', async () => {
    const tenantId = await newTenant(h, 'cob');
    const protectedLoan = await activeLoan(tenantId);
    await overdueCharge(tenantId, protectedLoan.productId, '10', 1);
    await h.activities.applyRestriction({
      tenantId,
      customerId: protectedLoan.customerId,
      restrictionType: 'SCRA_MLA_PROTECTED',
      reason: 'Active duty',
    });
    await close(tenantId, '2025-02-05', [protectedLoan.loanId]);
    expect(await penaltiesOf(tenantId, protectedLoan.loanId)).toEqual([]);
    expect(await loanRow(tenantId, protectedLoan.loanId)).toMatchObject({
      lastClosedBusinessDate: '2025-02-05',
    });

    const chargedOff = await activeLoan(tenantId);
    await overdueCharge(tenantId, chargedOff.productId, '10', 1);
    await h.activities.chargeOffLoan({
      tenantId,
      loanId: chargedOff.loanId,
      transactionDate: '2025-01-20',
      reason: 'Fraud suspected',
    });
    await close(tenantId, '2025-02-05', [chargedOff.loanId]);
    expect(await penaltiesOf(tenantId, chargedOff.loanId)).toEqual([]);
    await expectBalanced(tenantId);
  });

  it('stores a changed classification once: one history row, one event; a pause keeps the tag', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const { bucketId } = ranges;
    const loan = await activeLoan(tenantId, { delinquencyBucketId: bucketId });
    // As of 2025-02-02 installment 1 is 1 day delinquent: EARLY.
    await close(tenantId, '2025-02-01', [loan.loanId]);
    const history = await historyOf(tenantId, loan.loanId);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      businessDate: '2025-02-01',
      classification: ranges.early,
      previousClassification: 'NO_DELINQUENCY',
      delinquentDays: 1,
      collectionsCaseId: null,
    });
    expect(Number(history[0]!.delinquentAmount)).toBe(105);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed')).toEqual([
      {
        loanId: loan.loanId,
        loanRef: loan.accountNo,
        businessDate: '2025-02-01',
        previousClassification: 'NO_DELINQUENCY',
        classification: ranges.early,
        pastDueDays: 1,
        delinquentDays: 1,
        delinquentAmount: '105.00',
        currency: 'USD',
      },
    ]);
    expect((await loanRow(tenantId, loan.loanId)).delinquencyRangeId).not.toBeNull();
    // Still EARLY the next day: nothing new.
    await close(tenantId, '2025-02-02', [loan.loanId]);
    expect(await historyOf(tenantId, loan.loanId)).toHaveLength(1);
    // A pause active on D + 1 keeps the tag even though the loan would be LATE.
    await h.activities.createLoanDelinquencyAction({
      tenantId,
      loanId: loan.loanId,
      action: 'pause',
      startDate: '2025-02-04',
      endDate: '2025-02-10',
    });
    await close(tenantId, '2025-02-05', [loan.loanId]);
    expect(await historyOf(tenantId, loan.loanId)).toHaveLength(1);
    await expectBalanced(tenantId);
  });

  it('sends repayment notices for the covered days, at most the last 7', async () => {
    const tenantId = await newTenant(h, 'cob');
    const loan = await activeLoan(tenantId);
    // Never closed: covered from the disbursement, capped to 2025-01-23..01-29; 02-01 − 3 days = 01-29.
    await close(tenantId, '2025-01-29', [loan.loanId]);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.repayment.due')).toEqual([
      {
        loanId: loan.loanId,
        loanRef: loan.accountNo,
        installmentNumber: 1,
        dueDate: '2025-02-01',
        amountDue: '105.00',
        currency: 'USD',
        noticeDate: '2025-01-29',
      },
    ]);
    // Covered 01-30..02-02: 02-01 + 1 day = 02-02, installment 1 unpaid.
    await close(tenantId, '2025-02-02', [loan.loanId]);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.repayment.overdue')).toEqual([
      expect.objectContaining({ installmentNumber: 1, noticeDate: '2025-02-02', amountDue: '105.00' }),
    ]);
    // A catch-up from 02-03 to 03-05 looks at 02-27..03-05 only: installment 2's due notice (02-26) is not sent,
    // its overdue notice (03-02) is.
    await close(tenantId, '2025-03-05', [loan.loanId]);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.repayment.due')).toHaveLength(1);
    expect(
      (await eventsOf(tenantId, loan.loanId, 'loan.repayment.overdue')).map((e) => [
        e.installmentNumber,
        e.noticeDate,
      ]),
    ).toEqual([
      [1, '2025-02-02'],
      [2, '2025-03-02'],
    ]);
  });

  it('opens a collections case entering a range with a case type, names a hold that suppresses it, closes it CURED', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const loan = await activeLoan(tenantId, { delinquencyBucketId: ranges.bucketId });
    await close(tenantId, '2025-02-01', [loan.loanId]); // EARLY
    await close(tenantId, '2025-02-05', [loan.loanId]); // LATE: 5 days
    const history = await historyOf(tenantId, loan.loanId);
    expect(history.map((r) => r.classification)).toEqual([ranges.early, ranges.late]);
    const caseId = history[1]!.collectionsCaseId;
    expect(caseId).not.toBeNull();
    const [opened] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(cases)
        .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId!))),
    );
    expect(opened).toMatchObject({
      caseTypeCode: 'GENERAL',
      status: 'OPEN',
      customerRef: String(loan.customerId),
    });
    const caseTasks = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(tasks)
        .where(and(eq(tasks.tenantId, tenantId), eq(tasks.caseId, caseId!))),
    );
    expect(caseTasks.map((t) => t.title)).toEqual(['Contact borrower']);
    const effects = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select({ effectType: caseEffects.effectType })
        .from(caseEffects)
        .where(and(eq(caseEffects.tenantId, tenantId), eq(caseEffects.caseId, caseId!)))
        .orderBy(caseEffects.id),
    );
    expect(effects.map((e) => e.effectType)).toEqual(['CASE_OPENED', 'COLLECTIONS_CASE_OPENED']);

    // Paid up: back to NO_DELINQUENCY, the case closes CURED.
    await h.activities.recordExternalPayment({
      tenantId,
      loanId: loan.loanId,
      amount: '105.00',
      currency: 'USD',
      externalRecordRef: newRef('pay'),
      effectiveDate: '2025-02-06',
      source: 'IMPORT',
      rationale: 'Paid at the branch',
    });
    await close(tenantId, '2025-02-06', [loan.loanId]);
    const after = await historyOf(tenantId, loan.loanId);
    expect(after.at(-1)).toMatchObject({ classification: 'NO_DELINQUENCY', collectionsCaseId: caseId });
    const [closed] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(cases)
        .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId!))),
    );
    expect(closed).toMatchObject({ status: 'CLOSED', outcomeCode: 'CURED' });
    expect(await eventsOf(tenantId, caseId!, 'case.transitioned')).toEqual([
      { caseId, fromStatus: 'OPEN', toStatus: 'CLOSED', outcomeCode: 'CURED' },
    ]);

    // Another loan of a borrower under a COMMUNICATION_HOLD: no case, the hold named.
    const held = await activeLoan(tenantId, { delinquencyBucketId: ranges.bucketId });
    await h.activities.applyRestriction({
      tenantId,
      customerId: held.customerId,
      restrictionType: 'COMMUNICATION_HOLD',
      reason: 'Cease and desist',
    });
    await close(tenantId, '2025-02-05', [held.loanId]);
    expect(await historyOf(tenantId, held.loanId)).toEqual([
      expect.objectContaining({
        classification: ranges.late,
        collectionsCaseId: null,
        collectionsSuppressedBy: 'COMMUNICATION_HOLD',
      }),
    ]);
    await expectBalanced(tenantId);
  });

  it('the same day twice changes nothing, even with its stamp taken back', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const loan = await activeLoan(tenantId, {
      delinquencyBucketId: ranges.bucketId,
      chargeOffDaysPastDue: 30,
    });
    await overdueCharge(tenantId, loan.productId, '10', 1);
    await close(tenantId, '2025-03-10', [loan.loanId]); // a penalty, LATE with a case, notices, a charge-off
    const snapshot = () =>
      withTenantTransaction(h.db, tenantId, async (tx) => {
        const counted = await tx.execute(sql`
          select (select count(*) from outbox_events where tenant_id = ${tenantId})::int as events,
                 (select count(*) from loan_charges where tenant_id = ${tenantId})::int as charges,
                 (select count(*) from loan_delinquency_history where tenant_id = ${tenantId})::int as history,
                 (select count(*) from cases where tenant_id = ${tenantId})::int as cases,
                 (select count(*) from loan_charge_offs where tenant_id = ${tenantId})::int as charge_offs,
                 (select count(*) from journal_entries where tenant_id = ${tenantId})::int as journal`);
        return (counted as unknown as Record<string, number>[])[0];
      });
    const first = await snapshot();
    expect(first).toMatchObject({ charges: 2, history: 1, cases: 1, charge_offs: 1 });
    expect(await close(tenantId, '2025-03-10', [loan.loanId])).toEqual([
      { loanId: loan.loanId, outcome: 'SKIPPED' },
    ]);
    expect(await snapshot()).toEqual(first);
    // As if the run had been killed after its writes but the stamp were lost: the day's writes are keyed.
    await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .update(loans)
        .set({ lastClosedBusinessDate: null })
        .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loan.loanId))),
    );
    expect(await close(tenantId, '2025-03-10', [loan.loanId])).toEqual([
      { loanId: loan.loanId, outcome: 'CLOSED' },
    ]);
    expect(await snapshot()).toEqual(first);
    await expectBalanced(tenantId);
  });

  it('charges off automatically, dated the first day the delinquent days reached chargeOffDaysPastDue', async () => {
    const tenantId = await newTenant(h, 'cob');
    const loan = await activeLoan(tenantId, { chargeOffDaysPastDue: 30 });
    await close(tenantId, '2025-03-01', [loan.loanId]); // 29 days as of 03-02
    expect((await loanRow(tenantId, loan.loanId)).chargedOff).toBe(false);
    await close(tenantId, '2025-03-10', [loan.loanId]); // 38 days as of 03-11: reached 30 on 03-03
    const row = await loanRow(tenantId, loan.loanId);
    expect(row).toMatchObject({ chargedOff: true, chargedOffOnDate: '2025-03-03' });
    const chargeOffs = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(loanChargeOffs)
        .where(and(eq(loanChargeOffs.tenantId, tenantId), eq(loanChargeOffs.loanId, loan.loanId))),
    );
    expect(chargeOffs).toHaveLength(1);
    expect(chargeOffs[0]).toMatchObject({ automatic: true, transactionDate: '2025-03-03' });
    expect(await eventsOf(tenantId, loan.loanId, 'loan.chargeoff.posted')).toEqual([
      expect.objectContaining({
        automatic: true,
        transactionDate: '2025-03-03',
        reason: 'automatic: 30 days past due',
      }),
    ]);
    await close(tenantId, '2025-03-11', [loan.loanId]);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.chargeoff.posted')).toHaveLength(1);
    await expectBalanced(tenantId);
  });

  it('a boarded loan starts the day before it was boarded and is never assessed for installments due before', async () => {
    const tenantId = await newTenant(h, 'cob');
    const fixture = await activeLoan(
      tenantId,
      {},
      {
        lmsConfig: {
          productClass: 'COMMERCIAL',
          aprEnabled: false,
          statementEnabled: false,
          statementLeadDays: null,
        },
      },
    );
    await overdueCharge(tenantId, fixture.productId, '10', 1);
    h.now.value = new Date('2025-03-10T12:00:00Z'); // boarded on 2025-03-10 (Los Angeles)
    const created = await h.activities.createLoan({
      tenantId,
      clientId: fixture.customerId,
      productId: fixture.productId,
      loanType: 'individual',
      principal: '300.00',
      loanTermFrequency: 3,
      loanTermFrequencyType: 2,
      numberOfRepayments: 3,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: '12',
      interestType: 1,
      interestCalculationPeriodType: 1,
      amortizationType: 1,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      expectedDisbursementDate: '2025-01-01',
      submittedOnDate: '2025-01-01',
      boarded: true,
    } as never);
    const boarded = await loanRow(tenantId, created.loanId);
    expect(boarded.lastClosedBusinessDate).toBe('2025-03-09');
    expect((boarded.terms as Record<string, unknown>).boardedOnDate).toBe('2025-03-10');
    await h.activities.approveLoan({
      tenantId,
      loanId: created.loanId,
      approvedOnDate: '2025-01-01',
      approvedLoanAmount: '300.00',
    });
    await h.activities.recordExternalFunding({
      tenantId,
      loanId: created.loanId,
      amount: '300.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: newRef('fund'),
      reason: 'Boarded from the originating platform',
      fundingDate: '2025-01-01',
    });
    h.now.value = new Date('2025-04-10T12:00:00Z');
    expect(await close(tenantId, '2025-03-09', [created.loanId])).toEqual([
      { loanId: created.loanId, outcome: 'SKIPPED' },
    ]);
    // As of 2025-04-05: installments 1 (02-01), 2 (03-01) and 3 (04-01) overdue past the wait; only 3 is due on or
    // after 2025-03-09.
    await close(tenantId, '2025-04-04', [created.loanId]);
    expect((await penaltiesOf(tenantId, created.loanId)).map((p) => p.installmentNumber)).toEqual([3]);
    // A loan created through the API starts with no stamp.
    expect((await loanRow(tenantId, fixture.loanId)).lastClosedBusinessDate).toBeNull();
    await expectBalanced(tenantId);
  });
});

describe('close of business: a money operation sets the delinquency tag at once', () => {
  const caseOf = async (tenantId: string, caseId: number) =>
    (
      await withTenantTransaction(h.db, tenantId, (tx) =>
        tx
          .select()
          .from(cases)
          .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId))),
      )
    )[0]!;
  const pay = (tenantId: string, loanId: number, amount: string, effectiveDate: string) =>
    h.activities.recordExternalPayment({
      tenantId,
      loanId,
      amount,
      currency: 'USD',
      externalRecordRef: newRef('pay'),
      effectiveDate,
      source: 'IMPORT',
      rationale: 'Paid at the branch',
    });

  it('a payment that cures a tagged loan tags it NO_DELINQUENCY at once, dated its business date; the next run writes nothing more', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const loan = await activeLoan(tenantId, { delinquencyBucketId: ranges.bucketId });
    await close(tenantId, '2025-02-01', [loan.loanId]); // EARLY
    await close(tenantId, '2025-02-05', [loan.loanId]); // LATE, a collections case
    const tagged = await historyOf(tenantId, loan.loanId);
    expect(tagged.map((r) => [r.businessDate, r.source, r.classification])).toEqual([
      ['2025-02-01', 'CLOSE_OF_BUSINESS', ranges.early],
      ['2025-02-05', 'CLOSE_OF_BUSINESS', ranges.late],
    ]);
    const caseId = tagged[1]!.collectionsCaseId!;
    expect(caseId).not.toBeNull();

    // The loan's business date is 2025-02-06 (last closed 02-05): the payment cures it then and there.
    await pay(tenantId, loan.loanId, '105.00', '2025-02-06');
    expect((await loanRow(tenantId, loan.loanId)).delinquencyRangeId).toBeNull();
    const cured = await historyOf(tenantId, loan.loanId);
    expect(cured).toHaveLength(3);
    expect(cured[2]).toMatchObject({
      businessDate: '2025-02-06',
      source: 'TRANSACTION',
      classification: 'NO_DELINQUENCY',
      previousClassification: ranges.late,
      delinquentDays: 0,
      delinquencyRangeId: null,
      collectionsCaseId: caseId,
    });
    expect(Number(cured[2]!.delinquentAmount)).toBe(0);
    const events = await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed');
    expect(events).toHaveLength(3);
    expect(events[2]).toEqual({
      loanId: loan.loanId,
      loanRef: loan.accountNo,
      businessDate: '2025-02-06',
      previousClassification: ranges.late,
      classification: 'NO_DELINQUENCY',
      pastDueDays: 0,
      delinquentDays: 0,
      delinquentAmount: '0.00',
      currency: 'USD',
    });
    expect(await caseOf(tenantId, caseId)).toMatchObject({ status: 'CLOSED', outcomeCode: 'CURED' });

    // The step of 2025-02-06 compares with the tag the payment set: nothing more.
    expect(await close(tenantId, '2025-02-06', [loan.loanId])).toEqual([
      { loanId: loan.loanId, outcome: 'CLOSED' },
    ]);
    expect(await historyOf(tenantId, loan.loanId)).toHaveLength(3);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed')).toHaveLength(3);
    await expectBalanced(tenantId);
  });

  it('a payment on a loan never closed changes no tag', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const loan = await activeLoan(tenantId, { delinquencyBucketId: ranges.bucketId });
    // Overdue since 2025-02-01 and paid in part, but no step ever ran: the tag stays null.
    await pay(tenantId, loan.loanId, '50.00', '2025-02-10');
    expect((await loanRow(tenantId, loan.loanId)).delinquencyRangeId).toBeNull();
    expect(await historyOf(tenantId, loan.loanId)).toEqual([]);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed')).toEqual([]);
  });

  it('a payment that changes nothing overdue keeps the tag; one while a pause is active still sets it', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const loan = await activeLoan(tenantId, { delinquencyBucketId: ranges.bucketId });
    await close(tenantId, '2025-02-01', [loan.loanId]); // EARLY
    const early = (await loanRow(tenantId, loan.loanId)).delinquencyRangeId;
    expect(early).not.toBeNull();
    // 10.00 of 105.00 overdue: still 1 day delinquent, still EARLY.
    await pay(tenantId, loan.loanId, '10.00', '2025-02-02');
    expect((await loanRow(tenantId, loan.loanId)).delinquencyRangeId).toBe(early);
    expect(await historyOf(tenantId, loan.loanId)).toHaveLength(1);
    // A pause active on the business date (2025-02-02) holds back a step, not a payment: the rest paid cures the
    // loan at once, as Fineract's repayment sets the tag during a pause (LoanDelinquency.feature "partial
    // repayment during PAUSE period").
    await h.activities.createLoanDelinquencyAction({
      tenantId,
      loanId: loan.loanId,
      action: 'pause',
      startDate: '2025-02-02',
      endDate: '2025-02-10',
    });
    await pay(tenantId, loan.loanId, '95.00', '2025-02-02');
    expect((await loanRow(tenantId, loan.loanId)).delinquencyRangeId).toBeNull();
    expect(await historyOf(tenantId, loan.loanId)).toHaveLength(2);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed')).toHaveLength(2);
  });

  it('a charge that makes an installment overdue tags the loan at once, a payment cures it the same day', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const loan = await activeLoan(tenantId, { delinquencyBucketId: ranges.bucketId });
    await close(tenantId, '2025-01-20', [loan.loanId]);
    await pay(tenantId, loan.loanId, '105.00', '2025-01-21'); // installment 1 paid ahead: nothing changes
    await close(tenantId, '2025-02-01', [loan.loanId]); // as of 02-02 current
    expect(await historyOf(tenantId, loan.loanId)).toEqual([]);
    const { chargeId } = await h.activities.createCharge({
      tenantId,
      name: 'Document fee',
      currencyCode: 'USD',
      amount: '20',
      chargeAppliesTo: 1,
      chargeTimeType: 2,
      chargeCalculationType: 1,
      penalty: false,
      active: true,
    });
    // Due 2025-01-15, inside installment 1's period (due 02-01): 20.00 overdue 1 day as of the business date 02-02.
    await h.activities.addLoanCharge({
      tenantId,
      requestKey: newRef('charge'),
      loanId: loan.loanId,
      chargeId,
      dueDate: '2025-01-15',
    });
    expect((await loanRow(tenantId, loan.loanId)).delinquencyRangeId).not.toBeNull();
    // The 105.00 paid on 01-21 is re-allocated with the charge first: 20.00 of installment 1 is short. Paid on the
    // business date, the loan is current again the same day.
    await pay(tenantId, loan.loanId, '20.00', '2025-02-02');
    expect((await loanRow(tenantId, loan.loanId)).delinquencyRangeId).toBeNull();
    const history = await historyOf(tenantId, loan.loanId);
    expect(
      history.map((r) => [
        r.businessDate,
        r.source,
        r.classification,
        r.delinquentDays,
        Number(r.delinquentAmount),
      ]),
    ).toEqual([
      ['2025-02-02', 'TRANSACTION', ranges.early, 1, 20],
      ['2025-02-02', 'TRANSACTION', 'NO_DELINQUENCY', 0, 0],
    ]);
    await close(tenantId, '2025-02-02', [loan.loanId]);
    expect(await historyOf(tenantId, loan.loanId)).toHaveLength(2);
    await expectBalanced(tenantId);
  });

  it('a returned payment re-tags the loan the same business date: both changes are kept', async () => {
    const tenantId = await newTenant(h, 'cob');
    const ranges = await bucket(tenantId);
    const loan = await activeLoan(tenantId, { delinquencyBucketId: ranges.bucketId });
    await close(tenantId, '2025-02-01', [loan.loanId]); // EARLY
    await close(tenantId, '2025-02-05', [loan.loanId]); // LATE, a collections case
    const firstCase = (await historyOf(tenantId, loan.loanId))[1]!.collectionsCaseId!;
    const { paymentId } = await pay(tenantId, loan.loanId, '105.00', '2025-02-06');
    await h.activities.returnPayment({ tenantId, paymentId, returnCode: 'R02', returnedOn: '2025-02-06' });
    const lateId = (await loanRow(tenantId, loan.loanId)).delinquencyRangeId;
    expect(lateId).not.toBeNull();
    const history = await historyOf(tenantId, loan.loanId);
    expect(
      history.map((r) => [r.businessDate, r.source, r.previousClassification, r.classification]),
    ).toEqual([
      ['2025-02-01', 'CLOSE_OF_BUSINESS', 'NO_DELINQUENCY', ranges.early],
      ['2025-02-05', 'CLOSE_OF_BUSINESS', ranges.early, ranges.late],
      ['2025-02-06', 'TRANSACTION', ranges.late, 'NO_DELINQUENCY'],
      ['2025-02-06', 'TRANSACTION', 'NO_DELINQUENCY', ranges.late],
    ]);
    // As of the business date 2025-02-06 installment 1 (due 02-01) is 5 days delinquent again.
    expect(history[3]).toMatchObject({ delinquentDays: 5, delinquencyRangeId: lateId });
    // The cure closed the first case; the return opened a new one.
    expect(await caseOf(tenantId, firstCase)).toMatchObject({ status: 'CLOSED', outcomeCode: 'CURED' });
    const secondCase = history[3]!.collectionsCaseId!;
    expect(secondCase).not.toBeNull();
    expect(secondCase).not.toBe(firstCase);
    expect(await caseOf(tenantId, secondCase)).toMatchObject({ status: 'OPEN', caseTypeCode: 'GENERAL' });
    expect(
      (await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed')).map((e) => [
        e.businessDate,
        e.classification,
      ]),
    ).toEqual([
      ['2025-02-01', ranges.early],
      ['2025-02-05', ranges.late],
      ['2025-02-06', 'NO_DELINQUENCY'],
      ['2025-02-06', ranges.late],
    ]);
    // The step of 2025-02-06 (as of 02-07, 6 days: still LATE) writes nothing more.
    await close(tenantId, '2025-02-06', [loan.loanId]);
    expect(await historyOf(tenantId, loan.loanId)).toHaveLength(4);
    expect(await eventsOf(tenantId, loan.loanId, 'loan.delinquency.changed')).toHaveLength(4);
    await expectBalanced(tenantId);
  });
});
