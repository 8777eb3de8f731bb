/**
 * A charge added to an active loan before a payment allocates exactly as the same charge given with the
 * application (domain/lending/allocation/types.ts `ChargeEvent.effectiveDate`, domain/lending/loan-allocation.ts
 * `chargeTimingOf`): under Fineract's cumulative processors every charge belongs to its installment for the whole
 * replay (`AbstractLoanRepaymentScheduleTransactionProcessor.reprocessLoanTransactions`), and under advanced payment
 * allocation a charge submitted before every payment is on its installment when each of them is replayed
 * (`AdvancedPaymentScheduleTransactionProcessor`, `ChangeOperation.getEffectiveDate`). Property tests over random
 * schedules, payments and charges; the installments' paid amounts, the payments' allocation lines and the met-on dates
 * must be identical.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocatePayments } from '../../domain/lending/allocation/replay';
import type {
  AllocationInput,
  AllocationStrategy,
  InstallmentDue,
} from '../../domain/lending/allocation/types';
import { allocationStrategyOf, chargeTimingOf } from '../../domain/lending/loan-allocation';

const day = (offset: number): string =>
  new Date(Date.UTC(2024, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

const strategies = [
  'mifos-standard-strategy',
  'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy',
  'advanced-payment-allocation-strategy',
] as const;

/** A loan of 1–4 monthly-ish installments, disbursed on day 0, paid on later days, with one or two added charges. */
const loanArbitrary = fc
  .record({
    strategy: fc.constantFrom(...strategies),
    principals: fc.array(fc.bigInt({ min: 1n, max: 50_000n }), { minLength: 1, maxLength: 4 }),
    interest: fc.bigInt({ min: 0n, max: 2_000n }),
    period: fc.integer({ min: 7, max: 31 }),
    payments: fc.array(
      fc.record({ offset: fc.integer({ min: 1, max: 150 }), amount: fc.bigInt({ min: 1n, max: 60_000n }) }),
      {
        maxLength: 5,
      },
    ),
    charges: fc.array(
      fc.record({
        installmentIndex: fc.nat(),
        dayInPeriod: fc.nat(),
        penalty: fc.boolean(),
        amount: fc.bigInt({ min: 1n, max: 5_000n }),
      }),
      { minLength: 1, maxLength: 2 },
    ),
  })
  .map((draw) => {
    const installments: InstallmentDue[] = draw.principals.map((principal, i) => ({
      installmentNumber: i + 1,
      fromDate: day(i * draw.period),
      dueDate: day((i + 1) * draw.period),
      principalDueMinor: principal,
      interestDueMinor: draw.interest,
      feeDueMinor: 0n,
      penaltyDueMinor: 0n,
    }));
    const charges = draw.charges.map((c, i) => {
      const index = c.installmentIndex % installments.length;
      const offset = index * draw.period + 1 + (c.dayInPeriod % draw.period);
      return { id: i + 1, index, dueDate: day(offset), penalty: c.penalty, amount: c.amount };
    });
    return { ...draw, installments, charges };
  });

type Loan = typeof loanArbitrary extends fc.Arbitrary<infer T> ? T : never;

const disbursed = (loan: Loan): bigint => loan.installments.reduce((sum, i) => sum + i.principalDueMinor, 0n);

/** The loan with its charges given with the application: in their installments' dues from the start. */
function withApplicationCharges(loan: Loan, strategy: AllocationStrategy): AllocationInput {
  return {
    currency: 'USD',
    installments: loan.installments.map((installment, index) => {
      const mine = loan.charges.filter((c) => c.index === index);
      return {
        ...installment,
        feeDueMinor: mine.filter((c) => !c.penalty).reduce((sum, c) => sum + c.amount, 0n),
        penaltyDueMinor: mine.filter((c) => c.penalty).reduce((sum, c) => sum + c.amount, 0n),
      };
    }),
    events: [
      { kind: 'DISBURSEMENT', id: 1, valueDate: day(0), amountMinor: disbursed(loan) },
      ...loan.payments.map((p, i) => ({
        kind: 'PAYMENT' as const,
        id: i + 1,
        valueDate: day(p.offset),
        amountMinor: p.amount,
      })),
    ],
    strategy,
  };
}

/** The same loan with its charges added on `submittedOnDate` through the charges route (stored as loan charges). */
function withAddedCharges(
  loan: Loan,
  strategy: AllocationStrategy,
  submittedOnDate: string,
): AllocationInput {
  const application = withApplicationCharges(loan, strategy);
  return {
    ...application,
    installments: loan.installments,
    charges: loan.charges.map((c) => ({
      id: c.id,
      installmentNumber: c.index + 1,
      component: c.penalty ? ('PENALTY' as const) : ('FEE' as const),
      dueDate: c.dueDate,
      ...chargeTimingOf(strategy, { dueDate: c.dueDate, submittedOnDate }),
      submittedOnDate,
      amountMinor: c.amount,
    })),
  };
}

/** What the two must agree on: every payment's lines and every installment's dues, payments and met-on date. */
function comparable(input: AllocationInput) {
  const result = allocatePayments(input);
  return {
    payments: result.payments.map(({ paymentId, lines, payoff }) => ({ paymentId, lines, payoff })),
    installments: result.installments,
    overpaymentMinor: result.overpaymentMinor,
  };
}

describe('a charge added before a payment allocates as the same charge given with the application', () => {
  it('for every strategy, when it is added on the disbursement day (property)', () => {
    fc.assert(
      fc.property(loanArbitrary, (loan) => {
        const strategy = allocationStrategyOf(loan.strategy, null);
        expect(comparable(withAddedCharges(loan, strategy, day(0)))).toEqual(
          comparable(withApplicationCharges(loan, strategy)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('under a cumulative strategy, whenever before the first payment it is added, whatever its due date (property)', () => {
    fc.assert(
      fc.property(
        loanArbitrary.filter((loan) => loan.strategy !== 'advanced-payment-allocation-strategy'),
        fc.integer({ min: 0, max: 150 }),
        (loan, draw) => {
          const first = Math.min(150, ...loan.payments.map((p) => p.offset));
          const strategy = allocationStrategyOf(loan.strategy, null);
          expect(comparable(withAddedCharges(loan, strategy, day(draw % (first + 1))))).toEqual(
            comparable(withApplicationCharges(loan, strategy)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a charge added after a payment that paid the loan off stays owed: the loan reopens (LoanCharge.feature)', () => {
    for (const code of strategies) {
      const strategy = allocationStrategyOf(code, null);
      const loan = advancedLoan([100_000n], 100_000n, { index: 0, dueDay: 31 });
      loan.payments = [{ offset: 31, amount: 100_000n }];
      loan.charges = [{ id: 1, index: 0, dueDate: day(31), penalty: false, amount: 2_000n }];
      // added on day 32, after the payoff of day 31: owed
      const after = allocatePayments(withAddedCharges(loan, strategy, day(32)));
      expect(after.installments[0]?.outstandingMinor, code).toBe(2_000n);
      expect(after.installments[0]?.feeWaivedMinor, code).toBe(0n);
      // added the day before the payment: the same as a charge of the application
      expect(comparable(withAddedCharges(loan, strategy, day(30))), code).toEqual(
        comparable(withApplicationCharges(loan, strategy)),
      );
    }
  });

  const advancedLoan = (
    principals: bigint[],
    payment: bigint,
    charge: { index: number; dueDay: number },
  ): Loan => ({
    strategy: 'advanced-payment-allocation-strategy',
    principals,
    interest: 0n,
    period: 31,
    payments: [{ offset: 9, amount: payment }],
    charges: [{ id: 1, index: charge.index, dueDate: day(charge.dueDay), penalty: false, amount: 2_000n }],
    installments: principals.map((principal, i) => ({
      installmentNumber: i + 1,
      fromDate: day(i * 31),
      dueDate: day((i + 1) * 31),
      principalDueMinor: principal,
      interestDueMinor: 0n,
      feeDueMinor: 0n,
      penaltyDueMinor: 0n,
    })),
  });

  it('under advanced payment allocation, a payment before the charge was submitted pays it only from an overpayment', () => {
    const strategy = allocationStrategyOf('advanced-payment-allocation-strategy', null);
    // two installments of 500.00, a 20.00 fee on the first, 510.00 paid on day 9
    const loan = advancedLoan([50_000n, 50_000n], 51_000n, { index: 0, dueDay: 31 });
    // submitted on day 5, before the payment: its 10.00 goes to the first installment's fee (in advance)
    const early = allocatePayments(withAddedCharges(loan, strategy, day(5)));
    expect(early.payments[0]?.feeMinor).toBe(1_000n);
    expect(early.installments[1]?.principalPaidMinor).toBe(0n);
    // submitted on day 20, after it: the 10.00 went to the next installment's principal, the fee stays due
    const late = allocatePayments(withAddedCharges(loan, strategy, day(20)));
    expect(late.payments[0]?.feeMinor).toBe(0n);
    expect(late.installments[1]?.principalPaidMinor).toBe(1_000n);
    expect(late.charges[0]?.outstandingMinor).toBe(2_000n);
  });

  it('a charge that joins after an overpayment is paid from it (Fineract processOverpaidTransactions)', () => {
    const strategy = allocationStrategyOf('advanced-payment-allocation-strategy', null);
    const loan = advancedLoan([100_000n], 102_500n, { index: 0, dueDay: 31 });
    const result = allocatePayments(withAddedCharges(loan, strategy, day(20)));
    const payment = result.payments[0];
    expect(payment?.principalMinor).toBe(100_000n);
    expect(payment?.feeMinor).toBe(2_000n);
    expect(payment?.overpaymentMinor).toBe(500n);
    expect(payment?.lines).toEqual([
      { installmentNumber: 1, component: 'PRINCIPAL', amountMinor: 100_000n },
      { installmentNumber: 1, component: 'FEE', amountMinor: 2_000n },
      { installmentNumber: null, component: 'OVERPAYMENT', amountMinor: 500n },
    ]);
    expect(result.overpaymentMinor).toBe(500n);
    expect(result.installments[0]?.outstandingMinor).toBe(0n);
    expect(result.installments[0]?.obligationsMetOnDate).toBe(day(9));
    expect(result.charges[0]).toMatchObject({ paidMinor: 2_000n, outstandingMinor: 0n });
  });
});
