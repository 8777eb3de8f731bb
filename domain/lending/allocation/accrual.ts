/**
 * Interest accrual of an installment: the part of its scheduled interest earned by a day, straight-line over
 * the installment's period and rounded HALF_EVEN (Apache Fineract's periodic accrual of a loan without interest
 * recalculation). Used by the payoff rule (payoff.ts) for the interest of the current period.
 *
 * Pure; amounts in minor units (bigint); dates ISO calendar dates, counted as calendar days.
 */

import { epochDayOf } from '../../calendar';

/**
 * Interest of an installment accrued by the end of `asOfDate` (ISO dates): none on or before `fromDate`, all of
 * `interestDueMinor` from `dueDate` on, and in between `interestDueMinor × (asOfDate − fromDate) ÷ (dueDate −
 * fromDate)` calendar days, rounded HALF_EVEN to the minor unit (straight-line over the period, as Fineract's
 * periodic accrual of a loan without interest recalculation). Minor units; RangeError for an invalid date or
 * a negative amount.
 */
export function accruedInterestMinor(
  interestDueMinor: bigint,
  fromDate: string,
  dueDate: string,
  asOfDate: string,
): bigint {
  if (typeof interestDueMinor !== 'bigint' || interestDueMinor < 0n) {
    throw new RangeError('interestDueMinor must be a bigint ≥ 0');
  }
  return accruedByDay(
    interestDueMinor,
    epochDay(fromDate, 'fromDate'),
    epochDay(dueDate, 'dueDate'),
    epochDay(asOfDate, 'asOfDate'),
  );
}

/** `accruedInterestMinor` over epoch days (no validation): the form the payoff rule reads. */
export function accruedByDay(interestMinor: bigint, fromDay: number, dueDay: number, day: number): bigint {
  if (day >= dueDay) return interestMinor;
  if (day <= fromDay) return 0n;
  return divideHalfEven(interestMinor * BigInt(day - fromDay), BigInt(dueDay - fromDay));
}

/** numerator ÷ denominator (both ≥ 0, denominator > 0) rounded HALF_EVEN. */
function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const twice = (numerator % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}

/** Days since 1970-01-01 of an ISO date; RangeError naming `label` when it is not one. */
export function epochDay(date: string, label: string): number {
  if (typeof date !== 'string') throw new RangeError(`${label} must be an ISO date`);
  try {
    return epochDayOf(date);
  } catch {
    throw new RangeError(`${label} is not an ISO calendar date: ${date}`);
  }
}
