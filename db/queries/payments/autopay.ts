/**
 * Reads of autopay enrolments (docs/processes.md P1 Autopay): the wire view the routes answer with
 * (`POST`/`GET /v1/loans/{loanId}/autopay`, `POST …/autopay/cancel`) and the read of a loan's current enrolment.
 */
import { and, desc, eq } from 'drizzle-orm';
import { minorOf } from '../../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../../domain/money';
import type { AutopayAmountType, AutopayStatus } from '../../../domain/payments/autopay';
import type { PaymentRailCode } from '../../../domain/payments/payment-intent';
import type { Db } from '../../client';
import { autopayEnrolments, loans } from '../../schema';
import { type DbExecutor, withTenantTransaction } from '../../tenant-tx';

/** An enrolment as the API answers it. Amounts are decimal strings with the loan currency's digits; instants ISO 8601 UTC. */
export interface AutopayEnrolmentView {
  enrolmentId: number;
  resourceId: number;
  loanId: number;
  /** The loan's `accountNo` (spec `loanRef`). */
  loanRef: string;
  instrumentId: number;
  authorizationRef: string;
  rail: PaymentRailCode;
  amountType: AutopayAmountType;
  /** Set iff `amountType` is FIXED. */
  fixedAmount: string | null;
  /** ISO 4217 of the loan (and of every intent autopay creates). */
  currency: string;
  /** Calendar days before each due date on which the intent is created. */
  daysBeforeDue: number;
  status: AutopayStatus;
  enrolledAt: string;
  /** ISO date (UTC): only installments due strictly after it are collected (no backfill). */
  enrolledOn: string;
  cancelledAt: string | null;
}

type EnrolmentRow = typeof autopayEnrolments.$inferSelect;

/** The view of `row` for a loan `{accountNo, currencyCode}`. */
export function autopayViewOf(
  row: EnrolmentRow,
  loan: { accountNo: string; currencyCode: string },
): AutopayEnrolmentView {
  return {
    enrolmentId: row.id,
    resourceId: row.id,
    loanId: row.loanId,
    loanRef: loan.accountNo,
    instrumentId: row.instrumentId,
    authorizationRef: row.authorizationRef,
    rail: row.rail as PaymentRailCode,
    amountType: row.amountType,
    fixedAmount:
      row.fixedAmount === null
        ? null
        : formatMinor(minorOf(row.fixedAmount, loan.currencyCode), minorUnitDigits(loan.currencyCode)),
    currency: loan.currencyCode,
    daysBeforeDue: row.daysBeforeDue,
    status: row.status,
    enrolledAt: row.enrolledAt.toISOString(),
    enrolledOn: row.enrolledOn,
    cancelledAt: row.cancelledAt?.toISOString() ?? null,
  };
}

/**
 * The loan's current enrolment inside `tx`: the ACTIVE one, else the most recent (CANCELLED); null when the loan
 * never had one or is not the tenant's.
 */
export async function currentAutopayRow(
  tx: DbExecutor,
  tenantId: string,
  loanId: number,
): Promise<EnrolmentRow | null> {
  const [row] = await tx
    .select()
    .from(autopayEnrolments)
    .where(and(eq(autopayEnrolments.tenantId, tenantId), eq(autopayEnrolments.loanId, loanId)))
    .orderBy(desc(eq(autopayEnrolments.status, 'ACTIVE')), desc(autopayEnrolments.id))
    .limit(1);
  return row ?? null;
}

/** `GET /v1/loans/{loanId}/autopay`: the loan's current enrolment (see `currentAutopayRow`), null when none. */
export async function getLoanAutopay(
  db: Db,
  tenantId: string,
  loanId: number,
): Promise<AutopayEnrolmentView | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const row = await currentAutopayRow(tx, tenantId, loanId);
    if (!row) return null;
    const [loan] = await tx
      .select({ accountNo: loans.accountNo, currencyCode: loans.currencyCode })
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
    if (!loan) return null;
    return autopayViewOf(row, loan);
  });
}
