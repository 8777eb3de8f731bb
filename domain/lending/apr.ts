/**
 * Annual percentage rate of a closed-end, single-advance credit transaction by the actuarial method
 * of Regulation Z, 12 CFR 1026 Appendix J.
 *
 * Input (`computeApr`):
 * - `amountFinanced`: decimal string (`"5000.00"`), > 0. The single advance, made on `advanceDate`.
 * - `advanceDate`: ISO calendar date `YYYY-MM-DD`; the term begins there (App. J (b)(2)).
 * - `unitPeriod`: the unit-period of App. J (b)(4), chosen by the caller:
 *   `WEEK` | `BIWEEK` | `FOURWEEK` (7, 14, 28 days; 52, 26, 13 per year — (b)(5)(iv)),
 *   `SEMIMONTH` (15 days of 30-day months; 24 per year — (b)(5)(iii)),
 *   `MONTH` (12 per year — (b)(5)(ii)),
 *   `TWOMONTH` | `QUARTER` | `SEMIYEAR` (60, 90, 180 days of 30-day months; 6, 4, 2 per year — (b)(5)(iii)),
 *   `YEAR` (1 per year — (b)(5)(v)),
 *   or `{ days: n }`, 1 ≤ n ≤ 365: a single-advance, single-payment transaction whose term of n days is the
 *   unit-period, 365/n per year ((b)(4)(ii), (b)(5)(vi)–(vii)). A single payment due a whole number of
 *   months later may instead use `MONTH`/`TWOMONTH`/`QUARTER`/`SEMIYEAR` ((b)(5)(vi): 12 ÷ months).
 * - `payments`: at least one; each has a positive decimal-string `amount` and either
 *   - `date` (ISO, not before `advanceDate`), converted to whole unit-periods `t` and a fraction `f` by
 *     (b)(3)–(b)(5): whole months are counted back from the payment date to the advance date, the odd
 *     days left at the start of the term are the fraction (÷30 for a month; 30 per counted month plus odd
 *     days, ÷15 or ÷(30 × months) for a semimonth or multi-month unit; days ÷7/14/28 for week units;
 *     remaining months ÷12, else remaining days ÷365, for a year); or
 *   - `t` (integer ≥ 0) and `f` (0 ≤ f ≤ 1, a decimal string `"0.4"` or a ratio `"6/15"`), given directly.
 *   Month-end ((b)(3)): months are counted back to the same day of the month, or the month's last day when
 *   it is shorter. A payment on the last day of a short month counts back from the largest day of month
 *   among all dated payments, so a series on the 30th maps Feb 28 back to Jan 30 and a series on the last
 *   day of each month maps Apr 30 back to Mar 31. Schedules that mix a month-end outlier into another
 *   series should be passed in `t`/`f` form.
 *
 * Output: `unitPeriodRate` — the rate i per unit-period as a decimal fraction (0.0080750000 = 0.8075 %);
 * `apr` — i × unit-periods per year × 100 ((b)(1)), in percent. Both rounded half-up to 10 decimals; a
 * disclosed APR is correct when it rounds to the published figure at 2 decimals ((b)(9)). A negative rate
 * (payments totalling less than the amount financed) is returned as such.
 *
 * Method: the general equation (b)(8) for one advance at time zero,
 *   A = Σ_k P_k / ((1 + f_k·i)(1 + i)^t_k),
 * the fraction earning simple interest at f·i ((b)(6)), solved for i by iteration as (b)(9) describes, in
 * two stages (`computeApr`):
 * 1. Locate. Newton–Raphson on the logarithm of the right side (which falls strictly in i and is convex)
 *    inside a bracket found by doubling above 0 or halving towards −1, with a bisection step whenever an
 *    iterate would leave the bracket, and two last steps with each discount factor as exp(−t·log1p(i)) —
 *    run in IEEE-754 doubles, which are only a search heuristic here: no digit of the result is taken from
 *    them, and no money amount leaves the module as a double.
 * 2. Certify. Around the located root r, two rates lo < r < hi are chosen and the right side is bounded in
 *    exact integer arithmetic (bigint fixed point with 128 fraction bits): a lower bound at lo, every product
 *    and quotient rounded down, and an upper bound at hi, every one rounded up. All terms are positive
 *    (1 + i > 0, 1 + f·i > 0, P > 0), so these are true bounds; when the lower bound at lo exceeds A and the
 *    upper bound at hi is below it, the right side being strictly falling puts the exact root strictly
 *    between lo and hi. The outputs are returned when lo and hi round to the same 10-decimal figures, so
 *    they are those of the exact root. Otherwise the bracket is narrowed by the chord through the two
 *    bounds (or widened when a bound missed) and certified again, a few times at most.
 * Each bound is one Horner pass per distinct fraction f over the payments in descending t; a run of m equal
 * payments one unit-period apart (a level stream) costs O(log m) through 1 + v + … + v^(m−1) built by
 * doubling (v = 1/(1+i)), so an equal-installment schedule costs a few dozen products per pass and a
 * schedule of 360 different payments about 360.
 * When the fast path cannot certify (rates near −100 % or beyond 2^40 per unit-period, overflow of the
 * doubles, a root within about 1e-30 of a rounding boundary, or no root at all), `computeAprReference`
 * decides: the same Newton–Raphson and bracket in decimal.js at 40 significant digits, half-up, stopping
 * when a step is below 1e-30; it is also the oracle the tests hold the fast path to. Both are pure
 * JavaScript, safe in the Temporal workflow sandbox.
 *
 * Errors (RangeError): malformed or non-positive amounts, malformed dates, an unknown unit-period, no
 * payments, a payment before the advance date or only payments on it, a `{ days }` unit-period with other
 * than one payment or a term other than n days, t/f out of range, a rate below −100 % + 2⁻⁶⁰ per
 * unit-period (no negative-rate bracket) or above 2⁴⁰ per unit-period, or a solver that does not converge.
 */

import Decimal from 'decimal.js';
import { type Civil, daysInMonth, epochDayOfCivil, isLastDayOfMonth, parseIsoDate } from '../calendar';

export type NamedUnitPeriod =
  | 'WEEK'
  | 'BIWEEK'
  | 'FOURWEEK'
  | 'SEMIMONTH'
  | 'MONTH'
  | 'TWOMONTH'
  | 'QUARTER'
  | 'SEMIYEAR'
  | 'YEAR';

/** A named unit-period, or the whole term in days of a single-payment transaction shorter than a year. */
export type UnitPeriod = NamedUnitPeriod | { days: number };

/** One payment, placed by its date or directly by whole unit-periods `t` and fraction `f`. */
export type AprPayment = { amount: string } & ({ date: string } | { t: number; f: string });

/** The input shape: `payments` is `Array<{amount} & ({date} | {t, f})>`. */
export interface AprInput {
  amountFinanced: string;
  advanceDate: string;
  unitPeriod: UnitPeriod;
  payments: Array<AprPayment>;
}

export interface AprResult {
  /** Annual percentage rate in percent, 10 decimals. */
  apr: string;
  /** Rate per unit-period as a decimal fraction, 10 decimals. */
  unitPeriodRate: string;
}

// A private constructor: global decimal.js settings belong to whoever else imports the library.
const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -60, toExpPos: 60 });
type Dec = Decimal;

const ONE = new Dec(1);
const OUTPUT_DECIMALS = 10;
const MAX_ITERATIONS = 300;
// Far below the 10 output decimals, far above the 40-digit working precision near typical rates.
const TOLERANCE = new Dec('1e-30');
// Rates beyond these are not credit terms; reaching them means the inputs are wrong.
const MAX_UPPER_DOUBLINGS = 40; // 2^40 per unit-period
const MAX_LOWER_HALVINGS = 60; // −1 + 2^-60 per unit-period

type Rule =
  | { kind: 'days'; days: number } // (b)(5)(iv)
  | { kind: 'month' } // (b)(5)(ii)
  | { kind: 'thirty'; divisor: number } // (b)(5)(iii)
  | { kind: 'year' } // (b)(5)(v)
  | { kind: 'term'; days: number }; // (b)(4)(ii), (b)(5)(vii)

interface UnitRule {
  rule: Rule;
  /** Unit-periods per year as the ratio num/den, kept exact until the final multiplication. */
  perYear: { num: number; den: number };
}

const namedRules: Record<NamedUnitPeriod, UnitRule> = {
  WEEK: { rule: { kind: 'days', days: 7 }, perYear: { num: 52, den: 1 } },
  BIWEEK: { rule: { kind: 'days', days: 14 }, perYear: { num: 26, den: 1 } },
  FOURWEEK: { rule: { kind: 'days', days: 28 }, perYear: { num: 13, den: 1 } },
  SEMIMONTH: { rule: { kind: 'thirty', divisor: 15 }, perYear: { num: 24, den: 1 } },
  MONTH: { rule: { kind: 'month' }, perYear: { num: 12, den: 1 } },
  TWOMONTH: { rule: { kind: 'thirty', divisor: 60 }, perYear: { num: 6, den: 1 } },
  QUARTER: { rule: { kind: 'thirty', divisor: 90 }, perYear: { num: 4, den: 1 } },
  SEMIYEAR: { rule: { kind: 'thirty', divisor: 180 }, perYear: { num: 2, den: 1 } },
  YEAR: { rule: { kind: 'year' }, perYear: { num: 1, den: 1 } },
};

function fail(message: string): never {
  throw new RangeError(`computeApr: ${message}`);
}

function unitRuleOf(unitPeriod: UnitPeriod): UnitRule {
  if (typeof unitPeriod === 'string') {
    if (Object.hasOwn(namedRules, unitPeriod)) return namedRules[unitPeriod];
    return fail(`unknown unit period ${JSON.stringify(unitPeriod)}`);
  }
  const days = unitPeriod?.days;
  if (!Number.isSafeInteger(days) || days < 1 || days > 365) {
    return fail(`a { days } unit period must be a whole number of days from 1 to 365, got ${String(days)}`);
  }
  return { rule: { kind: 'term', days }, perYear: { num: 365, den: days } };
}

// ---- input ------------------------------------------------------------------------------------------------

/** A positive decimal amount: `coefficient` × 10^-`scale`, and the text it came from. */
interface Amount {
  text: string;
  coefficient: bigint;
  scale: number;
}

const decimalPattern = /^[+-]?\d+(\.\d+)?$/;

function parsePositive(value: unknown, what: string): Amount {
  if (typeof value !== 'string' || !decimalPattern.test(value)) {
    return fail(`${what} must be a decimal string, got ${JSON.stringify(value)}`);
  }
  const signed = value[0] === '-' || value[0] === '+';
  const unsigned = signed ? value.slice(1) : value;
  const point = unsigned.indexOf('.');
  const digits = point < 0 ? unsigned : unsigned.slice(0, point) + unsigned.slice(point + 1);
  const coefficient = BigInt(digits);
  if (coefficient === 0n || value[0] === '-') return fail(`${what} must be positive, got ${value}`);
  return { text: value, coefficient, scale: point < 0 ? 0 : unsigned.length - point - 1 };
}

/** An exact fraction of a unit-period, 0 ≤ num ≤ den, den > 0. */
interface Fraction {
  num: bigint;
  den: bigint;
}

function parseFraction(value: unknown, what: string): Fraction {
  let f: Fraction | undefined;
  if (typeof value === 'string') {
    const ratio = /^(\d+)\/(\d+)$/.exec(value);
    if (ratio) {
      const den = BigInt(ratio[2]!);
      if (den !== 0n) f = { num: BigInt(ratio[1]!), den };
    } else if (/^\d+(\.\d+)?$/.test(value)) {
      const point = value.indexOf('.');
      f =
        point < 0
          ? { num: BigInt(value), den: 1n }
          : {
              num: BigInt(value.slice(0, point) + value.slice(point + 1)),
              den: 10n ** BigInt(value.length - point - 1),
            };
    }
  }
  if (f === undefined) return fail(`${what} must be a decimal or ratio string, got ${JSON.stringify(value)}`);
  // Appendix J's fractions never reach a whole unit-period except the 30/30 of a 31-day month; more
  // than one would also let 1 + f·i vanish inside the rate bracket.
  if (f.num > f.den) return fail(`${what} must be between 0 and 1, got ${value}`);
  return f;
}

/** The date `months` months before `from` on `nominalDay`, or the month's last day when it is shorter ((b)(3)). */
function monthsBefore(from: Civil, months: number, nominalDay: number): Civil {
  const index = from.year * 12 + (from.month - 1) - months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return { year, month, day: Math.min(nominalDay, daysInMonth(year, month)) };
}

/**
 * Full months counted back from `payment` while staying on or after `advance` ((b)(5)(ii)), the date
 * reached, and the odd days from `advance` forward to that date.
 */
function countMonthsBack(advance: Civil, advanceDay: number, payment: Civil, nominalDay: number) {
  let months = payment.year * 12 + payment.month - (advance.year * 12 + advance.month);
  let reached = monthsBefore(payment, months, nominalDay);
  // Landing in the advance's own month but before the advance day: one month fewer fits.
  if (epochDayOfCivil(reached) < advanceDay) {
    months -= 1;
    reached = monthsBefore(payment, months, nominalDay);
  }
  return { months, reached, oddDays: epochDayOfCivil(reached) - advanceDay };
}

/** Whole unit-periods `t` and the fraction `num/den` of one more. */
interface Placement {
  t: number;
  num: number;
  den: number;
}

/** Whole unit-periods and fraction from the advance date to a payment date, (b)(5)(ii)–(vii). */
function placeByDate(
  rule: Rule,
  advance: Civil,
  advanceDay: number,
  payment: Civil,
  nominalDay: number,
): Placement {
  switch (rule.kind) {
    case 'days': {
      const days = epochDayOfCivil(payment) - advanceDay;
      return { t: Math.floor(days / rule.days), num: days % rule.days, den: rule.days };
    }
    case 'term': {
      const days = epochDayOfCivil(payment) - advanceDay;
      if (days !== rule.days) {
        return fail(
          `the { days: ${rule.days} } unit period is the term, but the payment is ${days} days after the advance`,
        );
      }
      return { t: 1, num: 0, den: 1 };
    }
    case 'month': {
      const { months, oddDays } = countMonthsBack(advance, advanceDay, payment, nominalDay);
      return { t: months, num: oddDays, den: 30 };
    }
    case 'thirty': {
      const { months, oddDays } = countMonthsBack(advance, advanceDay, payment, nominalDay);
      const days = 30 * months + oddDays;
      return { t: Math.floor(days / rule.divisor), num: days % rule.divisor, den: rule.divisor };
    }
    case 'year': {
      const { months, oddDays } = countMonthsBack(advance, advanceDay, payment, nominalDay);
      const years = Math.floor(months / 12);
      if (oddDays === 0) return { t: years, num: months - 12 * years, den: 12 };
      const yearStart = monthsBefore(payment, 12 * years, nominalDay);
      return { t: years, num: epochDayOfCivil(yearStart) - advanceDay, den: 365 };
    }
  }
}

/** One payment placed on the unit-period scale. */
interface PlacedPayment {
  amount: Amount;
  t: number;
  f: Fraction;
  /** `num/den` as written; equal keys are equal fractions (equal fractions may have other keys). */
  fKey: string;
}

interface ParsedInput {
  amountFinanced: Amount;
  perYear: { num: number; den: number };
  /** In input order. */
  payments: PlacedPayment[];
}

/** Validates the input and places every payment ((b)(3)–(b)(5)); RangeError as the file comment lists. */
function parseInput(input: AprInput): ParsedInput {
  const amountFinanced = parsePositive(input.amountFinanced, 'amountFinanced');
  const { rule, perYear } = unitRuleOf(input.unitPeriod);
  const advance = parseIsoDate(input.advanceDate);
  const advanceDay = epochDayOfCivil(advance);
  if (!Array.isArray(input.payments) || input.payments.length === 0) {
    return fail('payments must not be empty');
  }
  if (rule.kind === 'term' && input.payments.length !== 1) {
    fail(`a { days } unit period is for a single-payment transaction, got ${input.payments.length} payments`);
  }

  const dated = input.payments.map((p) =>
    'date' in p && p.date !== undefined ? parseIsoDate(p.date) : undefined,
  );
  let largestDay = 0;
  for (const c of dated) if (c !== undefined && c.day > largestDay) largestDay = c.day;

  const fractions = new Map<string, Fraction>();
  const payments: PlacedPayment[] = [];
  let afterAdvance = false;
  for (const [k, p] of input.payments.entries()) {
    const label = `payment ${k + 1}`;
    const amount = parsePositive(p.amount, `${label} amount`);
    const date = dated[k];
    let t: number;
    let f: Fraction;
    let fKey: string;
    if (date !== undefined) {
      if ('t' in p || 'f' in p) fail(`${label} gives both a date and t/f`);
      if (epochDayOfCivil(date) < advanceDay) {
        fail(`${label} (${(p as { date: string }).date}) is before the advance date ${input.advanceDate}`);
      }
      // A payment on a short month's last day was scheduled for a later day of the month when the
      // schedule shows one ((b)(3): 29th/30th series use the last day of February; month-end series).
      const nominalDay = isLastDayOfMonth(date) ? Math.max(date.day, largestDay) : date.day;
      const placement = placeByDate(rule, advance, advanceDay, date, nominalDay);
      t = placement.t;
      fKey = `${placement.num}/${placement.den}`;
      let known = fractions.get(fKey);
      if (known === undefined) {
        known = { num: BigInt(placement.num), den: BigInt(placement.den) };
        fractions.set(fKey, known);
      }
      f = known;
    } else if ('t' in p) {
      if (!Number.isSafeInteger(p.t) || p.t < 0) {
        fail(`${label} t must be a whole number ≥ 0, got ${String(p.t)}`);
      }
      t = p.t;
      f = parseFraction(p.f, `${label} f`);
      fKey = `${f.num}/${f.den}`;
    } else {
      return fail(`${label} needs either a date or t and f`);
    }
    if (t !== 0 || f.num !== 0n) afterAdvance = true;
    payments.push({ amount, t, f, fKey });
  }

  if (!afterAdvance) fail('at least one payment must fall after the advance date');
  return { amountFinanced, perYear, payments };
}

// ---- reference solver: 40 significant digits, one term per payment --------------------------------------

interface Flow {
  amount: Dec;
  t: number;
  /** Index into the distinct fractions, so 1/(1 + f·i) is computed once per fraction per iterate. */
  fIndex: number;
}

interface Cashflows {
  flows: Flow[];
  fractions: Dec[];
  /** Sum of payments due on the advance date itself (t = 0, f = 0): their value ignores the rate. */
  atZero: Dec;
  total: Dec;
}

function referenceCashflows(parsed: ParsedInput): Cashflows {
  const fractionIndex = new Map<string, number>();
  const fractions: Dec[] = [];
  const flows: Flow[] = [];
  let atZero = new Dec(0);
  let total = new Dec(0);
  for (const p of parsed.payments) {
    const amount = new Dec(p.amount.text);
    total = total.plus(amount);
    if (p.t === 0 && p.f.num === 0n) {
      atZero = atZero.plus(amount);
      continue;
    }
    const f = new Dec(p.f.num.toString()).div(p.f.den.toString());
    const key = f.toString();
    let fIndex = fractionIndex.get(key);
    if (fIndex === undefined) {
      fIndex = fractions.length;
      fractionIndex.set(key, fIndex);
      fractions.push(f);
    }
    flows.push({ amount, t: p.t, fIndex });
  }
  // Sorted by t so the discount factors (1+i)^-t build up by multiplication instead of one power each.
  flows.sort((a, b) => a.t - b.t);
  return { flows, fractions, atZero, total };
}

/** Present value of the payments at unit-period rate i, and its derivative in i. */
function presentValue(cf: Cashflows, i: Dec): { value: Dec; slope: Dec } {
  const v = ONE.div(ONE.plus(i));
  const simple = cf.fractions.map((f) => ONE.div(ONE.plus(f.times(i))));
  const simpleSlope = cf.fractions.map((f, k) => f.times(simple[k]!));
  let value = cf.atZero;
  let slope = new Dec(0);
  let discount = ONE;
  let t = 0;
  for (const flow of cf.flows) {
    if (flow.t !== t) {
      discount = discount.times(flow.t - t === 1 ? v : v.pow(flow.t - t));
      t = flow.t;
    }
    const term = flow.amount.times(discount).times(simple[flow.fIndex]!);
    value = value.plus(term);
    // d/di of P / ((1+f·i)(1+i)^t) = −term · (f/(1+f·i) + t/(1+i)).
    slope = slope.minus(term.times(simpleSlope[flow.fIndex]!.plus(v.times(flow.t))));
  }
  return { value, slope };
}

/** The unit-period rate solving Σ PV(payments) = amount financed. */
function solve(cf: Cashflows, amount: Dec): Dec {
  const residual = (i: Dec) => presentValue(cf, i).value.minus(amount);
  const atZeroRate = cf.total.minus(amount);
  if (atZeroRate.isZero()) return new Dec(0);

  // The residual falls as i rises; find lo with residual > 0 and hi with residual < 0.
  let lo: Dec;
  let hi: Dec;
  if (atZeroRate.isPositive()) {
    if (!cf.atZero.lessThan(amount)) {
      fail('payments on the advance date alone repay the amount financed: no finite rate');
    }
    lo = new Dec(0);
    hi = ONE;
    let doublings = 0;
    while (residual(hi).isPositive()) {
      if (++doublings > MAX_UPPER_DOUBLINGS) {
        fail(`the solver did not converge: the unit-period rate exceeds 2^${MAX_UPPER_DOUBLINGS}`);
      }
      lo = hi;
      hi = hi.times(2);
    }
  } else {
    hi = new Dec(0);
    lo = new Dec(-0.5);
    let halvings = 1;
    while (!residual(lo).isPositive()) {
      if (++halvings > MAX_LOWER_HALVINGS) {
        fail(
          `negative rate outside any bracket: no unit-period rate above −1 + 2^-${MAX_LOWER_HALVINGS} ` +
            'discounts the payments to the amount financed',
        );
      }
      hi = lo;
      lo = ONE.neg().plus(new Dec(2).pow(-halvings));
    }
  }

  // Newton–Raphson on ln PV(i) − ln A rather than on PV(i) − A: each discounted payment is log-convex
  // in i, so ln PV is convex and falling too, but nearly straight where PV itself bends hard (long terms,
  // rates near −100 %). A Newton step on a convex falling curve lands at or below the root and from below
  // climbs to it monotonically; starting above a negative root spares the steep stretch near −1.
  const lnAmount = amount.ln();
  let x = atZeroRate.isPositive() ? lo : hi;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const { value, slope } = presentValue(cf, x);
    const r = value.ln().minus(lnAmount);
    if (r.isZero()) return x;
    if (r.isPositive()) lo = x;
    else hi = x;
    let next = slope.isZero() ? x : x.minus(r.times(value).div(slope));
    if (!(next.greaterThan(lo) && next.lessThan(hi))) next = lo.plus(hi).div(2);
    if (next.minus(x).abs().lessThanOrEqualTo(TOLERANCE) || hi.minus(lo).lessThanOrEqualTo(TOLERANCE)) {
      return next;
    }
    x = next;
  }
  return fail(`the solver did not converge in ${MAX_ITERATIONS} iterations`);
}

function format(d: Dec): string {
  const s = d.toFixed(OUTPUT_DECIMALS, Decimal.ROUND_HALF_UP);
  // A tiny negative residue rounds to "-0.0…"; zero carries no sign.
  return /^-0\.0+$/.test(s) ? s.slice(1) : s;
}

function solveReference(parsed: ParsedInput): AprResult {
  const i = solve(referenceCashflows(parsed), new Dec(parsed.amountFinanced.text));
  const apr = i.times(parsed.perYear.num * 100).div(parsed.perYear.den);
  return { apr: format(apr), unitPeriodRate: format(i) };
}

// ---- fast path: locate in doubles, certify in exact integer arithmetic -----------------------------------

/** Equal payments at t, t+1, …, t+count−1 (count ≥ 1), in minor units of the common scale. */
interface Stream {
  t: number;
  count: number;
  amount: bigint;
  /** `amount` × 2^FRACTION_BITS, the Horner addend of a single payment. */
  shifted: bigint;
}

/** The payments that share one fraction f, ascending by t. */
interface FractionClass {
  num: bigint;
  den: bigint;
  fDouble: number;
  /** Per payment, for the double search. */
  times: number[];
  amounts: number[];
  /** Runs of equal payments one unit-period apart, for the certified bounds. */
  streams: Stream[];
}

interface Model {
  /** Amount financed and payment sums in minor units of the largest scale among the amounts. */
  amountFinanced: bigint;
  atZero: bigint;
  total: bigint;
  classes: FractionClass[];
  paymentCount: number;
  maxT: number;
}

function buildModel(parsed: ParsedInput): Model {
  let scale = parsed.amountFinanced.scale;
  for (const p of parsed.payments) if (p.amount.scale > scale) scale = p.amount.scale;
  const powers: bigint[] = [];
  const minor = (a: Amount) => {
    const k = scale - a.scale;
    if (k === 0) return a.coefficient;
    powers[k] ??= 10n ** BigInt(k);
    return a.coefficient * powers[k]!;
  };

  const byFraction = new Map<string, { f: Fraction; payments: { t: number; amount: bigint }[] }>();
  let atZero = 0n;
  let total = 0n;
  let maxT = 0;
  for (const p of parsed.payments) {
    const amount = minor(p.amount);
    total += amount;
    if (p.t === 0 && p.f.num === 0n) {
      atZero += amount;
      continue;
    }
    if (p.t > maxT) maxT = p.t;
    let group = byFraction.get(p.fKey);
    if (group === undefined) {
      group = { f: p.f, payments: [] };
      byFraction.set(p.fKey, group);
    }
    group.payments.push({ t: p.t, amount });
  }

  const classes: FractionClass[] = [];
  for (const { f, payments } of byFraction.values()) {
    payments.sort((a, b) => a.t - b.t);
    const streams: Stream[] = [];
    let last: Stream | undefined;
    for (const p of payments) {
      if (last !== undefined && p.amount === last.amount && p.t === last.t + last.count) {
        last.count += 1;
      } else {
        last = { t: p.t, count: 1, amount: p.amount, shifted: p.amount << FRACTION_BITS };
        streams.push(last);
      }
    }
    classes.push({
      num: f.num,
      den: f.den,
      fDouble: Number(f.num) / Number(f.den),
      times: payments.map((p) => p.t),
      amounts: payments.map((p) => Number(p.amount)),
      streams,
    });
  }
  return {
    amountFinanced: minor(parsed.amountFinanced),
    atZero,
    total,
    classes,
    paymentCount: parsed.payments.length,
    maxT,
  };
}

/** v^k in doubles by squaring (k ≥ 0). */
function powDouble(v: number, k: number): number {
  let result = 1;
  let base = v;
  for (let e = k; e > 0; e = Math.floor(e / 2)) {
    if (e % 2 === 1) result *= base;
    base *= base;
  }
  return result;
}

/**
 * Present value in minor units at rate x, and its derivative, in doubles. `fine` computes each discount
 * factor as exp(−t·log1p(x)) instead of by repeated multiplication with v = 1/(1 + x): the rounding of
 * 1 + x alone moves v by up to 2^-53, which t multiplications turn into the same shift of the rate, so the
 * coarse form cannot place the root closer than about 1e-16, the fine one about 1e-18.
 */
function presentValueDouble(m: Model, x: number, fine: boolean): { value: number; slope: number } {
  const v = 1 / (1 + x);
  const logV = -Math.log1p(x);
  let value = Number(m.atZero);
  let slope = 0;
  for (const c of m.classes) {
    const w = 1 / (1 + c.fDouble * x);
    let discount = 1;
    let t = 0;
    let sum = 0;
    let moment = 0;
    const { times, amounts } = c;
    for (let k = 0; k < times.length; k++) {
      const tk = times[k]!;
      if (tk !== t) {
        if (fine) discount = Math.exp(tk * logV);
        else discount *= tk - t === 1 ? v : powDouble(v, tk - t);
        t = tk;
      }
      const term = amounts[k]! * discount;
      sum += term;
      moment += tk * term;
    }
    value += w * sum;
    slope -= w * (v * moment + c.fDouble * w * sum);
  }
  return { value, slope };
}

const DOUBLE_EPSILON = 2 ** -52;

/**
 * The root located in doubles (the same bracket and log-Newton as the reference solver, then two steps
 * with the fine discount factors) and a half-width that should hold the exact root; undefined when the
 * doubles cannot say (no root, overflow, rates near −100 % or beyond 2^40). Certification checks both.
 */
function locate(m: Model): { root: number; halfWidth: number } | undefined {
  const amount = Number(m.amountFinanced);
  const residual = (x: number) => presentValueDouble(m, x, false).value - amount;
  const positive = m.total > m.amountFinanced;
  let lo: number;
  let hi: number;
  if (positive) {
    if (m.atZero >= m.amountFinanced) return undefined;
    lo = 0;
    hi = 1;
    for (let doublings = 0; residual(hi) > 0; doublings++) {
      if (doublings >= MAX_UPPER_DOUBLINGS) return undefined;
      lo = hi;
      hi *= 2;
    }
  } else {
    hi = 0;
    lo = -0.5;
    // Doubles cannot tell 1 + x from 0 much below 2^-40; the reference solver takes over there.
    for (let halvings = 1; !(residual(lo) > 0); halvings++) {
      if (halvings >= 40) return undefined;
      hi = lo;
      lo = -1 + 2 ** -(halvings + 1);
    }
  }
  const lnAmount = Math.log(amount);
  let x = positive ? lo : hi;
  let polish = 0;
  for (let iteration = 0; iteration < 200; iteration++) {
    const fine = polish > 0;
    const { value, slope } = presentValueDouble(m, x, fine);
    if (!(Number.isFinite(value) && Number.isFinite(slope) && value > 0 && slope < 0)) return undefined;
    const r = Math.log(value) - lnAmount;
    if (!fine) {
      if (r > 0) lo = x;
      else if (r < 0) hi = x;
    }
    let next = x - (r * value) / slope;
    if (!fine && !(next > lo && next < hi)) next = (lo + hi) / 2;
    const step = Math.abs(next - x);
    // Rounding noise of the evaluation: the sum of positive terms over the slope, and 1 + x.
    const noise = (16 * DOUBLE_EPSILON * value) / -slope + 4 * DOUBLE_EPSILON * Math.abs(x);
    if (fine && ++polish > 2) return { root: next, halfWidth: 2 * step + noise };
    if (!fine && (step <= 1024 * noise + 1e-14 * (1 + Math.abs(x)) || next === x)) polish = 1;
    x = next;
  }
  return undefined;
}

/** Fraction bits of the fixed-point rates and discount factors: 2^-128 ≈ 2.9e-39. */
const FRACTION_BITS = 128n;
const FIXED_ONE = 1n << FRACTION_BITS;
const FIXED_ONE_SQUARED = FIXED_ONE << FRACTION_BITS;
const FIXED_MASK = FIXED_ONE - 1n;

/**
 * A one-sided bound of the present value of the payments at rate x = X / 2^128, times 2^256, in minor
 * units: a lower bound when `up` is false (every product and quotient of positive numbers rounded down),
 * an upper bound when it is true (rounded up). Requires X > −2^128 (1 + x > 0).
 */
function presentValueBound(m: Model, x: bigint, up: boolean): bigint {
  const mul = up
    ? (a: bigint, b: bigint) => (a * b + FIXED_MASK) >> FRACTION_BITS
    : (a: bigint, b: bigint) => (a * b) >> FRACTION_BITS;
  const div = up ? (a: bigint, b: bigint) => (a + b - 1n) / b : (a: bigint, b: bigint) => a / b;
  const v = div(FIXED_ONE_SQUARED, FIXED_ONE + x);

  const powers = new Map<number, bigint>([[1, v]]);
  const power = (k: number): bigint => {
    let p = powers.get(k);
    if (p === undefined) {
      p = k % 2 === 0 ? mul(power(k / 2), power(k / 2)) : mul(power(k - 1), v);
      powers.set(k, p);
    }
    return p;
  };
  // 1 + v + … + v^(n−1) by doubling: G(2n) = G(n)(1 + v^n), G(n+1) = 1 + v·G(n); only sums and products
  // of positive numbers, so the rounding direction carries through.
  const geometric = new Map<number, bigint>([[1, FIXED_ONE]]);
  const series = (n: number): bigint => {
    let g = geometric.get(n);
    if (g === undefined) {
      if (n % 2 === 0) {
        const half = series(n / 2);
        g = half + mul(half, power(n / 2));
      } else {
        g = FIXED_ONE + mul(v, series(n - 1));
      }
      geometric.set(n, g);
    }
    return g;
  };

  let total = m.atZero << (2n * FRACTION_BITS);
  for (const c of m.classes) {
    const w = c.num === 0n ? FIXED_ONE : div(c.den << (2n * FRACTION_BITS), c.den * FIXED_ONE + c.num * x);
    // Horner from the last stream down: acc = Σ amount · v^(t − tCurrent) · (1 + … + v^(count−1)).
    const { streams } = c;
    let acc = 0n;
    let t = streams[streams.length - 1]!.t;
    for (let k = streams.length - 1; k >= 0; k--) {
      const s = streams[k]!;
      if (s.t !== t) {
        acc = mul(acc, power(t - s.t));
        t = s.t;
      }
      acc += s.count === 1 ? s.shifted : s.amount * series(s.count);
    }
    if (t > 0) acc = mul(acc, power(t));
    total += acc * w;
  }
  return total;
}

const TEN_POW_OUTPUT = 10n ** BigInt(OUTPUT_DECIMALS);

/** num/den (den > 0) rounded half-up (ties away from zero) to 10 decimals, as `format` renders it. */
function formatRatio(num: bigint, den: bigint): string {
  const negative = num < 0n;
  const magnitude = ((negative ? -num : num) * TEN_POW_OUTPUT * 2n + den) / (2n * den);
  const digits = magnitude.toString().padStart(OUTPUT_DECIMALS + 1, '0');
  const text = `${digits.slice(0, -OUTPUT_DECIMALS)}.${digits.slice(-OUTPUT_DECIMALS)}`;
  return negative && magnitude !== 0n ? `-${text}` : text;
}

function outputsAt(x: bigint, perYear: { num: number; den: number }): AprResult {
  return {
    apr: formatRatio(x * BigInt(perYear.num * 100), FIXED_ONE * BigInt(perYear.den)),
    unitPeriodRate: formatRatio(x, FIXED_ONE),
  };
}

/** A double as the nearest fixed-point integer towards zero (exact for |x| ≥ 2^-75). */
function toFixedPoint(x: number): bigint {
  return BigInt(Math.trunc(x * 2 ** 128));
}

const MAX_CERTIFY_ATTEMPTS = 8;
const MAX_WIDENINGS = 3;
const MAX_GROWTH_BITS = 4096;

/** The certified outputs, or undefined when the fast path cannot vouch for them. */
function solveFast(parsed: ParsedInput): AprResult | undefined {
  const m = buildModel(parsed);
  if (m.total === m.amountFinanced) return outputsAt(0n, parsed.perYear);
  const located = locate(m);
  if (located === undefined || !Number.isFinite(located.root) || !Number.isFinite(located.halfWidth)) {
    return undefined;
  }
  const target = m.amountFinanced << (2n * FRACTION_BITS);
  let center = toFixedPoint(located.root);
  let half = toFixedPoint(located.halfWidth) + 1n;
  let widenings = 0;
  for (let attempt = 0; attempt < MAX_CERTIFY_ATTEMPTS; attempt++) {
    const lo = center - half;
    const hi = center + half;
    if (lo <= -FIXED_ONE || hi >= FIXED_ONE << 40n) return undefined;
    // Below zero v^t grows: keep the integers of the bounds to a few thousand bits.
    if (lo < 0n && m.maxT * -Math.log2(1 + Number(lo) / 2 ** 128) > MAX_GROWTH_BITS) return undefined;
    const lower = presentValueBound(m, lo, false);
    const upper = lower > target ? presentValueBound(m, hi, true) : target;
    if (upper >= target) {
      // The located root was off by more than its half-width (or the bounds are too loose there).
      if (++widenings > MAX_WIDENINGS) return undefined;
      half *= 64n;
      continue;
    }
    // The exact root is strictly inside (lo, hi).
    const atLo = outputsAt(lo, parsed.perYear);
    const atHi = outputsAt(hi, parsed.perYear);
    if (atLo.apr === atHi.apr && atLo.unitPeriodRate === atHi.unitPeriodRate) return atLo;
    // Straddles a rounding boundary: narrow to the chord's root. Its error is within the curvature term
    // (t + 2)/(1 + x) · width² of the exact root (|PV''| ≤ (t_max + 2)/(1 + x) · |PV'| for each payment),
    // plus what the bounds' own rounding adds; a miss widens again.
    const width = hi - lo;
    center = lo + ((lower - target) * width) / (lower - upper);
    half = (width * width * BigInt(m.maxT + 2)) / (FIXED_ONE + lo) + (width >> 64n) + (1n << 16n);
  }
  return undefined;
}

// ---- entry points ---------------------------------------------------------------------------------------

/** Regulation Z Appendix J actuarial APR of a single-advance transaction; see the file comment. */
export function computeApr(input: AprInput): AprResult {
  const parsed = parseInput(input);
  return solveFast(parsed) ?? solveReference(parsed);
}

/**
 * The fast path alone: the certified result, or undefined where `computeApr` hands over to the reference
 * solver. Same validation and RangeErrors as `computeApr`. For tests and benchmarks.
 */
export function computeAprFast(input: AprInput): AprResult | undefined {
  return solveFast(parseInput(input));
}

/**
 * The straightforward solver: every payment discounted one by one in decimal.js at 40 significant digits,
 * Newton–Raphson until a step is below 1e-30. `computeApr` falls back to it; tests use it as the oracle.
 */
export function computeAprReference(input: AprInput): AprResult {
  return solveReference(parseInput(input));
}
