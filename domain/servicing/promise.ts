/**
 * Promise-to-pay vocabulary shared by the API, the operations and the workflow (docs/processes.md P4
 * "Promises to pay"; docs/servicing.md: a case closes with `outcomeCode` `PROMISE_KEPT`).
 *
 * A promise names a loan, an amount (decimal string in the loan's currency) and a promised date. Its
 * process watches the loan's POSTED payments value-dated from the promise's creation date (in the
 * tenant's time zone) through the promised date plus `promiseGraceDays`, and resolves it: the sum
 * reaches the amount → KEPT (at once); at the deadline, 0 < sum < amount → PARTIALLY_KEPT, nothing →
 * BROKEN. Pure: the clock and the time zone are parameters.
 */
import { addDays, daysBetween } from '../calendar';
import { promiseWorkflowId, taskQueues } from '../ids';
import { parseDecimalToMinor } from '../money';
import { formatWithOffset, instantOfLocal, localDate } from '../time-zone';
import type { WorkflowStartSpec } from '../workflow-start';

/** Calendar days after the promised date during which a payment still counts (docs/processes.md P4). */
export const promiseGraceDays = 3;

/** The furthest a promised date may lie ahead of today (tenant time zone), in calendar days. */
export const promiseHorizonDays = 90;

/** Channels a promise is taken on: the interaction channels (db/schema/servicing/servicing.ts `interactionChannel`). */
export const promiseChannels = ['PHONE', 'SMS', 'EMAIL', 'CHAT', 'LETTER', 'VOICE'] as const;
export type PromiseChannel = (typeof promiseChannels)[number];

/** Outcomes of a promise (its process ends with one). */
export const promiseOutcomes = ['KEPT', 'PARTIALLY_KEPT', 'BROKEN'] as const;
export type PromiseOutcome = (typeof promiseOutcomes)[number];

/** Statuses: PENDING until the process resolves it. */
export const promiseStatuses = ['PENDING', ...promiseOutcomes] as const;
export type PromiseStatus = (typeof promiseStatuses)[number];

/** The case effect each outcome appends (`PROMISE_KEPT` grounds a case close with that outcome code). */
export const promiseEffectTypes: Record<PromiseOutcome, string> = {
  KEPT: 'PROMISE_KEPT',
  PARTIALLY_KEPT: 'PROMISE_PARTIALLY_KEPT',
  BROKEN: 'PROMISE_BROKEN',
};

/** The task type opened on the case for a promise not kept in full. */
export const promiseFollowUpTaskType = 'PROMISE_FOLLOW_UP';

/** Where a promised date stands against today in the tenant's time zone. */
export type PromisedDateCheck = { ok: true } | { ok: false; reason: 'PAST' | 'BEYOND_HORIZON' };

/**
 * Whether `promisedDate` (ISO date) may be promised at `nowMs` in `timeZone`: not before today there and at most
 * `promiseHorizonDays` after it.
 */
export function checkPromisedDate(promisedDate: string, nowMs: number, timeZone: string): PromisedDateCheck {
  const today = localDate(nowMs, timeZone);
  if (promisedDate < today) return { ok: false, reason: 'PAST' };
  if (daysBetween(today, promisedDate) > promiseHorizonDays) return { ok: false, reason: 'BEYOND_HORIZON' };
  return { ok: true };
}

/** The window a promise watches, computed once at intake. */
export interface PromiseWindow {
  /** ISO date of the promise's creation in the tenant's time zone: the first value date that counts. */
  windowStartDate: string;
  /** ISO date `promisedDate + promiseGraceDays`: the last value date that counts. */
  windowEndDate: string;
  /** Epoch ms of the end of `windowEndDate` in the tenant's time zone (the start of the day after). */
  deadlineAtMs: number;
  /** `deadlineAtMs` as ISO 8601 with the zone's offset. */
  deadlineAt: string;
}

/** The watch window of a promise created at `createdAtMs` for `promisedDate`, in `timeZone`. */
export function computePromiseWindow(input: {
  createdAtMs: number;
  promisedDate: string;
  timeZone: string;
}): PromiseWindow {
  const windowStartDate = localDate(input.createdAtMs, input.timeZone);
  const windowEndDate = addDays(input.promisedDate, promiseGraceDays);
  const deadlineAtMs = instantOfLocal(
    addDays(windowEndDate, 1),
    { hour: 0, minute: 0, second: 0 },
    input.timeZone,
  );
  return {
    windowStartDate,
    windowEndDate,
    deadlineAtMs,
    deadlineAt: formatWithOffset(deadlineAtMs, input.timeZone),
  };
}

/**
 * The outcome of a promise of `amount` when `paidAmount` has been paid (decimal strings, compared exactly at 6
 * fraction digits, the database's scale): KEPT once paid in full; before the deadline nothing else (null: keep
 * watching); at the deadline PARTIALLY_KEPT for a part, BROKEN for nothing.
 */
export function promiseOutcomeOf(input: {
  amount: string;
  paidAmount: string;
  atDeadline: boolean;
}): PromiseOutcome | null {
  const promised = parseDecimalToMinor(input.amount, 6);
  const paid = parseDecimalToMinor(input.paidAmount, 6);
  if (paid >= promised) return 'KEPT';
  if (!input.atDeadline) return null;
  return paid > 0n ? 'PARTIALLY_KEPT' : 'BROKEN';
}

/** Input of `promiseWorkflow` (JSON-serializable; the deadline as epoch milliseconds). */
export interface PromiseWorkflowInput {
  tenantId: string;
  promiseId: number;
  caseId: number;
  loanId: number;
  /** Decimal string with the currency's digits. */
  amount: string;
  /** ISO 4217: the loan's currency. */
  currency: string;
  /** ISO date promised. */
  promisedDate: string;
  /** Epoch ms at which the watch ends (end of promisedDate + grace days, tenant time zone). */
  deadlineAtMs: number;
}

/** Payload of the `paymentPosted` signal: a hint only, the workflow re-reads the payments. */
export interface PaymentPostedHint {
  /** The payment that posted, when known. */
  paymentId: number | null;
}

/** The process's state (query `getState`). */
export interface PromiseState {
  promiseId: number;
  status: PromiseStatus;
  /** Decimal string: what the last read found paid in the window. */
  paidAmount: string;
  /** Epoch ms of the deadline. */
  deadlineAtMs: number;
  /** Signals received. */
  hintsReceived: number;
}

/**
 * How `promiseWorkflow` is started for a promise: id `promise/<tenant>/<promiseId>`, queue `servicing` (the
 * privacy-request queue), search attributes TenantId, CaseId, LoanId, reuse REJECT_DUPLICATE (one process per
 * promise). Built by the operation that stores the promise (its start intent) and by the client port.
 */
export function promiseStartSpec(input: PromiseWorkflowInput): WorkflowStartSpec<PromiseWorkflowInput> {
  return {
    workflowType: 'promiseWorkflow',
    workflowId: promiseWorkflowId(input.tenantId, input.promiseId),
    taskQueue: taskQueues.servicing,
    input,
    tenantId: input.tenantId,
    searchAttributes: { CaseId: input.caseId, LoanId: String(input.loanId) },
    staticSummary: `Promise ${input.promiseId}: ${input.amount} ${input.currency} on loan ${input.loanId} by ${input.promisedDate}`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}
