/**
 * The first step of a close-of-business run (docs/processes.md P7 "The run"): counts the loans it covers and
 * stores the count on the run. A Temporal activity of `closeOfBusinessWorkflow`, never called by a route.
 */
import { and, eq } from 'drizzle-orm';
import { countCobLoans } from '../../db/queries/lending/cob-runs';
import { cobRuns } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';

/**
 * Counts the loans of run `runId`: `loanIds.length` for a run of named loans, else the loans the whole-tenant run of
 * `businessDate` covers (db/queries/lending/cob-runs.ts `cobLoansOfDay`), and stores it as the run's
 * `loans_total` while the run is RUNNING (one tenant transaction; repeating it stores the count again; a run that
 * ended keeps its counts). Answers `{total}`.
 * Errors: PostgreSQL's (retried by the workflow).
 */
export function countCobRunLoans(deps: Deps) {
  return async (input: {
    tenantId: string;
    runId: string;
    businessDate: string;
    loanIds: number[] | null;
  }): Promise<{ total: number }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const total =
        input.loanIds !== null
          ? input.loanIds.length
          : await countCobLoans(tx, input.tenantId, input.businessDate);
      await tx
        .update(cobRuns)
        .set({ loansTotal: total })
        .where(
          and(
            eq(cobRuns.tenantId, input.tenantId),
            eq(cobRuns.runId, input.runId),
            eq(cobRuns.status, 'RUNNING'),
          ),
        );
      return { total };
    });
}
