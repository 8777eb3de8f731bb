/**
 * Purges the raw text of the lines of finished boarding batches after their retention period
 * (domain/boarding/retention.ts; run every day by `boardingRawPurgeWorkflow`, workflows/boarding/boarding-purge/). A batch is
 * purged when its status is COMPLETED, COMPLETED_WITH_ERRORS or CANCELLED, it completed before the cutoff and its raw
 * text was not purged yet: every line's `raw` becomes null (kind, source refs, state, error and created id stay, so
 * `GET /v1/boarding/batches/{batchId}/errors` and the CLI's rejects file keep working) and the batch's
 * `raw_purged_at` is set. A cross-tenant sweep (db/tenant-tx.ts `withPlatformTransaction`): each call purges at most
 * `batchesPerCall` batches in one transaction; running it again is harmless.
 */
import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import { boardingBatches } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { finalBoardingBatchStatuses } from '../../domain/boarding/batch';
import type { Deps } from '../deps';

export interface PurgeBoardingRawLinesInput {
  /** Batches that completed before this instant (epoch milliseconds) are purged. */
  cutoffMs: number;
  /** At most this many batches in this call (default 20). */
  batchesPerCall?: number;
}

export interface PurgeBoardingRawLinesResult {
  batchesPurged: number;
  linesPurged: number;
  /** True when this call purged `batchesPerCall` batches: more may be due. */
  more: boolean;
}

/** Purges the next batches due (module note). Errors: database errors as they come (retried by the workflow). */
export function purgeBoardingRawLines(deps: Deps) {
  return async (input: PurgeBoardingRawLinesInput): Promise<PurgeBoardingRawLinesResult> => {
    const limit = input.batchesPerCall ?? 20;
    return withPlatformTransaction(deps.db, async (tx) => {
      const due = await tx
        .select({ tenantId: boardingBatches.tenantId, id: boardingBatches.id })
        .from(boardingBatches)
        .where(
          and(
            inArray(boardingBatches.status, [...finalBoardingBatchStatuses]),
            lt(boardingBatches.completedAt, new Date(input.cutoffMs)),
            isNull(boardingBatches.rawPurgedAt),
          ),
        )
        .orderBy(asc(boardingBatches.completedAt), asc(boardingBatches.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      let linesPurged = 0;
      const now = deps.clock();
      for (const batch of due) {
        const [purged] = await tx.execute<{ lines: number }>(sql`
          with purged as (
            update boarding_lines set raw = null
            where tenant_id = ${batch.tenantId} and batch_id = ${batch.id} and raw is not null
            returning 1
          )
          select count(*)::int as lines from purged`);
        linesPurged += Number(purged?.lines ?? 0);
        await tx
          .update(boardingBatches)
          .set({ rawPurgedAt: now })
          .where(and(eq(boardingBatches.tenantId, batch.tenantId), eq(boardingBatches.id, batch.id)));
      }
      return { batchesPurged: due.length, linesPurged, more: due.length === limit };
    });
  };
}
