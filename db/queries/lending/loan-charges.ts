/**
 * Reads of the charges added to a loan (`loan_charges`; Apache Fineract `LoanChargesApiResource`:
 * `GET /v1/loans/{loanId}/charges`, `GET /v1/loans/{loanId}/charges/{loanChargeId}`, `LoanChargeData`), and the rows
 * the ledger's repost and the loan reads replay (`loanChargesForAllocation`). Each API read runs in one
 * tenant-scoped transaction (row-level security): another tenant's loan or charge is invisible, so the functions
 * answer null and the routes turn that into 404. Money: decimal strings with the loan currency's digits; dates ISO.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { StoredLoanCharge } from '../../../domain/lending/loan-allocation';
import {
  type ChargeTimeTypeOption,
  chargeTimeTypeOption,
  specifiedDueDateChargeTimeType,
} from '../../../domain/lending/loan-charges';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../../domain/money';
import type { Db } from '../../client';
import { charges, loanCharges, loans } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** A loan charge as the API shows it (Fineract `LoanChargeData`, the fields this engine keeps). */
export interface LoanChargeView {
  /** The loan charge's id (`loanChargeId`). */
  id: number;
  loanId: number;
  /** The charge definition's id and name. */
  chargeId: number;
  name: string;
  /** Fineract's enum object: `{id: 2, code: "chargeTimeType.specifiedDueDate", value: "Specified due date"}`. */
  chargeTimeType: ChargeTimeTypeOption;
  /** ISO date. */
  dueDate: string;
  /** Decimal strings; outstanding = amount − paid − waived. */
  amount: string;
  amountPaid: string;
  amountWaived: string;
  amountOutstanding: string;
  penalty: boolean;
  /** Fineract `paid` (nothing outstanding, something paid) and `waived` (a waiver was made). */
  paid: boolean;
  waived: boolean;
  /** ISO 4217 code of every amount. */
  currency: string;
  externalId: string | null;
}

const columns = {
  id: loanCharges.id,
  loanId: loanCharges.loanId,
  chargeId: loanCharges.chargeId,
  name: charges.name,
  dueDate: loanCharges.dueDate,
  amount: loanCharges.amount,
  amountPaid: loanCharges.amountPaid,
  amountWaived: loanCharges.amountWaived,
  penalty: loanCharges.penalty,
  waivedOnDate: loanCharges.waivedOnDate,
  externalId: loanCharges.externalId,
  currency: loans.currencyCode,
};

interface ChargeRow {
  id: number;
  loanId: number;
  chargeId: number;
  name: string;
  dueDate: string;
  amount: string;
  amountPaid: string;
  amountWaived: string;
  penalty: boolean;
  waivedOnDate: string | null;
  externalId: string | null;
  currency: string;
}

/** A row of `columns` → `LoanChargeView`. */
export function loanChargeView(row: ChargeRow): LoanChargeView {
  const digits = minorUnitDigits(row.currency);
  const minor = (text: string) => parseDecimalToMinor(text, digits, { allowTrailingZeros: true });
  const amount = minor(row.amount);
  const paid = minor(row.amountPaid);
  const waived = minor(row.amountWaived);
  const outstanding = amount - paid - waived;
  return {
    id: row.id,
    loanId: row.loanId,
    chargeId: row.chargeId,
    name: row.name,
    chargeTimeType: chargeTimeTypeOption(specifiedDueDateChargeTimeType),
    dueDate: row.dueDate,
    amount: formatMinor(amount, digits),
    amountPaid: formatMinor(paid, digits),
    amountWaived: formatMinor(waived, digits),
    amountOutstanding: formatMinor(outstanding, digits),
    penalty: row.penalty,
    paid: outstanding === 0n && paid > 0n,
    waived: row.waivedOnDate !== null,
    currency: row.currency,
    externalId: row.externalId,
  };
}

async function chargesOf(tx: Tx, tenantId: string, loanId: number, loanChargeId?: number) {
  return tx
    .select(columns)
    .from(loanCharges)
    .innerJoin(charges, and(eq(charges.tenantId, loanCharges.tenantId), eq(charges.id, loanCharges.chargeId)))
    .innerJoin(loans, and(eq(loans.tenantId, loanCharges.tenantId), eq(loans.id, loanCharges.loanId)))
    .where(
      and(
        eq(loanCharges.tenantId, tenantId),
        eq(loanCharges.loanId, loanId),
        ...(loanChargeId === undefined ? [] : [eq(loanCharges.id, loanChargeId)]),
      ),
    )
    .orderBy(asc(loanCharges.dueDate), asc(loanCharges.id));
}

/**
 * The charges added to the tenant's loan `loanId`, by due date then id, or null when the tenant has no such loan.
 */
export async function listLoanCharges(
  db: Db,
  tenantId: string,
  loanId: number,
): Promise<LoanChargeView[] | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [loan] = await tx
      .select({ id: loans.id })
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
    if (!loan) return null;
    return (await chargesOf(tx, tenantId, loanId)).map(loanChargeView);
  });
}

/** One charge of the tenant's loan, or null when the loan or the charge (of that loan) does not exist. */
export async function getLoanCharge(
  db: Db,
  tenantId: string,
  loanId: number,
  loanChargeId: number,
): Promise<LoanChargeView | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [row] = await chargesOf(tx, tenantId, loanId, loanChargeId);
    return row ? loanChargeView(row) : null;
  });
}

/**
 * The loan's charges as domain/lending/loan-allocation.ts `allocationInputOf` takes them, in the caller's
 * transaction (or a read transaction of a query).
 */
export async function loanChargesForAllocation(
  tx: Tx,
  tenantId: string,
  loanId: number,
): Promise<StoredLoanCharge[]> {
  return tx
    .select({
      id: loanCharges.id,
      installmentNumber: loanCharges.installmentNumber,
      penalty: loanCharges.penalty,
      dueDate: loanCharges.dueDate,
      amount: loanCharges.amount,
      waiverAmount: loanCharges.waiverAmount,
      waivedOnDate: loanCharges.waivedOnDate,
      submittedOnDate: loanCharges.submittedOnDate,
      recordedAt: loanCharges.createdAt,
    })
    .from(loanCharges)
    .where(and(eq(loanCharges.tenantId, tenantId), eq(loanCharges.loanId, loanId)))
    .orderBy(asc(loanCharges.id));
}
