/**
 * The daily reconciliation's comparison (docs/processes.md P1 "Reconciliation exceptions"): one tenant's
 * comparison of the rail's settlement report with our intents (the tenants to compare come from
 * list-tenants-with-payment-intents.ts). It writes nothing: `reconcileRailSettlements` calls the rail
 * (`deps.paymentRail.settlementReport`), and a rail call is never in the same activity as a write of ours
 * (docs/design.md §1). The workflow (workflows/payments/daily-reconciliation/) opens each finding through
 * `openReconciliationException`, one transaction per finding, so that each is retried on its own and the operation
 * that already keeps one open exception per (type, target) and writes the outbox event is the only writer of
 * exceptions.
 */
import { and, between, eq, inArray, isNotNull, or } from 'drizzle-orm';
import { payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { daysBetween, isIsoDate } from '../../domain/calendar';
import { validationError } from '../../domain/errors';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../domain/money';
import {
  compareSettlements,
  countFindingsByType,
  type IntentSnapshot,
  type ReconciliationFinding,
  reconciliationTimeZone,
} from '../../domain/payments/daily-reconciliation';
import { localDate } from '../../domain/time-zone';
import type { Deps } from '../deps';

/** Longest range one call compares, in days (`to` − `from` + 1): a month of reports. */
export const reconciliationRangeDaysMax = 31;

export interface ReconcileRailSettlementsInput {
  tenantId: string;
  /** First ISO date compared, inclusive. */
  from: string;
  /** Last ISO date compared, inclusive: ≥ `from`, before today in the rail's calendar (a closed day). */
  to: string;
}

export interface ReconcileRailSettlementsResult {
  tenantId: string;
  from: string;
  to: string;
  /** Settlement-report lines compared. */
  linesCompared: number;
  /** Our intents compared (those the range concerns). */
  intentsCompared: number;
  /** The exceptions to open (domain/payments/daily-reconciliation.ts `compareSettlements`), in a stable order. */
  findings: ReconciliationFinding[];
  /** `findings` counted by exception type. */
  counts: Record<ReconciliationFinding['exceptionType'], number>;
}

/** A `numeric(19,6)` amount as a decimal string with the currency's minor-unit digits (as stored, if it has more). */
function amountText(numeric: string, currency: string): string {
  try {
    const digits = minorUnitDigits(currency);
    return formatMinor(parseDecimalToMinor(numeric, digits, { allowTrailingZeros: true }), digits);
  } catch {
    return numeric;
  }
}

/**
 * Compares one tenant's settlement report for the ISO dates `from`–`to` with our payment intents
 * (domain/payments/daily-reconciliation.ts, rules and timing there) and returns the findings and their counts by
 * type; writes nothing. It first calls `deps.paymentRail.settlementReport` (every rail), then reads, in one
 * read-only tenant transaction, the intents named by the report's lines and every intent settled or returned in the
 * range (rail not null). Reading after the report means an intent posted while the report was fetched is seen
 * posted. Deterministic for the same rail and table contents, so a retry finds the same findings.
 *
 * Errors: 400 `validation.msg.validation.errors.exist` naming the field when `tenantId` is empty, `from`/`to` are
 * not ISO dates, `to` < `from`, the range is longer than `reconciliationRangeDaysMax` days, or `to` is not before
 * today in America/New_York per `deps.clock()` (a day still open is never compared). A plain (retryable) Error when
 * no rail adapter is configured; the rail's own errors pass through (transient ones are retried by the workflow).
 */
export function reconcileRailSettlements(deps: Deps) {
  return async (input: ReconcileRailSettlementsInput): Promise<ReconcileRailSettlementsResult> => {
    const { tenantId, from, to } = input;
    if (typeof tenantId !== 'string' || tenantId.length === 0) {
      throw validationError('tenantId', tenantId, 'tenantId is required.');
    }
    if (!isIsoDate(from)) throw validationError('from', from, 'from must be a calendar date YYYY-MM-DD.');
    if (!isIsoDate(to)) throw validationError('to', to, 'to must be a calendar date YYYY-MM-DD.');
    if (to < from) throw validationError('to', to, 'to must not be before from.');
    if (daysBetween(from, to) + 1 > reconciliationRangeDaysMax) {
      throw validationError('to', to, `A reconciliation covers at most ${reconciliationRangeDaysMax} days.`);
    }
    const today = localDate(deps.clock().getTime(), reconciliationTimeZone);
    if (to >= today) {
      throw validationError(
        'to',
        to,
        `to must be a closed day, before today (${today}) in ${reconciliationTimeZone}.`,
      );
    }
    const rail = deps.paymentRail;
    if (!rail) throw new Error('No payment rail adapter is configured in this worker.');
    const lines = await rail.settlementReport({ tenantId, from, to });
    const namedIds = [...new Set(lines.map((line) => line.paymentId))];
    const rows = await withTenantTransaction(
      deps.db,
      tenantId,
      (tx) =>
        tx
          .select({
            paymentId: payments.id,
            status: payments.status,
            amount: payments.amount,
            currency: payments.currencyCode,
            providerRef: payments.providerRef,
            settledOn: payments.settledOn,
            returnedOn: payments.returnedOn,
          })
          .from(payments)
          .where(
            and(
              eq(payments.tenantId, tenantId),
              isNotNull(payments.rail),
              or(
                between(payments.settledOn, from, to),
                between(payments.returnedOn, from, to),
                namedIds.length > 0 ? inArray(payments.id, namedIds) : undefined,
              ),
            ),
          )
          .orderBy(payments.id),
      { accessMode: 'read only' },
    );
    const intents: IntentSnapshot[] = rows.map((row) => ({
      ...row,
      status: row.status as IntentSnapshot['status'],
      amount: amountText(row.amount, row.currency),
    }));
    const findings = compareSettlements({ from, to, lines, intents });
    return {
      tenantId,
      from,
      to,
      linesCompared: lines.length,
      intentsCompared: intents.length,
      findings,
      counts: countFindingsByType(findings),
    };
  };
}
