/**
 * Sandbox only: records a payment's rail event on the sandbox rail's own (provider-side) books (docs/design.md §1:
 * a rail call is never in the same activity as a DB write); it writes nothing of ours.
 */
import { DomainError } from '../../domain/errors';
import type { RailEvent } from '../../domain/payments/payment-intent';
import type { Deps } from '../deps';

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
