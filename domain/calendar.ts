/**
 * Calendar arithmetic on ISO calendar dates (`YYYY-MM-DD`), the one home of it: the
 * schedule, APR, disclosure, allocation, statutory deadlines and loan reads all count days and
 * months here. Proleptic Gregorian calendar (ISO 8601 §4.3.2.1), no time zones: a date is a day,
 * not an instant (zone conversions are in `time-zone.ts`).
 *
 * Epoch days are days since 1970-01-01, computed with H. Hinnant's `days_from_civil` /
 * `civil_from_days` ("chrono-Compatible Low-Level Date Algorithms"), exact for every year 0–9999.
 * Parsing reads characters, not a regular expression or `Date`: it runs once per installment
 * inside the APR solver and the schedule generator (docs/design.md §6, ≤ 1 ms for 360 installments).
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

/** ISO 8601 day of the week of an epoch day: 1 = Monday … 7 = Sunday (1970-01-01 was a Thursday). */
export function isoDayOfWeekOfEpochDay(epochDay: number): number {
  return ((((epochDay + 3) % 7) + 7) % 7) + 1;
}

/** ISO 8601 day of the week of ISO `date`: 1 = Monday … 7 = Sunday; RangeError when `date` is not a date. */
export function isoDayOfWeek(date: string): number {
  return isoDayOfWeekOfEpochDay(epochDayOf(date));
}

/** Epoch day of the `nth` (1-based) `isoWeekday` (1 = Monday) of `month` in `year`. */
function nthWeekdayOfMonth(year: number, month: number, isoWeekday: number, nth: number): number {
  const first = epochDayOfCivil({ year, month, day: 1 });
  const offset = (isoWeekday - isoDayOfWeekOfEpochDay(first) + 7) % 7;
  return first + offset + (nth - 1) * 7;
}

/** Epoch day of the last `isoWeekday` (1 = Monday) of `month` in `year`. */
function lastWeekdayOfMonth(year: number, month: number, isoWeekday: number): number {
  const last = epochDayOfCivil({ year, month, day: daysInMonth(year, month) });
  return last - ((isoDayOfWeekOfEpochDay(last) - isoWeekday + 7) % 7);
}

/** One Federal Reserve holiday of a year: its name, the legal date and the date the Reserve Banks close. */
export interface FederalReserveHoliday {
  /** The holiday's name as the Federal Reserve's schedule prints it. */
  name: string;
  /** The date the holiday falls on (`YYYY-MM-DD`). */
  date: string;
  /**
   * The date the Reserve Banks are closed for it (`YYYY-MM-DD`): `date`, or the Monday after when `date` is a
   * Sunday; `null` when `date` is a Saturday (the Banks are open the Friday before, so nothing is closed).
   */
  observedOn: string | null;
}

const federalReserveHolidayCache = new Map<number, readonly FederalReserveHoliday[]>();

/**
 * The holidays of the Federal Reserve Banks in `year` (integer 0–9999), in calendar order, with the rule the
 * Federal Reserve publishes with its holiday schedule (frbservices.org "Holiday Schedules"; the same table on
 * richmondfed.org/about_us/holiday_schedule): "If any of the following holidays falls on a Saturday, Federal
 * Reserve Banks will be open the preceding Friday. If the holiday falls on a Sunday, Federal Reserve Banks
 * will be closed the following Monday." The eleven holidays are the federal public holidays of 5 U.S.C.
 * §6103(a): New Year's Day (Jan 1), Birthday of Martin Luther King, Jr. (third Monday of January), Washington's
 * Birthday (third Monday of February), Memorial Day (last Monday of May), Juneteenth National Independence Day
 * (June 19, from 2022: enacted 17 June 2021, first on the Reserve Banks' schedule in 2022), Independence Day
 * (Jul 4), Labor Day (first Monday of September), Columbus Day (second Monday of October), Veterans Day
 * (Nov 11), Thanksgiving Day (fourth Thursday of November) and Christmas Day (Dec 25).
 *
 * The rules are today's (Monday holidays since 1971, Veterans Day on Nov 11 since 1978, King's Birthday since
 * 1986); earlier years get the same rules, not their historical schedule. Closures the Federal Reserve
 * announces ad hoc (a national day of mourning, an emergency) are not computed; a production calendar would
 * add them from the Federal Reserve's announcements. RangeError for any other `year`.
 */
export function federalReserveHolidays(year: number): readonly FederalReserveHoliday[] {
  if (!Number.isInteger(year) || year < 0 || year > 9999) {
    throw new RangeError(`not a supported year: ${String(year)}`);
  }
  const cached = federalReserveHolidayCache.get(year);
  if (cached) return cached;
  const fixed = (month: number, day: number) => epochDayOfCivil({ year, month, day });
  const days: [string, number][] = [
    ["New Year's Day", fixed(1, 1)],
    ['Birthday of Martin Luther King, Jr.', nthWeekdayOfMonth(year, 1, 1, 3)],
    ["Washington's Birthday", nthWeekdayOfMonth(year, 2, 1, 3)],
    ['Memorial Day', lastWeekdayOfMonth(year, 5, 1)],
    ...(year >= 2022 ? [['Juneteenth National Independence Day', fixed(6, 19)] as [string, number]] : []),
    ['Independence Day', fixed(7, 4)],
    ['Labor Day', nthWeekdayOfMonth(year, 9, 1, 1)],
    ['Columbus Day', nthWeekdayOfMonth(year, 10, 1, 2)],
    ['Veterans Day', fixed(11, 11)],
    ['Thanksgiving Day', nthWeekdayOfMonth(year, 11, 4, 4)],
    ['Christmas Day', fixed(12, 25)],
  ];
  const holidays = days.map(([name, day]): FederalReserveHoliday => {
    const weekday = isoDayOfWeekOfEpochDay(day);
    const observed = weekday === 6 ? null : weekday === 7 ? day + 1 : day;
    return {
      name,
      date: isoDateOfEpochDay(day),
      observedOn: observed === null ? null : isoDateOfEpochDay(observed),
    };
  });
  const frozen = Object.freeze(holidays.map((h) => Object.freeze(h)));
  federalReserveHolidayCache.set(year, frozen);
  return frozen;
}

/** Whether epoch day `epochDay` is a Federal Reserve business day (see `isFederalReserveBusinessDay`). */
function isFederalReserveBusinessEpochDay(epochDay: number): boolean {
  if (isoDayOfWeekOfEpochDay(epochDay) >= 6) return false;
  const date = isoDateOfEpochDay(epochDay);
  const { year } = civilOfEpochDay(epochDay);
  // A Sunday holiday of Dec 31 cannot move into the next year, and a Jan 1 on Sunday moves to Jan 2: the
  // closures of a date are all in its own year's list.
  return !federalReserveHolidays(year).some((h) => h.observedOn === date);
}

/**
 * Whether ISO `date` (`YYYY-MM-DD`) is a Federal Reserve business day: Monday to Friday and not a day the
 * Reserve Banks are closed for a holiday (`federalReserveHolidays`, Sunday holidays observed the Monday
 * after, Saturday holidays not observed). These are the "banking days" of the ACH and Fedwire settlement
 * calendar (NACHA Operating Rules, "Banking Day"; Regulation J). RangeError when `date` is not a date.
 */
export function isFederalReserveBusinessDay(date: string): boolean {
  return isFederalReserveBusinessEpochDay(epochDayOf(date));
}

/**
 * ISO `date` moved by `businessDays` Federal Reserve business days (`YYYY-MM-DD` in and out), the convention
 * of business-day calendars such as OpenGamma Strata's `HolidayCalendar.shift`:
 * - `businessDays` ≥ 1: the `businessDays`-th business day strictly after `date`, whatever `date` is
 *   (Friday + 1 = Monday; Saturday + 1 = Monday; the Friday before a Monday holiday + 1 = Tuesday);
 * - `businessDays` = 0: `date` itself when it is a business day, else the next business day ("roll
 *   forward"; `federalReserveBusinessDayOnOrAfter`).
 * A count "from the processing day" (e.g. a check deposited on a Saturday counts from Monday) is
 * `addFederalReserveBusinessDays(addFederalReserveBusinessDays(date, 0), n)`.
 * RangeError when `date` is not a date or `businessDays` is not a non-negative integer.
 */
export function addFederalReserveBusinessDays(date: string, businessDays: number): string {
  if (!Number.isInteger(businessDays) || businessDays < 0) {
    throw new RangeError(`not a non-negative whole number of business days: ${String(businessDays)}`);
  }
  let day = epochDayOf(date);
  if (businessDays === 0) {
    while (!isFederalReserveBusinessEpochDay(day)) day += 1;
    return isoDateOfEpochDay(day);
  }
  let remaining = businessDays;
  while (remaining > 0) {
    day += 1;
    if (isFederalReserveBusinessEpochDay(day)) remaining -= 1;
  }
  return isoDateOfEpochDay(day);
}

/** The first Federal Reserve business day strictly after ISO `date` (`addFederalReserveBusinessDays(date, 1)`). */
export function nextFederalReserveBusinessDay(date: string): string {
  return addFederalReserveBusinessDays(date, 1);
}

/** ISO `date` when it is a Federal Reserve business day, else the next one (`addFederalReserveBusinessDays(date, 0)`). */
export function federalReserveBusinessDayOnOrAfter(date: string): string {
  return addFederalReserveBusinessDays(date, 0);
}

/** The last Federal Reserve business day strictly before ISO `date`; RangeError when `date` is not a date. */
export function previousFederalReserveBusinessDay(date: string): string {
  let day = epochDayOf(date) - 1;
  while (!isFederalReserveBusinessEpochDay(day)) day -= 1;
  return isoDateOfEpochDay(day);
}
