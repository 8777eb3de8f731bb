/**
 * Request and response schemas of loans (OpenAPI `POST /v1/loans`, `POST /v1/loans?command=
 * calculateLoanSchedule`, `POST /v1/loans/{loanId}?command=approve`, `POST /v1/loans/{loanId}/parties`; `GET /v1/loans`, `GET /v1/loans/{loanId}?associations=…`; OpenAPI `GET /v1/loans`).
 * Field names and integer codes are Apache Fineract's (amounts and rates as decimal strings or JSON numbers, dates
 * as strings that domain/lending/loan-terms/dates.ts reads as ISO or per `dateFormat`); bodies and queries are strict
 * (any other field or parameter → 400). The rules that need the product, the borrower or the charges are checked
 * by the operations, also as Shape A 400s naming the parameter. `externalId` and `transactionProcessingStrategyCode`
 * are strict references, `locale` and `dateFormat` strict settings (./refs.ts); dates as text and `note` refuse a
 * government identifier or account number (domain/sensitive-data.ts), the value withheld from the error (the
 * operations check `externalId` and `note` again).
 */
import * as v from 'valibot';
import { findSensitiveData, noSensitiveData, sensitiveDataMessage } from '../../sensitive-data';
import { loanDatesInRange } from '../../validation/dates';
import { integerId, limitParam, offsetParam } from '../../validation/fields';
import { dateText as isoDateText } from '../../validation/money';
import { dateFormatField, localeField, refField } from '../../validation/refs';
import { maxChars, minChars } from '../../validation/text-length';
import { loanOrderByFields } from '../loan-list';
import { loanPartyRoles } from '../loan-parties';
import { delinquentResponse, storedDelinquencyRange } from './delinquency';
import { code, decimal, id, integer } from './products';

/**
 * A date as sent: ISO `YYYY-MM-DD`, or a date in the body's `dateFormat` (read by the operation); the body's
 * schema bounds it to 1900-01-01..2199-12-31 (./dates.ts `loanDatesInRange`).
 */
export const dateText = v.pipe(
  v.string('must be a date string (YYYY-MM-DD, or in dateFormat).'),
  ...minChars(1, 'must not be empty.'),
  ...maxChars(40, 'must be at most 40 characters.'),
  // A plain date shape (`9999-12-31`, `05/01/2026`) is left to the range check; any other text must not carry an
  // identifier or account number (domain/sensitive-data.ts reads an out-of-range date as a digit run).
  v.check(
    (date) => /^[0-9]{1,4}[-/.][0-9]{1,2}[-/.][0-9]{1,4}$/.test(date) || findSensitiveData(date) === null,
    (issue) => sensitiveDataMessage(findSensitiveData(String(issue.input)) ?? 'LONG_DIGIT_RUN'),
  ),
);

/** Formatting hints Fineract clients send with every write (see domain/lending/loan-terms/dates.ts). */
export const fineractHints = {
  locale: v.nullish(localeField),
  dateFormat: v.nullish(dateFormatField),
};

const periodCode = code([0, 1, 2, 3] as const, '0 days, 1 weeks, 2 months, 3 years');

/** Path `{loanId}`: a positive integer. */
export const loanIdParam = v.strictObject({ loanId: integerId('loanId') });

/** Query of `POST /v1/loans`: no `command` creates the loan; `calculateLoanSchedule` previews it. */
export const loansCommandQuery = v.strictObject({
  command: v.optional(
    v.picklist(['calculateLoanSchedule'], 'must be calculateLoanSchedule, or absent to create the loan.'),
  ),
});

/** Query of `POST /v1/loans/{loanId}`: `command=approve` (the only command here). */
export const loanCommandQuery = v.strictObject({
  command: v.picklist(['approve'], 'must be approve.'),
});

/** One charge of an application. */
export const loanChargeBody = v.strictObject({
  chargeId: id,
  /** Overrides the definition's amount (flat money, or the percent). */
  amount: v.nullish(decimal),
  /** Required for a specified-due-date charge. */
  dueDate: v.nullish(dateText),
});

/** The loan-creation body (docs/lending.md "Lending core", "Loan creation body fields", plus Fineract's graces). */
export const createLoanBody = v.pipe(
  v.strictObject({
    clientId: id,
    productId: id,
    loanType: v.picklist(['individual'], 'must be individual.'),
    principal: decimal,
    loanTermFrequency: integer(1, 10_000_000),
    loanTermFrequencyType: periodCode,
    numberOfRepayments: integer(1, 10_000),
    repaymentEvery: integer(1, 1_000),
    repaymentFrequencyType: periodCode,
    interestRatePerPeriod: decimal,
    interestType: code([0, 1] as const, '0 declining balance, 1 flat'),
    interestCalculationPeriodType: code([0, 1] as const, '0 daily, 1 same as repayment period'),
    amortizationType: code([0, 1] as const, '0 equal principal, 1 equal installments'),
    transactionProcessingStrategyCode: refField(100),
    expectedDisbursementDate: dateText,
    submittedOnDate: dateText,
    repaymentsStartingFromDate: v.nullish(dateText),
    graceOnPrincipalPayment: v.nullish(integer(0, 10_000)),
    graceOnInterestPayment: v.nullish(integer(0, 10_000)),
    allowPartialPeriodInterestCalcualtion: v.nullish(v.boolean()),
    /** The source system's key: a strict reference (./refs.ts), never an identifier or account number. */
    externalId: v.nullish(refField(100)),
    charges: v.nullish(v.pipe(v.array(loanChargeBody), v.maxLength(50, 'at most 50 charges.'))),
    ...fineractHints,
  }),
  loanDatesInRange({
    fields: ['expectedDisbursementDate', 'submittedOnDate', 'repaymentsStartingFromDate'],
    items: { charges: ['dueDate'] },
  }),
);

/** `POST /v1/loans/{loanId}?command=approve` body. */
export const approveLoanBody = v.pipe(
  v.strictObject({
    approvedOnDate: dateText,
    approvedLoanAmount: decimal,
    expectedDisbursementDate: v.nullish(dateText),
    /** Free text: refused when it holds an identifier or account number (the value never echoed). */
    note: v.nullish(
      v.pipe(
        v.string('must be a string.'),
        v.trim(),
        ...maxChars(1000, 'must be at most 1000 characters.'),
        noSensitiveData(),
      ),
    ),
    ...fineractHints,
  }),
  loanDatesInRange({ fields: ['approvedOnDate', 'expectedDisbursementDate'] }),
);

/** `POST /v1/loans/{loanId}/parties` body. */
export const addLoanPartyBody = v.strictObject({
  customerId: id,
  role: v.picklist(loanPartyRoles, `must be one of ${loanPartyRoles.join(', ')}.`),
});

/** `GET /v1/loans` query: offset ≥ 0 (0), limit 1–200 (50), orderBy (id), sortOrder ASC|DESC (ASC, any case). */
export const listLoansQuery = v.strictObject({
  offset: offsetParam,
  limit: limitParam,
  orderBy: v.optional(v.picklist(loanOrderByFields, `must be one of ${loanOrderByFields.join(', ')}.`), 'id'),
  sortOrder: v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => s.toUpperCase()),
      v.check((s) => s === 'ASC' || s === 'DESC', 'must be ASC or DESC.'),
      v.transform((s) => s as 'ASC' | 'DESC'),
    ),
    'ASC',
  ),
});

const associationNames = ['repaymentSchedule', 'transactions', 'all'] as const;

/**
 * `GET /v1/loans/{loanId}` query: `associations`, a comma list of `repaymentSchedule`, `transactions` (or
 * Fineract's `all`); anything else → 400.
 */
export const readLoanQuery = v.strictObject({
  associations: v.optional(
    v.pipe(
      v.string(),
      ...maxChars(100, 'must be at most 100 characters.'),
      v.transform((s) => s.split(',').map((part) => part.trim())),
      v.check(
        (parts) => parts.every((part) => (associationNames as readonly string[]).includes(part)),
        'must be a comma-separated list of repaymentSchedule, transactions (or all).',
      ),
      v.transform((parts) => ({
        repaymentSchedule: parts.includes('repaymentSchedule') || parts.includes('all'),
        transactions: parts.includes('transactions') || parts.includes('all'),
      })),
    ),
  ),
});

// Responses (for the OpenAPI document).
const decimalString = v.pipe(v.string(), v.description('decimal string with the currency digits'));
const statusResponse = v.object({ id: v.number(), code: v.string(), value: v.string() });
const currencyResponse = v.object({
  code: v.string(),
  digitsAfterDecimal: v.number(),
  inMultiplesOf: v.number(),
});

export const createdLoanResponse = v.object({
  loanId: v.number(),
  resourceId: v.number(),
  clientId: v.number(),
  accountNo: v.string(),
  status: v.object({ code: v.literal('loanStatusType.submitted.and.pending.approval'), value: v.string() }),
});

const disclosureResponse = v.pipe(
  v.record(v.string(), v.unknown()),
  v.description(
    'Regulation Z §1026.18 disclosure: annualPercentageRate, financeCharge, amountFinanced, totalOfPayments, paymentSchedule, itemization, prepayment, latePayment, toleranceCheck (+ finalizedAt once frozen)',
  ),
);

export const schedulePreviewResponse = v.object({
  currency: currencyResponse,
  loanTermInDays: v.number(),
  totalPrincipalExpected: decimalString,
  totalInterestCharged: decimalString,
  totalFeeChargesCharged: decimalString,
  totalPenaltyChargesCharged: decimalString,
  totalRepaymentExpected: decimalString,
  totalPaidInAdvance: decimalString,
  totalPaidLate: decimalString,
  totalOutstanding: decimalString,
  periods: v.array(v.record(v.string(), v.unknown())),
  aprDisclosure: v.optional(v.nullable(disclosureResponse)),
  aprDisclosureUnavailable: v.optional(
    v.object({ code: v.string(), reason: v.string(), developerMessage: v.string() }),
  ),
});

export const approvedLoanResponse = v.object({
  loanId: v.number(),
  resourceId: v.number(),
  clientId: v.number(),
  changes: v.object({
    status: v.object({ code: v.literal('loanStatusType.approved'), value: v.literal('Approved') }),
    approvedOnDate: v.string(),
    approvedLoanAmount: decimalString,
    expectedDisbursementDate: v.string(),
  }),
});

export const loanListResponse = v.object({
  totalFilteredRecords: v.number(),
  pageItems: v.array(
    v.object({ id: v.number(), accountNo: v.string(), clientId: v.number(), status: statusResponse }),
  ),
});

const nullableMoney = v.nullable(decimalString);

/** One of `transactions` of `GET /v1/loans/{loanId}` (db/queries/lending/loans.ts `LoanTransactionView`). */
export const loanTransactionResponse = v.object({
  id: v.number(),
  transactionRef: v.string(),
  type: v.object({ id: v.number(), code: v.string(), value: v.string() }),
  date: v.string(),
  currency: v.string(),
  amount: decimalString,
  principalPortion: v.pipe(
    nullableMoney,
    v.description('zero for a disbursement (Fineract); null if unallocated'),
  ),
  interestPortion: nullableMoney,
  feeChargesPortion: nullableMoney,
  penaltyChargesPortion: nullableMoney,
  overpaymentPortion: nullableMoney,
  outstandingLoanBalance: v.pipe(
    nullableMoney,
    v.description('outstanding principal after this transaction (Fineract outstandingLoanBalance)'),
  ),
  externalId: v.nullable(v.string()),
});

export const loanResponse = v.object({
  id: v.number(),
  accountNo: v.string(),
  clientId: v.number(),
  productId: v.number(),
  loanType: v.string(),
  status: statusResponse,
  currency: currencyResponse,
  principal: decimalString,
  approvedPrincipal: v.nullable(decimalString),
  transactionProcessingStrategyCode: v.string(),
  terms: v.record(v.string(), v.unknown()),
  timeline: v.object({
    submittedOnDate: v.string(),
    expectedDisbursementDate: v.string(),
    approvedOnDate: v.nullable(v.string()),
    actualDisbursementDate: v.nullable(v.string()),
  }),
  approvedBy: v.nullable(v.string()),
  externalId: v.nullable(v.string()),
  aprDisclosure: v.nullable(disclosureResponse),
  chargedOff: v.pipe(v.boolean(), v.description('true while a charge-off is in force (Fineract chargedOff)')),
  chargedOffOnDate: v.pipe(v.nullable(v.string()), v.description('ISO date of the charge-off in force')),
  parties: v.array(v.object({ partyId: v.number(), customerId: v.number(), role: v.string() })),
  delinquent: delinquentResponse,
  delinquencyRange: storedDelinquencyRange,
  lastClosedBusinessDate: v.pipe(
    v.nullable(isoDateText),
    v.description('The last day a close-of-business run closed for the loan; null before the first run.'),
  ),
  repaymentSchedule: v.optional(
    v.pipe(
      v.record(v.string(), v.unknown()),
      v.description(
        'currency, totals and periods: the disbursement row, then per installment due, paid, waived (by a payoff) and ' +
          'outstanding amounts, totalPaidInAdvanceForPeriod (paid before the due date) and totalPaidLateForPeriod (paid after it); ' +
          'their sums totalPaidInAdvance and totalPaidLate',
      ),
    ),
  ),
  transactions: v.optional(v.array(loanTransactionResponse)),
});

export const createdPartyResponse = v.object({ resourceId: v.number(), partyId: v.number() });
