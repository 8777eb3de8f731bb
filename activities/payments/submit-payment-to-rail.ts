/**
 * The payment-intent workflow's call to submit a payment to its rail (docs/design.md §1: "A rail or provider call is
 * never in the same activity as a DB write: record intent → call → record outcome"). It reads what the call needs
 * and calls the rail adapter (`deps.paymentRail`, activities/payments/rail.ts); it writes nothing of ours. The
 * status change that follows is a separate activity (activities/payments/payment-status-changes.ts).
 */
import { and, eq } from 'drizzle-orm';
import { paymentInstruments, payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { PaymentRailCode } from '../../domain/payments/payment-intent';
import type { Deps } from '../deps';

export interface SubmitPaymentToRailInput {
  tenantId: string;
  paymentId: number;
  rail: PaymentRailCode;
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
  /** ISO date. */
  effectiveDate: string;
}

export interface SubmitPaymentToRailResult {
  /** The rail's reference of the payment. */
  providerRef: string;
  status: 'SUBMITTED' | 'DECLINED';
  /** Why the rail declined or rejected it (no account data), when DECLINED. */
  declineReason?: string;
}

/**
 * Submits payment `paymentId` to its rail (docs/processes.md P1 step "submit"): reads the payment's instrument
 * token (a read), then calls `deps.paymentRail.submit`, idempotent by (tenant, paymentId), so a retried activity
 * gets the same `providerRef` and outcome. Errors: 404 for an unknown payment; 503 `error.msg.service.unavailable`
 * when no rail adapter is configured (retried by the workflow's `railCall` preset until one is).
 */
export function submitPaymentToRail(deps: Deps) {
  return async (input: SubmitPaymentToRailInput): Promise<SubmitPaymentToRailResult> => {
    const rail = deps.paymentRail;
    // A plain (retryable) error: the workflow's railCall preset retries it until an adapter is configured.
    if (!rail) throw new Error('No payment rail adapter is configured in this worker.');
    const instrument = await withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [row] = await tx
        .select({
          providerTokenRef: paymentInstruments.providerTokenRef,
          instrumentType: paymentInstruments.instrumentType,
        })
        .from(payments)
        .innerJoin(
          paymentInstruments,
          and(
            eq(paymentInstruments.tenantId, payments.tenantId),
            eq(paymentInstruments.id, payments.instrumentId),
          ),
        )
        .where(and(eq(payments.tenantId, input.tenantId), eq(payments.id, input.paymentId)));
      return row;
    });
    if (!instrument) throw notFound('Payment', input.paymentId);
    const outcome = await rail.submit({
      tenantId: input.tenantId,
      paymentId: input.paymentId,
      rail: input.rail,
      amount: input.amount,
      currency: input.currency,
      instrument,
      effectiveDate: input.effectiveDate,
    });
    return {
      providerRef: outcome.providerRef,
      status: outcome.status,
      ...(outcome.declineReason ? { declineReason: outcome.declineReason } : {}),
    };
  };
}
