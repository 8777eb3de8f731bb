/**
 * Federal Reserve business days (domain/calendar.ts) against the Federal Reserve's published holiday
 * schedules (frbservices.org "Holiday Schedules", also richmondfed.org/about_us/holiday_schedule): the 2025,
 * 2026 and 2027 tables, a Saturday holiday not observed (the Banks open the Friday before), Sunday holidays
 * observed the Monday after, and the shift convention of `addFederalReserveBusinessDays`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  addFederalReserveBusinessDays,
  federalReserveBusinessDayOnOrAfter,
  federalReserveHolidays,
  isFederalReserveBusinessDay,
  isoDayOfWeek,
  nextFederalReserveBusinessDay,
  previousFederalReserveBusinessDay,
} from '../../domain/calendar';

/** The closed dates of a year, as the schedule lists them (Saturday holidays: none). */
function closures(year: number): (string | null)[] {
  return federalReserveHolidays(year).map((h) => h.observedOn);
}

describe('Federal Reserve holidays', () => {
  it('match the published 2025 schedule', () => {
    expect(closures(2025)).toEqual([
      '2025-01-01',
      '2025-01-20',
      '2025-02-17',
      '2025-05-26',
      '2025-06-19',
      '2025-07-04',
      '2025-09-01',
      '2025-10-13',
      '2025-11-11',
      '2025-11-27',
      '2025-12-25',
    ]);
  });

  it('match the published 2026 schedule: July 4 is a Saturday and not observed (open Friday July 3)', () => {
    const holidays = federalReserveHolidays(2026);
    expect(holidays.map((h) => h.date)).toEqual([
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-04',
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
    expect(holidays.find((h) => h.name === 'Independence Day')).toEqual({
      name: 'Independence Day',
      date: '2026-07-04',
      observedOn: null,
    });
    expect(isFederalReserveBusinessDay('2026-07-03')).toBe(true);
    expect(isFederalReserveBusinessDay('2026-07-06')).toBe(true);
    expect(closures(2026).filter((d) => d !== null)).toHaveLength(10);
  });

  it('match the published 2027 schedule: Saturday June 19 and Dec 25 not observed, Sunday July 4 observed Monday', () => {
    expect(closures(2027)).toEqual([
      '2027-01-01',
      '2027-01-18',
      '2027-02-15',
      '2027-05-31',
      null,
      '2027-07-05',
      '2027-09-06',
      '2027-10-11',
      '2027-11-11',
      '2027-11-25',
      null,
    ]);
    expect(isFederalReserveBusinessDay('2027-06-18')).toBe(true);
    expect(isFederalReserveBusinessDay('2027-12-24')).toBe(true);
    expect(isFederalReserveBusinessDay('2027-07-05')).toBe(false);
  });

  it('observe a Sunday holiday the Monday after', () => {
    expect(isoDayOfWeek('2022-12-25')).toBe(7);
    expect(isFederalReserveBusinessDay('2022-12-26')).toBe(false);
    expect(isFederalReserveBusinessDay('2022-12-23')).toBe(true);
    expect(isoDayOfWeek('2023-01-01')).toBe(7);
    expect(isFederalReserveBusinessDay('2023-01-02')).toBe(false);
    expect(isFederalReserveBusinessDay('2023-01-03')).toBe(true);
    // Juneteenth 2022 fell on a Sunday: closed Monday June 20.
    expect(isFederalReserveBusinessDay('2022-06-20')).toBe(false);
  });

  it('do not observe a Saturday New Year on the Friday before (2022-01-01: open 2021-12-31)', () => {
    expect(isFederalReserveBusinessDay('2021-12-31')).toBe(true);
    expect(federalReserveHolidays(2022)[0]).toEqual({
      name: "New Year's Day",
      date: '2022-01-01',
      observedOn: null,
    });
  });

  it('have Juneteenth from 2022 only', () => {
    expect(federalReserveHolidays(2021).map((h) => h.name)).not.toContain(
      'Juneteenth National Independence Day',
    );
    expect(federalReserveHolidays(2021)).toHaveLength(10);
    expect(federalReserveHolidays(2022)).toHaveLength(11);
    expect(isFederalReserveBusinessDay('2021-06-18')).toBe(true);
  });

  it('put each floating holiday on its weekday, in every year', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1900, max: 2200 }), (year) => {
        const byName = new Map(federalReserveHolidays(year).map((h) => [h.name, h.date]));
        const weekday = (name: string) => isoDayOfWeek(byName.get(name) as string);
        const dayOfMonth = (name: string) => Number((byName.get(name) as string).slice(8));
        expect(weekday('Birthday of Martin Luther King, Jr.')).toBe(1);
        expect(dayOfMonth('Birthday of Martin Luther King, Jr.')).toBeGreaterThanOrEqual(15);
        expect(dayOfMonth('Birthday of Martin Luther King, Jr.')).toBeLessThanOrEqual(21);
        expect(weekday('Memorial Day')).toBe(1);
        expect(dayOfMonth('Memorial Day')).toBeGreaterThanOrEqual(25);
        expect(weekday('Labor Day')).toBe(1);
        expect(dayOfMonth('Labor Day')).toBeLessThanOrEqual(7);
        expect(weekday('Columbus Day')).toBe(1);
        expect(dayOfMonth('Columbus Day')).toBeGreaterThanOrEqual(8);
        expect(dayOfMonth('Columbus Day')).toBeLessThanOrEqual(14);
        expect(weekday('Thanksgiving Day')).toBe(4);
        expect(dayOfMonth('Thanksgiving Day')).toBeGreaterThanOrEqual(22);
        expect(dayOfMonth('Thanksgiving Day')).toBeLessThanOrEqual(28);
        for (const h of federalReserveHolidays(year)) {
          const day = isoDayOfWeek(h.date);
          expect(h.observedOn).toBe(day === 6 ? null : day === 7 ? addDays(h.date, 1) : h.date);
        }
      }),
    );
  });

  it('refuse years outside 0–9999', () => {
    expect(() => federalReserveHolidays(10_000)).toThrow(RangeError);
    expect(() => federalReserveHolidays(2026.5)).toThrow(RangeError);
  });
});

describe('Federal Reserve business days', () => {
  it('exclude weekends', () => {
    expect(isFederalReserveBusinessDay('2026-11-21')).toBe(false);
    expect(isFederalReserveBusinessDay('2026-11-22')).toBe(false);
    expect(isFederalReserveBusinessDay('2026-11-23')).toBe(true);
  });

  it('shift forward by whole business days, strictly after the date', () => {
    expect(addFederalReserveBusinessDays('2026-11-20', 1)).toBe('2026-11-23'); // Friday → Monday
    expect(addFederalReserveBusinessDays('2026-11-21', 1)).toBe('2026-11-23'); // Saturday → Monday
    expect(addFederalReserveBusinessDays('2026-11-25', 1)).toBe('2026-11-27'); // over Thanksgiving
    expect(addFederalReserveBusinessDays('2026-01-16', 1)).toBe('2026-01-20'); // over MLK Day
    expect(addFederalReserveBusinessDays('2026-07-02', 2)).toBe('2026-07-06'); // July 3 open
    expect(addFederalReserveBusinessDays('2022-12-23', 1)).toBe('2022-12-27'); // Sunday Christmas
    expect(addFederalReserveBusinessDays('2026-12-24', 2)).toBe('2026-12-29');
    expect(addFederalReserveBusinessDays('2026-12-31', 1)).toBe('2027-01-04'); // over New Year
  });

  it('roll a non-business day forward for 0 and keep a business day', () => {
    expect(addFederalReserveBusinessDays('2026-11-23', 0)).toBe('2026-11-23');
    expect(addFederalReserveBusinessDays('2026-11-21', 0)).toBe('2026-11-23');
    expect(addFederalReserveBusinessDays('2026-11-26', 0)).toBe('2026-11-27');
    expect(federalReserveBusinessDayOnOrAfter('2023-01-01')).toBe('2023-01-03');
  });

  it('name the next and the previous business day', () => {
    expect(nextFederalReserveBusinessDay('2026-11-23')).toBe('2026-11-24');
    expect(nextFederalReserveBusinessDay('2026-09-04')).toBe('2026-09-08'); // Labor Day
    expect(previousFederalReserveBusinessDay('2026-09-08')).toBe('2026-09-04');
    expect(previousFederalReserveBusinessDay('2023-01-03')).toBe('2022-12-30');
  });

  it('land on a business day, after the date, with exactly n business days in between (property)', () => {
    const date = fc.integer({ min: 0, max: 365 * 40 }).map((n) => addDays('2000-01-01', n));
    fc.assert(
      fc.property(date, fc.integer({ min: 1, max: 30 }), (start, n) => {
        const end = addFederalReserveBusinessDays(start, n);
        expect(isFederalReserveBusinessDay(end)).toBe(true);
        let count = 0;
        for (let d = addDays(start, 1); d <= end; d = addDays(d, 1)) {
          if (isFederalReserveBusinessDay(d)) count += 1;
        }
        expect(count).toBe(n);
        expect(addFederalReserveBusinessDays(start, n + 1)).toBe(nextFederalReserveBusinessDay(end));
        expect(previousFederalReserveBusinessDay(nextFederalReserveBusinessDay(end))).toBe(end);
      }),
      { numRuns: 200 },
    );
  });

  it('refuse a negative or fractional count and a non-date', () => {
    expect(() => addFederalReserveBusinessDays('2026-11-23', -1)).toThrow(RangeError);
    expect(() => addFederalReserveBusinessDays('2026-11-23', 1.5)).toThrow(RangeError);
    expect(() => addFederalReserveBusinessDays('2026-02-30', 1)).toThrow(RangeError);
    expect(() => isFederalReserveBusinessDay('26-11-23')).toThrow(RangeError);
  });
});
