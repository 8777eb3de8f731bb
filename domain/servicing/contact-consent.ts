/**
 * Contact-consent updates (OpenAPI `POST /v1/servicing/cases/{caseId}/contact-consent-updates`;
 * docs/processes.md P4 "Contact-consent updates", "Refs"): the vocabulary shared by the API, the operations and the
 * workflow, the timing rule, the precedence rule and the process's start description. Pure.
 *
 * Timing: `effectiveAt` at or before the server's clock → applied at once (`COMPLETED`); later, and at most
 * `contactConsentLeadDaysMax` days ahead → `SCHEDULED`, applied at `effectiveAt` by the durable timer of
 * `contactConsentUpdateWorkflow`.
 *
 * Precedence ("the newest instruction wins"): updates are ordered by when they were recorded (their id, which the
 * database hands out in commit order per tenant for practical purposes), not by `effectiveAt`. An update is applied
 * when it takes effect only if no update of the same contact point and permission recorded after it has been applied
 * already; otherwise it is SUPERSEDED and changes nothing. For the SMS permission an SMS consent record of the
 * customer made after the update was recorded (a STOP reply, activities/channels/process-channel-event.ts, or
 * `POST /v1/customers/{customerId}/consents`) supersedes it too, so a scheduled "may receive SMS" can never undo a
 * later opt-out (TCPA, 47 CFR §64.1200(a)(12)). So a customer who asks on Monday for SMS to stop on Friday and on
 * Tuesday for SMS to go on now keeps receiving SMS: Tuesday's instruction is the newer one.
 */
import { contactConsentUpdateWorkflowId, taskQueues } from '../ids';
import type { WorkflowStartSpec } from '../workflow-start';

/** The spec's operations (value seen `UPDATE_SMS_PERMISSION`; the other two are ours, docs/processes.md P4). */
export const contactConsentOperations = [
  'UPDATE_SMS_PERMISSION',
  'UPDATE_EMAIL_PERMISSION',
  'UPDATE_VOICE_PERMISSION',
] as const;
export type ContactConsentOperation = (typeof contactConsentOperations)[number];

/** Statuses of an update: SCHEDULED until it takes effect, then COMPLETED (applied) or SUPERSEDED. */
export const contactConsentUpdateStatuses = ['SCHEDULED', 'COMPLETED', 'SUPERSEDED'] as const;
export type ContactConsentUpdateStatus = (typeof contactConsentUpdateStatuses)[number];

/** The body field that carries each operation's permission (boolean). */
export const permissionFieldOf = {
  UPDATE_SMS_PERMISSION: 'canReceiveSms',
  UPDATE_EMAIL_PERMISSION: 'canReceiveEmail',
  UPDATE_VOICE_PERMISSION: 'canReceiveVoice',
} as const satisfies Record<ContactConsentOperation, string>;
export type PermissionField = (typeof permissionFieldOf)[ContactConsentOperation];

/** Every permission field, in a stable order. */
export const permissionFields = Object.values(permissionFieldOf) as PermissionField[];

/** The contact point type each operation applies to: SMS and voice to phones, e-mail to e-mail addresses. */
export const contactTypeOf = {
  UPDATE_SMS_PERMISSION: 'PHONE',
  UPDATE_EMAIL_PERMISSION: 'EMAIL',
  UPDATE_VOICE_PERMISSION: 'PHONE',
} as const satisfies Record<ContactConsentOperation, 'PHONE' | 'EMAIL'>;

/** How far ahead `effectiveAt` may lie (days of 24 h): a year, beyond which an instruction is more likely a typo. */
export const contactConsentLeadDaysMax = 365;

/** Largest accepted `effectiveAt − now`, in milliseconds. */
export const contactConsentLeadMsMax = contactConsentLeadDaysMax * 86_400_000;

/**
 * When an update with `effectiveAt` (epoch ms) recorded at `nowMs` takes effect: `IMMEDIATE` when it is not after now,
 * `SCHEDULED` when it is, `TOO_FAR` when it lies more than `contactConsentLeadDaysMax` days ahead (a 400).
 */
export function contactConsentTimingOf(
  effectiveAtMs: number,
  nowMs: number,
): 'IMMEDIATE' | 'SCHEDULED' | 'TOO_FAR' {
  if (effectiveAtMs <= nowMs) return 'IMMEDIATE';
  if (effectiveAtMs - nowMs > contactConsentLeadMsMax) return 'TOO_FAR';
  return 'SCHEDULED';
}

/** Input of `contactConsentUpdateWorkflow` (JSON-serializable). */
export interface ContactConsentUpdateWorkflowInput {
  tenantId: string;
  /** The stored update's id (`resourceId` of the route's answer). */
  updateId: number;
  caseId: number;
  customerRef: string;
  /** ISO 8601 instant (UTC) at which the update takes effect. */
  effectiveAt: string;
  /** `effectiveAt` as epoch milliseconds: the timer's target. */
  effectiveAtMs: number;
}

/** What applying an update did (the apply operation's and the workflow's result). */
export interface ContactConsentUpdateOutcome {
  updateId: number;
  status: ContactConsentUpdateStatus;
}

/**
 * How `contactConsentUpdateWorkflow` is started for a scheduled update: id `contact-consent-update/<tenant>/<updateId>`,
 * queue `servicing` (the privacy-request queue), search attributes TenantId, CustomerRef, CaseId, reuse
 * REJECT_DUPLICATE (one process per update). Built by the operation that stores the update (its start intent) and
 * by the client port, so both start it identically.
 */
export function contactConsentUpdateStartSpec(
  input: ContactConsentUpdateWorkflowInput,
): WorkflowStartSpec<ContactConsentUpdateWorkflowInput> {
  return {
    workflowType: 'contactConsentUpdateWorkflow',
    workflowId: contactConsentUpdateWorkflowId(input.tenantId, input.updateId),
    taskQueue: taskQueues.servicing,
    input,
    tenantId: input.tenantId,
    searchAttributes: { CustomerRef: input.customerRef, CaseId: input.caseId },
    staticSummary: `Contact-consent update ${input.updateId} of case ${input.caseId} effective ${input.effectiveAt}`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}
