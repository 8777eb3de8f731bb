import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import type { Deps, OperationContext } from '../deps';
import {
  type RecordExternalPaymentHistoryInput,
  type RecordExternalPaymentHistoryResult,
  recordExternalPaymentHistoryInTx,
} from '../payments/record-external-payment-history';
import { type ApproveLoanInput, type ApproveLoanResult, approveLoanInTx } from './approve-loan';
import { type CreateLoanInput, type CreateLoanResult, createLoanInTx } from './create-loan';
import type { LoanChunk } from './loan-chunk';

export interface BoardLoanInput {
  /** The application, as `createLoan` takes it (its tenant, actor and request key serve every step). */
  loan: CreateLoanInput;
  /** The approval of the loan when it is created SUBMITTED: `approveLoan`'s fields but the loan and the context. */
  approval: Omit<ApproveLoanInput, 'loanId' | keyof OperationContext>;
  /** Its fundings and payment history, as `recordExternalPaymentHistory` takes them; null: none. */
  history: Omit<RecordExternalPaymentHistoryInput, 'loanId' | keyof OperationContext> | null;
}

export interface BoardLoanResult {
  loan: CreateLoanResult;
  /** The approval's result; null when the loan was not SUBMITTED (a retry that found it approved or active). */
  approval: ApproveLoanResult | null;
  history: RecordExternalPaymentHistoryResult | null;
}

/**
 * Boards one loan in ONE transaction (portfolio boarding, docs/processes.md P3 and its boarding speed target): the
 * steps the boarding would otherwise run as three operations, with the same rules, rows, events and results —
 * `createLoan` (idempotent by `loan.requestKey`), then `approveLoan` while the loan is SUBMITTED, then
 * `recordExternalPaymentHistory` with its fundings and payments (one allocation and ledger repost). One commit
 * instead of three, and the installments the application stored are kept when the approval gives the same schedule
 * (an approval of the full principal on the application's dates) instead of being deleted and inserted again.
 *
 * A funding or payment that fails its rules fails alone, in the history's outcomes, as in
 * `recordExternalPaymentHistory`. Errors: any DomainError of the application or the approval (400, 404, 409) rolls
 * the whole transaction back — nothing of the loan is stored — and is thrown as those operations throw it, so a
 * caller that must report which step failed (the boarding) runs the steps one by one after such an error.
 */
export function boardLoan(deps: Deps) {
  return async (input: BoardLoanInput): Promise<BoardLoanResult> =>
    withTenantTransaction(deps.db, input.loan.tenantId, (tx) => boardLoanInTx(tx, input, deps.clock()));
}

/**
 * `boardLoan` inside the caller's tenant transaction `tx` (the same steps, rows, events, results and errors; `now`
 * is the operation's time). Portfolio boarding runs the loans of one chunk in one transaction this way, each loan
 * under a savepoint (activities/boarding/board-lines-together.ts), with the chunk's shared reads and write buffers
 * (`chunk`, activities/lending/loan-chunk.ts): a loan created here is then not read back (its approval and history
 * start from the rows as stored), and its history entries and events are written with the chunk's.
 */
export async function boardLoanInTx(
  tx: Tx,
  input: BoardLoanInput,
  now: Date,
  chunk?: LoanChunk,
): Promise<BoardLoanResult> {
  const context = {
    tenantId: input.loan.tenantId,
    actor: input.loan.actor ?? null,
    correlationId: input.loan.correlationId ?? null,
  };
  const created = await createLoanInTx(tx, input.loan, now, chunk);
  const approved =
    created.loan.status === 'SUBMITTED'
      ? await approveLoanInTx(tx, { ...context, ...input.approval, loanId: created.loan.loanId }, now, {
          ...(created.installments ? { storedInstallments: created.installments } : {}),
          ...(created.fresh ? { fresh: created.fresh } : {}),
          ...(chunk ? { chunk } : {}),
        })
      : null;
  const history = input.history
    ? await recordExternalPaymentHistoryInTx(
        tx,
        { ...context, ...input.history, loanId: created.loan.loanId },
        now,
        created.fresh && approved
          ? {
              lockedLoan: approved.approvedLoan,
              loanTerms: approved.approvedTerms,
              installments: approved.approvedInstallments,
              createdInThisTransaction: true,
              ...(chunk ? { chunk } : {}),
            }
          : chunk
            ? { chunk }
            : {},
      )
    : null;
  let approval: ApproveLoanResult | null = null;
  if (approved) {
    const { approvedLoan: _, approvedTerms: __, approvedInstallments: ___, ...result } = approved;
    approval = result;
  }
  return { loan: created.loan, approval, history };
}
