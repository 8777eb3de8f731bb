/**
 * Plans the next chunks of a whole-tenant close-of-business run (docs/processes.md P7 "The run"): reads the next
 * loan ids of the day once and cuts them into id ranges the workflow closes in parallel. A Temporal activity of
 * `closeOfBusinessWorkflow`, never called by a route.
 */
import { cobLoanIdsAfter } from '../../db/queries/lending/cob-runs';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';

/** A chunk: the loans of the day with `afterLoanId` < id ≤ `lastLoanId`. */
export interface CobChunkRange {
  afterLoanId: number;
  lastLoanId: number;
}

/**
 * Reads up to `chunkSize × chunks` ids of the loans of `businessDate` after `afterLoanId` (ascending; a read-only
 * tenant transaction, ids only) and answers them cut into at most `chunks` ranges of `chunkSize` loans, plus `done`
 * when no loan of the day lies beyond the last range. Errors: PostgreSQL's (retried by the workflow).
 */
export function planCobChunks(deps: Deps) {
  return async (input: {
    tenantId: string;
    businessDate: string;
    afterLoanId: number;
    chunkSize: number;
    chunks: number;
  }): Promise<{ ranges: CobChunkRange[]; done: boolean }> => {
    const wanted = input.chunkSize * input.chunks;
    const ids = await withTenantTransaction(
      deps.db,
      input.tenantId,
      (tx) => cobLoanIdsAfter(tx, input.tenantId, input.businessDate, input.afterLoanId, wanted),
      { accessMode: 'read only' },
    );
    const ranges: CobChunkRange[] = [];
    let after = input.afterLoanId;
    for (let i = 0; i < ids.length; i += input.chunkSize) {
      const last = ids[Math.min(i + input.chunkSize, ids.length) - 1] as number;
      ranges.push({ afterLoanId: after, lastLoanId: last });
      after = last;
    }
    return { ranges, done: ids.length < wanted };
  };
}
