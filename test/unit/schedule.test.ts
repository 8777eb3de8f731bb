/**
 * Cumulative amortization schedules (domain/lending/schedule.ts), Apache Fineract's generator.
 *
 * Oracles:
 * - Published: every case of test/vectors/fineract-schedules.json (Fineract's own e2e and integration
 *   tests, commit 4198b0bc); every asserted (non-null) field must match.
 * - Hand-checked: features the vectors do not cover, with the arithmetic in the comments. "mc" is Fineract's
 *   MathContext(12, HALF_EVEN); money is rounded HALF_EVEN to the currency's digits.
 * - Properties (fast-check): the principal is fully amortized, balances fall to zero and never go negative,
 *   totals are the sums of the periods, every amount has the currency's digits (and is a multiple of
 *   inMultiplesOf where Fineract applies it), dates chain, due dates agree with time-zone.ts, and the result
 *   is deterministic.
 * - Negative space: every RangeError of the contract.
 */
import { readFileSync } from 'node:fs';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths } from '../../domain/calendar';
import {
  generateSchedule,
  type RepaymentPeriod,
  type Schedule,
  type ScheduleCharge,
  type ScheduleInput,
} from '../../domain/lending/schedule';

// ---- published vectors ----------------------------------------------------------------------------------------

type Nullable<T> = T | null | undefined;

interface VectorRow {
  period?: number;
  daysInPeriod?: Nullable<number>;
  dueDate: string;
  principalDue?: Nullable<string>;
  interestDue?: Nullable<string>;
  feeChargesDue?: Nullable<string>;
  penaltyChargesDue?: Nullable<string>;
  totalDueForPeriod?: Nullable<string>;
  totalOutstandingForPeriod?: Nullable<string>;
  principalLoanBalanceOutstanding?: Nullable<string>;
  totalPaidForPeriod?: Nullable<string>;
}

interface VectorCase {
  id: string;
  label: string;
  inputs: {
    principal: string;
    numberOfRepayments: number;
    repaymentEvery: number;
    repaymentFrequencyType: 0 | 1 | 2 | 3;
    loanTermFrequency: number;
    loanTermFrequencyType: number;
    interestRatePerPeriod: string;
    interestRateFrequencyType: 0 | 1 | 2 | 3 | 4;
    interestType: 0 | 1;
    amortizationType: 0 | 1;
    interestCalculationPeriodType: 0 | 1;
    allowPartialPeriodInterestCalcualtion: boolean;
    daysInYearType: 1 | 360 | 364 | 365;
    daysInMonthType: 1 | 30;
    expectedDisbursementDate: string;
    graceOnPrincipalPayment: number | null;
    graceOnInterestPayment: number | null;
    currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
    installmentAmountInMultiplesOf: number | null;
    isInterestRecalculationEnabled: boolean;
    charges: ScheduleCharge[];
  };
  expected: {
    numberOfPeriods: number;
    disbursementPeriod?: VectorRow;
    periods: VectorRow[];
    totals: Record<string, string> | null;
  };
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/fineract-schedules.json', import.meta.url), 'utf8'),
) as { cases: VectorCase[] };

function inputOf(c: VectorCase): ScheduleInput {
  const i = c.inputs;
  return {
    principal: i.principal,
    numberOfRepayments: i.numberOfRepayments,
    repaymentEvery: i.repaymentEvery,
    repaymentFrequencyType: i.repaymentFrequencyType,
    interestRatePerPeriod: i.interestRatePerPeriod,
    interestRateFrequencyType: i.interestRateFrequencyType,
    interestType: i.interestType,
    amortizationType: i.amortizationType,
    interestCalculationPeriodType: i.interestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion: i.allowPartialPeriodInterestCalcualtion,
    daysInYearType: i.daysInYearType,
    daysInMonthType: i.daysInMonthType,
    graceOnPrincipalPayment: i.graceOnPrincipalPayment,
    graceOnInterestPayment: i.graceOnInterestPayment,
    expectedDisbursementDate: i.expectedDisbursementDate,
    charges: i.charges,
    currency: i.currency,
    installmentAmountInMultiplesOf: i.installmentAmountInMultiplesOf,
  };
}

/** Numeric equality of decimal strings ("278.0" from a feature file equals "278.00"). */
function expectAmount(actual: string | undefined, expected: Nullable<string>, where: string): void {
  if (expected === null || expected === undefined) return; // not asserted by the source
  expect(actual, where).toBeDefined();
  expect(new Decimal(actual as string).eq(expected), `${where}: ${actual} ≠ ${expected}`).toBe(true);
}

function installments(schedule: Schedule): RepaymentPeriod[] {
  return schedule.periods.slice(1) as RepaymentPeriod[];
}

describe('generateSchedule — Fineract test vectors (test/vectors/fineract-schedules.json)', () => {
  it('loads the cases, all without interest recalculation and with term = n × repaymentEvery', () => {
    expect(vectors.cases.length).toBeGreaterThanOrEqual(5);
    for (const c of vectors.cases) {
      expect(c.inputs.isInterestRecalculationEnabled).toBe(false);
      expect(c.inputs.loanTermFrequency).toBe(c.inputs.numberOfRepayments * c.inputs.repaymentEvery);
      expect(c.inputs.loanTermFrequencyType).toBe(c.inputs.repaymentFrequencyType);
    }
  });

  for (const c of vectors.cases) {
    it(`${c.id}: ${c.label}`, () => {
      const schedule = generateSchedule(inputOf(c));
      const rows = installments(schedule);
      expect(rows).toHaveLength(c.expected.numberOfPeriods);

      const disbursement = c.expected.disbursementPeriod;
      if (disbursement) {
        const row = schedule.periods[0];
        expect(row.dueDate).toBe(disbursement.dueDate);
        expectAmount(row.feeChargesDue, disbursement.feeChargesDue, 'disbursement feeChargesDue');
        expectAmount(row.totalDueForPeriod, disbursement.totalDueForPeriod, 'disbursement totalDueForPeriod');
        // nothing is paid on a new schedule: outstanding = due
        expectAmount(
          row.totalDueForPeriod,
          disbursement.totalOutstandingForPeriod,
          'disbursement outstanding',
        );
        expectAmount(
          row.principalLoanBalanceOutstanding,
          disbursement.principalLoanBalanceOutstanding,
          'disbursement principalLoanBalanceOutstanding',
        );
      }

      for (const expected of c.expected.periods) {
        const row = rows[(expected.period as number) - 1] as RepaymentPeriod;
        const at = `period ${expected.period}`;
        expect(row.period).toBe(expected.period);
        expect(row.dueDate, `${at} dueDate`).toBe(expected.dueDate);
        if (expected.daysInPeriod !== null && expected.daysInPeriod !== undefined) {
          expect(row.daysInPeriod, `${at} daysInPeriod`).toBe(expected.daysInPeriod);
        }
        expectAmount(row.principalDue, expected.principalDue, `${at} principalDue`);
        expectAmount(row.interestDue, expected.interestDue, `${at} interestDue`);
        expectAmount(row.feeChargesDue, expected.feeChargesDue, `${at} feeChargesDue`);
        expectAmount(row.penaltyChargesDue, expected.penaltyChargesDue, `${at} penaltyChargesDue`);
        expectAmount(row.totalDueForPeriod, expected.totalDueForPeriod, `${at} totalDueForPeriod`);
        expectAmount(
          row.totalDueForPeriod,
          expected.totalOutstandingForPeriod,
          `${at} totalOutstandingForPeriod`,
        );
        expectAmount(
          row.principalLoanBalanceOutstanding,
          expected.principalLoanBalanceOutstanding,
          `${at} principalLoanBalanceOutstanding`,
        );
        // totalPaidForPeriod is "0.0" wherever asserted: the schedule of an application has no payments.
        if (expected.totalPaidForPeriod !== null && expected.totalPaidForPeriod !== undefined) {
          expect(new Decimal(expected.totalPaidForPeriod).isZero()).toBe(true);
        }
      }

      const totals = c.expected.totals;
      if (totals) {
        expectAmount(schedule.totalPrincipalExpected, totals['Principal due'], 'total principal');
        expectAmount(schedule.totalInterestCharged, totals.Interest, 'total interest');
        expectAmount(schedule.totalFeeChargesCharged, totals.Fees, 'total fees');
        expectAmount(schedule.totalPenaltyChargesCharged, totals.Penalties, 'total penalties');
        expectAmount(schedule.totalRepaymentExpected, totals.Due, 'total due');
        expectAmount(schedule.totalRepaymentExpected, totals.Outstanding, 'total outstanding');
        for (const unpaid of ['Paid', 'In advance', 'Late']) {
          if (totals[unpaid] !== undefined) expect(new Decimal(totals[unpaid] as string).isZero()).toBe(true);
        }
      }
    });
  }
});

// ---- hand-checked cases ---------------------------------------------------------------------------------------

const USD = { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 };

/** A monthly declining-balance equal-installment loan of 1000.00 USD at 12 %/year; override what a case needs. */
function loan(overrides: Partial<ScheduleInput> = {}): ScheduleInput {
  return {
    principal: '1000.00',
    numberOfRepayments: 4,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: '12',
    interestRateFrequencyType: 3,
    interestType: 0,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 1,
    daysInMonthType: 1,
    expectedDisbursementDate: '2024-01-15',
    currency: USD,
    ...overrides,
  };
}

/** [dueDate, principal, interest, fees, penalties, total due, balance] per installment. */
function table(schedule: Schedule): string[][] {
  return installments(schedule).map((p) => [
    p.dueDate,
    p.principalDue,
    p.interestDue,
    p.feeChargesDue,
    p.penaltyChargesDue,
    p.totalDueForPeriod,
    p.principalLoanBalanceOutstanding,
  ]);
}

describe('generateSchedule — hand-checked cases', () => {
  it('equal principal, daily interest, actual days / 365: interest follows the days of each month', () => {
    // one day = mc(mc(12 ÷ 365) ÷ 100) = 0.000328767123288; rate(d days) = mc(one day × d)
    // 31 d: 0.0101917808219 · 29 d: 0.00953424657535 · 30 d: 0.00986301369864; principal 1000 ÷ 4 = 250
    // 1000 × 0.0101917808219 = 10.19179 → 10.19; 750 × 0.00953424657535 = 7.15068 → 7.15;
    // 500 × 0.0101917808219 = 5.09589 → 5.10; 250 × 0.00986301369864 = 2.46575 → 2.47
    const schedule = generateSchedule(loan({ amortizationType: 0, interestCalculationPeriodType: 0 }));
    expect(table(schedule)).toEqual([
      ['2024-02-15', '250.00', '10.19', '0.00', '0.00', '260.19', '750.00'],
      ['2024-03-15', '250.00', '7.15', '0.00', '0.00', '257.15', '500.00'],
      ['2024-04-15', '250.00', '5.10', '0.00', '0.00', '255.10', '250.00'],
      ['2024-05-15', '250.00', '2.47', '0.00', '0.00', '252.47', '0.00'],
    ]);
    expect(installments(schedule).map((p) => p.daysInPeriod)).toEqual([31, 29, 31, 30]);
    expect(schedule.loanTermInDays).toBe(121);
    expect(schedule.totalInterestCharged).toBe('24.91');
    expect(schedule.totalRepaymentExpected).toBe('1024.91');
  });

  it('daily interest with days-in-month 30 and days-in-year 360 charges 30 days every month', () => {
    // mc(mc(12 ÷ 360) ÷ 100) = 0.000333333333333; × mc(1 × 30) = 0.00999999999999; 1000 × it = 9.99999999999 → 10.00
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 1,
        amortizationType: 0,
        interestCalculationPeriodType: 0,
        daysInMonthType: 30,
        daysInYearType: 360,
        expectedDisbursementDate: '2024-02-01',
      }),
    );
    expect(table(schedule)).toEqual([['2024-03-01', '1000.00', '10.00', '0.00', '0.00', '1010.00', '0.00']]);
    expect(installments(schedule)[0]?.daysInPeriod).toBe(29);
  });

  it('yearly repayments, daily interest: actual counts the real days over 365; 360 counts 360 days', () => {
    // actual: 2024-01-15 → 2025-01-15 is 366 days: mc(0.000328767123288 × 366) = 0.120328767123 → 120.33;
    // 365 days: mc(0.000328767123288 × 365) = mc(0.12000000000012) = 0.120000000000 → 500 × it = 60.00
    const actual = generateSchedule(
      loan({
        numberOfRepayments: 2,
        repaymentFrequencyType: 3,
        amortizationType: 0,
        interestCalculationPeriodType: 0,
      }),
    );
    expect(table(actual)).toEqual([
      ['2025-01-15', '500.00', '120.33', '0.00', '0.00', '620.33', '500.00'],
      ['2026-01-15', '500.00', '60.00', '0.00', '0.00', '560.00', '0.00'],
    ]);
    // 360: one day = 0.000333333333333; d = mc(1 year × 360) = 360; mc(0.000333333333333 × 360) =
    // mc(0.11999999999988) = 0.120000000000 → 120.00, then 60.00
    const fixed = generateSchedule(
      loan({
        numberOfRepayments: 2,
        repaymentFrequencyType: 3,
        amortizationType: 0,
        interestCalculationPeriodType: 0,
        daysInYearType: 360,
      }),
    );
    expect(installments(fixed).map((p) => p.interestDue)).toEqual(['120.00', '60.00']);
  });

  it('repayment every 30 days with days-in-year 360: the rate per period is annual ÷ 360 × 30', () => {
    // periods in a year = 360 (days frequency, fixed days-in-year): mc(mc(12 ÷ 360) ÷ 100) × 30 = 0.00999999999999
    const schedule = generateSchedule(
      loan({ numberOfRepayments: 1, repaymentEvery: 30, repaymentFrequencyType: 0, daysInYearType: 360 }),
    );
    expect(table(schedule)).toEqual([['2024-02-14', '1000.00', '10.00', '0.00', '0.00', '1010.00', '0.00']]);
  });

  it('flat interest, equal installments: interest spread evenly, the last installment takes the remainders', () => {
    // rate for the term = mc(mc(10 ÷ 12) ÷ 100) × 3 = 0.00833333333333 × 3 = 0.02499999999999
    // total interest = 1000 × 0.02499999999999 = 24.99999999999 → 25.00; per installment 25 ÷ 3 = 8.33;
    // principal 1000 ÷ 3 = 333.33; last: principal 1000 − 666.66 = 333.34, interest 25.00 − 16.66 = 8.34
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 3,
        interestRatePerPeriod: '10',
        interestType: 1,
        expectedDisbursementDate: '2024-03-31',
      }),
    );
    expect(table(schedule)).toEqual([
      ['2024-04-30', '333.33', '8.33', '0.00', '0.00', '341.66', '666.67'],
      ['2024-05-31', '333.33', '8.33', '0.00', '0.00', '341.66', '333.34'],
      ['2024-06-30', '333.34', '8.34', '0.00', '0.00', '341.68', '0.00'],
    ]);
    expect(schedule.totalInterestCharged).toBe('25.00');
  });

  it('flat interest with grace on interest: equal installments spread it, equal principal defers it', () => {
    // total = 1200 × mc(mc(12 ÷ 12) ÷ 100) × 4 = 1200 × 0.04 = 48.00
    const base = loan({ principal: '1200.00', interestType: 1, graceOnInterestPayment: 2 });
    // equal installments: 48 ÷ (4 − 2) = 24.00 in the installments after the grace
    expect(installments(generateSchedule(base)).map((p) => p.interestDue)).toEqual([
      '0.00',
      '0.00',
      '24.00',
      '24.00',
    ]);
    // equal principal: 48 ÷ 4 = 12.00 accrues in the grace and is due in the first installment after it
    expect(
      installments(generateSchedule({ ...base, amortizationType: 0 })).map((p) => p.interestDue),
    ).toEqual(['0.00', '0.00', '36.00', '12.00']);
  });

  it('weekly repayments: 52 %/year is 1 % a week, annuity of 520.00 over 4 weeks', () => {
    // rate = mc(mc(52 ÷ 52) ÷ 100) = 0.01; pmt = 520 × 0.01 × 1.01⁴ ÷ (1.01⁴ − 1) = 133.2661… → 133.27
    // 520 × 0.01 = 5.20 → principal 128.07; 391.93 × 0.01 = 3.92 → 129.35; 262.58 → 2.63 → 130.64;
    // last: principal 131.94 (the rest), interest 131.94 × 0.01 = 1.32
    const schedule = generateSchedule(
      loan({
        principal: '520.00',
        repaymentFrequencyType: 1,
        interestRatePerPeriod: '52',
        expectedDisbursementDate: '2024-03-01',
      }),
    );
    expect(table(schedule)).toEqual([
      ['2024-03-08', '128.07', '5.20', '0.00', '0.00', '133.27', '391.93'],
      ['2024-03-15', '129.35', '3.92', '0.00', '0.00', '133.27', '262.58'],
      ['2024-03-22', '130.64', '2.63', '0.00', '0.00', '133.27', '131.94'],
      ['2024-03-29', '131.94', '1.32', '0.00', '0.00', '133.26', '0.00'],
    ]);
    expect(schedule.loanTermInDays).toBe(28);
  });

  it('grace on principal: interest only, then the annuity over the remaining installments', () => {
    // pmt over 6 − 2 = 4 installments at 1 %: 10000 × 0.01 × 1.01⁴ ÷ (1.01⁴ − 1) = 2562.8109… → 2562.81
    const schedule = generateSchedule(
      loan({ principal: '10000.00', numberOfRepayments: 6, graceOnPrincipalPayment: 2 }),
    );
    expect(table(schedule)).toEqual([
      ['2024-02-15', '0.00', '100.00', '0.00', '0.00', '100.00', '10000.00'],
      ['2024-03-15', '0.00', '100.00', '0.00', '0.00', '100.00', '10000.00'],
      ['2024-04-15', '2462.81', '100.00', '0.00', '0.00', '2562.81', '7537.19'],
      ['2024-05-15', '2487.44', '75.37', '0.00', '0.00', '2562.81', '5049.75'],
      ['2024-06-15', '2512.31', '50.50', '0.00', '0.00', '2562.81', '2537.44'],
      ['2024-07-15', '2537.44', '25.37', '0.00', '0.00', '2562.81', '0.00'],
    ]);
    expect(schedule.totalInterestCharged).toBe('451.24');
  });

  it('grace on interest (declining balance): accrued interest is due in the first installment after it', () => {
    // 3000 × 1 % = 30.00 and 2000 × 1 % = 20.00 accrue; third installment: 1000 × 1 % + 50.00 = 60.00
    const schedule = generateSchedule(
      loan({ principal: '3000.00', numberOfRepayments: 3, amortizationType: 0, graceOnInterestPayment: 2 }),
    );
    expect(table(schedule)).toEqual([
      ['2024-02-15', '1000.00', '0.00', '0.00', '0.00', '1000.00', '2000.00'],
      ['2024-03-15', '1000.00', '0.00', '0.00', '0.00', '1000.00', '1000.00'],
      ['2024-04-15', '1000.00', '60.00', '0.00', '0.00', '1060.00', '0.00'],
    ]);
  });

  it('percentage installment fee: 1 % of each installment’s principal + interest', () => {
    // equal principal 500.00; interest 1000 × 1 % = 10.00, then 5.00; fees 1 % × 510.00 = 5.10, 1 % × 505.00 = 5.05
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 2,
        amortizationType: 0,
        charges: [{ chargeTimeType: 8, chargeCalculationType: 3, amount: '1' }],
      }),
    );
    expect(table(schedule)).toEqual([
      ['2024-02-15', '500.00', '10.00', '5.10', '0.00', '515.10', '500.00'],
      ['2024-03-15', '500.00', '5.00', '5.05', '0.00', '510.05', '0.00'],
    ]);
    expect(schedule.totalFeeChargesCharged).toBe('10.15');
    expect(schedule.totalRepaymentExpected).toBe('1025.15');
  });

  it('installment fees of % of principal, % of interest and flat, and a penalty installment fee', () => {
    // installment 1: principal 500.00, interest 10.00 → 2.5 % × 500 = 12.50, 10 % × 10 = 1.00, flat 3.00; penalty 0.75
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 2,
        amortizationType: 0,
        charges: [
          { chargeTimeType: 8, chargeCalculationType: 2, amount: '2.5' },
          { chargeTimeType: 8, chargeCalculationType: 4, amount: '10' },
          { chargeTimeType: 8, chargeCalculationType: 1, amount: '3.00' },
          { chargeTimeType: 8, chargeCalculationType: 1, amount: '0.75', penalty: true },
        ],
      }),
    );
    expect(table(schedule)).toEqual([
      ['2024-02-15', '500.00', '10.00', '16.50', '0.75', '527.25', '500.00'],
      ['2024-03-15', '500.00', '5.00', '16.00', '0.75', '521.75', '0.00'],
    ]);
    expect(schedule.totalPenaltyChargesCharged).toBe('1.50');
  });

  it('disbursement and specified-due-date charges', () => {
    // equal principal 1000, 2 × monthly at 12 %: interest 10.00 + 5.00 = 15.00
    // disbursement: flat 25.00 + 1 % of principal 10.00 + 10 % of interest 1.50 + 2 % of (principal + interest)
    //   20.30 (capped at maxCap 20.00) = 56.50
    // specified due date 2024-02-15 (end of installment 1, inclusive): flat 7.00 penalty;
    // 2024-02-16 (installment 2): 0.5 % of principal 5.00, 20 % of total interest 3.00, 1 % of 1015.00 10.15
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 2,
        amortizationType: 0,
        charges: [
          { chargeTimeType: 1, chargeCalculationType: 1, amount: '25.00' },
          { chargeTimeType: 1, chargeCalculationType: 2, amount: '1' },
          { chargeTimeType: 1, chargeCalculationType: 4, amount: '10' },
          { chargeTimeType: 1, chargeCalculationType: 3, amount: '2', maxCap: '20.00' },
          {
            chargeTimeType: 2,
            chargeCalculationType: 1,
            amount: '7.00',
            dueDate: '2024-02-15',
            penalty: true,
          },
          { chargeTimeType: 2, chargeCalculationType: 2, amount: '0.5', dueDate: '2024-02-16' },
          { chargeTimeType: 2, chargeCalculationType: 4, amount: '20', dueDate: '2024-02-16' },
          { chargeTimeType: 2, chargeCalculationType: 3, amount: '1', dueDate: '2024-03-15' },
        ],
      }),
    );
    expect(schedule.periods[0]).toEqual({
      dueDate: '2024-01-15',
      principalDisbursed: '1000.00',
      feeChargesDue: '56.50',
      totalDueForPeriod: '56.50',
      principalLoanBalanceOutstanding: '1000.00',
    });
    expect(table(schedule)).toEqual([
      ['2024-02-15', '500.00', '10.00', '0.00', '7.00', '517.00', '500.00'],
      ['2024-03-15', '500.00', '5.00', '18.15', '0.00', '523.15', '0.00'],
    ]);
    expect(schedule.totalFeeChargesCharged).toBe('74.65');
    expect(schedule.totalPenaltyChargesCharged).toBe('7.00');
    expect(schedule.totalRepaymentExpected).toBe('1096.65');
  });

  it('a specified-due-date charge on the disbursement date falls in the first installment', () => {
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 2,
        charges: [{ chargeTimeType: 2, chargeCalculationType: 1, amount: '4.00', dueDate: '2024-01-15' }],
      }),
    );
    expect(installments(schedule).map((p) => p.feeChargesDue)).toEqual(['4.00', '0.00']);
  });

  it('zero fraction digits with inMultiplesOf 100: every amount is rounded to hundreds, ties up', () => {
    // principal 100000 ÷ 3 = 33333 → 33300; interest 1 % of 100000 = 1000; of 66700 = 667 → 700;
    // of 33400 = 334 → 300; the last principal is the rest, 33400
    const schedule = generateSchedule(
      loan({
        principal: '100000',
        numberOfRepayments: 3,
        amortizationType: 0,
        currency: { code: 'XOF', digitsAfterDecimal: 0, inMultiplesOf: 100 },
      }),
    );
    expect(table(schedule)).toEqual([
      ['2024-02-15', '33300', '1000', '0', '0', '34300', '66700'],
      ['2024-03-15', '33300', '700', '0', '0', '34000', '33400'],
      ['2024-04-15', '33400', '300', '0', '0', '33700', '0'],
    ]);
    expect(schedule.currency).toEqual({ code: 'XOF', digitsAfterDecimal: 0, inMultiplesOf: 100 });
  });

  it('inMultiplesOf has no effect on a currency with fraction digits (as in Fineract’s Money)', () => {
    const plain = generateSchedule(loan());
    const withMultiples = generateSchedule(loan({ currency: { ...USD, inMultiplesOf: 5 } }));
    expect(table(withMultiples)).toEqual(table(plain));
  });

  it('month-end disbursement: due dates keep the seed day where the month has it', () => {
    const schedule = generateSchedule(
      loan({ numberOfRepayments: 5, expectedDisbursementDate: '2024-01-31' }),
    );
    expect(installments(schedule).map((p) => p.dueDate)).toEqual([
      '2024-02-29',
      '2024-03-31',
      '2024-04-30',
      '2024-05-31',
      '2024-06-30',
    ]);
    expect(installments(schedule).map((p) => p.daysInPeriod)).toEqual([29, 31, 30, 31, 30]);
  });

  it('repaymentsStartingFromDate: a long first period is charged one regular period of interest (Fineract default)', () => {
    // disbursed 2024-01-10, first due 2024-02-25: interest runs from the ideal disbursement date 2024-01-25,
    // 31 days: 1000 × mc(0.000328767123288 × 31) = 10.19 (46 days would give 15.12)
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 2,
        amortizationType: 0,
        interestCalculationPeriodType: 0,
        expectedDisbursementDate: '2024-01-10',
        repaymentsStartingFromDate: '2024-02-25',
      }),
    );
    const [first, second] = installments(schedule);
    expect(first).toMatchObject({ fromDate: '2024-01-10', dueDate: '2024-02-25', daysInPeriod: 46 });
    expect(first?.interestDue).toBe('10.19');
    expect(second).toMatchObject({ fromDate: '2024-02-25', dueDate: '2024-03-25', daysInPeriod: 29 });
    expect(schedule.loanTermInDays).toBe(75);
  });

  it('flat, principal grace and installment rounding: Fineract’s negative principal moves to the next installment', () => {
    // flat 1250 × 1 % × 3 = 37.50, 12.50 per installment; principal 1250 ÷ (3 − 1) = 625.00
    // installment 1 (principal grace): 0 + round(12.50) − 12.50 = −0.50 → 0.00, carried
    // installment 2: 625 + 12 − 12.50 = 624.50, less the carried 0.50 = 624.00; installment 3: the rest, 626.00
    const schedule = generateSchedule(
      loan({
        principal: '1250.00',
        numberOfRepayments: 3,
        interestType: 1,
        graceOnPrincipalPayment: 1,
        installmentAmountInMultiplesOf: 1,
      }),
    );
    expect(installments(schedule).map((p) => [p.principalDue, p.interestDue])).toEqual([
      ['0.00', '12.50'],
      ['624.00', '12.50'],
      ['626.00', '12.50'],
    ]);
  });

  it('installment rounding can end the schedule early; the last row still clears the balance', () => {
    // pmt(1 %, 6, 1000) = 172.548… rounded HALF_EVEN to a multiple of 100 = 200: five installments of 200.00
    // (principal 190.00, 191.90, 193.82, 195.76, 197.71) and a last one of 30.81 + 0.31 interest
    const schedule = generateSchedule(loan({ numberOfRepayments: 6, installmentAmountInMultiplesOf: 100 }));
    const rows = installments(schedule);
    expect(rows.map((p) => p.totalDueForPeriod)).toEqual([
      '200.00',
      '200.00',
      '200.00',
      '200.00',
      '200.00',
      '31.12',
    ]);
    expect(rows.map((p) => p.principalDue)).toEqual([
      '190.00',
      '191.90',
      '193.82',
      '195.76',
      '197.71',
      '30.81',
    ]);
    // to a multiple of 300 it is 300: principal 290.00, 292.90, 295.83, and the fourth installment is cut to the
    // remaining 121.27; the schedule ends there, two installments early
    const short = installments(
      generateSchedule(loan({ numberOfRepayments: 6, installmentAmountInMultiplesOf: 300 })),
    );
    expect(short.map((p) => p.principalDue)).toEqual(['290.00', '292.90', '295.83', '121.27']);
    expect(short.at(-1)?.principalLoanBalanceOutstanding).toBe('0.00');
  });

  it('a rate per whole term is spread over the term (AprCalculator)', () => {
    // 6 % for the whole term of 6 months: 6 ÷ 6 = 1.00000000 % a month → 12 %/year, the same as the default loan
    const perTerm = generateSchedule(
      loan({ numberOfRepayments: 6, interestRatePerPeriod: '6', interestRateFrequencyType: 4 }),
    );
    const perYear = generateSchedule(loan({ numberOfRepayments: 6 }));
    expect(table(perTerm)).toEqual(table(perYear));
  });

  it('a zero rate amortizes the principal without interest', () => {
    const schedule = generateSchedule(loan({ numberOfRepayments: 3, interestRatePerPeriod: '0' }));
    expect(installments(schedule).map((p) => [p.principalDue, p.interestDue])).toEqual([
      ['333.33', '0.00'],
      ['333.33', '0.00'],
      ['333.34', '0.00'],
    ]);
  });
});

// ---- properties -----------------------------------------------------------------------------------------------

const epochDayOf = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** Flat amounts are whole units, valid in every currency; percentages have any precision. */
const chargeArb: fc.Arbitrary<ScheduleCharge> = fc
  .record({
    chargeTimeType: fc.constantFrom(1 as const, 8 as const),
    chargeCalculationType: fc.constantFrom(1 as const, 2 as const, 3 as const, 4 as const),
    flat: fc.constantFrom('0', '1', '3', '7', '25'),
    percent: fc.constantFrom('0', '1', '2.5', '0.125', '7'),
    penalty: fc.boolean(),
  })
  .map(
    (c): ScheduleCharge => ({
      chargeTimeType: c.chargeTimeType,
      chargeCalculationType: c.chargeCalculationType,
      amount: c.chargeCalculationType === 1 ? c.flat : c.percent,
      penalty: c.chargeTimeType === 8 && c.penalty,
    }),
  );

const inputArb: fc.Arbitrary<ScheduleInput> = fc
  .record({
    digits: fc.constantFrom(0, 2, 3),
    inMultiplesOf: fc.constantFrom(0, 1, 5, 10, 100),
    principalUnits: fc.integer({ min: 1, max: 2_000_000 }),
    n: fc.integer({ min: 1, max: 48 }),
    every: fc.integer({ min: 1, max: 3 }),
    frequency: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const),
    rateFrequency: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const, 4 as const),
    rateHundredths: fc.integer({ min: 0, max: 6000 }),
    interestType: fc.constantFrom(0 as const, 1 as const),
    amortizationType: fc.constantFrom(0 as const, 1 as const),
    calculationPeriod: fc.constantFrom(0 as const, 1 as const),
    allowPartial: fc.boolean(),
    daysInYear: fc.constantFrom(1 as const, 360 as const, 364 as const, 365 as const),
    daysInMonth: fc.constantFrom(1 as const, 30 as const),
    gracePrincipal: fc.integer({ min: 0, max: 3 }),
    graceInterest: fc.integer({ min: 0, max: 3 }),
    disbursementDay: fc.integer({ min: epochDayOf('2000-01-01'), max: epochDayOf('2040-12-31') }),
    startOffsetDays: fc.option(fc.integer({ min: 1, max: 70 }), { nil: null }),
    installmentMultiple: fc.constantFrom(null, 0, 1, 5, 100),
    charges: fc.array(chargeArb, { maxLength: 3 }),
    dueDateOffsets: fc.array(
      fc.record({
        days: fc.integer({ min: 0, max: 40 }),
        calculation: fc.constantFrom(1 as const, 2 as const, 3 as const, 4 as const),
        penalty: fc.boolean(),
      }),
      { maxLength: 2 },
    ),
  })
  .map((r) => {
    const multiples = r.digits === 0 ? r.inMultiplesOf : 0;
    const unit = multiples > 0 ? multiples : 1;
    const minor = BigInt(r.principalUnits * unit);
    const text = minor.toString().padStart(r.digits + 1, '0');
    const principal = r.digits === 0 ? text : `${text.slice(0, -r.digits)}.${text.slice(-r.digits)}`;
    // keep the annual rate in 0–60 %: per day ÷ 365, per week ÷ 52, per month ÷ 12; per whole term × the term
    const divisor = [365, 52, 12, 1, 1][r.rateFrequency] as number;
    const rate = new Decimal(r.rateHundredths).div(100).div(divisor).toDecimalPlaces(6).toString();
    const disbursement = new Date(r.disbursementDay * 86_400_000).toISOString().slice(0, 10);
    const n = r.n;
    return {
      principal,
      numberOfRepayments: n,
      repaymentEvery: r.every,
      repaymentFrequencyType: r.frequency,
      interestRatePerPeriod: rate,
      interestRateFrequencyType: r.rateFrequency,
      interestType: r.interestType,
      amortizationType: r.amortizationType,
      interestCalculationPeriodType: r.calculationPeriod,
      allowPartialPeriodInterestCalcualtion: r.allowPartial,
      daysInYearType: r.daysInYear,
      daysInMonthType: r.daysInMonth,
      graceOnPrincipalPayment: Math.min(r.gracePrincipal, n - 1),
      graceOnInterestPayment: Math.min(r.graceInterest, n - 1),
      expectedDisbursementDate: disbursement,
      repaymentsStartingFromDate:
        r.startOffsetDays === null ? null : addDays(disbursement, r.startOffsetDays),
      installmentAmountInMultiplesOf: r.installmentMultiple,
      // specified-due-date charges within 40 days of the disbursement (outside the schedule → skipped below)
      charges: [
        ...r.charges,
        ...r.dueDateOffsets.map(
          (d): ScheduleCharge => ({
            chargeTimeType: 2,
            chargeCalculationType: d.calculation,
            amount: d.calculation === 1 ? '2' : '1.5',
            dueDate: addDays(disbursement, d.days),
            penalty: d.penalty,
          }),
        ),
      ],
      currency: {
        code: r.digits === 0 ? 'XOF' : r.digits === 2 ? 'EUR' : 'KWD',
        digitsAfterDecimal: r.digits,
        inMultiplesOf: multiples,
      },
    } satisfies ScheduleInput;
  });

/**
 * The schedule, or undefined for the input the contract rejects by design: an equal installment below the
 * interest due (Fineract's EMI check), or a specified-due-date charge that falls outside the schedule.
 */
function generateOrSkip(input: ScheduleInput): Schedule | undefined {
  try {
    return generateSchedule(input);
  } catch (error) {
    if (
      error instanceof RangeError &&
      /below the interest due|outside the repayment schedule/.test(error.message)
    ) {
      return undefined;
    }
    throw error;
  }
}

const minorOf = (amount: string, digits: number): bigint => {
  expect(amount).toMatch(digits === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${digits}}$`));
  return BigInt(amount.replace('.', ''));
};

describe('generateSchedule — properties', () => {
  it('amortizes exactly: principal sums to the loan, balances fall to zero, totals are the sums', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const schedule = generateOrSkip(input);
        fc.pre(schedule !== undefined);
        if (!schedule) return;
        const digits = input.currency.digitsAfterDecimal;
        const m = (amount: string) => minorOf(amount, digits);
        const rows = installments(schedule);
        const principal = m(input.principal);
        expect(rows.length).toBeGreaterThanOrEqual(1);
        expect(rows.length).toBeLessThanOrEqual(input.numberOfRepayments);

        const disbursement = schedule.periods[0];
        expect(m(disbursement.principalLoanBalanceOutstanding)).toBe(principal);
        expect(m(disbursement.totalDueForPeriod)).toBe(m(disbursement.feeChargesDue));
        let balance = principal;
        let sums = {
          principal: 0n,
          interest: 0n,
          fees: m(disbursement.feeChargesDue),
          penalties: 0n,
          due: 0n,
        };
        sums.due = sums.fees;
        for (const row of rows) {
          const [p, i, f, pen, due, after] = [
            m(row.principalDue),
            m(row.interestDue),
            m(row.feeChargesDue),
            m(row.penaltyChargesDue),
            m(row.totalDueForPeriod),
            m(row.principalLoanBalanceOutstanding),
          ];
          expect(p).toBeGreaterThanOrEqual(0n);
          expect(i).toBeGreaterThanOrEqual(0n);
          expect(f).toBeGreaterThanOrEqual(0n);
          expect(pen).toBeGreaterThanOrEqual(0n);
          expect(after).toBe(balance - p); // non-increasing, since p ≥ 0
          expect(after).toBeGreaterThanOrEqual(0n);
          expect(due).toBe(p + i + f + pen);
          balance = after;
          sums = {
            principal: sums.principal + p,
            interest: sums.interest + i,
            fees: sums.fees + f,
            penalties: sums.penalties + pen,
            due: sums.due + due,
          };
        }
        expect(balance).toBe(0n);
        expect(sums.principal).toBe(principal);
        expect(m(schedule.totalPrincipalExpected)).toBe(sums.principal);
        expect(m(schedule.totalInterestCharged)).toBe(sums.interest);
        expect(m(schedule.totalFeeChargesCharged)).toBe(sums.fees);
        expect(m(schedule.totalPenaltyChargesCharged)).toBe(sums.penalties);
        expect(m(schedule.totalRepaymentExpected)).toBe(sums.due);
      }),
      { numRuns: 300 },
    );
  });

  it('every amount has the currency’s digits and, with 0 digits, is a multiple of inMultiplesOf', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const schedule = generateOrSkip(input);
        fc.pre(schedule !== undefined);
        if (!schedule) return;
        const digits = input.currency.digitsAfterDecimal;
        const multiple = BigInt(digits === 0 ? (input.currency.inMultiplesOf ?? 0) : 0);
        const amounts: string[] = [
          schedule.totalPrincipalExpected,
          schedule.totalInterestCharged,
          schedule.totalFeeChargesCharged,
          schedule.totalPenaltyChargesCharged,
          schedule.totalRepaymentExpected,
        ];
        const [disbursement, ...rows] = schedule.periods;
        amounts.push(
          disbursement.principalDisbursed,
          disbursement.feeChargesDue,
          disbursement.totalDueForPeriod,
          disbursement.principalLoanBalanceOutstanding,
        );
        for (const row of rows) {
          amounts.push(
            row.principalDue,
            row.interestDue,
            row.feeChargesDue,
            row.penaltyChargesDue,
            row.totalDueForPeriod,
            row.principalLoanBalanceOutstanding,
          );
        }
        for (const amount of amounts) {
          const minor = minorOf(amount, digits);
          if (multiple > 0n) expect(minor % multiple, `${amount} is not a multiple of ${multiple}`).toBe(0n);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('dates chain from the disbursement, and due dates agree with time-zone.ts calendar arithmetic', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const schedule = generateOrSkip(input);
        fc.pre(schedule !== undefined);
        if (!schedule) return;
        const rows = installments(schedule);
        let from = input.expectedDisbursementDate;
        let days = 0;
        rows.forEach((row, index) => {
          expect(row.period).toBe(index + 1);
          expect(row.fromDate).toBe(from);
          expect(row.daysInPeriod).toBe(epochDayOf(row.dueDate) - epochDayOf(row.fromDate));
          expect(row.daysInPeriod).toBeGreaterThan(0);
          days += row.daysInPeriod;
          from = row.dueDate;
        });
        expect(schedule.loanTermInDays).toBe(days);
        // the k-th due date is the first one plus (k − 1) periods: exact for days and weeks, and for months
        // and years when the seed day is at most 28 (no month-end clamping)
        const first = rows[0]?.dueDate as string;
        const seed = input.repaymentsStartingFromDate ?? input.expectedDisbursementDate;
        const every = input.repaymentEvery;
        if (input.repaymentsStartingFromDate === null) {
          const unit = input.repaymentFrequencyType;
          expect(first).toBe(
            unit === 0
              ? addDays(input.expectedDisbursementDate, every)
              : unit === 1
                ? addDays(input.expectedDisbursementDate, 7 * every)
                : addMonths(input.expectedDisbursementDate, unit === 2 ? every : 12 * every),
          );
        }
        rows.forEach((row, index) => {
          const k = index * every;
          if (input.repaymentFrequencyType === 0) expect(row.dueDate).toBe(addDays(first, k));
          if (input.repaymentFrequencyType === 1) expect(row.dueDate).toBe(addDays(first, 7 * k));
          if (Number(seed.slice(8)) <= 28 && input.repaymentFrequencyType === 2) {
            expect(row.dueDate).toBe(addMonths(first, k));
          }
          if (Number(seed.slice(8)) <= 28 && input.repaymentFrequencyType === 3) {
            expect(row.dueDate).toBe(addMonths(first, 12 * k));
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic and does not modify its input', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const copy = structuredClone(input);
        const a = generateOrSkip(input);
        const b = generateOrSkip(input);
        expect(b).toEqual(a);
        expect(input).toEqual(copy);
      }),
      { numRuns: 100 },
    );
  });
});

// ---- negative space -------------------------------------------------------------------------------------------

describe('generateSchedule — rejected input (RangeError)', () => {
  const cases: Array<[string, Partial<ScheduleInput>]> = [
    ['principal with more fraction digits than the currency', { principal: '1000.001' }],
    ['a zero principal', { principal: '0.00' }],
    ['a negative principal', { principal: '-5.00' }],
    ['a malformed principal', { principal: '1e3' }],
    [
      'a principal that is not a multiple of inMultiplesOf',
      { principal: '150', currency: { code: 'XOF', digitsAfterDecimal: 0, inMultiplesOf: 100 } },
    ],
    ['no installments', { numberOfRepayments: 0 }],
    ['a fractional repaymentEvery', { repaymentEvery: 1.5 }],
    ['an unknown repayment frequency', { repaymentFrequencyType: 4 as never }],
    ['an unknown interest type', { interestType: 2 as never }],
    ['an unknown amortization type', { amortizationType: 2 as never }],
    ['an unknown interest calculation period', { interestCalculationPeriodType: 2 as never }],
    ['an unknown days-in-year type', { daysInYearType: 0 as never }],
    ['an unknown days-in-month type', { daysInMonthType: 31 as never }],
    ['a negative rate', { interestRatePerPeriod: '-1' }],
    ['a malformed rate', { interestRatePerPeriod: '12%' }],
    ['grace on principal as long as the term', { graceOnPrincipalPayment: 4 }],
    ['grace on interest as long as the term', { graceOnInterestPayment: 4 }],
    ['a negative grace', { graceOnPrincipalPayment: -1 }],
    ['a malformed disbursement date', { expectedDisbursementDate: '2024-02-30' }],
    ['a first repayment on the disbursement date', { repaymentsStartingFromDate: '2024-01-15' }],
    ['a lower-case currency code', { currency: { ...USD, code: 'usd' } }],
    ['seven fraction digits', { currency: { ...USD, digitsAfterDecimal: 7 } }],
    ['a negative installment multiple', { installmentAmountInMultiplesOf: -1 }],
    ['a missing partial-period flag', { allowPartialPeriodInterestCalcualtion: undefined as never }],
  ];
  for (const [name, overrides] of cases) {
    it(`rejects ${name}`, () => {
      expect(() => generateSchedule(loan(overrides))).toThrow(RangeError);
    });
  }

  const chargeCases: Array<[string, ScheduleCharge]> = [
    [
      'an unsupported charge time (overdue installment)',
      { chargeTimeType: 9 as never, chargeCalculationType: 1, amount: '1.00' },
    ],
    [
      '% of disbursement amount (tranche charges only)',
      { chargeTimeType: 1, chargeCalculationType: 5 as never, amount: '1' },
    ],
    ['a flat charge with excess precision', { chargeTimeType: 8, chargeCalculationType: 1, amount: '1.005' }],
    ['a negative percentage', { chargeTimeType: 8, chargeCalculationType: 2, amount: '-1' }],
    [
      'a specified-due-date charge without a date',
      { chargeTimeType: 2, chargeCalculationType: 1, amount: '1.00' },
    ],
    [
      'a due date on an installment fee',
      { chargeTimeType: 8, chargeCalculationType: 1, amount: '1.00', dueDate: '2024-02-01' },
    ],
    [
      'a penalty at disbursement',
      { chargeTimeType: 1, chargeCalculationType: 1, amount: '1.00', penalty: true },
    ],
    [
      'caps on a flat charge',
      { chargeTimeType: 1, chargeCalculationType: 1, amount: '1.00', maxCap: '2.00' },
    ],
    [
      'caps on an installment fee',
      { chargeTimeType: 8, chargeCalculationType: 2, amount: '1', minCap: '2.00' },
    ],
    [
      'a specified due date before the disbursement',
      { chargeTimeType: 2, chargeCalculationType: 1, amount: '1.00', dueDate: '2024-01-14' },
    ],
    [
      'a specified due date after the last installment',
      { chargeTimeType: 2, chargeCalculationType: 1, amount: '1.00', dueDate: '2024-05-16' },
    ],
    [
      'a % of interest charge due on the disbursement date (Fineract would drop it)',
      { chargeTimeType: 2, chargeCalculationType: 4, amount: '1', dueDate: '2024-01-15' },
    ],
  ];
  for (const [name, charge] of chargeCases) {
    it(`rejects ${name}`, () => {
      expect(() => generateSchedule(loan({ charges: [charge] }))).toThrow(RangeError);
    });
  }

  it('rejects an equal installment below the interest due after a long interest grace (Fineract’s EMI check)', () => {
    // 30 %/month over 3 months: annuity 550.63; the grace defers 300.00 + 224.81, so installment 3 is due
    // 524.81 + 423.55 × 30 % = 651.88 of interest, more than the annuity
    expect(() =>
      generateSchedule(
        loan({
          numberOfRepayments: 3,
          interestRatePerPeriod: '30',
          interestRateFrequencyType: 2,
          graceOnInterestPayment: 2,
        }),
      ),
    ).toThrow(/below the interest due/);
  });
});
