/**
 * Merchant-advance rules (domain/lending/merchant-advance.ts; docs/processes.md P6): holdback rates, the HALF_EVEN
 * calculated remittance at the currency's minor unit, period rules per frequency, the reconciliation rows and
 * status, and the balanced postings of an advance, a remittance and its reversal.
 */
import { describe, expect, it } from 'vitest';
import {
  advancePosting,
  calculatedRemittance,
  formatHoldbackRate,
  holdbackRateBasisPoints,
  periodEndOf,
  periodProblem,
  periodsOverlap,
  reconcile,
  remittancePosting,
  remittanceReversal,
} from '../../domain/lending/merchant-advance';

describe('holdback rate', () => {
  it('accepts decimals in (0, 1] with at most 4 fraction digits', () => {
    expect(holdbackRateBasisPoints('0.1')).toBe(1000n);
    expect(holdbackRateBasisPoints('0.0825')).toBe(825n);
    expect(holdbackRateBasisPoints('0.0001')).toBe(1n);
    expect(holdbackRateBasisPoints('1')).toBe(10000n);
    expect(holdbackRateBasisPoints('1.0000')).toBe(10000n);
    expect(formatHoldbackRate('0.1')).toBe('0.1000');
    expect(formatHoldbackRate('1')).toBe('1.0000');
  });

  it('refuses zero, above one, too many digits and malformed text', () => {
    for (const bad of [
      '0',
      '0.0000',
      '1.0001',
      '1.5',
      '2',
      '0.12345',
      '-0.1',
      '.1',
      '0.',
      '1e-1',
      ' 0.1',
      '',
    ]) {
      expect(holdbackRateBasisPoints(bad), bad).toBeNull();
    }
    expect(() => formatHoldbackRate('0')).toThrow(RangeError);
  });
});

describe('calculatedRemittance (HALF_EVEN to the minor unit)', () => {
  it('rounds ties to the even neighbour', () => {
    expect(calculatedRemittance('1000.05', '0.1', 'USD')).toBe('100.00'); // 100.005 → 100.00
    expect(calculatedRemittance('1000.15', '0.1', 'USD')).toBe('100.02'); // 100.015 → 100.02
    expect(calculatedRemittance('1000.25', '0.1', 'USD')).toBe('100.02'); // 100.025 → 100.02
    expect(calculatedRemittance('1000.35', '0.1', 'USD')).toBe('100.04'); // 100.035 → 100.04
    expect(calculatedRemittance('0.05', '0.1', 'USD')).toBe('0.00'); // 0.005 → 0.00
    expect(calculatedRemittance('0.15', '0.1', 'USD')).toBe('0.02'); // 0.015 → 0.02
  });

  it('rounds non-ties to the nearest', () => {
    expect(calculatedRemittance('1000.16', '0.1', 'USD')).toBe('100.02'); // 100.016
    expect(calculatedRemittance('1000.14', '0.1', 'USD')).toBe('100.01'); // 100.014
    expect(calculatedRemittance('123.45', '0.0825', 'USD')).toBe('10.18'); // 10.1846…
  });

  it('uses the currency minor unit (JPY 0, KWD 3) and accepts stored trailing zeros', () => {
    expect(calculatedRemittance('1000', '0.0825', 'JPY')).toBe('82'); // 82.5 → 82
    expect(calculatedRemittance('1010', '0.0825', 'JPY')).toBe('83'); // 83.325 → 83
    expect(calculatedRemittance('1000.005', '0.1', 'KWD')).toBe('100.000'); // 100.0005 → 100.000
    expect(calculatedRemittance('1000.015', '0.1', 'KWD')).toBe('100.002'); // 100.0015 → 100.002
    expect(calculatedRemittance('1000.050000', '0.1', 'USD')).toBe('100.00');
    expect(calculatedRemittance('0', '1', 'USD')).toBe('0.00');
    expect(calculatedRemittance('99.99', '1', 'USD')).toBe('99.99');
  });

  it('refuses over-precise amounts and bad rates', () => {
    expect(() => calculatedRemittance('1.001', '0.1', 'USD')).toThrow(RangeError);
    expect(() => calculatedRemittance('1.00', '0', 'USD')).toThrow(RangeError);
    expect(() => calculatedRemittance('1.00', '0.1', 'XXQ')).toThrow(RangeError);
  });
});

describe('periods', () => {
  it('DAILY periods are one day, WEEKLY periods seven days', () => {
    expect(periodEndOf('2025-03-03', 'DAILY')).toBe('2025-03-03');
    expect(periodEndOf('2025-02-25', 'WEEKLY')).toBe('2025-03-03');
    expect(periodEndOf('2024-02-26', 'WEEKLY')).toBe('2024-03-03'); // leap year
    expect(periodProblem('2025-03-03', '2025-03-03', 'DAILY')).toBeNull();
    expect(periodProblem('2025-03-03', '2025-03-09', 'WEEKLY')).toBeNull();
  });

  it('names the field that breaks the rule', () => {
    expect(periodProblem('2025-03-03', '2025-03-04', 'DAILY')?.parameterName).toBe('periodEnd');
    expect(periodProblem('2025-03-03', '2025-03-08', 'WEEKLY')?.parameterName).toBe('periodEnd');
    expect(periodProblem('2025-03-03', '2025-03-10', 'WEEKLY')?.parameterName).toBe('periodEnd');
    expect(periodProblem('2025-03-03', '2025-03-02', 'DAILY')?.message).toMatch(/not be before periodStart/);
    expect(periodProblem('2025-02-30', '2025-03-02', 'DAILY')?.parameterName).toBe('periodStart');
    expect(periodProblem('2025-03-03', 'tomorrow', 'DAILY')?.parameterName).toBe('periodEnd');
  });

  it('detects overlapping closed ranges', () => {
    const week = { periodStart: '2025-03-03', periodEnd: '2025-03-09' };
    expect(periodsOverlap(week, { periodStart: '2025-03-09', periodEnd: '2025-03-15' })).toBe(true);
    expect(periodsOverlap(week, { periodStart: '2025-03-10', periodEnd: '2025-03-16' })).toBe(false);
    expect(periodsOverlap(week, { periodStart: '2025-02-25', periodEnd: '2025-03-03' })).toBe(true);
    expect(periodsOverlap(week, { periodStart: '2025-02-24', periodEnd: '2025-03-02' })).toBe(false);
  });
});

describe('reconcile', () => {
  it('orders periods by start, counts only POSTED remittances, and is matched only when every difference is zero', () => {
    const result = reconcile(
      [
        {
          periodStart: '2025-03-04',
          periodEnd: '2025-03-04',
          reportedSales: '1000.150000',
          remittances: [
            { amount: '60.000000', status: 'POSTED' },
            { amount: '40.020000', status: 'POSTED' },
          ],
        },
        {
          periodStart: '2025-03-03',
          periodEnd: '2025-03-03',
          reportedSales: '1000.05',
          remittances: [{ amount: '100.00', status: 'POSTED' }],
        },
      ],
      '0.1000',
      'USD',
    );
    expect(result).toEqual({
      status: 'matched',
      periods: [
        {
          periodStart: '2025-03-03',
          periodEnd: '2025-03-03',
          reportedSales: '1000.05',
          calculatedRemittance: '100.00',
          settledRemittance: '100.00',
          postedRemittance: '100.00',
          difference: '0.00',
        },
        {
          periodStart: '2025-03-04',
          periodEnd: '2025-03-04',
          reportedSales: '1000.15',
          calculatedRemittance: '100.02',
          settledRemittance: '100.02',
          postedRemittance: '100.02',
          difference: '0.00',
        },
      ],
    });
    const unmatched = reconcile(
      [
        {
          periodStart: '2025-03-03',
          periodEnd: '2025-03-03',
          reportedSales: '1000.05',
          remittances: [{ amount: '100.00', status: 'RETURNED' }],
        },
        {
          periodStart: '2025-03-05',
          periodEnd: '2025-03-05',
          reportedSales: null,
          remittances: [{ amount: '5.00', status: 'POSTED' }],
        },
      ],
      '0.1',
      'USD',
    );
    expect(unmatched.status).toBe('unmatched');
    expect(unmatched.periods.map((p) => [p.postedRemittance, p.settledRemittance, p.difference])).toEqual([
      ['0.00', '0.00', '100.00'],
      ['5.00', '5.00', '-5.00'],
    ]);
    expect(reconcile([], '0.1', 'USD')).toEqual({ status: 'matched', periods: [] });
  });
});

describe('postings', () => {
  const sum = (lines: { debitMinor: bigint; creditMinor: bigint }[]) =>
    lines.reduce((s, l) => s + l.debitMinor - l.creditMinor, 0n);

  it('posts the advance with its deferred discount, balanced', () => {
    const posting = advancePosting('mca_x', {
      advanceAmount: '10000.00',
      purchasedAmount: '12500.00',
      currency: 'USD',
    });
    expect(posting.transactionRef).toBe('merchant-advance/mca_x');
    expect(posting.lines).toEqual([
      { accountCode: 'MERCHANT_ADVANCE_RECEIVABLE', debitMinor: 1_250_000n, creditMinor: 0n },
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: 0n, creditMinor: 1_000_000n },
      { accountCode: 'MERCHANT_DEFERRED_REVENUE', debitMinor: 0n, creditMinor: 250_000n },
    ]);
    expect(sum(posting.lines)).toBe(0n);
    expect(
      advancePosting('mca_x', { advanceAmount: '100', purchasedAmount: '100', currency: 'USD' }).lines,
    ).toHaveLength(2);
    expect(() =>
      advancePosting('mca_x', { advanceAmount: '100', purchasedAmount: '99', currency: 'USD' }),
    ).toThrow(RangeError);
  });

  it('posts a remittance and reverses it line by line', () => {
    const posting = remittancePosting('mca_x', 'mrem_y', '100.02', 'USD');
    const reversal = remittanceReversal('mca_x', 'mrem_y', '100.020000', 'USD');
    expect(posting.transactionRef).toBe('merchant-advance/mca_x/remittance/mrem_y');
    expect(reversal.transactionRef).toBe('merchant-advance/mca_x/remittance/mrem_y/reversal');
    expect(posting.lines).toEqual([
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: 10_002n, creditMinor: 0n },
      { accountCode: 'MERCHANT_ADVANCE_RECEIVABLE', debitMinor: 0n, creditMinor: 10_002n },
    ]);
    expect(reversal.lines).toEqual([
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: 0n, creditMinor: 10_002n },
      { accountCode: 'MERCHANT_ADVANCE_RECEIVABLE', debitMinor: 10_002n, creditMinor: 0n },
    ]);
    expect(sum([...posting.lines, ...reversal.lines])).toBe(0n);
    expect(() => remittancePosting('mca_x', 'mrem_y', '0', 'USD')).toThrow(RangeError);
  });
});
