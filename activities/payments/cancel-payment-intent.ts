/**
 * Cancels a payment intent before submission, CREATED → CANCELLED (docs/design.md §5; docs/processes.md P1):
 * `cancelPaymentIntent`.
 */

import type { PaymentIntentView } from '../../db/queries/payments/payments';
import type { Deps } from '../deps';
import { type PaymentRef, transition } from './payment-status-changes';

/** CREATED → CANCELLED (before submission only; docs/design.md §5). Idempotent; 409 `error.msg.payment.invalid.state.transition` otherwise. */
export function cancelPaymentIntent(deps: Deps) {
  return (input: PaymentRef & { reason?: string | null }): Promise<PaymentIntentView> =>
    transition(deps, input, 'CANCELLED', { reason: input.reason ?? null }, async () => ({}));
}
