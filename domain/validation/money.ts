/**
 * Request and response schemas of a loan's money (spec § Lending core writes: `POST
 * /v1/loans/{loanId}/fundings/record-external`, `POST /v1/loans/{loanId}/payments/record-external`; § Lending core
 * reads: payments, summary, journal entries; § Payment; § Limits paging shapes). Bodies are strict (an unknown
 * field is a 400). Amounts are decimal strings (never JSON numbers) with at most the currency's ISO 4217 minor-unit
 * digits (docs/design.md §5 Currencies: more → 400 on `amount`). `externalRecordRef`, `recipientRef`, `reason` and
 * `rationale` must not carry a government identifier or account number (spec § Boarding rules; domain/
 * sensitive-data.ts); the route never echoes their value in an error.
 */
import * as v from 'valibot';
import { currencyCodes, currencyFor, minorUnitDigits } from '../money';
import { noSensitiveData } from '../sensitive-data';
import { isoDate } from './dates';
import { integerId, limitParam, offsetParam } from './fields';
import { refField } from './refs';

/** Body fields whose value an error must not repeat (they may hold what `noSensitiveData` refuses). */
export const redactedMoneyFields = ['externalRecordRef', 'recipientRef', 'reason', 'rationale'] as const;

const knownCurrency = (code: string): boolean => {
  try {
    currencyFor(code);
    return true;
  } catch {
    return false;
  }
};

export const currency = v.pipe(
  v.string('currency must be a string.'),
  v.check(
    (code) => /^[A-Z]{3}$/.test(code) && knownCurrency(code),
    'currency must be an ISO 4217 currency code (three upper-case letters).',
  ),
  // The OpenAPI document states the rule the check applies: one of the known codes (found by `npm run fuzz`).
  v.metadata({ enum: currencyCodes }),
);

/** JSON Schema pattern of a decimal string > 0 below 10^13: what `amount`'s regex and "greater than zero" accept. */
export const positiveAmountPattern = '^(0\\.[0-9]*[1-9][0-9]*|[1-9][0-9]{0,12}(\\.[0-9]+)?)$';

/** A decimal string > 0 below 10^13 (the range of `numeric(19,6)`); its digits are checked against `currency`. */
export const amount = v.pipe(
  v.string('amount must be a decimal string such as "125.00".'),
  v.regex(
    /^(0|[1-9][0-9]{0,12})(\.[0-9]+)?$/,
    'amount must be a decimal string such as "125.00" (no sign, exponent or separators, below 10000000000000).',
  ),
  v.check((value) => /[1-9]/.test(value), 'amount must be greater than zero.'),
  // The OpenAPI document's pattern holds both rules: the form and "greater than zero" (found by `npm run fuzz`).
  v.metadata({ pattern: positiveAmountPattern }),
);

/** Free text that must not carry identifiers or account numbers; messages never repeat the value. */
export const guardedText = (name: string, max: number) =>
  v.pipe(
    v.string(`${name} must be a string.`),
    v.trim(),
    v.minLength(1, `${name} must not be empty.`),
    v.maxLength(max, `${name} must be at most ${max} characters.`),
    noSensitiveData(),
  );

/**
 * True when `amount` has at most the fraction digits of `currency`. Valibot runs this even when `currency` failed
 * its own checks (those are validations, not type failures), so an unknown currency passes here: it is reported
 * on `currency`.
 */
export const fitsCurrency = (input: { amount: string; currency: string }): boolean =>
  !knownCurrency(input.currency) ||
  (input.amount.split('.')[1]?.length ?? 0) <= minorUnitDigits(input.currency);

export const fitsCurrencyMessage = (issue: { input: unknown }): string => {
  const { currency } = issue.input as { currency: string };
  return `amount has more fraction digits than ${currency} allows (${minorUnitDigits(currency)}).`;
};

/** Path `{loanId}`: a positive integer. */
export const loanIdParam = v.strictObject({ loanId: integerId('loanId') });

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

/** `POST /v1/loans/{loanId}/payments/record-external` body (spec fields; `rationale` optional). */
export const recordPaymentBody = v.pipe(
  v.strictObject({
    amount,
    currency,
    effectiveDate: isoDate('effectiveDate'),
    externalRecordRef: refField(128),
    /** Originating system or actor (a reference, ./refs.ts); `IMPORT` for boarded history. */
    source: refField(64),
    rationale: v.optional(guardedText('rationale', 500)),
  }),
  v.forward(v.partialCheck([['amount'], ['currency']], fitsCurrency, fitsCurrencyMessage), ['amount']),
);

/** Payment statuses (docs/design.md §5 Enumerations not shown). */
export const paymentStatuses = ['CREATED', 'SUBMITTED', 'POSTED', 'FAILED', 'RETURNED', 'CANCELLED'] as const;

/** `GET /v1/loans/{loanId}/fundings` query. */
export const listFundingsQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

/** `GET /v1/loans/{loanId}/payments` query. */
export const listPaymentsQuery = v.strictObject({
  status: v.optional(v.picklist(paymentStatuses, `status must be one of ${paymentStatuses.join(', ')}.`)),
  limit: limitParam,
  offset: offsetParam,
});

/** `GET /v1/journalentries` query. */
export const listJournalEntriesQuery = v.strictObject({
  loanId: v.optional(integerId('loanId')),
  /** A merchant advance's opaque id (`mca_…`): its advance, remittance and reversal lines. */
  advanceId: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'advanceId must be an opaque id such as mca_abc….')),
  ),
  limit: limitParam,
  offset: offsetParam,
});

/** `GET /v1/loans/{loanId}/summary` query: `asOfDate` defaults to today (UTC). */
export const summaryQuery = v.strictObject({ asOfDate: v.optional(isoDate('asOfDate')) });

export const decimalText = v.pipe(v.string(), v.description('Decimal string with the currency digits.'));
export const dateText = v.pipe(v.string(), v.description('ISO calendar date.'));
export const instantText = v.pipe(v.string(), v.description('ISO 8601 instant (UTC).'));

export const allocationAmounts = v.object({
  principal: decimalText,
  interest: decimalText,
  fee: decimalText,
  penalty: decimalText,
  overpayment: decimalText,
});

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

/** 200 of `GET /v1/journalentries`: the counted envelope of the spec's journal-entry list. */
export const journalEntryListResponse = v.object({
  totalFilteredRecords: v.number(),
  pageItems: v.array(
    v.object({
      id: v.number(),
      transactionRef: v.string(),
      accountCode: v.string(),
      entryDate: dateText,
      debit: decimalText,
      credit: decimalText,
      currency: v.string(),
      reversesEntryId: v.nullable(v.number()),
      createdAt: instantText,
    }),
  ),
});

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
});
