/**
 * The daily reconciliation's comparison (domain/payments/daily-reconciliation.ts) on hand-built fixtures: each
 * exception type, and the non-exceptions (a matched settlement, a matched return, a settlement in flight, lines
 * and intents outside the range), the date a run compares, and the counts.
 */
import { describe, expect, it } from 'vitest';
import {
  compareSettlements,
  countFindingsByType,
  type IntentSnapshot,
  reconciliationDateOf,
  type SettlementLine,
} from '../../domain/payments/daily-reconciliation';

const day = '2026-11-20';
const range = { from: day, to: day };

function settled(paymentId: number, overrides: Partial<SettlementLine> = {}): SettlementLine {
  return {
    providerRef: `sbx_ach_ref${String.fromCharCode(96 + paymentId)}`,
    paymentId,
    status: 'SETTLED',
    amount: '100.00',
    currency: 'USD',
    settledOn: day,
    ...overrides,
  };
}

function returned(paymentId: number, overrides: Partial<SettlementLine> = {}): SettlementLine {
  return settled(paymentId, {
    status: 'RETURNED',
    settledOn: '2026-11-18',
    returnCode: 'R01',
    returnedOn: day,
    ...overrides,
  });
}

function intent(paymentId: number, overrides: Partial<IntentSnapshot> = {}): IntentSnapshot {
  return {
    paymentId,
    status: 'POSTED',
    amount: '100.000000',
    currency: 'USD',
    providerRef: `sbx_ach_ref${String.fromCharCode(96 + paymentId)}`,
    settledOn: day,
    returnedOn: null,
    ...overrides,
  };
}

describe('compareSettlements: non-exceptions', () => {
  it('finds nothing for a settlement matching a POSTED intent (amount scales differ)', () => {
    expect(compareSettlements({ ...range, lines: [settled(1)], intents: [intent(1)] })).toEqual([]);
  });

  it('finds nothing for a return matching a RETURNED intent', () => {
    const lines = [returned(2)];
    const intents = [intent(2, { status: 'RETURNED', settledOn: '2026-11-18', returnedOn: day })];
    expect(compareSettlements({ ...range, lines, intents })).toEqual([]);
  });

  it('finds nothing for a settlement and its same-day return of a RETURNED intent', () => {
    const lines = [settled(3), returned(3, { settledOn: day })];
    const intents = [intent(3, { status: 'RETURNED', returnedOn: day })];
    expect(compareSettlements({ ...range, lines, intents })).toEqual([]);
  });

  it('leaves a settlement in flight (intent CREATED or SUBMITTED) to the workflow', () => {
    const lines = [settled(4), settled(5, { amount: '80.00' })];
    const intents = [
      intent(4, { status: 'SUBMITTED', settledOn: null }),
      intent(5, { status: 'CREATED', settledOn: null, providerRef: null }),
    ];
    expect(compareSettlements({ ...range, lines, intents })).toEqual([]);
  });

  it('ignores FAILED lines, RETURNED lines without an intent, and dates outside the range', () => {
    const lines: SettlementLine[] = [
      settled(6, { status: 'FAILED', settledOn: null }),
      returned(7),
      settled(8, { settledOn: '2026-11-19' }),
    ];
    const intents = [
      intent(9, { settledOn: '2026-11-21' }),
      intent(10, { status: 'SUBMITTED', settledOn: null }),
    ];
    expect(compareSettlements({ ...range, lines, intents })).toEqual([]);
  });
});

describe('compareSettlements: exceptions', () => {
  it('UNMATCHED_SETTLEMENT on the rail settlement when no intent has the paymentId', () => {
    const findings = compareSettlements({ ...range, lines: [settled(11, { amount: '42.50' })], intents: [] });
    expect(findings).toEqual([
      {
        exceptionType: 'UNMATCHED_SETTLEMENT',
        targetType: 'RAIL_SETTLEMENT',
        targetRef: 'sbx_ach_refk',
        detail: {
          providerRef: 'sbx_ach_refk',
          reason: 'NO_MATCHING_INTENT',
          settledAmount: '42.50',
          currency: 'USD',
          settledOn: day,
          paymentId: '11',
        },
      },
    ]);
  });

  it('UNMATCHED_SETTLEMENT on the rail settlement when the providerRef is not the intent’s', () => {
    const findings = compareSettlements({
      ...range,
      lines: [settled(12, { providerRef: 'sbx_ach_other' })],
      intents: [intent(12, { status: 'SUBMITTED', settledOn: null })],
    });
    expect(findings).toMatchObject([
      { exceptionType: 'UNMATCHED_SETTLEMENT', targetType: 'RAIL_SETTLEMENT', targetRef: 'sbx_ach_other' },
    ]);
  });

  it('UNMATCHED_SETTLEMENT on the intent when the settled amount differs from what we posted', () => {
    const findings = compareSettlements({
      ...range,
      lines: [settled(13, { amount: '99.99' })],
      intents: [intent(13)],
    });
    expect(findings).toEqual([
      {
        exceptionType: 'UNMATCHED_SETTLEMENT',
        targetType: 'PAYMENT_INTENT',
        targetRef: '13',
        detail: {
          providerRef: 'sbx_ach_refm',
          reason: 'AMOUNT_DIFFERS',
          settledAmount: '99.99',
          currency: 'USD',
          postedAmount: '100.000000',
          postedCurrency: 'USD',
          settledOn: day,
        },
      },
    ]);
  });

  it('UNMATCHED_SETTLEMENT on the intent when money settled for a FAILED or CANCELLED intent', () => {
    const findings = compareSettlements({
      ...range,
      lines: [settled(14), settled(15)],
      intents: [intent(14, { status: 'FAILED', settledOn: null }), intent(15, { status: 'CANCELLED' })],
    });
    expect(findings.map((f) => [f.exceptionType, f.targetRef, f.detail.reason])).toEqual([
      ['UNMATCHED_SETTLEMENT', '14', 'INTENT_FAILED'],
      ['UNMATCHED_SETTLEMENT', '15', 'INTENT_CANCELLED'],
    ]);
  });

  it('POSTED_NOT_SETTLED for a POSTED intent settled in the range without a SETTLED line', () => {
    const findings = compareSettlements({ ...range, lines: [], intents: [intent(16, { amount: '55.5' })] });
    expect(findings).toEqual([
      {
        exceptionType: 'POSTED_NOT_SETTLED',
        targetType: 'PAYMENT_INTENT',
        targetRef: '16',
        detail: {
          providerRef: 'sbx_ach_refp',
          reason: 'NO_SETTLEMENT_REPORTED',
          postedAmount: '55.5',
          currency: 'USD',
          settledOn: day,
        },
      },
    ]);
  });

  it('POSTED_NOT_SETTLED when the only line for the paymentId carries another providerRef', () => {
    const findings = compareSettlements({
      ...range,
      lines: [settled(17, { providerRef: 'sbx_ach_stranger' })],
      intents: [intent(17)],
    });
    expect(findings.map((f) => [f.exceptionType, f.targetType, f.targetRef])).toEqual([
      ['UNMATCHED_SETTLEMENT', 'RAIL_SETTLEMENT', 'sbx_ach_stranger'],
      ['POSTED_NOT_SETTLED', 'PAYMENT_INTENT', '17'],
    ]);
  });

  it('RETURN_NOT_REVERSED for a RETURNED line of an intent we still show POSTED', () => {
    const findings = compareSettlements({
      ...range,
      lines: [returned(18, { returnCode: 'R10' })],
      intents: [intent(18, { settledOn: '2026-11-18' })],
    });
    expect(findings).toEqual([
      {
        exceptionType: 'RETURN_NOT_REVERSED',
        targetType: 'PAYMENT_INTENT',
        targetRef: '18',
        detail: {
          providerRef: 'sbx_ach_refr',
          reason: 'RETURNED_AT_RAIL_POSTED_HERE',
          returnCode: 'R10',
          returnedOn: day,
          returnedAmount: '100.00',
          currency: 'USD',
        },
      },
    ]);
  });

  it('orders findings by type and counts them; a repeated line gives one finding', () => {
    const lines = [returned(19), settled(20), settled(20)];
    const intents = [intent(19, { settledOn: '2026-11-18' }), intent(21)];
    const findings = compareSettlements({ ...range, lines, intents });
    expect(findings.map((f) => f.exceptionType)).toEqual([
      'UNMATCHED_SETTLEMENT',
      'POSTED_NOT_SETTLED',
      'RETURN_NOT_REVERSED',
    ]);
    expect(countFindingsByType(findings)).toEqual({
      UNMATCHED_SETTLEMENT: 1,
      POSTED_NOT_SETTLED: 1,
      RETURN_NOT_REVERSED: 1,
    });
    expect(countFindingsByType([])).toEqual({
      UNMATCHED_SETTLEMENT: 0,
      POSTED_NOT_SETTLED: 0,
      RETURN_NOT_REVERSED: 0,
    });
  });

  it('refuses a range that is not one of ISO dates', () => {
    expect(() => compareSettlements({ from: day, to: '2026-11-19', lines: [], intents: [] })).toThrow(
      RangeError,
    );
    expect(() => compareSettlements({ from: 'yesterday', to: day, lines: [], intents: [] })).toThrow(
      RangeError,
    );
  });
});

describe('reconciliationDateOf', () => {
  it('is the day before the run’s date in New York', () => {
    // 06:00 EST on 2026-11-23 is 11:00 UTC.
    expect(reconciliationDateOf(Date.UTC(2026, 10, 23, 11, 0))).toBe('2026-11-22');
    // 01:00 UTC on 2026-11-23 is still 2026-11-22 in New York.
    expect(reconciliationDateOf(Date.UTC(2026, 10, 23, 1, 0))).toBe('2026-11-21');
    // 06:00 EDT on 2026-03-09 (after the DST change) is 10:00 UTC.
    expect(reconciliationDateOf(Date.UTC(2026, 2, 9, 10, 0))).toBe('2026-03-08');
  });
});
