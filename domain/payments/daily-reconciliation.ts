/**
 * The daily reconciliation's comparison (docs/processes.md P1 "Reconciliation exceptions"): one
 * tenant's settlement-report lines for a closed range of dates against our payment intents, giving the
 * reconciliation exceptions to open. Pure: no I/O, no clock; the caller (activities/payments/
 * reconcile-rail-settlements.ts) reads both sides and opens what this returns through
 * `openReconciliationException`, whose business key (type, targetType, targetRef) makes a recurrence move
 * `lastSeenAt` instead of adding a row.
 *
 * Rules, for the dates `from`–`to` (inclusive ISO dates):
 * | exception | when | targetType / targetRef |
 * |---|---|---|
 * | `UNMATCHED_SETTLEMENT` | a `SETTLED` line whose paymentId is no intent of ours, or whose providerRef differs from the one we stored (`NO_MATCHING_INTENT`) | `RAIL_SETTLEMENT` / the line's providerRef (there is no intent to name) |
 * | `UNMATCHED_SETTLEMENT` | a `SETTLED` line for an intent we show `POSTED` for another amount or currency (`AMOUNT_DIFFERS`), or for an intent we closed as `FAILED` or `CANCELLED` (`INTENT_FAILED`, `INTENT_CANCELLED`) | `PAYMENT_INTENT` / the paymentId (the intent exists, so the operator lands on it; the same target the payment-intent workflow uses) |
 * | `POSTED_NOT_SETTLED` | an intent we show `POSTED` with `settledOn` in the range and no `SETTLED` line of the rail for it in the range | `PAYMENT_INTENT` / the paymentId |
 * | `RETURN_NOT_REVERSED` | a `RETURNED` line (returnedOn in the range) for an intent we still show `POSTED` | `PAYMENT_INTENT` / the paymentId (the key the workflow uses for a return after the window, so both meet in one exception) |
 *
 * Not exceptions: a `SETTLED` line matching a `POSTED` (or later `RETURNED`) intent of the same amount and
 * currency; a `RETURNED` line for an intent we show `RETURNED`; a `SETTLED` line for an intent still `CREATED` or
 * `SUBMITTED` (the settlement is in flight in the payment-intent workflow, which either posts it or opens
 * `SETTLED_NOT_POSTED` itself); `FAILED` lines (a failure before settlement moves no money; the workflow
 * records it); a `RETURNED` line without an intent (its `SETTLED` line was reported, and flagged, on its own day).
 *
 * Timing: only a closed range is compared. The schedule runs at 06:00 America/New_York (the rail's calendar,
 * `reconciliationTimeZone`) and compares the previous calendar day (`reconciliationDateOf`): the rail reports a
 * day's outcomes by its end, and the workflow applies an outcome within seconds of the rail's signal, so six hours
 * after the day closed a difference is a real one, not one in flight. Every calendar day is compared, not only
 * Federal Reserve business days: instant rails (RTP, FedNow) settle on weekends and holidays too; a day without
 * outcomes yields nothing. Both sides carry the same date for an outcome (the payment-intent workflow stores the
 * `settledOn`/`returnedOn` of the rail's event, and the sandbox records that event's date), and at 06:00 New York
 * (10:00 or 11:00 UTC) the previous day has closed in New York and in UTC alike.
 */
import { addDays, isIsoDate } from '../calendar';
import { taskQueues } from '../ids';
import { parseDecimalToMinor } from '../money';
import { localDate } from '../time-zone';
import type { WorkflowStartSpec } from '../workflow-start';
import type { ReconciliationDetail, ReconciliationExceptionType } from './reconciliation-exceptions';

/** The rail's calendar: the Federal Reserve's (Eastern time), as the sandbox rail's (activities/payments/sandbox-rail.ts). */
export const reconciliationTimeZone = 'America/New_York';

/** One settlement-report line as the comparison needs it (a subset of the rail port's `SettlementReportEntry`). */
export interface SettlementLine {
  providerRef: string;
  paymentId: number;
  status: 'SETTLED' | 'RETURNED' | 'FAILED';
  /** Decimal string: what settled (or came back). */
  amount: string;
  /** ISO 4217 code. */
  currency: string;
  /** ISO date it settled; null for FAILED. */
  settledOn: string | null;
  /** RETURNED only. */
  returnCode?: string;
  /** ISO date; RETURNED only. */
  returnedOn?: string;
}

/** One payment intent of ours (a `payments` row with a rail) as the comparison needs it. */
export interface IntentSnapshot {
  paymentId: number;
  status: 'CREATED' | 'SUBMITTED' | 'POSTED' | 'FAILED' | 'RETURNED' | 'CANCELLED';
  /** Decimal string (what was posted once POSTED), any number of fraction digits up to 6. */
  amount: string;
  currency: string;
  /** The rail's reference once submitted. */
  providerRef: string | null;
  /** ISO date the rail settled it, once POSTED. */
  settledOn: string | null;
  /** ISO date it was returned, once RETURNED. */
  returnedOn: string | null;
}

/** An exception to open, as `openReconciliationException` takes it (less the tenant). */
export interface ReconciliationFinding {
  exceptionType: Exclude<ReconciliationExceptionType, 'SETTLED_NOT_POSTED'>;
  /** `PAYMENT_INTENT` or `RAIL_SETTLEMENT` (module table). */
  targetType: 'PAYMENT_INTENT' | 'RAIL_SETTLEMENT';
  /** The paymentId as text, or the line's providerRef. */
  targetRef: string;
  /** Every value a string; `providerRef` and `reason` always, amounts as decimal strings, dates ISO. */
  detail: ReconciliationDetail;
}

/** What `compareSettlements` compares: the lines and intents of one tenant for the ISO dates `from`–`to`. */
export interface SettlementComparisonInput {
  from: string;
  to: string;
  /** The rail's report for `from`–`to` (lines outside the range are ignored). */
  lines: readonly SettlementLine[];
  /**
   * Our intents that the range concerns: at least every intent named by a line and every POSTED intent settled
   * in the range (more is harmless).
   */
  intents: readonly IntentSnapshot[];
}

/** Scale at which amounts are compared: `numeric(19,6)`'s, so `"100.00"` equals `"100.000000"`. */
const comparisonScale = 6;

function sameMoney(a: string, aCurrency: string, b: string, bCurrency: string): boolean {
  if (aCurrency !== bCurrency) return false;
  return (
    parseDecimalToMinor(a, comparisonScale, { allowTrailingZeros: true }) ===
    parseDecimalToMinor(b, comparisonScale, { allowTrailingZeros: true })
  );
}

/**
 * The exceptions of one tenant's range (module table), in a stable order: by type (UNMATCHED_SETTLEMENT,
 * POSTED_NOT_SETTLED, RETURN_NOT_REVERSED), then by the order of the lines or intents; at most one finding per
 * (type, targetType, targetRef). Errors: RangeError when `from`/`to` are not ISO dates or `to` < `from`, or an
 * amount is not a decimal string (a caller's bug).
 */
export function compareSettlements(input: SettlementComparisonInput): ReconciliationFinding[] {
  const { from, to } = input;
  if (!isIsoDate(from) || !isIsoDate(to) || to < from) {
    throw new RangeError(`not a range of ISO dates: ${String(from)}–${String(to)}`);
  }
  const inRange = (date: string | null | undefined): boolean =>
    typeof date === 'string' && date >= from && date <= to;
  const intents = new Map(input.intents.map((intent) => [intent.paymentId, intent]));
  const unmatched: ReconciliationFinding[] = [];
  const notSettled: ReconciliationFinding[] = [];
  const notReversed: ReconciliationFinding[] = [];
  const seen = new Set<string>();
  const add = (list: ReconciliationFinding[], finding: ReconciliationFinding) => {
    const key = `${finding.exceptionType}/${finding.targetType}/${finding.targetRef}`;
    if (seen.has(key)) return;
    seen.add(key);
    list.push(finding);
  };
  /** paymentIds with a SETTLED line in the range that is the intent's own (same providerRef). */
  const settledIds = new Set<number>();

  for (const line of input.lines) {
    if (line.status !== 'SETTLED' || !inRange(line.settledOn)) continue;
    const intent = intents.get(line.paymentId);
    const settledOn = line.settledOn as string;
    if (!intent || (intent.providerRef !== null && intent.providerRef !== line.providerRef)) {
      add(unmatched, {
        exceptionType: 'UNMATCHED_SETTLEMENT',
        targetType: 'RAIL_SETTLEMENT',
        targetRef: line.providerRef,
        detail: {
          providerRef: line.providerRef,
          reason: 'NO_MATCHING_INTENT',
          settledAmount: line.amount,
          currency: line.currency,
          settledOn,
          paymentId: String(line.paymentId),
        },
      });
      continue;
    }
    settledIds.add(line.paymentId);
    const target = { targetType: 'PAYMENT_INTENT', targetRef: String(intent.paymentId) } as const;
    if (
      intent.status === 'POSTED' &&
      !sameMoney(line.amount, line.currency, intent.amount, intent.currency)
    ) {
      add(unmatched, {
        exceptionType: 'UNMATCHED_SETTLEMENT',
        ...target,
        detail: {
          providerRef: line.providerRef,
          reason: 'AMOUNT_DIFFERS',
          settledAmount: line.amount,
          currency: line.currency,
          postedAmount: intent.amount,
          postedCurrency: intent.currency,
          settledOn,
        },
      });
    } else if (intent.status === 'FAILED' || intent.status === 'CANCELLED') {
      add(unmatched, {
        exceptionType: 'UNMATCHED_SETTLEMENT',
        ...target,
        detail: {
          providerRef: line.providerRef,
          reason: intent.status === 'FAILED' ? 'INTENT_FAILED' : 'INTENT_CANCELLED',
          settledAmount: line.amount,
          currency: line.currency,
          settledOn,
        },
      });
    }
    // CREATED / SUBMITTED: in flight in the workflow. RETURNED: it settled, then came back; matched.
  }

  for (const intent of input.intents) {
    if (intent.status !== 'POSTED' || !inRange(intent.settledOn) || settledIds.has(intent.paymentId))
      continue;
    add(notSettled, {
      exceptionType: 'POSTED_NOT_SETTLED',
      targetType: 'PAYMENT_INTENT',
      targetRef: String(intent.paymentId),
      detail: {
        providerRef: intent.providerRef ?? 'none',
        reason: 'NO_SETTLEMENT_REPORTED',
        postedAmount: intent.amount,
        currency: intent.currency,
        settledOn: intent.settledOn as string,
      },
    });
  }

  for (const line of input.lines) {
    if (line.status !== 'RETURNED' || !inRange(line.returnedOn)) continue;
    const intent = intents.get(line.paymentId);
    if (intent?.status !== 'POSTED') continue;
    if (intent.providerRef !== null && intent.providerRef !== line.providerRef) continue;
    add(notReversed, {
      exceptionType: 'RETURN_NOT_REVERSED',
      targetType: 'PAYMENT_INTENT',
      targetRef: String(intent.paymentId),
      detail: {
        providerRef: line.providerRef,
        reason: 'RETURNED_AT_RAIL_POSTED_HERE',
        returnCode: line.returnCode ?? '',
        returnedOn: line.returnedOn as string,
        returnedAmount: line.amount,
        currency: line.currency,
      },
    });
  }
  return [...unmatched, ...notSettled, ...notReversed];
}

/**
 * The date a run at instant `instantMs` (epoch milliseconds) reconciles: the day before its date in the rail's
 * calendar (`reconciliationTimeZone`), a day that has closed (module note "Timing"). ISO date out.
 */
export function reconciliationDateOf(instantMs: number): string {
  return addDays(localDate(instantMs, reconciliationTimeZone), -1);
}

/** The findings counted by exception type (every type present, zero when none). */
export function countFindingsByType(
  findings: readonly Pick<ReconciliationFinding, 'exceptionType'>[],
): Record<ReconciliationFinding['exceptionType'], number> {
  const counts = { UNMATCHED_SETTLEMENT: 0, POSTED_NOT_SETTLED: 0, RETURN_NOT_REVERSED: 0 };
  for (const finding of findings) counts[finding.exceptionType] += 1;
  return counts;
}

/** What one tenant's reconciliation compares (the input of `tenantReconciliationWorkflow`). */
export interface TenantReconciliationInput {
  tenantId: string;
  /** First ISO date, inclusive. */
  from: string;
  /** Last ISO date, inclusive (a closed day). */
  to: string;
}

/** The id of the schedule that starts `dailyReconciliationWorkflow` every day (one per namespace). */
export const dailyReconciliationScheduleId = 'daily-reconciliation';

/**
 * `daily-reconciliation/<tenant>/<date>` for one day, `daily-reconciliation/<tenant>/<from>..<to>` for a range: one
 * tenant's reconciliation, found in the Temporal UI by its business key.
 */
export function tenantReconciliationWorkflowId(tenantId: string, from: string, to: string): string {
  return `daily-reconciliation/${tenantId}/${from === to ? from : `${from}..${to}`}`;
}

/**
 * How one tenant's reconciliation is started (docs/processes.md P0 start specs), by the daily run (as a child) or an
 * operator (`npm run admin -- recon run`): queue `lending`, `TenantId` search attribute, a readable summary, and
 * reuse allowed (a rerun of a day is idempotent: recurrences only move `lastSeenAt`).
 */
export function tenantReconciliationStartSpec(
  input: TenantReconciliationInput,
): WorkflowStartSpec<TenantReconciliationInput> {
  const days = input.from === input.to ? input.from : `${input.from} to ${input.to}`;
  return {
    workflowType: 'tenantReconciliationWorkflow',
    workflowId: tenantReconciliationWorkflowId(input.tenantId, input.from, input.to),
    taskQueue: taskQueues.lending,
    input,
    tenantId: input.tenantId,
    searchAttributes: {},
    staticSummary: `Reconciliation of ${input.tenantId}'s rail settlements for ${days}`,
    idReusePolicy: 'ALLOW_DUPLICATE',
  };
}
