/**
 * Privacy request (data-subject request) as a durable process.
 *
 * Clock: the statutory due time computed once at intake (docs/design.md §5: CCPA/CPRA 45 calendar days
 * from receipt, 11 CCR §7021; GDPR one month, Art. 12(3); VCDPA/CPA/CTDPA 45 days) and passed in
 * the input with the reminder time (due − 10 days).
 * Steps: note the start → wait for an outcome until the reminder → raise the reminder (effect +
 * task) → wait until the due time → mark OVERDUE (effect + escalation task) → wait for the
 * outcome without limit. An outcome at any point ends the process.
 * Messages: update `fulfilRequest` (validator rejects a second outcome, and a fulfilment while
 * another is in flight, with `error.msg.privacy.request.invalid.state.transition`), query
 * `getProgress`. A fulfilment in flight for `fulfilmentStuckAfterMs` or longer is stuck (an
 * operation retried for ever): a new fulfilment supersedes it: the stuck one's activity is
 * cancelled (the server confirms no attempt runs any more), its caller gets 409, and the new one
 * runs (patch `supersede-stuck-fulfilment`).
 * Outcomes: FULFILLED, PARTIALLY_FULFILLED, DENIED, DENIED_EXEMPT, WITHDRAWN (returned, not thrown).
 * Id: `privacy-request/<tenant>/<requestId>`; search attributes TenantId, CustomerRef, CaseId.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import type { PrivacyOutcome, PrivacyRequestStatus } from '../../../domain/servicing/privacy-request';
import { dbWrite, dbWriteCancellable } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { fulfilRequestUpdate, getProgressQuery } from './messages';
import type { PrivacyRequestWorkflowInput, PrivacyRequestWorkflowResult } from './types';

const { markPrivacyWorkflowStarted, raisePrivacyReminder, markPrivacyRequestOverdue } =
  proxyActivities<Activities>(dbWrite);
const { fulfilPrivacyRequest } = proxyActivities<Activities>(dbWriteCancellable);

/**
 * How long a fulfilment may be in flight before a new one may supersede it (milliseconds of workflow
 * time). One attempt of the operation takes at most 30 s (`dbWrite`); two minutes of retries mean the
 * database refuses it, or is down, and the caller has long had a 503 or given up.
 */
const fulfilmentStuckAfterMs = 2 * 60_000;

/** Marks histories in which a stuck fulfilment may be superseded (the workflow code changed to allow it). */
const supersedeStuckFulfilmentPatch = 'supersede-stuck-fulfilment';

const invalidTransition = 'error.msg.privacy.request.invalid.state.transition';

/** Waits until `done()` or the instant `untilMs`; true when `done()` became true. */
async function waitUntil(done: () => boolean, untilMs: number): Promise<boolean> {
  const remainingMs = untilMs - workflowNow();
  if (done()) return true;
  if (remainingMs <= 0) return false;
  return condition(done, remainingMs);
}

export async function privacyRequestWorkflow(
  input: PrivacyRequestWorkflowInput,
): Promise<PrivacyRequestWorkflowResult> {
  let status: PrivacyRequestStatus = 'RECEIVED';
  let outcome: PrivacyOutcome | undefined;
  /** The fulfilment in flight: when it started (workflow time) and the scope that can cancel it. */
  let inFlight: { startedAtMs: number; scope: CancellationScope } | null = null;
  let reminderRaised = false;
  let wasOverdue = false;
  const ref = { tenantId: input.tenantId, requestId: input.requestId };
  const stuck = () => inFlight !== null && workflowNow() - inFlight.startedAtMs >= fulfilmentStuckAfterMs;

  setHandler(getProgressQuery, () => ({
    requestId: input.requestId,
    status,
    statutoryDueAt: input.statutoryDueAt,
    reminderRaised,
  }));

  setHandler(
    fulfilRequestUpdate,
    async (args) => {
      if (inFlight !== null) {
        // Accepted while another is in flight: the validator found it stuck. Cancel it and wait until
        // its handler has finished (the cancellation confirmed, or its last attempt's own result).
        if (!patched(supersedeStuckFulfilmentPatch)) {
          throw ApplicationFailure.nonRetryable(
            `Privacy request ${input.requestId} is being fulfilled.`,
            invalidTransition,
          );
        }
        inFlight.scope.cancel();
        await condition(() => inFlight === null);
        if (outcome !== undefined || inFlight !== null) {
          throw ApplicationFailure.nonRetryable(
            `Privacy request ${input.requestId} is already ${outcome ?? 'being fulfilled'}.`,
            invalidTransition,
          );
        }
      }
      const scope = new CancellationScope();
      inFlight = { startedAtMs: workflowNow(), scope };
      try {
        const result = await scope.run(() => fulfilPrivacyRequest({ ...ref, ...args }));
        outcome = result.status;
        status = result.status;
        return result;
      } catch (err) {
        if (isCancellation(err)) {
          throw ApplicationFailure.nonRetryable(
            `This fulfilment of privacy request ${input.requestId} was stuck and has been superseded by a later one.`,
            invalidTransition,
          );
        }
        throw err;
      } finally {
        if (inFlight?.scope === scope) inFlight = null;
      }
    },
    {
      validator: (_args) => {
        if (outcome !== undefined) {
          throw ApplicationFailure.nonRetryable(
            `Privacy request ${input.requestId} is already ${outcome}.`,
            invalidTransition,
          );
        }
        if (inFlight !== null && !stuck()) {
          throw ApplicationFailure.nonRetryable(
            `Privacy request ${input.requestId} is being fulfilled; a fulfilment still in flight after ${fulfilmentStuckAfterMs / 60_000} minutes may be superseded.`,
            invalidTransition,
          );
        }
      },
    },
  );

  const ended = () => outcome !== undefined;
  await markPrivacyWorkflowStarted(ref);

  if (!(await waitUntil(ended, input.reminderAtMs))) {
    reminderRaised = (await raisePrivacyReminder(ref)).raised;
  }
  if (!(await waitUntil(ended, input.dueAtMs))) {
    const marked = await markPrivacyRequestOverdue(ref);
    if (marked.status === 'OVERDUE') {
      status = 'OVERDUE';
      wasOverdue = true;
    }
  }
  await condition(ended);
  await condition(allHandlersFinished);
  return { requestId: input.requestId, status: outcome ?? status, wasOverdue };
}
