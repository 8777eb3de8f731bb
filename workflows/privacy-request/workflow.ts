/**
 * Privacy request (data-subject request) as a durable process.
 *
 * Clock: the statutory due time computed once at intake (DESIGN §5: CCPA/CPRA 45 calendar days
 * from receipt, 11 CCR §7021; GDPR one month, Art. 12(3); VCDPA/CPA/CTDPA 45 days) and passed in
 * the input with the reminder time (due − 10 days).
 * Steps: note the start → wait for an outcome until the reminder → raise the reminder (effect +
 * task) → wait until the due time → mark OVERDUE (effect + escalation task) → wait for the
 * outcome without limit. An outcome at any point ends the process.
 * Messages: update `fulfilRequest` (validator rejects a second outcome with
 * `error.msg.privacy.request.invalid.state.transition`), query `getProgress`.
 * Outcomes: FULFILLED, PARTIALLY_FULFILLED, DENIED, DENIED_EXEMPT, WITHDRAWN (returned, not thrown).
 * Id: `privacy-request/<tenant>/<requestId>`; search attributes TenantId, CustomerRef, CaseId.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { PrivacyOutcome, PrivacyRequestStatus } from '../../domain/servicing/privacy-request';
import { dbWrite } from '../shared/activity-options';
import { workflowNow } from '../shared/time';
import { fulfilRequestUpdate, getProgressQuery } from './messages';
import type { PrivacyRequestWorkflowInput, PrivacyRequestWorkflowResult } from './types';

const { markPrivacyWorkflowStarted, raisePrivacyReminder, markPrivacyRequestOverdue, fulfilPrivacyRequest } =
  proxyActivities<Activities>(dbWrite);

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
  let fulfilling = false;
  let reminderRaised = false;
  let wasOverdue = false;
  const ref = { tenantId: input.tenantId, requestId: input.requestId };

  setHandler(getProgressQuery, () => ({
    requestId: input.requestId,
    status,
    statutoryDueAt: input.statutoryDueAt,
    reminderRaised,
  }));

  setHandler(
    fulfilRequestUpdate,
    async (args) => {
      fulfilling = true;
      try {
        const result = await fulfilPrivacyRequest({ ...ref, ...args });
        outcome = result.status;
        status = result.status;
        return result;
      } finally {
        fulfilling = false;
      }
    },
    {
      validator: (_args) => {
        if (outcome !== undefined || fulfilling) {
          throw ApplicationFailure.nonRetryable(
            `Privacy request ${input.requestId} is already ${outcome ?? 'being fulfilled'}.`,
            'error.msg.privacy.request.invalid.state.transition',
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
