/**
 * Privacy-request vocabulary shared by the API, operations and the workflow (docs/design.md §5
 * Privacy-request clocks; docs/servicing.md "Privacy requests in Temporal").
 */
import type { PrivacyRegime } from '../deadlines';
import { privacyRequestWorkflowId, taskQueues } from '../ids';
import type { WorkflowStartSpec } from '../workflow-start';

export const privacyRequestTypes = [
  'ACCESS',
  'DELETION',
  'CORRECTION',
  'PORTABILITY',
  'OPT_OUT_SALE_SHARING',
  'LIMIT_SENSITIVE',
  'APPEAL',
] as const;
export type PrivacyRequestType = (typeof privacyRequestTypes)[number];

export const openPrivacyStatuses = [
  'RECEIVED',
  'ACKNOWLEDGED',
  'IN_PROGRESS',
  'EXTENDED',
  'OVERDUE',
] as const;
export const privacyOutcomes = [
  'FULFILLED',
  'PARTIALLY_FULFILLED',
  'DENIED',
  'DENIED_EXEMPT',
  'WITHDRAWN',
] as const;
export type OpenPrivacyStatus = (typeof openPrivacyStatuses)[number];
export type PrivacyOutcome = (typeof privacyOutcomes)[number];
export type PrivacyRequestStatus = OpenPrivacyStatus | PrivacyOutcome;

/** True for the statuses that end a request (its workflow completes). */
export function isTerminalPrivacyStatus(status: string): status is PrivacyOutcome {
  return (privacyOutcomes as readonly string[]).includes(status);
}

/** Input of `privacyRequestWorkflow` (JSON-serializable; instants as epoch milliseconds). */
export interface PrivacyRequestWorkflowInput {
  tenantId: string;
  requestId: number;
  caseId: number;
  customerRef: string;
  regime: PrivacyRegime;
  /** The due time as shown to the integrator, ISO 8601 with offset. */
  statutoryDueAt: string;
  /** Epoch ms of the statutory due time. */
  dueAtMs: number;
  /** Epoch ms of the reminder (due − 10 days). */
  reminderAtMs: number;
}

/** Payload of the `fulfilRequest` update. */
export interface FulfilPrivacyRequestArgs {
  outcome: PrivacyOutcome;
  outcomeReason: string;
  evidenceIds: number[];
  actor?: string | null;
  correlationId?: string | null;
}

/** Result of the `fulfilRequest` update. */
export interface FulfilPrivacyRequestResult {
  requestId: number;
  status: PrivacyOutcome;
}

/**
 * How `privacyRequestWorkflow` is started for a request: id `privacy-request/<tenant>/<requestId>`,
 * queue `servicing`, search attributes TenantId, CustomerRef, CaseId, reuse REJECT_DUPLICATE (one
 * process per request, docs/conventions.md §9). Built by the operation that stores the request (its start
 * intent) and by the process's client port, so both start it identically.
 */
export function privacyRequestStartSpec(
  input: PrivacyRequestWorkflowInput,
): WorkflowStartSpec<PrivacyRequestWorkflowInput> {
  return {
    workflowType: 'privacyRequestWorkflow',
    workflowId: privacyRequestWorkflowId(input.tenantId, input.requestId),
    taskQueue: taskQueues.servicing,
    input,
    tenantId: input.tenantId,
    searchAttributes: { CustomerRef: input.customerRef, CaseId: input.caseId },
    staticSummary: `Privacy request ${input.requestId} (${input.regime}) due ${input.statutoryDueAt}`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}
