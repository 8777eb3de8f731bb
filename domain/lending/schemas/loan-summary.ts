/**
 * Query and response schemas of `GET /v1/loans/{loanId}/summary` (docs/lending.md "Lending core": summary).
 */
import * as v from 'valibot';
import { isoDate } from '../../validation/dates';
import { dateText, decimalText, instantText } from '../../validation/money';
import { delinquentResponse, storedDelinquencyRange } from './delinquency';

/** `GET /v1/loans/{loanId}/summary` query: `asOfDate` defaults to today (UTC). */
export const summaryQuery = v.strictObject({ asOfDate: v.optional(isoDate('asOfDate')) });

const componentAmounts = {
  principal: decimalText,
  interest: decimalText,
  fee: decimalText,
  penalty: decimalText,
  total: decimalText,
};

/** 200 of `GET /v1/loans/{loanId}/summary` (db/queries/lending/ledger.ts `LoanSummaryView`). */
export const loanSummaryResponse = v.object({
  loanId: v.number(),
  loanRef: v.string(),
  status: v.object({ id: v.number(), code: v.string(), value: v.string() }),
  currency: v.string(),
  asOfDate: dateText,
  balances: v.object({
    principalOutstanding: decimalText,
    interestOutstanding: decimalText,
    feeOutstanding: decimalText,
    penaltyOutstanding: decimalText,
    totalOutstanding: decimalText,
    overpayment: decimalText,
  }),
  overdue: v.object({
    ...componentAmounts,
    oldestOverdueDueDate: v.nullable(dateText),
    daysPastDue: v.number(),
  }),
  payoff: v.object({
    asOfDate: dateText,
    ...componentAmounts,
    currentInstallmentNumber: v.nullable(v.number()),
    currentPeriodInterest: decimalText,
  }),
  paymentsInFlight: v.pipe(
    v.object({ count: v.number(), amount: decimalText }),
    v.description(
      'Payment intents submitted or waiting to be, not yet settled (CREATED, SUBMITTED): not in the balances above; reserved against the total outstanding when a new intent is created.',
    ),
  ),
  aprDisclosure: v.nullable(v.record(v.string(), v.unknown())),
  activeRestrictions: v.array(
    v.object({
      restrictionId: v.number(),
      restrictionType: v.string(),
      loanId: v.nullable(v.number()),
      reason: v.string(),
      effectiveAt: instantText,
      expiresAt: v.nullable(instantText),
    }),
  ),
  delinquent: delinquentResponse,
  delinquencyRange: storedDelinquencyRange,
  lastClosedBusinessDate: v.pipe(
    v.nullable(dateText),
    v.description('The last day a close-of-business run closed for the loan; null before the first run.'),
  ),
  chargedOff: v.boolean(),
  chargedOffOnDate: v.nullable(dateText),
});
