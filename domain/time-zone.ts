/**
 * Calendar arithmetic in an IANA time zone, without a clock: every function takes instants
 * (epoch milliseconds) or ISO calendar dates as parameters. Uses the runtime's tz database
 * through `Intl.DateTimeFormat` (time zones only; currencies never go through Intl, DESIGN §5).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when `timeZone` is an IANA zone the runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallTime(instantMs: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** Offset of `timeZone` from UTC at an instant, in minutes (e.g. -480 for PST). */
export function offsetMinutes(instantMs: number, timeZone: string): number {
  const w = wallTime(instantMs, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60000);
}

/** The ISO calendar date (`YYYY-MM-DD`) of an instant in `timeZone`. */
export function localDate(instantMs: number, timeZone: string): string {
  const w = wallTime(instantMs, timeZone);
  return `${String(w.year).padStart(4, '0')}-${pad2(w.month)}-${pad2(w.day)}`;
}

/**
 * The instant at which the wall clock in `timeZone` shows `date` at `hh:mm:ss`. In a DST gap the
 * later offset wins; in an overlap the earlier instant.
 */
export function instantOfLocal(
  date: string,
  time: { hour: number; minute: number; second: number },
  timeZone: string,
): number {
  const { year, month, day } = parseIsoDate(date);
  const naive = Date.UTC(year, month - 1, day, time.hour, time.minute, time.second);
  let instant = naive - offsetMinutes(naive, timeZone) * 60000;
  const corrected = naive - offsetMinutes(instant, timeZone) * 60000;
  if (corrected !== instant) instant = corrected;
  return instant;
}

/** Renders an instant as ISO 8601 with the zone's offset, e.g. `2027-01-05T23:59:59-08:00`. */
export function formatWithOffset(instantMs: number, timeZone: string): string {
  const w = wallTime(instantMs, timeZone);
  const offset = offsetMinutes(instantMs, timeZone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${String(w.year).padStart(4, '0')}-${pad2(w.month)}-${pad2(w.day)}T${pad2(w.hour)}:${pad2(w.minute)}:${pad2(w.second)}${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/** Parses `YYYY-MM-DD`; throws RangeError when it is not a real calendar date. */
export function parseIsoDate(date: string): { year: number; month: number; day: number } {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RangeError(`not an ISO calendar date: ${date}`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`not an ISO calendar date: ${date}`);
  }
  return { year, month, day };
}

/** True when `date` is a real `YYYY-MM-DD` calendar date. */
export function isIsoDate(date: string): boolean {
  try {
    parseIsoDate(date);
    return true;
  } catch {
    return false;
  }
}

/** Days in a month of the proleptic Gregorian calendar (month 1–12). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `date` plus `days` calendar days (negative allowed). */
export function addDays(date: string, days: number): string {
  const { year, month, day } = parseIsoDate(date);
  const d = new Date(Date.UTC(year, month - 1, day + days));
  return d.toISOString().slice(0, 10);
}

/**
 * `date` plus `months` calendar months; when the target month is shorter the last day of that
 * month is used (Regulation (EEC, Euratom) 1182/71 Art. 3(2)(c), used for GDPR Art. 12(3)).
 */
export function addMonths(date: string, months: number): string {
  const { year, month, day } = parseIsoDate(date);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = (index % 12) + 1;
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth));
  return `${String(targetYear).padStart(4, '0')}-${pad2(targetMonth)}-${pad2(targetDay)}`;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
