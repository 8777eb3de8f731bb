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
 * the fraction earning simple interest at f·i ((b)(6)), solved for i by iteration as (b)(9) describes:
 * the rate is bracketed (doubling above 0, halving towards −1 below it), then Newton–Raphson runs on the
 * logarithm of the right side, which falls strictly in i and is convex, with a bisection step whenever an
 * iterate would leave the bracket; it stops when a step is below 1e-30. All money and rate arithmetic is
 * decimal.js at 40 significant digits, half-up — pure JavaScript, safe in the Temporal workflow sandbox.
 *
 * Errors (RangeError): malformed or non-positive amounts, malformed dates, an unknown unit-period, no
 * payments, a payment before the advance date or only payments on it, a `{ days }` unit-period with other
 * than one payment or a term other than n days, t/f out of range, a rate below −100 % + 2⁻⁶⁰ per
 * unit-period (no negative-rate bracket) or above 2⁴⁰ per unit-period, or a solver that does not converge.
 */
import Decimal from 'decimal.js';
import { daysInMonth, parseIsoDate } from './time-zone';

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

const decimalPattern = /^[+-]?\d+(\.\d+)?$/;

function parsePositive(value: unknown, what: string): Dec {
  if (typeof value !== 'string' || !decimalPattern.test(value)) {
    return fail(`${what} must be a decimal string, got ${JSON.stringify(value)}`);
  }
  const d = new Dec(value);
  if (!d.isPositive() || d.isZero()) return fail(`${what} must be positive, got ${value}`);
  return d;
}

function parseFraction(value: unknown, what: string): Dec {
  let f: Dec | undefined;
  if (typeof value === 'string') {
    const ratio = /^(\d+)\/(\d+)$/.exec(value);
    if (ratio) {
      const den = new Dec(ratio[2]!);
      if (!den.isZero()) f = new Dec(ratio[1]!).div(den);
    } else if (/^\d+(\.\d+)?$/.test(value)) {
      f = new Dec(value);
    }
  }
  if (f === undefined) return fail(`${what} must be a decimal or ratio string, got ${JSON.stringify(value)}`);
  // Appendix J's fractions never reach a whole unit-period except the 30/30 of a 31-day month; more
  // than one would also let 1 + f·i vanish inside the rate bracket.
  if (f.greaterThan(1)) return fail(`${what} must be between 0 and 1, got ${value}`);
  return f;
}

interface Civil {
  year: number;
  month: number;
  day: number;
}

function epochDay(c: Civil): number {
  return Date.UTC(c.year, c.month - 1, c.day) / 86_400_000;
}

function isLastDayOfMonth(c: Civil): boolean {
  return c.day === daysInMonth(c.year, c.month);
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
function countMonthsBack(advance: Civil, payment: Civil, nominalDay: number) {
  const advanceDay = epochDay(advance);
  let months = payment.year * 12 + payment.month - (advance.year * 12 + advance.month);
  let reached = monthsBefore(payment, months, nominalDay);
  // Landing in the advance's own month but before the advance day: one month fewer fits.
  if (epochDay(reached) < advanceDay) {
    months -= 1;
    reached = monthsBefore(payment, months, nominalDay);
  }
  return { months, reached, oddDays: epochDay(reached) - advanceDay };
}

interface Placement {
  t: number;
  f: Dec;
}

function ratio(num: number, den: number): Dec {
  return new Dec(num).div(den);
}

/** Whole unit-periods and fraction from the advance date to a payment date, (b)(5)(ii)–(vii). */
function placeByDate(rule: Rule, advance: Civil, payment: Civil, nominalDay: number): Placement {
  switch (rule.kind) {
    case 'days': {
      const days = epochDay(payment) - epochDay(advance);
      return { t: Math.floor(days / rule.days), f: ratio(days % rule.days, rule.days) };
    }
    case 'term': {
      const days = epochDay(payment) - epochDay(advance);
      if (days !== rule.days) {
        return fail(
          `the { days: ${rule.days} } unit period is the term, but the payment is ${days} days after the advance`,
        );
      }
      return { t: 1, f: new Dec(0) };
    }
    case 'month': {
      const { months, oddDays } = countMonthsBack(advance, payment, nominalDay);
      return { t: months, f: ratio(oddDays, 30) };
    }
    case 'thirty': {
      const { months, oddDays } = countMonthsBack(advance, payment, nominalDay);
      const days = 30 * months + oddDays;
      return { t: Math.floor(days / rule.divisor), f: ratio(days % rule.divisor, rule.divisor) };
    }
    case 'year': {
      const { months, oddDays } = countMonthsBack(advance, payment, nominalDay);
      const years = Math.floor(months / 12);
      if (oddDays === 0) return { t: years, f: ratio(months - 12 * years, 12) };
      const yearStart = monthsBefore(payment, 12 * years, nominalDay);
      return { t: years, f: ratio(epochDay(yearStart) - epochDay(advance), 365) };
    }
  }
}

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

function toCashflows(input: AprInput, rule: Rule): Cashflows {
  const advance = parseIsoDate(input.advanceDate);
  if (!Array.isArray(input.payments) || input.payments.length === 0) {
    return fail('payments must not be empty');
  }
  if (rule.kind === 'term' && input.payments.length !== 1) {
    fail(`a { days } unit period is for a single-payment transaction, got ${input.payments.length} payments`);
  }

  const dated = input.payments.map((p) =>
    'date' in p && p.date !== undefined ? parseIsoDate(p.date) : undefined,
  );
  const largestDay = Math.max(0, ...dated.map((c) => c?.day ?? 0));

  const fractionIndex = new Map<string, number>();
  const fractions: Dec[] = [];
  const flows: Flow[] = [];
  let atZero = new Dec(0);
  let total = new Dec(0);

  for (const [k, p] of input.payments.entries()) {
    const label = `payment ${k + 1}`;
    const amount = parsePositive(p.amount, `${label} amount`);
    const date = dated[k];
    let placement: Placement;
    if (date !== undefined) {
      if ('t' in p || 'f' in p) fail(`${label} gives both a date and t/f`);
      if (epochDay(date) < epochDay(advance)) {
        fail(`${label} (${(p as { date: string }).date}) is before the advance date ${input.advanceDate}`);
      }
      // A payment on a short month's last day was scheduled for a later day of the month when the
      // schedule shows one ((b)(3): 29th/30th series use the last day of February; month-end series).
      const nominalDay = isLastDayOfMonth(date) ? Math.max(date.day, largestDay) : date.day;
      placement = placeByDate(rule, advance, date, nominalDay);
    } else if ('t' in p) {
      if (!Number.isSafeInteger(p.t) || p.t < 0) {
        fail(`${label} t must be a whole number ≥ 0, got ${String(p.t)}`);
      }
      placement = { t: p.t, f: parseFraction(p.f, `${label} f`) };
    } else {
      fail(`${label} needs either a date or t and f`);
    }

    total = total.plus(amount);
    if (placement.t === 0 && placement.f.isZero()) {
      atZero = atZero.plus(amount);
      continue;
    }
    const key = placement.f.toString();
    let fIndex = fractionIndex.get(key);
    if (fIndex === undefined) {
      fIndex = fractions.length;
      fractionIndex.set(key, fIndex);
      fractions.push(placement.f);
    }
    flows.push({ amount, t: placement.t, fIndex });
  }

  if (flows.length === 0) fail('at least one payment must fall after the advance date');
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

/** Regulation Z Appendix J actuarial APR of a single-advance transaction; see the file comment. */
export function computeApr(input: AprInput): AprResult {
  const amount = parsePositive(input.amountFinanced, 'amountFinanced');
  const { rule, perYear } = unitRuleOf(input.unitPeriod);
  const cashflows = toCashflows(input, rule);
  const i = solve(cashflows, amount);
  const apr = i.times(perYear.num * 100).div(perYear.den);
  return { apr: format(apr), unitPeriodRate: format(i) };
}
