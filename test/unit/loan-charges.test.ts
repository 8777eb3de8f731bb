/**
 * Charges added to an active loan, in the domain: the installment a due date lands on
 * (domain/lending/loan-charges.ts `placeLoanCharge`, Fineract's rule and its "N+1" installment), the charge as an
 * event of the allocation replay (domain/lending/allocation/replay.ts: due on its date, after that day's payments;
 * a waiver out of every payment's reach) and the per-charge paid/waived/outstanding figures.
 *
 * Published: test/vectors/fineract-loan-charges.json (Apache Fineract LoanCharge.feature scenario tables; its
 * README names the source). Each scenario is replayed the way the operations do it: the money events in value-date
 * order, then the charge added (as the features add it, after the payments), then its waiver, each step re-running
 * the replay and appending the journal difference; the schedule, the transactions and the charge are compared to
 * the cent, and the trial balance is zero after every step.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allocatePayments } from '../../domain/lending/allocation/replay';
import type {
  AllocationInput,
  AllocationResult,
  ChargeEvent,
  InstallmentDue,
  MoneyEvent,
} from '../../domain/lending/allocation/types';
import {
  diffPostings,
  type JournalEntry,
  journalLines,
  postingsForAllocation,
  trialBalance,
} from '../../domain/lending/ledger';
import { allocationStrategyOf } from '../../domain/lending/loan-allocation';
import {
  chargeTimeTypeOption,
  type InstallmentSpan,
  loanChargeDefinitionErrors,
  placeLoanCharge,
} from '../../domain/lending/loan-charges';
import { formatMinor, parseDecimalToMinor } from '../../domain/money';

interface VectorCharge {
  dueDate: string;
  amount: string;
  penalty: boolean;
  waivedOnDate?: string;
  expected: { amountPaid: string; amountWaived: string; amountOutstanding: string };
}
interface Scenario {
  scenario: string;
  currency: string;
  transactionProcessingStrategyCode: string;
  installments: { installmentNumber: number; fromDate: string; dueDate: string; principalDue: string }[];
  disbursements: { date: string; amount: string }[];
  payments: { date: string; amount: string }[];
  charges: VectorCharge[];
  expected: {
    installments?: {
      installmentNumber: number;
      dueDate: string;
      principalDue: string;
      feeChargesDue: string;
      penaltyChargesDue: string;
      totalPaid: string;
      totalOutstanding: string;
      obligationsMetOnDate: string | null;
    }[];
    transactions?: {
      date: string;
      type: string;
      amount: string;
      principalPortion: string;
      interestPortion: string;
      feeChargesPortion: string;
      penaltyChargesPortion: string;
      outstandingLoanBalance: string;
    }[];
    totalOutstanding?: string;
    totalOutstandingBeforeWaiver?: string;
    payoff?: { date: string; amount: string; status: string };
  };
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/fineract-loan-charges.json', import.meta.url), 'utf8'),
) as { scenarios: Scenario[] };

const minor = (text: string) => parseDecimalToMinor(text, 2);
const text = (value: bigint) => formatMinor(value, 2);

/** The loan of a scenario as the operations hold it after each step. */
class LoanUnderTest {
  readonly installments: (InstallmentDue & { additional: boolean })[];
  readonly events: MoneyEvent[] = [];
  readonly charges: ChargeEvent[] = [];
  journal: JournalEntry[] = [];
  result: AllocationResult | null = null;

  constructor(readonly scenario: Scenario) {
    this.installments = scenario.installments.map((i) => ({
      installmentNumber: i.installmentNumber,
      fromDate: i.fromDate,
      dueDate: i.dueDate,
      principalDueMinor: minor(i.principalDue),
      interestDueMinor: 0n,
      feeDueMinor: 0n,
      penaltyDueMinor: 0n,
      additional: false,
    }));
  }

  input(): AllocationInput {
    return {
      currency: this.scenario.currency,
      installments: this.installments,
      events: this.events,
      strategy: allocationStrategyOf(this.scenario.transactionProcessingStrategyCode, null),
      charges: this.charges,
    };
  }

  /** Re-runs the replay and appends the journal difference; the trial balance must stay zero. */
  repost(): AllocationResult {
    const result = allocatePayments(this.input());
    this.journal = [...this.journal, ...diffPostings(this.journal, postingsForAllocation(result))];
    expect(trialBalance(journalLines(this.journal)).balanced).toBe(true);
    this.result = result;
    return result;
  }

  /** As activities/lending/add-loan-charge.ts: place the charge (maybe on a new installment), then repost. */
  addCharge(charge: VectorCharge, id: number): void {
    const spans: InstallmentSpan[] = this.installments;
    const placement = placeLoanCharge(spans, charge.dueDate);
    if (placement.kind === 'NEW_ADDITIONAL') {
      this.installments.push({
        installmentNumber: placement.installmentNumber,
        fromDate: placement.fromDate,
        dueDate: placement.dueDate,
        principalDueMinor: 0n,
        interestDueMinor: 0n,
        feeDueMinor: 0n,
        penaltyDueMinor: 0n,
        additional: true,
      });
    } else if (placement.kind === 'MOVE_ADDITIONAL') {
      this.installments.find((i) => i.installmentNumber === placement.installmentNumber)!.dueDate =
        placement.dueDate;
    }
    this.charges.push({
      id,
      installmentNumber: placement.installmentNumber,
      component: charge.penalty ? 'PENALTY' : 'FEE',
      dueDate: charge.dueDate,
      amountMinor: minor(charge.amount),
    });
    this.repost();
  }

  /** As activities/lending/waive-loan-charge.ts: the outstanding amount now is waived, then repost. */
  waive(id: number, waivedOnDate: string): void {
    const state = this.result!.charges.find((c) => c.id === id)!;
    const charge = this.charges.find((c) => c.id === id)!;
    charge.waivedMinor = state.outstandingMinor;
    charge.waivedOnDate = waivedOnDate;
    this.repost();
  }
}

const outstandingOf = (result: AllocationResult) =>
  result.installments.reduce((sum, i) => sum + i.outstandingMinor, 0n);

describe('Fineract LoanCharge.feature scenarios (test/vectors/fineract-loan-charges.json)', () => {
  it('replays twelve scenarios', () => {
    expect(vectors.scenarios).toHaveLength(12);
  });

  for (const scenario of vectors.scenarios) {
    it(scenario.scenario, () => {
      const loan = new LoanUnderTest(scenario);
      let id = 0;
      const money = [
        ...scenario.disbursements.map((d) => ({ kind: 'DISBURSEMENT' as const, ...d })),
        ...scenario.payments.map((p) => ({ kind: 'PAYMENT' as const, ...p })),
      ].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.kind === 'DISBURSEMENT' ? -1 : 1));
      for (const event of money) {
        id += 1;
        loan.events.push({ kind: event.kind, id, valueDate: event.date, amountMinor: minor(event.amount) });
        loan.repost();
      }
      for (const [index, charge] of scenario.charges.entries()) loan.addCharge(charge, index + 1);
      const { expected } = scenario;
      if (expected.totalOutstandingBeforeWaiver !== undefined) {
        expect(text(outstandingOf(loan.result!))).toBe(expected.totalOutstandingBeforeWaiver);
      }
      scenario.charges.forEach((charge, index) => {
        if (charge.waivedOnDate) loan.waive(index + 1, charge.waivedOnDate);
      });
      const result = loan.result!;

      for (const row of expected.installments ?? []) {
        const state = result.installments.find((i) => i.installmentNumber === row.installmentNumber)!;
        const paid =
          state.principalPaidMinor + state.interestPaidMinor + state.feePaidMinor + state.penaltyPaidMinor;
        expect({
          installmentNumber: state.installmentNumber,
          dueDate: state.dueDate,
          principalDue: text(state.principalDueMinor),
          feeChargesDue: text(state.feeDueMinor),
          penaltyChargesDue: text(state.penaltyDueMinor),
          totalPaid: text(paid),
          totalOutstanding: text(state.outstandingMinor),
          obligationsMetOnDate: state.obligationsMetOnDate,
        }).toEqual(row);
      }
      if (expected.installments) expect(result.installments).toHaveLength(expected.installments.length);

      if (expected.transactions) {
        let balance = 0n;
        const rows = [
          ...result.disbursements.map((d) => ({
            order: 0,
            date: d.valueDate,
            amount: d.amountMinor,
            p: null,
          })),
          ...result.payments.map((p) => ({ order: 1, date: p.valueDate, amount: p.amountMinor, p })),
        ]
          .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.order - b.order))
          .map((row) => {
            balance += row.p === null ? row.amount : -row.p.principalMinor;
            return {
              date: row.date,
              amount: text(row.amount),
              principalPortion: text(row.p?.principalMinor ?? 0n),
              interestPortion: text(row.p?.interestMinor ?? 0n),
              feeChargesPortion: text(row.p?.feeMinor ?? 0n),
              penaltyChargesPortion: text(row.p?.penaltyMinor ?? 0n),
              outstandingLoanBalance: text(balance),
            };
          });
        expect(rows).toEqual(expected.transactions.map(({ type: _type, ...row }) => row));
      }

      scenario.charges.forEach((charge, index) => {
        const state = result.charges.find((c) => c.id === index + 1)!;
        expect({
          amountPaid: text(state.paidMinor),
          amountWaived: text(state.waivedMinor),
          amountOutstanding: text(state.outstandingMinor),
        }).toEqual(charge.expected);
      });
      if (expected.totalOutstanding !== undefined) {
        expect(text(outstandingOf(result))).toBe(expected.totalOutstanding);
      }
      if (expected.payoff) {
        id += 1;
        loan.events.push({
          kind: 'PAYMENT',
          id,
          valueDate: expected.payoff.date,
          amountMinor: minor(expected.payoff.amount),
        });
        const paidOff = loan.repost();
        expect(outstandingOf(paidOff)).toBe(0n);
        expect(paidOff.overpaymentMinor).toBe(0n);
        expect(paidOff.installments.every((i) => i.obligationsMetOnDate !== null)).toBe(true);
      }
    });
  }
});

describe('placeLoanCharge (Fineract Loan.addLoanCharge)', () => {
  const schedule: InstallmentSpan[] = [
    { installmentNumber: 1, fromDate: '2024-01-01', dueDate: '2024-02-01', additional: false },
    { installmentNumber: 2, fromDate: '2024-02-01', dueDate: '2024-03-01', additional: false },
  ];

  it('puts the disbursement date in the first installment and a period end in its own installment', () => {
    expect(placeLoanCharge(schedule, '2024-01-01')).toEqual({ kind: 'INSTALLMENT', installmentNumber: 1 });
    expect(placeLoanCharge(schedule, '2024-02-01')).toEqual({ kind: 'INSTALLMENT', installmentNumber: 1 });
    expect(placeLoanCharge(schedule, '2024-02-02')).toEqual({ kind: 'INSTALLMENT', installmentNumber: 2 });
  });

  it('never puts a charge on the down-payment installment: one due at disbursement lands on the next (LoanReAging-Part2.feature)', () => {
    const withDownPayment: InstallmentSpan[] = [
      {
        installmentNumber: 1,
        fromDate: '2025-01-01',
        dueDate: '2025-01-01',
        additional: false,
        downPayment: true,
      },
      { installmentNumber: 2, fromDate: '2025-01-01', dueDate: '2025-02-01', additional: false },
      { installmentNumber: 3, fromDate: '2025-02-01', dueDate: '2025-03-01', additional: false },
    ];
    expect(placeLoanCharge(withDownPayment, '2025-01-01')).toEqual({
      kind: 'INSTALLMENT',
      installmentNumber: 2,
    });
    expect(placeLoanCharge(withDownPayment, '2025-02-01')).toEqual({
      kind: 'INSTALLMENT',
      installmentNumber: 2,
    });
    expect(placeLoanCharge(withDownPayment, '2025-02-02')).toEqual({
      kind: 'INSTALLMENT',
      installmentNumber: 3,
    });
    expect(() => placeLoanCharge(withDownPayment, '2024-12-31')).toThrow(RangeError);
  });

  it('makes an additional installment after the last one, then moves its due date for a later charge', () => {
    expect(placeLoanCharge(schedule, '2024-03-05')).toEqual({
      kind: 'NEW_ADDITIONAL',
      installmentNumber: 3,
      fromDate: '2024-03-01',
      dueDate: '2024-03-05',
    });
    const withAdditional = [
      ...schedule,
      { installmentNumber: 3, fromDate: '2024-03-01', dueDate: '2024-03-05', additional: true },
    ];
    expect(placeLoanCharge(withAdditional, '2024-03-04')).toEqual({
      kind: 'INSTALLMENT',
      installmentNumber: 3,
    });
    expect(placeLoanCharge(withAdditional, '2024-03-09')).toEqual({
      kind: 'MOVE_ADDITIONAL',
      installmentNumber: 3,
      dueDate: '2024-03-09',
    });
  });

  it('refuses a due date before the schedule starts', () => {
    expect(() => placeLoanCharge(schedule, '2023-12-31')).toThrow(RangeError);
  });
});

describe('loanChargeDefinitionErrors', () => {
  const nsf = {
    chargeId: 7,
    name: 'NSF fee',
    currencyCode: 'USD',
    active: true,
    chargeTimeType: 2 as const,
    chargeCalculationType: 1 as const,
    amount: '10.00',
    penalty: true,
  };

  it('accepts an active flat specified-due-date charge of the loan currency', () => {
    expect(loanChargeDefinitionErrors(nsf, 'USD')).toEqual([]);
  });

  it('names chargeId with Fineract-style codes for each broken rule', () => {
    const codes = loanChargeDefinitionErrors(
      { ...nsf, active: false, chargeTimeType: 8, chargeCalculationType: 2 },
      'EUR',
    ).map((e) => [e.parameterName, e.userMessageGlobalisationCode]);
    expect(codes).toEqual([
      ['chargeId', 'error.msg.charge.is.not.active'],
      ['chargeId', 'validation.msg.loancharge.currency.mismatch'],
      ['chargeId', 'validation.msg.loancharge.chargeTimeType.not.allowed'],
      ['chargeId', 'validation.msg.loancharge.chargeCalculationType.not.allowed'],
    ]);
  });

  it('shows chargeTimeType as Fineract EnumOptionData', () => {
    expect(chargeTimeTypeOption(2)).toEqual({
      id: 2,
      code: 'chargeTimeType.specifiedDueDate',
      value: 'Specified due date',
    });
  });
});

describe('a waived charge in the replay', () => {
  const base: AllocationInput = {
    currency: 'USD',
    installments: [
      {
        installmentNumber: 1,
        fromDate: '2024-01-01',
        dueDate: '2024-02-01',
        principalDueMinor: 10000n,
        interestDueMinor: 0n,
        feeDueMinor: 0n,
        penaltyDueMinor: 0n,
      },
    ],
    events: [
      { kind: 'DISBURSEMENT', id: 1, valueDate: '2024-01-01', amountMinor: 10000n },
      { kind: 'PAYMENT', id: 1, valueDate: '2024-01-10', amountMinor: 500n },
    ],
    strategy: allocationStrategyOf('mifos-standard-strategy', null),
  };

  it('keeps the waived part out of a payment back-dated before the waiver, and counts it waived from its date', () => {
    const charge: ChargeEvent = {
      id: 1,
      installmentNumber: 1,
      component: 'FEE',
      dueDate: '2024-01-05',
      amountMinor: 2000n,
      waivedMinor: 1500n,
      waivedOnDate: '2024-01-20',
    };
    const result = allocatePayments({
      ...base,
      events: [...base.events, { kind: 'PAYMENT', id: 2, valueDate: '2024-01-15', amountMinor: 1000n }],
      charges: [charge],
    });
    // 5.00 of the fee was paid on 10 January; the 15 January payment cannot pay the waived 15.00: principal
    expect(result.payments.map((p) => [p.feeMinor, p.principalMinor])).toEqual([
      [500n, 0n],
      [0n, 1000n],
    ]);
    expect(result.charges[0]).toMatchObject({ paidMinor: 500n, waivedMinor: 1500n, outstandingMinor: 0n });
    expect(result.installments[0]).toMatchObject({ feeDueMinor: 2000n, feeWaivedMinor: 1500n });
  });

  it('reopens a met installment when a charge falls due on it, and meets it again on its waiver', () => {
    const paidUp = allocatePayments({
      ...base,
      events: [...base.events, { kind: 'PAYMENT', id: 2, valueDate: '2024-01-15', amountMinor: 9500n }],
      charges: [
        {
          id: 1,
          installmentNumber: 1,
          component: 'PENALTY',
          dueDate: '2024-01-20',
          amountMinor: 1000n,
          waivedMinor: 1000n,
          waivedOnDate: '2024-01-25',
        },
      ],
    });
    expect(paidUp.installments[0]).toMatchObject({
      outstandingMinor: 0n,
      obligationsMetOnDate: '2024-01-25',
    });
  });
});
