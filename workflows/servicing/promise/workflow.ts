/**
 * A promise to pay as a durable process (docs/processes.md P4 "Promises to pay").
 *
 * Clock: the deadline computed once at intake (`deadlineAtMs`, domain/servicing/promise.ts
 * `computePromiseWindow`): the end of the promised date plus 3 grace days in the tenant's time zone.
 * Steps: read what the loan's POSTED payments in the window add up to (`readPromisePayments`) at start
 * and after every `paymentPosted` signal; once the sum reaches the promised amount, resolve KEPT at
 * once (so an agent can close the case with PROMISE_KEPT). At the deadline read once more and resolve:
 * sum ≥ amount → KEPT, 0 < sum < amount → PARTIALLY_KEPT, nothing → BROKEN (`resolvePromiseToPay`:
 * status, case effect, event and, unless kept, a follow-up task, in one transaction).
 * Signals are hints only: a lost signal delays a KEPT to the deadline, never changes the outcome,
 * since the deadline read sees every posted payment.
 * Messages: signal `paymentPosted` (sent by record-external and by the payment-intent workflow after
 * posting), query `getState`.
 * Outcomes: KEPT, PARTIALLY_KEPT, BROKEN (returned, not thrown).
 * Id: `promise/<tenant>/<promiseId>`; queue `servicing`; search attributes TenantId, CaseId, LoanId.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import { formatMinor, minorUnitDigits } from '../../../domain/money';
import { type PromiseOutcome, type PromiseState, promiseOutcomeOf } from '../../../domain/servicing/promise';
import { dbWrite } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { getStateQuery, paymentPostedSignal } from './messages';
import type { PromiseWorkflowInput, PromiseWorkflowResult } from './types';

const { readPromisePayments, resolvePromiseToPay } = proxyActivities<Activities>(dbWrite);

/** Waits until `done()` or the instant `untilMs`; true when `done()` became true. */
async function waitUntil(done: () => boolean, untilMs: number): Promise<boolean> {
  if (done()) return true;
  const remainingMs = untilMs - workflowNow();
  if (remainingMs <= 0) return false;
  return condition(done, remainingMs);
}

/**
 * Watches one promise until it is kept or its deadline passes; returns the outcome (never throws for one).
 * Input: the promise's ids, amount (decimal string) and currency, and `deadlineAtMs` (epoch ms).
 */
export async function promiseWorkflow(input: PromiseWorkflowInput): Promise<PromiseWorkflowResult> {
  const ref = { tenantId: input.tenantId, promiseId: input.promiseId };
  const state: PromiseState = {
    promiseId: input.promiseId,
    status: 'PENDING',
    paidAmount: formatMinor(0n, minorUnitDigits(input.currency)),
    deadlineAtMs: input.deadlineAtMs,
    hintsReceived: 0,
  };
  // Reads owed: one at start (a payment may have posted before the process ran), one per signal; signals that
  // arrive during a read are covered by the next one.
  let readsOwed = 1;

  setHandler(paymentPostedSignal, () => {
    state.hintsReceived += 1;
    readsOwed += 1;
  });
  setHandler(getStateQuery, () => ({ ...state }));

  const resolve = async (outcome: PromiseOutcome, atDeadline: boolean): Promise<PromiseWorkflowResult> => {
    const view = await resolvePromiseToPay({ ...ref, outcome, paidAmount: state.paidAmount });
    state.status = view.status;
    state.paidAmount = view.paidAmount;
    return {
      promiseId: input.promiseId,
      status: view.status === 'PENDING' ? outcome : view.status,
      paidAmount: view.paidAmount,
      atDeadline,
    };
  };

  while (await waitUntil(() => readsOwed > 0, input.deadlineAtMs)) {
    readsOwed = 0;
    const read = await readPromisePayments(ref);
    state.paidAmount = read.paidAmount;
    if (read.status !== 'PENDING') {
      // Resolved by an earlier run of this process (a reset): nothing more to do.
      state.status = read.status;
      return {
        promiseId: input.promiseId,
        status: read.status,
        paidAmount: read.paidAmount,
        atDeadline: false,
      };
    }
    if (
      promiseOutcomeOf({ amount: input.amount, paidAmount: read.paidAmount, atDeadline: false }) === 'KEPT'
    ) {
      return resolve('KEPT', false);
    }
  }

  const final = await readPromisePayments(ref);
  state.paidAmount = final.paidAmount;
  const outcome = promiseOutcomeOf({ amount: input.amount, paidAmount: final.paidAmount, atDeadline: true });
  return resolve(outcome ?? 'BROKEN', true);
}
