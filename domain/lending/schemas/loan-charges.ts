/**
 * Input and response schemas of a loan's charges (Apache Fineract `LoanChargesApiResource`:
 * `POST /v1/loans/{loanId}/charges`, `GET …/charges`, `GET …/charges/{loanChargeId}`,
 * `POST …/charges/{loanChargeId}?command=waive`). Bodies and queries are strict: unknown fields are refused
 * (Shape A 400 naming them). Dates are sent as ISO or per `dateFormat` (read by the operation); amounts as decimal
 * strings or JSON numbers.
 */
import * as v from 'valibot';
import { integerId } from '../../validation/fields';
import { refField } from '../../validation/refs';
import { dateText, fineractHints } from './loans';
import { decimal, id } from './products';

/** Path `{loanId}/charges/{loanChargeId}`. */
export const loanChargeParams = v.strictObject({
  loanId: integerId('loanId'),
  loanChargeId: integerId('loanChargeId'),
});

/** Body of `POST /v1/loans/{loanId}/charges` (Fineract's names). */
export const addLoanChargeBody = v.strictObject({
  /** The charge definition: specified due date (2), flat, active, in the loan's currency. */
  chargeId: id,
  /** Overrides the definition's amount (money in the loan's currency). */
  amount: v.nullish(decimal),
  dueDate: dateText,
  externalId: v.nullish(refField(100)),
  ...fineractHints,
});

/**
 * Optional body of `POST /v1/loans/{loanId}/charges/{loanChargeId}?command=waive`: `transactionDate`, the business
 * date the waiver is made on (ISO or per `dateFormat`; absent = today in the tenant's time zone). Fineract dates a
 * specified-due-date charge's waiver that day, or the charge's due date when that is earlier
 * (`LoanChargeWritePlatformServiceImpl.waiveLoanCharge`).
 */
export const waiveLoanChargeBody = v.strictObject({
  transactionDate: v.nullish(dateText),
  ...fineractHints,
});

/** Query of `POST /v1/loans/{loanId}/charges/{loanChargeId}`: `command=waive` (the only command here). */
export const loanChargeCommandQuery = v.strictObject({
  command: v.picklist(['waive'], 'must be waive.'),
});

// Responses (for the OpenAPI document).
const decimalString = v.pipe(v.string(), v.description('decimal string with the currency digits'));
export const addedLoanChargeResponse = v.object({
  resourceId: v.pipe(v.number(), v.description('the loan charge id (loanChargeId)')),
  loanId: v.number(),
});
export const waivedLoanChargeResponse = v.object({
  resourceId: v.number(),
  loanId: v.number(),
  changes: v.object({ amountWaived: decimalString }),
});
export const loanChargeResponse = v.object({
  id: v.number(),
  loanId: v.number(),
  chargeId: v.number(),
  name: v.string(),
  chargeTimeType: v.object({ id: v.number(), code: v.string(), value: v.string() }),
  dueDate: v.pipe(v.string(), v.description('ISO date')),
  amount: decimalString,
  amountPaid: decimalString,
  amountWaived: decimalString,
  amountOutstanding: decimalString,
  penalty: v.boolean(),
  paid: v.boolean(),
  waived: v.boolean(),
  currency: v.string(),
  externalId: v.nullable(v.string()),
});
export const loanChargeListResponse = v.array(loanChargeResponse);
