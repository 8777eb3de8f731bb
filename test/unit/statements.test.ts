/**
 * Statement timing and figures (domain/lending/statements.ts; docs/design.md §5 "Statements"; docs/processes.md P6).
 * Expected values are worked out by hand: DST in America/Los_Angeles 2026 starts 8 March (02:00 → 03:00) and ends
 * 1 November; statements are issued on due date − lead days, calendar days in the tenant's zone.
 */
import { describe, expect, it } from 'vitest';
import {
  type BalanceAt,
  installmentForStatement,
  latePaymentWarning,
  maskAccountNumber,
  paidToInstallmentMinor,
  statementAsOfDate,
  statementDateFor,
  statementDueDateOn,
  statementFigures,
  statementPeriodStart,
  statementSettingsOf,
  tenantStatementCycleWorkflowId,
} from '../../domain/lending/statements';

const zero: BalanceAt = {
  principalMinor: 0n,
  interestMinor: 0n,
  feeMinor: 0n,
  penaltyMinor: 0n,
  overpaymentMinor: 0n,
};

describe('statement timing', () => {
  it('adds the lead days in calendar days, across a month end and a leap day', () => {
    expect(statementDueDateOn('2026-01-31', 21)).toBe('2026-02-21');
    expect(statementDueDateOn('2026-02-10', 21)).toBe('2026-03-03');
    expect(statementDueDateOn('2028-02-10', 21)).toBe('2028-03-02');
    expect(statementDueDateOn('2026-12-20', 14)).toBe('2027-01-03');
    expect(statementDateFor('2026-03-31', 21)).toBe('2026-03-10');
    expect(statementDateFor('2026-03-01', 28)).toBe('2026-02-01');
  });

  it('takes the tenant-local date of an instant, so a DST change moves no statement date', () => {
    const zone = 'America/Los_Angeles';
    // 2026-03-08 07:30Z is 23:30 PST on 7 March; 2026-03-08 08:30Z is 01:30 PST on 8 March; 2026-03-09 06:30Z is
    // 23:30 PDT on 8 March (the 23-hour day): all three instants around the change land on the expected dates.
    expect(statementAsOfDate(Date.UTC(2026, 2, 8, 7, 30), zone)).toBe('2026-03-07');
    expect(statementAsOfDate(Date.UTC(2026, 2, 8, 8, 30), zone)).toBe('2026-03-08');
    expect(statementAsOfDate(Date.UTC(2026, 2, 9, 6, 30), zone)).toBe('2026-03-08');
    expect(statementAsOfDate(Date.UTC(2026, 2, 9, 7, 30), zone)).toBe('2026-03-09');
    // Due 29 March, 21 days ahead of 8 March whatever the offset change between them.
    expect(statementDueDateOn(statementAsOfDate(Date.UTC(2026, 2, 8, 20), zone), 21)).toBe('2026-03-29');
    // A zone ahead of UTC: 2026-10-31 23:30Z is already 1 November in Tokyo.
    expect(statementAsOfDate(Date.UTC(2026, 9, 31, 23, 30), 'Asia/Tokyo')).toBe('2026-11-01');
  });

  it('finds the installment due exactly lead days ahead, or none', () => {
    const rows = [
      { installmentNumber: 1, dueDate: '2026-02-28', dueMinor: 100n, settledMinor: 0n },
      { installmentNumber: 2, dueDate: '2026-03-31', dueMinor: 100n, settledMinor: 0n },
    ];
    expect(installmentForStatement(rows, '2026-02-07', 21)?.installmentNumber).toBe(1);
    expect(installmentForStatement(rows, '2026-03-10', 21)?.installmentNumber).toBe(2);
    expect(installmentForStatement(rows, '2026-03-09', 21)).toBeNull();
    expect(installmentForStatement(rows, '2026-03-17', 14)?.installmentNumber).toBe(2);
  });

  it('starts the period the day after the previous one, else at the disbursement', () => {
    expect(statementPeriodStart(null, '2026-01-15')).toBe('2026-01-15');
    expect(statementPeriodStart('2026-02-28', '2026-01-15')).toBe('2026-03-01');
    expect(statementPeriodStart('2028-02-28', '2028-01-15')).toBe('2028-02-29');
  });

  it('reads the settings of lmsConfig with the default lead of 21 days', () => {
    expect(statementSettingsOf({ statementEnabled: true })).toEqual({ enabled: true, leadDays: 21 });
    expect(statementSettingsOf({ statementEnabled: true, statementLeadDays: 14 })).toEqual({
      enabled: true,
      leadDays: 14,
    });
    expect(statementSettingsOf({ statementEnabled: false, statementLeadDays: 21 }).enabled).toBe(false);
    expect(statementSettingsOf(null)).toEqual({ enabled: false, leadDays: 21 });
  });

  it('refuses what is not a date or a lead', () => {
    expect(() => statementDueDateOn('2026-02-30', 21)).toThrow(RangeError);
    expect(() => statementDueDateOn('2026-02-10', 0)).toThrow(RangeError);
  });

  it('names a tenant run by its business key and masks account numbers', () => {
    expect(tenantStatementCycleWorkflowId('acme', '2026-03-10')).toBe('statement-cycle/acme/2026-03-10');
    expect(maskAccountNumber('LN-000123')).toBe('*****0123');
    expect(maskAccountNumber('12')).toBe('****12');
  });
});

describe('statement figures', () => {
  const base = {
    currency: 'USD',
    statementDate: '2026-03-10',
    dueDate: '2026-03-31',
    periodStart: '2026-02-08',
    installment: { installmentNumber: 2, dueDate: '2026-03-31', dueMinor: 44_424n, settledMinor: 0n },
    annualPercentageRate: '12.68',
  };

  it('balances: previous + disbursements + charges − payments − other credits = new, in minor units', () => {
    const figures = statementFigures({
      ...base,
      previous: { ...zero, principalMinor: 500_000n, interestMinor: 1_000n },
      current: { ...zero, principalMinor: 460_000n, interestMinor: 1_500n, feeMinor: 2_500n },
      pastDueMinor: 0n,
      payments: [
        {
          paymentId: 7,
          effectiveDate: '2026-02-28',
          amountMinor: 44_424n,
          principalMinor: 40_000n,
          interestMinor: 4_424n,
          feeMinor: 0n,
          penaltyMinor: 0n,
          overpaymentMinor: 0n,
        },
      ],
      fundings: [],
      lateFeeMinor: 2_500n,
    });
    expect(figures).toMatchObject({
      previousBalance: '5010.00',
      payments: '444.24',
      interestCharged: '49.24',
      feesCharged: '25.00',
      otherCredits: '0.00',
      newBalance: '4640.00',
      pastDue: '0.00',
      currentDue: '444.24',
      amountDue: '444.24',
      lateFee: '25.00',
      annualPercentageRate: '12.68',
    });
    expect(figures.latePaymentWarning).toContain('444.24 USD by 2026-03-31');
    expect(figures.latePaymentWarning).toContain('late fee of up to 25.00 USD');
    expect(figures.transactions).toEqual([
      {
        date: '2026-02-28',
        type: 'PAYMENT',
        description: 'Payment received, thank you',
        reference: 'payment/7',
        amount: '-444.24',
      },
    ]);
  });

  it('a first statement starts from zero with the disbursement, past due added to the current installment', () => {
    const figures = statementFigures({
      ...base,
      installment: { ...base.installment, settledMinor: 10_000n },
      previous: zero,
      current: { ...zero, principalMinor: 500_000n, interestMinor: 3_000n, overpaymentMinor: 0n },
      pastDueMinor: 5_000n,
      payments: [],
      fundings: [{ fundingId: 3, fundingDate: '2026-02-08', amountMinor: 500_000n }],
      lateFeeMinor: null,
    });
    expect(figures).toMatchObject({
      previousBalance: '0.00',
      disbursements: '5000.00',
      interestCharged: '30.00',
      newBalance: '5030.00',
      currentDue: '344.24',
      amountDue: '394.24',
      lateFee: null,
    });
    expect(figures.latePaymentWarning).not.toContain('late fee');
    expect(figures.transactions[0]).toMatchObject({ type: 'DISBURSEMENT', amount: '5000.00' });
  });

  it('an overpayment held lowers the balance and a fully paid installment owes nothing', () => {
    const figures = statementFigures({
      ...base,
      installment: { ...base.installment, settledMinor: 44_424n },
      previous: { ...zero, principalMinor: 10_000n },
      current: { ...zero, overpaymentMinor: 500n },
      pastDueMinor: 0n,
      payments: [
        {
          paymentId: 9,
          effectiveDate: '2026-03-01',
          amountMinor: 10_500n,
          principalMinor: 10_000n,
          interestMinor: 0n,
          feeMinor: 0n,
          penaltyMinor: 0n,
          overpaymentMinor: 500n,
        },
      ],
      fundings: [],
      lateFeeMinor: null,
    });
    expect(figures).toMatchObject({ newBalance: '-5.00', otherCredits: '0.00', amountDue: '0.00' });
    // no negative zero anywhere in the statement's JSON (zero credits, zero due): "-0.00" would print as such
    expect(JSON.stringify(figures)).not.toMatch(/"-0(\.0+)?"/);
  });

  it('counts what the allocations paid to one installment, overpayments left out', () => {
    const toMinor = (amount: string) => BigInt(amount.replace('.', ''));
    const allocations = [
      [
        { installmentNumber: 1, component: 'INTEREST', amount: '3.00' },
        { installmentNumber: 1, component: 'PRINCIPAL', amount: '100.00' },
        { installmentNumber: 2, component: 'FEE', amount: '2.00' },
      ],
      [
        { installmentNumber: 2, component: 'PRINCIPAL', amount: '48.00' },
        { installmentNumber: null, component: 'OVERPAYMENT', amount: '1.00' },
      ],
    ];
    expect(paidToInstallmentMinor(allocations, 1, toMinor)).toBe(10_300n);
    expect(paidToInstallmentMinor(allocations, 2, toMinor)).toBe(5_000n);
    expect(paidToInstallmentMinor(allocations, 3, toMinor)).toBe(0n);
  });

  it('words the warning with and without a late fee', () => {
    expect(latePaymentWarning('10.00', 'USD', '2026-03-31', '15.00')).toBe(
      'Late payment warning: if we do not receive your payment of 10.00 USD by 2026-03-31, you may have to pay a late fee of up to 15.00 USD.',
    );
    expect(latePaymentWarning('10.00', 'USD', '2026-03-31', null)).toContain('past due');
  });
});
