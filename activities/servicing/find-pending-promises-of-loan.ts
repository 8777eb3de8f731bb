/**
 * Finds the PENDING promises to pay of a loan, whose processes a posted payment signals (docs/processes.md P4
 * "Promises to pay"): `findPendingPromisesOfLoan`, called by the payment-intent workflow. Read only.
 */

import { pendingPromiseIdsOfLoan } from '../../db/queries/servicing/promises';
import type { Deps } from '../deps';

/**
 * Ids of the loan's PENDING promises (whose processes a posted payment signals). Read only; an unknown loan has
 * none.
 */
export function findPendingPromisesOfLoan(deps: Deps) {
  return async (input: { tenantId: string; loanId: number }): Promise<{ promiseIds: number[] }> => ({
    promiseIds: await pendingPromiseIdsOfLoan(deps.db, input.tenantId, input.loanId),
  });
}
