/**
 * Request and response schemas of a loan's fundings (docs/lending.md "Lending core": fundings recorded as external;
 * docs/lending.md "Lending core"): `POST /v1/loans/{loanId}/fundings/record-external` and `GET /v1/loans/{loanId}/fundings`.
 * Also the body of a boarded funding line (activities/boarding/line-schemas.ts).
 */
import * as v from 'valibot';
import { isoDate } from '../../validation/dates';
import { limitParam, offsetParam } from '../../validation/fields';
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
import { refField } from '../../validation/refs';

/** `POST /v1/loans/{loanId}/fundings/record-external` body (spec fields plus the optional `fundingDate`). */
export const recordFundingBody = v.pipe(
  v.strictObject({
    amount,
    currency,
    fundingType: v.picklist(['DISBURSEMENT'], 'fundingType must be DISBURSEMENT.'),
    recipientType: v.picklist(['BORROWER'], 'recipientType must be BORROWER.'),
    recipientRef: refField(128),
    externalRecordRef: refField(128),
    reason: guardedText('reason', 500),
    /** ISO date the money moved; default the loan's expected disbursement date. */
    fundingDate: v.optional(isoDate('fundingDate')),
  }),
  v.forward(v.partialCheck([['amount'], ['currency']], fitsCurrency, fitsCurrencyMessage), ['amount']),
);

/** `GET /v1/loans/{loanId}/fundings` query. */
export const listFundingsQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

/** 201 of `POST /v1/loans/{loanId}/fundings/record-external` (also its replay). */
export const recordedFundingResponse = v.object({
  resourceId: v.number(),
  fundingId: v.number(),
  loanId: v.number(),
  status: v.literal('RECORDED_EXTERNAL'),
  amount: decimalText,
  currency: v.string(),
  fundingDate: dateText,
});

/** 200 of `GET /v1/loans/{loanId}/fundings`: newest first. */
export const fundingListResponse = v.object({
  items: v.array(
    v.object({
      fundingId: v.number(),
      loanId: v.number(),
      loanRef: v.string(),
      fundingType: v.string(),
      recipientType: v.string(),
      recipientRef: v.string(),
      status: v.string(),
      amount: decimalText,
      currency: v.string(),
      fundingDate: dateText,
      externalRecordRef: v.string(),
      reason: v.string(),
      createdAt: instantText,
    }),
  ),
});

/** A funding recorded as external, as the operation takes it (the loan and the request context apart). */
export interface ExternalFunding {
  /** Decimal string > 0 with at most the currency's minor-unit digits (`"1000.00"`). */
  amount: string;
  /** ISO 4217 code; must be the loan's. */
  currency: string;
  /** Spec: `DISBURSEMENT`. */
  fundingType: 'DISBURSEMENT';
  /** Spec: `BORROWER`. */
  recipientType: 'BORROWER';
  /** Who received the money (an opaque reference; never an account number). */
  recipientRef: string;
  /** The source system's unique reference of this money movement: unique per tenant for ever. */
  externalRecordRef: string;
  /** Why the money moved (free text; never an identifier or account number). */
  reason: string;
  /** ISO date the money moved; absent/null = the loan's `expectedDisbursementDate`. */
  fundingDate?: string | null;
}

/**
 * The funding of a parsed `POST /v1/loans/{loanId}/fundings/record-external` body (a boarded `funding` line passes
 * its body with `externalRecordRef` defaulted to the line's source reference): no `fundingDate` → null. Shared by
 * the route and boarding.
 */
export function externalFundingOf(body: v.InferOutput<typeof recordFundingBody>): ExternalFunding {
  return {
    amount: body.amount,
    currency: body.currency,
    fundingType: body.fundingType,
    recipientType: body.recipientType,
    recipientRef: body.recipientRef,
    externalRecordRef: body.externalRecordRef,
    reason: body.reason,
    fundingDate: body.fundingDate ?? null,
  };
}
