/**
 * Payoff (domain/lending/allocation/summary.ts `outstandingSummary` quote and the replay's payoff posting, one rule;  * a quote of 1212.00 whose payment left 67.42 owed).
 *
 * Oracles:
 * - Hand-computed: a reference loan (1,200.00 at 12 % a year, 12 monthly equal installments, declining balance,
 *   domain/lending/schedule.ts) quoted mid-period and paid off; `accruedInterestMinor` on its edges and a tie.
 * - Property (fast-check): for any loan of domain/lending/schedule.ts, any earlier payments and any date in the term,
 *   paying the quoted payoff on that date closes the loan: every installment is met, nothing is outstanding or
 *   overdue, no overpayment is created, the payment is marked as the payoff, and the cash-basis journal's loan
 *   portfolio is zero (domain/lending/ledger.ts). And paying the quote plus any excess: the excess first pays the later
 *   interest, fees and penalties that paying exactly the quote would waive (in advance, by the strategy), only the
 *   rest of them is waived, only what exceeds them is an overpayment, and the loan is still closed.
 * - Published: test/vectors/fineract-payoff-in-advance.json (Fineract: 1,020.00 paid on 2023-01-10 on a 1,000.00
 *   loan with a 20.00 fee due 2023-02-01 pays the fee in advance and closes the loan), and the payoff quote paid on
 *   the same loan.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../domain/calendar';
import { accruedInterestMinor } from '../../domain/lending/allocation/accrual';
import { allocatePayments, installmentsFromSchedule } from '../../domain/lending/allocation/replay';
import { outstandingSummary } from '../../domain/lending/allocation/summary';
import type { AllocationInput, AllocationStrategy, MoneyEvent } from '../../domain/lending/allocation/types';
import { postingsForAllocation, trialBalance } from '../../domain/lending/ledger';
import { generateSchedule } from '../../domain/lending/schedule';
import { parseDecimalToMinor } from '../../domain/money';

const usd = (amount: string): bigint => parseDecimalToMinor(amount, 2);
const coveredConsumer: AllocationStrategy = { code: 'advanced-payment-allocation-strategy' };

/** The hand-computed loan: 1,200.00 disbursed 2025-01-01, 12 % a year, 12 monthly equal installments (79.42 interest). */
function referenceLoan(events: MoneyEvent[] = []): AllocationInput {
  const schedule = generateSchedule({
    principal: '1200.00',
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
    expectedDisbursementDate: '2025-01-01',
    currency: { code: 'USD', digitsAfterDecimal: 2 },
  });
  expect(schedule.totalInterestCharged).toBe('79.42');
  return {
    currency: 'USD',
    installments: installmentsFromSchedule(schedule),
    events: [
      { kind: 'DISBURSEMENT', id: 1, valueDate: '2025-01-01', amountMinor: usd('1200.00') },
      ...events,
    ],
    strategy: coveredConsumer,
  };
}

/** test/vectors/fineract-payoff-in-advance.json (its README gives the source). */
interface PayoffInAdvanceVector {
  loan: {
    currency: string;
    principal: string;
    disbursementDate: string;
    numberOfRepayments: number;
    interestRatePerPeriod: string;
    charges: { chargeTimeType: 2; chargeCalculationType: 1; amount: string; dueDate: string }[];
  };
  cases: {
    id: string;
    payment: { date: string; amount: string };
    expected: Record<string, string>;
  }[];
}
const inAdvance = JSON.parse(
  readFileSync(new URL('../vectors/fineract-payoff-in-advance.json', import.meta.url), 'utf8'),
) as PayoffInAdvanceVector;

/** The vector's loan (one monthly installment, no interest, a fee due on its due date), with `events` after the disbursement. */
function vectorLoan(events: MoneyEvent[] = []): AllocationInput {
  const { loan } = inAdvance;
  const schedule = generateSchedule({
    principal: loan.principal,
    numberOfRepayments: loan.numberOfRepayments,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: loan.interestRatePerPeriod,
    interestRateFrequencyType: 3,
    interestType: 0,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 1,
    daysInMonthType: 1,
    expectedDisbursementDate: loan.disbursementDate,
    currency: { code: loan.currency, digitsAfterDecimal: 2 },
    charges: loan.charges,
  });
  return {
    currency: loan.currency,
    installments: installmentsFromSchedule(schedule),
    events: [
      { kind: 'DISBURSEMENT', id: 1, valueDate: loan.disbursementDate, amountMinor: usd(loan.principal) },
      ...events,
    ],
    strategy: coveredConsumer,
  };
}

describe('Fineract: a payment above the payoff pays later charges in advance (test/vectors)', () => {
  const byId = (id: string) => inAdvance.cases.find((c) => c.id === id)!;

  it('1,020.00 on 2023-01-10 against a 20.00 fee due 2023-02-01: fee 20.00 paid, nothing over, the loan met', () => {
    const { payment: paid, expected } = byId('fee-paid-in-advance');
    // the quote that day excludes the fee, which falls due later: the payment covers it and is the payoff
    expect(outstandingSummary(vectorLoan(), paid.date).payoff.totalMinor).toBe(usd('1000.00'));
    const result = allocatePayments(
      vectorLoan([{ kind: 'PAYMENT', id: 1, valueDate: paid.date, amountMinor: usd(paid.amount) }]),
    );
    expect(result.installments[0]).toMatchObject({ feeDueMinor: usd('20.00'), dueDate: '2023-02-01' });
    expect(result.payments[0]).toMatchObject({
      payoff: true,
      principalMinor: usd(expected.principalPortion!),
      interestMinor: usd(expected.interestPortion!),
      feeMinor: usd(expected.feePortion!),
      penaltyMinor: usd(expected.penaltyPortion!),
      overpaymentMinor: usd(expected.overpayment!),
    });
    // closed.obligations.met, not overpaid: every installment met, nothing waived, no overpayment
    expect(
      result.installments.every((i) => i.outstandingMinor === 0n && i.obligationsMetOnDate === paid.date),
    ).toBe(true);
    expect(result.installments[0]!.feeWaivedMinor).toBe(0n);
    expect(result.overpaymentMinor).toBe(0n);
  });

  it('paying exactly the payoff quote on 2023-01-10 closes the loan: the later fee is waived', () => {
    const { payment: paid, expected } = byId('payoff-quote-paid');
    const quote = outstandingSummary(vectorLoan(), paid.date).payoff.totalMinor;
    expect(quote).toBe(usd(expected.payoffQuote!));
    const result = allocatePayments(
      vectorLoan([{ kind: 'PAYMENT', id: 1, valueDate: paid.date, amountMinor: quote }]),
    );
    expect(result.payments[0]).toMatchObject({
      payoff: true,
      principalMinor: usd(expected.principalPortion!),
      feeMinor: usd(expected.feePortion!),
      overpaymentMinor: usd(expected.overpayment!),
    });
    expect(result.installments[0]!.feeWaivedMinor).toBe(usd('20.00'));
    expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
  });
});

describe('accruedInterestMinor', () => {
  it('is zero up to the period start, all of it from the due date, straight-line HALF_EVEN between', () => {
    expect(accruedInterestMinor(1200n, '2025-01-01', '2025-02-01', '2024-12-31')).toBe(0n);
    expect(accruedInterestMinor(1200n, '2025-01-01', '2025-02-01', '2025-01-01')).toBe(0n);
    // 12.00 × 15 / 31 = 5.806… → 5.81
    expect(accruedInterestMinor(1200n, '2025-01-01', '2025-02-01', '2025-01-16')).toBe(581n);
    expect(accruedInterestMinor(1200n, '2025-01-01', '2025-02-01', '2025-02-01')).toBe(1200n);
    expect(accruedInterestMinor(1200n, '2025-01-01', '2025-02-01', '2025-03-01')).toBe(1200n);
    // ties go to even: 0.05 × 1 / 2 = 0.025 → 0.02; 0.07 × 1 / 2 = 0.035 → 0.04
    expect(accruedInterestMinor(5n, '2025-01-01', '2025-01-03', '2025-01-02')).toBe(2n);
    expect(accruedInterestMinor(7n, '2025-01-01', '2025-01-03', '2025-01-02')).toBe(4n);
    expect(() => accruedInterestMinor(-1n, '2025-01-01', '2025-01-03', '2025-01-02')).toThrow(RangeError);
  });
});

describe('the hand-computed loan', () => {
  it('quotes principal plus interest accrued to the date, and that payment closes the loan to the cent', () => {
    // 2025-01-16: 1,200.00 + installment 1's 12.00 interest for 15 of 31 days (5.81) = 1,205.81. Before the fix
    // the quote was 1,212.00 and its payment left 67.42 owed (it was charged all 79.42 of interest).
    const quote = outstandingSummary(referenceLoan(), '2025-01-16').payoff;
    expect(quote).toMatchObject({
      principalMinor: usd('1200.00'),
      interestMinor: usd('5.81'),
      totalMinor: usd('1205.81'),
      currentInstallmentNumber: 1,
      currentPeriodInterestMinor: usd('5.81'),
    });
    const paid = referenceLoan([
      { kind: 'PAYMENT', id: 1, valueDate: '2025-01-16', amountMinor: quote.totalMinor },
    ]);
    const result = allocatePayments(paid);
    expect(result.payments[0]).toMatchObject({
      principalMinor: usd('1200.00'),
      interestMinor: usd('5.81'),
      overpaymentMinor: 0n,
      payoff: true,
    });
    expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
    const after = outstandingSummary(paid, '2025-01-16');
    expect(after.outstanding.totalMinor).toBe(0n);
    expect(after.payoff.totalMinor).toBe(0n);
    // 2025-03-10, with installment 1 paid on time (106.62): the second case of its kind
    const onTime = referenceLoan([
      { kind: 'PAYMENT', id: 1, valueDate: '2025-02-01', amountMinor: usd('106.62') },
    ]);
    const later = outstandingSummary(onTime, '2025-03-10').payoff;
    const closed = allocatePayments({
      ...onTime,
      events: [
        ...onTime.events,
        { kind: 'PAYMENT', id: 2, valueDate: '2025-03-10', amountMinor: later.totalMinor },
      ],
    });
    expect(closed.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
    expect(closed.overpaymentMinor).toBe(0n);
  });
});

/** A loan of domain/lending/schedule.ts with 1–24 installments, a few earlier payments and a payoff date in its term. */
const payoffCase = fc
  .record({
    principalCents: fc.integer({ min: 10_000, max: 5_000_000 }),
    n: fc.integer({ min: 1, max: 24 }),
    rate: fc.integer({ min: 0, max: 3600 }),
    frequency: fc.constantFrom(0, 1, 2),
    every: fc.integer({ min: 1, max: 3 }),
    interestType: fc.constantFrom(0, 1),
    amortizationType: fc.constantFrom(0, 1),
    fee: fc.constantFrom(null, '2.00', '7.50'),
    strategy: fc.constantFrom<AllocationStrategy>(
      coveredConsumer,
      { code: 'mifos-standard-strategy' },
      {
        code: 'advanced-payment-allocation-strategy',
        paymentAllocation: [
          {
            transactionType: 'DEFAULT',
            paymentAllocationOrder: [
              'PAST_DUE_PENALTY',
              'PAST_DUE_FEE',
              'PAST_DUE_PRINCIPAL',
              'PAST_DUE_INTEREST',
              'DUE_PENALTY',
              'DUE_FEE',
              'DUE_PRINCIPAL',
              'DUE_INTEREST',
              'IN_ADVANCE_PENALTY',
              'IN_ADVANCE_FEE',
              'IN_ADVANCE_PRINCIPAL',
              'IN_ADVANCE_INTEREST',
            ].map((rule, index) => ({ paymentAllocationRule: rule as never, order: index + 1 })),
            futureInstallmentAllocationRule: 'LAST_INSTALLMENT',
          },
        ],
        loanScheduleProcessingType: 'VERTICAL',
      },
    ),
    dayFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    extraCents: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 500_000 })),
    earlier: fc.array(
      fc.record({
        fraction: fc.double({ min: 0, max: 1, noNaN: true }),
        cents: fc.integer({ min: 1, max: 200_000 }),
      }),
      {
        maxLength: 4,
      },
    ),
  })
  .map((c) => {
    const schedule = generateSchedule({
      principal: (c.principalCents / 100).toFixed(2),
      numberOfRepayments: c.n,
      repaymentEvery: c.every,
      repaymentFrequencyType: c.frequency as 0 | 1 | 2,
      interestRatePerPeriod: String(c.rate / 100),
      interestRateFrequencyType: 3,
      interestType: c.interestType as 0 | 1,
      amortizationType: c.amortizationType as 0 | 1,
      interestCalculationPeriodType: 1,
      allowPartialPeriodInterestCalcualtion: false,
      daysInYearType: 365,
      daysInMonthType: 30,
      expectedDisbursementDate: '2024-01-31',
      currency: { code: 'USD', digitsAfterDecimal: 2 },
      charges: c.fee === null ? [] : [{ chargeTimeType: 8, chargeCalculationType: 1, amount: c.fee }],
    });
    const installments = installmentsFromSchedule(schedule);
    const termDays = Math.round(
      (Date.parse(`${installments.at(-1)!.dueDate}T00:00:00Z`) - Date.parse('2024-01-31T00:00:00Z')) /
        86_400_000,
    );
    const payoffDate = addDays('2024-01-31', Math.floor(c.dayFraction * termDays));
    const payoffDays = Math.floor(c.dayFraction * termDays);
    const events: MoneyEvent[] = [
      { kind: 'DISBURSEMENT', id: 1, valueDate: '2024-01-31', amountMinor: BigInt(c.principalCents) },
      ...c.earlier.map(
        (p, index): MoneyEvent => ({
          kind: 'PAYMENT',
          id: index + 1,
          valueDate: addDays('2024-01-31', Math.floor(p.fraction * payoffDays)),
          amountMinor: BigInt(p.cents),
        }),
      ),
    ];
    const input: AllocationInput = { currency: 'USD', installments, events, strategy: c.strategy };
    return { input, payoffDate, nextId: c.earlier.length + 1, extraCents: BigInt(c.extraCents) };
  });

describe('payoff — property', () => {
  it('for any date in the term, paying the quoted payoff closes the loan with nothing owed', () => {
    fc.assert(
      fc.property(payoffCase, ({ input, payoffDate, nextId }) => {
        const before = outstandingSummary(input, payoffDate);
        fc.pre(before.payoff.totalMinor > 0n);
        const paid: AllocationInput = {
          ...input,
          events: [
            ...input.events,
            { kind: 'PAYMENT', id: nextId, valueDate: payoffDate, amountMinor: before.payoff.totalMinor },
          ],
        };
        const result = allocatePayments(paid);
        const payoff = result.payments.find((p) => p.paymentId === nextId)!;
        expect(payoff.payoff).toBe(true);
        expect(payoff.overpaymentMinor).toBe(0n);
        expect(result.overpaymentMinor).toBe(before.overpaymentMinor);
        expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
        expect(result.installments.every((i) => i.obligationsMetOnDate !== null)).toBe(true);
        const after = outstandingSummary(paid, payoffDate);
        expect(after.outstanding.totalMinor).toBe(0n);
        expect(after.overdue.totalMinor).toBe(0n);
        expect(after.payoff.totalMinor).toBe(0n);
        const later = outstandingSummary(paid, addDays(payoffDate, 400));
        expect(later.outstanding.totalMinor).toBe(0n);
        const balance = trialBalance(
          postingsForAllocation(result).flatMap((p) => p.lines.map((l) => ({ ...l, currency: p.currency }))),
        );
        expect(balance.balanced).toBe(true);
        const portfolio = balance.rows.find((r) => r.accountCode === 'LOAN_PORTFOLIO');
        expect(portfolio?.balanceMinor ?? 0n).toBe(0n);
      }),
      { numRuns: 300 },
    );
  });

  it('paying more than the quote pays the later charges first: only what the excess cannot pay is waived', () => {
    fc.assert(
      fc.property(payoffCase, ({ input, payoffDate, nextId, extraCents }) => {
        const before = outstandingSummary(input, payoffDate);
        fc.pre(before.payoff.totalMinor > 0n);
        const withPayment = (amountMinor: bigint): AllocationInput => ({
          ...input,
          events: [...input.events, { kind: 'PAYMENT', id: nextId, valueDate: payoffDate, amountMinor }],
        });
        const waivedOf = (result: ReturnType<typeof allocatePayments>): bigint =>
          result.installments.reduce(
            (sum, i) => sum + i.interestWaivedMinor + i.feeWaivedMinor + i.penaltyWaivedMinor,
            0n,
          );
        // what paying exactly the quote waives: the later charges the excess can pay instead
        const waivable = waivedOf(allocatePayments(withPayment(before.payoff.totalMinor)));
        const result = allocatePayments(withPayment(before.payoff.totalMinor + extraCents));
        const payment = result.payments.find((p) => p.paymentId === nextId)!;
        const paidInAdvance = extraCents < waivable ? extraCents : waivable;
        expect(payment.payoff).toBe(true);
        expect(payment.overpaymentMinor).toBe(extraCents - paidInAdvance);
        expect(waivedOf(result)).toBe(waivable - paidInAdvance);
        expect(payment.principalMinor + payment.interestMinor + payment.feeMinor + payment.penaltyMinor).toBe(
          before.payoff.totalMinor + paidInAdvance,
        );
        expect(result.installments.every((i) => i.outstandingMinor === 0n)).toBe(true);
        expect(
          result.installments.every(
            (i) => i.obligationsMetOnDate === payoffDate || i.obligationsMetOnDate! < payoffDate,
          ),
        ).toBe(true);
        expect(
          outstandingSummary(withPayment(before.payoff.totalMinor + extraCents), payoffDate).outstanding
            .totalMinor,
        ).toBe(0n);
        const balance = trialBalance(
          postingsForAllocation(result).flatMap((p) => p.lines.map((l) => ({ ...l, currency: p.currency }))),
        );
        expect(balance.balanced).toBe(true);
        const portfolio = balance.rows.find((r) => r.accountCode === 'LOAN_PORTFOLIO');
        expect(portfolio?.balanceMinor ?? 0n).toBe(0n);
      }),
      { numRuns: 300 },
    );
  });
});
