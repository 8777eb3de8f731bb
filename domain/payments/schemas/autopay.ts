/**
 * Request and response schemas of autopay (docs/processes.md P1 Autopay: `POST /v1/loans/{loanId}/autopay`
 * `{instrumentId, authorizationRef, rail, amountType, fixedAmount?, daysBeforeDue}`; docs/lending.md "Autopay"
 * "Autopay enrollment carries authorizationRef"). Bodies are strict (an unknown field is a 400). `fixedAmount` is a
 * decimal string; its digits are checked against the loan's currency by the operation (400 naming `fixedAmount`).
 */
import * as v from 'valibot';
import { amount, dateText, decimalText, instantText } from '../../validation/money';
import { refField } from '../../validation/refs';
import { autopayAmountTypes, autopayStatuses, maxDaysBeforeDue, minDaysBeforeDue } from '../autopay';
import { paymentRails } from '../payment-intent';

const daysMessage = `daysBeforeDue must be an integer from ${minDaysBeforeDue} to ${maxDaysBeforeDue}.`;

/** `POST /v1/loans/{loanId}/autopay` body: `fixedAmount` required iff `amountType` is FIXED. */
export const enrolAutopayBody = v.pipe(
  v.strictObject({
    instrumentId: v.pipe(
      v.number('instrumentId must be an integer.'),
      v.integer('instrumentId must be an integer.'),
      v.minValue(1, 'instrumentId must be at least 1.'),
      v.maxValue(Number.MAX_SAFE_INTEGER, 'instrumentId is too large.'),
    ),
    /** The borrower's recurring-debit authorization reference (never an identifier or account number). */
    authorizationRef: refField(128),
    rail: v.picklist(paymentRails, `rail must be one of ${paymentRails.join(', ')}.`),
    amountType: v.picklist(autopayAmountTypes, `amountType must be one of ${autopayAmountTypes.join(', ')}.`),
    fixedAmount: v.optional(v.nullable(amount)),
    /** Calendar days before each due date on which the intent is created. */
    daysBeforeDue: v.pipe(
      v.number(daysMessage),
      v.integer(daysMessage),
      v.minValue(minDaysBeforeDue, daysMessage),
      v.maxValue(maxDaysBeforeDue, daysMessage),
    ),
  }),
  v.forward(
    v.partialCheck(
      [['amountType'], ['fixedAmount']],
      (input) =>
        (input.amountType === 'FIXED') === (input.fixedAmount !== undefined && input.fixedAmount !== null),
      'fixedAmount is required when amountType is FIXED and not allowed otherwise.',
    ),
    ['fixedAmount'],
  ),
);

/** `POST /v1/loans/{loanId}/autopay/cancel` body: none (an empty object or no body). */
export const cancelAutopayBody = v.strictObject({});

/** An enrolment (201 of enrol, 200 of read and cancel). */
export const autopayEnrolmentResponse = v.object({
  enrolmentId: v.number(),
  resourceId: v.number(),
  loanId: v.number(),
  loanRef: v.string(),
  instrumentId: v.number(),
  authorizationRef: v.string(),
  rail: v.picklist(paymentRails),
  amountType: v.picklist(autopayAmountTypes),
  fixedAmount: v.nullable(decimalText),
  currency: v.string(),
  daysBeforeDue: v.number(),
  status: v.picklist(autopayStatuses),
  enrolledAt: instantText,
  enrolledOn: dateText,
  cancelledAt: v.nullable(instantText),
});
