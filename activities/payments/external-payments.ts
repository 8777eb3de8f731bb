/**
 * The one rule set of a payment recorded as external (`POST /v1/loans/{loanId}/payments/record-external`), used by
 * the route's operation (record-external-payment.ts) and by boarding's payment history
 * (record-external-payment-history.ts), so that a rule changed here changes both: the checks of the payment's own
 * fields, its content digest, the rules a new payment must meet on its loan, the row it is stored as, the replay of
 * an earlier payment under the same `externalRecordRef`, the result and the `payment.posted` event.
 */
import { and, eq } from 'drizzle-orm';
import type { LoanForMoney } from '../../db/queries/lending/loans';
import { payments } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
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
import { assertIsoDate, contentDigestOf, moneyOfInput } from '../lending/loan-money';
import type { OutboxEventInput } from '../platform/outbox';

/** The payment as recorded (also the answer to a replay). */
export interface RecordExternalPaymentResult {
  paymentId: number;
  loanId: number;
  /** The loan's `accountNo` (the OpenAPI document's `loanRef`). */
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

export type PaymentRow = typeof payments.$inferSelect;

/** A payment's fields checked on their own, before its loan is read (`checkPaymentFields`). */
export interface CheckedPayment {
  /** The amount in minor units and as the canonical decimal string with the currency's digits. */
  money: { minor: bigint; text: string };
}

/**
 * Checks a payment's own fields: an `externalRecordRef` or `rationale` that looks like an identifier or account
 * number (400 `validation.msg.validation.errors.exist`, not echoed), a malformed, over-precise or non-positive
 * amount or an unknown currency (400, loan-money.ts `moneyOfInput`), a malformed `effectiveDate` (400). Returns the
 * amount at the currency's digits.
 */
export function checkPaymentFields(payment: ExternalPayment): CheckedPayment {
  assertNoSensitiveData('externalRecordRef', payment.externalRecordRef);
  assertNoSensitiveData('rationale', payment.rationale);
  const money = moneyOfInput(payment.amount, payment.currency);
  assertIsoDate('effectiveDate', payment.effectiveDate);
  return { money };
}

/**
 * The content digest of a payment on loan `loanId` (SHA-256 of the canonical `{kind: 'payment', loanId, amount,
 * currency, effectiveDate, source, rationale}`, the amount at the currency's digits): a reused `externalRecordRef`
 * with the same digest is a replay, with another one a conflict (`replayOf`).
 */
export function paymentContentDigestOf(
  loanId: number,
  payment: ExternalPayment,
  checked: CheckedPayment,
): string {
  return contentDigestOf({
    kind: 'payment',
    loanId,
    amount: checked.money.text,
    currency: payment.currency,
    effectiveDate: payment.effectiveDate,
    source: payment.source,
    rationale: payment.rationale ?? null,
  });
}

/**
 * The rules a NEW payment must meet on its loan (`loan` as locked, `now` the operation's clock reading):
 * 409 `error.msg.loan.invalid.state.transition` unless the loan is ACTIVE; 400
 * `validation.msg.payment.currency.mismatch` when `currency` is not the loan's; 400
 * `validation.msg.validation.errors.exist` naming `effectiveDate` when it is in the future (after today anywhere on
 * earth, domain/customers/customer.ts `latestDateInForce`) or before the loan's first disbursement date (or the
 * loan has none). A replay is answered before these rules (`replayOf`).
 */
export function assertNewPaymentRules(
  loan: Pick<LoanForMoney, 'id' | 'status' | 'currencyCode' | 'disbursedOnDate'>,
  payment: Pick<ExternalPayment, 'currency' | 'effectiveDate'>,
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

/**
 * The `payments` row of a new payment: POSTED, on `loanId` of `tenantId`, with its `contentDigest`, the actor
 * (null: none) and `now` as its creation instant. Inserted `ON CONFLICT (tenant_id, external_record_ref) DO
 * NOTHING` by both operations (a ref committed meanwhile by a call on another loan is then read back and replayed).
 */
export function newPaymentRowOf(
  tenantId: string,
  loanId: number,
  payment: ExternalPayment,
  checked: CheckedPayment,
  contentDigest: string,
  actor: string | null,
  now: Date,
): typeof payments.$inferInsert & { externalRecordRef: string } {
  return {
    tenantId,
    loanId,
    amount: checked.money.text,
    currencyCode: payment.currency,
    effectiveDate: payment.effectiveDate,
    status: 'POSTED',
    source: payment.source,
    rationale: payment.rationale ?? null,
    externalRecordRef: payment.externalRecordRef,
    contentDigest,
    actorUsername: actor,
    createdAt: now,
  };
}

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

/**
 * The earlier payment under the same ref: its current state (`created: false`) when its content digest and loan
 * match, else 409 `error.msg.external.record.ref.conflict`.
 */
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
