/**
 * domain/calendar.ts against the runtime's own proleptic Gregorian calendar (`Date.UTC`, ECMA-262
 * §21.4.1), which these functions must agree with on every date of years 1–9999, and against
 * Java's `plusMonths` / `until(…, MONTHS)` rules worked by hand.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  civilOfEpochDay,
  daysBetween,
  daysInMonth,
  epochDayOf,
  epochDayOfCivil,
  isIsoDate,
  isLastDayOfMonth,
  isoDateOfEpochDay,
  monthsBetweenEpochDays,
  parseIsoDate,
} from '../../domain/calendar';

const dayMs = 86_400_000;

/** Epoch day of (year, month, day) computed by the runtime, independently of the code under test. */
function runtimeEpochDay(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(0, 0, 0, 0);
  return Math.round(d.getTime() / dayMs);
}

const civil = fc
  .record({ year: fc.integer({ min: 1, max: 9999 }), month: fc.integer({ min: 1, max: 12 }) })
  .chain(({ year, month }) =>
    fc.record({
      year: fc.constant(year),
      month: fc.constant(month),
      day: fc.integer({ min: 1, max: new Date(Date.UTC(2000, month, 0)).getUTCDate() }),
    }),
  )
  .filter(
    ({ year, month, day }) => runtimeEpochDay(year, month, 1) + day - 1 === runtimeEpochDay(year, month, day),
  )
  .filter(({ year, month, day }) => day <= daysInMonth(year, month));

function iso(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

describe('calendar', () => {
  it('counts epoch days exactly as the runtime does, both ways', () => {
    fc.assert(
      fc.property(civil, (c) => {
        const day = epochDayOfCivil(c);
        expect(day).toBe(runtimeEpochDay(c.year, c.month, c.day));
        expect(civilOfEpochDay(day)).toEqual(c);
        expect(isoDateOfEpochDay(day)).toBe(iso(c.year, c.month, c.day));
        expect(epochDayOf(iso(c.year, c.month, c.day))).toBe(day);
      }),
    );
  });

  it('knows month lengths and leap years (1900 is not a leap year, 2000 is)', () => {
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(daysInMonth(2024, 2)).toBe(29);
    expect(daysInMonth(2026, 2)).toBe(28);
    expect([4, 6, 9, 11].map((m) => daysInMonth(2026, m))).toEqual([30, 30, 30, 30]);
    expect(isLastDayOfMonth({ year: 2024, month: 2, day: 29 })).toBe(true);
    expect(isLastDayOfMonth({ year: 2026, month: 1, day: 30 })).toBe(false);
  });

  it('parses only real YYYY-MM-DD dates', () => {
    expect(parseIsoDate('2026-11-23')).toEqual({ year: 2026, month: 11, day: 23 });
    for (const bad of [
      '2026-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-1-01',
      '2026-01-1',
      '20260101',
      '2026/01/01',
      ' 2026-01-01',
      20260101,
      null,
    ]) {
      expect(() => parseIsoDate(bad), String(bad)).toThrow(RangeError);
      expect(isIsoDate(bad)).toBe(false);
    }
    expect(() => parseIsoDate('2026-02-30')).toThrow('not an ISO calendar date: 2026-02-30');
  });

  it('adds days across months, years and leap days', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    fc.assert(
      fc.property(civil, fc.integer({ min: -5000, max: 5000 }), (c, n) => {
        fc.pre(c.year > 20 && c.year < 9980);
        const from = iso(c.year, c.month, c.day);
        const to = addDays(from, n);
        expect(daysBetween(from, to)).toBe(n);
        expect(Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)).toBe(n * dayMs);
      }),
    );
  });

  it('adds months clamped to the last day of a shorter month (Java plusMonths)', () => {
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
    expect(addMonths('2026-11-15', 14)).toBe('2028-01-15');
    expect(addMonths('2026-05-31', 1)).toBe('2026-06-30');
  });

  it('counts whole months truncated towards zero (Java until(…, MONTHS))', () => {
    const m = (a: string, b: string) => monthsBetweenEpochDays(epochDayOf(a), epochDayOf(b));
    expect(m('2026-01-31', '2026-02-28')).toBe(0);
    expect(m('2026-01-31', '2026-03-31')).toBe(2);
    expect(m('2026-01-15', '2027-01-14')).toBe(11);
    expect(m('2026-01-15', '2027-01-15')).toBe(12);
    expect(m('2027-01-15', '2026-01-16')).toBe(-11);
  });
});
