/**
 * Reads of boarding batches (docs/processes.md P3; tables `boarding_batches`, `boarding_lines`,
 * db/schema/boarding/boarding.ts) for the batch routes: the batch row, its line counts per kind and state (when the process
 * has recorded no counts yet) and one page of its FAILED lines in line order.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import {
  type BoardingBatchStatus,
  type BoardingCounts,
  emptyBoardingCounts,
  isBoardingKind,
} from '../../../domain/boarding/batch';
import type { ShapeABody } from '../../../domain/errors';
import type { Db } from '../../client';
import { boardingBatches, boardingLines } from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

/** What the batch routes read of a batch row. */
export interface BoardingBatchRecord {
  batchId: number;
  status: BoardingBatchStatus;
  records: number;
  malformed: number;
  fileName: string | null;
  /** Counts as last recorded by the process, or null before it recorded any. */
  counts: BoardingCounts | null;
  startedAt: Date | null;
  completedAt: Date | null;
}

/** The tenant's batch `batchId`, or null (unknown or another tenant's). */
export async function getBoardingBatch(
  db: Db,
  tenantId: string,
  batchId: number,
): Promise<BoardingBatchRecord | null> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(boardingBatches)
      .where(and(eq(boardingBatches.tenantId, tenantId), eq(boardingBatches.id, batchId))),
  );
  const row = rows[0];
  if (!row) return null;
  return {
    batchId: row.id,
    status: row.status as BoardingBatchStatus,
    records: row.records,
    malformed: row.malformed,
    fileName: row.fileName,
    counts: row.counts ?? null,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
  };
}

/**
 * Counts per kind of the batch's lines (`total`; `boarded`: state BOARDED; `failed`: state FAILED), counted in SQL
 * with one grouped scan of the batch's lines. Lines without a known kind (malformed) count under none.
 */
export async function countBoardingLines(db: Db, tenantId: string, batchId: number): Promise<BoardingCounts> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({
        kind: boardingLines.kind,
        total: sql<number>`count(*)::int`,
        boarded: sql<number>`(count(*) filter (where ${boardingLines.state} = 'BOARDED'))::int`,
        failed: sql<number>`(count(*) filter (where ${boardingLines.state} = 'FAILED'))::int`,
      })
      .from(boardingLines)
      .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, batchId)))
      .groupBy(boardingLines.kind),
  );
  const counts = emptyBoardingCounts();
  for (const row of rows) {
    if (isBoardingKind(row.kind))
      counts[row.kind] = { total: row.total, boarded: row.boarded, failed: row.failed };
  }
  return counts;
}

/** One FAILED line as `GET /v1/boarding/batches/{batchId}/errors` lists it. */
export interface BoardingLineError {
  line: number;
  kind: string | null;
  sourceRef: string | null;
  /** The Shape A body stored with the line. */
  error: ShapeABody | null;
}

/** Up to `limit + 1` FAILED lines of the batch from `offset`, in line order (the extra one tells `hasMore`). */
export async function listBoardingLineErrors(
  db: Db,
  tenantId: string,
  batchId: number,
  page: { limit: number; offset: number },
): Promise<BoardingLineError[]> {
  return withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({
        line: boardingLines.lineNo,
        kind: boardingLines.kind,
        sourceRef: boardingLines.sourceRef,
        error: boardingLines.error,
      })
      .from(boardingLines)
      .where(
        and(
          eq(boardingLines.tenantId, tenantId),
          eq(boardingLines.batchId, batchId),
          eq(boardingLines.state, 'FAILED'),
        ),
      )
      .orderBy(asc(boardingLines.lineNo))
      .limit(page.limit + 1)
      .offset(page.offset),
  );
}
