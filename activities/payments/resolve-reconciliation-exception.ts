import { and, eq } from 'drizzle-orm';
import {
  type ReconciliationExceptionView,
  reconciliationExceptionView,
} from '../../db/queries/payments/reconciliation-exceptions';
import { reconciliationExceptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound, validationError } from '../../domain/errors';
import {
  type ReconciliationResolution,
  reconciliationResolutions,
  resolutionReasonLengthMax,
} from '../../domain/payments/reconciliation-exceptions';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';

export interface ResolveReconciliationExceptionInput extends OperationContext {
  exceptionId: number;
  resolution: ReconciliationResolution;
  /** Why; free text, 1–2000 characters after trimming, never an identifier or account number. */
  reason: string;
  /** Who resolved it: the `Service-Actor` of the request, else its client id (1–128 characters). */
  actor: string;
}

/**
 * Resolves an open reconciliation exception (docs/processes.md P1: `POST /v1/recon-exceptions/{id}/resolve`
 * `{resolution, reason}` → status `resolved`) under its row lock (`FOR UPDATE`), records `resolution`,
 * `resolutionReason`, `resolvedBy` (`actor`) and `resolvedAt` (`deps.clock()`), and writes the outbox event
 * `reconciliation.exception.resolved` in the same transaction. Returns the exception as the API shows it, with
 * its `targetType` and `targetRef`, so the caller can tell the process waiting on it (for `SETTLED_NOT_POSTED`,
 * the payment-intent workflow of payment `targetRef`) after this commits; this operation signals nothing.
 *
 * Errors: 400 `validation.msg.validation.errors.exist` for a `resolution` outside `POST_AS_SETTLED`,
 * `POST_INTENT_AMOUNT`, `REFUND_BORROWER`, `DISMISS`, a blank `reason` or one over 2000 characters, or a `reason`
 * that looks like a government identifier or an account or card number (not echoed); 404
 * `error.msg.resource.not.found` when the exception is absent or another tenant's; 409
 * `error.msg.reconciliation.exception.invalid.state.transition` when it is already resolved (docs/design.md §5: a state
 * transition not allowed → `error.msg.<resource>.invalid.state.transition`). Nothing is written on an error.
 */
export function resolveReconciliationException(deps: Deps) {
  return async (input: ResolveReconciliationExceptionInput): Promise<ReconciliationExceptionView> => {
    if (!(reconciliationResolutions as readonly string[]).includes(input.resolution)) {
      throw validationError(
        'resolution',
        input.resolution,
        `resolution must be one of ${reconciliationResolutions.join(', ')}.`,
      );
    }
    const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
    if (reason.length === 0)
      throw validationError('reason', input.reason ?? null, 'reason must not be empty.');
    if (reason.length > resolutionReasonLengthMax) {
      throw validationError(
        'reason',
        null,
        `reason must be at most ${resolutionReasonLengthMax} characters.`,
      );
    }
    assertNoSensitiveData('reason', reason);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [current] = await tx
        .select()
        .from(reconciliationExceptions)
        .where(
          and(
            eq(reconciliationExceptions.tenantId, input.tenantId),
            eq(reconciliationExceptions.id, input.exceptionId),
          ),
        )
        .for('update');
      if (!current) throw notFound('Reconciliation exception', input.exceptionId);
      if (current.status !== 'open') {
        throw new DomainError(
          'error.msg.reconciliation.exception.invalid.state.transition',
          `Reconciliation exception ${input.exceptionId} is already ${current.status}.`,
        );
      }
      const now = deps.clock();
      const [updated] = await tx
        .update(reconciliationExceptions)
        .set({
          status: 'resolved',
          resolution: input.resolution,
          resolutionReason: reason,
          resolvedBy: input.actor,
          resolvedAt: now,
        })
        .where(
          and(
            eq(reconciliationExceptions.tenantId, input.tenantId),
            eq(reconciliationExceptions.id, current.id),
          ),
        )
        .returning();
      if (!updated) throw new Error(`reconciliation exception ${current.id} vanished under its row lock`);
      const exception = reconciliationExceptionView(updated);
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'reconciliation.exception.resolved',
        subjectId: exception.exceptionId,
        data: {
          exceptionId: exception.exceptionId,
          exceptionType: exception.exceptionType,
          targetType: exception.targetType,
          targetRef: exception.targetRef,
          status: 'resolved',
          resolution: input.resolution,
          resolvedAt: now.toISOString(),
        },
        occurredAt: now,
        dedupeKey: `reconciliation_exception/${exception.exceptionId}/resolved`,
      });
      return exception;
    });
  };
}
