/**
 * The batch view `GET /v1/boarding/batches/{batchId}` answers (docs/processes.md P3; domain `BoardingBatchView`),
 * composed from what the process's progress query says when it answers and from the batch row otherwise. Pure.
 */
import {
  type BoardingBatchStatus,
  type BoardingBatchView,
  type BoardingCounts,
  finalBoardingBatchStatuses,
} from './batch';

/** What the batch row holds (db/queries/boarding/boarding-batches.ts `BoardingBatchRecord`). */
export interface BoardingBatchRowView {
  batchId: number;
  status: BoardingBatchStatus;
  records: number;
  malformed: number;
  startedAt: Date | null;
  completedAt: Date | null;
}

/** What the process's query answers (workflows/boarding/boarding-batch/types.ts `BoardingProgress`). */
export interface BoardingProgressView {
  status: BoardingBatchStatus;
  counts: BoardingCounts;
  startedAtMs: number | null;
  completedAtMs: number | null;
  etaSeconds: number | null;
}

/** True when the batch has ended (COMPLETED, COMPLETED_WITH_ERRORS, CANCELLED). */
export function isFinalBoardingStatus(status: BoardingBatchStatus): boolean {
  return (finalBoardingBatchStatuses as readonly string[]).includes(status);
}

/**
 * The view of a batch: status, counts, times and ETA from `progress` when the process answered and has begun
 * (a process still STAGED has counted nothing: `rowCounts` then), else from the row with `rowCounts` (the counts
 * the process recorded on the row, or the lines counted by kind and state). `records` and `malformed` always come
 * from the row (the upload's).
 */
export function boardingBatchViewOf(
  row: BoardingBatchRowView,
  rowCounts: BoardingCounts,
  progress: BoardingProgressView | null,
): BoardingBatchView {
  if (progress !== null) {
    const counted = progress.status !== 'STAGED';
    return {
      batchId: row.batchId,
      status: progress.status,
      records: row.records,
      malformed: row.malformed,
      counts: counted ? progress.counts : rowCounts,
      startedAt: progress.startedAtMs === null ? null : new Date(progress.startedAtMs).toISOString(),
      completedAt: progress.completedAtMs === null ? null : new Date(progress.completedAtMs).toISOString(),
      etaSeconds: progress.etaSeconds,
    };
  }
  return {
    batchId: row.batchId,
    status: row.status,
    records: row.records,
    malformed: row.malformed,
    counts: rowCounts,
    startedAt: row.startedAt ? row.startedAt.toISOString() : null,
    completedAt: row.completedAt ? row.completedAt.toISOString() : null,
    etaSeconds: null,
  };
}
