/**
 * Regulation Z §1026.18 disclosure (domain/lending/disclosure.ts).
 *
 * Oracles:
 * - Published: every example of test/vectors/apr-appendix-j.json (12 CFR 1026 App. J (c)). A loan
 *   whose schedule has exactly a case's payments, with no prepaid finance charge, must disclose the case's
 *   published APR and its total of payments.
 * - Hand-checked: a 12-month loan with an origination fee and a single-payment loan, the arithmetic of
 *   amount financed, total of payments, finance charge and APR written out in the comments; the APR of
 *   the first is checked by evaluating the Appendix J equation in closed form on both sides of it.
 * - Regulation text: the unit-period table (App. J (b)(4)–(5)), the itemization sums (§1026.18(c)), the
 *   regular/irregular classification of footnote 46 to §1026.22(a)(3) and the tolerances of (a)(2)–(3).
 * - Properties (fast-check) on generated schedules: finance charge + amount financed = total of payments;
 *   the payment schedule sums to the total of payments; prepaid finance charges raise the APR, above the
 *   nominal rate; the disclosed APR is the exact one rounded half-up.
 * - Negative space: each DisclosureUnavailableError reason and the RangeErrors of malformed input.
 */
import { readFileSync } from 'node:fs';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AprDisclosureInput,
  aprUnitPeriodOf,
  buildAprDisclosure,
  DisclosureUnavailableError,
  type RepaymentFrequency,
  repaymentFrequencyOf,
} from '../../domain/lending/disclosure';
import { generateSchedule, type Schedule, type ScheduleInput } from '../../domain/lending/schedule';

interface VectorCase {
  id: string;
  source: string;
  amountFinanced: string;
  advanceDate: string;
  unitPeriod: string;
  totalOfPayments: string;
  publishedApr: string;
  payments: { date: string | null; t: number; f: string; amount: string }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/apr-appendix-j.json', import.meta.url), 'utf8'),
) as { cases: VectorCase[] };

function isoOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
function plusDays(date: string, days: number): string {
  return isoOf(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);
}

/**
 * A schedule with the given payments, as a servicing system boarding an existing loan would hold it: the
 * disclosure reads only the disbursement row and each installment's due date and total due.
 */
function scheduleOf(
  principal: string,
  disbursementDate: string,
  payments: { date: string; amount: string }[],
  chargesAtDisbursement = '0.00',
): Schedule {
  let balance = new Decimal(principal);
  const share = balance.div(payments.length).toDecimalPlaces(2, Decimal.ROUND_DOWN);
  let fromDate = disbursementDate;
  const periods = payments.map((p, k) => {
    const principalDue = k === payments.length - 1 ? balance : Decimal.min(share, balance);
    balance = balance.minus(principalDue);
    const row = {
      period: k + 1,
      fromDate,
      dueDate: p.date,
      daysInPeriod: (Date.parse(p.date) - Date.parse(fromDate)) / 86_400_000,
      principalDue: principalDue.toFixed(2),
      interestDue: new Decimal(p.amount).minus(principalDue).toFixed(2),
      feeChargesDue: '0.00',
      penaltyChargesDue: '0.00',
      totalDueForPeriod: p.amount,
      principalLoanBalanceOutstanding: balance.toFixed(2),
      downPaymentPeriod: false,
    };
    fromDate = p.date;
    return row;
  });
  const total = payments.reduce((sum, p) => sum.plus(p.amount), new Decimal(0));
  return {
    currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
    loanTermInDays: (Date.parse(fromDate) - Date.parse(disbursementDate)) / 86_400_000,
    totalPrincipalExpected: principal,
    totalInterestCharged: total.minus(principal).toFixed(2),
    totalFeeChargesCharged: chargesAtDisbursement,
    totalPenaltyChargesCharged: '0.00',
    totalRepaymentExpected: total.plus(chargesAtDisbursement).toFixed(2),
    periods: [
      {
        dueDate: disbursementDate,
        principalDisbursed: principal,
        feeChargesDue: chargesAtDisbursement,
        totalDueForPeriod: chargesAtDisbursement,
        principalLoanBalanceOutstanding: principal,
      },
      ...periods,
    ],
  };
}

const monthly: RepaymentFrequency = { every: 1, unit: 'MONTHS' };

function disclosureInput(schedule: Schedule, patch: Partial<AprDisclosureInput> = {}): AprDisclosureInput {
  return {
    schedule,
    disbursementDate: schedule.periods[0].dueDate,
    repaymentFrequency: monthly,
    prepaidFinanceCharges: [],
    aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
    aprTolerancePolicy: 'REGULAR',
    ...patch,
  };
}

/** Declining balance, equal installments, interest per repayment period, the Fineract defaults. */
function loan(patch: Partial<ScheduleInput> = {}): ScheduleInput {
  return {
    principal: '1000.00',
    numberOfRepayments: 12,
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
    expectedDisbursementDate: '2026-01-15',
    currency: { code: 'USD', digitsAfterDecimal: 2 },
    ...patch,
  };
}

const origination = (amount: string) => ({
  chargeTimeType: 1 as const,
  chargeCalculationType: 1 as const,
  amount,
});

describe('buildAprDisclosure — published examples of 12 CFR 1026 App. J (c)', () => {
  const frequencies: Record<string, RepaymentFrequency> = {
    '1 month': monthly,
    '4 weeks': { every: 4, unit: 'WEEKS' },
  };

  for (const c of vectors.cases) {
    it(`${c.id} (${c.source}): discloses the published ${c.publishedApr}% and total of payments ${c.totalOfPayments}`, () => {
      // Cases without transcribed dates (c6i, 4-weekly) are dated from t/f: days = 28·t + 28·f ((b)(5)(iv)).
      const payments = c.payments.map((p) => {
        const [num, den = '1'] = p.f.split('/');
        const days = 28 * p.t + (28 * Number(num)) / Number(den);
        return { amount: p.amount, date: p.date ?? plusDays(c.advanceDate, days) };
      });
      // c5i is a single payment 255 days out: any frequency, the term is the unit-period ((b)(4)(ii)).
      const repaymentFrequency = frequencies[c.unitPeriod] ?? { every: 255, unit: 'DAYS' };
      const disclosure = buildAprDisclosure(
        disclosureInput(scheduleOf(c.amountFinanced, c.advanceDate, payments), { repaymentFrequency }),
      );
      expect(disclosure.annualPercentageRate).toBe(c.publishedApr);
      expect(disclosure.amountFinanced).toBe(c.amountFinanced);
      expect(disclosure.totalOfPayments).toBe(c.totalOfPayments);
      expect(disclosure.financeCharge).toBe(
        new Decimal(c.totalOfPayments).minus(c.amountFinanced).toFixed(2),
      );
      expect(disclosure.toleranceCheck.withinTolerance).toBe(true);
    });
  }

  it('classifies the cases by footnote 46 to §1026.22(a)(3): an odd first or final payment stays regular', () => {
    const byId = (id: string) => vectors.cases.find((c) => c.id === id)!;
    const transaction = (id: string, frequency: RepaymentFrequency) => {
      const c = byId(id);
      const payments = c.payments.map((p) => {
        const [num, den = '1'] = p.f.split('/');
        return {
          amount: p.amount,
          date: p.date ?? plusDays(c.advanceDate, 28 * p.t + (28 * Number(num)) / Number(den)),
        };
      });
      const input = disclosureInput(scheduleOf(c.amountFinanced, c.advanceDate, payments), {
        repaymentFrequency: frequency,
        aprTolerancePolicy: 'IRREGULAR',
      });
      return buildAprDisclosure(input).toleranceCheck;
    };
    // c4i: irregular first payment (250) and final payment (280) around 22 × 230 — regular, so ⅛ point
    // applies even under an IRREGULAR policy.
    expect(transaction('regz-appj-c4i', monthly)).toMatchObject({
      transaction: 'REGULAR',
      tolerance: '0.125',
    });
    // c6i: skipped payments — irregular payment periods, ¼ point under the IRREGULAR policy.
    expect(transaction('regz-appj-c6i', { every: 4, unit: 'WEEKS' })).toMatchObject({
      transaction: 'IRREGULAR',
      tolerance: '0.25',
    });
  });
});

describe('buildAprDisclosure — worked §1026.18 examples', () => {
  it('12 monthly payments at 12 % with a $20 origination fee', () => {
    // Schedule (Fineract, declining balance, equal installments): 1 % a month on $1,000.00 gives the
    // installment 1000 × 0.01 / (1 − 1.01^-12) = 88.8488 → 88.85; eleven of them, and the last one takes
    // the remaining principal 87.96 plus 0.88 interest = 88.84. Interest in total 66.19.
    const schedule = generateSchedule(loan({ charges: [origination('20.00')] }));
    const disclosure = buildAprDisclosure(
      disclosureInput(schedule, {
        prepaidFinanceCharges: [{ name: 'Origination fee', amount: '20.00' }],
        latePayment: { graceDays: 15, flatFee: '15.00' },
      }),
    );
    // §1026.18(b): amount financed = 1000.00 − 20.00 = 980.00.
    expect(disclosure.amountFinanced).toBe('980.00');
    // §1026.18(h): total of payments = 11 × 88.85 + 88.84 = 977.35 + 88.84 = 1066.19.
    expect(disclosure.totalOfPayments).toBe('1066.19');
    // §1026.18(d): finance charge = 1066.19 − 980.00 = 86.19 = interest 66.19 + fee 20.00.
    expect(disclosure.financeCharge).toBe('86.19');
    // §1026.18(g): 11 payments of 88.85 monthly from 2026-02-15, then 1 of 88.84 on 2027-01-15.
    expect(disclosure.paymentSchedule).toEqual([
      { count: 11, amount: '88.85', firstDueDate: '2026-02-15', frequency: monthly },
      { count: 1, amount: '88.84', firstDueDate: '2027-01-15', frequency: monthly },
    ]);
    // §1026.18(c): 1000.00 = 980.00 to the borrower + 20.00 prepaid finance charge.
    expect(disclosure.itemization).toEqual({
      principal: '1000.00',
      amountGivenToBorrower: '980.00',
      amountPaidToOthersOnBorrowersBehalf: '0.00',
      prepaidFinanceCharges: [{ name: 'Origination fee', amount: '20.00' }],
      prepaidFinanceChargeTotal: '20.00',
    });
    expect(disclosure.prepayment).toEqual({ penalty: false, refundOfFinanceCharge: false });
    expect(disclosure.latePayment).toEqual({ graceDays: 15, flatFee: '15.00' });
    expect(disclosure.unitPeriod).toBe('MONTH');
    // §1026.18(e): payments on the 15th from the advance on the 15th: t = k, f = 0, so App. J (b)(8) is
    // 980 = 88.85 · (1 − v^11)/i + 88.84 · v^12 with v = 1/(1 + i), i = APR/1200. The right side exceeds
    // 980 at APR 15.855 % and falls short of it at 15.865 %, so the APR rounds to 15.86 %.
    const rightSide = (apr: string) => {
      const i = new Decimal(apr).div(1200);
      const v = new Decimal(1).div(i.plus(1));
      return new Decimal('88.85')
        .times(new Decimal(1).minus(v.pow(11)))
        .div(i)
        .plus(v.pow(12).times('88.84'));
    };
    expect(rightSide('15.855').greaterThan(980)).toBe(true);
    expect(rightSide('15.865').lessThan(980)).toBe(true);
    expect(disclosure.annualPercentageRate).toBe('15.86');
    expect(disclosure.aprExact).toMatch(/^15\.8\d{9}$/);
    expect(disclosure.toleranceCheck).toEqual({
      policy: 'REGULAR',
      transaction: 'REGULAR',
      tolerance: '0.125',
      difference: new Decimal('15.86').minus(disclosure.aprExact).abs().toFixed(10),
      withinTolerance: true,
    });
  });

  it('a single payment a year out: the 365-day term is the unit-period, APR = (1120/980 − 1) × 100', () => {
    // $1,000.00 at 12 % for one year, repaid in one payment of 1000 + 120 = 1120.00; fee 20.00.
    // Amount financed 980.00, total of payments 1120.00, finance charge 140.00. App. J (b)(4)(ii), (b)(5)(vii):
    // one unit-period of 365 days, 365/365 per year; 980 = 1120 / (1 + i) → i = 8/7 − 1 = 0.142857142857…
    // → APR 14.2857142857 %, disclosed 14.29 %: above the 12 % note rate because of the fee.
    const schedule = generateSchedule(
      loan({
        numberOfRepayments: 1,
        repaymentFrequencyType: 3,
        expectedDisbursementDate: '2026-01-01',
        charges: [origination('20.00')],
      }),
    );
    const disclosure = buildAprDisclosure(
      disclosureInput(schedule, {
        repaymentFrequency: { every: 1, unit: 'YEARS' },
        prepaidFinanceCharges: [{ name: 'Origination fee', amount: '20.00' }],
      }),
    );
    expect(disclosure).toMatchObject({
      amountFinanced: '980.00',
      totalOfPayments: '1120.00',
      financeCharge: '140.00',
      unitPeriod: { days: 365 },
      aprExact: '14.2857142857',
      annualPercentageRate: '14.29',
      paymentSchedule: [
        { count: 1, amount: '1120.00', firstDueDate: '2027-01-01', frequency: { every: 1, unit: 'YEARS' } },
      ],
    });
  });

  it('prepaid finance charges raise the APR above the note rate; without them it is the note rate', () => {
    const aprWith = (fee: string) => {
      const schedule = generateSchedule(loan({ charges: fee === '0.00' ? [] : [origination(fee)] }));
      return buildAprDisclosure(
        disclosureInput(schedule, {
          prepaidFinanceCharges: fee === '0.00' ? [] : [{ name: 'Origination fee', amount: fee }],
        }),
      );
    };
    // The same payments (88.85 × 11 + 88.84) discount to $1,000.00 at 1 % a month: APR = note rate 12 %.
    expect(aprWith('0.00').annualPercentageRate).toBe('12.00');
    const exact = ['0.00', '10.00', '20.00', '50.00'].map((fee) => new Decimal(aprWith(fee).aprExact));
    for (let k = 1; k < exact.length; k++) {
      expect(exact[k]!.greaterThan(exact[k - 1]!)).toBe(true);
      expect(exact[k]!.greaterThan(12)).toBe(true);
    }
  });

  it('itemizes a non-finance charge at disbursement as paid to others, inside the amount financed', () => {
    // Charges at disbursement 35.00: origination 20.00 (finance charge) and a 15.00 recording fee paid to a
    // public official (excluded by §1026.4(e)). Amount financed 1000 − 20 = 980 = 965 to the borrower + 15.
    const schedule = generateSchedule(loan({ charges: [origination('20.00'), origination('15.00')] }));
    const disclosure = buildAprDisclosure(
      disclosureInput(schedule, { prepaidFinanceCharges: [{ name: 'Origination fee', amount: '20.00' }] }),
    );
    expect(disclosure.amountFinanced).toBe('980.00');
    expect(disclosure.itemization).toMatchObject({
      amountGivenToBorrower: '965.00',
      amountPaidToOthersOnBorrowersBehalf: '15.00',
      prepaidFinanceChargeTotal: '20.00',
    });
  });

  it('leaves grace installments with nothing due out, and counts varying amounts as irregular', () => {
    // Month-end loan, one installment of principal and interest grace: period 1 is 0.00; then equal principal
    // 240.00 with interest 24.00 (two months), 9.60, 7.20, 4.80, 2.40.
    const schedule = generateSchedule(
      loan({
        principal: '1200.00',
        numberOfRepayments: 6,
        amortizationType: 0,
        expectedDisbursementDate: '2026-01-31',
        graceOnPrincipalPayment: 1,
        graceOnInterestPayment: 1,
      }),
    );
    const disclosure = buildAprDisclosure(disclosureInput(schedule, { aprTolerancePolicy: 'IRREGULAR' }));
    expect(disclosure.paymentSchedule.map((g) => [g.count, g.amount, g.firstDueDate])).toEqual([
      [1, '264.00', '2026-03-31'],
      [1, '249.60', '2026-04-30'],
      [1, '247.20', '2026-05-31'],
      [1, '244.80', '2026-06-30'],
      [1, '242.40', '2026-07-31'],
    ]);
    expect(disclosure.totalOfPayments).toBe('1248.00');
    expect(disclosure.financeCharge).toBe('48.00');
    // 249.60 ≠ 247.20 ≠ 244.80 between the first and the final payment: irregular amounts.
    expect(disclosure.toleranceCheck).toMatchObject({ transaction: 'IRREGULAR', tolerance: '0.25' });
  });

  it('an irregular first period alone keeps the transaction regular (footnote 46)', () => {
    // First due date 45 days after the disbursement, then monthly; equal installments.
    const schedule = generateSchedule(loan({ repaymentsStartingFromDate: '2026-03-01' }));
    const disclosure = buildAprDisclosure(disclosureInput(schedule, { aprTolerancePolicy: 'IRREGULAR' }));
    expect(disclosure.toleranceCheck).toMatchObject({ transaction: 'REGULAR', tolerance: '0.125' });
  });

  it('weekly and two-monthly schedules use WEEK and TWOMONTH and give back the nominal rate', () => {
    const weekly = generateSchedule(
      loan({ numberOfRepayments: 52, repaymentFrequencyType: 1, interestRatePerPeriod: '10.4' }),
    );
    const byWeek = buildAprDisclosure(
      disclosureInput(weekly, { repaymentFrequency: repaymentFrequencyOf(1, 1) }),
    );
    expect(byWeek.unitPeriod).toBe('WEEK');
    expect(byWeek.annualPercentageRate).toBe('10.40');
    const twoMonthly = generateSchedule(loan({ numberOfRepayments: 6, repaymentEvery: 2 }));
    const byTwoMonths = buildAprDisclosure(
      disclosureInput(twoMonthly, { repaymentFrequency: repaymentFrequencyOf(2, 2) }),
    );
    expect(byTwoMonths.unitPeriod).toBe('TWOMONTH');
    expect(byTwoMonths.annualPercentageRate).toBe('12.00');
  });
});

describe('aprUnitPeriodOf — App. J (b)(4)–(5) from the repayment frequency', () => {
  it('maps the frequencies computeApr implements', () => {
    const cases: [RepaymentFrequency, string][] = [
      [{ every: 1, unit: 'MONTHS' }, 'MONTH'],
      [{ every: 2, unit: 'MONTHS' }, 'TWOMONTH'],
      [{ every: 3, unit: 'MONTHS' }, 'QUARTER'],
      [{ every: 6, unit: 'MONTHS' }, 'SEMIYEAR'],
      [{ every: 12, unit: 'MONTHS' }, 'YEAR'],
      [{ every: 24, unit: 'MONTHS' }, 'YEAR'], // (b)(4)(i): the unit-period does not exceed a year
      [{ every: 1, unit: 'YEARS' }, 'YEAR'],
      [{ every: 2, unit: 'YEARS' }, 'YEAR'],
      [{ every: 1, unit: 'WEEKS' }, 'WEEK'],
      [{ every: 2, unit: 'WEEKS' }, 'BIWEEK'],
      [{ every: 4, unit: 'WEEKS' }, 'FOURWEEK'],
      [{ every: 7, unit: 'DAYS' }, 'WEEK'],
      [{ every: 14, unit: 'DAYS' }, 'BIWEEK'],
      [{ every: 28, unit: 'DAYS' }, 'FOURWEEK'],
    ];
    for (const [frequency, unit] of cases)
      expect(aprUnitPeriodOf(frequency), JSON.stringify(frequency)).toBe(unit);
  });

  it('rejects the others with a RangeError that names the supported ones', () => {
    for (const frequency of [
      { every: 4, unit: 'MONTHS' },
      { every: 3, unit: 'WEEKS' },
      { every: 10, unit: 'DAYS' },
      { every: 30, unit: 'DAYS' },
      { every: 0, unit: 'MONTHS' },
      { every: 1, unit: 'FORTNIGHTS' },
    ] as RepaymentFrequency[]) {
      expect(() => aprUnitPeriodOf(frequency), JSON.stringify(frequency)).toThrow(RangeError);
    }
    expect(() => aprUnitPeriodOf({ every: 10, unit: 'DAYS' })).toThrow(/every 10 days: supported are/);
  });

  it('reads Fineract codes 0 days, 1 weeks, 2 months, 3 years', () => {
    expect(repaymentFrequencyOf(2, 1)).toEqual({ every: 2, unit: 'WEEKS' });
    expect(repaymentFrequencyOf(1, 3)).toEqual({ every: 1, unit: 'YEARS' });
    expect(() => repaymentFrequencyOf(1, 4 as never)).toThrow(RangeError);
  });
});

describe('buildAprDisclosure — no lawful disclosure: DisclosureUnavailableError', () => {
  const reasonOf = (input: AprDisclosureInput) => {
    try {
      buildAprDisclosure(input);
    } catch (error) {
      expect(error).toBeInstanceOf(DisclosureUnavailableError);
      expect((error as DisclosureUnavailableError).code).toBe('error.msg.loan.apr.disclosure.unavailable');
      return (error as DisclosureUnavailableError).reason;
    }
    return 'no error';
  };

  it('AMOUNT_FINANCED_NOT_POSITIVE: prepaid finance charges equal to the principal', () => {
    const schedule = generateSchedule(loan({ charges: [origination('1000.00')] }));
    expect(
      reasonOf(disclosureInput(schedule, { prepaidFinanceCharges: [{ name: 'Fee', amount: '1000.00' }] })),
    ).toBe('AMOUNT_FINANCED_NOT_POSITIVE');
  });

  it('FINANCE_CHARGE_NEGATIVE: payments that total less than the amount financed', () => {
    // A boarded schedule after a partial write-down: 1000.00 lent, 2 × 400.00 due.
    const schedule = scheduleOf('1000.00', '2026-01-15', [
      { date: '2026-02-15', amount: '400.00' },
      { date: '2026-03-15', amount: '400.00' },
    ]);
    expect(reasonOf(disclosureInput(schedule))).toBe('FINANCE_CHARGE_NEGATIVE');
  });

  it('APR_NOT_COMPUTABLE: the Appendix J solver finds no rate (above 2^40 per unit-period)', () => {
    // 0.01 financed against one payment of about 10^12 a month later: i ≈ 10^14 > 2^40 ≈ 1.1 × 10^12.
    const schedule = generateSchedule(
      loan({
        principal: '1000000000000.00',
        numberOfRepayments: 1,
        charges: [origination('999999999999.99')],
      }),
    );
    const input = disclosureInput(schedule, {
      prepaidFinanceCharges: [{ name: 'Fee', amount: '999999999999.99' }],
    });
    expect(reasonOf(input)).toBe('APR_NOT_COMPUTABLE');
    expect(() => buildAprDisclosure(input)).toThrow(/did not converge/);
  });

  it('APR_OUTSIDE_TOLERANCE: a disclosed APR more than ⅛ point (regular) or ¼ point (irregular) off', () => {
    const fee = { prepaidFinanceCharges: [{ name: 'Origination fee', amount: '20.00' }] };
    const regular = generateSchedule(loan({ charges: [origination('20.00')] })); // exact 15.8554…
    const check = (disclosed: string) =>
      buildAprDisclosure(disclosureInput(regular, { ...fee, disclosedAnnualPercentageRate: disclosed }));
    expect(check('15.98').annualPercentageRate).toBe('15.98'); // 0.1245 above
    expect(check('15.74').toleranceCheck.withinTolerance).toBe(true); // 0.1155 below
    expect(reasonOf(disclosureInput(regular, { ...fee, disclosedAnnualPercentageRate: '15.99' }))).toBe(
      'APR_OUTSIDE_TOLERANCE',
    );
    // A regular transaction keeps ⅛ point even under the IRREGULAR policy.
    expect(
      reasonOf(
        disclosureInput(regular, {
          ...fee,
          aprTolerancePolicy: 'IRREGULAR',
          disclosedAnnualPercentageRate: '15.65',
        }),
      ),
    ).toBe('APR_OUTSIDE_TOLERANCE');

    const irregular = generateSchedule(loan({ amortizationType: 0, charges: [origination('20.00')] }));
    const exact = new Decimal(buildAprDisclosure(disclosureInput(irregular, fee)).aprExact);
    const off = (points: string) => exact.plus(points).toFixed(2, Decimal.ROUND_DOWN);
    const irregularInput = (disclosed: string) =>
      disclosureInput(irregular, {
        ...fee,
        aprTolerancePolicy: 'IRREGULAR',
        disclosedAnnualPercentageRate: disclosed,
      });
    expect(buildAprDisclosure(irregularInput(off('0.2'))).toleranceCheck).toMatchObject({
      transaction: 'IRREGULAR',
      tolerance: '0.25',
      withinTolerance: true,
    });
    expect(reasonOf(irregularInput(off('0.27')))).toBe('APR_OUTSIDE_TOLERANCE');
  });
});

describe('buildAprDisclosure — malformed input: RangeError', () => {
  const schedule = generateSchedule(loan({ charges: [origination('20.00')] }));
  const call = (patch: Record<string, unknown>) => () =>
    buildAprDisclosure({ ...disclosureInput(schedule), ...patch } as AprDisclosureInput);

  it('accepts the base input', () => {
    expect(call({})).not.toThrow();
  });

  it('unknown rounding or tolerance policy', () => {
    expect(call({ aprRounding: 'NEAREST_0_001_PERCENT' })).toThrow(/unknown aprRounding/);
    expect(call({ aprTolerancePolicy: 'LENIENT' })).toThrow(/unknown aprTolerancePolicy/);
  });

  it('a disbursement date other than the schedule’s, or not a date', () => {
    expect(call({ disbursementDate: '2026-01-16' })).toThrow(/not the schedule's disbursement date/);
    expect(call({ disbursementDate: '2026-02-30' })).toThrow(/not an ISO calendar date/);
  });

  it('prepaid finance charges above the charges at disbursement, negative, unnamed or too precise', () => {
    expect(call({ prepaidFinanceCharges: [{ name: 'Fee', amount: '20.01' }] })).toThrow(
      /exceed the charges due at disbursement 20.00/,
    );
    expect(call({ prepaidFinanceCharges: [{ name: 'Fee', amount: '-1.00' }] })).toThrow(
      /must not be negative/,
    );
    expect(call({ prepaidFinanceCharges: [{ name: ' ', amount: '1.00' }] })).toThrow(
      /name must be a non-empty/,
    );
    expect(call({ prepaidFinanceCharges: [{ name: 'Fee', amount: '1.005' }] })).toThrow(
      /more than 2 fraction/,
    );
    expect(call({ prepaidFinanceCharges: [{ name: 'Fee', amount: 1 }] })).toThrow(/must be a decimal string/);
  });

  it('an unsupported repayment frequency for a series of payments', () => {
    expect(call({ repaymentFrequency: { every: 4, unit: 'MONTHS' } })).toThrow(/every 4 months/);
  });

  it('a malformed disclosed APR or late-payment terms', () => {
    expect(call({ disclosedAnnualPercentageRate: '15.9' })).toThrow(/2 decimals/);
    expect(call({ latePayment: { graceDays: -1, flatFee: '5.00' } })).toThrow(/graceDays/);
    expect(call({ latePayment: { graceDays: 10 } })).toThrow(/flatFee or a percentOfPayment/);
    expect(call({ latePayment: { graceDays: 10, percentOfPayment: '101' } })).toThrow(/from 0 to 100/);
    expect(call({ latePayment: { graceDays: 10, flatFee: '5.001' } })).toThrow(/latePayment.flatFee/);
  });

  it('a schedule without any payment', () => {
    const empty = { ...schedule, periods: [schedule.periods[0]] } as Schedule;
    expect(() => buildAprDisclosure(disclosureInput(empty))).toThrow(/no payment/);
  });
});

describe('buildAprDisclosure — properties', () => {
  const loans = fc.record({
    principalCents: fc.integer({ min: 1_000_000, max: 100_000_000 }), // 10,000.00 … 1,000,000.00
    n: fc.integer({ min: 1, max: 360 }),
    rateHundredths: fc.integer({ min: 100, max: 3600 }), // 1 % … 36 % a year
    amortizationType: fc.constantFrom(0 as const, 1 as const),
    frequency: fc.constantFrom(
      { every: 1, type: 2 as const },
      { every: 1, type: 1 as const },
      { every: 2, type: 1 as const },
      { every: 3, type: 2 as const },
    ),
    feePermille: fc.integer({ min: 5, max: 50 }), // prepaid finance charge 0.5 % … 5 % of the principal
    day: fc.integer({ min: 1, max: 31 }),
  });

  type LoanCase = typeof loans extends fc.Arbitrary<infer T> ? T : never;

  function build(l: LoanCase, withFee: boolean) {
    return buildWithSchedule(l, withFee).disclosure;
  }

  function buildWithSchedule(l: LoanCase, withFee: boolean) {
    const principal = new Decimal(l.principalCents).div(100);
    const fee = principal.times(l.feePermille).div(1000).toFixed(2);
    const day = String(l.day).padStart(2, '0');
    const schedule = generateSchedule(
      loan({
        principal: principal.toFixed(2),
        numberOfRepayments: l.n,
        repaymentEvery: l.frequency.every,
        repaymentFrequencyType: l.frequency.type,
        interestRatePerPeriod: new Decimal(l.rateHundredths).div(100).toString(),
        amortizationType: l.amortizationType,
        expectedDisbursementDate: `2026-01-${day}`,
        charges: withFee ? [origination(fee)] : [],
      }),
    );
    const disclosure = buildAprDisclosure(
      disclosureInput(schedule, {
        repaymentFrequency: repaymentFrequencyOf(l.frequency.every, l.frequency.type),
        prepaidFinanceCharges: withFee ? [{ name: 'Origination fee', amount: fee }] : [],
      }),
    );
    return { disclosure, schedule };
  }

  it('finance charge + amount financed = total of payments = Σ payment schedule; APR rounds the exact one', () => {
    fc.assert(
      fc.property(loans, fc.boolean(), (l, withFee) => {
        const { disclosure: d, schedule } = buildWithSchedule(l, withFee);
        expect(new Decimal(d.financeCharge).plus(d.amountFinanced).toFixed(2)).toBe(d.totalOfPayments);
        const scheduled = d.paymentSchedule.reduce(
          (sum, g) => sum.plus(new Decimal(g.amount).times(g.count)),
          new Decimal(0),
        );
        expect(scheduled.toFixed(2)).toBe(d.totalOfPayments);
        // One disclosed payment per installment with something due. A rounded-up equal installment may end the
        // schedule before `n` (Fineract does the same), e.g. 135 quarterly payments at 35.77 % end at 134.
        const installmentsDue = schedule.periods
          .slice(1)
          .filter((p) => new Decimal(p.totalDueForPeriod).greaterThan(0)).length;
        expect(installmentsDue).toBeLessThanOrEqual(l.n);
        expect(d.paymentSchedule.reduce((count, g) => count + g.count, 0)).toBe(installmentsDue);
        expect(
          new Decimal(d.itemization.principal).minus(d.itemization.prepaidFinanceChargeTotal).toFixed(2),
        ).toBe(d.amountFinanced);
        expect(d.annualPercentageRate).toBe(new Decimal(d.aprExact).toFixed(2, Decimal.ROUND_HALF_UP));
        expect(new Decimal(d.toleranceCheck.difference).lessThanOrEqualTo('0.005')).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('prepaid finance charges > 0: APR above the APR without them and ≥ the nominal rate', () => {
    fc.assert(
      fc.property(loans, (l) => {
        const withFee = new Decimal(build(l, true).aprExact);
        const without = new Decimal(build(l, false).aprExact);
        expect(withFee.greaterThan(without)).toBe(true);
        // Declining balance at the periodic rate of the repayment period: without fees the APR is the nominal
        // rate but for cent rounding, which the fee (≥ 0.5 % of a principal ≥ 10,000.00) outweighs.
        expect(withFee.greaterThanOrEqualTo(new Decimal(l.rateHundredths).div(100))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
