/**
 * Privacy-request clocks (docs/design.md §5): CCPA/CPRA 45 calendar days from the receipt date in the
 * compliance zone (11 CCR §7021), GDPR one calendar month with month-end clamping (Art. 12(3)),
 * due at 23:59:59 local time with the zone's offset, reminder 10 × 24 h before due.
 * Expected values are worked out by hand from the calendar (DST in America/Los_Angeles 2026:
 * starts 8 March, ends 1 November).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeExtendedDueAt,
  computePrivacyDeadlines,
  defaultComplianceTimeZone,
  endOfLocalDay,
  type PrivacyRegime,
  privacyRegimes,
  regimeRules,
  reminderLeadDays,
} from '../../domain/deadlines';

const LA = 'America/Los_Angeles';
const dayMs = 86_400_000;

/** Calendar date of an instant in a zone, through a different Intl path than the code under test. */
function oracleLocalDate(instantMs: number, timeZone: string): string {
  return new Date(instantMs).toLocaleDateString('en-CA', { timeZone });
}

/** `date` + `days` computed on UTC midnights (independent of domain/time-zone.ts). */
function oracleAddDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
}

describe('computePrivacyDeadlines — CCPA/CPRA (45 calendar days, America/Los_Angeles)', () => {
  it('counts 45 days from the receipt date and ends the due day at 23:59:59 PDT', () => {
    // 2026-03-02 10:00 PST → due day 2026-04-16, after DST started (−07:00).
    const d = computePrivacyDeadlines({
      regime: 'CCPA_CPRA',
      receivedAtMs: Date.parse('2026-03-02T18:00:00Z'),
      timeZone: LA,
    });
    expect(d.dueDate).toBe('2026-04-16');
    expect(d.statutoryDueAt).toBe('2026-04-16T23:59:59-07:00');
    expect(d.dueAtMs).toBe(Date.parse('2026-04-17T06:59:59Z'));
  });

  it('uses the local date: a late-evening receipt in UTC falls on the previous local day', () => {
    // 2026-01-01T05:00Z is 2025-12-31 21:00 PST: counting starts on 31 December.
    const d = computePrivacyDeadlines({
      regime: 'CCPA_CPRA',
      receivedAtMs: Date.parse('2026-01-01T05:00:00Z'),
      timeZone: LA,
    });
    expect(d.dueDate).toBe('2026-02-14');
    expect(d.statutoryDueAt).toBe('2026-02-14T23:59:59-08:00');
    expect(d.dueAtMs).toBe(Date.parse('2026-02-15T07:59:59Z'));
  });

  it('switches the local day exactly at local midnight', () => {
    const before = computePrivacyDeadlines({
      regime: 'CCPA_CPRA',
      receivedAtMs: Date.parse('2026-03-03T07:59:59Z'),
      timeZone: LA,
    });
    const after = computePrivacyDeadlines({
      regime: 'CCPA_CPRA',
      receivedAtMs: Date.parse('2026-03-03T08:00:00Z'),
      timeZone: LA,
    });
    expect(before.dueDate).toBe('2026-04-16');
    expect(after.dueDate).toBe('2026-04-17');
  });

  it('gets the offset right when DST starts between receipt and due', () => {
    // Received 2026-01-25 (PST), due 2026-03-11 (PDT).
    const d = computePrivacyDeadlines({
      regime: 'CCPA_CPRA',
      receivedAtMs: Date.parse('2026-01-25T20:00:00Z'),
      timeZone: LA,
    });
    expect(d.statutoryDueAt).toBe('2026-03-11T23:59:59-07:00');
    expect(d.dueAtMs).toBe(Date.parse('2026-03-12T06:59:59Z'));
  });

  it('gets the offset right when DST ends between receipt and due', () => {
    // Received 2026-09-20 (PDT), due 2026-11-04 (PST).
    const d = computePrivacyDeadlines({
      regime: 'CCPA_CPRA',
      receivedAtMs: Date.parse('2026-09-20T16:00:00Z'),
      timeZone: LA,
    });
    expect(d.statutoryDueAt).toBe('2026-11-04T23:59:59-08:00');
    expect(d.dueAtMs).toBe(Date.parse('2026-11-05T07:59:59Z'));
  });

  it('puts the reminder 10 × 24 h before the due time', () => {
    const d = computePrivacyDeadlines({
      regime: 'CCPA_CPRA',
      receivedAtMs: Date.parse('2026-03-02T18:00:00Z'),
      timeZone: LA,
    });
    expect(reminderLeadDays).toBe(10);
    expect(d.reminderAtMs).toBe(Date.parse('2026-04-07T06:59:59Z'));
    expect(d.dueAtMs - d.reminderAtMs).toBe(10 * dayMs);
  });

  it('property: due day = local receipt date + 45, ends at 23:59:59 local, reminder 10 days before', () => {
    const from = Date.parse('1990-01-01T00:00:00Z');
    const to = Date.parse('2060-01-01T00:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: from, max: to }), (receivedAtMs) => {
        const d = computePrivacyDeadlines({ regime: 'CCPA_CPRA', receivedAtMs, timeZone: LA });
        expect(d.dueDate).toBe(oracleAddDays(oracleLocalDate(receivedAtMs, LA), 45));
        expect(d.statutoryDueAt).toMatch(/^\d{4}-\d{2}-\d{2}T23:59:59-0[78]:00$/);
        expect(d.statutoryDueAt.slice(0, 10)).toBe(d.dueDate);
        expect(Date.parse(d.statutoryDueAt)).toBe(d.dueAtMs);
        // The last second of the due day: one second later is the next local day.
        expect(oracleLocalDate(d.dueAtMs, LA)).toBe(d.dueDate);
        expect(oracleLocalDate(d.dueAtMs + 1000, LA)).toBe(oracleAddDays(d.dueDate, 1));
        expect(d.reminderAtMs).toBe(d.dueAtMs - 10 * dayMs);
        // 45 calendar days after the receipt day: 45 to 46 days of elapsed time, ± one DST hour.
        expect(d.dueAtMs - receivedAtMs).toBeGreaterThan(45 * dayMs - 3600_000 - 1000);
        expect(d.dueAtMs - receivedAtMs).toBeLessThan(46 * dayMs + 3600_000);
      }),
      { numRuns: 500 },
    );
  });

  it('treats VCDPA, CPA_CO and CTDPA like CCPA (45 days)', () => {
    const receivedAtMs = Date.parse('2026-06-10T17:00:00Z');
    const ccpa = computePrivacyDeadlines({ regime: 'CCPA_CPRA', receivedAtMs, timeZone: LA });
    for (const regime of ['VCDPA', 'CPA_CO', 'CTDPA'] as const) {
      expect(computePrivacyDeadlines({ regime, receivedAtMs, timeZone: LA })).toEqual(ccpa);
    }
    expect(ccpa.dueDate).toBe('2026-07-25');
  });
});

describe('computePrivacyDeadlines — GDPR / UK GDPR (one calendar month)', () => {
  const cases: [string, string, string][] = [
    ['2026-01-15T18:00:00Z', '2026-02-15', '2026-02-15T23:59:59-08:00'],
    // Month-end clamping: 31 January → 28 February (2026) and 29 February (2028, leap year).
    ['2026-01-31T18:00:00Z', '2026-02-28', '2026-02-28T23:59:59-08:00'],
    ['2028-01-31T18:00:00Z', '2028-02-29', '2028-02-29T23:59:59-08:00'],
    ['2026-03-31T18:00:00Z', '2026-04-30', '2026-04-30T23:59:59-07:00'],
    ['2026-12-15T18:00:00Z', '2027-01-15', '2027-01-15T23:59:59-08:00'],
    // 2026-03-01T05:00Z is 28 February 21:00 PST: one month later is 28 March (PDT).
    ['2026-03-01T05:00:00Z', '2026-03-28', '2026-03-28T23:59:59-07:00'],
  ];
  it.each(cases)('received %s → due %s', (received, dueDate, statutoryDueAt) => {
    for (const regime of ['GDPR', 'UK_GDPR'] as const) {
      const d = computePrivacyDeadlines({ regime, receivedAtMs: Date.parse(received), timeZone: LA });
      expect(d.dueDate).toBe(dueDate);
      expect(d.statutoryDueAt).toBe(statutoryDueAt);
      expect(d.dueAtMs).toBe(Date.parse(statutoryDueAt));
      expect(d.reminderAtMs).toBe(d.dueAtMs - 10 * dayMs);
    }
  });

  it('counts in the zone it is given (Europe/Berlin, CET)', () => {
    // 2026-01-30T23:30Z is already 31 January in Berlin.
    const d = computePrivacyDeadlines({
      regime: 'GDPR',
      receivedAtMs: Date.parse('2026-01-30T23:30:00Z'),
      timeZone: 'Europe/Berlin',
    });
    expect(d.dueDate).toBe('2026-02-28');
    expect(d.statutoryDueAt).toBe('2026-02-28T23:59:59+01:00');
    expect(d.dueAtMs).toBe(Date.parse('2026-02-28T22:59:59Z'));
  });

  it('property: same day next month, or the last day of next month when it is shorter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('1990-01-01'), max: Date.parse('2060-01-01') }),
        (receivedAtMs) => {
          const d = computePrivacyDeadlines({ regime: 'GDPR', receivedAtMs, timeZone: LA });
          const [y, m, day] = oracleLocalDate(receivedAtMs, LA).split('-').map(Number) as [
            number,
            number,
            number,
          ];
          const lastOfNext = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
          const expected = new Date(Date.UTC(y, m, Math.min(day, lastOfNext))).toISOString().slice(0, 10);
          expect(d.dueDate).toBe(expected);
          expect(Date.parse(d.statutoryDueAt)).toBe(d.dueAtMs);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('computeExtendedDueAt (the one extension)', () => {
  it('adds 45 days to a CCPA due day', () => {
    const d = computeExtendedDueAt({ regime: 'CCPA_CPRA', dueDate: '2026-04-16', timeZone: LA });
    expect(d.dueDate).toBe('2026-05-31');
    expect(d.statutoryDueAt).toBe('2026-05-31T23:59:59-07:00');
    expect(d.dueAtMs).toBe(Date.parse('2026-06-01T06:59:59Z'));
    expect(d.reminderAtMs).toBe(d.dueAtMs - 10 * dayMs);
  });

  it('adds 45 days across the end of DST', () => {
    const d = computeExtendedDueAt({ regime: 'VCDPA', dueDate: '2026-10-01', timeZone: LA });
    expect(d.statutoryDueAt).toBe('2026-11-15T23:59:59-08:00');
  });

  it('adds two months to a GDPR due day', () => {
    const d = computeExtendedDueAt({ regime: 'GDPR', dueDate: '2026-02-15', timeZone: 'Europe/Berlin' });
    expect(d.dueDate).toBe('2026-04-15');
    expect(d.statutoryDueAt).toBe('2026-04-15T23:59:59+02:00');
  });

  it('is always later than the original due time', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...privacyRegimes),
        fc.integer({ min: Date.parse('2000-01-01'), max: Date.parse('2050-01-01') }),
        (regime: PrivacyRegime, receivedAtMs) => {
          const first = computePrivacyDeadlines({ regime, receivedAtMs, timeZone: LA });
          const extended = computeExtendedDueAt({ regime, dueDate: first.dueDate, timeZone: LA });
          expect(extended.dueAtMs).toBeGreaterThan(first.dueAtMs + 27 * dayMs);
        },
      ),
    );
  });
});

describe('regime table and helpers', () => {
  it('has a period, an extension and a source for every regime', () => {
    for (const regime of privacyRegimes) {
      const rule = regimeRules[regime];
      expect(rule.source.length).toBeGreaterThan(0);
      expect('days' in rule.period ? rule.period.days : rule.period.months * 30).toBeGreaterThan(0);
    }
    expect(regimeRules.CCPA_CPRA.period).toEqual({ days: 45 });
    expect(regimeRules.GDPR.period).toEqual({ months: 1 });
    expect(regimeRules.GDPR.extension).toEqual({ months: 2 });
  });

  it('defaults the compliance zone to America/Los_Angeles', () => {
    expect(defaultComplianceTimeZone).toBe(LA);
  });

  it('endOfLocalDay is 23:59:59 wall time in winter and summer', () => {
    expect(endOfLocalDay('2026-01-10', LA)).toBe(Date.parse('2026-01-11T07:59:59Z'));
    expect(endOfLocalDay('2026-07-10', LA)).toBe(Date.parse('2026-07-11T06:59:59Z'));
    expect(endOfLocalDay('2026-07-10', 'UTC')).toBe(Date.parse('2026-07-10T23:59:59Z'));
  });

  it('rejects a due day that is not a calendar date', () => {
    expect(() => computeExtendedDueAt({ regime: 'CCPA_CPRA', dueDate: '2026-02-30', timeZone: LA })).toThrow(
      RangeError,
    );
  });
});
