/**
 * Fails a payment intent, CREATED or SUBMITTED → FAILED, releasing its reservation (docs/design.md §5;
 * docs/processes.md P1): `failPaymentIntent`.
 */

import type { PaymentIntentView } from '../../db/queries/payments/payments';
import type { Deps } from '../deps';
import { type PaymentRef, transition } from './payment-status-changes';

/**
 * CREATED or SUBMITTED → FAILED (declined or rejected at submission, failed by the rail before settlement, or closed
 * without posting by a reconciliation decision): the reservation is released, event `payment.failed`. `reason` is
 * free text kept in the history (never account data). Idempotent; 409 from another status.
 */
export function failPaymentIntent(deps: Deps) {
  return (input: PaymentRef & { reason: string }): Promise<PaymentIntentView> =>
    transition(deps, input, 'FAILED', { reason: input.reason }, async () => ({}));
}
