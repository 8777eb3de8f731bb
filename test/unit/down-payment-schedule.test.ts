/**
 * Down payments in the cumulative schedule (domain/lending/schedule.ts, Fineract `createDownPaymentPeriod`).
 *
 * Oracles:
 * - Published: every case of test/vectors/fineract-down-payment.json (Fineract's e2e schedule tables and an
 *   integration test of products with a 25 % down payment, apache/fineract commit 4198b0bc): each period and the
 *   totals to the cent (the flat interest of the integration test is on the whole principal).
 * - Hand-checked: the rounding of the percentage (19 significant digits, then the currency, then
 *   `installmentAmountInMultiplesOf`), the installments after the down payment being those of a loan of the
 *   remaining principal, and the percentage charges still on the whole principal.
 * - The Regulation Z disclosure of a loan with a down payment is that of a loan of the rest without one (the down
 *   payment is paid at consummation, not financed: 12 CFR §1026.2(a)(18), §1026.18(b)).
 * - Negative space: the RangeErrors of the two down-payment fields.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loanAprDisclosure } from '../../domain/lending/loan-terms/apr-disclosure';
import { scheduleOf } from '../../domain/lending/loan-terms/schedule-input';
import type { LoanTerms } from '../../domain/lending/loan-terms/types';
import { generateSchedule, type RepaymentPeriod, type ScheduleInput } from '../../domain/lending/schedule';

interface DownPaymentCase {
  id: string;
  source: string;
  product: {
    disbursedAmountPercentageForDownPayment: string;
    installmentAmountInMultiplesOf: number | null;
  };
  loan: {
    principal: string;
    interestRatePerPeriod: string;
    interestType: 0 | 1;
    amortizationType: 0 | 1;
    repaymentEvery: number;
    repaymentFrequencyType: 0 | 1 | 2 | 3;
    numberOfRepayments: number;
    disbursementDate: string;
    penalty?: { amount: string; dueDate: string };
    fee?: { amount: string; dueDate: string };
    interestRateFrequencyType?: 0 | 1 | 2 | 3 | 4;
    currency?: string;
  };
  /** Asserted fields of each period; null = the source does not assert it. */
  schedule: Record<string, string | number | boolean | null>[];
  totals: Record<string, string>;
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/fineract-down-payment.json', import.meta.url), 'utf8'),
) as { cases: DownPaymentCase[] };

/** The `ScheduleInput` of a published case: the LP2 product's settings (EUR, 2 digits, actual days). */
function inputOf(c: DownPaymentCase): ScheduleInput {
  return {
    principal: c.loan.principal,
    numberOfRepayments: c.loan.numberOfRepayments,
    repaymentEvery: c.loan.repaymentEvery,
    repaymentFrequencyType: c.loan.repaymentFrequencyType,
    interestRatePerPeriod: c.loan.interestRatePerPeriod,
    interestRateFrequencyType: c.loan.interestRateFrequencyType ?? 3,
    interestType: c.loan.interestType,
    amortizationType: c.loan.amortizationType,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 1,
    daysInMonthType: 1,
    expectedDisbursementDate: c.loan.disbursementDate,
    charges: [
      ...(c.loan.penalty ? [{ ...c.loan.penalty, penalty: true }] : []),
      ...(c.loan.fee ? [{ ...c.loan.fee, penalty: false }] : []),
    ].map((charge) => ({ chargeTimeType: 2 as const, chargeCalculationType: 1 as const, ...charge })),
    currency: { code: c.loan.currency ?? 'EUR', digitsAfterDecimal: 2, inMultiplesOf: 0 },
    installmentAmountInMultiplesOf: c.product.installmentAmountInMultiplesOf,
    enableDownPayment: true,
    disbursedAmountPercentageForDownPayment: c.product.disbursedAmountPercentageForDownPayment,
  };
}

const base: ScheduleInput = {
  principal: '1000.00',
  numberOfRepayments: 3,
  repaymentEvery: 2,
  repaymentFrequencyType: 1,
  interestRatePerPeriod: '12',
  interestRateFrequencyType: 3,
  interestType: 0,
  amortizationType: 1,
  interestCalculationPeriodType: 1,
  allowPartialPeriodInterestCalcualtion: false,
  daysInYearType: 1,
  daysInMonthType: 1,
  expectedDisbursementDate: '2024-05-06',
  currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
};

const installments = (input: ScheduleInput) => generateSchedule(input).periods.slice(1) as RepaymentPeriod[];

describe('published down-payment schedules (test/vectors/fineract-down-payment.json)', () => {
  it.each(vectors.cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const schedule = generateSchedule(inputOf(c));
    const rows = schedule.periods.slice(1) as RepaymentPeriod[];
    expect(rows).toHaveLength(c.schedule.length);
    c.schedule.forEach((expected, i) => {
      const actual = rows[i]!;
      const asserted = Object.fromEntries(Object.entries(expected).filter(([, value]) => value !== null));
      expect(asserted).not.toEqual({});
      const shown = {
        period: actual.period,
        daysInPeriod: actual.daysInPeriod,
        dueDate: actual.dueDate,
        principalLoanBalanceOutstanding: actual.principalLoanBalanceOutstanding,
        principalDue: actual.principalDue,
        interestDue: actual.interestDue,
        feeChargesDue: actual.feeChargesDue,
        penaltyChargesDue: actual.penaltyChargesDue,
        totalDueForPeriod: actual.totalDueForPeriod,
        downPaymentPeriod: actual.downPaymentPeriod,
      };
      expect(
        Object.fromEntries(Object.keys(asserted).map((key) => [key, shown[key as keyof typeof shown]])),
      ).toEqual(asserted);
    });
    for (const [name, value] of Object.entries(c.totals)) {
      expect(schedule[name as keyof typeof schedule], name).toBe(value);
    }
    expect(schedule.periods[0].principalDisbursed).toBe(c.loan.principal);
    expect(schedule.periods[0].principalLoanBalanceOutstanding).toBe(c.loan.principal);
  });
});

describe('down payment, hand-checked', () => {
  it('the installments after it are those of a loan of the rest (pay in 4: 25 %, three 2-week installments at 12 %)', () => {
    const withDown = installments({
      ...base,
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: '25',
    });
    // 1000 × 25 % = 250.00 due on the disbursement date; the rest, 750.00, amortized as a loan of 750.00
    const rest = installments({ ...base, principal: '750.00' });
    expect(withDown[0]).toEqual({
      period: 1,
      fromDate: '2024-05-06',
      dueDate: '2024-05-06',
      daysInPeriod: 0,
      principalDue: '250.00',
      interestDue: '0.00',
      feeChargesDue: '0.00',
      penaltyChargesDue: '0.00',
      totalDueForPeriod: '250.00',
      principalLoanBalanceOutstanding: '750.00',
      downPaymentPeriod: true,
    });
    expect(withDown.slice(1)).toEqual(rest.map((p) => ({ ...p, period: p.period + 1 })));
    expect(withDown.slice(1).map((p) => p.dueDate)).toEqual(['2024-05-20', '2024-06-03', '2024-06-17']);
  });

  it('rounds principal × percent ÷ 100 HALF_EVEN to the currency, then to installmentAmountInMultiplesOf', () => {
    const down = (principal: string, percent: string, multiple: number | null = null) =>
      installments({
        ...base,
        principal,
        enableDownPayment: true,
        disbursedAmountPercentageForDownPayment: percent,
        installmentAmountInMultiplesOf: multiple,
      })[0]!.principalDue;
    // 1000.10 × 0.125 = 125.0125 → 125.01; 1000.20 × 0.125 = 125.025 → 125.02 (tie to even)
    expect(down('1000.10', '12.5')).toBe('125.01');
    expect(down('1000.20', '12.5')).toBe('125.02');
    expect(down('1000.60', '12.5')).toBe('125.08'); // 125.075 → 125.08 (tie to even)
    // six fraction digits of percent: 999.99 × 0.33333333 = 333.3299996667 → 333.33
    expect(down('999.99', '33.333333')).toBe('333.33');
    // multiples of 5: 1000 × 0.37 = 370.00; 1010 × 0.25 = 252.50 → 250 (50.5 multiples → 50, tie to even)
    expect(down('1000.00', '37', 5)).toBe('370.00');
    expect(down('1010.00', '25', 5)).toBe('250.00');
  });

  it('the percentage charges and flat interest keep the whole principal; 0 % and 100 % are schedules too', () => {
    const charged = generateSchedule({
      ...base,
      interestType: 1,
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: '25',
      charges: [{ chargeTimeType: 1, chargeCalculationType: 2, amount: '2' }],
    });
    expect(charged.periods[0].feeChargesDue).toBe('20.00'); // 2 % of 1000, not of 750
    // flat: 1000 × 12 % ÷ 52 × 6 weeks = 13.846153… → 13.85 in all; 4.62 a period, the last takes the rest
    expect((charged.periods.slice(1) as RepaymentPeriod[]).map((p) => p.interestDue)).toEqual([
      '0.00',
      '4.62',
      '4.62',
      '4.61',
    ]);
    const zero = installments({
      ...base,
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: '0',
    });
    expect(zero[0]!.principalDue).toBe('0.00');
    expect(zero.slice(1)).toEqual(installments(base).map((p) => ({ ...p, period: p.period + 1 })));
    const all = generateSchedule({
      ...base,
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: '100',
    });
    expect(all.periods).toHaveLength(2);
    expect(all.totalRepaymentExpected).toBe('1000.00');
    expect(all.loanTermInDays).toBe(0);
  });

  it('without enableDownPayment every installment says downPaymentPeriod false', () => {
    expect(installments(base).every((p) => p.downPaymentPeriod === false)).toBe(true);
  });

  it.each([
    [{ enableDownPayment: true }, /required with enableDownPayment/],
    [{ disbursedAmountPercentageForDownPayment: '25' }, /only allowed with enableDownPayment/],
    [{ enableDownPayment: true, disbursedAmountPercentageForDownPayment: '100.000001' }, /from 0 to 100/],
    [{ enableDownPayment: true, disbursedAmountPercentageForDownPayment: '1.0000001' }, /at most 6 fraction/],
    [
      { enableDownPayment: true, disbursedAmountPercentageForDownPayment: '-1' },
      /not a non-negative decimal/,
    ],
  ] as const)('refuses %j', (fields, message) => {
    expect(() => generateSchedule({ ...base, ...fields })).toThrow(message);
  });
});

describe('the disclosure leaves the down payment out of the credit', () => {
  const terms: LoanTerms = {
    version: 1,
    loanType: 'individual',
    loanTermFrequency: 6,
    loanTermFrequencyType: 2,
    numberOfRepayments: 6,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: '18',
    interestRateFrequencyType: 3,
    interestType: 0,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 1,
    daysInMonthType: 1,
    graceOnPrincipalPayment: 0,
    graceOnInterestPayment: 0,
    repaymentsStartingFromDate: null,
    installmentAmountInMultiplesOf: null,
    currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    charges: [],
  };
  const product = {
    configurationStatus: 'CONFIGURED' as const,
    lmsConfig: {
      productClass: 'COVERED_CONSUMER' as const,
      aprEnabled: true,
      aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP' as const,
      aprTolerancePolicy: 'REGULAR' as const,
      statementEnabled: false,
      statementLeadDays: 21,
    },
  };
  const disclosureOf = (t: LoanTerms, principal: string) => {
    const schedule = scheduleOf(t, principal, '2025-02-03');
    if (!schedule.ok) throw new Error(JSON.stringify(schedule.errors));
    const result = loanAprDisclosure(product, t, principal, '2025-02-03', schedule.value);
    if (!result.ok) throw new Error(result.message);
    return result.disclosure;
  };

  it('20 % down on 1,000.00 discloses the credit of 800.00: same APR, amount financed and payments', () => {
    const withDown = disclosureOf(
      { ...terms, enableDownPayment: true, disbursedAmountPercentageForDownPayment: '20' },
      '1000.00',
    );
    const rest = disclosureOf(terms, '800.00');
    expect(withDown).toEqual(rest);
    expect(withDown.amountFinanced).toBe('800.00');
  });
});
