/**
 * The loan summary's compact installments (migration `read_compact_installments_in_loan_summary`): the projection
 * stores one array per installment instead of one object with fourteen keys, and `getLoanSummary` reads it
 * (db/queries/lending/ledger.ts `postedInstallmentOf`). Real PostgreSQL, row-level security on, on loans with a
 * fee, a penalty, a waiver, partial and late payments, after every event:
 * - every compact installment reads as the same posted state as the object the projection stored before
 *   (built here as migration 0023's refresh built it, read with its keys), to the minor unit;
 * - the migration's in-place rewrite of such an object row gives exactly the row the new refresh writes;
 * - the summary from the compact row equals the replay from the raw tables on several as-of dates.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompactInstallment,
  getLoanSummary,
  postedInstallmentOf,
} from '../../db/queries/lending/ledger';
import { withTenantTransaction } from '../../db/tenant-tx';
import { minorOf } from '../../domain/lending/loan-allocation';
import { type ActivityHarness, createHarness, newTenant } from './helpers';
import { approvedLoan, type LoanFixture } from './ledger-fixtures';

let h: ActivityHarness;
let refCounter = 0;
// Letters and short numbers only: a random hex run of 9 digits would trip the identifier guard.
const newRef = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(refCounter++).toString(36)}`;

/** The projection's installments as migration 0023's refresh built them: one object per installment. */
const objectInstallments = sql`
  coalesce((select json_agg(json_build_object(
              'installmentNumber', i.installment_number, 'fromDate', i.from_date::text,
              'dueDate', i.due_date::text, 'principalDue', i.principal_due::text,
              'interestDue', i.interest_due::text, 'feeChargesDue', i.fee_charges_due::text,
              'penaltyChargesDue', i.penalty_charges_due::text,
              'principalPaid', i.principal_paid::text, 'interestPaid', i.interest_paid::text,
              'feeChargesPaid', i.fee_charges_paid::text, 'penaltyChargesPaid', i.penalty_charges_paid::text,
              'interestWaived', i.interest_waived::text, 'feeChargesWaived', i.fee_charges_waived::text,
              'penaltyChargesWaived', i.penalty_charges_waived::text) order by i.installment_number)
              from loan_installments i
             where i.tenant_id = p.tenant_id and i.loan_id = p.loan_id), '[]'::json)`;

/** Statement 2 of the migration: the in-place rewrite of object rows into compact ones. */
const rewriteStatement = readFileSync(
  new URL('../../db/migrations/0066_read_compact_installments_in_loan_summary.sql', import.meta.url),
  'utf8',
)
  .split('--> statement-breakpoint')[1]!
  .trim();

type OldInstallment = Record<string, string | number>;

/** The old reader's mapping (object keys), as getLoanSummary read the object rows. */
function oldPostedInstallmentOf(i: OldInstallment, currency: string) {
  const minor = (key: string) => minorOf(String(i[key]), currency);
  return {
    installmentNumber: i.installmentNumber,
    fromDate: i.fromDate,
    dueDate: i.dueDate,
    principalDueMinor: minor('principalDue'),
    interestDueMinor: minor('interestDue'),
    feeDueMinor: minor('feeChargesDue'),
    penaltyDueMinor: minor('penaltyChargesDue'),
    principalPaidMinor: minor('principalPaid'),
    interestPaidMinor: minor('interestPaid'),
    feePaidMinor: minor('feeChargesPaid'),
    penaltyPaidMinor: minor('penaltyChargesPaid'),
    interestWaivedMinor: minor('interestWaived'),
    feeWaivedMinor: minor('feeChargesWaived'),
    penaltyWaivedMinor: minor('penaltyChargesWaived'),
  };
}

/**
 * Inside one rolled-back tenant transaction: the stored compact row, the old object row built from the same
 * installments, and what the migration's rewrite makes of that object row.
 */
async function rowsOf(loan: LoanFixture) {
  const rollback = new Error('rollback');
  let result:
    | { compact: CompactInstallment[]; objects: OldInstallment[]; rewritten: string; stored: string }
    | undefined;
  await withTenantTransaction(h.db, loan.tenantId, async (tx) => {
    const where = sql`p.tenant_id = ${loan.tenantId} and p.loan_id = ${loan.loanId}`;
    const [before] = await tx.execute<{
      compact: CompactInstallment[];
      stored: string;
      objects: OldInstallment[];
    }>(
      sql`select p.installments as compact, p.installments::text as stored, ${objectInstallments} as objects
            from loan_summary_projections p where ${where}`,
    );
    await tx.execute(
      sql`update loan_summary_projections p set installments = ${objectInstallments} where ${where}`,
    );
    await tx.execute(sql.raw(rewriteStatement));
    const [after] = await tx.execute<{ rewritten: string }>(
      sql`select p.installments::text as rewritten from loan_summary_projections p where ${where}`,
    );
    result = { ...before!, rewritten: after!.rewritten };
    throw rollback;
  }).catch((err) => {
    if (err !== rollback) throw err;
  });
  return result!;
}

const addDays = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function expectCompactRowReadsAsBefore(loan: LoanFixture, lastEventDate: string): Promise<void> {
  const { compact, objects, rewritten, stored } = await rowsOf(loan);
  expect(compact.length).toBeGreaterThan(0);
  expect(compact.length).toBe(objects.length);
  expect(compact.map((i) => postedInstallmentOf(i, 'USD'))).toEqual(
    objects.map((i) => oldPostedInstallmentOf(i, 'USD')),
  );
  expect(JSON.parse(rewritten)).toEqual(JSON.parse(stored));
  for (const offset of [0, 1, 31, 95]) {
    const asOf = addDays(lastEventDate, offset);
    const fast = await getLoanSummary(h.db, loan.tenantId, loan.loanId, asOf, h.now.value!);
    const replayed = await getLoanSummary(h.db, loan.tenantId, loan.loanId, asOf, h.now.value!, 'replay');
    expect(fast, `as of ${asOf}`).toEqual(replayed);
  }
}

beforeAll(async () => {
  h = createHarness();
  h.now.value = new Date('2025-06-15T12:00:00Z');
});

afterAll(async () => {
  await h?.close();
});

describe('the compact installments of the summary', () => {
  it('read as the object rows did, with a fee, a penalty, a waiver and partial payments', async () => {
    const tenantId = await newTenant(h, 'compact');
    const loan = await approvedLoan(h, tenantId, { installmentFee: '2.00', numberOfRepayments: 4 });
    const charge = async (name: string, amount: string, penalty: boolean) =>
      (
        await h.activities.createCharge({
          tenantId,
          name,
          currencyCode: 'USD',
          amount,
          chargeAppliesTo: 1,
          chargeTimeType: 2,
          chargeCalculationType: 1,
          penalty,
          active: true,
        })
      ).chargeId;
    const feeId = await charge('Statement fee', '7.35', false);
    const penaltyId = await charge('Returned payment', '12.50', true);

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
    await expectCompactRowReadsAsBefore(loan, '2025-01-01');

    await h.activities.addLoanCharge({
      tenantId,
      loanId: loan.loanId,
      chargeId: feeId,
      dueDate: '2025-01-20',
    });
    const { loanChargeId: penaltyChargeId } = await h.activities.addLoanCharge({
      tenantId,
      loanId: loan.loanId,
      chargeId: penaltyId,
      dueDate: '2025-01-25',
    });
    await expectCompactRowReadsAsBefore(loan, '2025-01-25');

    const pay = async (amount: string, on: string) => {
      await h.activities.recordExternalPayment({
        tenantId,
        loanId: loan.loanId,
        amount,
        currency: 'USD',
        effectiveDate: on,
        externalRecordRef: newRef('pay'),
        source: 'IMPORT',
        rationale: 'Boarded history',
      });
      await expectCompactRowReadsAsBefore(loan, on);
    };
    await pay('33.33', '2025-02-01');
    await pay('5.01', '2025-02-20');

    // The waiver is dated today (the harness clock): the replay counts it from that date on.
    await h.activities.waiveLoanCharge({ tenantId, loanId: loan.loanId, loanChargeId: penaltyChargeId });
    await expectCompactRowReadsAsBefore(loan, h.now.value!.toISOString().slice(0, 10));
    const summary = await getLoanSummary(h.db, tenantId, loan.loanId, '2025-06-15', h.now.value!);
    expect(summary?.balances.penaltyOutstanding).toBe('0.00');
    await pay('120.00', '2025-06-15');
  });
});
