/**
 * Request and response schemas of payments recorded as external and of a loan's payment list (docs/lending.md "Lending core": payments recorded as external; docs/lending.md "Lending core": payments): `POST
 * /v1/loans/{loanId}/payments/record-external` and `GET /v1/loans/{loanId}/payments`. Also the body of a boarded
 * payment line (activities/boarding/line-schemas.ts).
 */
import * as v from 'valibot';
import { isoDate } from '../../validation/dates';
import { limitParam, offsetParam } from '../../validation/fields';
import {
  allocationAmounts,
  amount,
  currency,
  dateText,
  decimalText,
  fitsCurrency,
  fitsCurrencyMessage,
  guardedText,
} from '../../validation/money';
import { refField } from '../../validation/refs';

/** `POST /v1/loans/{loanId}/payments/record-external` body (spec fields; `rationale` optional). */
export const recordPaymentBody = v.pipe(
  v.strictObject({
    amount,
    currency,
    effectiveDate: isoDate('effectiveDate'),
    externalRecordRef: refField(128),
    /** Originating system or actor (a reference, domain/validation/refs.ts); `IMPORT` for boarded history. */
    source: refField(64),
    rationale: v.optional(guardedText('rationale', 500)),
  }),
  v.forward(v.partialCheck([['amount'], ['currency']], fitsCurrency, fitsCurrencyMessage), ['amount']),
);

/** Payment statuses (docs/design.md §5 Enumerations not shown). */
export const paymentStatuses = ['CREATED', 'SUBMITTED', 'POSTED', 'FAILED', 'RETURNED', 'CANCELLED'] as const;

/** `GET /v1/loans/{loanId}/payments` query. */
export const listPaymentsQuery = v.strictObject({
  status: v.optional(v.picklist(paymentStatuses, `status must be one of ${paymentStatuses.join(', ')}.`)),
  limit: limitParam,
  offset: offsetParam,
});

/** 201 of `POST /v1/loans/{loanId}/payments/record-external` (also its replay; the allocation as it stands). */
export const recordedPaymentResponse = v.object({
  resourceId: v.number(),
  paymentId: v.number(),
  loanId: v.number(),
  status: v.literal('POSTED'),
  amount: decimalText,
  currency: v.string(),
  effectiveDate: dateText,
  allocation: allocationAmounts,
});

/**
 * 200 of `GET /v1/loans/{loanId}/payments`: intents and payments recorded as external together, newest first: the
 * spec's payment fields plus `rail`, `source`, `instrumentId`, `providerRef`, `returnCode` (docs/processes.md P1) and
 * `allocation`.
 */
export const paymentListResponse = v.object({
  items: v.array(
    v.object({
      paymentId: v.number(),
      loanRef: v.string(),
      status: v.picklist(paymentStatuses),
      amount: decimalText,
      currency: v.string(),
      effectiveDate: dateText,
      rail: v.nullable(v.string()),
      source: v.string(),
      instrumentId: v.nullable(v.number()),
      providerRef: v.nullable(v.string()),
      returnCode: v.nullable(v.string()),
      allocation: v.nullable(allocationAmounts),
    }),
  ),
});

/** A payment recorded as external, as the operations take it (the loan and the request context apart). */
export interface ExternalPayment {
  /** Decimal string > 0 with at most the currency's minor-unit digits (`"105.00"`). */
  amount: string;
  /** ISO 4217 code; must be the loan's. */
  currency: string;
  /** ISO date the payment is value-dated to; not before the loan's first funding date, not in the future. */
  effectiveDate: string;
  /** The source system's unique reference of this payment: unique per tenant for ever. */
  externalRecordRef: string;
  /** Originating system or actor; `IMPORT` for boarded history. */
  source: string;
  /** Why it is recorded as external (free text; never an identifier or account number). */
  rationale?: string | null;
}

/**
 * The payment of a parsed `POST /v1/loans/{loanId}/payments/record-external` body (a boarded `payment` line passes
 * its body with `externalRecordRef` defaulted to the line's source reference): no `rationale` → null. Shared by the
 * route and boarding.
 */
export function externalPaymentOf(body: v.InferOutput<typeof recordPaymentBody>): ExternalPayment {
  return {
    amount: body.amount,
    currency: body.currency,
    effectiveDate: body.effectiveDate,
    externalRecordRef: body.externalRecordRef,
    source: body.source,
    rationale: body.rationale ?? null,
  };
}
