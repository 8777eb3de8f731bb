import { and, eq } from 'drizzle-orm';
import { type LoanForMoney, lockLoanForMoney } from '../../db/queries/lending/loans';
import { payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { latestDateInForce } from '../../domain/customers/customer';
import { DomainError, fieldError, validationError } from '../../domain/errors';
import type { PaymentAllocationPayload } from '../../domain/lending/allocation/payload';
import {
  allocationAmountsOf,
  minorOf,
  type PaymentAllocationAmounts,
} from '../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import type { ExternalPayment } from '../../domain/payments/schemas/recorded-payments';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { type OutboxEventInput, writeOutboxEvent } from '../platform/outbox';
import { assertIsoDate, contentDigestOf, moneyOfInput } from './loan-money';
import { repostLoan } from './repost-loan';

/** A payment recorded as external: the loan, the request context and the payment's fields (`ExternalPayment`). */
export interface RecordExternalPaymentInput extends OperationContext, ExternalPayment {
  loanId: number;
}

/** The payment as recorded (also the answer to a replay). */
export interface RecordExternalPaymentResult {
  paymentId: number;
  loanId: number;
  /** The loan's `accountNo` (spec `loanRef`). */
  loanRef: string;
  status: 'POSTED';
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
  /** ISO date. */
  effectiveDate: string;
  /** Its current allocation (a later back-dated payment can change it; the ledger follows). */
  allocation: PaymentAllocationAmounts;
  /** True when this call recorded it, false for a replay of an earlier call. */
  created: boolean;
}

/**
 * Records a payment received outside the system and posts it to the ledger (spec § States: external payment
 * `POST loans/{loanId}/payments/record-external` — "unique externalRecordRef → posted to the ledger; allocation
 * performed by the ledger, value-dated to effectiveDate"; § Lending core writes; § Events: `payment.posted`).
 *
 * One transaction: locks the loan (db/queries/lending/loans.ts `lockLoanForMoney`), replays or rejects a reused `externalRecordRef`, checks the
 * rules, inserts the payment as POSTED and re-runs the allocation of all the loan's money events by its strategy
 * (repost-loan.ts): a back-dated payment re-allocates every later payment, so installments, allocations and the
 * journal equal what posting them in date order would have given (corrections are reversing entries). A payment
 * that covers the payoff amount on its `effectiveDate` (the summary's payoff quote for that date,
 * domain/lending/allocation/payoff.ts payoff rule) pays the loan off: it is allocated by the strategy first (the payoff amount
 * settles the principal, any more pays later interest, fees and penalties in advance), and only what is still
 * unpaid of them is then waived. The loan becomes CLOSED_OBLIGATIONS_MET when every installment is met (paid or waived), OVERPAID with an
 * overpayment. Writes the outbox event `payment.posted` (data `{paymentId, loanRef, status, amount, currency,
 * effectiveDate}`, the spec's payment, subject `payment`/`<paymentId>`). A PAYMENT_HOLD does not block it (docs/design.md §5 Holds: it blocks payment
 * intents and autopay, not record-external).
 *
 * Idempotent by `externalRecordRef` (unique per tenant, for ever): the same content (SHA-256 of the canonical
 * `{loanId, amount, currency, effectiveDate, source, rationale}`, the amount at the currency's digits) returns the
 * recorded payment with its current allocation and `created: false`, whatever the loan's state is by then.
 * A retry under the same request key is such a replay too (the API's Idempotency-Key middleware answers it first).
 *
 * Errors: 400 `validation.msg.validation.errors.exist` for a malformed or over-precise amount, an unknown
 * currency, a malformed `effectiveDate`, one in the future (after today anywhere on earth) or before the loan's
 * first funding date, and an `externalRecordRef` or `rationale` that looks like an identifier or account number
 * (not echoed); 400 `validation.msg.payment.currency.mismatch` when `currency` is not the loan's; 404 when the
 * tenant has no such loan; 409 `error.msg.external.record.ref.conflict` for a reused `externalRecordRef` with other
 * content; 409 `error.msg.loan.invalid.state.transition` unless the loan is ACTIVE.
 */
export function recordExternalPayment(deps: Deps) {
  return async (input: RecordExternalPaymentInput): Promise<RecordExternalPaymentResult> => {
    assertNoSensitiveData('externalRecordRef', input.externalRecordRef);
    assertNoSensitiveData('rationale', input.rationale);
    const money = moneyOfInput(input.amount, input.currency);
    assertIsoDate('effectiveDate', input.effectiveDate);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const now = deps.clock();
      const contentDigest = contentDigestOf({
        kind: 'payment',
        loanId: loan.id,
        amount: money.text,
        currency: input.currency,
        effectiveDate: input.effectiveDate,
        source: input.source,
        rationale: input.rationale ?? null,
      });
      const earlier = await paymentOfRef(tx, input.tenantId, input.externalRecordRef);
      if (earlier) return replayOf(earlier, contentDigest, loan);

      if (loan.status !== 'ACTIVE') {
        throw new DomainError(
          'error.msg.loan.invalid.state.transition',
          `Loan ${loan.id} is ${loan.status}: payments can be recorded on an ACTIVE loan only.`,
        );
      }
      if (input.currency !== loan.currencyCode) {
        const message = `currency ${input.currency} differs from the loan's currency ${loan.currencyCode}.`;
        throw new DomainError('validation.msg.payment.currency.mismatch', message, {
          errors: [
            fieldError('currency', input.currency, message, 'validation.msg.payment.currency.mismatch'),
          ],
        });
      }
      if (input.effectiveDate > latestDateInForce(now)) {
        throw validationError(
          'effectiveDate',
          input.effectiveDate,
          'effectiveDate must not be in the future.',
        );
      }
      if (loan.disbursedOnDate === null || input.effectiveDate < loan.disbursedOnDate) {
        throw validationError(
          'effectiveDate',
          input.effectiveDate,
          loan.disbursedOnDate === null
            ? `Loan ${loan.id} has no funding yet: a payment cannot precede the first disbursement.`
            : `effectiveDate must not be before the loan's first disbursement date ${loan.disbursedOnDate}.`,
        );
      }

      const [created] = await tx
        .insert(payments)
        .values({
          tenantId: input.tenantId,
          loanId: loan.id,
          amount: money.text,
          currencyCode: input.currency,
          effectiveDate: input.effectiveDate,
          status: 'POSTED',
          source: input.source,
          rationale: input.rationale ?? null,
          externalRecordRef: input.externalRecordRef,
          contentDigest,
          actorUsername: input.actor ?? null,
          createdAt: now,
        })
        .onConflictDoNothing({ target: [payments.tenantId, payments.externalRecordRef] })
        .returning();
      if (!created) {
        // The same ref committed meanwhile by a call on another loan (this loan's lock excludes this one's).
        const winner = await paymentOfRef(tx, input.tenantId, input.externalRecordRef);
        if (!winner) throw new Error('payment vanished after an externalRecordRef conflict');
        return replayOf(winner, contentDigest, loan);
      }
      const repost = await repostLoan(tx, { tenantId: input.tenantId, loan, now });
      const allocation = repost.allocations.get(created.id);
      if (!allocation) throw new Error(`payment ${created.id} was not allocated`);
      const result = resultOf({ ...created, allocation: { ...allocation } }, loan, true);
      await writeOutboxEvent(tx, paymentPostedEventOf(input.tenantId, result, now));
      return result;
    });
  };
}

export type PaymentRow = typeof payments.$inferSelect;

/** The tenant's payment recorded under `externalRecordRef`, if any (in the caller's transaction). */
export async function paymentOfRef(
  tx: Tx,
  tenantId: string,
  externalRecordRef: string,
): Promise<PaymentRow | undefined> {
  const [row] = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.tenantId, tenantId), eq(payments.externalRecordRef, externalRecordRef)));
  return row;
}

/** The earlier payment under the same ref: its current state when the content matches, else 409. */
export function replayOf(
  row: PaymentRow,
  contentDigest: string,
  loan: LoanForMoney,
): RecordExternalPaymentResult {
  if (row.contentDigest !== contentDigest || row.loanId !== loan.id) {
    throw new DomainError(
      'error.msg.external.record.ref.conflict',
      'This externalRecordRef was already used for a payment with other content.',
    );
  }
  return resultOf(row, loan, false);
}

/**
 * The `payment.posted` event of a recorded payment (domain/events.ts catalogue), deduplicated by
 * `payment/<id>/posted`; `now` is the operation's clock reading.
 */
export function paymentPostedEventOf(
  tenantId: string,
  result: RecordExternalPaymentResult,
  now: Date,
): OutboxEventInput<'payment.posted'> {
  return {
    tenantId,
    eventType: 'payment.posted',
    subjectId: result.paymentId,
    data: {
      paymentId: result.paymentId,
      loanRef: result.loanRef,
      status: result.status,
      amount: result.amount,
      currency: result.currency,
      effectiveDate: result.effectiveDate,
    },
    occurredAt: now,
    dedupeKey: `payment/${result.paymentId}/posted`,
  };
}

/** The payment as an operation result (`created` tells a new recording from a replay). */
export function resultOf(row: PaymentRow, loan: LoanForMoney, created: boolean): RecordExternalPaymentResult {
  return {
    paymentId: row.id,
    loanId: row.loanId,
    loanRef: loan.accountNo,
    status: 'POSTED',
    amount: formatMinor(minorOf(row.amount, row.currencyCode), minorUnitDigits(row.currencyCode)),
    currency: row.currencyCode,
    effectiveDate: row.effectiveDate,
    allocation: allocationAmountsOf(
      row.allocation as Partial<PaymentAllocationPayload> | null,
      row.currencyCode,
    ),
    created,
  };
}
