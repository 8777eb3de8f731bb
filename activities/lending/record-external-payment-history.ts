import { and, eq, inArray } from 'drizzle-orm';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import { payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { latestDateInForce } from '../../domain/customers/customer';
import { DomainError, fieldError, type ShapeABody, shapeAOf, validationError } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { assertIsoDate, contentDigestOf, moneyOfInput } from './loan-money';
import {
  type PaymentRow,
  type RecordExternalPaymentResult,
  replayOf,
  resultOf,
} from './record-external-payment';
import { repostLoan } from './repost-loan';

/** One payment of a history: the fields of `RecordExternalPaymentInput` without the loan and the context. */
export interface HistoricalPaymentInput {
  /** Decimal string > 0 with at most the currency's minor-unit digits (`"105.00"`). */
  amount: string;
  /** ISO 4217 code; must be the loan's. */
  currency: string;
  /** ISO date; not before the loan's first funding date, not in the future. */
  effectiveDate: string;
  /** The source system's unique reference of this payment: unique per tenant for ever. */
  externalRecordRef: string;
  /** Originating system; `IMPORT` for boarded history. */
  source: string;
  rationale?: string | null;
}

export interface RecordExternalPaymentHistoryInput extends OperationContext {
  loanId: number;
  /** The loan's payments, in chronological order (the order one-by-one recording would use). */
  payments: HistoricalPaymentInput[];
}

/** The outcome of one payment of the history, in input order. */
export type HistoricalPaymentOutcome =
  | { externalRecordRef: string; ok: true; payment: RecordExternalPaymentResult }
  | { externalRecordRef: string; ok: false; error: ShapeABody };

export interface RecordExternalPaymentHistoryResult {
  loanId: number;
  /** The loan's `accountNo` (spec `loanRef`). */
  loanRef: string;
  outcomes: HistoricalPaymentOutcome[];
}

/**
 * Records a loan's whole payment history at once (portfolio boarding, DESIGN-processes P3 "one ledger repost per
 * loan, not per payment"; issue 9 §2): the same rules, results and events as calling `recordExternalPayment` for
 * each payment in turn, but ONE allocation and journal repost (repost-loan.ts) for the loan instead of one per
 * payment. Because the repost replays every money event of the loan in value-date order and appends only the
 * difference to the journal, the loan, its installments, every payment's allocation and the journal's lines end
 * exactly as one-by-one recording in chronological order leaves them (test/activities/boarding.test.ts compares
 * both on twin loans).
 *
 * One transaction under the loan's row lock (`lockLoanForMoney`). Each payment is checked as
 * `recordExternalPayment` checks it (sensitive-looking `externalRecordRef` / `rationale`, amount and currency,
 * ISO `effectiveDate` not in the future and not before the first funding, the loan's currency) and deduplicated by
 * `externalRecordRef` with the same content rule (SHA-256 of the canonical `{loanId, amount, currency,
 * effectiveDate, source, rationale}`: the same content replays the recorded payment, `created: false`; other
 * content → 409 `error.msg.external.record.ref.conflict`). A payment that fails a rule fails alone: its outcome
 * carries the Shape A error (`ok: false`) and the others are recorded. Every new payment writes `payment.posted`
 * to the outbox, as one-by-one recording would.
 *
 * Differences from one-by-one recording: the loan's state is checked once, before the history (it must be ACTIVE,
 * else every new payment fails with 409 `error.msg.loan.invalid.state.transition`); a payment dated after the
 * loan was paid off by an earlier payment of the same history is therefore recorded (the loan ends OVERPAID)
 * where one-by-one recording would refuse it (the loan being closed by then).
 *
 * Errors (thrown, nothing recorded): 404 when the tenant has no such loan.
 */
export function recordExternalPaymentHistory(deps: Deps) {
  return async (input: RecordExternalPaymentHistoryInput): Promise<RecordExternalPaymentHistoryResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const now = deps.clock();
      const refs = input.payments.map((p) => p.externalRecordRef);
      const earlierRows: PaymentRow[] =
        refs.length === 0
          ? []
          : await tx
              .select()
              .from(payments)
              .where(and(eq(payments.tenantId, input.tenantId), inArray(payments.externalRecordRef, refs)));
      const byRef = new Map<string, PaymentRow>(earlierRows.map((r) => [r.externalRecordRef ?? '', r]));

      const outcomes: (HistoricalPaymentOutcome | { externalRecordRef: string; pending: PaymentRow })[] = [];
      const created: PaymentRow[] = [];
      for (const payment of input.payments) {
        try {
          assertNoSensitiveData('externalRecordRef', payment.externalRecordRef);
          assertNoSensitiveData('rationale', payment.rationale);
          const money = moneyOfInput(payment.amount, payment.currency);
          assertIsoDate('effectiveDate', payment.effectiveDate);
          const contentDigest = contentDigestOf({
            kind: 'payment',
            loanId: loan.id,
            amount: money.text,
            currency: payment.currency,
            effectiveDate: payment.effectiveDate,
            source: payment.source,
            rationale: payment.rationale ?? null,
          });
          const earlier = byRef.get(payment.externalRecordRef);
          if (earlier) {
            if (created.includes(earlier)) {
              // The same ref twice in this history: a replay of the first (or a conflict), as one by one.
              replayOf(earlier, contentDigest, loan);
              outcomes.push({ externalRecordRef: payment.externalRecordRef, pending: earlier });
            } else {
              outcomes.push({
                externalRecordRef: payment.externalRecordRef,
                ok: true,
                payment: replayOf(earlier, contentDigest, loan),
              });
            }
            continue;
          }
          checkPaymentRules(loan, payment, now);
          const [row] = await tx
            .insert(payments)
            .values({
              tenantId: input.tenantId,
              loanId: loan.id,
              amount: money.text,
              currencyCode: payment.currency,
              effectiveDate: payment.effectiveDate,
              status: 'POSTED',
              source: payment.source,
              rationale: payment.rationale ?? null,
              externalRecordRef: payment.externalRecordRef,
              contentDigest,
              actorUsername: input.actor ?? null,
              createdAt: now,
            })
            .onConflictDoNothing({ target: [payments.tenantId, payments.externalRecordRef] })
            .returning();
          if (!row) {
            // Committed meanwhile by a call on another loan (this loan's lock excludes this one's).
            const [winner] = await tx
              .select()
              .from(payments)
              .where(
                and(
                  eq(payments.tenantId, input.tenantId),
                  eq(payments.externalRecordRef, payment.externalRecordRef),
                ),
              );
            if (!winner) throw new Error('payment vanished after an externalRecordRef conflict');
            outcomes.push({
              externalRecordRef: payment.externalRecordRef,
              ok: true,
              payment: replayOf(winner, contentDigest, loan),
            });
            continue;
          }
          byRef.set(payment.externalRecordRef, row);
          created.push(row);
          outcomes.push({ externalRecordRef: payment.externalRecordRef, pending: row });
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          outcomes.push({ externalRecordRef: payment.externalRecordRef, ok: false, error: shapeAOf(err) });
        }
      }

      const allocations =
        created.length > 0
          ? (await repostLoan(tx, { tenantId: input.tenantId, loan, now })).allocations
          : null;
      const finished: HistoricalPaymentOutcome[] = [];
      const firstOfRow = new Set<number>();
      for (const outcome of outcomes) {
        if (!('pending' in outcome)) {
          finished.push(outcome);
          continue;
        }
        const row = outcome.pending;
        const allocation = allocations?.get(row.id);
        if (!allocation) throw new Error(`payment ${row.id} was not allocated`);
        const isNew = !firstOfRow.has(row.id);
        firstOfRow.add(row.id);
        const result = resultOf({ ...row, allocation: { ...allocation } }, loan, isNew);
        finished.push({ externalRecordRef: outcome.externalRecordRef, ok: true, payment: result });
        if (!isNew) continue;
        await writeOutboxEvent(tx, {
          tenantId: input.tenantId,
          eventType: 'payment.posted',
          subjectId: row.id,
          data: {
            paymentId: result.paymentId,
            loanRef: result.loanRef,
            status: result.status,
            amount: result.amount,
            currency: result.currency,
            effectiveDate: result.effectiveDate,
          },
          occurredAt: now,
          dedupeKey: `payment/${row.id}/posted`,
        });
      }
      return { loanId: loan.id, loanRef: loan.accountNo, outcomes: finished };
    });
}

/** `recordExternalPayment`'s rules for a new payment (state, currency, dates); throws the same DomainErrors. */
function checkPaymentRules(
  loan: Awaited<ReturnType<typeof lockLoanForMoney>>,
  payment: HistoricalPaymentInput,
  now: Date,
): void {
  if (loan.status !== 'ACTIVE') {
    throw new DomainError(
      'error.msg.loan.invalid.state.transition',
      `Loan ${loan.id} is ${loan.status}: payments can be recorded on an ACTIVE loan only.`,
    );
  }
  if (payment.currency !== loan.currencyCode) {
    const message = `currency ${payment.currency} differs from the loan's currency ${loan.currencyCode}.`;
    throw new DomainError('validation.msg.payment.currency.mismatch', message, {
      errors: [fieldError('currency', payment.currency, message, 'validation.msg.payment.currency.mismatch')],
    });
  }
  if (payment.effectiveDate > latestDateInForce(now)) {
    throw validationError('effectiveDate', payment.effectiveDate, 'effectiveDate must not be in the future.');
  }
  if (loan.disbursedOnDate === null || payment.effectiveDate < loan.disbursedOnDate) {
    throw validationError(
      'effectiveDate',
      payment.effectiveDate,
      loan.disbursedOnDate === null
        ? `Loan ${loan.id} has no funding yet: a payment cannot precede the first disbursement.`
        : `effectiveDate must not be before the loan's first disbursement date ${loan.disbursedOnDate}.`,
    );
  }
}
