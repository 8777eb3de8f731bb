/**
 * One chunk of a close-of-business run (docs/processes.md P7 "The run"): the chunk's loans go through their step
 * (activities/lending/close-loan-business-day.ts `closeLoansForDay`: one short transaction per loan under its row
 * lock, bounded concurrency), and the loans whose step failed are recorded in the run's errors. A Temporal activity
 * of `closeOfBusinessWorkflow`, never called by a route.
 */
import { and, eq, gt, inArray, lte } from 'drizzle-orm';
import { cobLoansOfDay } from '../../db/queries/lending/cob-runs';
import { cobRunErrors, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';
import { closeLoansForDay, type LoanDayOutcome } from './close-loan-business-day';
import type { CobChunkRange } from './plan-cob-chunks';

/**
 * The error text a run keeps for a failed loan: the step's message without the SQL parameters a failed query's
 * message lists after `params:` (they may carry personal data; db/errors.ts `withoutQueryParameters` keeps them out
 * of Temporal for the same reason), at most 1000 characters.
 */
export function storedCobError(message: string | undefined): string {
  const text = (message ?? 'unknown error').split(/\nparams:/)[0] ?? '';
  return (text.trim() || 'unknown error').slice(0, 1000);
}

/** Input of `closeCobChunk`: a range of the day's loans (whole-tenant run) or the named loans of the chunk. */
export interface CloseCobChunkInput {
  tenantId: string;
  runId: string;
  /** ISO date D. */
  businessDate: string;
  /** The whole-tenant run's chunk: the loans of D with `afterLoanId` < id ≤ `lastLoanId`, read afresh. */
  range?: CobChunkRange;
  /** A run of named loans: these loans, whatever their state (the step decides). */
  loanIds?: number[];
  /** Loan steps at once; default 4. */
  concurrency?: number;
  /** Called after each loan's step; the worker passes the activity's heartbeat (workers/activities.ts). */
  onProgress?: () => void;
}

/** What a chunk did. `closed` + `skipped` are the run's processed loans; `failed` kept their day open. */
export interface CloseCobChunkResult {
  closed: number;
  /** Loans found already closed for D (a retried chunk's own earlier work, or another run's). */
  skipped: number;
  failed: number;
}

/**
 * Closes day D for the chunk's loans and records each failure (one row per run and loan, the latest error; a loan
 * that now closes loses the row an earlier attempt left). Repeating the chunk (a retried activity) closes nothing
 * twice and counts each loan once: a loan it closed before is found closed and counted in `skipped`.
 * Errors: PostgreSQL's on the reads and the errors' writes (retried by the workflow); a loan's failure is never one.
 */
export function closeCobChunk(deps: Deps) {
  const closeLoans = closeLoansForDay(deps);
  return async (input: CloseCobChunkInput): Promise<CloseCobChunkResult> => {
    let loanIds: number[];
    if (input.range) {
      const range = input.range;
      const rows = await withTenantTransaction(
        deps.db,
        input.tenantId,
        (tx) =>
          tx
            .select({ id: loans.id })
            .from(loans)
            .where(
              and(
                cobLoansOfDay(input.tenantId, input.businessDate),
                gt(loans.id, range.afterLoanId),
                lte(loans.id, range.lastLoanId),
              ),
            )
            .orderBy(loans.id),
        { accessMode: 'read only' },
      );
      loanIds = rows.map((r) => r.id);
    } else {
      loanIds = input.loanIds ?? [];
    }
    const outcomes: LoanDayOutcome[] = await closeLoans({
      tenantId: input.tenantId,
      businessDate: input.businessDate,
      loanIds,
      concurrency: input.concurrency ?? 4,
      onLoanDone: () => input.onProgress?.(),
    });
    const failed = outcomes.filter((o) => o.outcome === 'FAILED');
    const done = outcomes.filter((o) => o.outcome !== 'FAILED').map((o) => o.loanId);
    const recordedAt = deps.clock();
    await withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (failed.length > 0) {
        for (const f of failed) {
          await tx
            .insert(cobRunErrors)
            .values({
              tenantId: input.tenantId,
              runId: input.runId,
              loanId: f.loanId,
              error: storedCobError(f.error),
              recordedAt,
            })
            .onConflictDoUpdate({
              target: [cobRunErrors.tenantId, cobRunErrors.runId, cobRunErrors.loanId],
              set: { error: storedCobError(f.error), recordedAt },
            });
        }
      }
      if (done.length > 0) {
        await tx
          .delete(cobRunErrors)
          .where(
            and(
              eq(cobRunErrors.tenantId, input.tenantId),
              eq(cobRunErrors.runId, input.runId),
              inArray(cobRunErrors.loanId, done),
            ),
          );
      }
    });
    return {
      closed: outcomes.filter((o) => o.outcome === 'CLOSED').length,
      skipped: outcomes.filter((o) => o.outcome === 'SKIPPED').length,
      failed: failed.length,
    };
  };
}
