/**
 * Request and response schemas of payment intents (OpenAPI `POST
 * /v1/loans/{loanId}/payments`: body fields all required; docs/design.md §5 rails and statuses; docs/processes.md P1 routes,
 * response fields and sandbox simulations). Bodies are strict (an unknown field is a 400); amounts are decimal
 * strings with at most the currency's digits.
 */
import * as v from 'valibot';
import { isoDate } from '../../validation/dates';
import { integerId } from '../../validation/fields';
import {
  amount,
  currency,
  dateText,
  decimalText,
  fitsCurrency,
  fitsCurrencyMessage,
  guardedText,
  instantText,
} from '../../validation/money';
import { paymentRails, settlementResolutions } from '../payment-intent';
import { paymentStatuses } from './recorded-payments';

/** Path `{loanId}/payments/{paymentId}`. */
export const loanPaymentParams = v.strictObject({
  loanId: integerId('loanId'),
  paymentId: integerId('paymentId'),
});

/** Path `{paymentId}` of the sandbox simulations. */
export const paymentIdParam = v.strictObject({ paymentId: integerId('paymentId') });

/** `POST /v1/loans/{loanId}/payments` body: the spec's fields, all required. */
export const createPaymentBody = v.pipe(
  v.strictObject({
    instrumentId: v.pipe(
      v.number('instrumentId must be an integer.'),
      v.integer('instrumentId must be an integer.'),
      v.minValue(1, 'instrumentId must be at least 1.'),
      v.maxValue(Number.MAX_SAFE_INTEGER, 'instrumentId is too large.'),
    ),
    amount,
    currency,
    rail: v.picklist(paymentRails, `rail must be one of ${paymentRails.join(', ')}.`),
    effectiveDate: isoDate('effectiveDate'),
    /** Originating system or actor. */
    source: guardedText('source', 64),
  }),
  v.forward(v.partialCheck([['amount'], ['currency']], fitsCurrency, fitsCurrencyMessage), ['amount']),
);

/** `POST /v1/loans/{loanId}/payments/{paymentId}/cancel` body (optional). */
export const cancelPaymentBody = v.strictObject({ reason: v.optional(guardedText('reason', 500)) });

/** `POST /v1/sandbox/payments/{paymentId}/settle` body: optional `amount` to simulate a different settlement. */
export const simulateSettleBody = v.strictObject({ amount: v.optional(amount) });

/** `POST /v1/sandbox/payments/{paymentId}/return` body. */
export const simulateReturnBody = v.strictObject({
  returnCode: v.pipe(
    v.string('returnCode must be a string.'),
    v.regex(/^[A-Z][0-9A-Z]{1,3}$/, 'returnCode must be a return code such as R01.'),
  ),
});

/** `POST /v1/sandbox/payments/{paymentId}/fail` body. */
/** Free text: never a government identifier or account number (the value withheld from the error). */
export const simulateFailBody = v.strictObject({ reason: guardedText('reason', 200) });

/** Body of `POST /v1/recon-exceptions/{exceptionId}/resolve` resolutions that move a payment. */
export const settlementResolution = v.picklist(settlementResolutions);

const paymentFields = {
  paymentId: v.number(),
  resourceId: v.number(),
  loanId: v.number(),
  loanRef: v.string(),
  instrumentId: v.nullable(v.number()),
  amount: decimalText,
  currency: v.string(),
  rail: v.nullable(v.picklist(paymentRails)),
  effectiveDate: dateText,
  source: v.string(),
  status: v.picklist(paymentStatuses),
  providerRef: v.nullable(v.string()),
  returnCode: v.nullable(v.string()),
  createdAt: instantText,
};

/** 201 of `POST /v1/loans/{loanId}/payments` (docs/processes.md P1) and 200 of cancel and the simulations. */
export const paymentIntentResponse = v.object(paymentFields);

/** 200 of `GET /v1/loans/{loanId}/payments/{paymentId}`: the payment with its status history, oldest first. */
export const paymentDetailResponse = v.object({
  ...paymentFields,
  history: v.array(
    v.object({
      status: v.picklist(paymentStatuses),
      at: instantText,
      detail: v.record(v.string(), v.unknown()),
    }),
  ),
});
