/**
 * Amortization schedule of a new loan, reproducing Apache Fineract's cumulative schedule generator
 * (`AbstractCumulativeLoanScheduleGenerator` with `CumulativeDecliningBalanceInterestLoanScheduleGenerator` /
 * `CumulativeFlatInterestLoanScheduleGenerator`, `LoanApplicationTerms`, `Money`, apache/fineract commit 4198b0bc)
 * for a single-disbursement loan without interest recalculation, holidays, non-working days, calendars,
 * fixed EMI or term variations — the schedule Fineract shows for a submitted application.
 *
 * Pure and deterministic: no clock, no I/O, no float. Amounts are bigint counts of 10^-digitsAfterDecimal;
 * rates are decimal.js values (80 significant digits) that are rounded to 12 significant digits HALF_EVEN
 * exactly where Fineract applies its `MathContext(12, HALF_EVEN)` (`MoneyHelper.getMathContext()`, the tenant
 * default rounding mode 6), and amounts are rounded exactly where Fineract's `Money` rounds:
 *
 * - every `Money` value is rounded HALF_EVEN to `digitsAfterDecimal`; when `digitsAfterDecimal` is 0 and
 *   `inMultiplesOf` > 0, a positive value is first rounded to the nearest multiple of `inMultiplesOf`, a tie
 *   going up (`Money(...)` constructor). `inMultiplesOf` has no effect with fraction digits, as in Fineract;
 * - `installmentAmountInMultiplesOf` rounds (HALF_EVEN) the equal installment of a declining-balance loan,
 *   and for flat loans both the principal and the interest of an installment, the principal becoming
 *   `round(principal) + round(interest) − interest` so that their sum is a multiple (`LoanApplicationTerms`
 *   `calculateTotalPrincipalPerPeriodWithoutGrace`). It is not applied to equal-principal declining loans;
 * - the last installment absorbs every remainder: its principal is the principal not yet scheduled, and for flat
 *   loans its interest is the total flat interest not yet scheduled. An installment whose principal would
 *   overshoot the principal is cut to the remainder, and the schedule ends there (it can then have fewer than
 *   `numberOfRepayments` installments).
 *
 * Dates: the first due date is `repaymentsStartingFromDate`, else the disbursement date plus `repaymentEvery`
 * periods; each later one is the previous due date plus `repaymentEvery` periods (Java `plusMonths` clamps to
 * the month end), and for monthly loans a due date on day ≥ 28 is moved back to the seed day (the
 * `repaymentsStartingFromDate`, else the disbursement date) when the seed day is 29–31 and the month allows it
 * (`CalendarUtils.adjustDate`), so a loan disbursed on Jan 31 falls due Feb 28, Mar 31, Apr 30, …
 *
 * Interest, declining balance: `balance × periodic rate`, rounded HALF_EVEN to the currency. The periodic rate,
 * with A = annual nominal rate in % (`interestRatePerPeriod` × 365 / 52 / 12 / 1 for a rate per day / week /
 * month / year; for a rate per whole term, rate ÷ (n × repaymentEvery) rounded to 8 decimals, times the periods
 * of the repayment frequency in a year), and mc = rounding to 12 significant digits:
 * - same as repayment period: mc(mc(A ÷ P) ÷ 100) × f, with P = 365 / 52 / 12 / 1 periods of the repayment
 *   frequency in a year (for a repayment every N days and a days-in-year type other than actual, P = that
 *   type: 360, 364 or 365), and f = `repaymentEvery`, or with `allowPartialPeriodInterestCalcualtion` the
 *   number of repayment-frequency units between the period's dates (whole units plus a fraction of the next
 *   unit, `calculatePeriodsBetweenDates`);
 * - daily: mc(mc(mc(A ÷ Y) ÷ 100) × d), with Y = the days-in-year type (360, 364, 365; actual → 365, Fineract's
 *   cumulative generator does not count leap days) and d = the days of the period, except d = mc(f × 30) for
 *   monthly repayments with days-in-month 30, and d = mc(f × Y) for yearly repayments with a fixed days-in-year
 *   type (f as above, always the fractional count).
 * The first period's interest runs from the "ideal disbursement date" (first due date − one repayment period) to
 * the first due date: Fineract's default (`interest-charged-from-date-same-as-disbursal-date` off), so a
 * broken first period (`repaymentsStartingFromDate`) is charged one regular period of interest. Days in periods
 * and `loanTermInDays` count the real dates.
 *
 * Equal installments (declining): the installment is the annuity payment for the principal over the
 * installments after the principal grace, at the periodic rate of one regular period (same-as-repayment: as
 * above with f = `repaymentEvery`; daily: d = repaymentEvery days, 7 × repaymentEvery days, 30 × repaymentEvery
 * days or 365 × repaymentEvery days for days / weeks / months / years), computed once; principal =
 * installment − the period's own interest. Equal principal (declining): principal ÷ installments after the
 * principal grace, HALF_EVEN. Flat: total interest = principal × mc(mc(A ÷ P) ÷ 100) × term, the term being
 * n × repaymentEvery units, or the days from disbursement to the last due date (daily, with P = Y), or the
 * fractional count of units between those dates (`allowPartialPeriodInterestCalcualtion`); each installment
 * carries total ÷ (n − interest grace) of interest (equal installments) or total ÷ n (equal principal), and
 * principal ÷ (n − principal grace) of principal.
 *
 * Grace: no principal in the first `graceOnPrincipalPayment` installments; no interest is due in the first
 * `graceOnInterestPayment` installments, and the interest that accrued meanwhile (declining balance, flat equal
 * principal) is added to the first installment after the grace. Flat equal installments spread the whole
 * flat interest over the installments after the grace. A declining equal installment smaller than the interest
 * due in an installment is rejected (Fineract's "EMI amount must be greater than" check).
 *
 * Charges (a loan charge with its charge definition):
 * - disbursement (`chargeTimeType` 1): in the disbursement row; flat, or a percentage of the principal, of the
 *   principal plus the schedule's total interest, or of the total interest (mc(base × mc(% ÷ 100)), then the
 *   optional `minCap`/`maxCap`, then rounded — `Loan.recalculateAllCharges` at submission);
 * - specified due date (2): in the installment whose period (from exclusive — inclusive for the first —, due
 *   date inclusive) holds `dueDate`; flat, or mc(principal × % ÷ 100), or, computed after all installments,
 *   mc((principal + total interest) × % ÷ 100) / mc(total interest × % ÷ 100). Caps are not applied (as in
 *   Fineract's schedule). A due date before the disbursement or outside every installment is rejected;
 * - installment fee (8): in every installment; flat per installment, or mc(x × % ÷ 100) with x the
 *   installment's principal, principal + interest, or interest (before the final grace-interest addition).
 * `penalty: true` books a charge as a penalty instead of a fee (not allowed at disbursement).
 *
 * Not reproduced bit for bit: Fineract computes the annuity payment (`FinanicalFunctions.pmt`) and the
 * fraction of a partial period (`days / daysInPeriod`) in IEEE doubles; here they are exact decimals. The two
 * agree except when the exact value lies on a rounding tie at the currency's last digit, where the double's
 * representation error decides Fineract's result.
 *
 * Down payment (`enableDownPayment`, Fineract `createDownPaymentPeriod` and the multi-disbursement branch of
 * `AbstractCumulativeLoanScheduleGenerator.generate`): the schedule gets one more period, the first, due on the
 * disbursement date (0 days, `downPaymentPeriod: true`), whose principal is
 * `Money.of(MathUtil.percentageOf(principal, disbursedAmountPercentageForDownPayment, 19))` — principal ×
 * (percentage ÷ 100), each step rounded to 19 significant digits HALF_EVEN, then rounded as every `Money` — and,
 * when the product has `installmentAmountInMultiplesOf`, rounded (HALF_EVEN) to that multiple. It carries no
 * interest or charges. The `numberOfRepayments` installments after it amortize the rest (principal − down
 * payment) exactly as a loan of that principal would (dates, interest on the declining balance, equal
 * installments, last-installment remainders); the periods are numbered 1 (the down payment) to n + 1. What
 * still refers to the whole principal, as in Fineract: the disbursement row, the flat interest of a flat loan
 * (`calculateTotalFlatInterestDueWithoutGrace` on the disbursed principal), and the percentage charges of the
 * principal (at disbursement, or on a specified due date). A specified-due-date charge on the disbursement date
 * belongs to the first installment after the down payment.
 *
 * Errors (RangeError): malformed or out-of-range input (see `ScheduleInput`), a principal that is not a
 * multiple of `inMultiplesOf`, a grace not shorter than the term, an equal installment below the interest due,
 * a specified-due-date charge outside the schedule.
 */
import Decimal from 'decimal.js';
import {
  addMonthsToEpochDay,
  civilOfEpochDay,
  daysInMonth,
  epochDayOf,
  isoDateOfEpochDay,
  monthsBetweenEpochDays,
} from '../calendar';
import { formatMinor, parseDecimalToMinor } from '../money';

/** Fineract `PeriodFrequencyType`: 0 DAYS, 1 WEEKS, 2 MONTHS, 3 YEARS. */
export type PeriodFrequencyType = 0 | 1 | 2 | 3;
/** `PeriodFrequencyType` of an interest rate: 0 per day, 1 per week, 2 per month, 3 per year, 4 per whole term. */
export type InterestRateFrequencyType = 0 | 1 | 2 | 3 | 4;
/** Fineract `InterestMethod`: 0 DECLINING_BALANCE, 1 FLAT. */
export type InterestType = 0 | 1;
/** Fineract `AmortizationMethod`: 0 EQUAL_PRINCIPAL, 1 EQUAL_INSTALLMENTS. */
export type AmortizationType = 0 | 1;
/** Fineract `InterestCalculationPeriodMethod`: 0 DAILY, 1 SAME_AS_REPAYMENT_PERIOD. */
export type InterestCalculationPeriodType = 0 | 1;
/** Fineract `DaysInYearType`: 1 ACTUAL, 360, 364, 365. */
export type DaysInYearType = 1 | 360 | 364 | 365;
/** Fineract `DaysInMonthType`: 1 ACTUAL, 30. */
export type DaysInMonthType = 1 | 30;
/** Fineract `ChargeTimeType` supported here: 1 DISBURSEMENT, 2 SPECIFIED_DUE_DATE, 8 INSTALMENT_FEE. */
export type ChargeTimeType = 1 | 2 | 8;
/**
 * Fineract `ChargeCalculationType` supported here: 1 FLAT, 2 PERCENT_OF_AMOUNT, 3 PERCENT_OF_AMOUNT_AND_INTEREST,
 * 4 PERCENT_OF_INTEREST.
 */
export type ChargeCalculationType = 1 | 2 | 3 | 4;

/** Fineract's currency of the loan (`ApplicationCurrency`). */
export interface ScheduleCurrency {
  /** ISO 4217 alphabetic code, three upper-case letters; echoed in the output, not used in arithmetic. */
  code: string;
  /** Fraction digits of every amount, integer 0–6 (amounts are rounded HALF_EVEN to it). */
  digitsAfterDecimal: number;
  /**
   * Fineract `inMultiplesOf`, integer ≥ 0; `null`/absent/0 = none. Only when `digitsAfterDecimal` is 0: positive
   * amounts are rounded to the nearest multiple, ties up. The principal must then already be a multiple.
   */
  inMultiplesOf?: number | null;
}

/** A loan charge together with the fields of its charge definition that the schedule needs. */
export interface ScheduleCharge {
  /** When it falls due: 1 at disbursement, 2 on `dueDate`, 8 with every installment. */
  chargeTimeType: ChargeTimeType;
  /** 1 flat amount; 2 % of principal; 3 % of principal + interest; 4 % of interest (see the module note). */
  chargeCalculationType: ChargeCalculationType;
  /**
   * Decimal string ≥ 0. Flat: an amount in the loan currency with at most `digitsAfterDecimal` fraction digits
   * (per installment for an installment fee). Percentage: percent, any precision (`"1.5"` = 1.5 %).
   */
  amount: string;
  /** ISO date `YYYY-MM-DD`, required for (and only for) a specified-due-date charge; not before disbursement. */
  dueDate?: string | null;
  /** True for a penalty (penaltyChargesDue), false/absent for a fee (feeChargesDue). Not at disbursement. */
  penalty?: boolean;
  /** Percentage disbursement charges only: lower bound of the charge, a currency amount (decimal string). */
  minCap?: string | null;
  /** Percentage disbursement charges only: upper bound of the charge, a currency amount (decimal string). */
  maxCap?: string | null;
}

/** The loan-creation fields of a Fineract loan application, in Fineract's own terms and codes. */
export interface ScheduleInput {
  /** Principal, decimal string > 0 with at most `currency.digitsAfterDecimal` fraction digits. */
  principal: string;
  /** Number of installments n, integer ≥ 1 (the loan term is n × `repaymentEvery` repayment-frequency units). */
  numberOfRepayments: number;
  /** Installments fall due every `repaymentEvery` units of `repaymentFrequencyType`; integer ≥ 1. */
  repaymentEvery: number;
  /** Unit of `repaymentEvery`: 0 days, 1 weeks, 2 months, 3 years. */
  repaymentFrequencyType: PeriodFrequencyType;
  /** Nominal interest rate in percent per `interestRateFrequencyType` (`"12"` = 12 %), decimal string ≥ 0. */
  interestRatePerPeriod: string;
  /** Period of `interestRatePerPeriod`: 0 day, 1 week, 2 month, 3 year, 4 whole term. */
  interestRateFrequencyType: InterestRateFrequencyType;
  /** 0 declining balance, 1 flat. */
  interestType: InterestType;
  /** 0 equal principal payments, 1 equal installments. */
  amortizationType: AmortizationType;
  /** 0 daily, 1 same as repayment period. */
  interestCalculationPeriodType: InterestCalculationPeriodType;
  /** Count partial repayment periods as fractions (Fineract spells it `…Calcualtion`). */
  allowPartialPeriodInterestCalcualtion: boolean;
  /** Days in a year for daily interest: 1 actual (counted as 365 by this generator), 360, 364, 365. */
  daysInYearType: DaysInYearType;
  /** Days in a month for daily interest on monthly loans: 1 actual, 30. */
  daysInMonthType: DaysInMonthType;
  /** Installments without principal at the start, integer 0 ≤ g < n; null/absent = 0. */
  graceOnPrincipalPayment?: number | null;
  /** Installments without interest due at the start, integer 0 ≤ g < n; null/absent = 0. */
  graceOnInterestPayment?: number | null;
  /** Disbursement date, ISO `YYYY-MM-DD`. */
  expectedDisbursementDate: string;
  /** First due date, ISO `YYYY-MM-DD`, after the disbursement date; null/absent = one period after it. */
  repaymentsStartingFromDate?: string | null;
  /** Loan charges; absent = none. */
  charges?: ScheduleCharge[];
  /** Currency of every amount. */
  currency: ScheduleCurrency;
  /** Installment rounding (see the module note), integer ≥ 0; null/absent/0 = none. */
  installmentAmountInMultiplesOf?: number | null;
  /** Fineract `enableDownPayment`: a down-payment period at disbursement (see the module note); absent = false. */
  enableDownPayment?: boolean | null;
  /**
   * Fineract `disbursedAmountPercentageForDownPayment`: percent of the principal, decimal string from 0 to 100
   * with at most 6 fraction digits; required with `enableDownPayment`, refused without it.
   */
  disbursedAmountPercentageForDownPayment?: string | null;
}

/** Period 0: the disbursement. Money fields are decimal strings with the currency's digits. */
export interface DisbursementPeriod {
  /** Disbursement date (ISO). */
  dueDate: string;
  /** Principal disbursed. */
  principalDisbursed: string;
  /** Charges due at disbursement (all fees). */
  feeChargesDue: string;
  /** Equal to `feeChargesDue`. */
  totalDueForPeriod: string;
  /** Principal outstanding after the disbursement: the principal. */
  principalLoanBalanceOutstanding: string;
}

/** One installment. Money fields are decimal strings with the currency's digits, dates ISO. */
export interface RepaymentPeriod {
  /** Installment number, 1-based (the down payment, when there is one, is period 1). */
  period: number;
  /** Start of the period: the previous due date, or the disbursement date. */
  fromDate: string;
  dueDate: string;
  /** Calendar days from `fromDate` to `dueDate`. */
  daysInPeriod: number;
  principalDue: string;
  interestDue: string;
  feeChargesDue: string;
  penaltyChargesDue: string;
  /** principal + interest + fees + penalties of the installment. */
  totalDueForPeriod: string;
  /** Principal outstanding after this installment. */
  principalLoanBalanceOutstanding: string;
  /** True for the down-payment period (Fineract `downPaymentPeriod`), false for every other installment. */
  downPaymentPeriod: boolean;
}

export interface Schedule {
  currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
  /** Days from disbursement to the last due date. */
  loanTermInDays: number;
  totalPrincipalExpected: string;
  totalInterestCharged: string;
  /** Fees of all installments plus the disbursement charges. */
  totalFeeChargesCharged: string;
  totalPenaltyChargesCharged: string;
  /** Total due of all installments plus the disbursement charges. */
  totalRepaymentExpected: string;
  periods: [DisbursementPeriod, ...RepaymentPeriod[]];
}

const Dec = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_EVEN });
type Dec = InstanceType<typeof Dec>;

/** Fineract's MathContext(12, HALF_EVEN). */
function mc(value: Dec): Dec {
  return value.toSignificantDigits(12, Decimal.ROUND_HALF_EVEN);
}

/** An exact non-negative rational, den > 0. */
interface Fraction {
  num: bigint;
  den: bigint;
}

const DAYS = 0;
const WEEKS = 1;
const MONTHS = 2;
const YEARS = 3;
const WHOLE_TERM = 4;
const DAILY = 0;
const FLAT = 1;
const EQUAL_INSTALLMENTS = 1;
const DISBURSEMENT = 1;
const SPECIFIED_DUE_DATE = 2;
const INSTALMENT_FEE = 8;
const CALC_FLAT = 1;
const PERCENT_OF_AMOUNT = 2;
const PERCENT_OF_AMOUNT_AND_INTEREST = 3;
const PERCENT_OF_INTEREST = 4;

/** Periods of each repayment frequency in a year (`DefaultPaymentPeriodsInOneYearCalculator`). */
const PERIODS_IN_YEAR = [365, 52, 12, 1] as const;

/** HALF_EVEN quotient of num ÷ den (den > 0). */
function divHalfEven(num: bigint, den: bigint): bigint {
  let quotient = num / den;
  let remainder = num % den;
  if (remainder === 0n) return quotient;
  if (remainder < 0n) {
    quotient -= 1n;
    remainder += den;
  }
  const twice = 2n * remainder;
  if (twice > den || (twice === den && quotient % 2n !== 0n)) quotient += 1n;
  return quotient;
}

/** A decimal.js value as an exact fraction with a power-of-ten denominator. */
function toFraction(value: Dec): Fraction {
  const text = value.toFixed();
  const point = text.indexOf('.');
  if (point < 0) return { num: BigInt(text), den: 1n };
  return {
    num: BigInt(text.slice(0, point) + text.slice(point + 1)),
    den: 10n ** BigInt(text.length - point - 1),
  };
}

/** num ÷ 10^exponent rounded HALF_EVEN to 12 significant digits (MathContext(12)), as a fraction. */
function significant12(num: bigint, exponent: number): Fraction {
  return significantDigits(num, exponent, 12);
}

/** num ÷ 10^exponent rounded HALF_EVEN to `precision` significant digits (MathContext(precision)), as a fraction. */
function significantDigits(num: bigint, exponent: number, precision: number): Fraction {
  const digits = (num < 0n ? -num : num).toString().length;
  let coefficient = num;
  let scale = exponent;
  if (digits > precision) {
    const drop = digits - precision;
    coefficient = divHalfEven(num, 10n ** BigInt(drop));
    scale -= drop;
  }
  return scale >= 0
    ? { num: coefficient, den: 10n ** BigInt(scale) }
    : { num: coefficient * 10n ** BigInt(-scale), den: 1n };
}

/** A decimal string as coefficient and number of fraction digits (`"1.50"` → 150n, 2). */
function decimalParts(text: string, label: string): { coefficient: bigint; scale: number } {
  const match = /^(0|[1-9]\d*)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`${label}: not a non-negative decimal: ${JSON.stringify(text)}`);
  const fraction = match[2] ?? '';
  return { coefficient: BigInt((match[1] ?? '0') + fraction), scale: fraction.length };
}

/* Schedule dates are epoch days (domain/calendar.ts): the loop runs once per installment, on integers. */

/** `CalendarUtils.adjustDate` for monthly loans: restore the seed day (29–31) on days ≥ 28 when the month allows. */
function adjustToSeed(epochDay: number, seedDayOfMonth: number): number {
  if (seedDayOfMonth <= 28) return epochDay;
  const { year, month, day } = civilOfEpochDay(epochDay);
  if (day < 28) return epochDay;
  return epochDay + Math.min(daysInMonth(year, month), seedDayOfMonth) - day;
}

function plusUnits(epochDay: number, frequency: PeriodFrequencyType, units: number): number {
  switch (frequency) {
    case DAYS:
      return epochDay + units;
    case WEEKS:
      return epochDay + 7 * units;
    case MONTHS:
      return addMonthsToEpochDay(epochDay, units);
    default:
      return addMonthsToEpochDay(epochDay, 12 * units);
  }
}

function requireInteger(value: unknown, label: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${label} must be an integer ≥ ${min}`);
  }
  return value;
}

function optionalInteger(value: unknown, label: string): number {
  return value === null || value === undefined ? 0 : requireInteger(value, label, 0);
}

function requireOneOf<T extends number>(value: unknown, allowed: readonly T[], label: string): T {
  if (!allowed.includes(value as T)) throw new RangeError(`${label} must be one of ${allowed.join(', ')}`);
  return value as T;
}

interface NormalizedCharge {
  time: ChargeTimeType;
  calculation: ChargeCalculationType;
  /** Flat: minor units. */
  flatMinor: bigint;
  /** Percentage: coefficient and fraction digits of the percent. */
  percent: { coefficient: bigint; scale: number };
  penalty: boolean;
  dueDay: number;
  minCapMinor: bigint | null;
  maxCapMinor: bigint | null;
}

interface Installment {
  period: number;
  fromDay: number;
  dueDay: number;
  principal: bigint;
  interest: bigint;
  fee: bigint;
  penalty: bigint;
  totalDue: bigint;
  balance: bigint;
}

/**
 * Generates the cumulative repayment schedule of `input` (see the module note). Throws RangeError for input
 * outside the contract.
 */
export function generateSchedule(input: ScheduleInput): Schedule {
  // ---- input --------------------------------------------------------------------------------------------
  const { currency } = input;
  if (typeof currency?.code !== 'string' || !/^[A-Z]{3}$/.test(currency.code)) {
    throw new RangeError('currency.code must be three upper-case letters');
  }
  const digits = requireInteger(currency.digitsAfterDecimal, 'currency.digitsAfterDecimal', 0);
  if (digits > 6) throw new RangeError('currency.digitsAfterDecimal must be at most 6');
  const inMultiplesOf = optionalInteger(currency.inMultiplesOf, 'currency.inMultiplesOf');
  const multiples = digits === 0 && inMultiplesOf > 0 ? BigInt(inMultiplesOf) : 0n;
  const scaleFactor = 10n ** BigInt(digits);

  const n = requireInteger(input.numberOfRepayments, 'numberOfRepayments', 1);
  const every = requireInteger(input.repaymentEvery, 'repaymentEvery', 1);
  const frequency = requireOneOf(
    input.repaymentFrequencyType,
    [0, 1, 2, 3] as const,
    'repaymentFrequencyType',
  );
  const rateFrequency = requireOneOf(
    input.interestRateFrequencyType,
    [0, 1, 2, 3, 4] as const,
    'interestRateFrequencyType',
  );
  const interestType = requireOneOf(input.interestType, [0, 1] as const, 'interestType');
  const amortization = requireOneOf(input.amortizationType, [0, 1] as const, 'amortizationType');
  const calculationPeriod = requireOneOf(
    input.interestCalculationPeriodType,
    [0, 1] as const,
    'interestCalculationPeriodType',
  );
  if (typeof input.allowPartialPeriodInterestCalcualtion !== 'boolean') {
    throw new RangeError('allowPartialPeriodInterestCalcualtion must be a boolean');
  }
  const allowPartial = input.allowPartialPeriodInterestCalcualtion;
  const daysInYear = requireOneOf(input.daysInYearType, [1, 360, 364, 365] as const, 'daysInYearType');
  const daysInMonth30 = requireOneOf(input.daysInMonthType, [1, 30] as const, 'daysInMonthType') === 30;
  const gracePrincipal = optionalInteger(input.graceOnPrincipalPayment, 'graceOnPrincipalPayment');
  const graceInterest = optionalInteger(input.graceOnInterestPayment, 'graceOnInterestPayment');
  if (gracePrincipal >= n || graceInterest >= n) {
    throw new RangeError('grace on principal and on interest must be shorter than numberOfRepayments');
  }
  const installmentMultiple = BigInt(
    optionalInteger(input.installmentAmountInMultiplesOf, 'installmentAmountInMultiplesOf'),
  );
  const downPaymentEnabled = input.enableDownPayment ?? false;
  if (typeof downPaymentEnabled !== 'boolean') throw new RangeError('enableDownPayment must be a boolean');
  const downPaymentText = input.disbursedAmountPercentageForDownPayment ?? null;
  let downPaymentPercent: { coefficient: bigint; scale: number } | null = null;
  if (downPaymentEnabled) {
    if (downPaymentText === null) {
      throw new RangeError('disbursedAmountPercentageForDownPayment is required with enableDownPayment');
    }
    downPaymentPercent = decimalParts(downPaymentText, 'disbursedAmountPercentageForDownPayment');
    if (
      downPaymentPercent.scale > 6 ||
      downPaymentPercent.coefficient > 100n * 10n ** BigInt(downPaymentPercent.scale)
    ) {
      throw new RangeError(
        'disbursedAmountPercentageForDownPayment must be from 0 to 100 with at most 6 fraction digits',
      );
    }
  } else if (downPaymentText !== null) {
    throw new RangeError('disbursedAmountPercentageForDownPayment is only allowed with enableDownPayment');
  }

  const principal = parseDecimalToMinor(input.principal, digits);
  if (principal <= 0n) throw new RangeError('principal must be positive');
  if (multiples > 0n && principal % multiples !== 0n) {
    throw new RangeError(`principal must be a multiple of ${inMultiplesOf}`);
  }
  decimalParts(input.interestRatePerPeriod, 'interestRatePerPeriod'); // validates: decimal ≥ 0

  const disbursementDay = epochDayOf(input.expectedDisbursementDate);
  const startingFrom = input.repaymentsStartingFromDate ?? null;
  const startingFromDay = startingFrom === null ? null : epochDayOf(startingFrom);
  if (startingFromDay !== null && startingFromDay <= disbursementDay) {
    throw new RangeError('repaymentsStartingFromDate must be after expectedDisbursementDate');
  }
  const seedDay = civilOfEpochDay(startingFromDay ?? disbursementDay).day;
  const monthly = frequency === MONTHS;
  const nextDueDay = (previous: number): number =>
    monthly
      ? adjustToSeed(addMonthsToEpochDay(previous, every), seedDay)
      : plusUnits(previous, frequency, every);
  const firstDueDay = startingFromDay ?? plusUnits(disbursementDay, frequency, every);
  const idealDisbursementDay = plusUnits(firstDueDay, frequency, -every);

  const charges = (input.charges ?? []).map((charge, index) =>
    normalizeCharge(charge, index, digits, disbursementDay),
  );

  // ---- money and rate helpers (Fineract Money semantics) -------------------------------------------------
  /** `Money.of` of an amount already at the currency's scale. */
  const ofMinor = (value: bigint): bigint => {
    if (multiples === 0n || value <= 0n) return value;
    const floor = (value / multiples) * multiples;
    if (floor === value) return value;
    const ceiling = floor + multiples;
    return ceiling - value > value - floor ? floor : ceiling;
  };
  /** `Money.of` of an exact amount num ÷ den in minor units. */
  const ofFraction = (num: bigint, den: bigint): bigint => {
    if (multiples === 0n || num <= 0n) return divHalfEven(num, den);
    const unit = den * multiples;
    const floor = (num / unit) * multiples;
    const remainder = num - floor * den;
    if (remainder === 0n) return floor;
    return unit - remainder > remainder ? floor : floor + multiples;
  };
  /** `Money.multiplyRetainScale(rate, HALF_EVEN)`. */
  const applyRate = (amount: bigint, rate: Fraction): bigint =>
    ofMinor(divHalfEven(amount * rate.num, rate.den));
  /** `Money.dividedBy(divisor, HALF_EVEN)`. */
  const divide = (amount: bigint, divisor: number): bigint => ofMinor(divHalfEven(amount, BigInt(divisor)));
  /** `Money.roundToMultiplesOf(money, installmentAmountInMultiplesOf)`. */
  const roundInstallment = (amount: bigint): bigint => {
    if (installmentMultiple === 0n) return amount;
    const unit = installmentMultiple * scaleFactor;
    return ofMinor(divHalfEven(amount, unit) * unit);
  };
  /** `cumulative.plus(base × percent ÷ 100 with MathContext(12))`: adds a percentage charge. */
  const addPercentage = (cumulative: bigint, base: bigint, percent: NormalizedCharge['percent']): bigint => {
    const charge = significant12(base * percent.coefficient, digits + percent.scale + 2);
    if (charge.num === 0n) return cumulative;
    return ofFraction(cumulative * charge.den + charge.num * scaleFactor, charge.den);
  };

  // annual nominal rate in percent (AprCalculator)
  const rate = new Dec(input.interestRatePerPeriod);
  const annualRate =
    rateFrequency === WHOLE_TERM
      ? rate
          .div(n * every)
          .toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN)
          .times(PERIODS_IN_YEAR[frequency])
      : rate.times([365, 52, 12, 1][rateFrequency] ?? 1);
  const daily = calculationPeriod === DAILY;
  // calculatePeriodsInOneYear
  const periodsInYear = daily
    ? daysInYear === 1
      ? 365
      : daysInYear
    : frequency === DAYS && daysInYear !== 1
      ? daysInYear
      : PERIODS_IN_YEAR[frequency];
  const ratePerYearUnit = mc(mc(annualRate.div(periodsInYear)).div(100));

  /** `calculatePeriodsBetweenDates`: repayment-frequency units between two dates, as whole + num/den. */
  const unitsBetween = (start: number, end: number): { whole: number; num: number; den: number } => {
    const days = end - start;
    switch (frequency) {
      case DAYS:
        return { whole: days, num: 0, den: 1 };
      case WEEKS: {
        const weeks = Math.trunc(days / 7);
        return { whole: weeks, num: days - 7 * weeks, den: 7 };
      }
      case MONTHS: {
        const months = monthsBetweenEpochDays(start, end);
        const from = adjustToSeed(addMonthsToEpochDay(start, months), seedDay);
        const to = adjustToSeed(addMonthsToEpochDay(start, months + 1), seedDay);
        return { whole: months, num: end - from, den: to - from };
      }
      default: {
        const years = Math.trunc(monthsBetweenEpochDays(start, end) / 12);
        const from = addMonthsToEpochDay(start, 12 * years);
        return { whole: years, num: end - from, den: addMonthsToEpochDay(start, 12 * years + 12) - from };
      }
    }
  };
  const unitsValue = (units: { whole: number; num: number; den: number }): Dec =>
    units.num === 0 ? new Dec(units.whole) : new Dec(units.num).div(units.den).plus(units.whole);

  /** `periodicInterestRate(…, isForPMT = false)` for an interest period, cached by what it depends on. */
  const rateCache = new Map<string, Fraction>();
  // the fractional count of units matters for same-as-repayment with partial periods, and for daily interest
  // only when days are counted as 30 per month or as a fixed days-in-year per year
  const needsUnits = daily
    ? (frequency === MONTHS && daysInMonth30) || (frequency === YEARS && daysInYear !== 1)
    : allowPartial;
  const periodRate = (start: number, end: number): Fraction => {
    const days = end - start;
    const units = needsUnits ? unitsBetween(start, end) : null;
    const key = units ? `${days}:${units.whole}:${units.num}/${units.den}` : daily ? String(days) : 'regular';
    const cached = rateCache.get(key);
    if (cached) return cached;
    let value: Dec;
    if (!daily) {
      value = ratePerYearUnit.times(units ? unitsValue(units) : every);
    } else {
      let periodDays = new Dec(days);
      if (units && frequency === MONTHS) periodDays = mc(unitsValue(units).times(30));
      if (units && frequency === YEARS) periodDays = mc(unitsValue(units).times(daysInYear));
      value = mc(ratePerYearUnit.times(periodDays));
    }
    const fraction = toFraction(value);
    rateCache.set(key, fraction);
    return fraction;
  };

  // ---- down payment (createDownPaymentPeriod) --------------------------------------------------------------
  let downPayment = 0n;
  if (downPaymentPercent !== null && downPaymentPercent.coefficient > 0n) {
    // MathUtil.percentageOf(principal, percent, 19): mc19(percent ÷ 100), then mc19(principal × it); Money.of
    const factor = significantDigits(downPaymentPercent.coefficient, downPaymentPercent.scale + 2, 19);
    const product = significantDigits(principal * factor.num, digits + decimalExponent(factor.den), 19);
    downPayment = ofFraction(product.num * scaleFactor, product.den);
    downPayment = roundInstallment(downPayment);
    if (downPayment > principal) downPayment = principal;
  }
  /** The principal the installments after the down payment amortize. */
  const amortized = principal - downPayment;

  // ---- dates of the whole term ----------------------------------------------------------------------------
  let loanEndDay = firstDueDay;
  for (let k = 2; k <= n; k++) loanEndDay = nextDueDay(loanEndDay);

  // ---- amounts fixed before the first installment ---------------------------------------------------------
  const isGracePrincipal = (period: number): boolean => period <= gracePrincipal;
  const isGraceInterest = (period: number): boolean => period <= graceInterest;

  let totalFlatInterest = 0n;
  if (interestType === FLAT) {
    let termUnits: Dec;
    if (daily) termUnits = new Dec(loanEndDay - disbursementDay);
    else if (allowPartial) termUnits = unitsValue(unitsBetween(disbursementDay, loanEndDay));
    else termUnits = new Dec(n * every);
    totalFlatInterest = applyRate(principal, toFraction(ratePerYearUnit.times(termUnits)));
  }

  let equalInstallment = 0n;
  let fixedPrincipal = 0n;
  if (interestType !== FLAT && amortization === EQUAL_INSTALLMENTS) {
    // pmtForInstallment: the rate of one regular period, DAYS_30 / DAYS_365 forced for daily interest
    let pmtRate: Dec;
    if (!daily) pmtRate = ratePerYearUnit.times(every);
    else {
      const periodDays =
        frequency === DAYS
          ? new Dec(every)
          : frequency === WEEKS
            ? new Dec(7 * every)
            : mc(new Dec(every).times(frequency === MONTHS ? 30 : 365));
      pmtRate = mc(ratePerYearUnit.times(periodDays));
    }
    const installments = n - gracePrincipal;
    const balance = new Dec(amortized.toString()).div(scaleFactor.toString());
    let payment: Dec;
    if (pmtRate.isZero()) payment = balance.div(installments);
    else {
      const growth = pmtRate.plus(1).pow(installments);
      payment = balance.times(pmtRate).times(growth).div(growth.minus(1));
    }
    if (installmentMultiple > 0n) {
      const unit = new Dec(installmentMultiple.toString());
      payment = payment.div(unit).toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN).times(unit);
    }
    const exact = toFraction(
      payment.times(scaleFactor.toString()).toDecimalPlaces(40, Decimal.ROUND_HALF_EVEN),
    );
    equalInstallment = ofFraction(exact.num, exact.den);
  } else if (interestType !== FLAT) {
    fixedPrincipal = divide(amortized, n - gracePrincipal);
  }
  const flatPrincipalPerPeriod = interestType === FLAT ? divide(amortized, n - gracePrincipal) : 0n;
  const flatInterestPerPeriod =
    interestType === FLAT
      ? amortization === EQUAL_INSTALLMENTS
        ? divide(totalFlatInterest, n - graceInterest)
        : divide(totalFlatInterest, n)
      : 0n;

  // ---- installments ---------------------------------------------------------------------------------------
  const installments: Installment[] = [];
  const placedCharges = new Set<NormalizedCharge>();
  let balance = amortized;
  let cumulativePrincipal = 0n;
  let cumulativeInterest = 0n;
  let graceInterestCarried = 0n;
  let principalCarried = 0n;
  let periodStartDay = disbursementDay;
  let dueDay = firstDueDay;

  for (let period = 1; balance !== 0n; period++) {
    if (period > n) throw new Error('schedule did not amortize within numberOfRepayments');
    if (period > 1) dueDay = nextDueDay(dueDay);
    const interestStartDay = period === 1 ? idealDisbursementDay : periodStartDay;
    const priorPrincipal = cumulativePrincipal - principalCarried;

    let interest: bigint;
    let principalDue: bigint;
    let carriedAfter: bigint;
    if (interestType === FLAT) {
      if (amortization === EQUAL_INSTALLMENTS) {
        interest = isGraceInterest(period) ? 0n : flatInterestPerPeriod;
        carriedAfter = graceInterestCarried;
      } else if (isGraceInterest(period)) {
        interest = 0n;
        carriedAfter = graceInterestCarried + flatInterestPerPeriod;
      } else if (period === graceInterest + 1) {
        interest = graceInterestCarried + flatInterestPerPeriod;
        carriedAfter = 0n;
      } else {
        interest = flatInterestPerPeriod;
        carriedAfter = graceInterestCarried;
      }
      principalDue = isGracePrincipal(period) ? 0n : flatPrincipalPerPeriod;
      if (installmentMultiple > 0n) {
        principalDue = ofMinor(
          ofMinor(roundInstallment(principalDue) + roundInstallment(interest)) - interest,
        );
      }
      principalDue = lastPeriodPrincipal(principalDue, priorPrincipal + principalDue, period);
      // adjustInterestIfLastRepaymentPeriod
      const interestRemaining = totalFlatInterest - (cumulativeInterest + interest);
      if (interestRemaining < 0n || period === n) interest += interestRemaining;
      if (interest < 0n) interest += interest;
    } else {
      const rateForPeriod = periodRate(interestStartDay, dueDay);
      const accrued = applyRate(balance, rateForPeriod);
      const payable = isGraceInterest(period) ? 0n : accrued;
      let ownInterest: bigint;
      if (payable > 0n) {
        interest = graceInterestCarried + payable;
        carriedAfter = 0n;
        ownInterest = interest - graceInterestCarried;
      } else {
        interest = 0n;
        carriedAfter = graceInterestCarried + accrued;
        ownInterest = carriedAfter - graceInterestCarried;
      }
      if (isGracePrincipal(period)) principalDue = 0n;
      else
        principalDue = amortization === EQUAL_INSTALLMENTS ? equalInstallment - ownInterest : fixedPrincipal;
      principalDue = lastPeriodPrincipal(principalDue, priorPrincipal + principalDue, period);
      if (amortization === EQUAL_INSTALLMENTS && equalInstallment < interest) {
        throw new RangeError(
          `equal installment ${formatMinor(equalInstallment, digits)} is below the interest due ` +
            `${formatMinor(interest, digits)} in installment ${period}`,
        );
      }
    }
    graceInterestCarried = carriedAfter;

    // updatePrincipalPortionBasedOnPreviousEarlyPayments: a non-positive principal moves to the next installment
    if (principalDue > principalCarried) {
      principalDue -= principalCarried;
      principalCarried = 0n;
    } else {
      principalCarried -= principalDue;
      principalDue = 0n;
    }
    balance -= principalDue;
    if (balance < 0n) {
      principalDue += balance;
      balance = 0n;
    }

    let fee = 0n;
    let penalty = 0n;
    for (const charge of charges) {
      if (charge.time === DISBURSEMENT) continue;
      let amount = charge.penalty ? penalty : fee;
      if (charge.time === INSTALMENT_FEE) {
        if (charge.calculation === CALC_FLAT) amount = ofMinor(amount + charge.flatMinor);
        else {
          const base =
            charge.calculation === PERCENT_OF_AMOUNT
              ? principalDue
              : charge.calculation === PERCENT_OF_INTEREST
                ? interest
                : principalDue + interest;
          amount = addPercentage(amount, base, charge.percent);
        }
      } else if (
        charge.calculation !== PERCENT_OF_INTEREST &&
        charge.calculation !== PERCENT_OF_AMOUNT_AND_INTEREST &&
        (charge.dueDay > periodStartDay || (period === 1 && charge.dueDay === periodStartDay)) &&
        charge.dueDay <= dueDay
      ) {
        placedCharges.add(charge);
        amount =
          charge.calculation === CALC_FLAT
            ? ofMinor(amount + charge.flatMinor)
            : addPercentage(amount, principal, charge.percent);
      } else continue;
      if (charge.penalty) penalty = amount;
      else fee = amount;
    }

    installments.push({
      period,
      fromDay: periodStartDay,
      dueDay,
      principal: principalDue,
      interest,
      fee,
      penalty,
      totalDue: principalDue + interest + fee + penalty,
      balance,
    });
    cumulativePrincipal += principalDue;
    cumulativeInterest += interest;
    periodStartDay = dueDay;
  }

  // interest deferred by the grace and not yet due goes to the last installment
  const last = installments[installments.length - 1];
  if (last && graceInterestCarried > 0n) {
    last.interest += graceInterestCarried;
    last.totalDue += graceInterestCarried;
    cumulativeInterest += graceInterestCarried;
  }

  // specified-due-date charges on interest, computed on the total interest (updatePeriodsWithCharges)
  for (const charge of charges) {
    if (
      charge.time !== SPECIFIED_DUE_DATE ||
      (charge.calculation !== PERCENT_OF_INTEREST && charge.calculation !== PERCENT_OF_AMOUNT_AND_INTEREST)
    ) {
      continue;
    }
    const installment = installments.find((i) => charge.dueDay > i.fromDay && charge.dueDay <= i.dueDay);
    if (!installment) continue;
    placedCharges.add(charge);
    const base =
      charge.calculation === PERCENT_OF_INTEREST ? cumulativeInterest : principal + cumulativeInterest;
    const added = addPercentage(0n, base, charge.percent);
    if (charge.penalty) installment.penalty += added;
    else installment.fee += added;
    installment.totalDue += added;
  }
  for (const charge of charges) {
    if (charge.time === SPECIFIED_DUE_DATE && !placedCharges.has(charge)) {
      throw new RangeError(`charge ${charges.indexOf(charge)}: dueDate is outside the repayment schedule`);
    }
  }

  // disbursement charges (Loan.recalculateAllCharges: percentages of the principal and the total interest)
  let disbursementFees = 0n;
  for (const charge of charges) {
    if (charge.time !== DISBURSEMENT) continue;
    if (charge.calculation === CALC_FLAT) {
      disbursementFees += charge.flatMinor;
      continue;
    }
    const base =
      charge.calculation === PERCENT_OF_AMOUNT
        ? principal
        : charge.calculation === PERCENT_OF_INTEREST
          ? cumulativeInterest
          : principal + cumulativeInterest;
    let amount: bigint;
    if (base <= 0n) amount = 0n;
    else {
      // LoanCharge.percentageOf: base × mc(percent ÷ 100), with MathContext(12); then the caps; then Money.of
      const factor = significant12(charge.percent.coefficient, charge.percent.scale + 2);
      const product = significant12(base * factor.num, digits + decimalExponent(factor.den));
      amount = ofFraction(product.num * scaleFactor, product.den);
      const compareCap = (cap: bigint): number => {
        const left = product.num * scaleFactor;
        const right = cap * product.den;
        return left < right ? -1 : left > right ? 1 : 0;
      };
      if (charge.minCapMinor !== null && compareCap(charge.minCapMinor) < 0) amount = charge.minCapMinor;
      else if (charge.maxCapMinor !== null && compareCap(charge.maxCapMinor) > 0) amount = charge.maxCapMinor;
    }
    disbursementFees += amount;
  }
  disbursementFees = ofMinor(disbursementFees);

  // ---- output ---------------------------------------------------------------------------------------------
  const format = (value: bigint): string => formatMinor(value, digits);
  let totalPrincipal = 0n;
  let totalInterest = 0n;
  let totalFees = disbursementFees;
  let totalPenalties = 0n;
  let totalRepayment = disbursementFees;
  const periods: [DisbursementPeriod, ...RepaymentPeriod[]] = [
    {
      dueDate: input.expectedDisbursementDate,
      principalDisbursed: format(principal),
      feeChargesDue: format(disbursementFees),
      totalDueForPeriod: format(disbursementFees),
      principalLoanBalanceOutstanding: format(principal),
    },
  ];
  let fromDate = input.expectedDisbursementDate;
  if (downPaymentEnabled) {
    totalPrincipal += downPayment;
    totalRepayment += downPayment;
    periods.push({
      period: 1,
      fromDate,
      dueDate: fromDate,
      daysInPeriod: 0,
      principalDue: format(downPayment),
      interestDue: format(0n),
      feeChargesDue: format(0n),
      penaltyChargesDue: format(0n),
      totalDueForPeriod: format(downPayment),
      principalLoanBalanceOutstanding: format(amortized),
      downPaymentPeriod: true,
    });
  }
  const periodOffset = downPaymentEnabled ? 1 : 0;
  for (const i of installments) {
    const dueDate = isoDateOfEpochDay(i.dueDay);
    totalPrincipal += i.principal;
    totalInterest += i.interest;
    totalFees += i.fee;
    totalPenalties += i.penalty;
    totalRepayment += i.totalDue;
    periods.push({
      period: i.period + periodOffset,
      fromDate,
      dueDate,
      daysInPeriod: i.dueDay - i.fromDay,
      principalDue: format(i.principal),
      interestDue: format(i.interest),
      feeChargesDue: format(i.fee),
      penaltyChargesDue: format(i.penalty),
      totalDueForPeriod: format(i.totalDue),
      principalLoanBalanceOutstanding: format(i.balance),
      downPaymentPeriod: false,
    });
    fromDate = dueDate;
  }
  return {
    currency: { code: currency.code, digitsAfterDecimal: digits, inMultiplesOf },
    loanTermInDays: (last?.dueDay ?? disbursementDay) - disbursementDay,
    totalPrincipalExpected: format(totalPrincipal),
    totalInterestCharged: format(totalInterest),
    totalFeeChargesCharged: format(totalFees),
    totalPenaltyChargesCharged: format(totalPenalties),
    totalRepaymentExpected: format(totalRepayment),
    periods,
  };

  /** adjustPrincipalIfLastRepaymentPeriod: never past the principal; the last installment takes the rest. */
  function lastPeriodPrincipal(principalDue: bigint, cumulativeToDate: bigint, period: number): bigint {
    const remaining = amortized - cumulativeToDate;
    return remaining < 0n || period === n ? principalDue + remaining : principalDue;
  }
}

/** log10 of a power of ten. */
function decimalExponent(powerOfTen: bigint): number {
  return powerOfTen.toString().length - 1;
}

function normalizeCharge(
  charge: ScheduleCharge,
  index: number,
  digits: number,
  disbursementDay: number,
): NormalizedCharge {
  const label = `charges[${index}]`;
  const time = requireOneOf(charge.chargeTimeType, [1, 2, 8] as const, `${label}.chargeTimeType`);
  const calculation = requireOneOf(
    charge.chargeCalculationType,
    [1, 2, 3, 4] as const,
    `${label}.chargeCalculationType`,
  );
  const penalty = charge.penalty ?? false;
  if (typeof penalty !== 'boolean') throw new RangeError(`${label}.penalty must be a boolean`);
  if (penalty && time === DISBURSEMENT)
    throw new RangeError(`${label}: a disbursement charge cannot be a penalty`);
  let dueDay = Number.NaN;
  const hasDueDate = charge.dueDate !== null && charge.dueDate !== undefined;
  if (time === SPECIFIED_DUE_DATE) {
    if (!hasDueDate) throw new RangeError(`${label}.dueDate is required for a specified-due-date charge`);
    dueDay = epochDayOf(charge.dueDate as string);
    if (dueDay < disbursementDay) throw new RangeError(`${label}.dueDate is before the disbursement`);
  } else if (hasDueDate) {
    throw new RangeError(`${label}.dueDate is only for specified-due-date charges`);
  }
  const hasCaps =
    (charge.minCap !== null && charge.minCap !== undefined) ||
    (charge.maxCap !== null && charge.maxCap !== undefined);
  if (hasCaps && (time !== DISBURSEMENT || calculation === CALC_FLAT)) {
    throw new RangeError(`${label}: minCap/maxCap only apply to percentage disbursement charges`);
  }
  const capMinor = (cap: string | null | undefined, name: string): bigint | null => {
    if (cap === null || cap === undefined) return null;
    const value = parseDecimalToMinor(cap, digits);
    if (value < 0n) throw new RangeError(`${label}.${name} must not be negative`);
    return value;
  };
  let flatMinor = 0n;
  let percent = { coefficient: 0n, scale: 0 };
  if (calculation === CALC_FLAT) {
    flatMinor = parseDecimalToMinor(charge.amount, digits);
    if (flatMinor < 0n) throw new RangeError(`${label}.amount must not be negative`);
  } else {
    percent = decimalParts(charge.amount, `${label}.amount`);
  }
  return {
    time,
    calculation,
    flatMinor,
    percent,
    penalty,
    dueDay,
    minCapMinor: capMinor(charge.minCap, 'minCap'),
    maxCapMinor: capMinor(charge.maxCap, 'maxCap'),
  };
}
