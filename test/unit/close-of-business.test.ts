/**
 * The pure decisions of a loan's close-of-business step (domain/lending/close-of-business.ts; docs/processes.md
 * P7): which penalties, the classification change, the notices' covered days and the automatic charge-off date.
 */
import { describe, expect, it } from 'vitest';
import {
  automaticChargeOffDate,
  coveredDays,
  delinquencyChange,
  type InstallmentOwed,
  pauseActiveOn,
  penaltiesToAssess,
  percentOfMinor,
  repaymentNotices,
} from '../../domain/lending/close-of-business';

const installment = (
  n: number,
  dueDate: string,
  principal: bigint,
  interest = 0n,
  other = 0n,
): InstallmentOwed => ({
  installmentNumber: n,
  dueDate,
  principalOutstandingMinor: principal,
  interestOutstandingMinor: interest,
  outstandingMinor: principal + interest + other,
});

describe('percentOfMinor', () => {
  it('rounds HALF_EVEN to whole minor units', () => {
    expect(percentOfMinor(10_000n, '2')).toBe(200n);
    expect(percentOfMinor(12_345n, '1')).toBe(123n); // 123.45 → 123
    expect(percentOfMinor(250n, '1')).toBe(2n); // 2.5 → 2 (even)
    expect(percentOfMinor(350n, '1')).toBe(4n); // 3.5 → 4 (even)
    expect(percentOfMinor(10_001n, '1.5')).toBe(150n); // 150.015 → 150
    expect(percentOfMinor(10_000n, '0.000001')).toBe(0n);
  });
  it('refuses a malformed percentage', () => {
    expect(() => percentOfMinor(1n, '1.1234567')).toThrow(RangeError);
    expect(() => percentOfMinor(1n, '-1')).toThrow(RangeError);
  });
});

describe('penaltiesToAssess', () => {
  const base = {
    asOfDate: '2025-02-04',
    penaltyWaitPeriodDays: 2,
    digits: 2,
    charges: [{ chargeId: 7, amount: '10', chargeCalculationType: 1 as const }],
    installments: [installment(1, '2025-02-01', 10_000n, 300n, 200n), installment(2, '2025-03-01', 10_000n)],
    assessed: new Set<string>(),
    notBeforeDueDate: null,
  };
  it('assesses an installment overdue for more than the wait period, dated its due date', () => {
    expect(penaltiesToAssess(base)).toEqual([
      { chargeId: 7, installmentNumber: 1, dueDate: '2025-02-01', amountMinor: 1000n },
    ]);
  });
  it('waits while the installment is overdue for no more than the wait period', () => {
    expect(penaltiesToAssess({ ...base, asOfDate: '2025-02-03' })).toEqual([]);
  });
  it('assesses each (charge, installment) once', () => {
    expect(penaltiesToAssess({ ...base, assessed: new Set(['7/1']) })).toEqual([]);
  });
  it('skips paid installments and those due before a boarded loan started', () => {
    const paid = [installment(1, '2025-02-01', 0n)];
    expect(penaltiesToAssess({ ...base, installments: paid })).toEqual([]);
    expect(penaltiesToAssess({ ...base, notBeforeDueDate: '2025-02-02' })).toEqual([]);
    expect(penaltiesToAssess({ ...base, notBeforeDueDate: '2025-02-01' })).toHaveLength(1);
  });
  it('computes % of principal (2) and % of principal + interest (3), HALF_EVEN', () => {
    const charges = [
      { chargeId: 8, amount: '1.5', chargeCalculationType: 2 as const },
      { chargeId: 9, amount: '1.5', chargeCalculationType: 3 as const },
    ];
    expect(penaltiesToAssess({ ...base, charges }).map((p) => [p.chargeId, p.amountMinor])).toEqual([
      [8, 150n], // 1.5 % of 100.00
      [9, 154n], // 1.5 % of 103.00 = 1.545 → 1.54
    ]);
  });
});

describe('delinquency change', () => {
  it('changes only when the classification differs and no pause is active', () => {
    const derived = { classification: 'RANGE_1', rangeId: 3 };
    expect(delinquencyChange({ storedClassification: null, derived, pauseActive: false })).toEqual({
      previousClassification: 'NO_DELINQUENCY',
      classification: 'RANGE_1',
      rangeId: 3,
    });
    expect(delinquencyChange({ storedClassification: 'RANGE_1', derived, pauseActive: false })).toBeNull();
    expect(delinquencyChange({ storedClassification: null, derived, pauseActive: true })).toBeNull();
    expect(
      delinquencyChange({
        storedClassification: null,
        derived: { classification: 'NO_DELINQUENCY', rangeId: null },
        pauseActive: false,
      }),
    ).toBeNull();
  });
  it('a pause is active from its start to its end, both included', () => {
    const pauses = [{ startDate: '2025-02-10', endDate: '2025-02-20' }];
    expect(pauseActiveOn(pauses, '2025-02-09')).toBe(false);
    expect(pauseActiveOn(pauses, '2025-02-10')).toBe(true);
    expect(pauseActiveOn(pauses, '2025-02-20')).toBe(true);
    expect(pauseActiveOn(pauses, '2025-02-21')).toBe(false);
  });
});

describe('notices', () => {
  it('covers (lastClosed, D], from the disbursement when never closed, at most the last 7 days', () => {
    expect(
      coveredDays({
        businessDate: '2025-02-05',
        lastClosedBusinessDate: '2025-02-03',
        disbursedOnDate: '2025-01-01',
      }),
    ).toEqual(['2025-02-04', '2025-02-05']);
    expect(
      coveredDays({
        businessDate: '2025-01-03',
        lastClosedBusinessDate: null,
        disbursedOnDate: '2025-01-01',
      }),
    ).toEqual(['2025-01-01', '2025-01-02', '2025-01-03']);
    const long = coveredDays({
      businessDate: '2025-03-01',
      lastClosedBusinessDate: null,
      disbursedOnDate: '2025-01-01',
    });
    expect(long).toEqual([
      '2025-02-23',
      '2025-02-24',
      '2025-02-25',
      '2025-02-26',
      '2025-02-27',
      '2025-02-28',
      '2025-03-01',
    ]);
    expect(
      coveredDays({ businessDate: '2025-03-01', lastClosedBusinessDate: null, disbursedOnDate: null }),
    ).toEqual([]);
  });
  it('sends DUE dueDays before and OVERDUE overdueDays after an unpaid due date falling in the covered days', () => {
    const installments = [
      installment(1, '2025-02-01', 100n),
      installment(2, '2025-02-04', 100n),
      installment(3, '2025-02-06', 0n),
    ];
    const notices = repaymentNotices({
      days: ['2025-02-02', '2025-02-03'],
      dueDays: 1,
      overdueDays: 1,
      installments,
    });
    expect(notices.map((n) => [n.kind, n.installmentNumber, n.noticeDate])).toEqual([
      ['OVERDUE', 1, '2025-02-02'],
      ['DUE', 2, '2025-02-03'],
    ]);
  });
});

describe('automaticChargeOffDate', () => {
  const base = {
    chargedOff: false,
    chargeOffDaysPastDue: 30,
    delinquentDays: 35,
    oldestOverdueDueDate: '2025-02-01',
    graceDays: 0,
    pauses: [],
    asOfDate: '2025-03-08',
    notBeforeDate: null,
    lastMoneyDate: '2025-01-01',
  };
  it('dates it the first as-of date the delinquent days reached the threshold', () => {
    expect(automaticChargeOffDate(base)).toBe('2025-03-03'); // 2025-02-01 + 30
    expect(automaticChargeOffDate({ ...base, graceDays: 3, delinquentDays: 32 })).toBe('2025-03-06');
  });
  it('counts paused days, and never goes before the creation day or the last money movement', () => {
    const pauses = [{ startDate: '2025-02-10', endDate: '2025-02-13' }];
    expect(automaticChargeOffDate({ ...base, pauses, delinquentDays: 32 })).toBe('2025-03-06');
    expect(automaticChargeOffDate({ ...base, notBeforeDate: '2025-03-05' })).toBe('2025-03-05');
    expect(automaticChargeOffDate({ ...base, lastMoneyDate: '2025-03-04' })).toBe('2025-03-04');
    expect(automaticChargeOffDate({ ...base, lastMoneyDate: '2025-03-09' })).toBeNull();
  });
  it('is none below the threshold, without one, or once charged off', () => {
    expect(automaticChargeOffDate({ ...base, delinquentDays: 29 })).toBeNull();
    expect(automaticChargeOffDate({ ...base, chargeOffDaysPastDue: null })).toBeNull();
    expect(automaticChargeOffDate({ ...base, chargedOff: true })).toBeNull();
  });
});
