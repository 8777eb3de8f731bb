/**
 * Autopay (docs/processes.md P1 Autopay; docs/lending.md "Autopay": "Autopay enrollment carries
 * authorizationRef and never backfills history", "Re-apply restrictions before any payment, autopay…"; docs/design.md §5
 * Holds "PAYMENT_HOLD blocks payment intents and autopay"). Pure: the enrolment's vocabulary, the collection date
 * of an installment, the process's input and start spec. Anchors: NACHA recurring debit authorizations (an
 * authorization reference per enrolment), Temporal's continue-as-new for long-lived per-entity workflows.
 */
import { addDays } from '../calendar';
import { autopayWorkflowId, taskQueues } from '../ids';
import type { WorkflowStartSpec } from '../workflow-start';
import type { PaymentIntentWorkflowInput } from './payment-intent';

/** How much each cycle collects: what the installment still owes, or a fixed amount. */
export const autopayAmountTypes = ['INSTALLMENT_DUE', 'FIXED'] as const;
export type AutopayAmountType = (typeof autopayAmountTypes)[number];

/** Enrolment statuses: ACTIVE until cancelled (or superseded by nothing: a cancelled one is never reactivated). */
export const autopayStatuses = ['ACTIVE', 'CANCELLED'] as const;
export type AutopayStatus = (typeof autopayStatuses)[number];

/**
 * `daysBeforeDue` bounds, calendar days (our choice, docs/processes.md P1 leaves it open): 0 (collect on the due
 * date) to 15 (half a monthly period; it also keeps the intent's `effectiveDate` well inside the rails' 30-day
 * horizon, domain/payments/rails.ts).
 */
export const minDaysBeforeDue = 0;
export const maxDaysBeforeDue = 15;

/** The `source` of every intent autopay creates (spec `POST /v1/loans/{loanId}/payments` `source`). */
export const autopaySource = 'AUTOPAY';

/**
 * ISO date on which autopay creates the intent for an installment due on `dueDate` (ISO date):
 * `dueDate − daysBeforeDue` calendar days, in UTC.
 */
export function autopayCollectionDateOf(dueDate: string, daysBeforeDue: number): string {
  return addDays(dueDate, -daysBeforeDue);
}

/**
 * Request key of the intent autopay creates for one installment: `autopay/<enrolmentId>/<installmentNumber>`. It
 * makes the collection idempotent per (enrolment, installment) through `payments.request_key` (unique per tenant).
 */
export function autopayRequestKeyOf(enrolmentId: number, installmentNumber: number): string {
  return `autopay/${enrolmentId}/${installmentNumber}`;
}

/**
 * The one argument of `autopayWorkflow`, also what each `continueAsNew` carries: the loan, the enrolment the
 * cursor belongs to, and the cursor (the last installment this enrolment handled: collected or skipped).
 */
export interface AutopayWorkflowInput {
  tenantId: string;
  loanId: number;
  /** The loan's `accountNo` (spec `loanRef`), for the Temporal UI summary. */
  loanRef: string;
  /** The enrolment being served; another ACTIVE enrolment of the loan (after a cancel and re-enrol) resets the cursor. */
  enrolmentId: number;
  /** Installment number last handled by `enrolmentId`; 0 before the first. */
  lastInstallmentNumber: number;
}

/**
 * How to start the loan's autopay process (docs/processes.md P1): id `autopay/<tenant>/<loanId>`, queue `lending`,
 * search attributes `TenantId` and `LoanId`, a one-line summary. ALLOW_DUPLICATE: after a cancelled enrolment's
 * process ended, a new enrolment of the same loan starts a new run under the same id.
 */
export function autopayStartSpec(input: AutopayWorkflowInput): WorkflowStartSpec<AutopayWorkflowInput> {
  return {
    workflowType: 'autopayWorkflow',
    workflowId: autopayWorkflowId(input.tenantId, input.loanId),
    taskQueue: taskQueues.lending,
    input,
    tenantId: input.tenantId,
    searchAttributes: { LoanId: String(input.loanId) },
    staticSummary: `Autopay of loan ${input.loanRef} (enrolment ${input.enrolmentId})`,
    idReusePolicy: 'ALLOW_DUPLICATE',
  };
}

/** The next step of the loan's autopay process, as planned from the stored state. */
export type AutopayPlan =
  | {
      kind: 'COLLECT';
      /** The ACTIVE enrolment served (may differ from the input's after a re-enrolment). */
      enrolmentId: number;
      installmentNumber: number;
      /** ISO date the installment is due. */
      dueDate: string;
      /** ISO date (UTC) from which the intent is created: `dueDate − daysBeforeDue`. */
      collectOn: string;
    }
  | {
      kind: 'END';
      /** NO_ACTIVE_ENROLMENT (cancelled), LOAN_NOT_ACTIVE (closed or otherwise), NOTHING_LEFT (no later installment). */
      reason: 'NO_ACTIVE_ENROLMENT' | 'LOAN_NOT_ACTIVE' | 'NOTHING_LEFT';
    };

/** What one collection did. */
export type AutopayCollection =
  | {
      outcome: 'CREATED';
      paymentId: number;
      /** The intent's process to start (also stored as a start intent). */
      workflow: { workflowId: string; input: PaymentIntentWorkflowInput };
    }
  | {
      /**
       * Not collected, with a case effect and a task: a PAYMENT_HOLD in force (`reasonCode`
       * `error.msg.loan.payment.hold.active`), or another rule of the intent refused it (instrument no longer
       * eligible, amount above the outstanding).
       */
      outcome: 'SKIPPED';
      reasonCode: string;
      taskId: number;
    }
  | { outcome: 'NOTHING_DUE' }
  | { outcome: 'ENROLMENT_INACTIVE' }
  | { outcome: 'LOAN_NOT_ACTIVE' };

/** What the workflow answers to `getState`. */
export interface AutopayState {
  enrolmentId: number;
  lastInstallmentNumber: number;
  /** The installment waited for, null while planning or once ended. */
  nextInstallmentNumber: number | null;
  /** ISO date the next intent is created, null when none. */
  collectOn: string | null;
  /** Outcome of the last collection in this run, null before. */
  lastOutcome: AutopayCollection['outcome'] | null;
  /** Why the process ended, null while it runs. */
  endedBecause: Extract<AutopayPlan, { kind: 'END' }>['reason'] | null;
}
