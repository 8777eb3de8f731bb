import { lockLoanForMoney } from '../../db/queries/lending/loans';
import { payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { ExternalPayment } from '../../domain/payments/schemas/recorded-payments';
import type { Deps, OperationContext } from '../deps';
import { repostLoan } from '../lending/repost-loan';
import { writeOutboxEvent } from '../platform/outbox';
import {
  assertNewPaymentRules,
  checkPaymentFields,
  newPaymentRowOf,
  paymentContentDigestOf,
  paymentOfRef,
  paymentPostedEventOf,
  type RecordExternalPaymentResult,
  replayOf,
  resultOf,
} from './external-payments';

/** A payment recorded as external: the loan, the request context and the payment's fields (`ExternalPayment`). */
export interface RecordExternalPaymentInput extends OperationContext, ExternalPayment {
  loanId: number;
}

/**
 * Records a payment received outside the system and posts it to the ledger (`POST
 * /v1/loans/{loanId}/payments/record-external` of the OpenAPI document; docs/lending.md: `externalRecordRef` unique
 * for ever per tenant, allocated by the loan's strategy, value-dated to `effectiveDate`; the `payment.posted`
 * webhook). Its rules are those of external-payments.ts, which boarding's payment history applies too.
 *
 * One transaction: locks the loan (db/queries/lending/loans.ts `lockLoanForMoney`), replays or rejects a reused `externalRecordRef`, checks the
 * rules, inserts the payment as POSTED and re-runs the allocation of all the loan's money events by its strategy
 * (repost-loan.ts): a back-dated payment re-allocates every later payment, so installments, allocations and the
 * journal equal what posting them in date order would have given (corrections are reversing entries). A payment
 * that covers the payoff amount on its `effectiveDate` (the summary's payoff quote for that date,
 * domain/lending/allocation/payoff.ts payoff rule) pays the loan off: it is allocated by the strategy first (the payoff amount
 * settles the principal, any more pays later interest, fees and penalties in advance), and only what is still
 * unpaid of them is then waived. The loan becomes CLOSED_OBLIGATIONS_MET when every installment is met (paid or waived), OVERPAID with an
 * overpayment. Writes the outbox event `payment.posted` (data `{paymentId, loanRef, status, amount, currency,
 * effectiveDate}`, the recorded payment, subject `payment`/`<paymentId>`). A PAYMENT_HOLD does not block it (docs/design.md §5 Holds: it blocks payment
 * intents and autopay, not record-external).
 *
 * Idempotent by `externalRecordRef` (unique per tenant, for ever): the same content (external-payments.ts
 * `paymentContentDigestOf`) returns the recorded payment with its current allocation and `created: false`,
 * whatever the loan's state is by then.
 * A retry under the same request key is such a replay too (the API's Idempotency-Key middleware answers it first).
 *
 * Errors: 400 `validation.msg.validation.errors.exist` for a malformed or over-precise amount, an unknown
 * currency, a malformed `effectiveDate`, one in the future (after today anywhere on earth) or before the loan's
 * first funding date, and an `externalRecordRef` or `rationale` that looks like an identifier or account number
 * (not echoed); 400 `validation.msg.payment.currency.mismatch` when `currency` is not the loan's; 404 when the
 * tenant has no such loan; 409 `error.msg.external.record.ref.conflict` for a reused `externalRecordRef` with other
 * content; 409 `error.msg.loan.invalid.state.transition` unless the loan is ACTIVE.
 */
export function recordExternalPayment(deps: Deps) {
  return async (input: RecordExternalPaymentInput): Promise<RecordExternalPaymentResult> => {
    const checked = checkPaymentFields(input);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const now = deps.clock();
      const contentDigest = paymentContentDigestOf(loan.id, input, checked);
      const earlier = await paymentOfRef(tx, input.tenantId, input.externalRecordRef);
      if (earlier) return replayOf(earlier, contentDigest, loan);
      assertNewPaymentRules(loan, input, now);

      const [created] = await tx
        .insert(payments)
        .values(
          newPaymentRowOf(input.tenantId, loan.id, input, checked, contentDigest, input.actor ?? null, now),
        )
        .onConflictDoNothing({ target: [payments.tenantId, payments.externalRecordRef] })
        .returning();
      if (!created) {
        // The same ref committed meanwhile by a call on another loan (this loan's lock excludes this one's).
        const winner = await paymentOfRef(tx, input.tenantId, input.externalRecordRef);
        if (!winner) throw new Error('payment vanished after an externalRecordRef conflict');
        return replayOf(winner, contentDigest, loan);
      }
      const repost = await repostLoan(tx, { tenantId: input.tenantId, loan, now });
      const allocation = repost.allocations.get(created.id);
      if (!allocation) throw new Error(`payment ${created.id} was not allocated`);
      const result = resultOf({ ...created, allocation: { ...allocation } }, loan, true);
      await writeOutboxEvent(tx, paymentPostedEventOf(input.tenantId, result, now));
      return result;
    });
  };
}
