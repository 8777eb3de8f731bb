/**
 * Response and query schemas of a loan's delinquency (docs/lending.md "Delinquency"; Apache Fineract's names): the
 * `delinquent` object and `delinquencyRange` of `GET /v1/loans/{loanId}` and of the loan summary, and
 * `GET /v1/loans/{loanId}/delinquency-history`.
 */
import * as v from 'valibot';
import { limitParam } from '../../validation/fields';
import { dateText, decimalText } from '../../validation/money';
import { maxChars } from '../../validation/text-length';

/** A range of a delinquency bucket (Fineract `DelinquencyRangeData`); ages in days. */
export const delinquencyRangeResponse = v.object({
  id: v.number(),
  classification: v.string(),
  minimumAgeDays: v.number(),
  maximumAgeDays: v.nullable(v.number()),
});

/** `delinquent` (domain/lending/delinquency.ts `DelinquentView`, Fineract `CollectionData`). */
export const delinquentResponse = v.pipe(
  v.object({
    pastDueDays: v.number(),
    delinquentDays: v.number(),
    delinquentDate: v.nullable(dateText),
    delinquentAmount: decimalText,
    delinquentPrincipal: decimalText,
    delinquentInterest: decimalText,
    delinquentFee: decimalText,
    delinquentPenalty: decimalText,
    nextPaymentDueDate: v.nullable(dateText),
    lastPaymentDate: v.nullable(dateText),
    lastPaymentAmount: decimalText,
    installmentLevelDelinquency: v.array(
      v.object({
        rangeId: v.number(),
        classification: v.string(),
        minimumAgeDays: v.number(),
        maximumAgeDays: v.nullable(v.number()),
        delinquentAmount: decimalText,
      }),
    ),
    delinquencyPausePeriods: v.array(
      v.object({ active: v.boolean(), pausePeriodStart: dateText, pausePeriodEnd: dateText }),
    ),
  }),
  v.description(
    "Derived when read, as of the date the read is for (Apache Fineract's CollectionData): pastDueDays = days from the due date of the oldest installment not fully paid and due before that date (an installment due on the date is not overdue); delinquentDate = that due date + the product's graceOnArrearsAgeing; delinquentDays = pastDueDays − grace − paused days, at least 0; delinquentAmount and its parts = what the overdue installments still owe; nextPaymentDueDate = the due date of the earliest installment not fully paid; lastPayment* = the last posted payment value-dated on or before the date (amount 0 when none); installmentLevelDelinquency (products with enableInstallmentLevelDelinquency, while delinquentDays > 0) = the overdue installments aged by their own days less paused days, summed per range of the bucket; delinquencyPausePeriods by start, active when start ≤ date ≤ end. Zero for loans not active.",
  ),
);

/** The stored classification (`delinquencyRange`): the range a close-of-business run last set, null when none. */
export const storedDelinquencyRange = v.pipe(
  v.nullable(delinquencyRangeResponse),
  v.description(
    'The classification stored by the close of business (not recomputed by the read): null before the first run and while NO_DELINQUENCY.',
  ),
);

/** `GET /v1/loans/{loanId}/delinquency-history` query: `limit` 1–200 (default 50), opaque `cursor`. */
export const delinquencyHistoryQuery = v.strictObject({
  limit: limitParam,
  cursor: v.optional(v.pipe(v.string(), ...maxChars(1024, 'must be at most 1024 characters.'))),
});

/** One stored change of classification. */
export const delinquencyHistoryItem = v.object({
  businessDate: dateText,
  classification: v.string(),
  previousClassification: v.string(),
  delinquentDays: v.number(),
  delinquentAmount: decimalText,
  collectionsCaseId: v.nullable(v.number()),
  collectionsSuppressedBy: v.nullable(v.string()),
});

/** 200 of `GET /v1/loans/{loanId}/delinquency-history`. */
export const delinquencyHistoryResponse = v.object({
  items: v.array(delinquencyHistoryItem),
  nextCursor: v.nullable(v.string()),
});
