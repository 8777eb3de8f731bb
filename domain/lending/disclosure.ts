/**
 * The Truth in Lending disclosure of a closed-end loan (Regulation Z, 12 CFR 1026.18) from its repayment
 * schedule (domain/lending/schedule.ts) and its prepaid finance charges, with the annual percentage rate of
 * Appendix J (domain/lending/apr.ts). Pure: no clock (the caller stamps `finalizedAt` when it freezes the result).
 *
 * Definitions (all money in the schedule's currency and digits, exact integer arithmetic):
 * - amount financed = principal − prepaid finance charges (§1026.18(b): the principal loan amount, less any
 *   prepaid finance charge — whether withheld from the proceeds or paid separately);
 * - total of payments = Σ of the scheduled installments' `totalDueForPeriod` (§1026.18(h)): principal,
 *   interest, and every fee or penalty the schedule itself carries, so installment fees count as finance
 *   charges (§1026.4(a)); contingent late charges are not scheduled and stay out (§1026.4(c)(2));
 * - finance charge = total of payments − amount financed (§1026.18(d)): interest + scheduled fees + prepaid
 *   finance charges;
 * - annual percentage rate (§1026.18(e), §1026.22(a)(1)): `computeApr` over the amount financed, advanced on
 *   the disbursement date, and the scheduled payments by due date; `aprExact` is its 10-decimal figure and
 *   `annualPercentageRate` that figure rounded half-up to 2 decimals (`NEAREST_0_01_PERCENT_HALF_UP`). The
 *   two-step rounding can differ from rounding the exact root directly only when the root lies within
 *   5e-11 of a half-way point, and then by 0.01 — inside every tolerance of §1026.22(a).
 * - Installments whose total due is zero (a grace period) are not payments: they appear neither in the APR
 *   equation nor in the payment schedule.
 *
 * Unit-period of Appendix J (b)(4) from the repayment frequency: every 1 month → MONTH, 2 → TWOMONTH,
 * 3 → QUARTER, 6 → SEMIYEAR, 12 months or more, or any number of years → YEAR (the unit-period does not
 * exceed a year, (b)(4)(i)); every 1, 2, 4 weeks (or 7, 14, 28 days) → WEEK, BIWEEK, FOURWEEK. Other
 * frequencies are RangeErrors: Appendix J has rules for them (a day, 3 or 5 weeks, 4 or 5 months —
 * (b)(5)(iii)–(iv)), but `computeApr` does not implement those unit-periods, and the nearest implemented one
 * would mis-place every payment (a 30-day cycle drifts against calendar months). A schedule with a single
 * payment is a single-advance, single-payment transaction: its unit-period is the term ((b)(4)(ii)), in days
 * (`{ days: n }`, 365/n per year, (b)(5)(vii)) when it is at most 365 days, else a year.
 *
 * Itemization (§1026.18(c)): the principal; the prepaid finance charges by name and their total; the amount
 * given to the borrower = principal − every charge due at disbursement (those charges are taken to be
 * withheld from the proceeds); the amount paid to others on the borrower's behalf = the charges due at
 * disbursement that are not finance charges (so amount given + paid to others = amount financed).
 *
 * Tolerance (§1026.22(a)(2)–(3)): the transaction is IRREGULAR when it has multiple advances (never: one
 * disbursement), irregular payment periods, or irregular payment amounts — but, as footnote 46 to
 * §1026.22(a)(3) says, an irregular first period or an irregular first or final payment does not make it
 * irregular. So: every interval between consecutive payments must be one repayment period (a monthly series
 * may move to a shorter month's last day), and every payment but the first and the last must be equal. The
 * ¼-point tolerance applies only when the policy is IRREGULAR and the transaction is irregular; otherwise ⅛
 * of a point. The disclosed APR (the rounding of the exact one, or `disclosedAnnualPercentageRate` when a
 * figure was already disclosed, e.g. on boarding) must lie within it of the exact APR.
 *
 * Prepayment (§1026.18(k)): this engine imposes no prepayment penalty; whether part of a precomputed finance
 * charge (the prepaid finance charges, flat interest) is refunded is the input's `refundOfFinanceCharge`,
 * false when absent. Late payment (§1026.18(l)): the terms given, echoed after validation, or null.
 *
 * Errors: RangeError for malformed input (amounts with more digits than the schedule's currency, unknown
 * rounding or policy, a disbursement date other than the schedule's, unsupported frequencies, prepaid
 * finance charges above the charges due at disbursement, no scheduled payment); `DisclosureUnavailableError`
 * when the inputs are well-formed but no lawful disclosure exists (docs/design.md §5: HTTP 409
 * `error.msg.loan.apr.disclosure.unavailable`).
 */

import { type Civil, epochDayOfCivil, isLastDayOfMonth, parseIsoDate } from '../calendar';
import { formatMinor, parseDecimalToMinor } from '../money';
import { type AprPayment, computeApr, type NamedUnitPeriod, type UnitPeriod } from './apr';
import type { PeriodFrequencyType, Schedule } from './schedule';

export type RepaymentFrequencyUnit = 'DAYS' | 'WEEKS' | 'MONTHS' | 'YEARS';

/** Installments fall due every `every` units. */
export interface RepaymentFrequency {
  /** Integer ≥ 1. */
  every: number;
  unit: RepaymentFrequencyUnit;
}

export type AprRounding = 'NEAREST_0_01_PERCENT_HALF_UP';
export type AprTolerancePolicy = 'REGULAR' | 'IRREGULAR';

/** A charge due at disbursement that is a finance charge (§1026.4), e.g. an origination fee. */
export interface PrepaidFinanceCharge {
  /** Name shown in the itemization, non-empty. */
  name: string;
  /** Decimal string ≥ 0 with at most the schedule currency's digits. */
  amount: string;
}

/** Late-payment terms (§1026.18(l)); at least one of `flatFee` and `percentOfPayment`. */
export interface LatePaymentTerms {
  /** Days after the due date before the charge may be imposed, integer ≥ 0. */
  graceDays: number;
  /** Charge per late payment, decimal string in the loan currency. */
  flatFee?: string;
  /** Charge as percent of the late payment (`"5"` = 5 %), decimal string from 0 to 100. */
  percentOfPayment?: string;
  /** Largest charge per late payment, decimal string in the loan currency. */
  maximumFee?: string;
}

export interface AprDisclosureInput {
  /** The loan's schedule as `generateSchedule` returns it. */
  schedule: Schedule;
  /** ISO date of the single advance; must be the schedule's disbursement date. */
  disbursementDate: string;
  /** The schedule's repayment frequency (chooses the Appendix J unit-period). */
  repaymentFrequency: RepaymentFrequency;
  /** Charges due at disbursement that are finance charges; their total may not exceed the schedule's. */
  prepaidFinanceCharges: PrepaidFinanceCharge[];
  aprRounding: AprRounding;
  aprTolerancePolicy: AprTolerancePolicy;
  /**
   * An APR already disclosed for this transaction (percent, 2 decimals, e.g. a boarded loan's): disclosed
   * as is after the tolerance check. Absent: the exact APR rounded per `aprRounding` is disclosed.
   */
  disclosedAnnualPercentageRate?: string;
  /** True when a part of a precomputed finance charge is refunded on prepayment in full; default false. */
  refundOfFinanceCharge?: boolean;
  latePayment?: LatePaymentTerms;
}

/** Consecutive equal payments (§1026.18(g)). */
export interface PaymentGroup {
  count: number;
  /** Each payment, decimal string. */
  amount: string;
  /** ISO date of the group's first payment. */
  firstDueDate: string;
  /** The loan's repayment frequency. */
  frequency: RepaymentFrequency;
}

export interface AprDisclosure {
  /** ISO 4217 code of every amount; amounts carry the schedule's `digitsAfterDecimal`. */
  currency: string;
  /** Percent, 2 decimals (`"9.69"`). */
  annualPercentageRate: string;
  /** Percent, 10 decimals: the Appendix J rate before rounding. */
  aprExact: string;
  aprRounding: AprRounding;
  /** The Appendix J unit-period the APR was computed with. */
  unitPeriod: UnitPeriod;
  financeCharge: string;
  amountFinanced: string;
  totalOfPayments: string;
  paymentSchedule: PaymentGroup[];
  itemization: {
    principal: string;
    amountGivenToBorrower: string;
    amountPaidToOthersOnBorrowersBehalf: string;
    prepaidFinanceCharges: PrepaidFinanceCharge[];
    prepaidFinanceChargeTotal: string;
  };
  prepayment: { penalty: false; refundOfFinanceCharge: boolean };
  latePayment: LatePaymentTerms | null;
  toleranceCheck: {
    policy: AprTolerancePolicy;
    /** The transaction by footnote 46 to §1026.22(a)(3). */
    transaction: 'REGULAR' | 'IRREGULAR';
    /** Percentage points allowed: "0.125" or "0.25". */
    tolerance: string;
    /** |annualPercentageRate − aprExact| in percentage points, 10 decimals. */
    difference: string;
    withinTolerance: boolean;
  };
}

export type DisclosureUnavailableReason =
  | 'AMOUNT_FINANCED_NOT_POSITIVE'
  | 'FINANCE_CHARGE_NEGATIVE'
  | 'APR_NOT_COMPUTABLE'
  | 'APR_OUTSIDE_TOLERANCE';

/** The Shape A code of docs/design.md §5 for an approval whose disclosure cannot be produced (409). */
export const disclosureUnavailableCode = 'error.msg.loan.apr.disclosure.unavailable';

/** Well-formed inputs for which no lawful §1026.18 disclosure exists. */
export class DisclosureUnavailableError extends Error {
  readonly code = disclosureUnavailableCode;
  readonly reason: DisclosureUnavailableReason;

  constructor(reason: DisclosureUnavailableReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DisclosureUnavailableError';
    this.reason = reason;
  }
}

const frequencyUnits: readonly RepaymentFrequencyUnit[] = ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'];

/** Fineract's `repaymentEvery` + `repaymentFrequencyType` (0 days, 1 weeks, 2 months, 3 years). */
export function repaymentFrequencyOf(
  repaymentEvery: number,
  repaymentFrequencyType: PeriodFrequencyType,
): RepaymentFrequency {
  const unit = frequencyUnits[repaymentFrequencyType];
  if (unit === undefined) throw new RangeError(`unknown repaymentFrequencyType ${repaymentFrequencyType}`);
  return { every: repaymentEvery, unit };
}

const monthUnits: Readonly<Record<number, NamedUnitPeriod>> = {
  1: 'MONTH',
  2: 'TWOMONTH',
  3: 'QUARTER',
  6: 'SEMIYEAR',
};
const weekUnits: Readonly<Record<number, NamedUnitPeriod>> = { 1: 'WEEK', 2: 'BIWEEK', 4: 'FOURWEEK' };

function validateFrequency(frequency: RepaymentFrequency): void {
  const { every, unit } = frequency ?? {};
  if (!Number.isSafeInteger(every) || every < 1) {
    throw new RangeError(`repayment frequency: every must be a whole number ≥ 1, got ${String(every)}`);
  }
  if (!frequencyUnits.includes(unit)) {
    throw new RangeError(`unknown repayment frequency unit ${JSON.stringify(unit)}`);
  }
}

/** The Appendix J unit-period of a series of payments at `frequency` (see the file comment). */
export function aprUnitPeriodOf(frequency: RepaymentFrequency): NamedUnitPeriod {
  validateFrequency(frequency);
  const { every, unit } = frequency;
  let named: NamedUnitPeriod | undefined;
  if (unit === 'YEARS' || (unit === 'MONTHS' && every >= 12)) named = 'YEAR';
  else if (unit === 'MONTHS') named = monthUnits[every];
  else if (unit === 'WEEKS') named = weekUnits[every];
  else if (every % 7 === 0) named = weekUnits[every / 7];
  if (named === undefined) {
    throw new RangeError(
      `no implemented Appendix J unit-period for repayments every ${every} ${unit.toLowerCase()}: ` +
        'supported are 1, 2, 3, 6 or ≥ 12 months, years, and 1, 2 or 4 weeks (7, 14 or 28 days)',
    );
  }
  return named;
}

/** `YYYY-MM-DD`, a real calendar date; RangeError naming `what` otherwise. */
function parseDate(date: unknown, what: string): Civil {
  try {
    return parseIsoDate(date);
  } catch {
    throw new RangeError(`${what}: not an ISO calendar date: ${JSON.stringify(date)}`);
  }
}

/** True when `to` is one repayment period after `from` (a month-based series may use a month's last day). */
function isRegularInterval(from: Civil, to: Civil, frequency: RepaymentFrequency): boolean {
  if (frequency.unit === 'DAYS' || frequency.unit === 'WEEKS') {
    const days = frequency.every * (frequency.unit === 'WEEKS' ? 7 : 1);
    return epochDayOfCivil(to) - epochDayOfCivil(from) === days;
  }
  const months = frequency.every * (frequency.unit === 'YEARS' ? 12 : 1);
  if (to.year * 12 + to.month - (from.year * 12 + from.month) !== months) return false;
  return to.day === from.day || isLastDayOfMonth(from) || isLastDayOfMonth(to);
}

function parseMoneyText(amount: unknown, scale: number, what: string): bigint {
  if (typeof amount !== 'string') throw new RangeError(`${what} must be a decimal string`);
  try {
    return parseDecimalToMinor(amount, scale);
  } catch (error) {
    throw new RangeError(`${what}: ${(error as Error).message}`);
  }
}

const APR_DECIMALS = 10;
const TOLERANCE_REGULAR = 1_250_000_000n; // 0.125 percentage point at 10 decimals
const TOLERANCE_IRREGULAR = 2_500_000_000n; // 0.25

/** Half-up rounding of a non-negative 10-decimal integer to 2 decimals, still as a 10-decimal integer. */
function roundTwoDecimals(scaled: bigint): bigint {
  const step = 10n ** BigInt(APR_DECIMALS - 2);
  const magnitude = scaled < 0n ? -scaled : scaled;
  const rounded = ((magnitude + step / 2n) / step) * step;
  return scaled < 0n ? -rounded : rounded;
}

function validateLatePayment(terms: LatePaymentTerms, scale: number): LatePaymentTerms {
  if (!Number.isSafeInteger(terms.graceDays) || terms.graceDays < 0) {
    throw new RangeError(`latePayment.graceDays must be a whole number ≥ 0, got ${String(terms.graceDays)}`);
  }
  if (terms.flatFee === undefined && terms.percentOfPayment === undefined) {
    throw new RangeError('latePayment needs a flatFee or a percentOfPayment');
  }
  const result: LatePaymentTerms = { graceDays: terms.graceDays };
  for (const key of ['flatFee', 'maximumFee'] as const) {
    const value = terms[key];
    if (value === undefined) continue;
    if (parseMoneyText(value, scale, `latePayment.${key}`) < 0n) {
      throw new RangeError(`latePayment.${key} must not be negative, got ${value}`);
    }
    result[key] = value;
  }
  if (terms.percentOfPayment !== undefined) {
    const percent = terms.percentOfPayment;
    const match = typeof percent === 'string' ? /^(\d{1,3})(?:\.(\d{1,6}))?$/.exec(percent) : null;
    const millionths = match ? parseDecimalToMinor(percent, 6) : -1n;
    if (millionths < 0n || millionths > 100_000_000n) {
      throw new RangeError(
        `latePayment.percentOfPayment must be a decimal from 0 to 100, got ${String(percent)}`,
      );
    }
    result.percentOfPayment = percent;
  }
  return result;
}

/** The §1026.18 disclosure of a single-advance closed-end loan; see the file comment. */
export function buildAprDisclosure(input: AprDisclosureInput): AprDisclosure {
  const { schedule, repaymentFrequency } = input;
  if (input.aprRounding !== 'NEAREST_0_01_PERCENT_HALF_UP') {
    throw new RangeError(`unknown aprRounding ${JSON.stringify(input.aprRounding)}`);
  }
  if (input.aprTolerancePolicy !== 'REGULAR' && input.aprTolerancePolicy !== 'IRREGULAR') {
    throw new RangeError(`unknown aprTolerancePolicy ${JSON.stringify(input.aprTolerancePolicy)}`);
  }
  const scale = schedule.currency.digitsAfterDecimal;
  const [disbursement, ...installments] = schedule.periods;
  const disbursementCivil = parseDate(input.disbursementDate, 'disbursementDate');
  if (input.disbursementDate !== disbursement.dueDate) {
    throw new RangeError(
      `disbursementDate ${input.disbursementDate} is not the schedule's disbursement date ${disbursement.dueDate}`,
    );
  }
  validateFrequency(repaymentFrequency);

  const principal = parseMoneyText(disbursement.principalDisbursed, scale, 'schedule principalDisbursed');
  const chargesAtDisbursement = parseMoneyText(disbursement.feeChargesDue, scale, 'schedule feeChargesDue');

  const prepaidFinanceCharges: PrepaidFinanceCharge[] = [];
  let prepaidTotal = 0n;
  if (!Array.isArray(input.prepaidFinanceCharges))
    throw new RangeError('prepaidFinanceCharges must be an array');
  for (const [k, charge] of input.prepaidFinanceCharges.entries()) {
    if (typeof charge.name !== 'string' || charge.name.trim() === '') {
      throw new RangeError(`prepaidFinanceCharges[${k}].name must be a non-empty string`);
    }
    const amount = parseMoneyText(charge.amount, scale, `prepaidFinanceCharges[${k}].amount`);
    if (amount < 0n) throw new RangeError(`prepaidFinanceCharges[${k}].amount must not be negative`);
    prepaidTotal += amount;
    prepaidFinanceCharges.push({ name: charge.name, amount: formatMinor(amount, scale) });
  }
  if (prepaidTotal > chargesAtDisbursement) {
    throw new RangeError(
      `prepaid finance charges ${formatMinor(prepaidTotal, scale)} exceed the charges due at disbursement ` +
        `${disbursement.feeChargesDue}`,
    );
  }

  // Payments: the installments with something due, in date order.
  const payments: AprPayment[] = [];
  const amounts: bigint[] = [];
  const dates: Civil[] = [];
  let totalOfPayments = 0n;
  let previousDay = epochDayOfCivil(disbursementCivil);
  for (const installment of installments) {
    const amount = parseMoneyText(
      installment.totalDueForPeriod,
      scale,
      `period ${installment.period} totalDue`,
    );
    if (amount < 0n) throw new RangeError(`period ${installment.period} has a negative total due`);
    if (amount === 0n) continue;
    const civil = parseDate(installment.dueDate, `period ${installment.period} dueDate`);
    const day = epochDayOfCivil(civil);
    if (day < previousDay) {
      throw new RangeError(
        `period ${installment.period} falls due before the disbursement or the period before`,
      );
    }
    previousDay = day;
    totalOfPayments += amount;
    amounts.push(amount);
    dates.push(civil);
    payments.push({ amount: installment.totalDueForPeriod, date: installment.dueDate });
  }
  if (payments.length === 0) throw new RangeError('the schedule has no payment');

  const amountFinanced = principal - prepaidTotal;
  if (amountFinanced <= 0n) {
    throw new DisclosureUnavailableError(
      'AMOUNT_FINANCED_NOT_POSITIVE',
      `amount financed ${formatMinor(amountFinanced, scale)} is not positive (§1026.18(b))`,
    );
  }
  const financeCharge = totalOfPayments - amountFinanced;
  if (financeCharge < 0n) {
    throw new DisclosureUnavailableError(
      'FINANCE_CHARGE_NEGATIVE',
      `finance charge ${formatMinor(financeCharge, scale)} is negative: the payments total less than the ` +
        'amount financed (§1026.18(d))',
    );
  }

  // A single payment is a single-advance, single-payment transaction: its term is the unit-period.
  let unitPeriod: UnitPeriod;
  if (payments.length === 1) {
    const termDays = epochDayOfCivil(dates[0]!) - epochDayOfCivil(disbursementCivil);
    unitPeriod = termDays >= 1 && termDays <= 365 ? { days: termDays } : 'YEAR';
  } else {
    unitPeriod = aprUnitPeriodOf(repaymentFrequency);
  }

  let aprExact: string;
  try {
    aprExact = computeApr({
      amountFinanced: formatMinor(amountFinanced, scale),
      advanceDate: input.disbursementDate,
      unitPeriod,
      payments,
    }).apr;
  } catch (error) {
    throw new DisclosureUnavailableError(
      'APR_NOT_COMPUTABLE',
      `the Appendix J APR cannot be computed: ${(error as Error).message}`,
      { cause: error },
    );
  }

  const exactScaled = parseDecimalToMinor(aprExact, APR_DECIMALS);
  let disclosedScaled = roundTwoDecimals(exactScaled);
  if (input.disclosedAnnualPercentageRate !== undefined) {
    const disclosed = input.disclosedAnnualPercentageRate;
    if (typeof disclosed !== 'string' || !/^\d+\.\d{2}$/.test(disclosed)) {
      throw new RangeError(
        `disclosedAnnualPercentageRate must be a percent with 2 decimals, got ${String(disclosed)}`,
      );
    }
    disclosedScaled = parseDecimalToMinor(disclosed, APR_DECIMALS);
  }

  const irregular = isIrregular(amounts, dates, repaymentFrequency);
  const useIrregular = input.aprTolerancePolicy === 'IRREGULAR' && irregular;
  const tolerance = useIrregular ? TOLERANCE_IRREGULAR : TOLERANCE_REGULAR;
  const difference =
    disclosedScaled >= exactScaled ? disclosedScaled - exactScaled : exactScaled - disclosedScaled;
  const annualPercentageRate = formatMinor(disclosedScaled, APR_DECIMALS).slice(0, -(APR_DECIMALS - 2));
  if (difference > tolerance) {
    throw new DisclosureUnavailableError(
      'APR_OUTSIDE_TOLERANCE',
      `the disclosed APR ${annualPercentageRate} % is more than ${formatMinor(tolerance, APR_DECIMALS)} ` +
        `percentage point from the exact ${aprExact} % (§1026.22(a)(2)-(3))`,
    );
  }

  return {
    currency: schedule.currency.code,
    annualPercentageRate,
    aprExact,
    aprRounding: input.aprRounding,
    unitPeriod,
    financeCharge: formatMinor(financeCharge, scale),
    amountFinanced: formatMinor(amountFinanced, scale),
    totalOfPayments: formatMinor(totalOfPayments, scale),
    paymentSchedule: groupPayments(amounts, payments, repaymentFrequency, scale),
    itemization: {
      principal: formatMinor(principal, scale),
      amountGivenToBorrower: formatMinor(principal - chargesAtDisbursement, scale),
      amountPaidToOthersOnBorrowersBehalf: formatMinor(chargesAtDisbursement - prepaidTotal, scale),
      prepaidFinanceCharges,
      prepaidFinanceChargeTotal: formatMinor(prepaidTotal, scale),
    },
    prepayment: { penalty: false, refundOfFinanceCharge: input.refundOfFinanceCharge ?? false },
    latePayment: input.latePayment === undefined ? null : validateLatePayment(input.latePayment, scale),
    toleranceCheck: {
      policy: input.aprTolerancePolicy,
      transaction: irregular ? 'IRREGULAR' : 'REGULAR',
      tolerance: useIrregular ? '0.25' : '0.125',
      difference: formatMinor(difference, APR_DECIMALS),
      withinTolerance: true,
    },
  };
}

/**
 * Footnote 46 to §1026.22(a)(3): irregular payment periods or amounts, not counting an irregular first
 * period or an irregular first or final payment.
 */
function isIrregular(amounts: bigint[], dates: Civil[], frequency: RepaymentFrequency): boolean {
  for (let k = 1; k < dates.length; k++) {
    if (!isRegularInterval(dates[k - 1]!, dates[k]!, frequency)) return true;
  }
  for (let k = 2; k < amounts.length - 1; k++) {
    if (amounts[k] !== amounts[1]) return true;
  }
  return false;
}

function groupPayments(
  amounts: bigint[],
  payments: AprPayment[],
  frequency: RepaymentFrequency,
  scale: number,
): PaymentGroup[] {
  const groups: PaymentGroup[] = [];
  let previous: bigint | undefined;
  for (const [k, amount] of amounts.entries()) {
    const last = groups[groups.length - 1];
    if (last !== undefined && amount === previous) {
      last.count += 1;
    } else {
      groups.push({
        count: 1,
        amount: formatMinor(amount, scale),
        firstDueDate: (payments[k] as { date: string }).date,
        frequency: { every: frequency.every, unit: frequency.unit },
      });
    }
    previous = amount;
  }
  return groups;
}
