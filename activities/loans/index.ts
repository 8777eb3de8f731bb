/**
 * Operations of loans (issue 4): the schedule preview, submission, approval with the frozen Regulation Z
 * disclosure, and loan parties. Each runs one tenant transaction; the writes are idempotent (`requestKey` for
 * submission, the state check under the loan's row lock for approval, the natural key for parties).
 * `createActivities` (activities/index.ts) spreads them in, so they are also Temporal activities under these
 * names. The money operations of a loan (fundings, payments, ledger) live in activities/ledger/ and take the
 * loan's lock through db/queries/loans.ts `lockLoanForMoney`.
 */
import type { Deps } from '../deps';
import { addLoanParty } from './add-loan-party';
import { approveLoan } from './approve-loan';
import { calculateLoanSchedule } from './calculate-loan-schedule';
import { createLoan } from './create-loan';

/** `{calculateLoanSchedule, createLoan, approveLoan, addLoanParty}` bound to `deps`. */
export function createLoanActivities(deps: Deps) {
  return {
    calculateLoanSchedule: calculateLoanSchedule(deps),
    createLoan: createLoan(deps),
    approveLoan: approveLoan(deps),
    addLoanParty: addLoanParty(deps),
  };
}

export type LoanActivities = ReturnType<typeof createLoanActivities>;
