/**
 * A payment intent as a durable process (docs/processes.md P1; docs/design.md §5 rails and statuses). Anchors:
 * Temporal's money-transfer sample (one workflow per transfer, outcomes by message), Stripe PaymentIntents
 * (statuses), NACHA Operating Rules (return windows), Increase's sandbox simulations.
 *
 * Steps:
 * 1. CREATED: wait until the rail's submission date for the `effectiveDate` (domain/payments/rails.ts
 *    `submissionDateOf`); an update `cancelPayment` meanwhile → CANCELLED, end.
 * 2. Submit to the rail (`submitPaymentToRail`, the rail call alone, idempotent by paymentId). Declined or
 *    rejected → FAILED (`failPaymentIntent`, event `payment.failed`), end. Else SUBMITTED (`markPaymentSubmitted`).
 * 3. Wait for the rail's outcome (update `railEvent`). In sandbox, without a simulation, the rail follows its own
 *    timeline: it settles itself on the rail's expected settlement date (`expectedSettlementOf`; instant rails
 *    a few seconds after submission). FAILED before settlement → FAILED, end.
 * 4. SETTLED: post (`postSettledPayment`: value-dated to `effectiveDate`, the loan's allocation and journal,
 *    event `payment.posted`) → POSTED. A settlement that cannot be posted automatically (an amount other than the
 *    intent's, or a loan that no longer accepts payments) opens a `SETTLED_NOT_POSTED` reconciliation exception
 *    and waits for an operator's resolution (update `resolveSettlement`): POST_AS_SETTLED posts the settled
 *    amount, POST_INTENT_AMOUNT the intent's, REFUND_BORROWER and DISMISS end it FAILED without posting.
 * 5. POSTED: stay open through the rail's return window (`returnWindowEndOf`) plus `lateReturnGraceDays`. A
 *    return the rail's rules accept for its code (`acceptsReturn`) → RETURNED (`returnPayment`: the allocation
 *    re-run without it, event `payment.returned`), end. A return too late for its code opens a
 *    `RETURN_NOT_REVERSED` exception and reverses nothing, end. Rails without returns end at once.
 *
 * Local steps (patch `payment-intent-local-steps`): the steps that only touch PostgreSQL and follow another step at
 * once run as local activities (workflows/common/activity-options.ts `dbWriteLocal`, `bestEffortReadLocal`): marking
 * the payment submitted, posting it, and the two look-ups after posting (run side by side). Each runs inside the
 * workflow task that follows the step before it, so the happy path is the rail call's activity and two or three
 * workflow tasks. Histories without the patch's marker keep one activity task and workflow task per step.
 * On the sandbox timeline (patch `payment-intent-sandbox-settlement-local`) the settlement the rail makes itself is
 * recorded on the sandbox's books by a local activity too, in the timer's workflow task that then posts it: a
 * self-settling sandbox intent is then the rail call's activity and three workflow tasks.
 *
 * Once posted (patch `signal-hardship-offers-on-posting`, after the promises), the loan's hardship offers not yet
 * accepted are signalled `loanChanged` (best effort, like the promises' signal).
 * Once posted (patch `signal-promises-on-posting`), the loan's PENDING promises to pay are signalled `paymentPosted`
 * (best effort: `findPendingPromisesOfLoan`, then one external signal each; failures are logged, the promise
 * re-reads at its deadline).
 *
 * Messages: updates `railEvent`, `cancelPayment`, `resolveSettlement` (each answers the state once applied; the
 * validators refuse what the status does not allow with `error.msg.payment.invalid.state.transition`); query
 * `getState`. Dates are ISO calendar dates in UTC; time only through `workflowNow()`.
 * Id: `payment-intent/<tenant>/<paymentId>`; search attributes TenantId, LoanId.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import { addDays } from '../../../domain/calendar';
import { hardshipOfferWorkflowId, promiseWorkflowId } from '../../../domain/ids';
import { parseDecimalToMinor } from '../../../domain/money';
import {
  lateReturnException,
  type PaymentIntentState,
  type RailEvent,
  type SettlementResolution,
} from '../../../domain/payments/payment-intent';
import {
  acceptsReturn,
  expectedSettlementOf,
  isInstantRail,
  returnWindowEndOf,
  submissionDateOf,
} from '../../../domain/payments/rails';
import {
  bestEffortRead,
  bestEffortReadLocal,
  dbWrite,
  dbWriteLocal,
  railCall,
} from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { loanChangedSignal } from '../../hardship/hardship-offer/messages';
import { paymentPostedSignal } from '../../servicing/promise/messages';
import {
  cancelPaymentUpdate,
  getStateQuery,
  type ResolveSettlementArgs,
  railEventUpdate,
  resolveSettlementUpdate,
} from './messages';
import type { PaymentIntentWorkflowInput, PaymentIntentWorkflowResult } from './types';

const {
  markPaymentSubmitted,
  failPaymentIntent,
  cancelPaymentIntent,
  postSettledPayment,
  returnPayment,
  openReconciliationException,
  resolveReconciliationException,
} = proxyActivities<Activities>(dbWrite);
const { submitPaymentToRail, recordSandboxRailEvent } = proxyActivities<Activities>(railCall);
const { findPendingPromisesOfLoan, findOpenHardshipOffersOfLoan } =
  proxyActivities<Activities>(bestEffortRead);
/** The same steps as local activities (patch `payment-intent-local-steps`). */
const local = proxyLocalActivities<Activities>(dbWriteLocal);
const localReads = proxyLocalActivities<Activities>(bestEffortReadLocal);

/**
 * Marks histories in which marking submitted, posting and the look-ups after posting run as local activities
 * (docs/processes.md P2): fewer workflow tasks per intent.
 */
const localStepsPatch = 'payment-intent-local-steps';

/**
 * Marks histories in which the sandbox timeline's own settlement is recorded on the sandbox rail's books by a local
 * activity (docs/processes.md P2): the timer's workflow task records and posts, one activity and one workflow task
 * fewer per self-settling sandbox intent.
 */
const sandboxSettlementLocalPatch = 'payment-intent-sandbox-settlement-local';

/** Marks histories in which a posting signals the loan's pending promises (docs/processes.md P4). */
const signalPromisesPatch = 'signal-promises-on-posting';
/** Marks histories in which a posting signals the loan's open hardship offers `loanChanged` (P5). */
const signalHardshipOffersPatch = 'signal-hardship-offers-on-posting';

/** Days after the return window during which a late return is still caught (and sent to reconciliation). */
export const lateReturnGraceDays = 5;
/** How long an instant rail (RTP, FedNow) takes to settle on the sandbox timeline, milliseconds. */
const instantSettlementMs = 2_000;

const invalidTransition = 'error.msg.payment.invalid.state.transition';
const dayMs = 86_400_000;

function todayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
function startOfDayMs(isoDate: string): number {
  return Date.parse(`${isoDate}T00:00:00Z`);
}
/** Waits until `done()` or the instant `untilMs` (null: no limit); true when `done()` became true. */
async function waitUntil(done: () => boolean, untilMs: number | null): Promise<boolean> {
  if (done()) return true;
  if (untilMs === null) {
    await condition(done);
    return true;
  }
  const remainingMs = untilMs - workflowNow();
  if (remainingMs <= 0) return false;
  return condition(done, remainingMs);
}
/**
 * The DomainError code carried by an activity's non-retryable failure, if any: wrapped in an `ActivityFailure` from
 * an activity task, the `ApplicationFailure` itself from a local activity.
 */
function failureCodeOf(err: unknown): string | null {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)
    return err.cause.type ?? null;
  if (err instanceof ApplicationFailure) return err.type ?? null;
  return null;
}

export async function paymentIntentWorkflow(
  input: PaymentIntentWorkflowInput,
): Promise<PaymentIntentWorkflowResult> {
  const ref = { tenantId: input.tenantId, paymentId: input.paymentId };
  const state: PaymentIntentState = {
    paymentId: input.paymentId,
    status: 'CREATED',
    providerRef: null,
    settledOn: null,
    returnWindowEndsOn: null,
    openExceptionId: null,
    returnCode: null,
  };
  /** The day the rail gets the payment (domain/payments/rails.ts `submissionDateOf`), fixed at start. */
  const submitOn = submissionDateOf(input.rail, input.effectiveDate, todayOf(workflowNow()));
  /** Rail events received (by update) and how many the main loop has applied. */
  const events: RailEvent[] = [];
  let applied = 0;
  let submitting = false;
  let cancelling = false;
  let resolution: ResolveSettlementArgs | null = null;
  let settlementPending: Extract<RailEvent, { type: 'SETTLED' }> | null = null;

  /** Set when the process is about to end: every later message is refused, an unapplied event fails. */
  let closed = false;
  const refuse = (message: string) => ApplicationFailure.nonRetryable(message, invalidTransition);

  setHandler(getStateQuery, () => ({ ...state }));

  setHandler(
    cancelPaymentUpdate,
    async (args) => {
      cancelling = true;
      try {
        const view = await cancelPaymentIntent({ ...ref, reason: args.reason ?? null });
        state.status = view.status;
      } finally {
        cancelling = false;
      }
      return { ...state };
    },
    {
      validator: (_args) => {
        if (closed || state.status !== 'CREATED' || submitting || cancelling) {
          throw refuse(
            `Payment ${input.paymentId} is ${state.status}${submitting ? ' (being submitted)' : ''}: only a payment not yet submitted can be cancelled.`,
          );
        }
      },
    },
  );

  setHandler(
    railEventUpdate,
    async (event) => {
      const index = events.push(event);
      await condition(() => applied >= index || closed);
      if (applied < index)
        throw refuse(`Payment ${input.paymentId} closed before this rail event was applied.`);
      return { ...state };
    },
    {
      validator: (event) => {
        if (closed) throw refuse(`Payment ${input.paymentId} is ${state.status} and its process has ended.`);
        const pending = events.length > applied;
        if (pending) throw refuse(`Payment ${input.paymentId} is applying an earlier rail event.`);
        if (event.type === 'SETTLED' || event.type === 'FAILED') {
          // Once the submission is due the rail may report the outcome before its submission is recorded here
          // (the provider answered, our activity has not): the event is queued and applied after submission.
          const submissionDue = submitting || (!cancelling && startOfDayMs(submitOn) <= workflowNow());
          const awaitingOutcome =
            state.status === 'SUBMITTED' || (state.status === 'CREATED' && submissionDue);
          if (!awaitingOutcome || state.settledOn !== null) {
            throw refuse(
              `Payment ${input.paymentId} is ${state.status}${state.settledOn ? ', settled' : ''}: it cannot be ${event.type === 'SETTLED' ? 'settled' : 'failed'}.`,
            );
          }
        } else if (state.status !== 'POSTED') {
          throw refuse(
            `Payment ${input.paymentId} is ${state.status}: only a posted payment can be returned.`,
          );
        }
      },
    },
  );

  setHandler(
    resolveSettlementUpdate,
    async (args) => {
      resolution = args;
      // Answered once the resolution is applied: posted, failed, or a new exception opened.
      await condition(() => resolution !== args);
      return { ...state };
    },
    {
      validator: (args) => {
        if (
          closed ||
          state.openExceptionId === null ||
          state.openExceptionId !== args.exceptionId ||
          resolution !== null
        ) {
          throw refuse(
            `Payment ${input.paymentId} does not wait on reconciliation exception ${args.exceptionId}.`,
          );
        }
      },
    },
  );

  // 1. Wait for the submission date (or a cancellation).
  await waitUntil(() => state.status !== 'CREATED' || cancelling, startOfDayMs(submitOn));
  await condition(() => !cancelling);
  if (state.status === 'CANCELLED') return finish();

  // 2. Submit.
  submitting = true;
  const submitted = await submitPaymentToRail({
    ...ref,
    rail: input.rail,
    amount: input.amount,
    currency: input.currency,
    effectiveDate: input.effectiveDate,
  });
  if (submitted.status !== 'SUBMITTED') {
    state.status = (
      await failPaymentIntent({ ...ref, reason: submitted.declineReason ?? 'Declined by the rail' })
    ).status;
    submitting = false;
    return finish();
  }
  state.providerRef = submitted.providerRef;
  const markSubmitted = patched(localStepsPatch) ? local.markPaymentSubmitted : markPaymentSubmitted;
  state.status = (await markSubmitted({ ...ref, providerRef: submitted.providerRef })).status;
  submitting = false;
  const submittedOn = todayOf(workflowNow());

  // 3. Wait for the outcome; the sandbox rail settles itself on its timeline.
  const settleAtMs = !input.sandboxTimeline
    ? null
    : isInstantRail(input.rail)
      ? workflowNow() + instantSettlementMs
      : startOfDayMs(expectedSettlementOf(input.rail, submittedOn));
  const got = await waitUntil(() => events.length > applied, settleAtMs);
  let outcome: RailEvent;
  if (got) {
    outcome = events[applied]!;
  } else {
    outcome = { type: 'SETTLED', amount: input.amount, settledOn: todayOf(workflowNow()) };
    // Patch `payment-intent-sandbox-settlement-local`: the sandbox's own books as a local activity, so the timer's
    // workflow task records the settlement and posts it at once (no activity task in between).
    const record = patched(sandboxSettlementLocalPatch)
      ? local.recordSandboxRailEvent
      : recordSandboxRailEvent;
    await record({ ...ref, event: outcome });
  }
  if (outcome.type === 'FAILED') {
    state.status = (await failPaymentIntent({ ...ref, reason: outcome.reason })).status;
    if (got) applied += 1;
    return finish();
  }
  if (outcome.type !== 'SETTLED')
    throw new Error('unreachable: the validator admits only SETTLED or FAILED here');
  settlementPending = outcome;
  state.settledOn = outcome.settledOn;
  // The settlement event counts as applied once it is posted or has opened its exception (what its update answers).
  let settlementApplied = !got;
  const markSettlementApplied = () => {
    if (!settlementApplied) {
      settlementApplied = true;
      applied += 1;
    }
  };

  // 4. Post, or open an exception and wait for an operator.
  let postAmount: string | null = sameAmount(outcome.amount, input.amount) ? input.amount : null;
  let reason = postAmount === null ? 'SETTLED_AMOUNT_DIFFERS' : '';
  for (;;) {
    if (postAmount !== null) {
      try {
        const post = patched(localStepsPatch) ? local.postSettledPayment : postSettledPayment;
        state.status = (await post({ ...ref, amount: postAmount, settledOn: outcome.settledOn })).status;
        markSettlementApplied();
        break;
      } catch (err) {
        if (failureCodeOf(err) !== 'error.msg.loan.invalid.state.transition') throw err;
        reason = 'LOAN_NOT_ACCEPTING_PAYMENTS';
      }
    }
    const opened = await openReconciliationException({
      tenantId: input.tenantId,
      exceptionType: 'SETTLED_NOT_POSTED',
      targetType: 'PAYMENT_INTENT',
      targetRef: String(input.paymentId),
      detail: {
        providerRef: state.providerRef ?? '',
        reason,
        settledAmount: outcome.amount,
        intentAmount: input.amount,
      },
    });
    state.openExceptionId = opened.exception.exceptionId;
    markSettlementApplied();
    resolution = null;
    await condition(() => resolution !== null);
    const decided: ResolveSettlementArgs = resolution!;
    await resolveReconciliationException({
      tenantId: input.tenantId,
      exceptionId: decided.exceptionId,
      resolution: decided.resolution,
      reason: decided.reason,
      actor: decided.actor,
    });
    const choice: SettlementResolution = decided.resolution;
    state.openExceptionId = null;
    if (choice === 'POST_AS_SETTLED' || choice === 'POST_INTENT_AMOUNT') {
      postAmount = choice === 'POST_AS_SETTLED' ? settlementPending.amount : input.amount;
      continue;
    }
    state.status = (
      await failPaymentIntent({
        ...ref,
        reason:
          choice === 'REFUND_BORROWER'
            ? 'Refunded to the borrower (reconciliation)'
            : 'Settlement dismissed (reconciliation)',
      })
    ).status;
    resolution = null;
    return finish();
  }
  resolution = null;

  // 5. The return window.
  const windowEnd = returnWindowEndOf(input.rail, outcome.settledOn);
  state.returnWindowEndsOn = windowEnd;
  // After the state the settlement's update answers with is complete (the update resumes in this activation).
  if (patched(localStepsPatch)) {
    // Both look-ups at once, as local activities, in this workflow task.
    await Promise.all([
      signalPendingPromises(localReads.findPendingPromisesOfLoan),
      signalOpenHardshipOffers(localReads.findOpenHardshipOffersOfLoan),
    ]);
  } else {
    if (patched(signalPromisesPatch)) await signalPendingPromises(findPendingPromisesOfLoan);
    if (patched(signalHardshipOffersPatch)) await signalOpenHardshipOffers(findOpenHardshipOffersOfLoan);
  }
  if (windowEnd !== null) {
    const stopAtMs = startOfDayMs(addDays(windowEnd, lateReturnGraceDays)) + dayMs;
    if (await waitUntil(() => events.length > applied, stopAtMs)) {
      const returned = events[applied]!;
      if (returned.type === 'RETURNED') {
        if (acceptsReturn(input.rail, returned.returnCode, outcome.settledOn, returned.returnedOn)) {
          const view = await returnPayment({
            ...ref,
            returnCode: returned.returnCode,
            returnedOn: returned.returnedOn,
          });
          state.status = view.status;
          state.returnCode = view.returnCode;
        } else {
          const opened = await openReconciliationException(
            lateReturnException({
              tenantId: input.tenantId,
              paymentId: input.paymentId,
              providerRef: state.providerRef,
              returnCode: returned.returnCode,
              returnedOn: returned.returnedOn,
            }),
          );
          state.returnCode = returned.returnCode;
          state.openExceptionId = opened.exception.exceptionId;
        }
      }
      applied += 1;
    }
  }
  return finish();

  /**
   * Best effort (docs/processes.md P4): tells the loan's PENDING promise processes that a payment posted. A failed
   * read or signal (the promise resolved meanwhile) is logged and ignored: each promise re-reads at its deadline.
   */
  async function signalPendingPromises(find: typeof findPendingPromisesOfLoan): Promise<void> {
    let promiseIds: number[];
    try {
      promiseIds = (await find({ tenantId: input.tenantId, loanId: input.loanId })).promiseIds;
    } catch (err) {
      log.warn('Pending promises of the loan could not be read; they are not signalled', {
        paymentId: input.paymentId,
        error: String(err),
      });
      return;
    }
    const results = await Promise.allSettled(
      promiseIds.map((promiseId) =>
        getExternalWorkflowHandle(promiseWorkflowId(input.tenantId, promiseId)).signal(paymentPostedSignal, {
          paymentId: input.paymentId,
        }),
      ),
    );
    results.forEach((result, index) => {
      if (result.status === 'rejected') {
        log.info('A promise process was not signalled (ended or not started)', {
          promiseId: promiseIds[index],
          error: String(result.reason),
        });
      }
    });
  }

  /**
   * Best effort (docs/processes.md P5): tells the processes of the loan's hardship offers not yet accepted that a
   * payment posted (`loanChanged`), so they re-run eligibility. A failed read or signal is logged and ignored.
   */
  async function signalOpenHardshipOffers(find: typeof findOpenHardshipOffersOfLoan): Promise<void> {
    let offerIds: number[];
    try {
      offerIds = (await find({ tenantId: input.tenantId, loanId: input.loanId })).offerIds;
    } catch (err) {
      log.warn('Open hardship offers of the loan could not be read; they are not signalled', {
        paymentId: input.paymentId,
        error: String(err),
      });
      return;
    }
    const results = await Promise.allSettled(
      offerIds.map((offerId) =>
        getExternalWorkflowHandle(hardshipOfferWorkflowId(input.tenantId, offerId)).signal(
          loanChangedSignal,
          {
            kind: 'PAYMENT',
            resourceId: input.paymentId,
          },
        ),
      ),
    );
    results.forEach((result, index) => {
      if (result.status === 'rejected') {
        log.info('A hardship offer process was not signalled (ended or not started)', {
          offerId: offerIds[index],
          error: String(result.reason),
        });
      }
    });
  }

  async function finish(): Promise<PaymentIntentWorkflowResult> {
    closed = true;
    await condition(allHandlersFinished);
    return { ...state };
  }
}

/** True when two decimal strings are the same amount (`"100"` and `"100.00"`). */
function sameAmount(a: string, b: string): boolean {
  try {
    return parseDecimalToMinor(a, 6) === parseDecimalToMinor(b, 6);
  } catch {
    return false;
  }
}
