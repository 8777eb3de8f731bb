/**
 * Marks a payment intent submitted to its rail, CREATED → SUBMITTED with the rail's `providerRef` (docs/design.md §5;
 * docs/processes.md P1): `markPaymentSubmitted`.
 */

import type { PaymentIntentView } from '../../db/queries/payments/payments';
import type { Deps } from '../deps';
import { type PaymentRef, transition } from './payment-status-changes';

/** CREATED → SUBMITTED with the rail's `providerRef` (docs/design.md §5). Idempotent; 409 from another status. */
export function markPaymentSubmitted(deps: Deps) {
  return (input: PaymentRef & { providerRef: string }): Promise<PaymentIntentView> =>
    transition(deps, input, 'SUBMITTED', { providerRef: input.providerRef }, async () => ({
      providerRef: input.providerRef,
    }));
}
