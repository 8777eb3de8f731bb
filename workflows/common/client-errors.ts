/**
 * Client-side error mapping, shared by every process's `client.ts` (docs/conventions.md §10): Temporal's
 * failures become the DomainError they stand for, once. Imports `@temporalio/client`: never
 * imported by a `workflow.ts` (kept out of the workflow bundle; .dependency-cruiser.cjs).
 */
import {
  isGrpcServiceError,
  ServiceError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { DomainError, type FieldError, isErrorCode } from '../../domain/errors';

/**
 * Turns a Temporal failure into the DomainError it stands for: an update's `ApplicationFailure`
 * (directly or behind an `ActivityFailure`) → the DomainError of its `type`; Temporal unreachable
 * or timing out → 503 `error.msg.service.unavailable` with `Retry-After: 5`. Anything else is
 * returned unchanged.
 */
export function toDomainError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  let cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
  // An update handler that lets its activity's failure escape fails with an ActivityFailure
  // whose cause is the activity's ApplicationFailure.
  if (cause instanceof ActivityFailure) cause = cause.cause;
  if (cause instanceof ApplicationFailure && cause.type && isErrorCode(cause.type)) {
    const detail = cause.details?.[0] as { errors?: FieldError[] } | undefined;
    return new DomainError(cause.type, cause.message, { errors: detail?.errors ?? [] });
  }
  if (
    err instanceof ServiceError ||
    err instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
    isGrpcServiceError(err) ||
    (err instanceof Error && /UNAVAILABLE|DEADLINE_EXCEEDED|ECONNREFUSED/.test(err.message))
  ) {
    return new DomainError(
      'error.msg.service.unavailable',
      'The workflow service is unavailable; retry later.',
      { retryAfterSeconds: 5 },
    );
  }
  return err;
}
