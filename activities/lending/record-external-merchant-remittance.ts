import { and, eq } from 'drizzle-orm';
import {
  type MerchantRemittanceView,
  merchantRemittanceViewOf,
  minorOfStored,
  postedMinorOf,
  remittancesOf,
  salesReportsOf,
} from '../../db/queries/lending/merchant-advances';
import { merchantRemittances } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { latestDateInForce } from '../../domain/customers/customer';
import { DomainError, fieldError, validationError } from '../../domain/errors';
import { periodProblem, periodsOverlap, remittancePosting } from '../../domain/lending/merchant-advance';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { assertIsoDate, contentDigestOf, moneyOfInput } from './loan-money';
import { appendMerchantPosting, lockMerchantAdvance } from './merchant-advance-ledger';

export interface RecordExternalMerchantRemittanceInput extends OperationContext {
  /** Opaque `mca_…` id. */
  advanceId: string;
  /** ISO dates: the remittance period (same rule as reported sales: one day DAILY, seven days WEEKLY). */
  periodStart: string;
  periodEnd: string;
  /** Decimal string > 0 in the advance's currency. */
  amount: string;
  /** ISO 4217 code; optional, but when given it must be the advance's currency. */
  currency?: string;
  /** The source system's unique reference of this remittance: unique per tenant for ever. */
  externalRecordRef: string;
  /** ISO date the money arrived: the posting's value date; not in the future. */
  effectiveDate: string;
}

/**
 * Records a remittance received outside the system and posts it (docs/processes.md P6: `POST
 * /v1/merchant-advances/{advanceId}/remittances/record-external`; docs/lending.md "Lending core": "external payment … unique
 * externalRecordRef → posted to the ledger"). One transaction under the advance's row lock: inserts the remittance
 * (id `mrem_…`) as POSTED, appends Dr EXTERNAL_CLEARING / Cr MERCHANT_ADVANCE_RECEIVABLE value-dated
 * `effectiveDate`, writes `merchant.remittance.posted`. A remittance recorded as external counts as settled when
 * recorded. Several remittances may share a period (partial remittances).
 *
 * Idempotent by `externalRecordRef` (unique per tenant): the same content (SHA-256 of the canonical
 * `{advanceId, periodStart, periodEnd, amount, effectiveDate}`) answers the recorded remittance in its current
 * state; other content → 409 `error.msg.external.record.ref.conflict` (as loans' record-external).
 *
 * Errors: 400 `validation.msg.payment.currency.mismatch` naming `currency` when it is given and is not the
 * advance's (checked first, nothing stored); 400 naming `periodStart`/`periodEnd` (period rule), `amount` (malformed, not above zero, over-precise),
 * `effectiveDate` (not a date, in the future), `externalRecordRef` (looks like an identifier; not echoed); 404 when
 * the tenant has no such advance; 409 `error.msg.merchant.period.overlap` when the period overlaps a reported
 * sales period without being it; 409 `error.msg.merchant.remittance.exceeds.outstanding` when the amount is above
 * the outstanding purchased amount.
 */
export function recordExternalMerchantRemittance(deps: Deps) {
  return async (input: RecordExternalMerchantRemittanceInput): Promise<MerchantRemittanceView> => {
    assertNoSensitiveData('externalRecordRef', input.externalRecordRef);
    assertIsoDate('periodStart', input.periodStart);
    assertIsoDate('periodEnd', input.periodEnd);
    assertIsoDate('effectiveDate', input.effectiveDate);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const advance = await lockMerchantAdvance(tx, input.tenantId, input.advanceId);
      const currency = advance.currencyCode;
      if (input.currency !== undefined && input.currency !== currency) {
        const message = `currency ${input.currency} differs from the advance's currency ${currency}.`;
        throw new DomainError('validation.msg.payment.currency.mismatch', message, {
          errors: [
            fieldError('currency', input.currency, message, 'validation.msg.payment.currency.mismatch'),
          ],
        });
      }
      const money = moneyOfInput(input.amount, currency);
      const contentDigest = contentDigestOf({
        kind: 'merchant-remittance',
        advanceId: advance.advanceRef,
        periodStart: input.periodStart,
        periodEnd: input.periodEnd,
        amount: money.text,
        effectiveDate: input.effectiveDate,
      });
      const [earlier] = await tx
        .select()
        .from(merchantRemittances)
        .where(
          and(
            eq(merchantRemittances.tenantId, input.tenantId),
            eq(merchantRemittances.externalRecordRef, input.externalRecordRef),
          ),
        );
      if (earlier) {
        if (earlier.contentDigest !== contentDigest || earlier.advanceId !== advance.id) {
          throw new DomainError(
            'error.msg.external.record.ref.conflict',
            'This externalRecordRef was already used for a remittance with other content.',
          );
        }
        return merchantRemittanceViewOf(advance, earlier);
      }
      const problem = periodProblem(input.periodStart, input.periodEnd, advance.remittanceFrequency);
      if (problem)
        throw validationError(problem.parameterName, input[problem.parameterName], problem.message);
      const now = deps.clock();
      if (input.effectiveDate > latestDateInForce(now)) {
        throw validationError(
          'effectiveDate',
          input.effectiveDate,
          'effectiveDate must not be in the future.',
        );
      }
      const reports = await salesReportsOf(tx, input.tenantId, advance.id);
      const clash = reports.find(
        (r) =>
          periodsOverlap(r, input) &&
          (r.periodStart !== input.periodStart || r.periodEnd !== input.periodEnd),
      );
      if (clash) {
        throw new DomainError(
          'error.msg.merchant.period.overlap',
          `The period ${input.periodStart}..${input.periodEnd} overlaps the reported period ${clash.periodStart}..${clash.periodEnd} without being it.`,
        );
      }
      const outstanding =
        minorOfStored(advance.purchasedAmount, currency) -
        postedMinorOf(advance, await remittancesOf(tx, input.tenantId, advance.id));
      if (money.minor > outstanding) {
        const message = `amount is above the outstanding purchased amount of the advance.`;
        throw new DomainError('error.msg.merchant.remittance.exceeds.outstanding', message, {
          errors: [
            fieldError('amount', input.amount, message, 'error.msg.merchant.remittance.exceeds.outstanding'),
          ],
        });
      }
      const [row] = await tx
        .insert(merchantRemittances)
        .values({
          tenantId: input.tenantId,
          advanceId: advance.id,
          periodStart: input.periodStart,
          periodEnd: input.periodEnd,
          amount: money.text,
          effectiveDate: input.effectiveDate,
          externalRecordRef: input.externalRecordRef,
          contentDigest,
          status: 'POSTED',
          actorUsername: input.actor ?? null,
          createdAt: now,
        })
        .onConflictDoNothing({
          target: [merchantRemittances.tenantId, merchantRemittances.externalRecordRef],
        })
        .returning();
      if (!row) {
        // the same ref committed meanwhile for another advance (this advance's lock excludes this one's)
        throw new DomainError(
          'error.msg.external.record.ref.conflict',
          'This externalRecordRef was already used for a remittance with other content.',
        );
      }
      await appendMerchantPosting(tx, {
        tenantId: input.tenantId,
        posting: remittancePosting(advance.advanceRef, row.remittanceRef, money.text, currency),
        valueDate: row.effectiveDate,
        now,
      });
      const view = merchantRemittanceViewOf(advance, row);
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'merchant.remittance.posted',
        subjectId: view.remittanceId,
        data: {
          remittanceId: view.remittanceId,
          advanceId: view.advanceId,
          status: 'POSTED',
          periodStart: view.periodStart,
          periodEnd: view.periodEnd,
          amount: view.amount,
          currency: view.currency,
          effectiveDate: view.effectiveDate,
        },
        occurredAt: now,
        dedupeKey: `merchant-remittance/${view.remittanceId}/posted`,
      });
      return view;
    });
  };
}
