/**
 * The payment-intent workflow's calls to the rail (docs/design.md §1: "A rail or provider call is never in the
 * same activity as a DB write: record intent → call → record outcome"). These activities read what the call needs
 * and call the rail adapter (`deps.paymentRail`, activities/payments/rail.ts); they write nothing of ours. The
 * status change that follows is a separate activity (activities/payments/payment-status-changes.ts).
 */
import { and, eq } from 'drizzle-orm';
import { paymentInstruments, payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import type { PaymentRailCode, RailEvent } from '../../domain/payments/payment-intent';
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

/**
 * Sandbox only: records on the sandbox rail's own (provider-side) books an event of payment `paymentId` that the
 * sandbox timeline or a simulation produced, so its settlement report shows it (what the daily reconciliation
 * compares with our ledger). Idempotent. Errors: 404 `error.msg.resource.not.found` outside sandbox (no sandbox
 * rail).
 */
export function recordSandboxRailEvent(deps: Deps) {
  return async (input: { tenantId: string; paymentId: number; event: RailEvent }): Promise<void> => {
    const sandbox = deps.sandboxRail;
    if (!sandbox)
      throw new DomainError('error.msg.resource.not.found', 'There is no sandbox rail outside sandbox.');
    const { event } = input;
    if (event.type === 'SETTLED') {
      await sandbox.recordSandboxSettlement({
        tenantId: input.tenantId,
        paymentId: input.paymentId,
        amount: event.amount,
        settledOn: event.settledOn,
      });
    } else if (event.type === 'RETURNED') {
      await sandbox.recordSandboxReturn({
        tenantId: input.tenantId,
        paymentId: input.paymentId,
        returnCode: event.returnCode,
        returnedOn: event.returnedOn,
      });
    } else {
      await sandbox.recordSandboxFailure({
        tenantId: input.tenantId,
        paymentId: input.paymentId,
        reason: event.reason,
      });
    }
  };
}
