/**
 * Request and response schemas of loan statements (OpenAPI `GET /v1/loans/{loanId}/statements`;
 * docs/design.md §4 Paging: operational lists take `limit` and `offset` and answer `{items}`; docs/processes.md P6 "Statements").
 * Amounts are decimal strings with the currency's minor-unit digits; dates ISO calendar dates.
 */
import * as v from 'valibot';
import { integerId, limitParam, offsetParam } from '../../validation/fields';
import { dateText, decimalText, instantText } from '../../validation/money';

/** Path `{loanId}/{statementId}`: positive integers. */
export const statementParams = v.strictObject({
  loanId: integerId('loanId'),
  statementId: integerId('statementId'),
});

/** `GET /v1/loans/{loanId}/statements` query: `limit` 1–200 (default 50), `offset` ≥ 0. */
export const listStatementsQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

const transaction = v.object({
  date: dateText,
  type: v.picklist(['DISBURSEMENT', 'PAYMENT']),
  description: v.string(),
  /** `funding/<id>` or `payment/<id>`. */
  reference: v.string(),
  amount: v.pipe(
    v.string(),
    v.description('Decimal string: positive raises the balance, negative lowers it.'),
  ),
});

const figures = v.object({
  currency: v.string(),
  periodStart: dateText,
  periodEnd: dateText,
  dueDate: dateText,
  installmentNumber: v.number(),
  previousBalance: decimalText,
  disbursements: decimalText,
  payments: decimalText,
  otherCredits: decimalText,
  interestCharged: decimalText,
  feesCharged: decimalText,
  newBalance: decimalText,
  pastDue: decimalText,
  currentDue: decimalText,
  amountDue: decimalText,
  annualPercentageRate: v.nullable(
    v.pipe(v.string(), v.description('Percent a year, as disclosed at approval.')),
  ),
  lateFee: v.nullable(decimalText),
  latePaymentWarning: v.string(),
  transactions: v.array(transaction),
});

/** One statement (`GET /v1/loans/{loanId}/statements/{statementId}`, and each item of the list). */
export const statementResponse = v.object({
  statementId: v.number(),
  loanId: v.number(),
  loanRef: v.string(),
  statementDate: dateText,
  periodStart: dateText,
  periodEnd: dateText,
  dueDate: dateText,
  figures,
  createdAt: instantText,
});

/** 200 of `GET /v1/loans/{loanId}/statements`. */
export const statementListResponse = v.object({ items: v.array(statementResponse) });
