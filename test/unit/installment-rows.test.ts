/**
 * `sameInstallmentRows` (db/queries/lending/installments.ts): when an approval may keep the installments its loan's
 * application stored in the same transaction (activities/lending/approve-loan.ts `approveLoanInTx`).
 */
import { describe, expect, it } from 'vitest';
import { type NewInstallmentRow, sameInstallmentRows } from '../../db/queries/lending/installments';

const row = (n: number, over: Partial<NewInstallmentRow> = {}): NewInstallmentRow => ({
  tenantId: 't',
  loanId: 7,
  installmentNumber: n,
  fromDate: `2025-0${n}-15`,
  dueDate: `2025-0${n + 1}-15`,
  principalDue: '100.00',
  interestDue: '12.00',
  feeChargesDue: '0.00',
  penaltyChargesDue: '0.00',
  ...over,
});

describe('sameInstallmentRows', () => {
  it('is true for the same rows in the same order', () => {
    expect(sameInstallmentRows([row(1), row(2)], [row(1), row(2)])).toBe(true);
    expect(sameInstallmentRows([], [])).toBe(true);
  });

  it('is false when a count, an order, an amount, a date or a key differs', () => {
    expect(sameInstallmentRows([row(1), row(2)], [row(1)])).toBe(false);
    expect(sameInstallmentRows([row(1), row(2)], [row(2), row(1)])).toBe(false);
    expect(sameInstallmentRows([row(1)], [row(1, { principalDue: '100.01' })])).toBe(false);
    expect(sameInstallmentRows([row(1)], [row(1, { dueDate: '2025-02-16' })])).toBe(false);
    expect(sameInstallmentRows([row(1)], [row(1, { loanId: 8 })])).toBe(false);
    expect(sameInstallmentRows([row(1)], [{ ...row(1), interestWaived: '0.00' }])).toBe(false);
  });

  it('compares amounts as written: 100.0 is not 100.00', () => {
    expect(sameInstallmentRows([row(1)], [row(1, { principalDue: '100.0' })])).toBe(false);
  });
});
