/**
 * Delinquency derived as of a date (domain/lending/delinquency.ts).
 *
 * Oracles:
 * - Apache Fineract's published tables (test/vectors/fineract-delinquency.json, LoanDelinquency.feature): the loan
 *   replayed through the allocation (domain/lending/allocation/) to each as-of date, then derived; every figure
 *   the table prints is asserted to the cent.
 * - Hand-computed: paused days (Fineract `getPausedDaysBeforeDate`), the range lookup, the template of a loan not
 *   yet active, a closed loan, next payment due date and last payment.
 * - Properties (fast-check): paying the oldest installment never increases pastDueDays; a pause never increases
 *   delinquentDays; grace shifts delinquentDate by exactly its days; delinquentDays ≤ pastDueDays.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../domain/calendar';
import { installmentStatesAsOf } from '../../domain/lending/allocation/summary';
import type { AllocationInput, ChargeEvent, MoneyEvent } from '../../domain/lending/allocation/types';
import {
  type DelinquencyInput,
  type DelinquencyInstallment,
  type DelinquencyRangeDefinition,
  delinquencyInstallmentsOf,
  deriveDelinquency,
  loanStatusAsOf,
  pausedDaysBefore,
  rangeForDays,
} from '../../domain/lending/delinquency';
import type { LoanStatus } from '../../domain/lending/loan-status';
import { parseDecimalToMinor } from '../../domain/money';
import vectors from '../vectors/fineract-delinquency.json';

const eur = (amount: string) => parseDecimalToMinor(amount, 2);

interface Check {
  asOfDate: string;
  pauses: { startDate: string; endDate: string }[];
  loanStatus?: string;
  classification?: string;
  delinquentAmount?: string;
  delinquentDate?: string;
  delinquentDays?: number;
  pastDueDays?: number;
  installmentLevel?: [string, string, string][];
  pausePeriods?: [boolean, string, string][];
}

describe('Fineract LoanDelinquency.feature tables', () => {
  const loan = vectors.loan;
  const ranges = vectors.ranges as DelinquencyRangeDefinition[];
  for (const scenario of vectors.scenarios) {
    it(scenario.name, () => {
      const events: MoneyEvent[] = [
        {
          kind: 'DISBURSEMENT',
          id: 1,
          valueDate: loan.disbursement.date,
          amountMinor: eur(loan.disbursement.amount),
        },
        ...scenario.payments.map(
          (p, index): MoneyEvent => ({
            kind: 'PAYMENT',
            id: index + 1,
            valueDate: p.date,
            amountMinor: eur(p.amount),
          }),
        ),
      ];
      const charges = (
        scenario.charges as {
          installmentNumber: number;
          component: string;
          dueDate: string;
          amount: string;
        }[]
      ).map(
        (c, index): ChargeEvent => ({
          id: index + 1,
          installmentNumber: c.installmentNumber,
          component: c.component as 'FEE' | 'PENALTY',
          dueDate: c.dueDate,
          amountMinor: eur(c.amount),
        }),
      );
      const input: AllocationInput = {
        currency: loan.currency,
        installments: loan.installments.map((i) => ({
          installmentNumber: i.installmentNumber,
          fromDate: i.fromDate,
          dueDate: i.dueDate,
          principalDueMinor: eur(i.principal),
          interestDueMinor: 0n,
          feeDueMinor: 0n,
          penaltyDueMinor: 0n,
        })),
        events,
        strategy: { code: 'advanced-payment-allocation-strategy' },
        charges,
      };
      for (const check of scenario.checks as Check[]) {
        const result = deriveDelinquency({
          currency: loan.currency,
          asOfDate: check.asOfDate,
          loanStatus: (check.loanStatus ?? 'ACTIVE') as LoanStatus,
          installments: delinquencyInstallmentsOf(installmentStatesAsOf(input, check.asOfDate)),
          graceOnArrearsAgeingDays: loan.graceOnArrearsAgeing,
          ranges,
          pausePeriods: check.pauses,
          enableInstallmentLevelDelinquency: loan.enableInstallmentLevelDelinquency,
          lastPayment: null,
        });
        const d = result.delinquent;
        const at = `${scenario.name} @ ${check.asOfDate}`;
        if (check.classification !== undefined) expect(result.classification, at).toBe(check.classification);
        if (check.delinquentAmount !== undefined) expect(d.delinquentAmount, at).toBe(check.delinquentAmount);
        if (check.delinquentDate !== undefined) expect(d.delinquentDate, at).toBe(check.delinquentDate);
        if (check.delinquentDays !== undefined) expect(d.delinquentDays, at).toBe(check.delinquentDays);
        if (check.pastDueDays !== undefined) expect(d.pastDueDays, at).toBe(check.pastDueDays);
        if (check.installmentLevel !== undefined) {
          expect(
            d.installmentLevelDelinquency.map((g) => [
              String(g.rangeId),
              g.classification,
              g.delinquentAmount,
            ]),
            at,
          ).toEqual(check.installmentLevel);
        }
        if (check.pausePeriods !== undefined) {
          expect(
            d.delinquencyPausePeriods.map((p) => [p.active, p.pausePeriodStart, p.pausePeriodEnd]),
            at,
          ).toEqual(check.pausePeriods);
        }
      }
    });
  }
});

// ---- hand-computed ---------------------------------------------------------------------------------------------

const usdRanges: DelinquencyRangeDefinition[] = [
  { id: 10, classification: 'EARLY', minimumAgeDays: 1, maximumAgeDays: 29 },
  { id: 11, classification: 'LATE', minimumAgeDays: 30, maximumAgeDays: null },
];

const inst = (
  installmentNumber: number,
  dueDate: string,
  principal: string,
  parts: { interest?: string; fee?: string; penalty?: string } = {},
): DelinquencyInstallment => ({
  installmentNumber,
  dueDate,
  principalOutstandingMinor: eur(principal),
  interestOutstandingMinor: eur(parts.interest ?? '0'),
  feeOutstandingMinor: eur(parts.fee ?? '0'),
  penaltyOutstandingMinor: eur(parts.penalty ?? '0'),
});

const base = (over: Partial<DelinquencyInput> = {}): DelinquencyInput => ({
  currency: 'USD',
  asOfDate: '2024-03-10',
  loanStatus: 'ACTIVE',
  installments: [
    inst(1, '2024-01-01', '100.00', { interest: '10.00', fee: '5.00', penalty: '2.50' }),
    inst(2, '2024-02-01', '100.00', { interest: '8.00' }),
    inst(3, '2024-03-10', '100.00', { interest: '6.00' }),
    inst(4, '2024-04-01', '100.00', { interest: '4.00' }),
  ],
  graceOnArrearsAgeingDays: 0,
  ranges: usdRanges,
  pausePeriods: [],
  enableInstallmentLevelDelinquency: false,
  lastPayment: null,
  ...over,
});

describe('deriveDelinquency, hand-computed', () => {
  it('sums what the installments due before the as-of date owe, by component; one due on the date is not overdue', () => {
    const { delinquent, classification, range } = deriveDelinquency(base());
    // installments 1 and 2 are due before 2024-03-10; 3 is due on it
    expect(delinquent.delinquentPrincipal).toBe('200.00');
    expect(delinquent.delinquentInterest).toBe('18.00'); // 10 + 8
    expect(delinquent.delinquentFee).toBe('5.00');
    expect(delinquent.delinquentPenalty).toBe('2.50');
    expect(delinquent.delinquentAmount).toBe('225.50');
    expect(delinquent.pastDueDays).toBe(69); // 2024-01-01 → 2024-03-10: 31 + 29 + 9
    expect(delinquent.delinquentDays).toBe(69);
    expect(delinquent.delinquentDate).toBe('2024-01-01');
    expect(delinquent.nextPaymentDueDate).toBe('2024-01-01');
    expect(classification).toBe('LATE');
    expect(range?.id).toBe(11);
  });

  it('grace moves the delinquent date and is taken off the days, then pauses are', () => {
    const { delinquent } = deriveDelinquency(
      base({
        graceOnArrearsAgeingDays: 5,
        pausePeriods: [{ startDate: '2024-02-01', endDate: '2024-02-11' }],
      }),
    );
    expect(delinquent.delinquentDate).toBe('2024-01-06');
    expect(delinquent.pastDueDays).toBe(69);
    expect(delinquent.delinquentDays).toBe(54); // 69 − 5 − 10
  });

  it('counts paused days as Fineract getPausedDaysBeforeDate: to the earlier of end and date, only pauses begun before it', () => {
    const pauses = [
      { startDate: '2024-01-01', endDate: '2024-01-11' }, // closed: 10
      { startDate: '2024-01-20', endDate: '2024-02-20' }, // running on 2024-02-01: 12
      { startDate: '2024-02-01', endDate: '2024-02-05' }, // starts on the date: 0
    ];
    expect(pausedDaysBefore(pauses, '2024-02-01')).toBe(22);
    expect(pausedDaysBefore(pauses, '2024-01-01')).toBe(0);
  });

  it('looks ranges up by minimum age, an open range holds every age above its minimum, none for 0 days', () => {
    expect(rangeForDays(usdRanges, 0)).toBeNull();
    expect(rangeForDays(usdRanges, 1)?.id).toBe(10);
    expect(rangeForDays(usdRanges, 29)?.id).toBe(10);
    expect(rangeForDays(usdRanges, 30)?.id).toBe(11);
    expect(rangeForDays(usdRanges, 5000)?.id).toBe(11);
    expect(rangeForDays(null, 40)).toBeNull();
    expect(
      rangeForDays([{ id: 1, classification: 'A', minimumAgeDays: 10, maximumAgeDays: 20 }], 5),
    ).toBeNull();
  });

  it('no bucket: figures but NO_DELINQUENCY', () => {
    const result = deriveDelinquency(base({ ranges: null }));
    expect(result.classification).toBe('NO_DELINQUENCY');
    expect(result.range).toBeNull();
    expect(result.delinquent.delinquentDays).toBe(69);
  });

  it('a paid-up loan: zeros, the next unpaid due date, the last payment', () => {
    const result = deriveDelinquency(
      base({
        installments: [inst(1, '2024-01-01', '0'), inst(2, '2024-04-01', '100.00')],
        lastPayment: { valueDate: '2024-01-01', amountMinor: eur('117.50') },
      }),
    );
    expect(result.delinquent).toMatchObject({
      pastDueDays: 0,
      delinquentDays: 0,
      delinquentDate: null,
      delinquentAmount: '0.00',
      nextPaymentDueDate: '2024-04-01',
      lastPaymentDate: '2024-01-01',
      lastPaymentAmount: '117.50',
    });
    expect(result.classification).toBe('NO_DELINQUENCY');
  });

  it('a closed or overpaid loan has no delinquency but shows its last payment and pauses; one not yet active the template', () => {
    const pausePeriods = [{ startDate: '2024-03-01', endDate: '2024-03-20' }];
    const lastPayment = { valueDate: '2024-03-01', amountMinor: eur('10.00') };
    for (const loanStatus of ['CLOSED_OBLIGATIONS_MET', 'OVERPAID'] as const) {
      const result = deriveDelinquency(base({ loanStatus, pausePeriods, lastPayment }));
      expect(result.classification).toBe('NO_DELINQUENCY');
      expect(result.delinquent).toMatchObject({
        pastDueDays: 0,
        delinquentDays: 0,
        delinquentAmount: '0.00',
        delinquentDate: null,
        lastPaymentDate: '2024-03-01',
        lastPaymentAmount: '10.00',
        delinquencyPausePeriods: [
          { active: true, pausePeriodStart: '2024-03-01', pausePeriodEnd: '2024-03-20' },
        ],
      });
    }
    for (const loanStatus of ['SUBMITTED', 'APPROVED'] as const) {
      const result = deriveDelinquency(base({ loanStatus, pausePeriods, lastPayment }));
      expect(result.delinquent).toMatchObject({
        lastPaymentDate: null,
        lastPaymentAmount: '0.00',
        nextPaymentDueDate: null,
        delinquencyPausePeriods: [],
        delinquentAmount: '0.00',
      });
    }
  });

  it('a loan closed since was active on a date its installments still owed something', () => {
    const owing = [inst(1, '2024-01-01', '0'), inst(2, '2024-02-01', '10.00')];
    const paid = [inst(1, '2024-01-01', '0'), inst(2, '2024-02-01', '0')];
    expect(loanStatusAsOf('CLOSED_OBLIGATIONS_MET', owing)).toBe('ACTIVE');
    expect(loanStatusAsOf('OVERPAID', owing)).toBe('ACTIVE');
    expect(loanStatusAsOf('CLOSED_OBLIGATIONS_MET', paid)).toBe('CLOSED_OBLIGATIONS_MET');
    expect(loanStatusAsOf('APPROVED', owing)).toBe('APPROVED');
  });

  it('installment level: only with the product flag and while the loan-level days are above 0', () => {
    const on = deriveDelinquency(base({ enableInstallmentLevelDelinquency: true }));
    // installment 1: 69 days → LATE (117.50); installment 2: 38 days → LATE (108.00)
    expect(on.delinquent.installmentLevelDelinquency).toEqual([
      {
        rangeId: 11,
        classification: 'LATE',
        minimumAgeDays: 30,
        maximumAgeDays: null,
        delinquentAmount: '225.50',
      },
    ]);
    const graced = deriveDelinquency(
      base({ enableInstallmentLevelDelinquency: true, graceOnArrearsAgeingDays: 100 }),
    );
    expect(graced.delinquent.delinquentDays).toBe(0);
    expect(graced.delinquent.installmentLevelDelinquency).toEqual([]);
    expect(deriveDelinquency(base()).delinquent.installmentLevelDelinquency).toEqual([]);
  });

  it('refuses malformed input', () => {
    expect(() => deriveDelinquency(base({ asOfDate: '2024-02-30' }))).toThrow(RangeError);
    expect(() => deriveDelinquency(base({ graceOnArrearsAgeingDays: -1 }))).toThrow(RangeError);
    expect(() => deriveDelinquency(base({ installments: [inst(1, '2024-01-01', '-1.00')] }))).toThrow(
      RangeError,
    );
  });
});

// ---- properties ------------------------------------------------------------------------------------------------

const start = '2024-01-01';
const arbitraryLoan = fc
  .record({
    gaps: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
    owed: fc.array(fc.bigInt({ min: 0n, max: 50_000n }), { minLength: 8, maxLength: 8 }),
    asOffset: fc.integer({ min: 0, max: 400 }),
    grace: fc.integer({ min: 0, max: 30 }),
    pause: fc.record({ from: fc.integer({ min: 0, max: 300 }), length: fc.integer({ min: 1, max: 60 }) }),
  })
  .map(({ gaps, owed, asOffset, grace, pause }) => {
    let offset = 0;
    const installments = gaps.map((gap, index): DelinquencyInstallment => {
      offset += gap;
      return {
        installmentNumber: index + 1,
        dueDate: addDays(start, offset),
        principalOutstandingMinor: owed[index]!,
        interestOutstandingMinor: owed[index]! / 10n,
        feeOutstandingMinor: 0n,
        penaltyOutstandingMinor: 0n,
      };
    });
    return {
      input: base({ installments, asOfDate: addDays(start, asOffset), graceOnArrearsAgeingDays: grace }),
      pause: { startDate: addDays(start, pause.from), endDate: addDays(start, pause.from + pause.length) },
    };
  });

describe('deriveDelinquency, properties', () => {
  it('paying the oldest unpaid installment never increases pastDueDays', () => {
    fc.assert(
      fc.property(arbitraryLoan, ({ input }) => {
        const before = deriveDelinquency(input).delinquent.pastDueDays;
        const unpaid = input.installments.findIndex(
          (i) => i.principalOutstandingMinor + i.interestOutstandingMinor > 0n,
        );
        if (unpaid < 0) return;
        const paid = input.installments.map((i, index) =>
          index === unpaid ? { ...i, principalOutstandingMinor: 0n, interestOutstandingMinor: 0n } : i,
        );
        expect(
          deriveDelinquency({ ...input, installments: paid }).delinquent.pastDueDays,
        ).toBeLessThanOrEqual(before);
      }),
    );
  });

  it('a pause never increases delinquentDays', () => {
    fc.assert(
      fc.property(arbitraryLoan, ({ input, pause }) => {
        const without = deriveDelinquency(input).delinquent.delinquentDays;
        const withPause = deriveDelinquency({ ...input, pausePeriods: [pause] }).delinquent.delinquentDays;
        expect(withPause).toBeLessThanOrEqual(without);
      }),
    );
  });

  it('grace shifts delinquentDate by exactly its days', () => {
    fc.assert(
      fc.property(arbitraryLoan, ({ input }) => {
        const none = deriveDelinquency({ ...input, graceOnArrearsAgeingDays: 0 }).delinquent.delinquentDate;
        const graced = deriveDelinquency(input).delinquent.delinquentDate;
        if (none === null) expect(graced).toBeNull();
        else expect(graced).toBe(addDays(none, input.graceOnArrearsAgeingDays));
      }),
    );
  });

  it('delinquentDays ≤ pastDueDays, both ≥ 0', () => {
    fc.assert(
      fc.property(arbitraryLoan, ({ input, pause }) => {
        const { delinquent } = deriveDelinquency({ ...input, pausePeriods: [pause] });
        expect(delinquent.delinquentDays).toBeGreaterThanOrEqual(0);
        expect(delinquent.delinquentDays).toBeLessThanOrEqual(delinquent.pastDueDays);
      }),
    );
  });
});
