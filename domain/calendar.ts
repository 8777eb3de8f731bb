/**
 * Calendar arithmetic on ISO calendar dates (`YYYY-MM-DD`), the one home of it (issue 6 §1): the
 * schedule, APR, disclosure, allocation, statutory deadlines and loan reads all count days and
 * months here. Proleptic Gregorian calendar (ISO 8601 §4.3.2.1), no time zones: a date is a day,
 * not an instant (zone conversions are in `time-zone.ts`).
 *
 * Epoch days are days since 1970-01-01, computed with H. Hinnant's `days_from_civil` /
 * `civil_from_days` ("chrono-Compatible Low-Level Date Algorithms"), exact for every year 0–9999.
 * Parsing reads characters, not a regular expression or `Date`: it runs once per installment
 * inside the APR solver and the schedule generator (DESIGN §6, ≤ 1 ms for 360 installments).
 */

/** A calendar date split into its parts; `month` 1–12, `day` 1–31. */
export interface Civil {
  year: number;
  month: number;
  day: number;
}

/** Leap year of the Gregorian calendar. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The number written by the digits of `text` from `from` to `to` (exclusive); NaN if one is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const d = text.charCodeAt(k) - 48;
    if (!(d >= 0 && d <= 9)) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}

/** Parses `YYYY-MM-DD`, a real calendar date; RangeError `not an ISO calendar date: <value>` otherwise. */
export function parseIsoDate(date: unknown): Civil {
  if (typeof date === 'string' && date.length === 10 && date[4] === '-' && date[7] === '-') {
    const year = digitsAt(date, 0, 4);
    const month = digitsAt(date, 5, 7);
    const day = digitsAt(date, 8, 10);
    if (year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)) {
      return { year, month, day };
    }
  }
  throw new RangeError(`not an ISO calendar date: ${String(date)}`);
}

/** True when `date` is a real `YYYY-MM-DD` calendar date. */
export function isIsoDate(date: unknown): boolean {
  try {
    parseIsoDate(date);
    return true;
  } catch {
    return false;
  }
}

/** Days since 1970-01-01 of a civil date (Hinnant, `days_from_civil`). */
export function epochDayOfCivil({ year, month, day }: Civil): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The civil date of a day count since 1970-01-01 (Hinnant, `civil_from_days`). */
export function civilOfEpochDay(epochDay: number): Civil {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Days since 1970-01-01 of an ISO date; RangeError (from `parseIsoDate`) when it is not one. */
export function epochDayOf(date: unknown): number {
  return epochDayOfCivil(parseIsoDate(date));
}

/** `YYYY-MM-DD` of a civil date. */
export function formatIsoDate({ year, month, day }: Civil): string {
  return `${String(year).padStart(4, '0')}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

/** `YYYY-MM-DD` of a day count since 1970-01-01. */
export function isoDateOfEpochDay(epochDay: number): string {
  return formatIsoDate(civilOfEpochDay(epochDay));
}

/** Whether the date is the last day of its month. */
export function isLastDayOfMonth(date: Civil): boolean {
  return date.day === daysInMonth(date.year, date.month);
}

/**
 * `date` plus `months` calendar months (negative allowed); when the target month is shorter its
 * last day is used (Java `LocalDate.plusMonths`; Regulation (EEC, Euratom) 1182/71 Art. 3(2)(c)).
 */
export function addMonthsToCivil(date: Civil, months: number): Civil {
  const index = date.year * 12 + (date.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { year, month, day: Math.min(date.day, daysInMonth(year, month)) };
}

/** `addMonthsToCivil` on epoch days. */
export function addMonthsToEpochDay(epochDay: number, months: number): number {
  return epochDayOfCivil(addMonthsToCivil(civilOfEpochDay(epochDay), months));
}

/** ISO `date` plus `days` calendar days (negative allowed). */
export function addDays(date: string, days: number): string {
  return isoDateOfEpochDay(epochDayOf(date) + days);
}

/** ISO `date` plus `months` calendar months, clamped to the target month's last day (`addMonthsToCivil`). */
export function addMonths(date: string, months: number): string {
  return formatIsoDate(addMonthsToCivil(parseIsoDate(date), months));
}

/** Calendar days from ISO `from` to ISO `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return epochDayOf(to) - epochDayOf(from);
}

/** Whole months from one epoch day to another, truncated towards zero (Java `LocalDate.until(end, MONTHS)`). */
export function monthsBetweenEpochDays(startDay: number, endDay: number): number {
  const a = civilOfEpochDay(startDay);
  const b = civilOfEpochDay(endDay);
  const packedA = (a.year * 12 + a.month - 1) * 32 + a.day;
  const packedB = (b.year * 12 + b.month - 1) * 32 + b.day;
  return Math.trunc((packedB - packedA) / 32);
}
