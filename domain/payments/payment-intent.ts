/**
 * Payment intents as durable processes (OpenAPI `POST /v1/loans/{loanId}/payments`,
 * docs/design.md §5 Enumerations; docs/design.md §5 "Enumerations not shown": rails and payment statuses; docs/processes.md P1). Pure: the
 * statuses and their transitions, the workflow's input and its start spec, and the messages the workflow takes.
 * Anchors: Stripe PaymentIntents (a status machine per payment, idempotent creation), Temporal's money-transfer
 * sample (one workflow per transfer, outcome by signal).
 */
import { paymentIntentWorkflowId, taskQueues } from '../ids';
import type { WorkflowStartSpec } from '../workflow-start';
import { paymentRails, type Rail } from './rails';
import { type ReconciliationResolution, reconciliationResolutions } from './reconciliation-exceptions';

/** The rails (docs/design.md §5; their rules: ./rails.ts). */
export { paymentRails };
export type PaymentRailCode = Rail;

/**
 * Payment statuses (docs/design.md §5): `CREATED` → `SUBMITTED` → `POSTED` | `FAILED`; `POSTED` → `RETURNED`; `CREATED` →
 * `CANCELLED`; `CREATED` → `FAILED` when the rail refuses the submission (a declined card). A payment recorded as
 * external is `POSTED` from the start.
 */
export const paymentStatuses = ['CREATED', 'SUBMITTED', 'POSTED', 'FAILED', 'RETURNED', 'CANCELLED'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/** Statuses of an intent still in flight: its amount is reserved against the loan's total outstanding. */
export const inFlightPaymentStatuses = ['CREATED', 'SUBMITTED'] as const satisfies readonly PaymentStatus[];

const transitions: Record<PaymentStatus, readonly PaymentStatus[]> = {
  CREATED: ['SUBMITTED', 'FAILED', 'CANCELLED'],
  SUBMITTED: ['POSTED', 'FAILED'],
  POSTED: ['RETURNED'],
  FAILED: [],
  RETURNED: [],
  CANCELLED: [],
};

/** True when a payment may go from `from` to `to` (docs/design.md §5 statuses). */
export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return transitions[from].includes(to);
}

/** The one argument of `paymentIntentWorkflow`: everything it needs to run without reading our database. */
export interface PaymentIntentWorkflowInput {
  tenantId: string;
  paymentId: number;
  loanId: number;
  /** The loan's `accountNo` (spec `loanRef`), for the Temporal UI summary. */
  loanRef: string;
  rail: PaymentRailCode;
  /** Decimal string with the currency's digits. */
  amount: string;
  /** ISO 4217. */
  currency: string;
  /** ISO date the payment is value-dated to when it posts. */
  effectiveDate: string;
  /**
   * Sandbox only: without a simulation, the sandbox rail follows the rail's own timeline (it settles itself at
   * the rail's expected settlement date). False in production, where only the provider's events move it.
   */
  sandboxTimeline: boolean;
}

/**
 * How to start the intent's process (docs/processes.md P1): id `payment-intent/<tenant>/<paymentId>`, queue
 * `lending`, search attributes `TenantId` and `LoanId`, a one-line summary for the Temporal UI. A second start of
 * the same payment is refused (REJECT_DUPLICATE): one process per payment, ever.
 */
export function paymentIntentStartSpec(
  input: PaymentIntentWorkflowInput,
): WorkflowStartSpec<PaymentIntentWorkflowInput> {
  return {
    workflowType: 'paymentIntentWorkflow',
    workflowId: paymentIntentWorkflowId(input.tenantId, input.paymentId),
    taskQueue: taskQueues.lending,
    input,
    tenantId: input.tenantId,
    searchAttributes: { LoanId: String(input.loanId) },
    staticSummary: `Payment ${input.paymentId}: ${input.amount} ${input.currency} by ${input.rail} on loan ${input.loanRef}, value date ${input.effectiveDate}`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}

/** An outcome the rail reports for a submitted payment (a provider webhook in production, a simulation in sandbox). */
export type RailEvent =
  | {
      type: 'SETTLED';
      /** Decimal string: what the rail settled (may differ from the intent: a reconciliation exception). */
      amount: string;
      /** ISO date of settlement. */
      settledOn: string;
    }
  | {
      type: 'RETURNED';
      /** The rail's return code (NACHA R01…R85 for ACH). */
      returnCode: string;
      /** ISO date the return was received. */
      returnedOn: string;
    }
  | {
      type: 'FAILED';
      /** Why the rail failed it before settlement (free text from the provider; no account data). */
      reason: string;
    };

/** How an operator resolves a `SETTLED_NOT_POSTED` exception of an intent (docs/processes.md P1). */
export const settlementResolutions = reconciliationResolutions;
export type SettlementResolution = ReconciliationResolution;

/** What the workflow answers to its `getState` query and to every update. */
export interface PaymentIntentState {
  paymentId: number;
  status: PaymentStatus;
  /** The rail's reference once submitted. */
  providerRef: string | null;
  /** ISO date of settlement, null before. */
  settledOn: string | null;
  /** ISO date after which no return is accepted (the process ends then), null before settlement. */
  returnWindowEndsOn: string | null;
  /** The open reconciliation exception the process waits on, null when none. */
  openExceptionId: number | null;
  returnCode: string | null;
}

/**
 * The reconciliation exception for a return of payment `paymentId` that the rail's rules no longer accept for its
 * code (domain/payments/rails.ts `acceptsReturn`), or that came after its process ended: `RETURN_NOT_REVERSED`
 * on the payment intent, nothing reversed (docs/processes.md P1). Opened by the workflow while it is open and by
 * the sandbox return simulation after; both give this same key and detail. Dates are ISO.
 */
export function lateReturnException(input: {
  tenantId: string;
  paymentId: number;
  providerRef: string | null;
  returnCode: string;
  returnedOn: string;
}) {
  return {
    tenantId: input.tenantId,
    exceptionType: 'RETURN_NOT_REVERSED' as const,
    targetType: 'PAYMENT_INTENT',
    targetRef: String(input.paymentId),
    detail: {
      providerRef: input.providerRef ?? '',
      reason: 'RETURN_AFTER_WINDOW',
      returnCode: input.returnCode,
      returnedOn: input.returnedOn,
    },
  };
}
