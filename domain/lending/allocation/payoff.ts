/**
 * The payoff rule of a loan: the amount that pays the loan off at the end of a day, its parts, and what of each
 * installment a payoff keeps owed (the rest is waived). One rule for the quote (summary.ts
 * `outstandingSummary`) and for the posting (replay.ts decides with it that a payment is the payoff).
 *
 * Payoff (one rule for the quote and the posting, `payoffRule` below; Apache Fineract's foreclosure,
 * `LoanAccountDomainServiceJpa.foreCloseLoan` / `Loan.updateInstallmentsPostDate`, for a loan without interest
 * recalculation): the amount that pays the loan off at the end of a day is all outstanding principal, the unpaid
 * interest, fees and penalties of installments due on or before that day, and, of each installment due after
 * it, the interest accrued by that day (`accruedInterestMinor`: the installment's scheduled interest × days
 * elapsed in its period ÷ days of the period, HALF_EVEN, as Fineract's periodic accrual) less what is already
 * paid of its interest. No interest of later periods and no fee or penalty of a later installment is part of
 * it. A payment value-dated to a day on which it covers that amount, on a loan whose whole scheduled principal is
 * disbursed by then and which still owes something, IS the payoff. It is allocated first, waived after: (1) the
 * payoff amount pays, in the strategy's order, what the payoff keeps owed (all principal, the components above,
 * the accrued interest), which settles every principal slot; (2) the rest of the payment pays, in the strategy's
 * order again, the later interest, fees and penalties still unpaid (paid in advance, as Apache Fineract's
 * advanced payment allocation does with the `IN_ADVANCE_*` rules of a repayment before the due date); (3) only
 * then, principal being settled, what is still unpaid of them is waived (`…WaivedMinor`, never income: the ledger
 * is cash-based), except the charges added to the loan (types.ts `ChargeEvent`) after the payoff's day (their
 * `submittedOnDate`, or their due date when it is not known), which stay owed (so a charge added after a loan was paid off reopens it, as Fineract's LoanCharge.feature
 * "adding charge on a closed loan" shows), and what exceeds everything is an overpayment. So paying exactly the quoted payoff on its date
 * closes the loan to the cent (all later charges waived), and paying more pays later charges before anything is an
 * overpayment: Fineract's published case of a 1,000.00 loan with a 20.00 fee due 2023-02-01 paid 1,020.00 on
 * 2023-01-10 pays the fee 20.00 and closes the loan (`closed.obligations.met`, not `overpaid`).
 */

import { accruedByDay } from './accrual';
import type { ComponentRecord, InstallmentState } from './types';

/** One installment as `payoffRule` reads it (minor units, epoch days). */
export interface PayoffInstallment {
  fromDay: number;
  dueDay: number;
  dueMinor: ComponentRecord;
  paidMinor: ComponentRecord;
  waivedMinor: ComponentRecord;
}

/** What `payoffRule` returns: the payoff's parts and, per installment, what stays owed of it. */
export interface PayoffQuote {
  principalMinor: bigint;
  interestMinor: bigint;
  feeMinor: bigint;
  penaltyMinor: bigint;
  totalMinor: bigint;
  /** Index of the installment whose period strictly contains the day, null when none does. */
  currentIndex: number | null;
  currentPeriodInterestMinor: bigint;
  /**
   * Per installment, the interest, fee and penalty (paid or not) a payoff on the day keeps owed; the rest of the
   * installment's due amount (less what is already waived) is what a payoff waives.
   */
  keptMinor: { INTEREST: bigint; FEE: bigint; PENALTY: bigint }[];
}

/**
 * THE payoff rule (module note), used by `outstandingSummary` for the quote and by the replay for the posting:
 * `principalOutstandingMinor`, plus the unpaid (and unwaived) interest, fees and penalties of the installments due
 * on or before `day`, plus, of each installment due after `day`, its interest accrued by `day` less its interest
 * already paid (never below zero). Pure.
 */
export function payoffRule(
  installments: readonly PayoffInstallment[],
  principalOutstandingMinor: bigint,
  day: number,
): PayoffQuote {
  const quote: PayoffQuote = {
    principalMinor: principalOutstandingMinor,
    interestMinor: 0n,
    feeMinor: 0n,
    penaltyMinor: 0n,
    totalMinor: 0n,
    currentIndex: null,
    currentPeriodInterestMinor: 0n,
    keptMinor: [],
  };
  for (const [index, installment] of installments.entries()) {
    const { dueMinor: due, paidMinor: paid, waivedMinor: waived } = installment;
    if (installment.dueDay <= day) {
      quote.interestMinor += due.INTEREST - paid.INTEREST - waived.INTEREST;
      quote.feeMinor += due.FEE - paid.FEE - waived.FEE;
      quote.penaltyMinor += due.PENALTY - paid.PENALTY - waived.PENALTY;
      quote.keptMinor.push({
        INTEREST: due.INTEREST - waived.INTEREST,
        FEE: due.FEE - waived.FEE,
        PENALTY: due.PENALTY - waived.PENALTY,
      });
      continue;
    }
    const owed = due.INTEREST - waived.INTEREST;
    let accrued = accruedByDay(due.INTEREST, installment.fromDay, installment.dueDay, day);
    if (accrued > owed) accrued = owed;
    const kept = accrued > paid.INTEREST ? accrued : paid.INTEREST;
    const unpaid = kept - paid.INTEREST;
    quote.interestMinor += unpaid;
    quote.keptMinor.push({ INTEREST: kept, FEE: paid.FEE, PENALTY: paid.PENALTY });
    if (quote.currentIndex === null && installment.fromDay < day) {
      quote.currentIndex = index;
      quote.currentPeriodInterestMinor = unpaid;
    }
  }
  quote.totalMinor = quote.principalMinor + quote.interestMinor + quote.feeMinor + quote.penaltyMinor;
  return quote;
}

/** The paid amounts of an installment state, by component. */
export const paidRecordOf = (
  state: Omit<InstallmentState, 'outstandingMinor' | 'obligationsMetOnDate'>,
): ComponentRecord => ({
  PRINCIPAL: state.principalPaidMinor,
  INTEREST: state.interestPaidMinor,
  FEE: state.feePaidMinor,
  PENALTY: state.penaltyPaidMinor,
});

/** The waived amounts of an installment state, by component (principal is never waived). */
export const waivedRecordOf = (
  state: Omit<InstallmentState, 'outstandingMinor' | 'obligationsMetOnDate'>,
): ComponentRecord => ({
  PRINCIPAL: 0n,
  INTEREST: state.interestWaivedMinor,
  FEE: state.feeWaivedMinor,
  PENALTY: state.penaltyWaivedMinor,
});
