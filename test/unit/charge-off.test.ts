/**
 * Charge-off rules (domain/lending/charge-off.ts) and its postings (domain/lending/ledger.ts `chargeOffPosting`,
 * `recoveryPosting`, `postingsForAllocation` with a charge-off).
 *
 * Oracles: hand-computed on loan A of allocation.test.ts (USD cents; 1000.00 lent on 2024-01-01; #1 300.00 principal
 * + 10.00 interest + 5.00 fee + 10.00 penalty, #2 330 + 7 + 5, #3 370 + 4 + 5): 325.00 paid on 2024-02-01 settles #1,
 * so a charge-off then records principal 700.00, interest 11.00, fees 10.00, penalties 0, amount 721.00; Fineract's
 * refusal order of `LoanWritePlatformServiceJpaRepositoryImpl.chargeOff`.
 */
import { describe, expect, it } from 'vitest';
import { allocatePayments } from '../../domain/lending/allocation/replay';
import type { InstallmentDue, MoneyEvent } from '../../domain/lending/allocation/types';
import { chargeOffPortions, chargeOffRefusal, isRecoveryPayment } from '../../domain/lending/charge-off';
import {
  assertBalanced,
  chargeOffPosting,
  diffPostings,
  journalLines,
  postingsForAllocation,
  trialBalance,
} from '../../domain/lending/ledger';
import { parseDecimalToMinor } from '../../domain/money';

const usd = (amount: string): bigint => parseDecimalToMinor(amount, 2);
const loanA: InstallmentDue[] = [
  ['2024-01-01', '2024-02-01', '300.00', '10.00', '5.00', '10.00'],
  ['2024-02-01', '2024-03-01', '330.00', '7.00', '5.00', '0.00'],
  ['2024-03-01', '2024-04-01', '370.00', '4.00', '5.00', '0.00'],
].map(([fromDate, dueDate, principal, interest, fee, penalty], index) => ({
  installmentNumber: index + 1,
  fromDate: fromDate!,
  dueDate: dueDate!,
  principalDueMinor: usd(principal!),
  interestDueMinor: usd(interest!),
  feeDueMinor: usd(fee!),
  penaltyDueMinor: usd(penalty!),
}));
const input = {
  currency: 'USD',
  installments: loanA,
  strategy: { code: 'advanced-payment-allocation-strategy' } as const,
};
const funding: MoneyEvent = {
  kind: 'DISBURSEMENT',
  id: 1,
  valueDate: '2024-01-01',
  amountMinor: usd('1000.00'),
};
const paid: MoneyEvent = { kind: 'PAYMENT', id: 1, valueDate: '2024-02-01', amountMinor: usd('325.00') };
const later: MoneyEvent = { kind: 'PAYMENT', id: 2, valueDate: '2024-03-10', amountMinor: usd('400.00') };

describe('chargeOffPortions', () => {
  it('records everything outstanding on the schedule, by component', () => {
    const portions = chargeOffPortions(allocatePayments({ ...input, events: [funding, paid] }));
    expect(portions).toEqual({
      amountMinor: usd('721.00'),
      principalMinor: usd('700.00'),
      interestMinor: usd('11.00'),
      feeMinor: usd('10.00'),
      penaltyMinor: 0n,
    });
  });

  it('is the whole loan with no payment', () => {
    const portions = chargeOffPortions(allocatePayments({ ...input, events: [funding] }));
    expect(portions).toMatchObject({ principalMinor: usd('1000.00'), amountMinor: usd('1046.00') });
  });
});

describe('chargeOffRefusal (Fineract chargeOff checks, in order)', () => {
  const ok = {
    status: 'ACTIVE',
    chargedOff: false,
    transactionDate: '2024-03-01',
    lastMoneyDate: '2024-02-01',
    today: '2024-03-05',
  };
  it.each([
    [{}, null],
    [{ transactionDate: '2024-02-01' }, null],
    [{ transactionDate: '2024-03-05' }, null],
    [{ lastMoneyDate: null }, null],
    [{ status: 'SUBMITTED', chargedOff: true }, 'error.msg.loan.is.not.active'],
    [{ status: 'CLOSED_OBLIGATIONS_MET' }, 'error.msg.loan.is.not.active'],
    [{ chargedOff: true, transactionDate: '2030-01-01' }, 'error.msg.loan.is.already.charged.off'],
    [{ transactionDate: '2024-01-31' }, 'error.msg.loan.charge.off.is.before.than.the.last.user.transaction'],
    [{ transactionDate: '2024-03-06' }, 'error.msg.loan.transaction.cannot.be.a.future.date'],
  ])('%o → %s', (change, code) => {
    expect(chargeOffRefusal({ ...ok, ...change })?.code ?? null).toBe(code);
  });
});

describe('isRecoveryPayment', () => {
  const chargeOff = { transactionDate: '2024-03-01', lastPaymentIdAtChargeOff: 4 };
  it.each([
    [{ paymentId: 5, valueDate: '2024-03-02' }, true],
    [{ paymentId: 5, valueDate: '2024-03-01' }, true],
    [{ paymentId: 4, valueDate: '2024-03-01' }, false],
    [{ paymentId: 9, valueDate: '2024-02-28' }, false],
  ])('%o → %s', (payment, expected) => {
    expect(isRecoveryPayment(payment, chargeOff)).toBe(expected);
  });
  it('counts every payment on the date as later when the loan had none', () => {
    expect(
      isRecoveryPayment(
        { paymentId: 1, valueDate: '2024-03-01' },
        { ...chargeOff, lastPaymentIdAtChargeOff: null },
      ),
    ).toBe(true);
  });
});

describe('charge-off postings', () => {
  it('books the principal only: Dr CREDIT_LOSS_EXPENSE / Cr LOAN_PORTFOLIO; nothing without principal', () => {
    const posting = chargeOffPosting(
      { id: 3, valueDate: '2024-03-01', principalMinor: usd('700.00') },
      'USD',
    )!;
    expect(posting.source).toEqual({ kind: 'CHARGE_OFF', id: 3 });
    expect(posting.lines).toEqual([
      { accountCode: 'CREDIT_LOSS_EXPENSE', debitMinor: 70_000n, creditMinor: 0n },
      { accountCode: 'LOAN_PORTFOLIO', debitMinor: 0n, creditMinor: 70_000n },
    ]);
    assertBalanced(posting);
    expect(chargeOffPosting({ id: 3, valueDate: '2024-03-01', principalMinor: 0n }, 'USD')).toBeNull();
  });

  it('posts a later payment whole to RECOVERY_INCOME, empties the portfolio, and the undo reverses the charge-off', () => {
    const before = allocatePayments({ ...input, events: [funding, paid] });
    const chargeOff = {
      chargeOff: { id: 3, valueDate: '2024-03-01', principalMinor: chargeOffPortions(before).principalMinor },
      recoveryPaymentIds: new Set([2]),
    };
    const journal = diffPostings([], postingsForAllocation(before));
    journal.push(
      ...diffPostings(
        journal,
        postingsForAllocation(before, { ...chargeOff, recoveryPaymentIds: new Set() }),
      ),
    );
    const after = allocatePayments({ ...input, events: [funding, paid, later] });
    const appended = diffPostings(journal, postingsForAllocation(after, chargeOff));
    expect(
      appended.map((e) => [
        e.transactionRef,
        e.lines.map((l) => [l.accountCode, l.debitMinor, l.creditMinor]),
      ]),
    ).toEqual([
      [
        'payment/2',
        [
          ['EXTERNAL_CLEARING', 40_000n, 0n],
          ['RECOVERY_INCOME', 0n, 40_000n],
        ],
      ],
    ]);
    journal.push(...appended);
    const balances = trialBalance(journalLines(journal));
    expect(balances.balanced).toBe(true);
    expect(balances.rows.find((r) => r.accountCode === 'LOAN_PORTFOLIO')?.balanceMinor).toBe(0n);
    expect(balances.rows.find((r) => r.accountCode === 'CREDIT_LOSS_EXPENSE')?.balanceMinor).toBe(70_000n);

    // undo (no recovery left): the charge-off leaves the input and its posting is reversed
    const undone = diffPostings(journal.slice(0, 3), postingsForAllocation(before));
    expect(undone.map((e) => [e.transactionRef, e.reversesTransactionRef])).toEqual([
      ['charge-off/3/reversal/1', 'charge-off/3'],
    ]);
  });
});
