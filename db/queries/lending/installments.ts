/**
 * Writes of a loan's installments (`loan_installments`) sized for any term a product allows (10,000
 * installments, domain/lending/products.ts `productLimits`): PostgreSQL's extended protocol carries at most 65,535
 * bind parameters per statement (the Bind message's parameter count is an Int16; PostgreSQL manual §55.7
 * "Message Formats", Bind), so one `VALUES` statement over every installment would fail beyond 65,535 ÷ parameters
 * per row rows. The inserts and the ledger-state update pass all rows as ONE `jsonb` parameter
 * (`jsonb_to_recordset`, db/queries/json-rows.ts), which has no such bound; the due-amount update still uses
 * `VALUES` lists of at most `installmentRowsPerStatement` rows. All run in the caller's transaction.
 */
import { and, eq, sql } from 'drizzle-orm';
import { loanInstallments } from '../../schema';
import type { Tx } from '../../tenant-tx';
import { insertJsonRows, intArrayLiteral } from '../json-rows';

/** PostgreSQL's limit of bind parameters in one statement. */
export const postgresMaxBindParameters = 65_535;

/** Rows per statement: ≤ 1,000, well under the limit for the ≤ 12 parameters an installment row takes. */
export const installmentRowsPerStatement = 1_000;

/** `rows` cut into consecutive slices of at most `size` (≥ 1) rows, in order. */
export function batchesOf<T>(rows: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be a positive integer');
  const batches: T[][] = [];
  for (let start = 0; start < rows.length; start += size) batches.push(rows.slice(start, start + size));
  return batches;
}

/** One `loan_installments` row to insert (nothing paid or waived yet). */
export type NewInstallmentRow = typeof loanInstallments.$inferInsert;

/**
 * Whether two lists of new installment rows are the same rows: same length and, row by row, the same keys with
 * identical values (dates and amounts are ISO and decimal strings, compared as written). Pure.
 */
export function sameInstallmentRows(
  a: readonly NewInstallmentRow[],
  b: readonly NewInstallmentRow[],
): boolean {
  if (a.length !== b.length) return false;
  return a.every((row, i) => {
    const other = b[i] as Record<string, unknown>;
    const keys = Object.keys(row);
    return (
      keys.length === Object.keys(other).length &&
      keys.every((key) => (row as Record<string, unknown>)[key] === other[key])
    );
  });
}

/** Inserts `rows` in `tx`, in one statement with one parameter for any term (db/queries/json-rows.ts). */
export async function insertInstallmentRows(tx: Tx, rows: readonly NewInstallmentRow[]): Promise<void> {
  await insertJsonRows(tx, loanInstallments, rows);
}

/** Deletes the installments of loan `loanId` and inserts `rows` in their place (one insert statement), in `tx`. */
export async function replaceInstallmentRows(
  tx: Tx,
  tenantId: string,
  loanId: number,
  rows: readonly NewInstallmentRow[],
): Promise<void> {
  await tx
    .delete(loanInstallments)
    .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loanId)));
  await insertInstallmentRows(tx, rows);
}

/** What the ledger keeps per installment: paid and waived amounts (decimal strings) and the date it was met. */
export interface InstallmentLedgerState {
  installmentNumber: number;
  principalPaid: string;
  interestPaid: string;
  feeChargesPaid: string;
  penaltyChargesPaid: string;
  interestWaived: string;
  feeChargesWaived: string;
  penaltyChargesWaived: string;
  /** ISO date or null. */
  obligationsMetOnDate: string | null;
}

/**
 * Sets the paid and waived columns and `obligations_met_on_date` of the given installments of loan `loanId`, in `tx`:
 * one `update … from jsonb_to_recordset($1)` for any number of installments (one parameter; amounts as decimal
 * strings cast to `numeric` by PostgreSQL, so exact; db/queries/json-rows.ts explains the choice).
 */
export async function updateInstallmentLedgerState(
  tx: Tx,
  tenantId: string,
  loanId: number,
  states: readonly InstallmentLedgerState[],
): Promise<void> {
  await updateInstallmentLedgerStates(
    tx,
    tenantId,
    states.map((state) => ({ ...state, loanId })),
  );
}

/**
 * `updateInstallmentLedgerState` for the installments of several loans at once (each state names its `loanId`), in
 * `tx`: one `update … from jsonb_to_recordset($1)` for any number of loans and installments. Portfolio boarding
 * writes the states of a chunk's new loans this way at the end of the chunk (activities/lending/loan-chunk.ts).
 */
export async function updateInstallmentLedgerStates(
  tx: Tx,
  tenantId: string,
  states: readonly (InstallmentLedgerState & { loanId: number })[],
): Promise<void> {
  if (states.length === 0) return;
  const payload = JSON.stringify(
    states.map((s) => ({
      loan_id: s.loanId,
      installment_number: s.installmentNumber,
      principal_paid: s.principalPaid,
      interest_paid: s.interestPaid,
      fee_charges_paid: s.feeChargesPaid,
      penalty_charges_paid: s.penaltyChargesPaid,
      interest_waived: s.interestWaived,
      fee_charges_waived: s.feeChargesWaived,
      penalty_charges_waived: s.penaltyChargesWaived,
      obligations_met_on_date: s.obligationsMetOnDate,
    })),
  );
  await tx.execute(sql`
    update loan_installments as li
       set principal_paid = v.principal_paid,
           interest_paid = v.interest_paid,
           fee_charges_paid = v.fee_charges_paid,
           penalty_charges_paid = v.penalty_charges_paid,
           interest_waived = v.interest_waived,
           fee_charges_waived = v.fee_charges_waived,
           penalty_charges_waived = v.penalty_charges_waived,
           obligations_met_on_date = v.obligations_met_on_date
      from jsonb_to_recordset(${payload}::jsonb)
        as v(loan_id bigint, installment_number int, principal_paid numeric, interest_paid numeric,
             fee_charges_paid numeric, penalty_charges_paid numeric, interest_waived numeric,
             fee_charges_waived numeric, penalty_charges_waived numeric, obligations_met_on_date date)
     where li.tenant_id = ${tenantId}
       and li.loan_id = any(${intArrayLiteral([...new Set(states.map((s) => s.loanId))])}::bigint[])
       and li.loan_id = v.loan_id and li.installment_number = v.installment_number`);
}

/** The due amounts of one installment (decimal strings), as a schedule modification sets them. */
export interface InstallmentDueAmounts {
  installmentNumber: number;
  principalDue: string;
  interestDue: string;
  feeChargesDue: string;
  penaltyChargesDue: string;
}

/**
 * Sets the due columns of the given installments of loan `loanId` (`update … from (values …)`, at most
 * `installmentRowsPerStatement` rows per statement), in `tx`. Paid, waived and met columns are left to the repost
 * that follows (activities/lending/repost-loan.ts).
 */
export async function updateInstallmentDueAmounts(
  tx: Tx,
  tenantId: string,
  loanId: number,
  amounts: readonly InstallmentDueAmounts[],
): Promise<void> {
  for (const batch of batchesOf(amounts, installmentRowsPerStatement)) {
    const values = batch.map(
      (a) =>
        sql`(${a.installmentNumber}::int, ${a.principalDue}::numeric, ${a.interestDue}::numeric, ${a.feeChargesDue}::numeric, ${a.penaltyChargesDue}::numeric)`,
    );
    await tx.execute(sql`
      update loan_installments as li
         set principal_due = v.principal_due,
             interest_due = v.interest_due,
             fee_charges_due = v.fee_charges_due,
             penalty_charges_due = v.penalty_charges_due
        from (values ${sql.join(values, sql`, `)})
          as v(installment_number, principal_due, interest_due, fee_charges_due, penalty_charges_due)
       where li.tenant_id = ${tenantId} and li.loan_id = ${loanId} and li.installment_number = v.installment_number`);
  }
}
