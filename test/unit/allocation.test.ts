/**
 * Payment allocation (domain/lending/allocation/).
 *
 * Oracles:
 * - Hand-computed: the strategies of docs/design.md §5 and Fineract (`mifos-standard-strategy`,
 *   `advanced-payment-allocation-strategy` horizontal and vertical, the three future-installment rules, a custom
 *   rule order), partial payments, an exact payoff, an overpayment, a payment in advance, a past-due payment, a
 *   back-dated payment, tranches, and the outstanding summary; the arithmetic is in the comments (USD, cents).
 * - Properties (fast-check): money is conserved, nothing is negative, no component is paid beyond what is due,
 *   principal never exceeds what was disbursed by then, the allocation order of each strategy is respected (a
 *   slot receives money only when every slot of higher priority is full afterwards), overpayment only when
 *   nothing is left, obligationsMetOnDate agrees with the outstanding, and any input order of the events gives
 *   the result of date order.
 * - Negative space: the RangeErrors of the contract.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../domain/calendar';
import { paymentAllocationPayload } from '../../domain/lending/allocation/payload';
import { allocatePayments, installmentsFromSchedule } from '../../domain/lending/allocation/replay';
import { outstandingSummary } from '../../domain/lending/allocation/summary';
import {
  type AllocationComponent,
  type AllocationInput,
  type AllocationResult,
  type AllocationStrategy,
  coveredConsumerPaymentAllocation,
  type FutureInstallmentAllocationRule,
  type InstallmentDue,
  type MoneyEvent,
  type PaymentAllocationRule,
  paymentAllocationRules,
} from '../../domain/lending/allocation/types';
import { generateSchedule } from '../../domain/lending/schedule';
import { parseDecimalToMinor } from '../../domain/money';

// ---- fixtures -------------------------------------------------------------------------------------------------

/** Dollars → cents. */
const usd = (amount: string): bigint => parseDecimalToMinor(amount, 2);

const installment = (
  installmentNumber: number,
  fromDate: string,
  dueDate: string,
  principal: string,
  interest: string,
  fee: string,
  penalty: string,
): InstallmentDue => ({
  installmentNumber,
  fromDate,
  dueDate,
  principalDueMinor: usd(principal),
  interestDueMinor: usd(interest),
  feeDueMinor: usd(fee),
  penaltyDueMinor: usd(penalty),
});

/**
 * Loan A: 1000.00 disbursed 2024-01-01, three monthly installments (total 1046.00).
 *   #1 due 2024-02-01: principal 300.00, interest 10.00, fee 5.00, penalty 10.00 = 325.00
 *   #2 due 2024-03-01: principal 330.00, interest  7.00, fee 5.00               = 342.00
 *   #3 due 2024-04-01: principal 370.00, interest  4.00, fee 5.00               = 379.00
 */
const loanA: InstallmentDue[] = [
  installment(1, '2024-01-01', '2024-02-01', '300.00', '10.00', '5.00', '10.00'),
  installment(2, '2024-02-01', '2024-03-01', '330.00', '7.00', '5.00', '0.00'),
  installment(3, '2024-03-01', '2024-04-01', '370.00', '4.00', '5.00', '0.00'),
];

const disbursement = (id: number, valueDate: string, amount: string): MoneyEvent => ({
  kind: 'DISBURSEMENT',
  id,
  valueDate,
  amountMinor: usd(amount),
});
const payment = (id: number, valueDate: string, amount: string): MoneyEvent => ({
  kind: 'PAYMENT',
  id,
  valueDate,
  amountMinor: usd(amount),
});

const mifos: AllocationStrategy = { code: 'mifos-standard-strategy' };
const advanced = (
  options: {
    future?: FutureInstallmentAllocationRule;
    processing?: 'HORIZONTAL' | 'VERTICAL';
    rules?: readonly PaymentAllocationRule[];
  } = {},
): AllocationStrategy => ({
  code: 'advanced-payment-allocation-strategy',
  loanScheduleProcessingType: options.processing ?? 'HORIZONTAL',
  paymentAllocation: [
    {
      transactionType: 'DEFAULT',
      paymentAllocationOrder: (
        options.rules ??
        coveredConsumerPaymentAllocation[0]!.paymentAllocationOrder.map((item) => item.paymentAllocationRule)
      ).map((paymentAllocationRule, index) => ({ paymentAllocationRule, order: index + 1 })),
      futureInstallmentAllocationRule: options.future ?? 'NEXT_INSTALLMENT',
    },
  ],
});
const coveredConsumer: AllocationStrategy = { code: 'advanced-payment-allocation-strategy' };

const allocateA = (strategy: AllocationStrategy, ...payments: MoneyEvent[]): AllocationResult =>
  allocatePayments({
    currency: 'USD',
    installments: loanA,
    events: [disbursement(1, '2024-01-01', '1000.00'), ...payments],
    strategy,
  });

/** Lines of a payment as [installment, component, dollars] for compact assertions. */
const linesOf = (result: AllocationResult, paymentId: number): [number | null, string, string][] => {
  const allocation = result.payments.find((p) => p.paymentId === paymentId);
  if (!allocation) throw new Error(`no payment ${paymentId}`);
  return allocation.lines.map((line) => [
    line.installmentNumber,
    line.component,
    (Number(line.amountMinor) / 100).toFixed(2), // display only; amounts stay bigint in the code under test
  ]);
};

// ---- hand-computed examples -----------------------------------------------------------------------------------

describe('advanced-payment-allocation-strategy, COVERED_CONSUMER default (docs/design.md §5)', () => {
  it('the default order is past-due, due, in-advance × interest, principal, fee, penalty, next installment', () => {
    const [set] = coveredConsumerPaymentAllocation;
    expect(set?.transactionType).toBe('DEFAULT');
    expect(set?.futureInstallmentAllocationRule).toBe('NEXT_INSTALLMENT');
    expect(set?.paymentAllocationOrder.map((i) => `${i.order}:${i.paymentAllocationRule}`)).toEqual([
      '1:PAST_DUE_INTEREST',
      '2:PAST_DUE_PRINCIPAL',
      '3:PAST_DUE_FEE',
      '4:PAST_DUE_PENALTY',
      '5:DUE_INTEREST',
      '6:DUE_PRINCIPAL',
      '7:DUE_FEE',
      '8:DUE_PENALTY',
      '9:IN_ADVANCE_INTEREST',
      '10:IN_ADVANCE_PRINCIPAL',
      '11:IN_ADVANCE_FEE',
      '12:IN_ADVANCE_PENALTY',
    ]);
  });

  it('past due, horizontal: the oldest installment in full, then the next one', () => {
    // 400.00 on 2024-03-10: #1 and #2 are past due.
    // #1: interest 10 + principal 300 + fee 5 + penalty 10 = 325 → 75 left; #2: interest 7, principal 68.
    const result = allocateA(coveredConsumer, payment(1, '2024-03-10', '400.00'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '300.00'],
      [1, 'FEE', '5.00'],
      [1, 'PENALTY', '10.00'],
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '68.00'],
    ]);
    const [p] = result.payments;
    expect([p?.principalMinor, p?.interestMinor, p?.feeMinor, p?.penaltyMinor, p?.overpaymentMinor]).toEqual([
      usd('368.00'),
      usd('17.00'),
      usd('5.00'),
      usd('10.00'),
      0n,
    ]);
    expect(result.installments.map((i) => i.obligationsMetOnDate)).toEqual(['2024-03-10', null, null]);
    expect(result.installments[1]?.outstandingMinor).toBe(usd('267.00')); // 342 − 75
  });

  it('past due, vertical: each rule across every past-due installment before the next rule', () => {
    // PAST_DUE_INTEREST: #1 10, #2 7 → 383 left; PAST_DUE_PRINCIPAL: #1 300, #2 83 → 0 left.
    const result = allocateA(advanced({ processing: 'VERTICAL' }), payment(1, '2024-03-10', '400.00'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'INTEREST', '10.00'],
      [2, 'INTEREST', '7.00'],
      [1, 'PRINCIPAL', '300.00'],
      [2, 'PRINCIPAL', '83.00'],
    ]);
    expect(result.installments.map((i) => i.obligationsMetOnDate)).toEqual([null, null, null]);
  });

  it('on the due date: the due installment exactly', () => {
    // 325.00 on 2024-02-01 = #1 in full (due today): interest 10, principal 300, fee 5, penalty 10.
    const result = allocateA(coveredConsumer, payment(1, '2024-02-01', '325.00'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '300.00'],
      [1, 'FEE', '5.00'],
      [1, 'PENALTY', '10.00'],
    ]);
    expect(result.installments.map((i) => i.obligationsMetOnDate)).toEqual(['2024-02-01', null, null]);
  });

  it('partial payments on one day are applied in id order and complete the installment together', () => {
    // id 1: 100.00 → #1 interest 10, principal 90. id 2: 225.00 → #1 principal 210, fee 5, penalty 10.
    const events = [payment(2, '2024-02-01', '225.00'), payment(1, '2024-02-01', '100.00')];
    const result = allocateA(coveredConsumer, ...events);
    expect(result.payments.map((p) => p.paymentId)).toEqual([1, 2]);
    expect(linesOf(result, 1)).toEqual([
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '90.00'],
    ]);
    expect(linesOf(result, 2)).toEqual([
      [1, 'PRINCIPAL', '210.00'],
      [1, 'FEE', '5.00'],
      [1, 'PENALTY', '10.00'],
    ]);
    expect(result.installments[0]).toMatchObject({
      principalPaidMinor: usd('300.00'),
      outstandingMinor: 0n,
      obligationsMetOnDate: '2024-02-01',
    });
  });

  it('a payment before any due date goes to the next installment, not the last (16 CFR §444.4)', () => {
    // 50.00 on 2024-01-15: nothing past due or due; in advance → #1: interest 10, principal 40.
    const result = allocateA(coveredConsumer, payment(1, '2024-01-15', '50.00'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '40.00'],
    ]);
    // LAST_INSTALLMENT would take it to #3: interest 4, principal 46.
    const last = allocateA(advanced({ future: 'LAST_INSTALLMENT' }), payment(1, '2024-01-15', '50.00'));
    expect(linesOf(last, 1)).toEqual([
      [3, 'INTEREST', '4.00'],
      [3, 'PRINCIPAL', '46.00'],
    ]);
    // NEXT_LAST_INSTALLMENT: 2024-01-15 lies in #1's period (2024-01-01, 2024-02-01] → #1 as NEXT.
    const nextLast = allocateA(
      advanced({ future: 'NEXT_LAST_INSTALLMENT' }),
      payment(1, '2024-01-15', '50.00'),
    );
    expect(linesOf(nextLast, 1)).toEqual(linesOf(result, 1));
  });

  it('in advance beyond the next installment: NEXT fills installments in order, NEXT_LAST the current then the last', () => {
    // 400.00 on 2024-02-01: #1 is due (325) → 75 in advance.
    // NEXT: #2 interest 7, principal 68.
    const next = allocateA(coveredConsumer, payment(1, '2024-02-01', '400.00'));
    expect(linesOf(next, 1).slice(4)).toEqual([
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '68.00'],
    ]);
    // NEXT_LAST: #2's period starts on 2024-02-01, so no period holds the payment date → the last: #3 interest 4,
    // principal 71 (Fineract ProgressiveLoanTransactionProcessorNextLastTest, "repayment on due date").
    const nextLast = allocateA(
      advanced({ future: 'NEXT_LAST_INSTALLMENT' }),
      payment(1, '2024-02-01', '400.00'),
    );
    expect(linesOf(nextLast, 1).slice(4)).toEqual([
      [3, 'INTEREST', '4.00'],
      [3, 'PRINCIPAL', '71.00'],
    ]);
    // NEXT_LAST on 2024-02-15 with #1 paid: #2 holds the date → #2 in full (342), then #3: interest 4, principal 54.
    const current = allocateA(
      advanced({ future: 'NEXT_LAST_INSTALLMENT' }),
      payment(1, '2024-02-01', '325.00'),
      payment(2, '2024-02-15', '400.00'),
    );
    expect(linesOf(current, 2)).toEqual([
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '330.00'],
      [2, 'FEE', '5.00'],
      [3, 'INTEREST', '4.00'],
      [3, 'PRINCIPAL', '54.00'],
    ]);
  });

  it('an exact payoff pays everything and leaves no overpayment', () => {
    // 1046.00 on 2024-04-01 = 325 + 342 + 379: #1, #2 past due, #3 due.
    const result = allocateA(coveredConsumer, payment(1, '2024-04-01', '1046.00'));
    expect(result.payments[0]?.overpaymentMinor).toBe(0n);
    expect(result.overpaymentMinor).toBe(0n);
    expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
    expect(result.installments.map((i) => i.obligationsMetOnDate)).toEqual([
      '2024-04-01',
      '2024-04-01',
      '2024-04-01',
    ]);
    expect(linesOf(result, 1).at(-1)).toEqual([3, 'FEE', '5.00']);
  });

  it('an amount beyond everything due is an overpayment line of its own', () => {
    // 1100.00 on 2024-04-02: 1046.00 allocated, 54.00 over.
    const result = allocateA(coveredConsumer, payment(1, '2024-04-02', '1100.00'));
    expect(linesOf(result, 1).at(-1)).toEqual([null, 'OVERPAYMENT', '54.00']);
    expect(result.payments[0]?.overpaymentMinor).toBe(usd('54.00'));
    expect(result.overpaymentMinor).toBe(usd('54.00'));
  });

  it('a custom order (Fineract’s own default: penalty, fee, principal, interest)', () => {
    // 20.00 on 2024-03-10 → #1 past due: penalty 10, fee 5, principal 5 (interest untouched).
    const fineractDefault = [...paymentAllocationRules];
    const result = allocateA(advanced({ rules: fineractDefault }), payment(1, '2024-03-10', '20.00'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'PENALTY', '10.00'],
      [1, 'FEE', '5.00'],
      [1, 'PRINCIPAL', '5.00'],
    ]);
    // The COVERED_CONSUMER default pays interest 10, principal 10 instead.
    expect(linesOf(allocateA(coveredConsumer, payment(1, '2024-03-10', '20.00')), 1)).toEqual([
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '10.00'],
    ]);
  });

  it('a custom order that serves the due installment before past-due ones', () => {
    // 20.00 on 2024-03-01 with DUE_* first: #2 (due today) interest 7, principal 13; #1 (past due) nothing.
    const rules: PaymentAllocationRule[] = ['DUE', 'PAST_DUE', 'IN_ADVANCE'].flatMap((due) =>
      ['INTEREST', 'PRINCIPAL', 'FEE', 'PENALTY'].map((c) => `${due}_${c}` as PaymentAllocationRule),
    );
    const result = allocateA(advanced({ rules }), payment(1, '2024-03-01', '20.00'));
    expect(linesOf(result, 1)).toEqual([
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '13.00'],
    ]);
  });

  it('REPAYMENT rules win over DEFAULT; the order field, not the array position, decides', () => {
    const order = (rules: readonly PaymentAllocationRule[]) =>
      rules.map((paymentAllocationRule, index) => ({ paymentAllocationRule, order: index + 1 })).reverse();
    const strategy: AllocationStrategy = {
      code: 'advanced-payment-allocation-strategy',
      paymentAllocation: [
        {
          transactionType: 'DEFAULT',
          paymentAllocationOrder: coveredConsumerPaymentAllocation[0]!.paymentAllocationOrder,
        },
        { transactionType: 'REPAYMENT', paymentAllocationOrder: order(paymentAllocationRules) },
      ],
    };
    expect(linesOf(allocateA(strategy, payment(1, '2024-03-10', '20.00')), 1)).toEqual([
      [1, 'PENALTY', '10.00'],
      [1, 'FEE', '5.00'],
      [1, 'PRINCIPAL', '5.00'],
    ]);
  });

  it('a back-dated payment re-allocates the later ones as in date order', () => {
    // Recorded: A = 400.00 on 2024-03-10 (id 1), then B = 325.00 back-dated to 2024-02-01 (id 2).
    // Date order: B pays #1 in full on its due date. A then finds #2 past due: interest 7, principal 330, fee 5
    // (342) → 58 in advance to #3: interest 4, principal 54.
    const result = allocateA(
      coveredConsumer,
      payment(1, '2024-03-10', '400.00'),
      payment(2, '2024-02-01', '325.00'),
    );
    expect(result.payments.map((p) => p.paymentId)).toEqual([2, 1]);
    expect(linesOf(result, 2)).toEqual([
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '300.00'],
      [1, 'FEE', '5.00'],
      [1, 'PENALTY', '10.00'],
    ]);
    expect(linesOf(result, 1)).toEqual([
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '330.00'],
      [2, 'FEE', '5.00'],
      [3, 'INTEREST', '4.00'],
      [3, 'PRINCIPAL', '54.00'],
    ]);
    expect(result.installments.map((i) => i.obligationsMetOnDate)).toEqual([
      '2024-02-01',
      '2024-03-10',
      null,
    ]);
  });
});

describe('mifos-standard-strategy', () => {
  it('installments oldest first, each: penalty, fee, interest, principal', () => {
    // 400.00 on 2024-03-10: #1 penalty 10, fee 5, interest 10, principal 300 (325) → 75; #2 fee 5, interest 7,
    // principal 63.
    const result = allocateA(mifos, payment(1, '2024-03-10', '400.00'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'PENALTY', '10.00'],
      [1, 'FEE', '5.00'],
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '300.00'],
      [2, 'FEE', '5.00'],
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '63.00'],
    ]);
  });

  it('ignores due dates: an early payment still goes to the oldest installment', () => {
    // 20.00 on 2024-01-02: #1 penalty 10, fee 5, interest 5.
    expect(linesOf(allocateA(mifos, payment(1, '2024-01-02', '20.00')), 1)).toEqual([
      [1, 'PENALTY', '10.00'],
      [1, 'FEE', '5.00'],
      [1, 'INTEREST', '5.00'],
    ]);
  });

  it('overpays only beyond the whole loan', () => {
    const result = allocateA(mifos, payment(1, '2024-04-01', '1046.01'));
    expect(linesOf(result, 1).at(-1)).toEqual([null, 'OVERPAYMENT', '0.01']);
    expect(result.installments.every((i) => i.obligationsMetOnDate === '2024-04-01')).toBe(true);
  });

  it('a payment of exactly the payoff pays the loan off: later interest, fees and penalties are waived', () => {
    // 1000.32 on 2024-01-02. Payoff that day: principal 1000.00 + #1 interest accrued for 1 of 31 days,
    // 10.00 × 1 / 31 = 0.3226 → 0.32 = 1000.32. It pays, in Mifos order, #1 interest 0.32, principal 300; #2
    // principal 330; #3 principal 370; then the rest is waived: #1 interest 9.68, fee 5, penalty 10; #2 and #3
    // interest and fees.
    const result = allocateA(mifos, payment(1, '2024-01-02', '1000.32'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'INTEREST', '0.32'],
      [1, 'PRINCIPAL', '300.00'],
      [2, 'PRINCIPAL', '330.00'],
      [3, 'PRINCIPAL', '370.00'],
    ]);
    expect(result.payments[0]?.payoff).toBe(true);
    expect(
      result.installments.map((i) => [i.interestWaivedMinor, i.feeWaivedMinor, i.penaltyWaivedMinor]),
    ).toEqual([
      [usd('9.68'), usd('5.00'), usd('10.00')],
      [usd('7.00'), usd('5.00'), 0n],
      [usd('4.00'), usd('5.00'), 0n],
    ]);
    expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
    expect(result.installments.every((i) => i.obligationsMetOnDate === '2024-01-02')).toBe(true);
    // one cent less is an ordinary payment: nothing is waived
    const short = allocateA(mifos, payment(1, '2024-01-02', '1000.31'));
    expect(short.payments[0]?.payoff).toBe(false);
    expect(short.installments.every((i) => i.interestWaivedMinor === 0n)).toBe(true);
  });

  it('a payment above the payoff is allocated before anything is waived: later charges are paid in advance', () => {
    // 1046.01 on 2024-01-02, payoff 1000.32 (above). The payoff amount settles the principal and the accrued
    // 0.32; the other 45.69 pays, in Mifos order, the later charges that a payoff would waive (#1 penalty 10,
    // fee 5, interest 9.68; #2 fee 5, interest 7; #3 fee 5, interest 4 = 45.68), so only 0.01 is over and nothing
    // is waived. (Waiving first turned the 45.68 into an overpayment.)
    const result = allocateA(mifos, payment(1, '2024-01-02', '1046.01'));
    expect(linesOf(result, 1)).toEqual([
      [1, 'PENALTY', '10.00'],
      [1, 'FEE', '5.00'],
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '300.00'],
      [2, 'FEE', '5.00'],
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '330.00'],
      [3, 'FEE', '5.00'],
      [3, 'INTEREST', '4.00'],
      [3, 'PRINCIPAL', '370.00'],
      [null, 'OVERPAYMENT', '0.01'],
    ]);
    expect(result.payments[0]).toMatchObject({ payoff: true, overpaymentMinor: 1n, feeMinor: usd('15.00') });
    expect(
      result.installments.every(
        (i) => i.interestWaivedMinor + i.feeWaivedMinor + i.penaltyWaivedMinor === 0n,
      ),
    ).toBe(true);
    expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
    // between the two: 1020.00 pays #1 penalty 10 and fee 5 and 4.68 of #1's interest in advance; the rest waived
    const between = allocateA(mifos, payment(1, '2024-01-02', '1020.00'));
    expect(between.payments[0]).toMatchObject({ payoff: true, overpaymentMinor: 0n });
    expect(
      between.installments.map((i) => [i.interestWaivedMinor, i.feeWaivedMinor, i.penaltyWaivedMinor]),
    ).toEqual([
      [usd('5.00'), 0n, 0n],
      [usd('7.00'), usd('5.00'), 0n],
      [usd('4.00'), usd('5.00'), 0n],
    ]);
    expect(between.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
  });
});

describe('disbursements', () => {
  it('principal is repaid only up to what was disbursed by the payment’s value date (tranches)', () => {
    // Tranches 600.00 on 2024-01-01 and 400.00 on 2024-02-15; 700.00 paid on 2024-02-01.
    // #1 due: interest 10, principal 300, fee 5, penalty 10 (325) → 375 left, principal room 600 − 300 = 300.
    // #2 in advance: interest 7, principal 300 (capped), fee 5 (312) → 63; #3: interest 4, fee 5 (principal
    // room 0) → 54 over.
    const result = allocatePayments({
      currency: 'USD',
      installments: loanA,
      events: [
        disbursement(2, '2024-02-15', '400.00'),
        payment(1, '2024-02-01', '700.00'),
        disbursement(1, '2024-01-01', '600.00'),
      ],
      strategy: coveredConsumer,
    });
    expect(linesOf(result, 1)).toEqual([
      [1, 'INTEREST', '10.00'],
      [1, 'PRINCIPAL', '300.00'],
      [1, 'FEE', '5.00'],
      [1, 'PENALTY', '10.00'],
      [2, 'INTEREST', '7.00'],
      [2, 'PRINCIPAL', '300.00'],
      [2, 'FEE', '5.00'],
      [3, 'INTEREST', '4.00'],
      [3, 'FEE', '5.00'],
      [null, 'OVERPAYMENT', '54.00'],
    ]);
    expect(result.disbursements.map((d) => d.id)).toEqual([1, 2]);
    expect(result.disbursedMinor).toBe(usd('1000.00'));
  });

  it('on the same value date the disbursement comes before the payment', () => {
    const result = allocatePayments({
      currency: 'USD',
      installments: loanA,
      events: [payment(1, '2024-01-01', '10.00'), disbursement(5, '2024-01-01', '1000.00')],
      strategy: coveredConsumer,
    });
    expect(linesOf(result, 1)).toEqual([[1, 'INTEREST', '10.00']]);
  });

  it('an installment with nothing due is met on the first disbursement date (Fineract updateDerivedFields)', () => {
    const installments = [
      installment(1, '2024-01-01', '2024-02-01', '0.00', '0.00', '0.00', '0.00'),
      installment(2, '2024-02-01', '2024-03-01', '100.00', '1.00', '0.00', '0.00'),
    ];
    const result = allocatePayments({
      currency: 'USD',
      installments,
      events: [disbursement(1, '2024-01-03', '100.00')],
      strategy: coveredConsumer,
    });
    expect(result.installments.map((i) => i.obligationsMetOnDate)).toEqual(['2024-01-03', null]);
  });
});

describe('outstandingSummary', () => {
  const input = (...events: MoneyEvent[]): AllocationInput => ({
    currency: 'USD',
    installments: loanA,
    events: [disbursement(1, '2024-01-01', '1000.00'), ...events],
    strategy: coveredConsumer,
  });

  it('after a past-due payment', () => {
    // After 400.00 on 2024-03-10 (see above): principal 1000 − 368 = 632; interest 21 − 17 = 4; fees 15 − 5 = 10;
    // penalties 10 − 10 = 0. Overdue (due before 03-10): #2 principal 330 − 68 = 262, fee 5 → 267, 9 days
    // (03-01 → 03-10). Payoff: 632 + #2 fee 5 (due on or before) + #3 interest accrued 9 of 31 days
    // (03-01 < 03-10 < 04-01): 4.00 × 9 / 31 = 1.1613 → 1.16; total 638.16.
    const summary = outstandingSummary(input(payment(1, '2024-03-10', '400.00')), '2024-03-10');
    expect(summary.outstanding).toEqual({
      principalMinor: usd('632.00'),
      interestMinor: usd('4.00'),
      feeMinor: usd('10.00'),
      penaltyMinor: 0n,
      totalMinor: usd('646.00'),
    });
    expect(summary.overdue).toEqual({
      principalMinor: usd('262.00'),
      interestMinor: 0n,
      feeMinor: usd('5.00'),
      penaltyMinor: 0n,
      totalMinor: usd('267.00'),
      oldestOverdueDueDate: '2024-03-01',
      daysPastDue: 9,
    });
    expect(summary.payoff).toEqual({
      principalMinor: usd('632.00'),
      interestMinor: usd('1.16'),
      feeMinor: usd('5.00'),
      penaltyMinor: 0n,
      totalMinor: usd('638.16'),
      currentInstallmentNumber: 3,
      currentPeriodInterestMinor: usd('1.16'),
    });
  });

  it('ignores events value-dated after the date; on a due date that installment is due, not overdue', () => {
    // As of 2024-03-01 (the 03-10 payment not yet made): #1 overdue 325 for 29 days (2024 is a leap year);
    // #2 due today. Payoff: 1000 + #1 interest 10, fee 5, penalty 10 + #2 interest 7, fee 5 = 1037; no period
    // strictly holds 03-01 (#3 starts that day), so no current-period interest.
    const summary = outstandingSummary(input(payment(1, '2024-03-10', '400.00')), '2024-03-01');
    expect(summary.overdue).toMatchObject({
      totalMinor: usd('325.00'),
      oldestOverdueDueDate: '2024-02-01',
      daysPastDue: 29,
    });
    expect(summary.payoff).toMatchObject({
      totalMinor: usd('1037.00'),
      currentInstallmentNumber: null,
      currentPeriodInterestMinor: 0n,
    });
    expect(summary.outstanding.totalMinor).toBe(usd('1046.00'));
  });

  it('mid-period, nothing overdue: principal plus the current period’s interest accrued so far', () => {
    // 2024-01-20: 1000 + #1 interest for 19 of 31 days, 10.00 × 19 / 31 = 6.129 → 6.13 = 1006.13.
    const summary = outstandingSummary(input(), '2024-01-20');
    expect(summary.payoff.totalMinor).toBe(usd('1006.13'));
    expect(summary.payoff.currentPeriodInterestMinor).toBe(usd('6.13'));
    expect(summary.payoff.currentInstallmentNumber).toBe(1);
    expect(summary.overdue).toMatchObject({ totalMinor: 0n, oldestOverdueDueDate: null, daysPastDue: 0 });
  });

  it('a partial in-advance payment reduces the current-period interest in the payoff', () => {
    // 4.00 on 2024-01-20 → #1 interest 4; payoff 1000 + (6.13 accrued − 4) = 1002.13.
    const summary = outstandingSummary(input(payment(1, '2024-01-20', '4.00')), '2024-01-20');
    expect(summary.payoff.totalMinor).toBe(usd('1002.13'));
  });

  it('zero before the first disbursement; paid off and overpaid afterwards', () => {
    expect(outstandingSummary(input(), '2023-12-31').payoff.totalMinor).toBe(0n);
    const after = outstandingSummary(input(payment(1, '2024-04-02', '1100.00')), '2024-05-01');
    expect(after.outstanding.totalMinor).toBe(0n);
    expect(after.payoff.totalMinor).toBe(0n);
    expect(after.overpaymentMinor).toBe(usd('54.00'));
  });

  it('RangeError for an invalid date', () => {
    expect(() => outstandingSummary(input(), '2024-02-30')).toThrow(RangeError);
  });
});

describe('helpers', () => {
  it('installmentsFromSchedule turns a generated schedule into minor units', () => {
    const schedule = generateSchedule({
      principal: '1000.00',
      numberOfRepayments: 3,
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
      expectedDisbursementDate: '2024-01-01',
      currency: { code: 'USD', digitsAfterDecimal: 2 },
    });
    const installments = installmentsFromSchedule(schedule);
    expect(installments).toHaveLength(3);
    expect(installments.reduce((sum, i) => sum + i.principalDueMinor, 0n)).toBe(usd('1000.00'));
    expect(installments.reduce((sum, i) => sum + i.interestDueMinor, 0n)).toBe(
      usd(schedule.totalInterestCharged),
    );
    expect(installments.map((i) => [i.fromDate, i.dueDate])).toEqual([
      ['2024-01-01', '2024-02-01'],
      ['2024-02-01', '2024-03-01'],
      ['2024-03-01', '2024-04-01'],
    ]);
  });

  it('paymentAllocationPayload renders decimal strings', () => {
    const result = allocateA(coveredConsumer, payment(7, '2024-04-02', '1100.00'));
    const payload = paymentAllocationPayload(result.payments[0]!, 'USD');
    expect(payload).toMatchObject({
      paymentId: 7,
      currency: 'USD',
      amount: '1100.00',
      principal: '1000.00',
      interest: '21.00',
      fee: '15.00',
      penalty: '10.00',
      overpayment: '54.00',
    });
    expect(payload.lines.at(-1)).toEqual({
      installmentNumber: null,
      component: 'OVERPAYMENT',
      amount: '54.00',
    });
  });
});

describe('REAMORTIZATION (Fineract FutureInstallmentAllocationRule)', () => {
  // three future installments of 90.00 (Loan-Part3.feature "principal due is correct in case of second disbursement
  // on overpaid loan": 160.00 in advance pays 53.33, 53.33 and 53.34)
  const installments = [
    installment(1, '2024-02-02', '2024-02-16', '90.00', '0.00', '0.00', '0.00'),
    installment(2, '2024-02-16', '2024-03-02', '90.00', '0.00', '0.00', '0.00'),
    installment(3, '2024-03-02', '2024-03-17', '90.00', '0.00', '0.00', '0.00'),
  ];
  const paidPrincipal = (result: ReturnType<typeof allocatePayments>) =>
    result.installments.map((i) => i.principalPaidMinor);
  for (const processing of ['HORIZONTAL', 'VERTICAL'] as const) {
    it(`${processing}: in-advance money is shared evenly, the last installment taking the rounding difference`, () => {
      const result = allocatePayments({
        currency: 'USD',
        installments,
        events: [disbursement(1, '2024-02-02', '270.00'), payment(1, '2024-02-02', '160.00')],
        strategy: advanced({ future: 'REAMORTIZATION', processing }),
      });
      expect(paidPrincipal(result)).toEqual([usd('53.33'), usd('53.33'), usd('53.34')]);
      expect(result.payments[0]?.overpaymentMinor).toBe(0n);
    });
  }
  it('an installment that needs less than its share is paid off and the rest is shared by the others', () => {
    const uneven = [
      installment(1, '2024-02-02', '2024-02-16', '10.00', '0.00', '0.00', '0.00'),
      ...installments.slice(1),
    ];
    const result = allocatePayments({
      currency: 'USD',
      installments: uneven,
      events: [disbursement(1, '2024-02-02', '190.00'), payment(1, '2024-02-03', '100.00')],
      strategy: advanced({ future: 'REAMORTIZATION' }),
    });
    // pass 1: 33.33, 33.33 and 33.34 (the first takes only 10.00); pass 2: the 23.33 left in two, 11.665 rounded
    // half-even to 11.66, the last taking the difference (11.67)
    expect(paidPrincipal(result)).toEqual([usd('10.00'), usd('44.99'), usd('45.01')]);
  });
  it('money beyond every installment is an overpayment', () => {
    const result = allocatePayments({
      currency: 'USD',
      installments,
      events: [disbursement(1, '2024-02-02', '270.00'), payment(1, '2024-02-03', '300.00')],
      strategy: advanced({ future: 'REAMORTIZATION' }),
    });
    expect(paidPrincipal(result)).toEqual([usd('90.00'), usd('90.00'), usd('90.00')]);
    expect(result.payments[0]?.overpaymentMinor).toBe(usd('30.00'));
  });
});

describe('negative space', () => {
  const base = (): AllocationInput => ({
    currency: 'USD',
    installments: loanA,
    events: [disbursement(1, '2024-01-01', '1000.00')],
    strategy: coveredConsumer,
  });
  const rejects = (change: (input: AllocationInput) => AllocationInput, message?: RegExp) => {
    expect(() => allocatePayments(change(base()))).toThrow(RangeError);
    if (message) expect(() => allocatePayments(change(base()))).toThrow(message);
  };

  it('rejects malformed loans and events', () => {
    rejects((i) => ({ ...i, currency: 'usd' }));
    rejects((i) => ({ ...i, installments: [] }));
    rejects((i) => ({ ...i, installments: [loanA[0]!, { ...loanA[1]!, installmentNumber: 1 }] }), /twice/);
    rejects(
      (i) => ({ ...i, installments: [{ ...loanA[0]!, dueDate: '2023-12-31' }] }),
      /before its fromDate/,
    );
    rejects((i) => ({ ...i, installments: [loanA[0]!, { ...loanA[1]!, dueDate: '2024-01-15' }] }));
    rejects((i) => ({ ...i, installments: [{ ...loanA[0]!, feeDueMinor: -1n }] }));
    rejects((i) => ({ ...i, events: [...i.events, payment(1, '2024-02-31', '1.00')] }), /ISO calendar date/);
    rejects((i) => ({ ...i, events: [...i.events, payment(1, '2024-02-01', '0.00')] }), /> 0/);
    rejects((i) => ({
      ...i,
      events: [...i.events, payment(1, '2024-02-01', '1.00'), payment(1, '2024-02-02', '1.00')],
    }));
    rejects((i) => ({ ...i, events: [...i.events, { ...payment(1, '2024-02-01', '1.00'), id: 1.5 }] }));
  });

  it('rejects a payment before the first disbursement and disbursements above the principal', () => {
    rejects((i) => ({ ...i, events: [...i.events, payment(1, '2023-12-31', '1.00')] }), /before the first/);
    rejects((i) => ({ ...i, events: [payment(1, '2024-02-01', '1.00')] }), /before the first/);
    rejects((i) => ({ ...i, events: [...i.events, disbursement(2, '2024-01-02', '0.01')] }), /exceed/);
  });

  it('rejects unknown strategies and incomplete or ambiguous rule lists', () => {
    rejects((i) => ({ ...i, strategy: { code: 'due-penalty-fee-interest-principal' } as never }), /unknown/);
    const rules = [...paymentAllocationRules];
    rejects((i) => ({ ...i, strategy: advanced({ rules: rules.slice(1) }) }), /all 12/);
    rejects((i) => ({ ...i, strategy: advanced({ rules: [...rules.slice(1), rules[1]!] }) }), /twice/);
    rejects(
      (i) => ({ ...i, strategy: advanced({ rules: [...rules.slice(1), 'DUE_TIP' as never] }) }),
      /unknown/,
    );
    rejects(
      (i) => ({
        ...i,
        strategy: {
          code: 'advanced-payment-allocation-strategy',
          paymentAllocation: [
            {
              transactionType: 'DEFAULT',
              paymentAllocationOrder: rules.map((paymentAllocationRule) => ({
                paymentAllocationRule,
                order: 1,
              })),
            },
          ],
        },
      }),
      /repeats an order/,
    );
    rejects(
      (i) => ({
        ...i,
        strategy: { code: 'advanced-payment-allocation-strategy', paymentAllocation: [] },
      }),
      /DEFAULT/,
    );
    rejects((i) => ({ ...i, strategy: { ...advanced(), loanScheduleProcessingType: 'DIAGONAL' as never } }));
  });

  it('installmentsFromSchedule rejects charges due at disbursement', () => {
    const schedule = generateSchedule({
      principal: '1000.00',
      numberOfRepayments: 2,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: '0',
      interestRateFrequencyType: 3,
      interestType: 0,
      amortizationType: 1,
      interestCalculationPeriodType: 1,
      allowPartialPeriodInterestCalcualtion: false,
      daysInYearType: 1,
      daysInMonthType: 1,
      expectedDisbursementDate: '2024-01-01',
      currency: { code: 'USD', digitsAfterDecimal: 2 },
      charges: [{ chargeTimeType: 1, chargeCalculationType: 1, amount: '10.00' }],
    });
    expect(() => installmentsFromSchedule(schedule)).toThrow(RangeError);
  });
});

// ---- properties -----------------------------------------------------------------------------------------------

const components: readonly AllocationComponent[] = ['PRINCIPAL', 'INTEREST', 'FEE', 'PENALTY'];
const dueOf = (i: InstallmentDue, c: AllocationComponent): bigint =>
  c === 'PRINCIPAL'
    ? i.principalDueMinor
    : c === 'INTEREST'
      ? i.interestDueMinor
      : c === 'FEE'
        ? i.feeDueMinor
        : i.penaltyDueMinor;
const waivedOf = (i: AllocationResult['installments'][number], c: AllocationComponent): bigint =>
  c === 'PRINCIPAL'
    ? 0n
    : c === 'INTEREST'
      ? i.interestWaivedMinor
      : c === 'FEE'
        ? i.feeWaivedMinor
        : i.penaltyWaivedMinor;
const paidOf = (i: AllocationResult['installments'][number], c: AllocationComponent): bigint =>
  c === 'PRINCIPAL'
    ? i.principalPaidMinor
    : c === 'INTEREST'
      ? i.interestPaidMinor
      : c === 'FEE'
        ? i.feePaidMinor
        : i.penaltyPaidMinor;

interface GeneratedLoan {
  input: AllocationInput;
  start: string;
}

/** A loan of 1–8 installments, 1–3 tranches (or exactly one with `singleDisbursement`), 0–8 payments. */
const loanArbitrary = (
  options: { singleDisbursement?: boolean; strategy?: fc.Arbitrary<AllocationStrategy> } = {},
) =>
  fc
    .record({
      startOffset: fc.integer({ min: 0, max: 3000 }),
      periods: fc.array(
        fc.record({
          gapDays: fc.integer({ min: 0, max: 40 }),
          principal: fc.integer({ min: 0, max: 50_000 }),
          interest: fc.integer({ min: 0, max: 5_000 }),
          fee: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_000 })),
          penalty: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_000 })),
        }),
        { minLength: 1, maxLength: 8 },
      ),
      tranches: fc.array(fc.record({ share: fc.integer({ min: 1, max: 10 }), offset: fc.nat(200) }), {
        minLength: 1,
        maxLength: options.singleDisbursement ? 1 : 3,
      }),
      payments: fc.uniqueArray(
        fc.record({
          id: fc.integer({ min: 1, max: 10_000 }),
          onDueDate: fc.boolean(),
          index: fc.nat(),
          offset: fc.nat(400),
          amount: fc.integer({ min: 1, max: 40_000 }),
        }),
        { selector: (p) => p.id, maxLength: 8 },
      ),
      strategy: options.strategy ?? strategyArbitrary,
    })
    .map(({ startOffset, periods, tranches, payments, strategy }): GeneratedLoan => {
      const start = addDays('2020-01-01', startOffset);
      const installments: InstallmentDue[] = [];
      let fromDate = start;
      for (const [index, period] of periods.entries()) {
        const dueDate = addDays(fromDate, period.gapDays + (index === 0 ? 1 : 0));
        installments.push({
          installmentNumber: index + 1,
          fromDate,
          dueDate,
          principalDueMinor: BigInt(period.principal),
          interestDueMinor: BigInt(period.interest),
          feeDueMinor: BigInt(period.fee),
          penaltyDueMinor: BigInt(period.penalty),
        });
        fromDate = dueDate;
      }
      const last = installments[installments.length - 1]!;
      if (installments.every((i) => i.principalDueMinor === 0n)) last.principalDueMinor = 10_000n;
      const principal = installments.reduce((sum, i) => sum + i.principalDueMinor, 0n);
      // tranches 2… take their share of the principal (rounded down, skipped when zero); the first, on the start
      // date, takes the rest, so it is never empty
      const shares = tranches.map((t) => BigInt(t.share));
      const totalShares = shares.reduce((a, b) => a + b, 0n);
      const later = tranches.slice(1).map((tranche, index) => ({
        id: index + 2,
        valueDate: addDays(start, tranche.offset),
        amountMinor: (principal * shares[index + 1]!) / totalShares,
      }));
      const firstAmount = principal - later.reduce((sum, t) => sum + t.amountMinor, 0n);
      const events: MoneyEvent[] = [
        { kind: 'DISBURSEMENT', id: 1, valueDate: start, amountMinor: firstAmount },
        ...later.filter((t) => t.amountMinor > 0n).map((t): MoneyEvent => ({ kind: 'DISBURSEMENT', ...t })),
      ];
      for (const p of payments) {
        const valueDate = p.onDueDate
          ? installments[p.index % installments.length]!.dueDate
          : addDays(start, p.offset);
        events.push({ kind: 'PAYMENT', id: p.id, valueDate, amountMinor: BigInt(p.amount) });
      }
      return { input: { currency: 'USD', installments, events, strategy }, start };
    });

const futureRules: FutureInstallmentAllocationRule[] = [
  'NEXT_INSTALLMENT',
  'LAST_INSTALLMENT',
  'NEXT_LAST_INSTALLMENT',
];
const strategyArbitrary: fc.Arbitrary<AllocationStrategy> = fc.oneof(
  fc.constant(mifos),
  fc.constant(coveredConsumer),
  fc
    .record({
      rules: fc.shuffledSubarray([...paymentAllocationRules], { minLength: 12, maxLength: 12 }),
      future: fc.constantFrom(...futureRules),
      processing: fc.constantFrom('HORIZONTAL' as const, 'VERTICAL' as const),
    })
    .map(advanced),
);

const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

describe('allocation — properties', () => {
  it('conserves money, never goes negative, never pays beyond what is due or was disbursed', () => {
    fc.assert(
      fc.property(loanArbitrary(), ({ input }) => {
        const result = allocatePayments(input);
        const payments = input.events.filter((e) => e.kind === 'PAYMENT');
        expect(result.payments).toHaveLength(payments.length);
        let allocatedToInstallments = 0n;
        for (const allocation of result.payments) {
          let sum = 0n;
          for (const line of allocation.lines) {
            expect(line.amountMinor > 0n).toBe(true);
            sum += line.amountMinor;
            if (line.component !== 'OVERPAYMENT') allocatedToInstallments += line.amountMinor;
          }
          expect(sum).toBe(allocation.amountMinor);
          expect(
            allocation.principalMinor +
              allocation.interestMinor +
              allocation.feeMinor +
              allocation.penaltyMinor +
              allocation.overpaymentMinor,
          ).toBe(allocation.amountMinor);
          expect(allocation.overpaymentMinor >= 0n).toBe(true);
        }
        const totalPayments = payments.reduce((sum, p) => sum + p.amountMinor, 0n);
        expect(allocatedToInstallments + result.overpaymentMinor).toBe(totalPayments);
        let paidTotal = 0n;
        for (const [index, state] of result.installments.entries()) {
          const due = input.installments[index]!;
          let outstanding = 0n;
          for (const c of components) {
            expect(paidOf(state, c) >= 0n).toBe(true);
            expect(waivedOf(state, c) >= 0n).toBe(true);
            expect(paidOf(state, c) + waivedOf(state, c) <= dueOf(due, c)).toBe(true);
            paidTotal += paidOf(state, c);
            outstanding += dueOf(due, c) - paidOf(state, c) - waivedOf(state, c);
          }
          expect(state.outstandingMinor).toBe(outstanding);
        }
        expect(paidTotal).toBe(allocatedToInstallments);
        // principal repaid up to each payment ≤ principal disbursed by its value date
        let principalRepaid = 0n;
        for (const allocation of result.payments) {
          principalRepaid += allocation.principalMinor;
          const disbursedByThen = result.disbursements
            .filter((d) => d.valueDate <= allocation.valueDate)
            .reduce((sum, d) => sum + d.amountMinor, 0n);
          expect(principalRepaid <= disbursedByThen).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same result for any input order of the events (date order)', () => {
    fc.assert(
      fc.property(
        loanArbitrary().chain((loan) =>
          fc
            .shuffledSubarray([...loan.input.events], {
              minLength: loan.input.events.length,
              maxLength: loan.input.events.length,
            })
            .map((events) => ({ loan, events })),
        ),
        ({ loan, events }) => {
          const dateOrder = [...loan.input.events].sort(
            (a, b) =>
              a.valueDate.localeCompare(b.valueDate) ||
              (a.kind === b.kind ? a.id - b.id : a.kind === 'DISBURSEMENT' ? -1 : 1),
          );
          expect(allocatePayments({ ...loan.input, events })).toEqual(
            allocatePayments({ ...loan.input, events: dateOrder }),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('respects the strategy’s order: money reaches a slot only when every higher-priority slot is full', () => {
    fc.assert(
      fc.property(loanArbitrary({ singleDisbursement: true }), ({ input }) => {
        const result = allocatePayments(input);
        const [disbursementEvent] = result.disbursements;
        for (const [k, allocation] of result.payments.entries()) {
          // the loan right after this payment: the replay of the disbursement and payments 0…k
          const after = allocatePayments({
            ...input,
            events: [
              disbursementEvent!,
              ...result.payments.slice(0, k + 1).map(
                (p): MoneyEvent => ({
                  kind: 'PAYMENT',
                  id: p.paymentId,
                  valueDate: p.valueDate,
                  amountMinor: p.amountMinor,
                }),
              ),
            ],
          });
          const key = priorityKey(input, allocation.valueDate);
          const unpaid = (index: number, c: AllocationComponent) =>
            dueOf(input.installments[index]!, c) -
            paidOf(after.installments[index]!, c) -
            waivedOf(after.installments[index]!, c);
          const funded = allocation.lines.filter((l) => l.component !== 'OVERPAYMENT');
          // lines are listed in priority order
          for (let j = 1; j < funded.length; j++) {
            const prev = funded[j - 1]!;
            const line = funded[j]!;
            expect(
              compareKeys(
                key(prev.installmentNumber! - 1, prev.component as AllocationComponent),
                key(line.installmentNumber! - 1, line.component as AllocationComponent),
              ),
            ).toBeLessThan(0);
          }
          const lastFunded = funded.at(-1);
          for (const [index] of input.installments.entries()) {
            for (const c of components) {
              const higher =
                allocation.overpaymentMinor > 0n ||
                (lastFunded !== undefined &&
                  compareKeys(
                    key(index, c),
                    key(lastFunded.installmentNumber! - 1, lastFunded.component as AllocationComponent),
                  ) < 0);
              if (higher) expect(unpaid(index, c)).toBe(0n);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('obligationsMetOnDate is set exactly when nothing is outstanding, on a payment’s or the disbursement’s date', () => {
    fc.assert(
      fc.property(loanArbitrary(), ({ input }) => {
        const result = allocatePayments(input);
        const dates = new Set([
          ...result.payments.map((p) => p.valueDate),
          result.disbursements[0]!.valueDate,
        ]);
        for (const state of result.installments) {
          expect(state.obligationsMetOnDate !== null).toBe(state.outstandingMinor === 0n);
          if (state.obligationsMetOnDate !== null) expect(dates.has(state.obligationsMetOnDate)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the summary agrees with the replay up to the date and with the payoff rule', () => {
    fc.assert(
      fc.property(
        loanArbitrary({ singleDisbursement: true, strategy: fc.constant(coveredConsumer) }),
        fc.nat(400),
        ({ input, start }, offset) => {
          const asOfDate = addDays(start, offset);
          const summary = outstandingSummary(input, asOfDate);
          const upTo = allocatePayments({
            ...input,
            events: input.events.filter((e) => e.valueDate <= asOfDate),
          });
          const remaining = upTo.installments.reduce((sum, i) => sum + i.outstandingMinor, 0n);
          expect(summary.outstanding.totalMinor).toBe(remaining);
          expect(summary.overdue.totalMinor <= summary.payoff.totalMinor).toBe(true);
          expect(summary.payoff.totalMinor <= summary.outstanding.totalMinor).toBe(true);
          if (summary.overdue.oldestOverdueDueDate !== null) {
            expect(summary.overdue.daysPastDue).toBe(
              dayNumber(asOfDate) - dayNumber(summary.overdue.oldestOverdueDueDate),
            );
          }
          // the payoff rule, recomputed from the replay: all principal, what is due on or before the date, and
          // of each later installment the interest accrued by the date (straight line over its period, HALF_EVEN)
          // less its interest paid
          let expected = upTo.disbursedMinor;
          for (const [index, state] of upTo.installments.entries()) {
            const due = input.installments[index]!;
            expected -= state.principalPaidMinor;
            const unpaid = (c: AllocationComponent) => dueOf(due, c) - paidOf(state, c) - waivedOf(state, c);
            if (due.dueDate <= asOfDate) expected += unpaid('INTEREST') + unpaid('FEE') + unpaid('PENALTY');
            else {
              const accrued = straightLineAccrual(due.interestDueMinor, due.fromDate, due.dueDate, asOfDate);
              const kept =
                accrued < due.interestDueMinor - state.interestWaivedMinor
                  ? accrued
                  : due.interestDueMinor - state.interestWaivedMinor;
              if (kept > state.interestPaidMinor) expected += kept - state.interestPaidMinor;
            }
          }
          expect(summary.payoff.totalMinor).toBe(expected);
          const current = input.installments.find((i) => i.fromDate < asOfDate && asOfDate < i.dueDate);
          expect(summary.payoff.currentInstallmentNumber).toBe(current?.installmentNumber ?? null);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/**
 * Oracle of the accrual: interest × elapsed ÷ period days, rounded half to even, computed with exact fractions
 * (numbers of days are small; amounts stay bigint).
 */
function straightLineAccrual(interest: bigint, fromDate: string, dueDate: string, asOfDate: string): bigint {
  const [from, due, asOf] = [fromDate, dueDate, asOfDate].map(dayNumber) as [number, number, number];
  if (asOf >= due) return interest;
  if (asOf <= from) return 0n;
  const numerator = interest * BigInt(asOf - from);
  const denominator = BigInt(due - from);
  const floor = numerator / denominator;
  const doubled = 2n * (numerator - floor * denominator);
  if (doubled > denominator) return floor + 1n;
  if (doubled < denominator) return floor;
  return floor % 2n === 0n ? floor : floor + 1n;
}

/**
 * The priority of (installment index, component) for a payment on `valueDate`, read from the strategy's
 * definition (module note of domain/lending/allocation/replay.ts): smaller keys are served first.
 */
function priorityKey(
  input: AllocationInput,
  valueDate: string,
): (index: number, c: AllocationComponent) => number[] {
  const { installments, strategy } = input;
  if (strategy.code === 'mifos-standard-strategy') {
    return (index, c) => [index, ['PENALTY', 'FEE', 'INTEREST', 'PRINCIPAL'].indexOf(c)];
  }
  const set = (strategy.paymentAllocation ?? coveredConsumerPaymentAllocation)[0]!;
  const rules = [...set.paymentAllocationOrder]
    .sort((a, b) => a.order - b.order)
    .map((i) => i.paymentAllocationRule);
  const future = set.futureInstallmentAllocationRule ?? 'NEXT_INSTALLMENT';
  const dueTypeOf = (index: number): string => {
    const due = installments[index]!.dueDate;
    return due < valueDate ? 'PAST_DUE' : due === valueDate ? 'DUE' : 'IN_ADVANCE';
  };
  const position = (index: number): number => {
    if (dueTypeOf(index) !== 'IN_ADVANCE' || future === 'NEXT_INSTALLMENT') return index;
    if (future === 'LAST_INSTALLMENT') return -index;
    const from = installments[index]!.fromDate;
    const current = from < valueDate || (index === 0 && from === valueDate);
    return current ? -1_000 + index : 1_000 - index;
  };
  const ruleIndex = (index: number, c: AllocationComponent) =>
    rules.indexOf(`${dueTypeOf(index)}_${c}` as PaymentAllocationRule);
  if (strategy.loanScheduleProcessingType === 'VERTICAL') {
    return (index, c) => [ruleIndex(index, c), position(index)];
  }
  const groups = [...new Set(rules.map((r) => r.replace(/_(PRINCIPAL|INTEREST|FEE|PENALTY)$/, '')))];
  return (index, c) => {
    const group = groups.indexOf(dueTypeOf(index));
    const inGroup = rules
      .filter((r) => r.startsWith(`${dueTypeOf(index)}_`))
      .indexOf(`${dueTypeOf(index)}_${c}` as PaymentAllocationRule);
    return [group, position(index), inGroup];
  };
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

describe('principal forgiveness (hardship relief)', () => {
  // Loan A with 200.00 of principal forgiven off installment #3 (370.00 → 170.00) after #1 was paid.
  const forgivenSchedule = loanA.map((i) =>
    i.installmentNumber === 3 ? { ...i, principalDueMinor: usd('170.00') } : i,
  );
  const forgiven = { id: 9, valueDate: '2024-02-15', amountMinor: usd('200.00') };
  const input = (events: MoneyEvent[]): AllocationInput => ({
    currency: 'USD',
    installments: forgivenSchedule,
    events,
    strategy: mifos,
    principalForgiveness: [forgiven],
  });

  it('the disbursed principal less the forgiven one is what the installments owe; the payoff closes the loan', () => {
    const events = [disbursement(1, '2024-01-01', '1000.00'), payment(2, '2024-02-01', '325.00')];
    const summary = outstandingSummary(input(events), '2024-02-20');
    // 1000.00 − 200.00 forgiven − 300.00 repaid
    expect(summary.outstanding.principalMinor).toBe(usd('500.00'));
    const result = allocatePayments(
      input([
        ...events,
        { kind: 'PAYMENT', id: 3, valueDate: '2024-02-20', amountMinor: summary.payoff.totalMinor },
      ]),
    );
    expect(result.payments[1]!.payoff).toBe(true);
    expect(result.payments[1]!.overpaymentMinor).toBe(0n);
    expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
    expect(result.principalForgivenMinor).toBe(usd('200.00'));
    expect(result.principalForgiveness).toEqual([forgiven]);
  });

  it('without the forgiveness the shorter schedule cannot take the disbursement; more forgiven than disbursed is refused', () => {
    const events = [disbursement(1, '2024-01-01', '1000.00')];
    expect(() => allocatePayments({ ...input(events), principalForgiveness: [] })).toThrow(RangeError);
    expect(() =>
      allocatePayments({
        ...input(events),
        principalForgiveness: [{ ...forgiven, amountMinor: usd('1000.01') }],
      }),
    ).toThrow(RangeError);
    expect(() =>
      allocatePayments({ ...input(events), principalForgiveness: [forgiven, { ...forgiven }] }),
    ).toThrow(RangeError);
  });
});
