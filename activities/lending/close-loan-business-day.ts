/**
 * A loan's step of close of business (docs/processes.md P7 "A loan's step for day D"; Apache Fineract's Loan COB
 * business steps): one short transaction per loan under its row lock, idempotent per (loan, day) through
 * `loans.last_closed_business_date` (a loan whose `lastClosedBusinessDate` ≥ D is skipped).
 *
 * This first cut only stamps the day; the steps (penalties, delinquency, notices, collections, charge-off) come
 * in order in the same transaction before the stamp.
 */
import { and, eq } from 'drizzle-orm';
import { loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { Deps } from '../deps';

/** What one loan's step did for day D: CLOSED (the day closed now), SKIPPED (closed before), FAILED (rolled back). */
export interface LoanDayOutcome {
  loanId: number;
  outcome: 'CLOSED' | 'SKIPPED' | 'FAILED';
  /** FAILED only: the error's message (what `GET /v1/cob/runs/{runId}/errors` shows). */
  error?: string;
}

/** Input of `closeLoanBusinessDay`. */
export interface CloseLoanBusinessDayInput {
  tenantId: string;
  loanId: number;
  /** ISO date D of the day that ended (the state stored is as of D + 1). */
  businessDate: string;
}

/**
 * Closes day D for one loan (module note) in one tenant transaction under the loan's row lock. Answers CLOSED or
 * SKIPPED. Errors: 404 `error.msg.resource.not.found` when the tenant has no such loan; PostgreSQL's, unchanged
 * (the transaction rolls back and the loan's day stays open).
 */
export function closeLoanBusinessDay(deps: Deps) {
  return async (input: CloseLoanBusinessDayInput): Promise<LoanDayOutcome> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [loan] = await tx
        .select({ id: loans.id, lastClosedBusinessDate: loans.lastClosedBusinessDate })
        .from(loans)
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, input.loanId)))
        .for('update');
      if (!loan) throw notFound('Loan', input.loanId);
      if (loan.lastClosedBusinessDate !== null && loan.lastClosedBusinessDate >= input.businessDate) {
        return { loanId: loan.id, outcome: 'SKIPPED' };
      }
      await tx
        .update(loans)
        .set({ lastClosedBusinessDate: input.businessDate })
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, loan.id)));
      return { loanId: loan.id, outcome: 'CLOSED' };
    });
}

/** Input of `closeLoansForDay`. */
export interface CloseLoansForDayInput {
  tenantId: string;
  /** ISO date D. */
  businessDate: string;
  /** The loans to close, in the order given. */
  loanIds: readonly number[];
  /** Loan steps at once (each its own transaction); default 4. */
  concurrency?: number;
  /** Called after each loan's step (an activity's heartbeat). */
  onLoanDone?: (outcome: LoanDayOutcome) => void;
}

/**
 * Closes day D for each of `loanIds`, `concurrency` loans at a time, each in its own transaction
 * (`closeLoanBusinessDay`). One loan's failure never stops the others: it is answered FAILED with its message and
 * its day stays open for the next run. Answers one outcome per loan, in the order of `loanIds`.
 */
export function closeLoansForDay(deps: Deps) {
  const closeOne = closeLoanBusinessDay(deps);
  return async (input: CloseLoansForDayInput): Promise<LoanDayOutcome[]> => {
    const outcomes: LoanDayOutcome[] = new Array(input.loanIds.length);
    let next = 0;
    const lane = async () => {
      while (next < input.loanIds.length) {
        const index = next++;
        const loanId = input.loanIds[index] as number;
        let outcome: LoanDayOutcome;
        try {
          outcome = await closeOne({ tenantId: input.tenantId, loanId, businessDate: input.businessDate });
        } catch (err) {
          outcome = { loanId, outcome: 'FAILED', error: err instanceof Error ? err.message : String(err) };
        }
        outcomes[index] = outcome;
        input.onLoanDone?.(outcome);
      }
    };
    const lanes = Math.max(1, Math.min(input.concurrency ?? 4, input.loanIds.length));
    await Promise.all(Array.from({ length: lanes }, lane));
    return outcomes;
  };
}
