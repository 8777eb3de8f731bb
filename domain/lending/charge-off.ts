/**
 * Charge-off of a loan (Apache Fineract `LoanWritePlatformServiceJpaRepositoryImpl.chargeOff` / `undoChargeOff`,
 * `LoanChargeOffBehaviour`; docs/lending.md "Charge-off"): the rules that decide whether a loan may be charged off
 * or have its charge-off undone, and the portions of the charge-off transaction. Pure; money in bigint minor units.
 */
import type { AllocationResult } from './allocation/types';

/** The portions of a charge-off transaction (minor units, each ≥ 0; `amountMinor` their sum). */
export interface ChargeOffPortions {
  amountMinor: bigint;
  principalMinor: bigint;
  interestMinor: bigint;
  feeMinor: bigint;
  penaltyMinor: bigint;
}

/**
 * What a charge-off records: everything outstanding on the schedule after the payments received before it, of
 * every installment (due or not), by component — as Fineract's CHARGE_OFF transaction shows it. Principal is the
 * loan portfolio's balance (disbursed − forgiven − repaid, so the ledger's LOAN_PORTFOLIO nets to zero); interest,
 * fees and penalties are each installment's due − paid − waived. `allocation` is the replay of the loan's events
 * without its recoveries (repost-loan.ts).
 */
export function chargeOffPortions(allocation: AllocationResult): ChargeOffPortions {
  let principalPaid = 0n;
  let interestMinor = 0n;
  let feeMinor = 0n;
  let penaltyMinor = 0n;
  for (const installment of allocation.installments) {
    principalPaid += installment.principalPaidMinor;
    interestMinor +=
      installment.interestDueMinor - installment.interestPaidMinor - installment.interestWaivedMinor;
    feeMinor += installment.feeDueMinor - installment.feePaidMinor - installment.feeWaivedMinor;
    penaltyMinor +=
      installment.penaltyDueMinor - installment.penaltyPaidMinor - installment.penaltyWaivedMinor;
  }
  const nonNegative = (minor: bigint) => (minor > 0n ? minor : 0n);
  const principalMinor = nonNegative(
    allocation.disbursedMinor - allocation.principalForgivenMinor - principalPaid,
  );
  interestMinor = nonNegative(interestMinor);
  feeMinor = nonNegative(feeMinor);
  penaltyMinor = nonNegative(penaltyMinor);
  return {
    amountMinor: principalMinor + interestMinor + feeMinor + penaltyMinor,
    principalMinor,
    interestMinor,
    feeMinor,
    penaltyMinor,
  };
}

/** Why a charge-off is refused (Fineract's codes), or null when it may go ahead. */
export type ChargeOffRefusal =
  | { code: 'error.msg.loan.is.not.active'; field: 'loanId' }
  | { code: 'error.msg.loan.is.already.charged.off'; field: null }
  | { code: 'error.msg.loan.transaction.cannot.be.a.future.date'; field: 'transactionDate' }
  | { code: 'error.msg.loan.charge.off.is.before.than.the.last.user.transaction'; field: 'transactionDate' };

/**
 * Fineract's checks of `chargeOff`, in its order: the loan must be ACTIVE (Fineract `isOpen`), not charged off
 * already, the date not before the loan's last money movement (`lastMoneyDate`, ISO, null when none) and not after
 * `today` (the tenant's business date, ISO).
 */
export function chargeOffRefusal(input: {
  status: string;
  chargedOff: boolean;
  transactionDate: string;
  lastMoneyDate: string | null;
  today: string;
}): ChargeOffRefusal | null {
  if (input.status !== 'ACTIVE') return { code: 'error.msg.loan.is.not.active', field: 'loanId' };
  if (input.chargedOff) return { code: 'error.msg.loan.is.already.charged.off', field: null };
  if (input.lastMoneyDate !== null && input.transactionDate < input.lastMoneyDate) {
    return {
      code: 'error.msg.loan.charge.off.is.before.than.the.last.user.transaction',
      field: 'transactionDate',
    };
  }
  if (input.transactionDate > input.today) {
    return { code: 'error.msg.loan.transaction.cannot.be.a.future.date', field: 'transactionDate' };
  }
  return null;
}

/**
 * Whether a posted payment is a recovery of the charge-off (Fineract: a repayment after the charge-off): value-dated
 * after the charge-off date, or on it and recorded after the charge-off (`paymentId` above the highest payment id
 * the loan had then, `lastPaymentIdAtChargeOff`, null when it had none).
 */
export function isRecoveryPayment(
  payment: { paymentId: number; valueDate: string },
  chargeOff: { transactionDate: string; lastPaymentIdAtChargeOff: number | null },
): boolean {
  if (payment.valueDate > chargeOff.transactionDate) return true;
  return (
    payment.valueDate === chargeOff.transactionDate &&
    payment.paymentId > (chargeOff.lastPaymentIdAtChargeOff ?? 0)
  );
}
