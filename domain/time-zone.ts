/**
 * Calendar arithmetic in an IANA time zone, without a clock: every function takes instants
 * (epoch milliseconds) or ISO calendar dates as parameters. Uses the runtime's tz database
 * through `Intl.DateTimeFormat` (time zones only; currencies never go through Intl, docs/design.md §5).
 */
import { parseIsoDate } from './calendar';

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

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
