/** Input, progress and result of `boardingWorkflow` (JSON; the input is the domain's, shared with the start spec). */
import type { BoardingBatchStatus, BoardingCounts } from '../../../domain/boarding/batch';

export type { BoardingCursor, BoardingWorkflowInput } from '../../../domain/boarding/batch';

/** What the progress query answers. */
export interface BoardingProgress {
  batchId: number;
  status: BoardingBatchStatus;
  counts: BoardingCounts;
  /** Epoch ms; null before the process started working. */
  startedAtMs: number | null;
  completedAtMs: number | null;
  /** Seconds left at the current rate; null when unknown or done. */
  etaSeconds: number | null;
}

/** What the process returns when it ends. */
export interface BoardingWorkflowResult {
  batchId: number;
  status: 'COMPLETED' | 'COMPLETED_WITH_ERRORS' | 'CANCELLED';
  counts: BoardingCounts;
}
