/**
 * The API's port to Temporal (STYLE §10): starts and updates workflows by type name, with the
 * function's type as the generic, and maps Temporal's errors to DomainErrors once:
 * an update's `ApplicationFailure` → the DomainError of its `type`; Temporal unreachable → 503.
 */
import {
  type Client,
  isGrpcServiceError,
  ServiceError,
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import {
  ActivityFailure,
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/common';
import { DomainError, type FieldError, isErrorCode } from '../domain/errors';
import { taskQueues } from '../domain/ids';
import type {
  FulfilPrivacyRequestArgs,
  FulfilPrivacyRequestResult,
  PrivacyRequestWorkflowInput,
} from '../domain/servicing/privacy-request';
import { startChannelEventWorkflow } from '../workflows/channel-event/client';
import type { ChannelEventWorkflowInput } from '../workflows/channel-event/types';
import { fulfilRequestUpdate } from '../workflows/privacy-request/messages';
import type { privacyRequestWorkflow } from '../workflows/privacy-request/workflow';
import { caseIdKey, customerRefKey, tenantIdKey } from '../workflows/shared/client-search-attributes';

export interface PrivacyWorkflowStart {
  workflowId: string;
  input: PrivacyRequestWorkflowInput;
}

export interface TemporalGateway {
  /** Starts the request's workflow; a no-op when it already runs or ran (deterministic id). */
  startPrivacyRequest(start: PrivacyWorkflowStart): Promise<void>;
  /**
   * Delivers the outcome through the `fulfilRequest` update, starting the workflow first when it
   * was never started (update-with-start). Errors: DomainErrors of the update's failure type.
   */
  fulfilPrivacyRequest(
    start: PrivacyWorkflowStart,
    args: FulfilPrivacyRequestArgs,
  ): Promise<FulfilPrivacyRequestResult>;
  /** Starts the processing of a recorded channel event (idempotent by its workflow id). */
  startChannelEvent(input: ChannelEventWorkflowInput): Promise<void>;
  /** True when the Temporal frontend answers. */
  health(): Promise<boolean>;
}

function privacyStartOptions(start: PrivacyWorkflowStart) {
  return {
    workflowId: start.workflowId,
    taskQueue: taskQueues.servicing,
    args: [start.input] as [PrivacyRequestWorkflowInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    typedSearchAttributes: [
      { key: tenantIdKey, value: start.input.tenantId },
      { key: customerRefKey, value: start.input.customerRef },
      { key: caseIdKey, value: start.input.caseId },
    ],
    staticSummary: `Privacy request ${start.input.requestId} (${start.input.regime}) due ${start.input.statutoryDueAt}`,
  };
}

/** Turns a Temporal failure into the DomainError it stands for. */
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
      {
        retryAfterSeconds: 5,
      },
    );
  }
  return err;
}

export function createTemporalGateway(client: Client): TemporalGateway {
  return {
    async startPrivacyRequest(start) {
      try {
        await client.workflow.start<typeof privacyRequestWorkflow>(
          'privacyRequestWorkflow',
          privacyStartOptions(start),
        );
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return;
        throw toDomainError(err);
      }
    },
    async fulfilPrivacyRequest(start, args) {
      try {
        return await client.workflow.executeUpdateWithStart(fulfilRequestUpdate, {
          args: [args],
          startWorkflowOperation: new WithStartWorkflowOperation<typeof privacyRequestWorkflow>(
            'privacyRequestWorkflow',
            {
              ...privacyStartOptions(start),
              workflowIdConflictPolicy: 'USE_EXISTING',
            },
          ),
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError || err instanceof WorkflowNotFoundError) {
          throw new DomainError(
            'error.msg.privacy.request.invalid.state.transition',
            `Privacy request ${start.input.requestId} already has an outcome.`,
          );
        }
        throw toDomainError(err);
      }
    },
    async startChannelEvent(input) {
      try {
        await startChannelEventWorkflow(client, input);
      } catch (err) {
        throw toDomainError(err);
      }
    },
    async health() {
      try {
        await client.workflowService.getSystemInfo({});
        return true;
      } catch {
        return false;
      }
    },
  };
}
