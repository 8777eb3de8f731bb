/**
 * Records a rail's return of a posted payment, POSTED → RETURNED, the allocation re-run without it (docs/processes.md
 * P1): `returnPayment`.
 */

import type { PaymentIntentView } from '../../db/queries/payments/payments';
import type { Deps } from '../deps';
import { assertIsoDate } from '../lending/loan-money';
import { type PaymentRef, transition } from './payment-status-changes';

/**
 * POSTED → RETURNED (docs/processes.md P1): the rail returned the money; the allocation is re-run without the
 * payment, as if it had never been applied (later payments re-allocated in date order; the journal appends only
 * the difference), event `payment.returned` with `returnCode`. Whether the return is inside the rail's window is
 * the workflow's decision (domain rails); this records it. Idempotent; 409 from another status.
 */
export function returnPayment(deps: Deps) {
  return (input: PaymentRef & { returnCode: string; returnedOn: string }): Promise<PaymentIntentView> =>
    transition(
      deps,
      input,
      'RETURNED',
      { returnCode: input.returnCode, returnedOn: input.returnedOn },
      async () => {
        assertIsoDate('returnedOn', input.returnedOn);
        return { returnCode: input.returnCode, returnedOn: input.returnedOn };
      },
    );
}
