/**
 * A loan application (spec § Lending core writes: `POST /v1/loans` and `POST /v1/loans?command=
 * calculateLoanSchedule`, "same body as loan creation") checked against its product and turned into
 * the terms the loan keeps and the `ScheduleInput` of domain/lending/schedule.ts; the approval's amounts and dates; and
 * the Regulation Z disclosure inputs of a loan (docs/design.md §5 APR). Pure: no clock (callers pass the latest
 * acceptable date), no I/O (callers pass the product and the tenant's charge definitions).
 *
 * Rules (Apache Fineract `LoanApplicationValidator` / `LoanScheduleValidator`, commit 4198b0bc, and docs/design.md §5
 * codes):
 * - `loanTermFrequencyType` must equal `repaymentFrequencyType`
 *   (`validation.msg.loan.loanTermFrequencyType.not.the.same.as.repaymentFrequencyType`), and
 *   `loanTermFrequency` must equal `numberOfRepayments × repaymentEvery` (`…loanTermFrequency.less.than.
 *   repayment.structure.suggests` / `…greater.than…`);
 * - `principal` > 0 with at most the product currency's digits (a multiple of `inMultiplesOf` for a currency
 *   without fraction digits), `numberOfRepayments` and `interestRatePerPeriod` within the product's min/max
 *   (`validation.msg.loan.<field>.is.not.within.min.max.range`); graces shorter than `numberOfRepayments`;
 * - the loan is in the product's currency (there is no currency field: Fineract takes it from the product);
 * - `charges[i]`: any active loan charge definition of the tenant in the loan currency, attached to the product
 *   or not (Fineract `LoanChargeAssembler.fromParsedJson` loads the charge by id; product charges are only the
 *   template a client copies). `amount` overrides the definition's (flat: money in the loan currency;
 *   percentage: the percent), `dueDate` is required for (and only for) a specified-due-date charge and not
 *   before the disbursement. When `charges` is absent the loan has no charges, as in Fineract;
 * - `expectedDisbursementDate` ≥ `submittedOnDate`; `submittedOnDate` not in the future; a
 *   `repaymentsStartingFromDate` after the disbursement.
 *
 * What a loan may set itself and what it takes from its product (decided here; Fineract's default, where every
 * "configurable attribute" of a product may be overridden, except where noted):
 * - the loan's own: principal, numberOfRepayments, repaymentEvery, repaymentFrequencyType,
 *   interestRatePerPeriod, interestType, amortizationType, interestCalculationPeriodType, the two graces
 *   (absent = 0, as in Fineract's application), `allowPartialPeriodInterestCalcualtion` (absent = the product's),
 *   `repaymentsStartingFromDate`;
 * - the product's: currency and its `inMultiplesOf`, `installmentAmountInMultiplesOf`,
 *   `interestRateFrequencyType`, `daysInYearType`, `daysInMonthType` (Fineract's loan body has none of them);
 * - `transactionProcessingStrategyCode` must equal the product's: the product's `paymentAllocation` rules belong
 *   to its strategy, and Fineract itself refuses to mix the advanced strategy with another one between product
 *   and loan, so accepting a different code would give the loan an allocation nobody configured;
 * - a product with statements (`lmsConfig.statementEnabled`) keeps its lead time shorter than the loan's
 *   repayment period (docs/design.md §5 Statements), so a loan may not shorten the period below it.
 *
 * Dates: ISO `YYYY-MM-DD` always. Fineract clients send `dateFormat` and `locale` with every write; a date that is
 * not ISO is read with `dateFormat` (Java `DateTimeFormatter` letters `d`, `dd`, `M`, `MM`, `MMM`, `MMMM`,
 * `yyyy` and the separators space, `-`, `/`, `.`, e.g. Fineract's usual `"dd MMMM yyyy"`), month names in English
 * only (`locale` absent or `en…`). Field errors name the parameter (`principal`, `charges[0].amount`).
 */

import { isIsoDate } from '../calendar';
import { type FieldError, fieldError } from '../errors';
import { formatMinor, parseDecimalToMinor } from '../money';
import { compareDecimalText, decimalShape, isZeroDecimalText, moneyDigits, rateDigits } from './decimal-text';
import {
  type AprDisclosure,
  type AprRounding,
  type AprTolerancePolicy,
  buildAprDisclosure,
  DisclosureUnavailableError,
  type DisclosureUnavailableReason,
  type PrepaidFinanceCharge,
  repaymentFrequencyOf,
} from './disclosure';
import {
  amortizationTypes,
  type ConfigurationStatus,
  decimalRule,
  type Fail,
  interestCalculationPeriodTypes,
  interestTypes,
  type LmsConfig,
  minimumRepaymentPeriodDays,
  productLimits,
  repaymentFrequencyTypes,
} from './products';
import {
  type AmortizationType,
  type ChargeCalculationType,
  type ChargeTimeType,
  type DaysInMonthType,
  type DaysInYearType,
  generateSchedule,
  type InterestCalculationPeriodType,
  type InterestRateFrequencyType,
  type InterestType,
  type PeriodFrequencyType,
  type Schedule,
  type ScheduleCharge,
  type ScheduleInput,
} from './schedule';

// ---- inputs ---------------------------------------------------------------------------------------------------

/** One charge of an application: a tenant charge definition by id, optionally with its own amount and due date. */
export interface LoanChargeInput {
  chargeId: number;
  /** Decimal string > 0: flat money in the loan currency, or the percent of a percentage charge; absent = the definition's. */
  amount?: string | null;
  /** Date of a specified-due-date charge (ISO, or per `dateFormat`); required for those, refused for others. */
  dueDate?: string | null;
}

/** The loan-creation body (spec § Lending core writes, "Loan creation body fields", plus Fineract's graces). */
export interface LoanApplication {
  clientId: number;
  productId: number;
  /** Fineract `loanType`; only `individual` loans exist here. */
  loanType: string;
  /** Decimal string > 0 in the product currency. */
  principal: string;
  /** Term in `loanTermFrequencyType` units; must be `numberOfRepayments × repaymentEvery`. */
  loanTermFrequency: number;
  /** 0 days, 1 weeks, 2 months, 3 years; must equal `repaymentFrequencyType`. */
  loanTermFrequencyType: number;
  numberOfRepayments: number;
  repaymentEvery: number;
  /** 0 days, 1 weeks, 2 months, 3 years. */
  repaymentFrequencyType: number;
  /** Nominal rate in percent per the product's `interestRateFrequencyType`, decimal string ≥ 0. */
  interestRatePerPeriod: string;
  /** 0 declining balance, 1 flat. */
  interestType: number;
  /** 0 daily, 1 same as repayment period. */
  interestCalculationPeriodType: number;
  /** 0 equal principal, 1 equal installments. */
  amortizationType: number;
  transactionProcessingStrategyCode: string;
  /** ISO date (or per `dateFormat`). */
  expectedDisbursementDate: string;
  /** ISO date (or per `dateFormat`). */
  submittedOnDate: string;
  /** First due date (ISO or per `dateFormat`), after the disbursement; absent = one period after it. */
  repaymentsStartingFromDate?: string | null;
  /** Installments without principal at the start; absent = 0. */
  graceOnPrincipalPayment?: number | null;
  /** Installments without interest due at the start; absent = 0. */
  graceOnInterestPayment?: number | null;
  /** Absent = the product's. */
  allowPartialPeriodInterestCalcualtion?: boolean | null;
  /** Source-system key; unique per tenant (checked by the operation). */
  externalId?: string | null;
  /** Java date pattern of non-ISO dates (see the module note). */
  dateFormat?: string | null;
  /** Locale of month names: absent or `en…`. */
  locale?: string | null;
  charges?: LoanChargeInput[] | null;
}

/** What the terms need of a product (a structural subset of db/queries/lending/products.ts `ProductForLoan`). */
export interface LoanProductForTerms {
  productId: number;
  configurationStatus: ConfigurationStatus;
  lmsConfig: LmsConfig;
  terms: Omit<ScheduleInput, 'expectedDisbursementDate' | 'repaymentsStartingFromDate' | 'charges'> & {
    currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
    installmentAmountInMultiplesOf?: number | null;
  };
  /** Null = unbounded. Money with the currency's digits, rates in percent. */
  bounds: {
    minPrincipal: string | null;
    maxPrincipal: string | null;
    minNumberOfRepayments: number | null;
    maxNumberOfRepayments: number | null;
    minInterestRatePerPeriod: string | null;
    maxInterestRatePerPeriod: string | null;
  };
  transactionProcessingStrategyCode: string;
}

/** A charge definition of the tenant, as db/queries reads it (`ProductChargeForLoan` fits). */
export interface LoanChargeDefinition {
  chargeId: number;
  name: string;
  currencyCode: string;
  active: boolean;
  chargeTimeType: ChargeTimeType;
  chargeCalculationType: ChargeCalculationType;
  /** Flat: money with the currency's digits; percentage: the percent. */
  amount: string;
  penalty: boolean;
}

// ---- outputs --------------------------------------------------------------------------------------------------

/** A charge of a loan as the loan keeps it. */
export interface LoanCharge {
  chargeId: number;
  /** The definition's name (shown in the disclosure's itemization). */
  name: string;
  chargeTimeType: ChargeTimeType;
  chargeCalculationType: ChargeCalculationType;
  /** Flat: money with the loan currency's digits; percentage: the percent as given. */
  amount: string;
  penalty: boolean;
  /** ISO date of a specified-due-date charge, else null. */
  dueDate: string | null;
}

/**
 * The terms a loan keeps (`loans.terms`, version 1): everything its schedule is built from except the principal
 * and the disbursement date, which are columns of the loan (`scheduleInputOf` puts them together).
 */
export interface LoanTerms {
  version: 1;
  loanType: 'individual';
  loanTermFrequency: number;
  loanTermFrequencyType: PeriodFrequencyType;
  numberOfRepayments: number;
  repaymentEvery: number;
  repaymentFrequencyType: PeriodFrequencyType;
  /** Decimal string, percent per `interestRateFrequencyType`. */
  interestRatePerPeriod: string;
  interestRateFrequencyType: InterestRateFrequencyType;
  interestType: InterestType;
  amortizationType: AmortizationType;
  interestCalculationPeriodType: InterestCalculationPeriodType;
  allowPartialPeriodInterestCalcualtion: boolean;
  daysInYearType: DaysInYearType;
  daysInMonthType: DaysInMonthType;
  graceOnPrincipalPayment: number;
  graceOnInterestPayment: number;
  /** ISO date or null. */
  repaymentsStartingFromDate: string | null;
  installmentAmountInMultiplesOf: number | null;
  currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
  transactionProcessingStrategyCode: string;
  charges: LoanCharge[];
}

/** An accepted application: the loan's columns, its terms and the schedule they give. */
export interface ResolvedLoanApplication {
  clientId: number;
  productId: number;
  /** Decimal string with the currency's digits. */
  principal: string;
  /** ISO dates. */
  submittedOnDate: string;
  expectedDisbursementDate: string;
  externalId: string | null;
  terms: LoanTerms;
  schedule: Schedule;
}

export type Resolution<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

// ---- dates ----------------------------------------------------------------------------------------------------

/**
 * The latest calendar date anywhere at instant `now`: the date at UTC+14 (Line Islands), ISO. "Not in the
 * future" checks compare with it, so no tenant's today is refused whatever its time zone.
 */
export function latestCalendarDate(now: Date): string {
  return new Date(now.getTime() + 14 * 3_600_000).toISOString().slice(0, 10);
}

const englishMonths = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/**
 * `text` as an ISO date: ISO as is; otherwise read with the Java pattern `dateFormat` (see the module note).
 * Returns null when it cannot be read (malformed, not a calendar date, an unsupported pattern, or month names
 * with a non-English `locale`).
 */
export function parseLoanDate(
  text: string,
  dateFormat?: string | null,
  locale?: string | null,
): string | null {
  if (isIsoDate(text)) return text;
  if (!dateFormat) return null;
  const fields: ('d' | 'M' | 'MMM' | 'MMMM' | 'y')[] = [];
  let pattern = '';
  for (const token of dateFormat.match(/d{1,2}|M{1,4}|y{4}|[ \-/.,]|./g) ?? []) {
    if (/^d{1,2}$/.test(token)) {
      pattern += token.length === 2 ? '(\\d{2})' : '(\\d{1,2})';
      fields.push('d');
    } else if (token === 'M' || token === 'MM') {
      pattern += token.length === 2 ? '(\\d{2})' : '(\\d{1,2})';
      fields.push('M');
    } else if (token === 'MMM' || token === 'MMMM') {
      pattern += '([A-Za-z]{3,9})';
      fields.push(token);
    } else if (token === 'yyyy') {
      pattern += '(\\d{4})';
      fields.push('y');
    } else if (/^[ \-/.,]$/.test(token)) {
      pattern += `\\${token}`;
    } else {
      return null;
    }
  }
  const match = new RegExp(`^${pattern}$`).exec(text.trim());
  if (!match) return null;
  let year = Number.NaN;
  let month = Number.NaN;
  let day = Number.NaN;
  for (const [index, field] of fields.entries()) {
    const part = match[index + 1] ?? '';
    if (field === 'd') day = Number(part);
    else if (field === 'M') month = Number(part);
    else if (field === 'y') year = Number(part);
    else {
      if (locale && !/^en([-_]|$)/i.test(locale)) return null;
      const name = part.toLowerCase();
      const found = englishMonths.findIndex((m) => (field === 'MMMM' ? m === name : m.slice(0, 3) === name));
      if (found < 0) return null;
      month = found + 1;
    }
  }
  const iso = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return isIsoDate(iso) ? iso : null;
}

// ---- the application ------------------------------------------------------------------------------------------

function collector(errors: FieldError[]): Fail {
  return (parameterName, value, message, rule) =>
    errors.push(
      fieldError(
        parameterName,
        value,
        message,
        `validation.msg.loan.${parameterName.replace(/\[\d+\]/g, '')}.${rule}`,
      ),
    );
}

/** Minor units of a money text at `digits`, or null (with a field error) when it is not acceptable. */
function moneyOf(
  value: string,
  name: string,
  digits: number,
  fail: Fail,
  options: { positive: boolean },
): bigint | null {
  const limits = { positive: options.positive, ...moneyDigits, currencyDigits: digits };
  return decimalRule(value, name, limits, fail) ? parseDecimalToMinor(value, digits) : null;
}

function inRange<T>(
  name: string,
  value: T,
  min: T | null,
  max: T | null,
  compare: (a: T, b: T) => number,
  fail: Fail,
): void {
  if ((min !== null && compare(value, min) < 0) || (max !== null && compare(value, max) > 0)) {
    fail(
      name,
      value,
      `${name} must be between ${min === null ? 'no minimum' : String(min)} and ${max === null ? 'no maximum' : String(max)} (the product's bounds).`,
      'is.not.within.min.max.range',
    );
  }
}

function integerOk(value: unknown, name: string, min: number, max: number, fail: Fail): value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(name, value, `${name} must be an integer from ${min} to ${max}.`, 'out.of.range');
    return false;
  }
  return true;
}

function codeOk<T extends number>(
  value: unknown,
  name: string,
  allowed: readonly T[],
  meaning: string,
  fail: Fail,
): value is T {
  if (!allowed.includes(value as T)) {
    fail(name, value, `${name} must be one of: ${meaning}.`, 'is.not.one.of.expected.enumerations');
    return false;
  }
  return true;
}

/**
 * Checks `application` against `product` and the tenant's `chargeDefinitions` (those of the ids the application
 * names that exist; a missing id is reported) and, when every rule holds, returns the loan's columns, terms and
 * schedule. `latestDate` (ISO) is the latest acceptable `submittedOnDate` (`latestCalendarDate(now)`). Every
 * broken rule is reported, each as a field error naming its parameter (module note).
 */
export function resolveLoanApplication(
  application: LoanApplication,
  product: LoanProductForTerms,
  chargeDefinitions: ReadonlyMap<number, LoanChargeDefinition>,
  latestDate: string,
): Resolution<ResolvedLoanApplication> {
  const errors: FieldError[] = [];
  const fail = collector(errors);
  const { currency } = product.terms;
  const digits = currency.digitsAfterDecimal;
  const { dateFormat, locale } = application;

  const date = (value: string | null | undefined, name: string): string | null => {
    if (value === null || value === undefined) return null;
    const iso = parseLoanDate(value, dateFormat, locale);
    if (iso === null) {
      fail(
        name,
        value,
        `${name} must be an ISO date (YYYY-MM-DD) or a date in dateFormat ${dateFormat ? JSON.stringify(dateFormat) : '(none given)'} with English month names.`,
        'invalid.date.format',
      );
    }
    return iso;
  };

  if (application.loanType !== 'individual') {
    fail(
      'loanType',
      application.loanType,
      'loanType must be "individual".',
      'is.not.one.of.expected.enumerations',
    );
  }

  // term structure
  const n = application.numberOfRepayments;
  const every = application.repaymentEvery;
  const nOk = integerOk(n, 'numberOfRepayments', 1, productLimits.numberOfRepayments, fail);
  const everyOk = integerOk(every, 'repaymentEvery', 1, productLimits.repaymentEvery, fail);
  const frequencyOk = codeOk(
    application.repaymentFrequencyType,
    'repaymentFrequencyType',
    repaymentFrequencyTypes,
    '0 days, 1 weeks, 2 months, 3 years',
    fail,
  );
  const termTypeOk = codeOk(
    application.loanTermFrequencyType,
    'loanTermFrequencyType',
    repaymentFrequencyTypes,
    '0 days, 1 weeks, 2 months, 3 years',
    fail,
  );
  const termOk = integerOk(
    application.loanTermFrequency,
    'loanTermFrequency',
    1,
    productLimits.numberOfRepayments * productLimits.repaymentEvery,
    fail,
  );
  if (termTypeOk && frequencyOk && application.loanTermFrequencyType !== application.repaymentFrequencyType) {
    fail(
      'loanTermFrequencyType',
      application.loanTermFrequencyType,
      'The parameters loanTermFrequencyType and repaymentFrequencyType must be the same.',
      'not.the.same.as.repaymentFrequencyType',
    );
  } else if (termOk && nOk && everyOk && application.loanTermFrequency !== n * every) {
    const shorter = application.loanTermFrequency < n * every;
    fail(
      'loanTermFrequency',
      application.loanTermFrequency,
      `loanTermFrequency (${application.loanTermFrequency}) must equal numberOfRepayments × repaymentEvery (${n * every}).`,
      shorter ? 'less.than.repayment.structure.suggests' : 'greater.than.repayment.structure.suggests',
    );
  }
  if (nOk) {
    inRange(
      'numberOfRepayments',
      n,
      product.bounds.minNumberOfRepayments,
      product.bounds.maxNumberOfRepayments,
      (a, b) => a - b,
      fail,
    );
  }

  // codes the loan sets itself
  const interestTypeOk = codeOk(
    application.interestType,
    'interestType',
    interestTypes,
    '0 declining balance, 1 flat',
    fail,
  );
  const amortizationOk = codeOk(
    application.amortizationType,
    'amortizationType',
    amortizationTypes,
    '0 equal principal, 1 equal installments',
    fail,
  );
  const calculationOk = codeOk(
    application.interestCalculationPeriodType,
    'interestCalculationPeriodType',
    interestCalculationPeriodTypes,
    '0 daily, 1 same as repayment period',
    fail,
  );
  if (application.transactionProcessingStrategyCode !== product.transactionProcessingStrategyCode) {
    fail(
      'transactionProcessingStrategyCode',
      application.transactionProcessingStrategyCode,
      `transactionProcessingStrategyCode must be the product's (${product.transactionProcessingStrategyCode}).`,
      'not.equal.to.product',
    );
  }
  const lms = product.lmsConfig;
  if (lms.statementEnabled && nOk && everyOk && frequencyOk) {
    const periodDays = minimumRepaymentPeriodDays(every, application.repaymentFrequencyType);
    if (lms.statementLeadDays >= periodDays) {
      fail(
        'repaymentEvery',
        every,
        `The repayment period (${periodDays} days at the shortest) must be longer than the product's statement lead time (${lms.statementLeadDays} days).`,
        'shorter.than.statement.lead.days',
      );
    }
  }

  // graces
  const graces: Record<'graceOnPrincipalPayment' | 'graceOnInterestPayment', number> = {
    graceOnPrincipalPayment: 0,
    graceOnInterestPayment: 0,
  };
  for (const name of ['graceOnPrincipalPayment', 'graceOnInterestPayment'] as const) {
    const grace = application[name] ?? 0;
    if (!integerOk(grace, name, 0, productLimits.numberOfRepayments, fail)) continue;
    graces[name] = grace;
    if (nOk && grace >= n) {
      fail(
        name,
        grace,
        `${name} must be less than numberOfRepayments (${n}).`,
        'mustBeLessThan.numberOfRepayments',
      );
    }
  }

  // principal and rate
  const principalMinor = moneyOf(application.principal, 'principal', digits, fail, { positive: true });
  if (principalMinor !== null) {
    inRange(
      'principal',
      application.principal,
      product.bounds.minPrincipal,
      product.bounds.maxPrincipal,
      compareDecimalText,
      fail,
    );
    if (
      digits === 0 &&
      currency.inMultiplesOf > 0 &&
      principalMinor % BigInt(currency.inMultiplesOf) !== 0n
    ) {
      fail(
        'principal',
        application.principal,
        `principal must be a multiple of ${currency.inMultiplesOf} (the currency's inMultiplesOf).`,
        'not.in.multiples',
      );
    }
  }
  const rate = application.interestRatePerPeriod;
  const rateShape = decimalShape(rate);
  if (
    !rateShape ||
    rateShape.integerDigits > rateDigits.integer ||
    rateShape.fractionDigits > rateDigits.fraction
  ) {
    fail(
      'interestRatePerPeriod',
      rate,
      `interestRatePerPeriod must be a non-negative decimal with at most ${rateDigits.fraction} fraction digits.`,
      'invalid.decimal',
    );
  } else {
    inRange(
      'interestRatePerPeriod',
      rate,
      product.bounds.minInterestRatePerPeriod,
      product.bounds.maxInterestRatePerPeriod,
      compareDecimalText,
      fail,
    );
  }

  // dates
  const submittedOnDate = date(application.submittedOnDate, 'submittedOnDate');
  const expectedDisbursementDate = date(application.expectedDisbursementDate, 'expectedDisbursementDate');
  const repaymentsStartingFromDate = date(
    application.repaymentsStartingFromDate,
    'repaymentsStartingFromDate',
  );
  if (submittedOnDate !== null && submittedOnDate > latestDate) {
    fail(
      'submittedOnDate',
      application.submittedOnDate,
      'submittedOnDate cannot be in the future.',
      'cannot.be.a.future.date',
    );
  }
  if (
    submittedOnDate !== null &&
    expectedDisbursementDate !== null &&
    expectedDisbursementDate < submittedOnDate
  ) {
    fail(
      'expectedDisbursementDate',
      application.expectedDisbursementDate,
      `expectedDisbursementDate must not be before submittedOnDate (${submittedOnDate}).`,
      'cannot.be.before.submittedOnDate',
    );
  }
  if (
    expectedDisbursementDate !== null &&
    repaymentsStartingFromDate !== null &&
    repaymentsStartingFromDate <= expectedDisbursementDate
  ) {
    fail(
      'repaymentsStartingFromDate',
      application.repaymentsStartingFromDate,
      `repaymentsStartingFromDate must be after expectedDisbursementDate (${expectedDisbursementDate}).`,
      'cannot.be.before.expected.disbursement.date',
    );
  }

  // charges
  const charges: LoanCharge[] = [];
  for (const [index, input] of (application.charges ?? []).entries()) {
    const at = `charges[${index}]`;
    const definition = chargeDefinitions.get(input.chargeId);
    if (!definition) {
      fail(`${at}.chargeId`, input.chargeId, `Charge ${input.chargeId} was not found.`, 'not.found');
      continue;
    }
    if (!definition.active) {
      fail(`${at}.chargeId`, input.chargeId, `Charge ${input.chargeId} is not active.`, 'inactive');
      continue;
    }
    if (definition.currencyCode !== currency.code) {
      fail(
        `${at}.chargeId`,
        input.chargeId,
        `Charge ${input.chargeId} is in ${definition.currencyCode}; the loan is in ${currency.code}.`,
        'currency.mismatch',
      );
      continue;
    }
    const flat = definition.chargeCalculationType === 1;
    let amount = definition.amount;
    if (input.amount !== null && input.amount !== undefined) {
      if (flat) {
        const minor = moneyOf(input.amount, `${at}.amount`, digits, fail, { positive: true });
        if (minor === null) continue;
        amount = formatMinor(minor, digits);
      } else {
        const shape = decimalShape(input.amount);
        if (!shape || isZeroDecimalText(input.amount) || shape.fractionDigits > moneyDigits.fraction) {
          fail(
            `${at}.amount`,
            input.amount,
            `${at}.amount (a percentage) must be greater than zero with at most ${moneyDigits.fraction} fraction digits.`,
            'invalid.decimal',
          );
          continue;
        }
        amount = input.amount;
      }
    }
    let dueDate: string | null = null;
    if (definition.chargeTimeType === 2) {
      if (input.dueDate === null || input.dueDate === undefined) {
        fail(
          `${at}.dueDate`,
          null,
          `${at}.dueDate is required for a specified-due-date charge.`,
          'cannot.be.blank',
        );
        continue;
      }
      dueDate = date(input.dueDate, `${at}.dueDate`);
      if (dueDate === null) continue;
      if (expectedDisbursementDate !== null && dueDate < expectedDisbursementDate) {
        fail(
          `${at}.dueDate`,
          input.dueDate,
          `${at}.dueDate must not be before expectedDisbursementDate (${expectedDisbursementDate}).`,
          'cannot.be.before.expected.disbursement.date',
        );
        continue;
      }
    } else if (input.dueDate !== null && input.dueDate !== undefined) {
      fail(
        `${at}.dueDate`,
        input.dueDate,
        `${at}.dueDate is only for specified-due-date charges (chargeTimeType 2).`,
        'not.allowed',
      );
      continue;
    }
    charges.push({
      chargeId: definition.chargeId,
      name: definition.name,
      chargeTimeType: definition.chargeTimeType,
      chargeCalculationType: definition.chargeCalculationType,
      amount,
      penalty: definition.penalty,
      dueDate,
    });
  }

  if (
    errors.length > 0 ||
    principalMinor === null ||
    submittedOnDate === null ||
    expectedDisbursementDate === null ||
    !frequencyOk ||
    !interestTypeOk ||
    !amortizationOk ||
    !calculationOk
  ) {
    return { ok: false, errors };
  }

  const terms: LoanTerms = {
    version: 1,
    loanType: 'individual',
    loanTermFrequency: application.loanTermFrequency,
    loanTermFrequencyType: application.loanTermFrequencyType as PeriodFrequencyType,
    numberOfRepayments: n,
    repaymentEvery: every,
    repaymentFrequencyType: application.repaymentFrequencyType as PeriodFrequencyType,
    interestRatePerPeriod: rate,
    interestRateFrequencyType: product.terms.interestRateFrequencyType,
    interestType: application.interestType as InterestType,
    amortizationType: application.amortizationType as AmortizationType,
    interestCalculationPeriodType: application.interestCalculationPeriodType as InterestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion:
      application.allowPartialPeriodInterestCalcualtion ??
      product.terms.allowPartialPeriodInterestCalcualtion,
    daysInYearType: product.terms.daysInYearType,
    daysInMonthType: product.terms.daysInMonthType,
    graceOnPrincipalPayment: graces.graceOnPrincipalPayment,
    graceOnInterestPayment: graces.graceOnInterestPayment,
    repaymentsStartingFromDate,
    installmentAmountInMultiplesOf: product.terms.installmentAmountInMultiplesOf ?? null,
    currency: {
      code: currency.code,
      digitsAfterDecimal: digits,
      inMultiplesOf: currency.inMultiplesOf,
    },
    transactionProcessingStrategyCode: product.transactionProcessingStrategyCode,
    charges,
  };
  const principal = formatMinor(principalMinor, digits);
  const scheduled = scheduleOf(terms, principal, expectedDisbursementDate);
  if (!scheduled.ok) return scheduled;
  return {
    ok: true,
    value: {
      clientId: application.clientId,
      productId: product.productId,
      principal,
      submittedOnDate,
      expectedDisbursementDate,
      externalId: application.externalId ?? null,
      terms,
      schedule: scheduled.value,
    },
  };
}

/** The `ScheduleInput` of a loan's `terms` with its `principal` and disbursement date (ISO). */
export function scheduleInputOf(
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
): ScheduleInput {
  return {
    principal,
    numberOfRepayments: terms.numberOfRepayments,
    repaymentEvery: terms.repaymentEvery,
    repaymentFrequencyType: terms.repaymentFrequencyType,
    interestRatePerPeriod: terms.interestRatePerPeriod,
    interestRateFrequencyType: terms.interestRateFrequencyType,
    interestType: terms.interestType,
    amortizationType: terms.amortizationType,
    interestCalculationPeriodType: terms.interestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion: terms.allowPartialPeriodInterestCalcualtion,
    daysInYearType: terms.daysInYearType,
    daysInMonthType: terms.daysInMonthType,
    graceOnPrincipalPayment: terms.graceOnPrincipalPayment,
    graceOnInterestPayment: terms.graceOnInterestPayment,
    expectedDisbursementDate,
    repaymentsStartingFromDate: terms.repaymentsStartingFromDate,
    charges: terms.charges.map(scheduleChargeOf),
    currency: { ...terms.currency },
    installmentAmountInMultiplesOf: terms.installmentAmountInMultiplesOf,
  };
}

function scheduleChargeOf(charge: LoanCharge): ScheduleCharge {
  return {
    chargeTimeType: charge.chargeTimeType,
    chargeCalculationType: charge.chargeCalculationType,
    amount: charge.amount,
    dueDate: charge.dueDate,
    penalty: charge.penalty,
  };
}

/**
 * The schedule of `terms` at `principal` disbursed on `expectedDisbursementDate`, or the field errors for what
 * domain/lending/schedule.ts refuses (an equal installment below the interest due, a charge date outside the schedule,
 * a principal that is not a multiple of `inMultiplesOf`), named after the parameter that caused it. Used at
 * submission and when approval changes the principal or the disbursement date.
 */
export function scheduleOf(
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
  principalParameter = 'principal',
): Resolution<Schedule> {
  try {
    return { ok: true, value: generateSchedule(scheduleInputOf(terms, principal, expectedDisbursementDate)) };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const message = error.message;
    const charge = /^charge (\d+)|^charges\[(\d+)\]/.exec(message);
    let parameterName = principalParameter;
    let rule = 'not.schedulable';
    if (charge) {
      parameterName = `charges[${charge[1] ?? charge[2]}].dueDate`;
      rule = 'outside.repayment.schedule';
    } else if (/equal installment/.test(message)) {
      parameterName = 'interestRatePerPeriod';
      rule = 'installment.below.interest.due';
    } else if (/repaymentsStartingFromDate/.test(message)) {
      parameterName = 'repaymentsStartingFromDate';
    }
    const errors: FieldError[] = [];
    collector(errors)(parameterName, null, `The schedule cannot be generated: ${message}.`, rule);
    return { ok: false, errors };
  }
}

// ---- approval -------------------------------------------------------------------------------------------------

/** The approval command's body (Fineract `approve`: `approvedOnDate`, `approvedLoanAmount`, …). */
export interface ApprovalInput {
  /** ISO date (or per `dateFormat`). */
  approvedOnDate: string;
  /** Decimal string > 0, at most the principal applied for. */
  approvedLoanAmount: string;
  /** A new disbursement date (ISO or per `dateFormat`); absent = unchanged. */
  expectedDisbursementDate?: string | null;
  dateFormat?: string | null;
  locale?: string | null;
}

/** What the approval checks read of the loan. */
export interface LoanForApproval {
  /** Decimal string with the currency's digits. */
  principal: string;
  digitsAfterDecimal: number;
  /** ISO dates. */
  submittedOnDate: string;
  expectedDisbursementDate: string;
  /** The product's principal bounds (decimal strings, null = unbounded); absent = not checked. */
  principalBounds?: { minPrincipal: string | null; maxPrincipal: string | null };
}

/** The approval's accepted values. */
export interface ResolvedApproval {
  /** ISO date. */
  approvedOnDate: string;
  /** Decimal string with the currency's digits. */
  approvedPrincipal: string;
  /** ISO date: the given one, or the loan's. */
  expectedDisbursementDate: string;
  /** True when the schedule must be generated again (other principal or disbursement date). */
  scheduleChanged: boolean;
}

/**
 * Checks an approval (Fineract `Loan.approve`): `approvedLoanAmount` > 0, with the currency's digits, not above
 * the principal applied for (`…approvedLoanAmount.greater.than.applied.amount`), within the product's principal
 * bounds when `loan.principalBounds` is given (`…approvedLoanAmount.is.not.within.min.max.range`, the rule the
 * application's principal is held to at creation); `approvedOnDate` not before
 * `submittedOnDate` and not after `latestDate` (`latestCalendarDate(now)`); a new `expectedDisbursementDate` not
 * before `submittedOnDate`.
 */
export function resolveApproval(
  input: ApprovalInput,
  loan: LoanForApproval,
  latestDate: string,
): Resolution<ResolvedApproval> {
  const errors: FieldError[] = [];
  const fail = collector(errors);
  const digits = loan.digitsAfterDecimal;
  const amount = moneyOf(input.approvedLoanAmount, 'approvedLoanAmount', digits, fail, { positive: true });
  const principal = parseDecimalToMinor(loan.principal, digits);
  if (amount !== null && amount > principal) {
    fail(
      'approvedLoanAmount',
      input.approvedLoanAmount,
      `approvedLoanAmount must not be greater than the principal applied for (${loan.principal}).`,
      'greater.than.applied.amount',
    );
  }
  if (amount !== null && loan.principalBounds) {
    inRange(
      'approvedLoanAmount',
      input.approvedLoanAmount,
      loan.principalBounds.minPrincipal,
      loan.principalBounds.maxPrincipal,
      compareDecimalText,
      fail,
    );
  }
  const approvedOnDate = parseLoanDate(input.approvedOnDate, input.dateFormat, input.locale);
  if (approvedOnDate === null) {
    fail(
      'approvedOnDate',
      input.approvedOnDate,
      'approvedOnDate must be an ISO date (YYYY-MM-DD) or a date in dateFormat.',
      'invalid.date.format',
    );
  } else if (approvedOnDate < loan.submittedOnDate) {
    fail(
      'approvedOnDate',
      input.approvedOnDate,
      `approvedOnDate must not be before submittedOnDate (${loan.submittedOnDate}).`,
      'cannot.be.before.submittal.date',
    );
  } else if (approvedOnDate > latestDate) {
    fail(
      'approvedOnDate',
      input.approvedOnDate,
      'approvedOnDate cannot be in the future.',
      'cannot.be.a.future.date',
    );
  }
  let expectedDisbursementDate = loan.expectedDisbursementDate;
  if (input.expectedDisbursementDate !== null && input.expectedDisbursementDate !== undefined) {
    const parsed = parseLoanDate(input.expectedDisbursementDate, input.dateFormat, input.locale);
    if (parsed === null) {
      fail(
        'expectedDisbursementDate',
        input.expectedDisbursementDate,
        'expectedDisbursementDate must be an ISO date (YYYY-MM-DD) or a date in dateFormat.',
        'invalid.date.format',
      );
    } else if (parsed < loan.submittedOnDate) {
      fail(
        'expectedDisbursementDate',
        input.expectedDisbursementDate,
        `expectedDisbursementDate must not be before submittedOnDate (${loan.submittedOnDate}).`,
        'cannot.be.before.submittedOnDate',
      );
    } else {
      expectedDisbursementDate = parsed;
    }
  }
  if (errors.length > 0 || amount === null || approvedOnDate === null) return { ok: false, errors };
  return {
    ok: true,
    value: {
      approvedOnDate,
      approvedPrincipal: formatMinor(amount, digits),
      expectedDisbursementDate,
      scheduleChanged: amount !== principal || expectedDisbursementDate !== loan.expectedDisbursementDate,
    },
  };
}

// ---- the Regulation Z disclosure of a loan ---------------------------------------------------------------------

/** Why a loan's disclosure cannot be produced: domain/lending/disclosure.ts's reasons, plus the product and the schedule. */
export type LoanDisclosureUnavailableReason =
  | DisclosureUnavailableReason
  | 'PRODUCT_NOT_CONFIGURED'
  | 'UNSUPPORTED_REPAYMENT_FREQUENCY';

export type LoanDisclosureResult =
  | { ok: true; disclosure: AprDisclosure }
  | { ok: false; reason: LoanDisclosureUnavailableReason; message: string };

/**
 * The prepaid finance charges of a loan (§1026.4(a), §1026.18(b)): every charge due at disbursement, by name
 * and amount. This engine's charge definitions have no "not a finance charge" flag, and every charge it
 * schedules is imposed by the creditor incident to the credit (origination fees and the like), so all of them
 * count. Each amount is that charge's disbursement-row amount (a schedule generated with it alone, as
 * percentages of the interest depend only on the interest); the last one absorbs any rounding of the row's total
 * (`inMultiplesOf`), so the charges sum to `schedule.periods[0].feeChargesDue`.
 */
export function prepaidFinanceChargesOf(
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
  schedule: Schedule,
): PrepaidFinanceCharge[] {
  const atDisbursement = terms.charges.filter((c) => c.chargeTimeType === 1);
  if (atDisbursement.length === 0) return [];
  const digits = schedule.currency.digitsAfterDecimal;
  const total = parseDecimalToMinor(schedule.periods[0].feeChargesDue, digits);
  if (atDisbursement.length === 1)
    return [{ name: atDisbursement[0]!.name, amount: formatMinor(total, digits) }];
  const result: PrepaidFinanceCharge[] = [];
  let sum = 0n;
  for (const [index, charge] of atDisbursement.entries()) {
    let amount: bigint;
    if (index === atDisbursement.length - 1) amount = total - sum;
    else {
      const alone = generateSchedule({
        ...scheduleInputOf({ ...terms, charges: [charge] }, principal, expectedDisbursementDate),
      });
      amount = parseDecimalToMinor(alone.periods[0].feeChargesDue, digits);
    }
    sum += amount;
    result.push({ name: charge.name, amount: formatMinor(amount < 0n ? 0n : amount, digits) });
  }
  return result;
}

/**
 * The §1026.18 disclosure of a loan whose product has `lmsConfig.aprEnabled` (docs/design.md §5 APR): the schedule, its
 * repayment frequency (the Appendix J unit-period), the prepaid finance charges (`prepaidFinanceChargesOf`),
 * and the product's `aprRounding` and `aprTolerancePolicy`. Not ok when the product is not CONFIGURED or lacks
 * those settings, when the repayment frequency has no implemented unit-period, or for any
 * `DisclosureUnavailableError` (amount financed not positive, negative finance charge, APR not computable,
 * outside tolerance). `finalizedAt` is added by whoever freezes it.
 */
export function loanAprDisclosure(
  product: { configurationStatus: ConfigurationStatus; lmsConfig: LmsConfig },
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
  schedule: Schedule,
): LoanDisclosureResult {
  const { lmsConfig } = product;
  if (
    product.configurationStatus !== 'CONFIGURED' ||
    !lmsConfig.aprRounding ||
    !lmsConfig.aprTolerancePolicy
  ) {
    return {
      ok: false,
      reason: 'PRODUCT_NOT_CONFIGURED',
      message: `the loan product is not configured for approval (configurationStatus ${product.configurationStatus})`,
    };
  }
  try {
    return {
      ok: true,
      disclosure: buildAprDisclosure({
        schedule,
        disbursementDate: expectedDisbursementDate,
        repaymentFrequency: repaymentFrequencyOf(terms.repaymentEvery, terms.repaymentFrequencyType),
        prepaidFinanceCharges: prepaidFinanceChargesOf(terms, principal, expectedDisbursementDate, schedule),
        aprRounding: lmsConfig.aprRounding as AprRounding,
        aprTolerancePolicy: lmsConfig.aprTolerancePolicy as AprTolerancePolicy,
      }),
    };
  } catch (error) {
    if (error instanceof DisclosureUnavailableError)
      return { ok: false, reason: error.reason, message: error.message };
    if (error instanceof RangeError && /unit-period/.test(error.message)) {
      return { ok: false, reason: 'UNSUPPORTED_REPAYMENT_FREQUENCY', message: error.message };
    }
    throw error;
  }
}
