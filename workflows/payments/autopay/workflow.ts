/**
 * A loan's autopay as a durable process (docs/processes.md P1 Autopay; docs/lending.md "Autopay": "Autopay
 * enrollment carries authorizationRef and never backfills history"; docs/design.md §5 Holds "PAYMENT_HOLD blocks payment
 * intents and autopay"). Anchor: Temporal's continue-as-new pattern for long-lived per-entity workflows.
 *
 * One cycle per run, then `continueAsNew` with the cursor, so the history stays a few dozen events however long the
 * loan lives:
 * 1. Plan (`planAutopayCycle`): the loan's ACTIVE enrolment and the next installment due strictly after its
 *    enrolment date and after the cursor (`lastInstallmentNumber`; never an earlier one: no backfill). No active
 *    enrolment (cancelled), loan not ACTIVE, or nothing left to collect → the process ends.
 * 2. Wait on a durable timer until 00:00 UTC of the collection date (due date − daysBeforeDue, ISO date in UTC). The
 *    signal `enrolmentChanged` (cancel, re-enrolment) cuts the wait short: continue as new without advancing, and
 *    re-plan.
 * 3. Collect (`collectAutopayInstallment`, one transaction): the enrolment still ACTIVE → the payment intent
 *    through the rules of `createPaymentIntent` (source AUTOPAY, idempotent per (enrolment, installment)); a
 *    PAYMENT_HOLD in force (or another refusal) → SKIPPED with a case effect and a task; nothing owed →
 *    NOTHING_DUE. CREATED → the intent's process `payment-intent/<tenant>/<paymentId>` is started here as an
 *    abandoned child (at once and linked in the Temporal UI; its start intent, stored with the intent, is the
 *    fallback should this fail, and an "already started" answer counts as started), then its start intent is
 *    marked started (`markStartIntentStarted`).
 * 4. Continue as new with the cursor at the installment just handled (collected, skipped or nothing due). Under
 *    patch `autopay-cycles-in-run`, while the run's history is under `maxHistoryForNextCycle` events (and Temporal
 *    does not suggest continuing as new), the run goes straight back to step 1 with that cursor instead, in the same
 *    workflow task: the collection day is then two workflow tasks of one execution (collect and start the child;
 *    the child started: mark, plan the next cycle and wait), not three tasks over two executions.
 *
 * Local steps (patch `autopay-local-steps`): the plan, the collection and the start intent's mark only touch
 * PostgreSQL and are short, so they run as local activities (workflows/common/activity-options.ts `dbWriteLocal`)
 * inside the workflow task that reaches them. On the collection day a run is then three workflow tasks (the timer
 * fired: collect and start the child; the child started: mark and continue as new; the next run: plan and wait)
 * and no activity task. Histories without the patch's marker keep one activity task per step.
 *
 * Query `getState`. Time only through `workflowNow()`. Id `autopay/<tenant>/<loanId>`; search attributes
 * TenantId, LoanId (domain/payments/autopay.ts `autopayStartSpec`).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import type { AutopayState } from '../../../domain/payments/autopay';
import {
  type PaymentIntentWorkflowInput,
  paymentIntentStartSpec,
} from '../../../domain/payments/payment-intent';
import { dbWrite, dbWriteLocal } from '../../common/activity-options';
import { childStartOptionsOf } from '../../common/child-start';
import { workflowNow } from '../../common/time';
import { enrolmentChangedSignal, getStateQuery } from './messages';
import type { AutopayWorkflowInput, AutopayWorkflowResult } from './types';

const { planAutopayCycle, collectAutopayInstallment, markStartIntentStarted } =
  proxyActivities<Activities>(dbWrite);
/** The same steps as local activities (patch `autopay-local-steps`). */
const local = proxyLocalActivities<Activities>(dbWriteLocal);

/** Marks histories in which the plan, the collection and the start intent's mark run as local activities (P2). */
const localStepsPatch = 'autopay-local-steps';

/**
 * Marks histories in which, after a collection, the next cycle runs in the same run while its history is short
 * (docs/processes.md P2): one workflow execution and one workflow task fewer per collection.
 */
const cyclesInRunPatch = 'autopay-cycles-in-run';

/**
 * A run's history length (events) past which it continues as new rather than plan the next cycle itself: a cycle
 * is about 15 events, so a run serves about a year of monthly installments and a replay stays a few hundred events.
 */
const maxHistoryForNextCycle = 200;

/**
 * The autopay process of one loan (see the module comment). Input: the loan, the enrolment served and the cursor
 * (`lastInstallmentNumber`, 0 at enrolment). Returns the state once it ends (`endedBecause` NO_ACTIVE_ENROLMENT,
 * LOAN_NOT_ACTIVE or NOTHING_LEFT); otherwise each run ends by continuing as new.
 */
export async function autopayWorkflow(input: AutopayWorkflowInput): Promise<AutopayWorkflowResult> {
  const state: AutopayState = {
    enrolmentId: input.enrolmentId,
    lastInstallmentNumber: input.lastInstallmentNumber,
    nextInstallmentNumber: null,
    collectOn: null,
    lastOutcome: null,
    endedBecause: null,
  };
  let changed = false;
  setHandler(getStateQuery, () => ({ ...state }));
  setHandler(enrolmentChangedSignal, () => {
    changed = true;
  });

  // Decided once per run: a run is either wholly on activity tasks (histories before the patch) or wholly local.
  const steps = patched(localStepsPatch)
    ? local
    : { planAutopayCycle, collectAutopayInstallment, markStartIntentStarted };
  let cursor = input;
  for (;;) {
    const plan = await steps.planAutopayCycle(cursor);
    if (plan.kind === 'END') {
      if (changed) return continueAsNew<typeof autopayWorkflow>(cursor);
      state.endedBecause = plan.reason;
      return state;
    }
    if (plan.enrolmentId !== state.enrolmentId) {
      state.enrolmentId = plan.enrolmentId;
      state.lastInstallmentNumber = 0;
    }
    state.nextInstallmentNumber = plan.installmentNumber;
    state.collectOn = plan.collectOn;

    const remainingMs = Date.parse(`${plan.collectOn}T00:00:00Z`) - workflowNow();
    if (remainingMs > 0 && (await condition(() => changed, remainingMs))) {
      return continueAsNew<typeof autopayWorkflow>({
        ...cursor,
        enrolmentId: state.enrolmentId,
        lastInstallmentNumber: state.lastInstallmentNumber,
      });
    }

    const collection = await steps.collectAutopayInstallment({
      tenantId: cursor.tenantId,
      loanId: cursor.loanId,
      enrolmentId: plan.enrolmentId,
      installmentNumber: plan.installmentNumber,
    });
    state.lastOutcome = collection.outcome;
    if (collection.outcome === 'CREATED') {
      await startPaymentProcess(collection.workflow.input);
      await steps.markStartIntentStarted({
        tenantId: cursor.tenantId,
        workflowId: collection.workflow.workflowId,
      });
    }
    if (collection.outcome === 'LOAN_NOT_ACTIVE') {
      state.endedBecause = 'LOAN_NOT_ACTIVE';
      return state;
    }
    // ENROLMENT_INACTIVE: cancelled meanwhile; re-plan without advancing (it ends, or follows a new enrolment).
    const handled =
      collection.outcome === 'ENROLMENT_INACTIVE' ? state.lastInstallmentNumber : plan.installmentNumber;
    const next: AutopayWorkflowInput = {
      ...cursor,
      enrolmentId: plan.enrolmentId,
      lastInstallmentNumber: handled,
    };
    // Patch `autopay-cycles-in-run`: the next cycle in this run while its history is short (no new run, and its
    // plan in this workflow task); otherwise, and in histories without the marker, continue as new.
    if (!workflowInfo().continueAsNewSuggested && workflowInfo().historyLength < maxHistoryForNextCycle) {
      if (patched(cyclesInRunPatch)) {
        cursor = next;
        changed = false;
        state.enrolmentId = next.enrolmentId;
        state.lastInstallmentNumber = next.lastInstallmentNumber;
        state.nextInstallmentNumber = null;
        state.collectOn = null;
        continue;
      }
    }
    await condition(allHandlersFinished);
    return continueAsNew<typeof autopayWorkflow>(next);
  }
}

/** Starts the intent's process as an abandoned child; one already started (by the relay) counts as started. */
async function startPaymentProcess(intent: PaymentIntentWorkflowInput): Promise<void> {
  const spec = paymentIntentStartSpec(intent);
  try {
    await startChild(spec.workflowType, childStartOptionsOf(spec));
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
