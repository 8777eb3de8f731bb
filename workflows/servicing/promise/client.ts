/**
 * The typed port to the promise-to-pay process (docs/processes.md P0 "one folder per process"): the API reaches
 * `promiseWorkflow` only through this. Start options come from `promiseStartSpec` (the same spec the creating
 * operation stores as its start intent) via `workflows/common/client-start.ts`. Imports `@temporalio/client`:
 * never part of the workflow bundle.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { DomainError } from '../../../domain/errors';
import { promiseWorkflowId } from '../../../domain/ids';
import {
  type PaymentPostedHint,
  type PromiseState,
  type PromiseWorkflowInput,
  promiseStartSpec,
} from '../../../domain/servicing/promise';
import { toDomainError } from '../../common/client-errors';
import { startWorkflowOf } from '../../common/client-start';
import { getStateQuery, paymentPostedSignal } from './messages';
import type { promiseWorkflow } from './workflow';

/** Result of signalling promises: those whose signal could not be delivered (their deadline read covers them). */
export interface PaymentPostedNotice {
  failed: { promiseId: number; error: unknown }[];
}

export interface PromiseClient {
  /**
   * Starts the promise's workflow (id `promise/<tenant>/<promiseId>`); a no-op when it already runs or ran.
   * Errors: 503 when Temporal is unreachable.
   */
  start(input: PromiseWorkflowInput): Promise<void>;
  /**
   * Signals `paymentPosted` to the processes of `promiseIds` (a loan's PENDING promises). Best effort, never
   * throws: a process that is gone (completed, never started) is skipped; any other failure is returned so the
   * caller can log it.
   */
  notifyPaymentPosted(
    tenantId: string,
    promiseIds: readonly number[],
    hint: PaymentPostedHint,
  ): Promise<PaymentPostedNotice>;
  /** The process's state (query `getState`). Errors: 404 when no such workflow exists; 503 unreachable. */
  state(ref: { tenantId: string; promiseId: number }): Promise<PromiseState>;
}

export function createPromiseClient(client: Client): PromiseClient {
  return {
    async start(input) {
      await startWorkflowOf(client, promiseStartSpec(input));
    },
    async notifyPaymentPosted(tenantId, promiseIds, hint) {
      const outcomes = await Promise.allSettled(
        promiseIds.map((promiseId) =>
          client.workflow
            .getHandle<typeof promiseWorkflow>(promiseWorkflowId(tenantId, promiseId))
            .signal(paymentPostedSignal, hint),
        ),
      );
      const failed: PaymentPostedNotice['failed'] = [];
      outcomes.forEach((outcome, index) => {
        if (outcome.status === 'fulfilled' || outcome.reason instanceof WorkflowNotFoundError) return;
        failed.push({ promiseId: promiseIds[index] as number, error: outcome.reason });
      });
      return { failed };
    },
    async state(ref) {
      try {
        return await client.workflow
          .getHandle<typeof promiseWorkflow>(promiseWorkflowId(ref.tenantId, ref.promiseId))
          .query(getStateQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          throw new DomainError('error.msg.resource.not.found', `Promise ${ref.promiseId} has no process.`);
        }
        throw toDomainError(err);
      }
    },
  };
}
