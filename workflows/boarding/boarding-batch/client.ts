/**
 * The typed port to the boarding process (docs/processes.md P0 "one folder per process"; P3): the API reaches
 * `boardingWorkflow` only through this. Start options come from `boardingStartSpec` (the same spec the staging
 * operation stores as its start intent) via `workflows/common/client-start.ts`. Imports `@temporalio/client`:
 * never part of the workflow bundle.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type BoardingWorkflowInput, boardingStartSpec } from '../../../domain/boarding/batch';
import { boardingWorkflowId } from '../../../domain/ids';
import { toDomainError } from '../../common/client-errors';
import { startWorkflowOf } from '../../common/client-start';
import { cancelSignal, getProgressQuery, pauseSignal, resumeSignal } from './messages';
import type { BoardingProgress } from './types';
import type { boardingWorkflow } from './workflow';

export interface BoardingClient {
  /** Starts the batch's process (id `boarding/<tenant>/<batchId>`); a no-op when it runs or ran. 503 unreachable. */
  start(input: BoardingWorkflowInput): Promise<void>;
  /**
   * The process's progress (query `getProgress`), or null when the process is not found (not yet started, or
   * closed and no longer queryable: the caller falls back to the batch row). 503 when Temporal is unreachable.
   */
  progress(ref: { tenantId: string; batchId: number }): Promise<BoardingProgress | null>;
  /** Sends `pause`, `resume` or `cancel`; false when the process is not found (ended). 503 when unreachable. */
  control(
    ref: { tenantId: string; batchId: number },
    action: 'pause' | 'resume' | 'cancel',
  ): Promise<boolean>;
}

export function createBoardingClient(client: Client): BoardingClient {
  const handleOf = (tenantId: string, batchId: number) =>
    client.workflow.getHandle<typeof boardingWorkflow>(boardingWorkflowId(tenantId, batchId));
  return {
    async start(input) {
      await startWorkflowOf(client, boardingStartSpec(input));
    },
    async progress(ref) {
      try {
        return await handleOf(ref.tenantId, ref.batchId).query(getProgressQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        throw toDomainError(err);
      }
    },
    async control(ref, action) {
      const signal = action === 'pause' ? pauseSignal : action === 'resume' ? resumeSignal : cancelSignal;
      try {
        await handleOf(ref.tenantId, ref.batchId).signal(signal);
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw toDomainError(err);
      }
    },
  };
}
