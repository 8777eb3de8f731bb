/**
 * The last step of a close-of-business run (docs/processes.md P7 "The run"): stores its status and counts. A
 * Temporal activity of `closeOfBusinessWorkflow`, never called by a route.
 */
import { and, eq } from 'drizzle-orm';
import { type StoredCobRun, storedCobRun } from '../../db/queries/lending/cob-runs';
import { cobRuns } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import { type CobRunLoans, finalCobRunStatus } from '../../domain/lending/cob-runs';
import type { Deps } from '../deps';

/**
 * Ends run `runId` under its row lock: status COMPLETED, or COMPLETED_WITH_ERRORS when `loans.failed` > 0, the
 * counts and `completedAt` (the clock). A run already ended is answered unchanged (a retried activity writes
 * nothing twice). Answers the run. Errors: 404 when the tenant has no such run.
 */
export function completeCobRun(deps: Deps) {
  return async (input: { tenantId: string; runId: string; loans: CobRunLoans }): Promise<StoredCobRun> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const where = and(eq(cobRuns.tenantId, input.tenantId), eq(cobRuns.runId, input.runId));
      const [row] = await tx.select().from(cobRuns).where(where).for('update');
      if (!row) throw notFound('Close-of-business run', input.runId);
      if (row.status !== 'RUNNING') return storedCobRun(row);
      const [updated] = await tx
        .update(cobRuns)
        .set({
          status: finalCobRunStatus(input.loans.failed),
          loansTotal: input.loans.total,
          loansProcessed: input.loans.processed,
          loansFailed: input.loans.failed,
          completedAt: deps.clock(),
        })
        .where(where)
        .returning();
      return storedCobRun(updated ?? row);
    });
}
