/**
 * Reads of payments and payment intents (OpenAPI `GET /v1/loans/{loanId}/payments`;
 * docs/processes.md P1: the detail with its status history). Each read runs in one tenant transaction (RLS on).
 */
import { and, asc, eq } from 'drizzle-orm';
import { minorOf } from '../../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../../domain/money';
import type { PaymentRailCode, PaymentStatus } from '../../../domain/payments/payment-intent';
import type { Db } from '../../client';
import { loans, paymentStatusHistory, payments } from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

type PaymentRow = typeof payments.$inferSelect;

/** A payment as the API answers it (docs/processes.md P1 create response; list and detail add to it). */
export interface PaymentIntentView {
  paymentId: number;
  /** The same id (Fineract's `resourceId`). */
  resourceId: number;
  loanId: number;
  /** The loan's `accountNo` (spec `loanRef`). */
  loanRef: string;
  /** Null for a payment recorded as external. */
  instrumentId: number | null;
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
  /** Null for a payment recorded as external. */
  rail: PaymentRailCode | null;
  /** ISO date. */
  effectiveDate: string;
  source: string;
  status: PaymentStatus;
  /** The rail's reference once submitted, else null. */
  providerRef: string | null;
  /** The rail's return code once RETURNED, else null. */
  returnCode: string | null;
  /** ISO 8601 instant (UTC). */
  createdAt: string;
}

/** The API view of a stored payment row of `loan`. */
export function paymentViewOf(row: PaymentRow, loanRef: string): PaymentIntentView {
  return {
    paymentId: row.id,
    resourceId: row.id,
    loanId: row.loanId,
    loanRef,
    instrumentId: row.instrumentId,
    amount: formatMinor(minorOf(row.amount, row.currencyCode), minorUnitDigits(row.currencyCode)),
    currency: row.currencyCode,
    rail: (row.rail as PaymentRailCode | null) ?? null,
    effectiveDate: row.effectiveDate,
    source: row.source,
    status: row.status,
    providerRef: row.providerRef,
    returnCode: row.returnCode,
    createdAt: row.createdAt.toISOString(),
  };
}

/** One item of a payment's status history (`payment_status_history`). */
export interface PaymentHistoryItem {
  status: PaymentStatus;
  /** ISO 8601 instant (UTC). */
  at: string;
  /** What the change carried (providerRef, returnCode, reason, amounts as decimal strings). */
  detail: Record<string, unknown>;
}

/**
 * Payment `paymentId` of loan `loanId` with its status history, oldest first, or null when the tenant has no such
 * payment on that loan. A payment recorded as external before histories existed shows one item: its status at its
 * creation.
 */
export async function getLoanPayment(
  db: Db,
  tenantId: string,
  loanId: number,
  paymentId: number,
): Promise<(PaymentIntentView & { history: PaymentHistoryItem[] }) | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [found] = await tx
      .select({ payment: payments, loanRef: loans.accountNo })
      .from(payments)
      .innerJoin(loans, and(eq(loans.tenantId, payments.tenantId), eq(loans.id, payments.loanId)))
      .where(and(eq(payments.tenantId, tenantId), eq(payments.loanId, loanId), eq(payments.id, paymentId)));
    if (!found) return null;
    const rows = await tx
      .select()
      .from(paymentStatusHistory)
      .where(and(eq(paymentStatusHistory.tenantId, tenantId), eq(paymentStatusHistory.paymentId, paymentId)))
      .orderBy(asc(paymentStatusHistory.id));
    const history: PaymentHistoryItem[] =
      rows.length > 0
        ? rows.map((row) => ({ status: row.status, at: row.at.toISOString(), detail: row.detail }))
        : [
            {
              status: found.payment.status,
              at: found.payment.createdAt.toISOString(),
              detail: { source: found.payment.source },
            },
          ];
    return { ...paymentViewOf(found.payment, found.loanRef), history };
  });
}

/** Payment `paymentId` of the tenant (any loan), or null. */
export async function getPayment(
  db: Db,
  tenantId: string,
  paymentId: number,
): Promise<PaymentIntentView | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [found] = await tx
      .select({ payment: payments, loanRef: loans.accountNo })
      .from(payments)
      .innerJoin(loans, and(eq(loans.tenantId, payments.tenantId), eq(loans.id, payments.loanId)))
      .where(and(eq(payments.tenantId, tenantId), eq(payments.id, paymentId)));
    return found ? paymentViewOf(found.payment, found.loanRef) : null;
  });
}
