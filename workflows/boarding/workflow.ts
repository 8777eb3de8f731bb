/**
 * SKELETON (issue 9): the boarding process, to be written (see DESIGN-processes P3). Placeholder so the client
 * port type-checks; replaced by the helper that builds the workflow.
 */
import { condition, setHandler } from '@temporalio/workflow';
import { emptyBoardingCounts } from '../../domain/boarding/batch';
import { getProgressQuery } from './messages';
import type { BoardingWorkflowInput, BoardingWorkflowResult } from './types';

export async function boardingWorkflow(input: BoardingWorkflowInput): Promise<BoardingWorkflowResult> {
  setHandler(getProgressQuery, () => ({
    batchId: input.batchId,
    status: 'STAGED',
    counts: emptyBoardingCounts(),
    startedAtMs: null,
    completedAtMs: null,
    etaSeconds: null,
  }));
  await condition(() => false);
  return { batchId: input.batchId, status: 'CANCELLED', counts: emptyBoardingCounts() };
}
