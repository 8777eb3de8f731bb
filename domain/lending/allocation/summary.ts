/**
 * The loan summary at the end of a day: outstanding and overdue amounts by component, days past due, the
 * payoff quote (payoff.ts) and the overpayments held; from a replay of the events (`outstandingSummary`) or from
 * the state the last posting stored (`summaryFromPostedState`). Outstanding interest, fees and penalties count
 * every scheduled installment, as Apache Fineract's loan summary; principal outstanding = disbursed − forgiven −
 * repaid (replay.ts module note).
 *
 * Pure; amounts in minor units (bigint); dates ISO calendar dates. RangeError for malformed input or dates.
 */

import { epochDay } from './accrual';
import { paidRecordOf, payoffRule, waivedRecordOf } from './payoff';
import { type NormalizedInstallment, normalize, normalizeInstallment, replay } from './replay';
import type { AllocationInput, InstallmentState } from './types';

/** Outstanding amounts by component, minor units. */
export interface ComponentAmounts {
  principalMinor: bigint;
  interestMinor: bigint;
  feeMinor: bigint;
  penaltyMinor: bigint;
  totalMinor: bigint;
}

/** Output of `outstandingSummary`. Amounts in minor units. */
export interface OutstandingSummary {
  asOfDate: string;
  currency: string;
  /**
   * What remains unpaid: principal = disbursed up to `asOfDate` − principal forgiven (module note) − principal
   * repaid; interest, fees and penalties
   * = everything scheduled (every installment, as Fineract's loan summary) − paid.
   */
  outstanding: ComponentAmounts;
  /** Unpaid components of installments due before `asOfDate` (a payment on the due date is on time). */
  overdue: ComponentAmounts & {
    /** Due date of the oldest installment with something overdue, null when nothing is. */
    oldestOverdueDueDate: string | null;
    /** Calendar days from `oldestOverdueDueDate` to `asOfDate`, 0 when nothing is overdue. */
    daysPastDue: number;
  };
  /**
   * Amount that pays the loan off at the end of `asOfDate` (`payoffRule`, module note), and its parts.
   * `currentPeriodInterestMinor` is the accrued, unpaid interest of `currentInstallmentNumber`, the installment
   * whose period strictly contains `asOfDate` (from date < asOfDate < due date), null when none does.
   */
  payoff: ComponentAmounts & { currentInstallmentNumber: number | null; currentPeriodInterestMinor: bigint };
  /** Overpayments held for the borrower (not netted from the payoff). */
  overpaymentMinor: bigint;
}

/**
 * The loan at the end of `asOfDate`: the replay of the events value-dated on or before it (later events are
 * validated but ignored). Before the first disbursement every amount is zero. Outstanding and overdue amounts
 * leave out what a payoff waived.
 *
 * Payoff: `payoffRule` (module note), the same function the replay uses to decide that a payment pays the loan
 * off, so a payment of `payoff.totalMinor` value-dated `asOfDate` closes the loan with nothing owed (when the
 * whole scheduled principal is disbursed by then). Overpayments are reported apart, not deducted.
 *
 * RangeError as `allocatePayments`, and for an invalid `asOfDate`.
 */
export function outstandingSummary(input: AllocationInput, asOfDate: string): OutstandingSummary {
  const loan = normalize(input);
  const asOfDay = epochDay(asOfDate, 'asOfDate');
  const result = replay(
    loan,
    loan.events.filter((event) => event.day <= asOfDay),
  );
  return summaryOfState(
    loan.currency,
    // the dues as replayed: with the charges fallen due by `asOfDate` (replay.ts module note)
    result.installments.map((installment, position) => normalizeInstallment(installment, position)),
    {
      installments: result.installments,
      disbursedMinor: result.disbursedMinor,
      disbursementCount: result.disbursements.length,
      overpaymentMinor: result.overpaymentMinor,
      principalForgivenMinor: loan.principalForgivenMinor,
    },
    asOfDate,
    asOfDay,
  );
}

/**
 * The installments as the replay of the events value-dated on or before `asOfDate` leaves them (their due amounts
 * with the charges fallen due by then, and what is paid and waived of them): the state `outstandingSummary` reads,
 * for figures per installment (domain/lending/delinquency.ts). RangeError as `outstandingSummary`.
 */
export function installmentStatesAsOf(input: AllocationInput, asOfDate: string): InstallmentState[] {
  const loan = normalize(input);
  const asOfDay = epochDay(asOfDate, 'asOfDate');
  return replay(
    loan,
    loan.events.filter((event) => event.day <= asOfDay),
  ).installments;
}

/**
 * A loan's allocation state as the posting transaction keeps it (the installments' paid and waived
 * columns, which `repost-loan` writes from `allocatePayments` over every posted event, are a projection
 * maintained with each posting): per installment its due, paid and waived amounts, and the totals of the events.
 */
export interface PostedLoanState {
  /** ISO 4217 code. */
  currency: string;
  /** Ordered by installment number; `outstandingMinor` and `obligationsMetOnDate` are not read. */
  installments: readonly Omit<InstallmentState, 'outstandingMinor' | 'obligationsMetOnDate'>[];
  /** Σ of every disbursement, minor units. */
  disbursedMinor: bigint;
  /** Number of disbursements. */
  disbursementCount: number;
  /** Σ of the overpayments of every payment, minor units. */
  overpaymentMinor: bigint;
  /** Σ principal forgiven by reliefs (module note), minor units; absent = 0. */
  principalForgivenMinor?: bigint;
}

/**
 * `outstandingSummary` from the state the last posting stored, without replaying the events (the
 * summary is the most polled read). Equal to `outstandingSummary` of the same loan whenever NO event is
 * value-dated after `asOfDate` (the state then is exactly the replay's); the caller must use
 * `outstandingSummary` otherwise. RangeError for an invalid `asOfDate` or installment dates.
 */
export function summaryFromPostedState(state: PostedLoanState, asOfDate: string): OutstandingSummary {
  const asOfDay = epochDay(asOfDate, 'asOfDate');
  const installments = state.installments.map((installment, position) =>
    normalizeInstallment(installment, position),
  );
  return summaryOfState(state.currency, installments, state, asOfDate, asOfDay);
}

/** The summary's figures from installments and their allocation state (shared by both entry points above). */
function summaryOfState(
  currency: string,
  installments: readonly Pick<NormalizedInstallment, 'fromDay' | 'dueDay' | 'dueMinor'>[],
  result: {
    installments: readonly Omit<InstallmentState, 'outstandingMinor' | 'obligationsMetOnDate'>[];
    disbursedMinor: bigint;
    disbursementCount: number;
    overpaymentMinor: bigint;
    principalForgivenMinor?: bigint;
  },
  asOfDate: string,
  asOfDay: number,
): OutstandingSummary {
  const loan = { currency, installments };
  const zero = (): ComponentAmounts => ({
    principalMinor: 0n,
    interestMinor: 0n,
    feeMinor: 0n,
    penaltyMinor: 0n,
    totalMinor: 0n,
  });
  const summary: OutstandingSummary = {
    asOfDate,
    currency: loan.currency,
    outstanding: zero(),
    overdue: { ...zero(), oldestOverdueDueDate: null, daysPastDue: 0 },
    payoff: { ...zero(), currentInstallmentNumber: null, currentPeriodInterestMinor: 0n },
    overpaymentMinor: result.overpaymentMinor,
  };
  if (result.disbursementCount === 0) return summary;

  let principalRepaid = 0n;
  for (const installment of result.installments) principalRepaid += installment.principalPaidMinor;
  const lent = result.disbursedMinor - (result.principalForgivenMinor ?? 0n);
  const principalOutstanding = (lent > 0n ? lent : 0n) - principalRepaid;
  const { outstanding, overdue } = summary;
  outstanding.principalMinor = principalOutstanding;
  const quote = payoffRule(
    loan.installments.map((installment, index) => ({
      fromDay: installment.fromDay,
      dueDay: installment.dueDay,
      dueMinor: installment.dueMinor,
      paidMinor: paidRecordOf(result.installments[index]!),
      waivedMinor: waivedRecordOf(result.installments[index]!),
    })),
    principalOutstanding,
    asOfDay,
  );
  summary.payoff = {
    principalMinor: quote.principalMinor,
    interestMinor: quote.interestMinor,
    feeMinor: quote.feeMinor,
    penaltyMinor: quote.penaltyMinor,
    totalMinor: quote.totalMinor,
    currentInstallmentNumber:
      quote.currentIndex === null ? null : result.installments[quote.currentIndex]!.installmentNumber,
    currentPeriodInterestMinor: quote.currentPeriodInterestMinor,
  };

  // undisbursed principal is never overdue: cap the overdue principal by what is outstanding
  let overduePrincipalRoom = principalOutstanding;
  for (const [index, state] of result.installments.entries()) {
    const dueDay = loan.installments[index]!.dueDay;
    const interest = state.interestDueMinor - state.interestPaidMinor - state.interestWaivedMinor;
    const fee = state.feeDueMinor - state.feePaidMinor - state.feeWaivedMinor;
    const penalty = state.penaltyDueMinor - state.penaltyPaidMinor - state.penaltyWaivedMinor;
    outstanding.interestMinor += interest;
    outstanding.feeMinor += fee;
    outstanding.penaltyMinor += penalty;
    if (dueDay < asOfDay) {
      let principal = state.principalDueMinor - state.principalPaidMinor;
      if (principal > overduePrincipalRoom) principal = overduePrincipalRoom;
      overduePrincipalRoom -= principal;
      overdue.principalMinor += principal;
      overdue.interestMinor += interest;
      overdue.feeMinor += fee;
      overdue.penaltyMinor += penalty;
      if (overdue.oldestOverdueDueDate === null && principal + interest + fee + penalty > 0n) {
        overdue.oldestOverdueDueDate = state.dueDate;
        overdue.daysPastDue = asOfDay - dueDay;
      }
    }
  }
  for (const amounts of [outstanding, overdue]) {
    amounts.totalMinor =
      amounts.principalMinor + amounts.interestMinor + amounts.feeMinor + amounts.penaltyMinor;
  }
  return summary;
}
