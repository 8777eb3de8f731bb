/**
 * Request and response schemas of a loan's fundings (spec § Lending core writes: fundings recorded as external;
 * § Lending core reads): `POST /v1/loans/{loanId}/fundings/record-external` and `GET /v1/loans/{loanId}/fundings`.
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
