/**
 * The hardship offer as a durable process (docs/processes.md P5): the statuses an open offer moves
 * through after routing, the workflow's input and start spec, the progress the workflow reads from the database,
 * and the one rule that says which timer runs in which status. Pure data and functions: shared by the operations
 * (activities/hardship/hardship-offer-steps.ts and one file per step), the workflow (workflows/hardship/hardship-offer/) and its client port.
 *
 * Life of an offer after routing (domain/hardship/offer.ts `routeHardshipOffer`):
 * - PENDING_APPROVAL → APPROVED | REJECTED by a second actor (maker-checker, docs/servicing.md "Hardship offers"); no timer.
 * - OFFERED | APPROVED → accepted (`AWAITING_DOCUMENTS`, or straight to `APPLIED` when the program requires no
 *   evidence), or `EXPIRED` when the validity timer (`offerExpiresAt` = routing / approval + `offerValidityHours`)
 *   fires first.
 * - AWAITING_DOCUMENTS → `APPLIED` once the workflow confirms evidence of the program's `requiredEvidenceCode` on
 *   the offer's case, or `LAPSED` when the document deadline (`documentsDueAt` = acceptance + the guardrails'
 *   `documentDeadlineHoursMaximum`) passes without it.
 * - While not yet accepted (PENDING_APPROVAL, OFFERED, APPROVED), a material change of the loan (payment, funding,
 *   restriction) re-runs eligibility when the guardrails say `reevaluateOnMaterialLoanDrift`: an offer the loan no
 *   longer qualifies for becomes `INELIGIBLE` (or `SPECIALIST`) with the new reasons.
 * - INELIGIBLE, SPECIALIST, REFERRED, REJECTED, EXPIRED, LAPSED, APPLIED end the process (a specialist or a
 *   referral is worked as a task on the case, outside this process).
 */
import { hardshipOfferWorkflowId, taskQueues } from '../ids';
import type { WorkflowStartSpec } from '../workflow-start';
import type { HardshipOfferStatus } from './offer';

/** `requiredEvidenceCode` of a program that asks for no evidence: acceptance applies the relief at once. */
export const noEvidenceRequired = 'NONE';

/** Statuses in which the offer is open to a decision of the servicer or the borrower and re-evaluated on drift. */
export const openHardshipOfferStatuses = ['PENDING_APPROVAL', 'OFFERED', 'APPROVED'] as const;

/** Statuses in which the borrower may accept (`POST …/{offerId}/accept`). */
export const acceptableHardshipOfferStatuses = ['OFFERED', 'APPROVED'] as const;

/** Statuses that end the offer's process. */
export const finalHardshipOfferStatuses = [
  'INELIGIBLE',
  'SPECIALIST',
  'REFERRED',
  'REJECTED',
  'EXPIRED',
  'LAPSED',
  'APPLIED',
] as const satisfies readonly HardshipOfferStatus[];

/** Whether `status` ends the offer's process. */
export function isFinalHardshipOfferStatus(status: string): boolean {
  return (finalHardshipOfferStatuses as readonly string[]).includes(status);
}

/** Whether an offer in `status` is re-evaluated when its loan changes. */
export function isOpenHardshipOfferStatus(status: string): boolean {
  return (openHardshipOfferStatuses as readonly string[]).includes(status);
}

/** The one argument of `hardshipOfferWorkflow` (JSON). */
export interface HardshipOfferWorkflowInput {
  tenantId: string;
  offerId: number;
  caseId: number;
  loanId: number;
  programCode: string;
  /** The status the offer was routed to (for the summary line; the workflow reads the current one). */
  status: string;
}

/** Where an offer stands, as the workflow reads it from the database after each step. */
export interface HardshipOfferProgress {
  offerId: number;
  status: string;
  /** Epoch ms at which an OFFERED / APPROVED offer expires; null otherwise. */
  offerExpiresAtMs: number | null;
  /** Epoch ms by which an AWAITING_DOCUMENTS offer needs its evidence; null otherwise. */
  documentsDueAtMs: number | null;
}

/** The timer of a status: what fires when, or null when the process waits only for messages. */
export type HardshipOfferTimer = { kind: 'EXPIRY' | 'DOCUMENT_DEADLINE'; atMs: number } | null;

/**
 * The timer that runs in `progress.status`: the validity timer for OFFERED / APPROVED, the document deadline for
 * AWAITING_DOCUMENTS, none otherwise (PENDING_APPROVAL waits for the checker without a deadline).
 */
export function hardshipOfferTimer(progress: HardshipOfferProgress): HardshipOfferTimer {
  if (
    (progress.status === 'OFFERED' || progress.status === 'APPROVED') &&
    progress.offerExpiresAtMs !== null
  ) {
    return { kind: 'EXPIRY', atMs: progress.offerExpiresAtMs };
  }
  if (progress.status === 'AWAITING_DOCUMENTS' && progress.documentsDueAtMs !== null) {
    return { kind: 'DOCUMENT_DEADLINE', atMs: progress.documentsDueAtMs };
  }
  return null;
}

/** Payload of the `loanChanged` signal: what changed on the offer's loan (a hint; the workflow re-reads). */
export interface LoanChangedHint {
  kind: 'PAYMENT' | 'FUNDING' | 'RESTRICTION';
  /** The payment, funding or restriction id, when known. */
  resourceId: number | null;
}

/** The process's state (query `getState`): the last progress read and the messages received. */
export interface HardshipOfferState extends HardshipOfferProgress {
  /** `offerChanged` + `evidenceAdded` hints received. */
  hintsReceived: number;
  /** `loanChanged` signals received. */
  loanChangesReceived: number;
  /** Re-evaluations run after a loan change. */
  reevaluations: number;
}

/**
 * How `hardshipOfferWorkflow` is started for an offer: id `hardship-offer/<tenant>/<offerId>` (docs/design.md §1), queue
 * `servicing`, search attributes TenantId, CaseId, LoanId, reuse REJECT_DUPLICATE (one process per offer). Built
 * by the operation that stores the offer (its start intent) and by the client port.
 */
export function hardshipOfferStartSpec(
  input: HardshipOfferWorkflowInput,
): WorkflowStartSpec<HardshipOfferWorkflowInput> {
  return {
    workflowType: 'hardshipOfferWorkflow',
    workflowId: hardshipOfferWorkflowId(input.tenantId, input.offerId),
    taskQueue: taskQueues.servicing,
    input,
    tenantId: input.tenantId,
    searchAttributes: { CaseId: input.caseId, LoanId: String(input.loanId) },
    staticSummary: `Hardship offer ${input.offerId}: ${input.programCode} on loan ${input.loanId} (${input.status})`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}
