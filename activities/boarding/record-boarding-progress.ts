/**
 * Records a boarding batch's status, counts and times on its row, and its one `boarding.batch.completed` event at
 * the end (docs/processes.md P3; docs/design.md §3 outbox): `recordBoardingProgress`.
 */

import { and, eq } from 'drizzle-orm';
import { boardingBatches } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type BoardingCounts, finalBoardingBatchStatuses } from '../../domain/boarding/batch';
import type { Deps } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { countLines } from './lines';

export interface RecordBoardingProgressInput {
  tenantId: string;
  batchId: number;
  status: string;
  /** Epoch ms, or null. */
  startedAtMs: number | null;
  completedAtMs: number | null;
  /** The process's counts; null → counted again from the lines (authoritative), stored and returned. */
  counts: BoardingCounts | null;
}

/**
 * Records the batch's status, counts and times on its row (docs/processes.md P3: `GET …/batches/{batchId}` answers
 * from it once the process has closed), at each phase change and every few chunks. With `counts` null the counts
 * are recounted from the lines (per kind: total, boarded = BOARDED or SKIPPED, failed = FAILED) and returned.
 *
 * The record of the end (a final status, COMPLETED, COMPLETED_WITH_ERRORS or CANCELLED, with `completedAtMs`) also
 * writes the batch's one `boarding.batch.completed` event (domain/events.ts: batchId, final status, records,
 * malformed, counts per kind, times) in the same transaction (docs/design.md §3 outbox), dedupe key
 * `boarding-batch/<batchId>/completed`, so a retried record writes it once. It carries no `source`: it reaches every
 * subscription that names it, with or without `includeBoardedHistory`.
 * One transaction; idempotent.
 */
export function recordBoardingProgress(deps: Deps) {
  return async (input: RecordBoardingProgressInput): Promise<BoardingCounts> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const counts = input.counts ?? (await countLines(tx, input.tenantId, input.batchId));
      const [batch] = await tx
        .update(boardingBatches)
        .set({
          status: input.status,
          counts,
          startedAt: input.startedAtMs === null ? null : new Date(input.startedAtMs),
          completedAt: input.completedAtMs === null ? null : new Date(input.completedAtMs),
        })
        .where(and(eq(boardingBatches.tenantId, input.tenantId), eq(boardingBatches.id, input.batchId)))
        .returning({ records: boardingBatches.records, malformed: boardingBatches.malformed });
      const final = finalStatusOf(input.status);
      if (batch && final && input.completedAtMs !== null) {
        const completedAt = new Date(input.completedAtMs);
        await writeOutboxEvent(tx, {
          tenantId: input.tenantId,
          eventType: 'boarding.batch.completed',
          subjectId: input.batchId,
          data: {
            batchId: input.batchId,
            status: final,
            records: batch.records,
            malformed: batch.malformed,
            counts,
            startedAt: input.startedAtMs === null ? null : new Date(input.startedAtMs).toISOString(),
            completedAt: completedAt.toISOString(),
          },
          occurredAt: completedAt,
          dedupeKey: `boarding-batch/${input.batchId}/completed`,
        });
      }
      return counts;
    });
}

/** `status` when it is a final batch status, else null. */
function finalStatusOf(status: string): (typeof finalBoardingBatchStatuses)[number] | null {
  return (finalBoardingBatchStatuses as readonly string[]).includes(status)
    ? (status as (typeof finalBoardingBatchStatuses)[number])
    : null;
}
