/**
 * Hardship relief of a schedule (domain/hardship/relief.ts, docs/processes.md P5 relief types).
 *
 * Oracles:
 * - Hand-computed: each relief type on a 12-installment monthly USD loan (principal 100.00 and interest 10.00 a
 *   month, cents), with the exact resulting rows; the arithmetic is in the comments.
 * - Properties (fast-check) over random schedules (1–30 installments, every frequency, random amounts, paid
 *   prefixes and partially paid installments) and parameters: total due conserved exactly (deferral, forbearance,
 *   reduced payment) or reduced by exactly the reported amount (waiver, rate reduction, forgiveness), due dates
 *   strictly increasing, no negative amount, paid amounts and fully paid installments untouched, the installment
 *   count changed only as documented.
 * - Negative space: the 400 / 409 DomainErrors of bad parameters and reliefs the schedule cannot take.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths } from '../../domain/calendar';
import { DomainError } from '../../domain/errors';
import {
  applyFeeWaiver,
  applyForbearance,
  applyPaymentDeferral,
  applyPrincipalForgiveness,
  applyRateReduction,
  applyReducedPayment,
  applyRelief,
  type ReliefInstallment,
  type ReliefOutcome,
  type ReliefSchedule,
  reliefSize,
  totalDueMinor,
} from '../../domain/hardship/relief';
import { allocatePayments, installmentsFromSchedule } from '../../domain/lending/allocation/replay';
import {
  generateSchedule,
  type PeriodFrequencyType,
  type ScheduleInput,
} from '../../domain/lending/schedule';

// ---- fixtures -------------------------------------------------------------------------------------------------

/** Dollars → cents. */
const usd = (dollars: string): bigint => {
  const [whole, fraction = ''] = dollars.split('.');
  return BigInt(`${whole}${fraction.padEnd(2, '0')}`);
};

interface RowSpec {
  principal?: string;
  interest?: string;
  fee?: string;
  penalty?: string;
  paid?: { principal?: string; interest?: string; fee?: string; penalty?: string };
}

/** A 12-installment monthly loan due on the 15th from 2026-01-15; 100.00 principal + 10.00 interest each. */
function twelveInstallments(overrides: Record<number, RowSpec> = {}): ReliefSchedule {
  const installments: ReliefInstallment[] = [];
  for (let n = 1; n <= 12; n++) {
    const spec = overrides[n] ?? {};
    installments.push({
      installmentNumber: n,
      fromDate: addMonths('2025-12-15', n - 1),
      dueDate: addMonths('2025-12-15', n),
      principalDueMinor: usd(spec.principal ?? '100'),
      interestDueMinor: usd(spec.interest ?? '10'),
      feeDueMinor: usd(spec.fee ?? '0'),
      penaltyDueMinor: usd(spec.penalty ?? '0'),
      principalPaidMinor: usd(spec.paid?.principal ?? '0'),
      interestPaidMinor: usd(spec.paid?.interest ?? '0'),
      feePaidMinor: usd(spec.paid?.fee ?? '0'),
      penaltyPaidMinor: usd(spec.paid?.penalty ?? '0'),
    });
  }
  return { currency: 'USD', repaymentEvery: 1, repaymentFrequencyType: 2, installments };
}

const paidInFull = { principal: '100', interest: '10' };

/** Rows as `[number, dueDate, principal, interest, fee, penalty]` in cents, for exact comparison. */
const rows = (schedule: ReliefSchedule) =>
  schedule.installments.map((i) => [
    i.installmentNumber,
    i.dueDate,
    i.principalDueMinor,
    i.interestDueMinor,
    i.feeDueMinor,
    i.penaltyDueMinor,
  ]);

/** The rows of the untouched 12-installment loan, to splice expectations into. */
const baseRows = () => rows(twelveInstallments());

function expectDomainError(run: () => unknown, code: string, parameterName: string): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const domainError = error as DomainError;
    expect(domainError.code).toBe(code);
    expect(domainError.errors[0]?.parameterName).toBe(parameterName);
    return;
  }
  expect.unreachable('expected a DomainError');
}

const invalid = 'validation.msg.validation.errors.exist';
const notApplicable = 'error.msg.hardship.relief.not.applicable';

// ---- examples -------------------------------------------------------------------------------------------------

describe('PAYMENT_DEFERRAL — examples', () => {
  it('moves the next 2 open installments to the end, one month apart, totals conserved', () => {
    const schedule = twelveInstallments({ 1: { paid: paidInFull }, 2: { paid: paidInFull } });
    const { schedule: after, summary } = applyPaymentDeferral(
      schedule,
      { installmentCount: 2 },
      '2026-03-01',
    );
    const expected = baseRows();
    expected[2] = [3, '2026-03-15', 0n, 0n, 0n, 0n];
    expected[3] = [4, '2026-04-15', 0n, 0n, 0n, 0n];
    expected.push([13, '2027-01-15', 10_000n, 1_000n, 0n, 0n], [14, '2027-02-15', 10_000n, 1_000n, 0n, 0n]);
    expect(rows(after)).toEqual(expected);
    expect(after.installments[12]?.fromDate).toBe('2026-12-15');
    expect(after.installments[13]?.fromDate).toBe('2027-01-15');
    expect(summary).toMatchObject({
      reliefType: 'PAYMENT_DEFERRAL',
      totalDueBeforeMinor: 132_000n,
      totalDueAfterMinor: 132_000n,
      reductionTotalMinor: 0n,
      movedMinor: 22_000n,
      changedInstallmentNumbers: [3, 4],
      addedInstallmentNumbers: [13, 14],
    });
    // The input is not mutated.
    expect(rows(schedule)).toEqual(baseRows());
  });

  it('keeps the paid part of a partially paid installment on it and defers only the rest', () => {
    const schedule = twelveInstallments({
      1: { paid: paidInFull },
      2: { paid: { interest: '10', principal: '40' } },
    });
    // As of 2026-02-15 the next open installment is #2 (due that day): 60.00 principal outstanding moves.
    const { schedule: after } = applyPaymentDeferral(schedule, { installmentCount: 1 }, '2026-02-15');
    expect(rows(after)[1]).toEqual([2, '2026-02-15', 4_000n, 1_000n, 0n, 0n]);
    expect(after.installments[1]?.principalPaidMinor).toBe(4_000n);
    expect(rows(after)[12]).toEqual([13, '2027-01-15', 6_000n, 0n, 0n, 0n]);
  });
});

describe('PAYMENT_DEFERRAL — other frequencies', () => {
  it('follows the loan frequency: every 2 weeks', () => {
    const weekly: ReliefSchedule = {
      ...twelveInstallments(),
      repaymentEvery: 2,
      repaymentFrequencyType: 1,
    };
    const { schedule: after } = applyPaymentDeferral(weekly, { installmentCount: 3 }, '2026-01-01');
    expect(after.installments.slice(12).map((i) => i.dueDate)).toEqual([
      '2026-12-29',
      '2027-01-12',
      '2027-01-26',
    ]);
  });

  it('follows the loan frequency: month ends clamp without drifting', () => {
    const base = twelveInstallments();
    const monthEnd: ReliefSchedule = {
      ...base,
      installments: base.installments.map((i, k) => ({
        ...i,
        fromDate: k === 0 ? '2025-12-31' : addMonths('2025-12-31', k),
        dueDate: addMonths('2025-12-31', k + 1),
      })),
    };
    const { schedule: after } = applyPaymentDeferral(monthEnd, { installmentCount: 3 }, '2026-01-01');
    expect(after.installments.slice(12).map((i) => i.dueDate)).toEqual([
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
    ]);
  });
});

describe('FORBEARANCE — examples', () => {
  it('halves 3 payments and recovers the forborne amounts over the remaining 7, remainder on the last', () => {
    const schedule = twelveInstallments({ 1: { paid: paidInFull }, 2: { paid: paidInFull } });
    const { schedule: after, summary } = applyForbearance(
      schedule,
      { installmentCount: 3, paymentReductionBasisPoints: 5_000 },
      '2026-03-01',
    );
    // #3–#5: 50.00 + 5.00. Forborne 150.00 principal, 15.00 interest over #6–#12 (7 installments):
    // 15000 / 7 = 2142 r 6 → 2142 each, 2148 on #12; 1500 / 7 = 214 r 2 → 214 each, 216 on #12.
    const expected = baseRows();
    for (const n of [3, 4, 5]) expected[n - 1] = [n, addMonths('2025-12-15', n), 5_000n, 500n, 0n, 0n];
    for (const n of [6, 7, 8, 9, 10, 11])
      expected[n - 1] = [n, addMonths('2025-12-15', n), 12_142n, 1_214n, 0n, 0n];
    expected[11] = [12, '2026-12-15', 12_148n, 1_216n, 0n, 0n];
    expect(rows(after)).toEqual(expected);
    expect(summary).toMatchObject({
      totalDueBeforeMinor: 132_000n,
      totalDueAfterMinor: 132_000n,
      movedMinor: 16_500n,
      addedInstallmentNumbers: [],
      changedInstallmentNumbers: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    });
  });

  it('suspends payments at 10000 basis points', () => {
    const { schedule: after } = applyForbearance(
      twelveInstallments(),
      { installmentCount: 10, paymentReductionBasisPoints: 10_000 },
      '2026-01-01',
    );
    // #1–#10 suspended; 1000.00 principal and 100.00 interest recovered over #11 and #12.
    for (let n = 1; n <= 10; n++) expect(rows(after)[n - 1]?.slice(2)).toEqual([0n, 0n, 0n, 0n]);
    expect(rows(after)[10]).toEqual([11, '2026-11-15', 60_000n, 6_000n, 0n, 0n]);
    expect(rows(after)[11]).toEqual([12, '2026-12-15', 60_000n, 6_000n, 0n, 0n]);
  });

  it('refuses a window that leaves nothing to recover over', () => {
    expectDomainError(
      () =>
        applyForbearance(
          twelveInstallments(),
          { installmentCount: 12, paymentReductionBasisPoints: 10_000 },
          '2026-01-01',
        ),
      notApplicable,
      'installmentCount',
    );
  });
});

describe('REDUCED_PAYMENT — examples', () => {
  it('caps 2 payments at 60.00 and appends each shortfall as an extra installment', () => {
    const schedule = twelveInstallments({ 1: { paid: paidInFull }, 2: { paid: paidInFull } });
    const { schedule: after, summary } = applyReducedPayment(
      schedule,
      { installmentCount: 2, reducedPaymentMinor: 6_000n },
      '2026-03-01',
    );
    // #3, #4 keep interest 10.00 then principal 50.00; the 50.00 principal shortfall of each is appended.
    const expected = baseRows();
    expected[2] = [3, '2026-03-15', 5_000n, 1_000n, 0n, 0n];
    expected[3] = [4, '2026-04-15', 5_000n, 1_000n, 0n, 0n];
    expected.push([13, '2027-01-15', 5_000n, 0n, 0n, 0n], [14, '2027-02-15', 5_000n, 0n, 0n, 0n]);
    expect(rows(after)).toEqual(expected);
    expect(summary).toMatchObject({
      totalDueAfterMinor: 132_000n,
      movedMinor: 10_000n,
      addedInstallmentNumbers: [13, 14],
    });
  });

  it('adds nothing for an installment already below the cap', () => {
    const { schedule: after, summary } = applyReducedPayment(
      twelveInstallments(),
      { installmentCount: 1, reducedPaymentMinor: 20_000n },
      '2026-01-01',
    );
    expect(rows(after)).toEqual(baseRows());
    expect(summary.addedInstallmentNumbers).toEqual([]);
    expect(summary.movedMinor).toBe(0n);
  });
});

describe('FEE_WAIVER — examples', () => {
  it('waives penalties then fees due in the window, oldest first, up to the maximum', () => {
    const schedule = twelveInstallments({
      1: { paid: paidInFull },
      2: { penalty: '15', fee: '5' },
      3: { fee: '5' },
      5: { penalty: '25' },
    });
    const { schedule: after, summary } = applyFeeWaiver(
      schedule,
      { fromDate: '2026-02-01', toDate: '2026-04-30', maximumWaiverMinor: 2_300n },
      '2026-03-01',
    );
    // #2: penalty 15.00 then fee 5.00 (20.00); #3: 3.00 of its fee 5.00; #5 is outside the window.
    const expected = rows(schedule);
    expected[1] = [2, '2026-02-15', 10_000n, 1_000n, 0n, 0n];
    expected[2] = [3, '2026-03-15', 10_000n, 1_000n, 200n, 0n];
    expect(rows(after)).toEqual(expected);
    expect(summary.reductionMinor).toEqual({
      principalMinor: 0n,
      interestMinor: 0n,
      feeMinor: 800n,
      penaltyMinor: 1_500n,
    });
    expect(summary.reductionTotalMinor).toBe(2_300n);
    expect(summary.totalDueAfterMinor).toBe(summary.totalDueBeforeMinor - 2_300n);
  });

  it('never waives a paid fee', () => {
    const schedule = twelveInstallments({ 2: { fee: '5', paid: { fee: '5' } } });
    const { summary } = applyFeeWaiver(
      schedule,
      { fromDate: '2026-01-01', toDate: '2026-12-31', maximumWaiverMinor: 10_000n },
      '2026-01-01',
    );
    expect(summary.reductionTotalMinor).toBe(0n);
  });
});

describe('RATE_REDUCTION — examples', () => {
  it('recomputes the interest of the remaining installments at the reduced rate, never below what is paid', () => {
    const schedule = twelveInstallments({ 1: { paid: paidInFull }, 3: { paid: { interest: '7' } } });
    const { schedule: after, summary } = applyRateReduction(
      schedule,
      { currentRateBasisPoints: 1_200, reducedRateBasisPoints: 600 },
      '2026-02-01',
    );
    // #2–#12: 10.00 × 600 / 1200 = 5.00, except #3 which already paid 7.00 of interest.
    const expected = baseRows();
    for (let n = 2; n <= 12; n++)
      expected[n - 1] = [n, addMonths('2025-12-15', n), 10_000n, n === 3 ? 700n : 500n, 0n, 0n];
    expect(rows(after)).toEqual(expected);
    expect(summary.reductionMinor.interestMinor).toBe(10n * 500n + 300n);
    expect(summary.reductionMinor.principalMinor).toBe(0n);
    expect(summary.totalDueAfterMinor).toBe(132_000n - 5_300n);
  });

  it('rounds HALF_EVEN to the cent', () => {
    // 10.01 × 500 / 1000 = 5.005 → 5.00 (even); 10.03 × 500 / 1000 = 5.015 → 5.02.
    const schedule = twelveInstallments({ 1: { interest: '10.01' }, 2: { interest: '10.03' } });
    const { schedule: after } = applyRateReduction(
      schedule,
      { currentRateBasisPoints: 1_000, reducedRateBasisPoints: 500 },
      '2026-01-01',
    );
    expect(after.installments[0]?.interestDueMinor).toBe(500n);
    expect(after.installments[1]?.interestDueMinor).toBe(502n);
  });
});

describe('RATE_REDUCTION — against the schedule generator', () => {
  // Declining balance, equal principal: each installment's interest is balance × periodic rate, so the schedule at
  // 6 % is the schedule at 12 % with every interest halved (1200.00 over 12 months: 12.00, 11.00, … 1.00 → 6.00,
  // 5.50, … 0.50). The loan comes from generateSchedule and allocatePayments (InstallmentState rows in, relief rows out).
  const terms = (rate: string): ScheduleInput => ({
    principal: '1200.00',
    numberOfRepayments: 12,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: rate,
    interestRateFrequencyType: 3,
    interestType: 0,
    amortizationType: 0,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 1,
    daysInMonthType: 1,
    expectedDisbursementDate: '2024-01-01',
    currency: { code: 'USD', digitsAfterDecimal: 2 },
  });

  it('gives the unpaid installments the interest the generator gives at the reduced rate', () => {
    const atTwelve = installmentsFromSchedule(generateSchedule(terms('12')));
    const atSix = installmentsFromSchedule(generateSchedule(terms('6')));
    const allocation = allocatePayments({
      currency: 'USD',
      installments: atTwelve,
      events: [
        { kind: 'DISBURSEMENT', id: 1, valueDate: '2024-01-01', amountMinor: 120_000n },
        { kind: 'PAYMENT', id: 1, valueDate: '2024-02-01', amountMinor: 11_200n },
      ],
      strategy: { code: 'mifos-standard-strategy' },
    });
    const { schedule: after } = applyRateReduction(
      {
        currency: 'USD',
        repaymentEvery: 1,
        repaymentFrequencyType: 2,
        installments: allocation.installments,
      },
      { currentRateBasisPoints: 1_200, reducedRateBasisPoints: 600 },
      '2024-02-02',
    );
    expect(after.installments[0]?.interestDueMinor).toBe(1_200n);
    expect(
      after.installments.slice(1).map((i) => [i.dueDate, i.principalDueMinor, i.interestDueMinor]),
    ).toEqual(atSix.slice(1).map((i) => [i.dueDate, i.principalDueMinor, i.interestDueMinor]));
    // Only the relief's fields come back: the allocation's derived fields would be stale.
    expect(Object.keys(after.installments[1] as object)).not.toContain('outstandingMinor');
  });
});

describe('PRINCIPAL_FORGIVENESS — examples', () => {
  it('reduces principal from the last installment backwards by exactly the amount', () => {
    const { schedule: after, summary } = applyPrincipalForgiveness(
      twelveInstallments(),
      { amountMinor: 25_000n },
      '2026-01-01',
    );
    const expected = baseRows();
    expected[11] = [12, '2026-12-15', 0n, 1_000n, 0n, 0n];
    expected[10] = [11, '2026-11-15', 0n, 1_000n, 0n, 0n];
    expected[9] = [10, '2026-10-15', 5_000n, 1_000n, 0n, 0n];
    expect(rows(after)).toEqual(expected);
    expect(summary).toMatchObject({
      totalDueAfterMinor: 132_000n - 25_000n,
      reductionTotalMinor: 25_000n,
      changedInstallmentNumbers: [10, 11, 12],
    });
  });

  it('refuses more than the principal outstanding from the as-of date', () => {
    // Due on or after 2026-12-01: only #12, 100.00 principal.
    expectDomainError(
      () => applyPrincipalForgiveness(twelveInstallments(), { amountMinor: 10_001n }, '2026-12-01'),
      notApplicable,
      'amountMinor',
    );
  });
});

describe('relief — parameter errors', () => {
  const schedule = twelveInstallments();
  it.each([
    [
      'deferral n = 0',
      () => applyPaymentDeferral(schedule, { installmentCount: 0 }, '2026-01-01'),
      invalid,
      'installmentCount',
    ],
    [
      'deferral n = 1.5',
      () => applyPaymentDeferral(schedule, { installmentCount: 1.5 }, '2026-01-01'),
      invalid,
      'installmentCount',
    ],
    [
      'deferral of more installments than remain',
      () => applyPaymentDeferral(schedule, { installmentCount: 3 }, '2026-10-16'),
      notApplicable,
      'installmentCount',
    ],
    [
      'bad as-of date',
      () => applyPaymentDeferral(schedule, { installmentCount: 1 }, '2026-02-30'),
      invalid,
      'asOfDate',
    ],
    [
      'forbearance 0 basis points',
      () => applyForbearance(schedule, { installmentCount: 1, paymentReductionBasisPoints: 0 }, '2026-01-01'),
      invalid,
      'paymentReductionBasisPoints',
    ],
    [
      'forbearance above 10000 basis points',
      () =>
        applyForbearance(
          schedule,
          { installmentCount: 1, paymentReductionBasisPoints: 10_001 },
          '2026-01-01',
        ),
      invalid,
      'paymentReductionBasisPoints',
    ],
    [
      'negative reduced payment',
      () => applyReducedPayment(schedule, { installmentCount: 1, reducedPaymentMinor: -1n }, '2026-01-01'),
      invalid,
      'reducedPaymentMinor',
    ],
    [
      'negative waiver',
      () =>
        applyFeeWaiver(
          schedule,
          { fromDate: '2026-01-01', toDate: '2026-02-01', maximumWaiverMinor: -5n },
          '2026-01-01',
        ),
      invalid,
      'maximumWaiverMinor',
    ],
    [
      'waiver window reversed',
      () =>
        applyFeeWaiver(
          schedule,
          { fromDate: '2026-02-01', toDate: '2026-01-01', maximumWaiverMinor: 5n },
          '2026-01-01',
        ),
      invalid,
      'toDate',
    ],
    [
      'rate below zero',
      () =>
        applyRateReduction(
          schedule,
          { currentRateBasisPoints: 1_200, reducedRateBasisPoints: -1 },
          '2026-01-01',
        ),
      invalid,
      'reducedRateBasisPoints',
    ],
    [
      'rate not reduced',
      () =>
        applyRateReduction(
          schedule,
          { currentRateBasisPoints: 1_200, reducedRateBasisPoints: 1_200 },
          '2026-01-01',
        ),
      notApplicable,
      'reducedRateBasisPoints',
    ],
    [
      'zero forgiveness',
      () => applyPrincipalForgiveness(schedule, { amountMinor: 0n }, '2026-01-01'),
      invalid,
      'amountMinor',
    ],
    [
      'unknown relief type',
      () =>
        applyRelief('LOAN_FORGIVENESS' as never, schedule, { installmentCount: 1 } as never, '2026-01-01'),
      invalid,
      'reliefType',
    ],
  ])('%s', (_name, run, code, parameterName) => {
    expectDomainError(run, code, parameterName);
  });

  it('rejects a malformed schedule with a RangeError and returns nothing', () => {
    const broken = twelveInstallments({ 2: { paid: { principal: '101' } } });
    expect(() => applyPaymentDeferral(broken, { installmentCount: 1 }, '2026-01-01')).toThrow(RangeError);
  });
});

describe('reliefSize', () => {
  it('measures each relief in its own unit', () => {
    expect(reliefSize('PAYMENT_DEFERRAL', { installmentCount: 3 }, 'USD')).toBe(3);
    expect(
      reliefSize('FORBEARANCE', { installmentCount: 6, paymentReductionBasisPoints: 5_000 }, 'USD'),
    ).toBe(6);
    expect(reliefSize('REDUCED_PAYMENT', { installmentCount: 4, reducedPaymentMinor: 100n }, 'USD')).toBe(4);
    expect(
      reliefSize(
        'FEE_WAIVER',
        { fromDate: '2026-01-01', toDate: '2026-02-01', maximumWaiverMinor: 25_000n },
        'USD',
      ),
    ).toBe(250);
    // A part of a unit rounds up: 250.01 → 251; JPY has no minor digits; KWD has 3.
    expect(reliefSize('PRINCIPAL_FORGIVENESS', { amountMinor: 25_001n }, 'USD')).toBe(251);
    expect(reliefSize('PRINCIPAL_FORGIVENESS', { amountMinor: 25_001n }, 'JPY')).toBe(25_001);
    expect(reliefSize('PRINCIPAL_FORGIVENESS', { amountMinor: 2_000n }, 'KWD')).toBe(2);
    expect(
      reliefSize('RATE_REDUCTION', { currentRateBasisPoints: 1_850, reducedRateBasisPoints: 1_200 }, 'USD'),
    ).toBe(650);
  });

  it('rejects bad parameters as the relief does', () => {
    expectDomainError(
      () => reliefSize('PAYMENT_DEFERRAL', { installmentCount: 0 }, 'USD'),
      invalid,
      'installmentCount',
    );
    expectDomainError(
      () => reliefSize('PRINCIPAL_FORGIVENESS', { amountMinor: -1n }, 'USD'),
      invalid,
      'amountMinor',
    );
  });
});

// ---- properties -----------------------------------------------------------------------------------------------

const frequencyArbitrary = fc.constantFrom<PeriodFrequencyType>(0, 1, 2, 3);

/** A component: due 0–5000.00, paid none, all, or a part of it. */
const componentArbitrary = fc
  .record({ due: fc.bigInt({ min: 0n, max: 500_000n }), paidShare: fc.constantFrom(0, 0, 1, 2) })
  .chain(({ due, paidShare }) =>
    paidShare === 2 && due > 0n
      ? fc.bigInt({ min: 0n, max: due }).map((paid) => ({ due, paid }))
      : fc.constant({ due, paid: paidShare === 1 ? due : 0n }),
  );

const installmentArbitrary = fc.record({
  gapUnits: fc.integer({ min: 1, max: 2 }),
  fullyPaid: fc.boolean(),
  principal: componentArbitrary,
  interest: componentArbitrary,
  fee: componentArbitrary,
  penalty: componentArbitrary,
});

const scheduleArbitrary: fc.Arbitrary<ReliefSchedule> = fc
  .record({
    currency: fc.constantFrom('USD', 'JPY', 'KWD'),
    repaymentEvery: fc.integer({ min: 1, max: 3 }),
    repaymentFrequencyType: frequencyArbitrary,
    startDate: fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }),
    paidPrefix: fc.integer({ min: 0, max: 10 }),
    rows: fc.array(installmentArbitrary, { minLength: 1, maxLength: 30 }),
  })
  .map(({ currency, repaymentEvery, repaymentFrequencyType, startDate, paidPrefix, rows: specs }) => {
    const unitDays = [1, 7, 30, 365][repaymentFrequencyType] as number;
    let dueDate = startDate.toISOString().slice(0, 10);
    const installments = specs.map((spec, index): ReliefInstallment => {
      const fromDate = dueDate;
      dueDate = addDays(fromDate, spec.gapUnits * repaymentEvery * unitDays);
      const paid = index < paidPrefix || spec.fullyPaid;
      const part = (c: { due: bigint; paid: bigint }) => (paid ? c.due : c.paid);
      return {
        installmentNumber: index + 1,
        fromDate,
        dueDate,
        principalDueMinor: spec.principal.due,
        interestDueMinor: spec.interest.due,
        feeDueMinor: spec.fee.due,
        penaltyDueMinor: spec.penalty.due,
        principalPaidMinor: part(spec.principal),
        interestPaidMinor: part(spec.interest),
        feePaidMinor: part(spec.fee),
        penaltyPaidMinor: part(spec.penalty),
      };
    });
    return { currency, repaymentEvery, repaymentFrequencyType, installments };
  });

/** A schedule with an as-of date somewhere from before the first due date to after the last. */
const caseArbitrary = scheduleArbitrary.chain((schedule) =>
  fc
    .record({
      index: fc.nat({ max: schedule.installments.length - 1 }),
      offsetDays: fc.integer({ min: -20, max: 5 }),
    })
    .map(({ index, offsetDays }) => ({
      schedule,
      asOfDate: addDays((schedule.installments[index] as ReliefInstallment).dueDate, offsetDays),
    })),
);

const isOpenRow = (i: ReliefInstallment): boolean =>
  i.principalDueMinor + i.interestDueMinor + i.feeDueMinor + i.penaltyDueMinor >
  i.principalPaidMinor + i.interestPaidMinor + i.feePaidMinor + i.penaltyPaidMinor;

const openFrom = (schedule: ReliefSchedule, asOfDate: string) =>
  schedule.installments.filter((i) => i.dueDate >= asOfDate && isOpenRow(i));

const componentTotal = (schedule: ReliefSchedule, key: keyof ReliefInstallment): bigint =>
  schedule.installments.reduce((sum, i) => sum + (i[key] as bigint), 0n);

/** The invariants of every relief (module note of domain/hardship/relief.ts). */
function expectWellFormed(before: ReliefSchedule, result: ReliefOutcome, addedCount: number): void {
  const after = result.schedule.installments;
  expect(after).toHaveLength(before.installments.length + addedCount);
  expect(result.summary.addedInstallmentNumbers).toHaveLength(addedCount);
  for (let k = 0; k < after.length; k++) {
    const row = after[k] as ReliefInstallment;
    expect(row.fromDate <= row.dueDate).toBe(true);
    if (k > 0) {
      const previous = after[k - 1] as ReliefInstallment;
      expect(row.dueDate > previous.dueDate).toBe(true);
      expect(row.installmentNumber).toBeGreaterThan(previous.installmentNumber);
    }
    for (const [due, paid] of [
      [row.principalDueMinor, row.principalPaidMinor],
      [row.interestDueMinor, row.interestPaidMinor],
      [row.feeDueMinor, row.feePaidMinor],
      [row.penaltyDueMinor, row.penaltyPaidMinor],
    ] as const) {
      expect(paid >= 0n).toBe(true);
      expect(due >= paid).toBe(true);
    }
  }
  before.installments.forEach((old, k) => {
    const now = after[k] as ReliefInstallment;
    expect(now.installmentNumber).toBe(old.installmentNumber);
    expect(now.dueDate).toBe(old.dueDate);
    expect(now.fromDate).toBe(old.fromDate);
    expect([now.principalPaidMinor, now.interestPaidMinor, now.feePaidMinor, now.penaltyPaidMinor]).toEqual([
      old.principalPaidMinor,
      old.interestPaidMinor,
      old.feePaidMinor,
      old.penaltyPaidMinor,
    ]);
    if (!isOpenRow(old)) expect(now).toEqual(old);
  });
  expect(result.summary.totalDueBeforeMinor).toBe(totalDueMinor(before));
  expect(result.summary.totalDueAfterMinor).toBe(totalDueMinor(result.schedule));
  expect(result.summary.totalDueAfterMinor).toBe(totalDueMinor(before) - result.summary.reductionTotalMinor);
}

/** The test's own period arithmetic: `periods` repayment periods after `date`. */
function periodsAfter(schedule: ReliefSchedule, date: string, periods: number): string {
  const units = periods * schedule.repaymentEvery;
  if (schedule.repaymentFrequencyType === 0) return addDays(date, units);
  if (schedule.repaymentFrequencyType === 1) return addDays(date, 7 * units);
  return addMonths(date, (schedule.repaymentFrequencyType === 2 ? 1 : 12) * units);
}

/** n from 1 to the open installments from the as-of date; `pick` in [0, 1). */
const countOf = (open: number, pick: number) => 1 + Math.floor(pick * open);
const pickArbitrary = fc.double({ min: 0, max: 0.999, noNaN: true });
const numRuns = 150;

describe('relief — properties', () => {
  it('PAYMENT_DEFERRAL conserves the total and each component, appends n installments', () => {
    fc.assert(
      fc.property(caseArbitrary, pickArbitrary, ({ schedule, asOfDate }, pick) => {
        const open = openFrom(schedule, asOfDate).length;
        if (open === 0) {
          expect(() => applyPaymentDeferral(schedule, { installmentCount: 1 }, asOfDate)).toThrow(
            DomainError,
          );
          return;
        }
        const n = countOf(open, pick);
        const result = applyPaymentDeferral(schedule, { installmentCount: n }, asOfDate);
        expectWellFormed(schedule, result, n);
        expect(result.summary.totalDueAfterMinor).toBe(result.summary.totalDueBeforeMinor);
        for (const key of [
          'principalDueMinor',
          'interestDueMinor',
          'feeDueMinor',
          'penaltyDueMinor',
        ] as const) {
          expect(componentTotal(result.schedule, key)).toBe(componentTotal(schedule, key));
        }
        // The window's outstanding parts, in order, are the appended rows, one period apart after the last due date.
        const window = openFrom(schedule, asOfDate).slice(0, n);
        const added = result.schedule.installments.slice(schedule.installments.length);
        const last = schedule.installments[schedule.installments.length - 1] as ReliefInstallment;
        window.forEach((old, k) => {
          const row = added[k] as ReliefInstallment;
          expect([row.principalDueMinor, row.interestDueMinor, row.feeDueMinor, row.penaltyDueMinor]).toEqual(
            [
              old.principalDueMinor - old.principalPaidMinor,
              old.interestDueMinor - old.interestPaidMinor,
              old.feeDueMinor - old.feePaidMinor,
              old.penaltyDueMinor - old.penaltyPaidMinor,
            ],
          );
          expect(row.dueDate).toBe(periodsAfter(schedule, last.dueDate, k + 1));
          const deferred = result.schedule.installments[old.installmentNumber - 1] as ReliefInstallment;
          expect(isOpenRow(deferred)).toBe(false);
        });
        expect(() => applyPaymentDeferral(schedule, { installmentCount: open + 1 }, asOfDate)).toThrow(
          DomainError,
        );
      }),
      { numRuns },
    );
  });

  it('FORBEARANCE conserves the total and each component, count unchanged', () => {
    fc.assert(
      fc.property(
        caseArbitrary,
        pickArbitrary,
        fc.integer({ min: 1, max: 10_000 }),
        ({ schedule, asOfDate }, pick, basisPoints) => {
          const open = openFrom(schedule, asOfDate).length;
          if (open < 2) {
            expect(() =>
              applyForbearance(
                schedule,
                { installmentCount: 1, paymentReductionBasisPoints: basisPoints },
                asOfDate,
              ),
            ).toThrow(DomainError);
            return;
          }
          const n = countOf(open - 1, pick);
          const result = applyForbearance(
            schedule,
            { installmentCount: n, paymentReductionBasisPoints: basisPoints },
            asOfDate,
          );
          expectWellFormed(schedule, result, 0);
          expect(result.summary.totalDueAfterMinor).toBe(result.summary.totalDueBeforeMinor);
          // Each window component is reduced by its share, rounded down; the moved total is what the window lost.
          let lost = 0n;
          for (const old of openFrom(schedule, asOfDate).slice(0, n)) {
            const now = result.schedule.installments[old.installmentNumber - 1] as ReliefInstallment;
            for (const [due, paid, nowDue] of [
              [old.principalDueMinor, old.principalPaidMinor, now.principalDueMinor],
              [old.interestDueMinor, old.interestPaidMinor, now.interestDueMinor],
              [old.feeDueMinor, old.feePaidMinor, now.feeDueMinor],
              [old.penaltyDueMinor, old.penaltyPaidMinor, now.penaltyDueMinor],
            ] as const) {
              expect(due - nowDue).toBe(((due - paid) * BigInt(basisPoints)) / 10_000n);
              lost += due - nowDue;
            }
          }
          expect(result.summary.movedMinor).toBe(lost);
          for (const key of [
            'principalDueMinor',
            'interestDueMinor',
            'feeDueMinor',
            'penaltyDueMinor',
          ] as const) {
            expect(componentTotal(result.schedule, key)).toBe(componentTotal(schedule, key));
          }
        },
      ),
      { numRuns },
    );
  });

  it('REDUCED_PAYMENT conserves the total, caps the window, appends one installment per shortfall', () => {
    fc.assert(
      fc.property(
        caseArbitrary,
        pickArbitrary,
        fc.bigInt({ min: 0n, max: 1_000_000n }),
        ({ schedule, asOfDate }, pick, cap) => {
          const openRows = openFrom(schedule, asOfDate);
          if (openRows.length === 0) return;
          const n = countOf(openRows.length, pick);
          const result = applyReducedPayment(
            schedule,
            { installmentCount: n, reducedPaymentMinor: cap },
            asOfDate,
          );
          const window = openRows.slice(0, n);
          const outstanding = (i: ReliefInstallment) =>
            i.principalDueMinor +
            i.interestDueMinor +
            i.feeDueMinor +
            i.penaltyDueMinor -
            (i.principalPaidMinor + i.interestPaidMinor + i.feePaidMinor + i.penaltyPaidMinor);
          const shortfalls = window.filter((i) => outstanding(i) > cap).length;
          expectWellFormed(schedule, result, shortfalls);
          expect(result.summary.totalDueAfterMinor).toBe(result.summary.totalDueBeforeMinor);
          for (const old of window) {
            const now = result.schedule.installments.find(
              (i) => i.installmentNumber === old.installmentNumber,
            );
            expect(outstanding(now as ReliefInstallment) <= cap).toBe(true);
          }
        },
      ),
      { numRuns },
    );
  });

  it('FEE_WAIVER reduces the total by exactly the reported waiver, at most the maximum, fees and penalties only', () => {
    fc.assert(
      fc.property(
        caseArbitrary,
        fc.integer({ min: 0, max: 400 }),
        fc.bigInt({ min: 1n, max: 2_000_000n }),
        ({ schedule, asOfDate }, windowDays, maximum) => {
          const params = {
            fromDate: asOfDate,
            toDate: addDays(asOfDate, windowDays),
            maximumWaiverMinor: maximum,
          };
          const result = applyFeeWaiver(schedule, params, asOfDate);
          expectWellFormed(schedule, result, 0);
          const { reductionMinor, reductionTotalMinor } = result.summary;
          expect(reductionTotalMinor <= maximum).toBe(true);
          expect(reductionMinor.principalMinor).toBe(0n);
          expect(reductionMinor.interestMinor).toBe(0n);
          expect(
            componentTotal(schedule, 'feeDueMinor') - componentTotal(result.schedule, 'feeDueMinor'),
          ).toBe(reductionMinor.feeMinor);
          // Everything waivable is waived when the maximum allows it.
          const waivable = schedule.installments
            .filter((i) => i.dueDate >= params.fromDate && i.dueDate <= params.toDate)
            .reduce(
              (s, i) => s + i.feeDueMinor - i.feePaidMinor + i.penaltyDueMinor - i.penaltyPaidMinor,
              0n,
            );
          expect(reductionTotalMinor).toBe(waivable < maximum ? waivable : maximum);
        },
      ),
      { numRuns },
    );
  });

  it('RATE_REDUCTION conserves principal and reduces the total by exactly the reported interest reduction', () => {
    fc.assert(
      fc.property(
        caseArbitrary,
        fc.integer({ min: 1, max: 5_000 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        ({ schedule, asOfDate }, current, share) => {
          const reduced = Math.floor(current * share);
          const params = { currentRateBasisPoints: current, reducedRateBasisPoints: reduced };
          if (openFrom(schedule, asOfDate).length === 0) {
            expect(() => applyRateReduction(schedule, params, asOfDate)).toThrow(DomainError);
            return;
          }
          const result = applyRateReduction(schedule, params, asOfDate);
          expectWellFormed(schedule, result, 0);
          expect(componentTotal(result.schedule, 'principalDueMinor')).toBe(
            componentTotal(schedule, 'principalDueMinor'),
          );
          expect(result.summary.reductionMinor.interestMinor).toBe(result.summary.reductionTotalMinor);
          expect(result.summary.reductionTotalMinor >= 0n).toBe(true);
          expect(reliefSize('RATE_REDUCTION', params, schedule.currency)).toBe(current - reduced);
        },
      ),
      { numRuns },
    );
  });

  it('PRINCIPAL_FORGIVENESS reduces the total by exactly the forgiven amount, principal only, latest first', () => {
    fc.assert(
      fc.property(caseArbitrary, pickArbitrary, ({ schedule, asOfDate }, pick) => {
        const available = openFrom(schedule, asOfDate).reduce(
          (s, i) => s + i.principalDueMinor - i.principalPaidMinor,
          0n,
        );
        if (available === 0n) {
          expect(() => applyPrincipalForgiveness(schedule, { amountMinor: 1n }, asOfDate)).toThrow(
            DomainError,
          );
          return;
        }
        const amount = 1n + BigInt(Math.floor(pick * Number(available)));
        const result = applyPrincipalForgiveness(schedule, { amountMinor: amount }, asOfDate);
        expectWellFormed(schedule, result, 0);
        expect(result.summary.reductionTotalMinor).toBe(amount);
        expect(
          componentTotal(schedule, 'principalDueMinor') -
            componentTotal(result.schedule, 'principalDueMinor'),
        ).toBe(amount);
        // Only the earliest changed installment can keep outstanding principal.
        const changed = result.summary.changedInstallmentNumbers;
        for (const number of changed.slice(1)) {
          const row = result.schedule.installments[number - 1] as ReliefInstallment;
          expect(row.principalDueMinor).toBe(row.principalPaidMinor);
        }
        expect(() => applyPrincipalForgiveness(schedule, { amountMinor: available + 1n }, asOfDate)).toThrow(
          DomainError,
        );
      }),
      { numRuns },
    );
  });
});
