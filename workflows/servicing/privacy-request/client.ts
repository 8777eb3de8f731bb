/**
 * The typed port to the privacy-request process (docs/processes.md P0 "one folder per process"):
 * the API reaches `privacyRequestWorkflow` only through this. Start options come from
 * `privacyRequestStartSpec` (the same spec the opening operation stores as its start intent) via
 * `workflows/common/client-start.ts`. Imports `@temporalio/client`: never part of the workflow
 * bundle.
 */
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { DomainError } from '../../../domain/errors';
import { privacyRequestWorkflowId } from '../../../domain/ids';
import {
  type FulfilPrivacyRequestArgs,
  type FulfilPrivacyRequestResult,
  type PrivacyRequestWorkflowInput,
  privacyRequestStartSpec,
} from '../../../domain/servicing/privacy-request';
import { toDomainError } from '../../common/client-errors';
import { startWorkflowOf, workflowStartOptions } from '../../common/client-start';
import { fulfilRequestUpdate, getProgressQuery } from './messages';
import type { PrivacyRequestProgress } from './types';
import type { privacyRequestWorkflow } from './workflow';

export interface PrivacyRequestClient {
  /**
   * Starts the request's workflow (id `privacy-request/<tenant>/<requestId>`); a no-op when it
   * already runs or ran. Errors: 503 when Temporal is unreachable.
   */
  start(input: PrivacyRequestWorkflowInput): Promise<void>;
  /**
   * Delivers the outcome through the `fulfilRequest` update, starting the workflow first when it
   * was never started (update-with-start, conflict policy USE_EXISTING). Errors: DomainErrors of
   * the update's failure type (409 a second outcome, 400 unknown evidence); 409 when the workflow
   * already completed; 503 when Temporal is unreachable.
   */
  fulfil(
    input: PrivacyRequestWorkflowInput,
    args: FulfilPrivacyRequestArgs,
  ): Promise<FulfilPrivacyRequestResult>;
  /** The process's progress (query `getProgress`). Errors: 404 when no such workflow exists. */
  progress(ref: { tenantId: string; requestId: number }): Promise<PrivacyRequestProgress>;
}

export function createPrivacyRequestClient(client: Client): PrivacyRequestClient {
  return {
    async start(input) {
      await startWorkflowOf(client, privacyRequestStartSpec(input));
    },
    async fulfil(input, args) {
      try {
        return await client.workflow.executeUpdateWithStart(fulfilRequestUpdate, {
          args: [args],
          startWorkflowOperation: new WithStartWorkflowOperation<typeof privacyRequestWorkflow>(
            'privacyRequestWorkflow',
            {
              ...workflowStartOptions(privacyRequestStartSpec(input)),
              workflowIdConflictPolicy: 'USE_EXISTING',
            },
          ),
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError || err instanceof WorkflowNotFoundError) {
          throw new DomainError(
            'error.msg.privacy.request.invalid.state.transition',
            `Privacy request ${input.requestId} already has an outcome.`,
          );
        }
        throw toDomainError(err);
      }
    },
    async progress(ref) {
      try {
        return await client.workflow
          .getHandle<typeof privacyRequestWorkflow>(privacyRequestWorkflowId(ref.tenantId, ref.requestId))
          .query(getProgressQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          throw new DomainError(
            'error.msg.resource.not.found',
            `Privacy request ${ref.requestId} has no process.`,
          );
        }
        throw toDomainError(err);
      }
    },
  };
}
