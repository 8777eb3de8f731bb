import { moneyTextOf, salesReportsOf } from '../../db/queries/lending/merchant-advances';
import { merchantSalesReports } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { latestDateInForce } from '../../domain/customers/customer';
import { DomainError, validationError } from '../../domain/errors';
import { calculatedRemittance, periodProblem, periodsOverlap } from '../../domain/lending/merchant-advance';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../domain/money';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { assertIsoDate } from './loan-money';
import { lockMerchantAdvance } from './merchant-advance-ledger';

export interface ReportMerchantSalesInput extends OperationContext {
  /** Opaque `mca_…` id. */
  advanceId: string;
  /** ISO dates, the closed period: one day (DAILY) or seven days (WEEKLY). */
  periodStart: string;
  periodEnd: string;
  /** Decimal string ≥ 0 in the advance's currency (its minor-unit digits at most): gross sales of the period. */
  amount: string;
  /** The reporting system's reference of this report; unique per advance. */
  sourceRef: string;
}

/** A sales report as answered (first call and replays alike). */
export interface MerchantSalesReportView {
  advanceId: string;
  periodStart: string;
  periodEnd: string;
  /** Decimal strings with the currency's digits. */
  amount: string;
  currency: string;
  sourceRef: string;
  /** amount × holdbackRate, HALF_EVEN to the currency's minor unit. */
  calculatedRemittance: string;
  /** ISO 8601 instant (UTC) of the first report. */
  reportedAt: string;
}

/**
 * Records the sales a merchant reports for one period (docs/processes.md P6: `POST
 * /v1/merchant-advances/{advanceId}/reported-sales`; event `merchant.sales.reported`). One transaction under the
 * advance's row lock. A report is immutable: the same period again with the same amount and `sourceRef` is a
 * replay (the first report is answered, nothing is written); any other content for a reported period, or a
 * `sourceRef` already used for another period, is a conflict — a correction is not supported (report the
 * difference in a later period's remittance instead).
 *
 * Errors: 400 naming `periodStart`/`periodEnd` (not ISO dates, a start in the future, end before start, not one day
 * for DAILY or seven for WEEKLY), `amount` (malformed, negative, over-precise for the currency), `sourceRef` (looks like an identifier);
 * 404 when the tenant has no such advance; 409 `error.msg.merchant.sales.period.conflict` (other content for the
 * period or the `sourceRef`), 409 `error.msg.merchant.period.overlap` (the period overlaps a reported one).
 */
export function reportMerchantSales(deps: Deps) {
  return async (input: ReportMerchantSalesInput): Promise<MerchantSalesReportView> => {
    assertNoSensitiveData('sourceRef', input.sourceRef);
    assertIsoDate('periodStart', input.periodStart);
    assertIsoDate('periodEnd', input.periodEnd);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const advance = await lockMerchantAdvance(tx, input.tenantId, input.advanceId);
      const currency = advance.currencyCode;
      const problem = periodProblem(input.periodStart, input.periodEnd, advance.remittanceFrequency);
      if (problem)
        throw validationError(problem.parameterName, input[problem.parameterName], problem.message);
      if (input.periodStart > latestDateInForce(deps.clock())) {
        throw validationError('periodStart', input.periodStart, 'periodStart must not be in the future.');
      }
      const digits = minorUnitDigits(currency);
      let minor: bigint;
      try {
        minor = parseDecimalToMinor(input.amount, digits);
      } catch {
        throw validationError(
          'amount',
          input.amount,
          `amount must be a decimal string with at most ${digits} fraction digits for ${currency}.`,
        );
      }
      if (minor < 0n || minor >= 10n ** BigInt(13 + digits)) {
        throw validationError('amount', input.amount, 'amount must be from 0 to below 10000000000000.');
      }
      const amount = formatMinor(minor, digits);
      const viewOf = (row: typeof merchantSalesReports.$inferSelect): MerchantSalesReportView => ({
        advanceId: advance.advanceRef,
        periodStart: row.periodStart,
        periodEnd: row.periodEnd,
        amount: moneyTextOf(row.amount, currency),
        currency,
        sourceRef: row.sourceRef,
        calculatedRemittance: calculatedRemittance(row.amount, advance.holdbackRate, currency),
        reportedAt: row.createdAt.toISOString(),
      });

      const reports = await salesReportsOf(tx, input.tenantId, advance.id);
      const samePeriod = reports.find((r) => r.periodStart === input.periodStart);
      if (samePeriod) {
        if (
          samePeriod.periodEnd === input.periodEnd &&
          samePeriod.sourceRef === input.sourceRef &&
          moneyTextOf(samePeriod.amount, currency) === amount
        ) {
          return viewOf(samePeriod);
        }
        throw new DomainError(
          'error.msg.merchant.sales.period.conflict',
          `Sales for the period starting ${input.periodStart} were already reported with other content (sourceRef or amount); a report cannot be changed.`,
        );
      }
      if (reports.some((r) => r.sourceRef === input.sourceRef)) {
        throw new DomainError(
          'error.msg.merchant.sales.period.conflict',
          'This sourceRef was already used to report another period of this advance.',
        );
      }
      const overlapping = reports.find((r) => periodsOverlap(r, input));
      if (overlapping) {
        throw new DomainError(
          'error.msg.merchant.period.overlap',
          `The period ${input.periodStart}..${input.periodEnd} overlaps the reported period ${overlapping.periodStart}..${overlapping.periodEnd}.`,
        );
      }
      const now = deps.clock();
      const [row] = await tx
        .insert(merchantSalesReports)
        .values({
          tenantId: input.tenantId,
          advanceId: advance.id,
          periodStart: input.periodStart,
          periodEnd: input.periodEnd,
          amount,
          sourceRef: input.sourceRef,
          actorUsername: input.actor ?? null,
          createdAt: now,
        })
        .returning();
      if (!row) throw new Error('sales report insert returned nothing');
      const view = viewOf(row);
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'merchant.sales.reported',
        subjectId: advance.advanceRef,
        data: {
          advanceId: view.advanceId,
          periodStart: view.periodStart,
          periodEnd: view.periodEnd,
          amount: view.amount,
          currency: view.currency,
          sourceRef: view.sourceRef,
          calculatedRemittance: view.calculatedRemittance,
        },
        occurredAt: now,
        dedupeKey: `merchant-advance/${advance.advanceRef}/sales/${row.id}`,
      });
      return view;
    });
  };
}
