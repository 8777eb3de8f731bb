/**
 * Regulation Z Appendix J actuarial APR (domain/lending/apr.ts).
 *
 * Oracles:
 * - Published: every example of test/vectors/apr-appendix-j.json (App. J (c)); a computed APR
 *   passes when, rounded half-up to 2 decimals, it equals `publishedApr` ((b)(9)). Each case runs once in
 *   the printed t/f form and, where the case gives dates, once from the dates.
 * - Date conversion ((b)(3)–(b)(5)): dated schedules whose t/f are worked out by hand in the comments
 *   must give exactly the APR of the same payments in t/f form.
 * - Constructed: level payments computed here from a known unit-period rate give that rate back; a larger
 *   payment gives a larger APR.
 * - Negative space: every RangeError of the contract.
 * - Fast path: computeApr's certified fast path against computeAprReference (the straightforward 40-digit
 *   solver) and against a 60-digit evaluation of App. J (b)(8) written in this file, on random schedules.
 */
import { readFileSync } from 'node:fs';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AprInput,
  type AprResult,
  computeApr,
  computeAprFast,
  computeAprReference,
  type NamedUnitPeriod,
  type UnitPeriod,
} from '../../domain/lending/apr';

interface VectorPayment {
  index: number;
  date: string | null;
  t: number;
  f: string;
  amount: string;
}

interface VectorCase {
  id: string;
  source: string;
  title: string;
  amountFinanced: string;
  advanceDate: string;
  unitPeriod: string;
  unitPeriodsPerYear: string;
  payments: VectorPayment[];
  publishedApr: string;
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/apr-appendix-j.json', import.meta.url), 'utf8'),
) as { cases: VectorCase[] };

const namedUnitPeriods: Record<string, NamedUnitPeriod> = {
  '1 week': 'WEEK',
  '2 weeks': 'BIWEEK',
  '4 weeks': 'FOURWEEK',
  semimonth: 'SEMIMONTH',
  '1 month': 'MONTH',
  '2 months': 'TWOMONTH',
  '3 months': 'QUARTER',
  '6 months': 'SEMIYEAR',
  '1 year': 'YEAR',
};

/** The vectors' free-text unit period ("1 month", "255 days (the whole term); …") as the enum. */
function unitPeriodOf(c: VectorCase): UnitPeriod {
  const term = /^(\d+) days \(the whole term\)/.exec(c.unitPeriod);
  if (term) return { days: Number(term[1]) };
  const named = namedUnitPeriods[c.unitPeriod];
  if (named === undefined) throw new Error(`${c.id}: unmapped unit period "${c.unitPeriod}"`);
  return named;
}

/** "12" or "365/255" from the vectors, as a Decimal. */
function perYearOf(c: VectorCase): Decimal {
  const [num, den = '1'] = c.unitPeriodsPerYear.split('/');
  return new Decimal(num!).div(den);
}

const roundHalfUp2 = (apr: string) => new Decimal(apr).toFixed(2, Decimal.ROUND_HALF_UP);

describe('computeApr — published examples of 12 CFR 1026 App. J (c) (test/vectors/apr-appendix-j.json)', () => {
  it('loads every case, each with a mapped unit period', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(6);
    for (const c of vectors.cases) expect(() => unitPeriodOf(c)).not.toThrow();
  });

  for (const c of vectors.cases) {
    const base = {
      amountFinanced: c.amountFinanced,
      advanceDate: c.advanceDate,
      unitPeriod: unitPeriodOf(c),
    };
    const byTf = () =>
      computeApr({ ...base, payments: c.payments.map((p) => ({ amount: p.amount, t: p.t, f: p.f })) });

    it(`${c.id} (${c.source}, ${c.title}): t/f form gives the published ${c.publishedApr}%`, () => {
      const result = byTf();
      expect(roundHalfUp2(result.apr)).toBe(c.publishedApr);
      // The APR is the unit-period rate times the case's own unit-periods per year ((b)(1)).
      const implied = new Decimal(result.unitPeriodRate).times(perYearOf(c)).times(100);
      expect(implied.minus(result.apr).abs().toNumber()).toBeLessThan(1e-6);
    });

    const dated = c.payments.every((p) => p.date !== null);
    it.runIf(dated)(`${c.id} (${c.source}): payment dates give the published ${c.publishedApr}%`, () => {
      const result = computeApr({
        ...base,
        payments: c.payments.map((p) => ({ amount: p.amount, date: p.date! })),
      });
      expect(roundHalfUp2(result.apr)).toBe(c.publishedApr);
      // Dates must land on the printed t/f exactly, not merely round to the same figure.
      expect(result.apr).toBe(byTf().apr);
    });
  }
});

type TfPayment = { amount: string; t: number; f: string };
type DatedPayment = { amount: string; date: string };

/** `count` equal payments one unit-period apart from (t, f). */
function series(amount: string, count: number, t: number, f: string): TfPayment[] {
  return Array.from({ length: count }, (_, k) => ({ amount, t: t + k, f }));
}

/** UTC calendar arithmetic for building schedules, independent of domain/time-zone.ts. */
function isoOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
function plusDays(date: string, days: number): string {
  return isoOf(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);
}
/** Same day of a later month; only for days 1–28, which every month has. */
function plusMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  if (d > 28) throw new Error('plusMonths is for days 1–28');
  return isoOf(Date.UTC(y, m - 1 + months, d));
}
/** Same day of a later month, or that month's last day when it is shorter. */
function plusMonthsAnyDay(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const lastDay = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return isoOf(Date.UTC(y, m - 1 + months, Math.min(d, lastDay)));
}
function lastDayOf(year: number, month: number): string {
  return isoOf(Date.UTC(year, month, 0));
}

function expectSameApr(
  base: Omit<AprInput, 'payments'>,
  dated: DatedPayment[],
  tf: TfPayment[],
): { apr: string; unitPeriodRate: string } {
  const fromDates = computeApr({ ...base, payments: dated });
  expect(fromDates).toEqual(computeApr({ ...base, payments: tf }));
  return fromDates;
}

describe('computeApr — payment dates to unit-periods, App. J (b)(3)–(b)(5)', () => {
  it('(b)(5)(ii) month: 1978-02-10 → 1978-04-01 is 1 month back to 03-01 plus 19 days, f = 19/30', () => {
    const dated = Array.from({ length: 36 }, (_, k) => ({
      amount: '200.00',
      date: plusMonths('1978-04-01', k),
    }));
    expectSameApr(
      { amountFinanced: '6000.00', advanceDate: '1978-02-10', unitPeriod: 'MONTH' },
      dated,
      series('200.00', 36, 1, '19/30'),
    );
  });

  it('(b)(5)(ii) month: 30 odd days in a 31-day month are f = 30/30, the same as one whole unit-period', () => {
    const base = { amountFinanced: '1000.00', advanceDate: '1978-01-01', unitPeriod: 'MONTH' } as const;
    const fromDates = computeApr({ ...base, payments: [{ amount: '1010.00', date: '1978-01-31' }] });
    expect(fromDates).toEqual(computeApr({ ...base, payments: [{ amount: '1010.00', t: 0, f: '30/30' }] }));
    expect(fromDates.unitPeriodRate).toBe('0.0100000000');
    expect(fromDates.apr).toBe('12.0000000000');
  });

  it('(b)(5)(iii) semimonth: 1st/16th from 1978-03-01 after an advance on 02-23 are t = 0,1,2… with f = 6/15', () => {
    // 03-01: 6 days → 0 + 6/15; 03-16: 21 days → 1 + 6/15; 04-01: 1 month + 6 days = 36 → 2 + 6/15.
    const dated = Array.from({ length: 24 }, (_, k) => ({
      amount: '219.17',
      date: plusMonths(k % 2 === 0 ? '1978-03-01' : '1978-03-16', Math.floor(k / 2)),
    }));
    expectSameApr(
      { amountFinanced: '5000.00', advanceDate: '1978-02-23', unitPeriod: 'SEMIMONTH' },
      dated,
      series('219.17', 24, 0, '6/15'),
    );
  });

  it('(b)(5)(iii) quarter: 1978-05-23 → 1978-10-01 is 4 months + 9 days = 129 days = 1 + 39/90', () => {
    const dated = Array.from({ length: 40 }, (_, k) => ({
      amount: '385.00',
      date: plusMonths('1978-10-01', 3 * k),
    }));
    expectSameApr(
      { amountFinanced: '10000.00', advanceDate: '1978-05-23', unitPeriod: 'QUARTER' },
      dated,
      series('385.00', 40, 1, '39/90'),
    );
  });

  it('(b)(5)(iii) two months: 1978-01-10 → 1978-03-01 is 1 month + 22 days = 52 days = 0 + 52/60', () => {
    const dated = [
      { amount: '449.36', date: '1978-03-01' },
      ...Array.from({ length: 18 }, (_, k) => ({ amount: '465.00', date: plusMonths('1978-05-01', 2 * k) })),
      { amount: '200.00', date: '1981-05-01' },
    ];
    const tf = [
      ...series('449.36', 1, 0, '52/60'),
      ...series('465.00', 18, 1, '52/60'),
      ...series('200.00', 1, 19, '52/60'),
    ];
    expectSameApr(
      { amountFinanced: '8000.00', advanceDate: '1978-01-10', unitPeriod: 'TWOMONTH' },
      dated,
      tf,
    );
  });

  it('(b)(5)(iv) week, two weeks, four weeks: days ÷ 7, 14, 28', () => {
    // 1978-03-20 → 1978-04-21 = 32 days = 4 weeks + 4 days.
    expectSameApr(
      { amountFinanced: '500.00', advanceDate: '1978-03-20', unitPeriod: 'WEEK' },
      Array.from({ length: 30 }, (_, k) => ({ amount: '17.60', date: plusDays('1978-04-21', 7 * k) })),
      series('17.60', 30, 4, '4/7'),
    );
    // 1978-04-03 → 1978-04-11 = 8 days = 0 + 8/14.
    expectSameApr(
      { amountFinanced: '200.00', advanceDate: '1978-04-03', unitPeriod: 'BIWEEK' },
      [
        ...Array.from({ length: 19 }, (_, k) => ({ amount: '9.50', date: plusDays('1978-04-11', 14 * k) })),
        { amount: '30.00', date: plusDays('1978-04-11', 14 * 19) },
      ],
      [...series('9.50', 19, 0, '8/14'), ...series('30.00', 1, 19, '8/14')],
    );
    // 1978-03-18 → 1978-04-20 = 33 days = 1 + 5/28.
    expectSameApr(
      { amountFinanced: '400.00', advanceDate: '1978-03-18', unitPeriod: 'FOURWEEK' },
      [
        { amount: '39.50', date: '1978-04-20' },
        ...Array.from({ length: 11 }, (_, k) => ({ amount: '38.31', date: plusDays('1978-05-18', 28 * k) })),
      ],
      [...series('39.50', 1, 1, '5/28'), ...series('38.31', 11, 2, '5/28')],
    );
  });

  it('(b)(5)(iii) six months and (b)(5)(v) year: whole years back, then months ÷ 12 or days ÷ 365', () => {
    const base = { amountFinanced: '1000.00', advanceDate: '1978-01-03' } as const;
    expectSameApr(
      { ...base, unitPeriod: 'SEMIYEAR' },
      [{ amount: '1044.00', date: '1978-07-03' }],
      [{ amount: '1044.00', t: 1, f: '0' }],
    );
    // 18 months: 1 year + 6 whole months → f = 6/12.
    expectSameApr(
      { ...base, unitPeriod: 'YEAR' },
      [{ amount: '1135.19', date: '1979-07-03' }],
      [{ amount: '1135.19', t: 1, f: '6/12' }],
    );
    // 1 year back to 1978-01-20, 17 odd days → f = 17/365.
    expectSameApr(
      { ...base, unitPeriod: 'YEAR' },
      [{ amount: '1100.00', date: '1979-01-20' }],
      [{ amount: '1100.00', t: 1, f: '17/365' }],
    );
  });

  it('(b)(4)(ii), (b)(5)(vii) { days: n }: one payment n days out is one unit-period, 365/n per year', () => {
    const result = computeApr({
      amountFinanced: '100.00',
      advanceDate: '2026-03-01',
      unitPeriod: { days: 14 },
      payments: [{ amount: '115.00', date: '2026-03-15' }],
    });
    expect(result.unitPeriodRate).toBe('0.1500000000');
    expect(result.apr).toBe('391.0714285714'); // 0.15 × 365/14 × 100
  });

  it('(b)(3) a series on the 30th uses the last day of February and counts back from it to the 30th', () => {
    // 1978-02-28 is the 30th-of-the-month payment: one month back is 1978-01-30, the advance date.
    const dated = [
      { amount: '340.00', date: '1978-02-28' },
      ...Array.from({ length: 2 }, (_, k) => ({ amount: '340.00', date: `1978-0${3 + k}-30` })),
    ];
    expectSameApr(
      { amountFinanced: '1000.00', advanceDate: '1978-01-30', unitPeriod: 'MONTH' },
      dated,
      series('340.00', 3, 1, '0'),
    );
  });

  it('(b)(3) a series on the last day of each month counts back from month end to month end', () => {
    const dated = Array.from({ length: 12 }, (_, k) => ({ amount: '88.00', date: lastDayOf(1978, 2 + k) }));
    expectSameApr(
      { amountFinanced: '1000.00', advanceDate: '1978-01-31', unitPeriod: 'MONTH' },
      dated,
      series('88.00', 12, 1, '0'),
    );
  });

  it('(b)(3) a series on the 28th stays on the 28th even where the 28th is the last day of February', () => {
    // The advance on 01-31 is after 01-28: the first payment (02-28) is 0 months + 28 days.
    const dated = Array.from({ length: 3 }, (_, k) => ({
      amount: '340.00',
      date: plusMonths('1978-02-28', k),
    }));
    expectSameApr(
      { amountFinanced: '1000.00', advanceDate: '1978-01-31', unitPeriod: 'MONTH' },
      dated,
      series('340.00', 3, 0, '28/30'),
    );
  });

  it('orders nothing: payments may come in any order and mixed date and t/f forms', () => {
    const base = { amountFinanced: '5000.00', advanceDate: '1978-01-10', unitPeriod: 'MONTH' } as const;
    const ordered = computeApr({ ...base, payments: series('230.00', 24, 1, '0') });
    const mixed = series('230.00', 24, 1, '0')
      .map((p, k) => (k % 3 === 0 ? { amount: p.amount, date: plusMonths('1978-02-10', k) } : p))
      .reverse();
    expect(computeApr({ ...base, payments: mixed })).toEqual(ordered);
  });

  it('a payment on the advance date counts at full value (t = 0, f = 0)', () => {
    const base = { amountFinanced: '1000.00', advanceDate: '2026-01-15', unitPeriod: 'MONTH' } as const;
    const result = computeApr({
      ...base,
      payments: [
        { amount: '100.00', date: '2026-01-15' },
        { amount: '909.00', date: '2026-02-15' },
      ],
    });
    expect(result.unitPeriodRate).toBe('0.0100000000');
  });

  it('returns zero when the payments total the amount financed, and a negative rate when they fall short', () => {
    const base = { amountFinanced: '1000.00', advanceDate: '2026-01-15', unitPeriod: 'MONTH' } as const;
    expect(computeApr({ ...base, payments: series('100.00', 10, 1, '0') })).toEqual({
      apr: '0.0000000000',
      unitPeriodRate: '0.0000000000',
    });
    const short = computeApr({ ...base, payments: [{ amount: '990.00', t: 1, f: '0' }] });
    expect(short.unitPeriodRate).toBe('-0.0100000000');
    expect(short.apr).toBe('-12.0000000000');
  });
});

const namedList: NamedUnitPeriod[] = [
  'WEEK',
  'BIWEEK',
  'FOURWEEK',
  'SEMIMONTH',
  'MONTH',
  'TWOMONTH',
  'QUARTER',
  'SEMIYEAR',
  'YEAR',
];
const perYear: Record<NamedUnitPeriod, number> = {
  WEEK: 52,
  BIWEEK: 26,
  FOURWEEK: 13,
  SEMIMONTH: 24,
  MONTH: 12,
  TWOMONTH: 6,
  QUARTER: 4,
  SEMIYEAR: 2,
  YEAR: 1,
};

// The oracle's own arithmetic, well beyond the solver's 40 digits.
const D = Decimal.clone({ precision: 60 });

/** Level payment with leading fraction f: A = P/(1+f·i) · (1 − (1+i)^−n)/i, solved for P. */
function levelPayment(amount: string, i: Decimal, n: number, f: Decimal): string {
  const annuity = new D(1).minus(new D(1).plus(i).pow(-n)).div(i);
  return new D(amount)
    .times(new D(1).plus(f.times(i)))
    .div(annuity)
    .toFixed(24);
}

const loan = fc.record({
  amountCents: fc.integer({ min: 10_000, max: 100_000_000 }),
  rateMicros: fc.integer({ min: 1, max: 50_000 }), // 0.0001 % … 5 % per unit-period
  n: fc.integer({ min: 1, max: 360 }),
});

describe('computeApr — properties', () => {
  it('recovers the unit-period rate of a level-payment loan built from it (t/f form), within 1e-8', () => {
    fc.assert(
      fc.property(
        loan,
        fc.constantFrom(...namedList),
        fc.integer({ min: 0, max: 29 }),
        (l, unit, oddDays) => {
          const amount = new D(l.amountCents).div(100).toFixed(2);
          const i = new D(l.rateMicros).div(1_000_000);
          const f = new D(oddDays).div(30);
          const payment = levelPayment(amount, i, l.n, f);
          const result = computeApr({
            amountFinanced: amount,
            advanceDate: '2026-01-15',
            unitPeriod: unit,
            payments: series(payment, l.n, 1, `${oddDays}/30`),
          });
          expect(new D(result.unitPeriodRate).minus(i).abs().toNumber()).toBeLessThanOrEqual(1e-8);
          const expectedApr = i.times(perYear[unit]).times(100);
          expect(new D(result.apr).minus(expectedApr).abs().toNumber()).toBeLessThanOrEqual(
            1e-8 * perYear[unit] * 100,
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('recovers the rate from dates: monthly on the advance day, weekly with r odd days (f = r/7)', () => {
    const advance = fc
      .record({
        y: fc.integer({ min: 1970, max: 2060 }),
        m: fc.integer({ min: 1, max: 12 }),
        d: fc.integer({ min: 1, max: 28 }),
      })
      .map(({ y, m, d }) => isoOf(Date.UTC(y, m - 1, d)));
    fc.assert(
      fc.property(loan, advance, fc.integer({ min: 0, max: 6 }), (l, advanceDate, oddDays) => {
        const amount = new D(l.amountCents).div(100).toFixed(2);
        const i = new D(l.rateMicros).div(1_000_000);

        const monthly = levelPayment(amount, i, l.n, new D(0));
        const byMonth = computeApr({
          amountFinanced: amount,
          advanceDate,
          unitPeriod: 'MONTH',
          payments: Array.from({ length: l.n }, (_, k) => ({
            amount: monthly,
            date: plusMonths(advanceDate, k + 1),
          })),
        });
        expect(new D(byMonth.unitPeriodRate).minus(i).abs().toNumber()).toBeLessThanOrEqual(1e-8);

        const weekly = levelPayment(amount, i, l.n, new D(oddDays).div(7));
        const byWeek = computeApr({
          amountFinanced: amount,
          advanceDate,
          unitPeriod: 'WEEK',
          payments: Array.from({ length: l.n }, (_, k) => ({
            amount: weekly,
            date: plusDays(advanceDate, 7 * (k + 1) + oddDays),
          })),
        });
        expect(new D(byWeek.unitPeriodRate).minus(i).abs().toNumber()).toBeLessThanOrEqual(1e-8);
      }),
      { numRuns: 40 },
    );
  });

  it('is monotone: raising any one payment raises the APR (positive and negative rates alike)', () => {
    fc.assert(
      fc.property(
        loan,
        fc.constantFrom(...namedList),
        fc.integer({ min: 50, max: 300 }), // payment as % of amount/n: totals from half to three times the loan
        fc.integer({ min: 100, max: 100_000 }), // raise in cents
        fc.nat(),
        (l, unit, paymentPct, raiseCents, pick) => {
          const amount = new D(l.amountCents).div(100);
          const payment = amount
            .times(paymentPct)
            .div(100 * l.n)
            .toDecimalPlaces(2);
          fc.pre(payment.greaterThan(0));
          const payments = series(payment.toFixed(2), l.n, 1, '0');
          const before = computeApr({
            amountFinanced: amount.toFixed(2),
            advanceDate: '2026-01-15',
            unitPeriod: unit,
            payments,
          });
          const k = pick % l.n;
          const raised = payments.map((p, j) =>
            j === k ? { ...p, amount: payment.plus(new D(raiseCents).div(100)).toFixed(2) } : p,
          );
          const after = computeApr({
            amountFinanced: amount.toFixed(2),
            advanceDate: '2026-01-15',
            unitPeriod: unit,
            payments: raised,
          });
          expect(new D(after.apr).greaterThan(before.apr)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('computeApr — invalid input throws RangeError', () => {
  const valid: AprInput = {
    amountFinanced: '1000.00',
    advanceDate: '2026-01-15',
    unitPeriod: 'MONTH',
    payments: series('90.00', 12, 1, '0'),
  };
  const call = (patch: Record<string, unknown>) => () => computeApr({ ...valid, ...patch } as AprInput);

  it('accepts the valid base input', () => {
    expect(call({})).not.toThrow();
  });

  it('non-positive or malformed amount financed', () => {
    expect(call({ amountFinanced: '0.00' })).toThrow(/amountFinanced must be positive/);
    expect(call({ amountFinanced: '-5000.00' })).toThrow(RangeError);
    expect(call({ amountFinanced: '1e3' })).toThrow(/amountFinanced must be a decimal string/);
    expect(call({ amountFinanced: 5000 })).toThrow(RangeError);
  });

  it('no payments', () => {
    expect(call({ payments: [] })).toThrow(/payments must not be empty/);
  });

  it('a payment before the advance date', () => {
    expect(call({ payments: [{ amount: '1100.00', date: '2026-01-14' }] })).toThrow(
      /payment 1 \(2026-01-14\) is before the advance date 2026-01-15/,
    );
  });

  it('payments only on the advance date, or repaying the loan there: no finite rate', () => {
    expect(call({ payments: [{ amount: '1000.00', date: '2026-01-15' }] })).toThrow(
      /at least one payment must fall after the advance date/,
    );
    expect(
      call({
        payments: [
          { amount: '1000.00', t: 0, f: '0' },
          { amount: '10.00', t: 1, f: '0' },
        ],
      }),
    ).toThrow(/no finite rate/);
  });

  it('the solver not converging: a rate beyond 2^40 per unit-period', () => {
    expect(
      call({ amountFinanced: '1.00', payments: [{ amount: '10000000000000000.00', t: 1, f: '0' }] }),
    ).toThrow(/did not converge/);
  });

  it('a negative rate outside any bracket', () => {
    // At i → −1 the payment is worth 100/(1 − 1/2) = 200 at most, never 1000.
    expect(call({ payments: [{ amount: '100.00', t: 0, f: '1/2' }] })).toThrow(
      /negative rate outside any bracket/,
    );
  });

  it('malformed payments and placements', () => {
    expect(call({ payments: [{ amount: '0.00', t: 1, f: '0' }] })).toThrow(
      /payment 1 amount must be positive/,
    );
    expect(call({ payments: [{ amount: '-1.00', t: 1, f: '0' }] })).toThrow(RangeError);
    expect(call({ payments: [{ amount: '10.00' }] })).toThrow(/needs either a date or t and f/);
    expect(call({ payments: [{ amount: '10.00', date: '2026-02-15', t: 1, f: '0' }] })).toThrow(
      /both a date and t\/f/,
    );
    expect(call({ payments: [{ amount: '10.00', t: -1, f: '0' }] })).toThrow(/t must be a whole number/);
    expect(call({ payments: [{ amount: '10.00', t: 1.5, f: '0' }] })).toThrow(/t must be a whole number/);
    expect(call({ payments: [{ amount: '10.00', t: 1, f: '3/2' }] })).toThrow(/f must be between 0 and 1/);
    expect(call({ payments: [{ amount: '10.00', t: 1, f: '1/0' }] })).toThrow(/f must be a decimal or ratio/);
    expect(call({ payments: [{ amount: '10.00', t: 1, f: '-0.5' }] })).toThrow(
      /f must be a decimal or ratio/,
    );
  });

  it('malformed dates', () => {
    expect(call({ advanceDate: '2026-02-30' })).toThrow(RangeError);
    expect(call({ payments: [{ amount: '1100.00', date: '15/02/2026' }] })).toThrow(RangeError);
  });

  it('unknown unit periods and misused { days } unit periods', () => {
    expect(call({ unitPeriod: 'DAY' })).toThrow(/unknown unit period/);
    expect(call({ unitPeriod: { days: 0 } })).toThrow(/whole number of days from 1 to 365/);
    expect(call({ unitPeriod: { days: 400 } })).toThrow(RangeError);
    expect(call({ unitPeriod: { days: 30.5 } })).toThrow(RangeError);
    expect(call({ unitPeriod: { days: 30 } })).toThrow(/single-payment transaction, got 12 payments/);
    expect(call({ unitPeriod: { days: 30 }, payments: [{ amount: '1010.00', date: '2026-02-15' }] })).toThrow(
      /payment is 31 days after the advance/,
    );
  });
});

/*
 * The fast path of computeApr (doubles to locate the root, exact integer bounds to certify it) against the
 * straightforward solver, computeAprReference (every payment discounted one by one in 40-digit decimals),
 * and against an evaluation written here at 60 digits: the exact root must lie within 1e-10 of the
 * returned APR, i.e. the equation of App. J (b)(8) changes sign across [apr − 1e-10, apr + 1e-10].
 */
describe('computeApr — fast path against the reference solver', () => {
  const D60 = Decimal.clone({ precision: 60 });

  /** Σ P / ((1 + f·i)(1 + i)^t) − A at 60 digits, one power per payment. */
  function residual60(amountFinanced: string, payments: TfPayment[], i: Decimal): Decimal {
    const rate = new D60(i);
    let sum = new D60(0);
    for (const p of payments) {
      const [num, den = '1'] = p.f.split('/');
      const f = new D60(num!).div(den);
      sum = sum.plus(new D60(p.amount).div(new D60(1).plus(f.times(rate)).times(rate.plus(1).pow(p.t))));
    }
    return sum.minus(amountFinanced);
  }

  /** The payments of one random schedule: streams of level or varying payments, gaps, one fraction. */
  const schedule = fc
    .record({
      streams: fc.array(
        fc.record({
          count: fc.integer({ min: 1, max: 120 }),
          cents: fc.integer({ min: 1, max: 10_000_000 }),
          level: fc.boolean(),
          gap: fc.integer({ min: 0, max: 3 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      firstT: fc.integer({ min: 0, max: 3 }),
      fraction: fc.constantFrom('0', '1/2', '19/30', '6/15', '4/7', '17/365', '0.25', '30/30'),
      salt: fc.integer({ min: 0, max: 1_000_000 }),
    })
    .map(({ streams, firstT, fraction, salt }) => {
      const payments: TfPayment[] = [];
      let t = firstT;
      for (const s of streams) {
        t += s.gap;
        for (let k = 0; k < s.count; k++) {
          // Varying payments differ from one another like a declining-balance schedule's do.
          const cents = s.level ? s.cents : s.cents + ((salt + 7919 * (t + k)) % (s.cents + 1));
          payments.push({ amount: new Decimal(cents).div(100).toFixed(2), t: t + k, f: fraction });
        }
        t += s.count;
      }
      return payments;
    });

  it('certifies random schedules and agrees with the reference to 1e-10 (in fact digit for digit)', () => {
    fc.assert(
      fc.property(
        schedule,
        fc.constantFrom(...namedList),
        fc.integer({ min: 300, max: 1_150 }), // amount financed as ‰ of the payments: rates from high to negative
        (payments, unit, permille) => {
          const total = payments.reduce((sum, p) => sum.plus(p.amount), new Decimal(0));
          const amountFinanced = total.times(permille).div(1000).toDecimalPlaces(2);
          fc.pre(amountFinanced.greaterThan(0));
          const input: AprInput = {
            amountFinanced: amountFinanced.toFixed(2),
            advanceDate: '2026-01-15',
            unitPeriod: unit,
            payments,
          };
          let reference: AprResult;
          try {
            reference = computeAprReference(input);
          } catch (error) {
            // Only a negative rate beyond any bracket: then computeApr reports the same.
            expect(() => computeApr(input)).toThrow((error as Error).message);
            return;
          }
          const fast = computeAprFast(input);
          expect(fast).toBeDefined();
          expect(computeApr(input)).toEqual(fast);
          for (const key of ['apr', 'unitPeriodRate'] as const) {
            expect(new Decimal(fast![key]).minus(reference[key]).abs().toNumber()).toBeLessThanOrEqual(1e-10);
          }
          expect(fast).toEqual(reference);

          const toRate = (apr: Decimal) => apr.div(perYear[unit] * 100);
          const apr = new D60(fast!.apr);
          expect(residual60(input.amountFinanced, payments, toRate(apr.minus('1e-10'))).isPositive()).toBe(
            true,
          );
          expect(residual60(input.amountFinanced, payments, toRate(apr.plus('1e-10'))).isNegative()).toBe(
            true,
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('certifies dated monthly and weekly schedules of up to 360 payments, as the reference solves them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 360 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 1, max: 20 }),
        fc.boolean(),
        fc.integer({ min: 800, max: 999 }),
        (n, day, oddDays, monthly, permille) => {
          const advanceDate = `2026-01-${String(day).padStart(2, '0')}`;
          const first = monthly
            ? plusDays(plusMonths(advanceDate, 1), oddDays % 28)
            : plusDays(advanceDate, 7);
          const payments = Array.from({ length: n }, (_, k) => ({
            // Equal principal plus falling interest: every payment different.
            amount: new Decimal(100_000 + 731 * (n - k)).div(100).toFixed(2),
            date: monthly ? plusMonthsAnyDay(first, k) : plusDays(first, 7 * k),
          }));
          const total = payments.reduce((sum, p) => sum.plus(p.amount), new Decimal(0));
          const input: AprInput = {
            amountFinanced: total.times(permille).div(1000).toFixed(2),
            advanceDate,
            unitPeriod: monthly ? 'MONTH' : 'WEEK',
            payments,
          };
          const fast = computeAprFast(input);
          expect(fast).toBeDefined();
          expect(fast).toEqual(computeAprReference(input));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('certifies every published App. J case on the fast path, with the reference digits', () => {
    for (const c of vectors.cases) {
      const input: AprInput = {
        amountFinanced: c.amountFinanced,
        advanceDate: c.advanceDate,
        unitPeriod: unitPeriodOf(c),
        payments: c.payments.map((p) => ({ amount: p.amount, t: p.t, f: p.f })),
      };
      const fast = computeAprFast(input);
      expect(fast, c.id).toBeDefined();
      expect(fast, c.id).toEqual(computeAprReference(input));
    }
  });

  it('hands over to the reference solver where doubles cannot locate the root', () => {
    // 100 / (1 + i/2) = 200 − 1e-13 needs 1 + i = 1e-13 / (200 − 1e-13) ≈ 5e-16, below the 2^-40 the
    // doubles' bracket goes to: the fast path declines and computeApr gives the reference result.
    const nearMinusOne: AprInput = {
      amountFinanced: '199.9999999999999',
      advanceDate: '2026-01-15',
      unitPeriod: 'MONTH',
      payments: [{ amount: '100.00', t: 0, f: '1/2' }],
    };
    expect(computeAprFast(nearMinusOne)).toBeUndefined();
    expect(computeApr(nearMinusOne)).toEqual(computeAprReference(nearMinusOne));
    expect(computeApr(nearMinusOne)).toEqual({ apr: '-1200.0000000000', unitPeriodRate: '-1.0000000000' });
  });

  it('returns exactly zero when the payments total the amount financed, on both paths', () => {
    const input: AprInput = {
      amountFinanced: '1000.00',
      advanceDate: '2026-01-15',
      unitPeriod: 'WEEK',
      payments: series('250.00', 4, 1, '3/7'),
    };
    expect(computeAprFast(input)).toEqual({ apr: '0.0000000000', unitPeriodRate: '0.0000000000' });
    expect(computeAprReference(input)).toEqual(computeAprFast(input));
  });

  it('takes the fast path for 360 different monthly payments (the docs/design.md §6 workload)', () => {
    // Not a timing assertion (bench/schedule.ts measures); it only pins that this input takes the fast path.
    const input: AprInput = {
      amountFinanced: '247500.00',
      advanceDate: '2026-01-15',
      unitPeriod: 'MONTH',
      payments: Array.from({ length: 360 }, (_, k) => ({
        amount: new Decimal(69_444 + 135_417 - 376 * k).div(100).toFixed(2),
        date: plusMonthsAnyDay('2026-02-15', k),
      })),
    };
    expect(computeAprFast(input)).toEqual(computeAprReference(input));
  });
});
