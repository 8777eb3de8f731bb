/**
 * A scheduled contact-consent update as a durable process (OpenAPI `POST /v1/servicing/cases/{caseId}/contact-consent-updates`; docs/processes.md P4 "Contact-consent updates").
 *
 * Clock: one durable timer until the update's `effectiveAt` (chosen by the caller, at most 365 days ahead;
 * domain/servicing/contact-consent.ts), passed in the input as epoch milliseconds.
 * Steps: wait until `effectiveAt` → `applyContactConsentUpdate` (one idempotent transaction): the contact point's
 * permission is set, with a customer-history entry, a case effect and the event `contact.consent.updated`, unless a
 * newer instruction for the same contact point and permission was applied first ("the newest instruction wins"),
 * in which case the update is SUPERSEDED and changes nothing.
 * Messages: query `getProgress`. Outcomes (returned, never thrown): COMPLETED or SUPERSEDED.
 * Id: `contact-consent-update/<tenant>/<updateId>`; queue `servicing`; search attributes TenantId, CustomerRef, CaseId.
 */
import { proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import type { ContactConsentUpdateStatus } from '../../../domain/servicing/contact-consent';
import { dbWrite } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { getProgressQuery } from './messages';
import type { ContactConsentUpdateWorkflowInput, ContactConsentUpdateWorkflowResult } from './types';

const { applyContactConsentUpdate } = proxyActivities<Activities>(dbWrite);

/** Applies one scheduled contact-consent update when its `effectiveAt` comes (see the module comment). */
export async function contactConsentUpdateWorkflow(
  input: ContactConsentUpdateWorkflowInput,
): Promise<ContactConsentUpdateWorkflowResult> {
  let status: ContactConsentUpdateStatus = 'SCHEDULED';
  setHandler(getProgressQuery, () => ({ updateId: input.updateId, status, effectiveAt: input.effectiveAt }));
  const remainingMs = input.effectiveAtMs - workflowNow();
  if (remainingMs > 0) await sleep(remainingMs);
  const outcome = await applyContactConsentUpdate({ tenantId: input.tenantId, updateId: input.updateId });
  status = outcome.status;
  return outcome;
}
