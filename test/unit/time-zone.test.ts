import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, daysInMonth, isIsoDate, parseIsoDate } from '../../domain/calendar';
import {
  formatWithOffset,
  instantOfLocal,
  isValidTimeZone,
  localDate,
  offsetMinutes,
} from '../../domain/time-zone';

const LA = 'America/Los_Angeles';
const dayMs = 86_400_000;

/** An ISO date between 1970 and 2199 (zones before 1970 had offsets with seconds), built without the code under test. */
const isoDate = fc
  .integer({ min: Date.UTC(1970, 0, 1) / dayMs, max: Date.UTC(2199, 11, 31) / dayMs })
  .map((day) => new Date(day * dayMs).toISOString().slice(0, 10));

describe('parseIsoDate / isIsoDate', () => {
  it('parses real calendar dates', () => {
    expect(parseIsoDate('2026-03-08')).toEqual({ year: 2026, month: 3, day: 8 });
    expect(parseIsoDate('2028-02-29')).toEqual({ year: 2028, month: 2, day: 29 });
    expect(parseIsoDate('2000-02-29')).toEqual({ year: 2000, month: 2, day: 29 });
    expect(isIsoDate('2026-12-31')).toBe(true);
  });

  it.each([
    '2026-02-29', // not a leap year
    '1900-02-29', // century, not a leap year
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-01',
    '20260101',
    '2026-01-01T00:00:00Z',
    ' 2026-01-01',
    '',
  ])('rejects %j', (text) => {
    expect(() => parseIsoDate(text)).toThrow(RangeError);
    expect(isIsoDate(text)).toBe(false);
  });

  it('daysInMonth follows the Gregorian leap rules', () => {
    expect(daysInMonth(2026, 2)).toBe(28);
    expect(daysInMonth(2028, 2)).toBe(29);
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(daysInMonth(2026, 4)).toBe(30);
    expect(daysInMonth(2026, 12)).toBe(31);
  });
});

describe('addDays', () => {
  it.each([
    ['2026-02-28', 1, '2026-03-01'],
    ['2028-02-28', 1, '2028-02-29'],
    ['2026-12-31', 1, '2027-01-01'],
    ['2026-01-01', -1, '2025-12-31'],
    ['2026-03-02', 45, '2026-04-16'],
    ['2026-03-02', 0, '2026-03-02'],
    ['2024-03-01', -366, '2023-03-01'],
  ] as const)('%s + %i = %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  it('rejects a date that is not a calendar date', () => {
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
  });

  it('property: addDays(addDays(d, n), -n) = d', () => {
    fc.assert(
      fc.property(isoDate, fc.integer({ min: -20_000, max: 20_000 }), (d, n) => {
        expect(addDays(addDays(d, n), -n)).toBe(d);
      }),
    );
  });

  it('property: adds exactly n days of UTC calendar and composes', () => {
    fc.assert(
      fc.property(
        isoDate,
        fc.integer({ min: -5000, max: 5000 }),
        fc.integer({ min: -5000, max: 5000 }),
        (d, a, b) => {
          const result = addDays(d, a);
          expect(isIsoDate(result)).toBe(true);
          expect((Date.parse(result) - Date.parse(d)) / dayMs).toBe(a);
          expect(addDays(result, b)).toBe(addDays(d, a + b));
        },
      ),
    );
  });
});

describe('addMonths', () => {
  it.each([
    ['2026-01-15', 1, '2026-02-15'],
    ['2026-01-31', 1, '2026-02-28'],
    ['2028-01-31', 1, '2028-02-29'],
    ['2026-03-31', 1, '2026-04-30'],
    ['2026-12-15', 1, '2027-01-15'],
    ['2026-11-30', 3, '2027-02-28'],
    ['2026-03-31', -1, '2026-02-28'],
    ['2026-01-15', -1, '2025-12-15'],
    ['2026-05-31', 0, '2026-05-31'],
    ['2028-02-29', 12, '2029-02-28'],
  ] as const)('%s + %i months = %s', (date, months, expected) => {
    expect(addMonths(date, months)).toBe(expected);
  });

  it('rejects a date that is not a calendar date', () => {
    expect(() => addMonths('2026-13-01', 1)).toThrow(RangeError);
  });

  it('property: lands in the target month on the same day, or its last day when shorter', () => {
    fc.assert(
      fc.property(isoDate, fc.integer({ min: -1200, max: 1200 }), (d, months) => {
        const [y, m, day] = d.split('-').map(Number) as [number, number, number];
        const result = addMonths(d, months);
        const target = new Date(Date.UTC(y, m - 1 + months, 1));
        const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
        expect(parseIsoDate(result)).toEqual({
          year: target.getUTCFullYear(),
          month: target.getUTCMonth() + 1,
          day: Math.min(day, lastDay),
        });
      }),
    );
  });
});

describe('instantOfLocal / localDate / offsetMinutes', () => {
  it('resolves wall times in standard and daylight time', () => {
    expect(instantOfLocal('2026-01-10', { hour: 23, minute: 59, second: 59 }, LA)).toBe(
      Date.parse('2026-01-11T07:59:59Z'),
    );
    expect(instantOfLocal('2026-07-10', { hour: 9, minute: 30, second: 0 }, LA)).toBe(
      Date.parse('2026-07-10T16:30:00Z'),
    );
    expect(instantOfLocal('2026-07-10', { hour: 9, minute: 30, second: 0 }, 'Asia/Kolkata')).toBe(
      Date.parse('2026-07-10T04:00:00Z'),
    );
    expect(instantOfLocal('2026-07-10', { hour: 0, minute: 0, second: 0 }, 'UTC')).toBe(
      Date.parse('2026-07-10T00:00:00Z'),
    );
  });

  it('resolves the wall times next to the DST transitions', () => {
    // 8 March 2026: 01:59:59 PST is the last second before the gap, 03:00 PDT the first after.
    expect(instantOfLocal('2026-03-08', { hour: 1, minute: 59, second: 59 }, LA)).toBe(
      Date.parse('2026-03-08T09:59:59Z'),
    );
    expect(instantOfLocal('2026-03-08', { hour: 3, minute: 0, second: 0 }, LA)).toBe(
      Date.parse('2026-03-08T10:00:00Z'),
    );
    // 1 November 2026: 00:59:59 PDT before the overlap, 02:00 PST after it.
    expect(instantOfLocal('2026-11-01', { hour: 0, minute: 59, second: 59 }, LA)).toBe(
      Date.parse('2026-11-01T07:59:59Z'),
    );
    expect(instantOfLocal('2026-11-01', { hour: 2, minute: 0, second: 0 }, LA)).toBe(
      Date.parse('2026-11-01T10:00:00Z'),
    );
  });

  it('takes the earlier instant of a wall time that occurs twice (overlap)', () => {
    // 01:30 on 1 November 2026 occurs at 08:30Z (PDT) and again at 09:30Z (PST).
    expect(instantOfLocal('2026-11-01', { hour: 1, minute: 30, second: 0 }, LA)).toBe(
      Date.parse('2026-11-01T08:30:00Z'),
    );
  });

  it('reads a wall time inside the DST gap with the later offset', () => {
    // 02:30 on 8 March 2026 does not exist in Los Angeles; the documented rule reads it at −07:00.
    expect(instantOfLocal('2026-03-08', { hour: 2, minute: 30, second: 0 }, LA)).toBe(
      Date.parse('2026-03-08T02:30:00-07:00'),
    );
  });

  it('rejects a date that is not a calendar date', () => {
    expect(() => instantOfLocal('2026-02-29', { hour: 0, minute: 0, second: 0 }, LA)).toThrow(RangeError);
  });

  it('gives offsets in minutes, including non-hour zones', () => {
    expect(offsetMinutes(Date.parse('2026-01-15T12:00:00Z'), LA)).toBe(-480);
    expect(offsetMinutes(Date.parse('2026-07-15T12:00:00Z'), LA)).toBe(-420);
    expect(offsetMinutes(Date.parse('2026-07-15T12:00:00Z'), 'Asia/Kathmandu')).toBe(345);
    expect(offsetMinutes(Date.parse('2026-07-15T12:00:00Z'), 'UTC')).toBe(0);
    // The switch happens at 10:00Z on 8 March 2026.
    expect(offsetMinutes(Date.parse('2026-03-08T09:59:59Z'), LA)).toBe(-480);
    expect(offsetMinutes(Date.parse('2026-03-08T10:00:00Z'), LA)).toBe(-420);
  });

  it('localDate gives the calendar date in the zone', () => {
    expect(localDate(Date.parse('2026-01-01T05:00:00Z'), LA)).toBe('2025-12-31');
    expect(localDate(Date.parse('2026-01-01T08:00:00Z'), LA)).toBe('2026-01-01');
    expect(localDate(Date.parse('2025-12-31T20:00:00Z'), 'Pacific/Auckland')).toBe('2026-01-01');
  });

  it('property: every wall time that exists round-trips through its instant', () => {
    fc.assert(
      fc.property(
        isoDate,
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
        fc.constantFrom(
          LA,
          'Europe/Berlin',
          'Asia/Kolkata',
          'Australia/Sydney',
          'Australia/Lord_Howe',
          'UTC',
        ),
        (date, hour, minute, second, zone) => {
          const wall = `${date}T${pad(hour)}:${pad(minute)}:${pad(second)}`;
          const instant = instantOfLocal(date, { hour, minute, second }, zone);
          if (oracleWallExists(wall, zone)) {
            expect(oracleWall(instant, zone)).toBe(wall);
          } else {
            // In a spring-forward gap: the result is still within an hour of the naive reading.
            expect(Math.abs(instant - Date.parse(`${wall}Z`))).toBeLessThanOrEqual(15 * 3600_000);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Wall time of an instant in a zone via `sv-SE` formatting (independent of the code under test). */
function oracleWall(instantMs: number, zone: string): string {
  return new Date(instantMs).toLocaleString('sv-SE', { timeZone: zone, hourCycle: 'h23' }).replace(' ', 'T');
}

/** True when some instant shows `wall` in `zone`: tries every offset the zone used within a day. */
function oracleWallExists(wall: string, zone: string): boolean {
  const naive = Date.parse(`${wall}Z`);
  for (let probe = naive - 36 * 3600_000; probe <= naive + 36 * 3600_000; probe += 900_000) {
    const offsetMs = Date.parse(`${oracleWall(probe, zone)}Z`) - Math.floor(probe / 1000) * 1000;
    if (oracleWall(naive - offsetMs, zone) === wall) return true;
  }
  return false;
}

describe('formatWithOffset', () => {
  it.each([
    ['2026-01-06T07:59:59Z', LA, '2026-01-05T23:59:59-08:00'],
    ['2026-07-06T06:59:59Z', LA, '2026-07-05T23:59:59-07:00'],
    ['2026-01-01T00:00:00Z', 'Asia/Kolkata', '2026-01-01T05:30:00+05:30'],
    ['2026-01-01T00:00:00Z', 'Asia/Kathmandu', '2026-01-01T05:45:00+05:45'],
    ['2026-01-01T00:00:00Z', 'America/St_Johns', '2025-12-31T20:30:00-03:30'],
    ['2026-06-30T12:34:56Z', 'UTC', '2026-06-30T12:34:56+00:00'],
  ])('%s in %s is %s', (instant, zone, expected) => {
    expect(formatWithOffset(Date.parse(instant), zone)).toBe(expected);
  });

  it('property: the rendered text parses back to the same second', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('1950-01-01'), max: Date.parse('2100-01-01') }),
        fc.constantFrom(LA, 'Europe/London', 'Asia/Kathmandu', 'America/St_Johns', 'Australia/Lord_Howe'),
        (instant, zone) => {
          const text = formatWithOffset(instant, zone);
          expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
          expect(Date.parse(text)).toBe(Math.floor(instant / 1000) * 1000);
          expect(text.slice(0, 10)).toBe(localDate(instant, zone));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA zones and rejects unknown ones', () => {
    expect(isValidTimeZone(LA)).toBe(true);
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});
