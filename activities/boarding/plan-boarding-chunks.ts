/**
 * Plans the boarding of a batch's staged lines of one kind in chunks (docs/processes.md P3 "loan by loan, with
 * bounded parallelism"): `planBoardingChunks`, and the chunk it returns (`BoardingChunk`).
 */

import { and, asc, eq, gt } from 'drizzle-orm';
import { boardingLines } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { BoardingKind } from '../../domain/boarding/batch';
import type { Deps } from '../deps';

/** A range of line numbers of one kind: after `afterLine`, through `throughLine`. */
export interface BoardingChunk {
  afterLine: number;
  throughLine: number;
}

export interface PlanBoardingChunksInput {
  tenantId: string;
  batchId: number;
  kind: BoardingKind;
  afterLine: number;
  /** Lines of `kind` per chunk. */
  chunkSize: number;
  /** At most this many chunks. */
  maxChunks: number;
}

/**
 * The next chunks of PENDING lines of `kind` after `afterLine` (docs/processes.md P3 "loan by loan, with bounded
 * parallelism"): at most `maxChunks` ranges of `chunkSize` lines each, in line order; empty when none is left.
 * A read; one transaction.
 */
export function planBoardingChunks(deps: Deps) {
  return async (input: PlanBoardingChunksInput): Promise<BoardingChunk[]> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const rows = await tx
        .select({ lineNo: boardingLines.lineNo })
        .from(boardingLines)
        .where(
          and(
            eq(boardingLines.tenantId, input.tenantId),
            eq(boardingLines.batchId, input.batchId),
            eq(boardingLines.kind, input.kind),
            gt(boardingLines.lineNo, input.afterLine),
            eq(boardingLines.state, 'PENDING'),
          ),
        )
        .orderBy(asc(boardingLines.lineNo))
        .limit(input.chunkSize * input.maxChunks);
      const chunks: BoardingChunk[] = [];
      let after = input.afterLine;
      for (let i = 0; i < rows.length; i += input.chunkSize) {
        const through = rows[Math.min(i + input.chunkSize, rows.length) - 1]?.lineNo ?? after;
        chunks.push({ afterLine: after, throughLine: through });
        after = through;
      }
      return chunks;
    });
}
