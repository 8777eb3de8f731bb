/**
 * The pure decisions of a loan's close-of-business step for a day D (docs/processes.md P7 "A loan's step for day
 * D"; Apache Fineract's Loan COB business steps `ApplyChargeToOverdueLoans`, `SetLoanDelinquencyTags`,
 * `CheckLoanRepaymentDue`, `CheckLoanRepaymentOverdue` and its charge-off). Everything is a calendar date in the
 * tenant's time zone; "as of X" is Fineract's business date X (an installment due on X is not overdue on X); the
 * step stores the state as of D + 1. Amounts in minor units (bigint) in, decimal strings out. No clock, no I/O.
 */
import { addDays, epochDayOf } from '../calendar';
import { type DelinquencyPause, noDelinquency, pausedDaysBefore } from './delinquency';

/** Fineract `ChargeCalculationType` of an overdue charge: 1 flat, 2 % of principal, 3 % of principal + interest. */
export type OverdueChargeCalculation = 1 | 2 | 3;

/** An overdue-installment charge (chargeTimeType 9) the loan's product attaches. */
export interface OverdueCharge {
  chargeId: number;
  /** The flat amount, or the percentage (decimal string, ≤ 6 decimals). */
  amount: string;
  chargeCalculationType: OverdueChargeCalculation;
}

/** What one installment owes as of D + 1, minor units. */
export interface InstallmentOwed {
  installmentNumber: number;
  /** ISO date. */
  dueDate: string;
  principalOutstandingMinor: bigint;
  interestOutstandingMinor: bigint;
  /** Everything outstanding (principal, interest, fees, penalties). */
  outstandingMinor: bigint;
}

/** One penalty the step assesses. */
export interface PenaltyToAssess {
  chargeId: number;
  installmentNumber: number;
  /** ISO date: the installment's due date (Fineract's default for an overdue charge). */
  dueDate: string;
  amountMinor: bigint;
}

/**
 * `value × percent / 100` rounded HALF_EVEN to whole minor units. `percent` is a decimal string with at most 6
 * decimals (the charge definition's scale); RangeError otherwise.
 */
export function percentOfMinor(valueMinor: bigint, percent: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(percent);
  if (!match) throw new RangeError(`percent must be a decimal with at most 6 decimals: ${percent}`);
  const scaled = BigInt(`${match[1]}${(match[2] ?? '').padEnd(6, '0')}`);
  const numerator = valueMinor * scaled;
  const denominator = 100n * 1_000_000n;
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  const twice = remainder * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}

/**
 * The penalties to assess on day D (P7 step 1; Fineract `ApplyChargeToOverdueLoans`): for each overdue charge and
 * each installment with something outstanding whose due date is more than `penaltyWaitPeriodDays` before D + 1
 * (`asOfDate`), not due before `notBeforeDueDate` (a boarded loan: the day before boarding) and without that charge
 * yet (`assessed` holds `<chargeId>/<installmentNumber>`), a penalty dated the installment's due date of: the flat
 * amount (type 1), or the percentage of the installment's outstanding principal (2) or principal + interest (3),
 * rounded HALF_EVEN to the currency (`digits`). A computed zero is not assessed. By installment, then charge.
 * RangeError for a malformed amount.
 */
export function penaltiesToAssess(input: {
  asOfDate: string;
  penaltyWaitPeriodDays: number;
  digits: number;
  charges: readonly OverdueCharge[];
  installments: readonly InstallmentOwed[];
  assessed: ReadonlySet<string>;
  notBeforeDueDate: string | null;
}): PenaltyToAssess[] {
  const asOf = epochDayOf(input.asOfDate);
  const out: PenaltyToAssess[] = [];
  const installments = [...input.installments].sort((a, b) => a.installmentNumber - b.installmentNumber);
  for (const installment of installments) {
    if (installment.outstandingMinor <= 0n) continue;
    if (asOf - epochDayOf(installment.dueDate) <= input.penaltyWaitPeriodDays) continue;
    if (input.notBeforeDueDate !== null && installment.dueDate < input.notBeforeDueDate) continue;
    for (const charge of input.charges) {
      if (input.assessed.has(`${charge.chargeId}/${installment.installmentNumber}`)) continue;
      const amountMinor =
        charge.chargeCalculationType === 1
          ? flatMinor(charge.amount, input.digits)
          : percentOfMinor(
              charge.chargeCalculationType === 2
                ? installment.principalOutstandingMinor
                : installment.principalOutstandingMinor + installment.interestOutstandingMinor,
              charge.amount,
            );
      if (amountMinor <= 0n) continue;
      out.push({
        chargeId: charge.chargeId,
        installmentNumber: installment.installmentNumber,
        dueDate: installment.dueDate,
        amountMinor,
      });
    }
  }
  return out;
}

/** A flat amount (decimal string) in minor units of a currency with `digits`, HALF_EVEN. */
function flatMinor(amount: string, digits: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) throw new RangeError(`amount must be a decimal: ${amount}`);
  const fraction = match[2] ?? '';
  if (fraction.length <= digits) return BigInt(`${match[1]}${fraction.padEnd(digits, '0')}`);
  // the definition's scale may exceed the currency's: 100 % of the value at the extra scale
  const extra = fraction.length - digits;
  const scaled = BigInt(`${match[1]}${fraction}`);
  const unit = 10n ** BigInt(extra);
  const quotient = scaled / unit;
  const twice = (scaled % unit) * 2n;
  if (twice > unit || (twice === unit && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}

/**
 * True when a pause is active on `asOfDate` (start ≤ X ≤ end): the step then leaves the stored classification as
 * it was (P7 "Delinquency").
 */
export function pauseActiveOn(pauses: readonly DelinquencyPause[], asOfDate: string): boolean {
  return pauses.some((p) => p.startDate <= asOfDate && asOfDate <= p.endDate);
}

/** The classification change the step stores, or null when there is none (P7 step 2). */
export interface DelinquencyChange {
  previousClassification: string;
  classification: string;
  /** The new range's id; null for NO_DELINQUENCY. */
  rangeId: number | null;
}

/**
 * The change of the stored classification on day D: none while a pause is active on D + 1; otherwise the derived
 * classification when it differs from the stored one (a null stored range reads as NO_DELINQUENCY).
 */
export function delinquencyChange(input: {
  storedClassification: string | null;
  derived: { classification: string; rangeId: number | null };
  pauseActive: boolean;
}): DelinquencyChange | null {
  if (input.pauseActive) return null;
  const previous = input.storedClassification ?? noDelinquency;
  if (previous === input.derived.classification) return null;
  return {
    previousClassification: previous,
    classification: input.derived.classification,
    rangeId: input.derived.rangeId,
  };
}

/** How many of the covered days the notices look at (P7 step 3: a long catch-up does not flood receivers). */
export const noticeDaysCap = 7;

/**
 * The days a step covers for its notices: (lastClosedBusinessDate, D], from the disbursement date when the loan
 * was never closed, at most the last `noticeDaysCap` of them. ISO dates, ascending; empty when none (not
 * disbursed, or D before the start).
 */
export function coveredDays(input: {
  businessDate: string;
  lastClosedBusinessDate: string | null;
  disbursedOnDate: string | null;
}): string[] {
  const start =
    input.lastClosedBusinessDate !== null ? addDays(input.lastClosedBusinessDate, 1) : input.disbursedOnDate;
  if (start === null) return [];
  const first = Math.max(epochDayOf(start), epochDayOf(input.businessDate) - (noticeDaysCap - 1));
  const days: string[] = [];
  for (let d = first; d <= epochDayOf(input.businessDate); d++) {
    days.push(addDays(input.businessDate, d - epochDayOf(input.businessDate)));
  }
  return days;
}

/** One repayment notice (`loan.repayment.due` or `loan.repayment.overdue`). */
export interface RepaymentNotice {
  kind: 'DUE' | 'OVERDUE';
  installmentNumber: number;
  dueDate: string;
  /** The covered day on which it falls. */
  noticeDate: string;
  outstandingMinor: bigint;
}

/**
 * The notices of a step (P7 step 3; Fineract `CheckLoanRepaymentDue`, `CheckLoanRepaymentOverdue`): for each
 * installment with something outstanding, DUE when its due date − `dueDays` is a covered day, OVERDUE when its due
 * date + `overdueDays` is one. By installment.
 */
export function repaymentNotices(input: {
  days: readonly string[];
  dueDays: number;
  overdueDays: number;
  installments: readonly InstallmentOwed[];
}): RepaymentNotice[] {
  const covered = new Set(input.days);
  const out: RepaymentNotice[] = [];
  const installments = [...input.installments].sort((a, b) => a.installmentNumber - b.installmentNumber);
  for (const i of installments) {
    if (i.outstandingMinor <= 0n) continue;
    const dueNotice = addDays(i.dueDate, -input.dueDays);
    if (covered.has(dueNotice)) {
      out.push({
        kind: 'DUE',
        installmentNumber: i.installmentNumber,
        dueDate: i.dueDate,
        noticeDate: dueNotice,
        outstandingMinor: i.outstandingMinor,
      });
    }
    const overdueNotice = addDays(i.dueDate, input.overdueDays);
    if (covered.has(overdueNotice)) {
      out.push({
        kind: 'OVERDUE',
        installmentNumber: i.installmentNumber,
        dueDate: i.dueDate,
        noticeDate: overdueNotice,
        outstandingMinor: i.outstandingMinor,
      });
    }
  }
  return out;
}

/**
 * The date of an automatic charge-off (P7 step 5), or null when none is due: when the loan is not charged off, the
 * product has `chargeOffDaysPastDue` and the delinquent days as of D + 1 reach it, the first as-of date on which
 * they reached it — the smallest X from the oldest overdue due date on with X − due − grace − paused days(X) ≥ the
 * threshold (paused days as Fineract counts them, `pausedDaysBefore`) — and never before `notBeforeDate` (the day
 * the loan was boarded or created here) nor before the loan's last money movement (`lastMoneyDate`, the command's
 * own rule); null while such a floor is after D + 1.
 */
export function automaticChargeOffDate(input: {
  chargedOff: boolean;
  chargeOffDaysPastDue: number | null;
  delinquentDays: number;
  /** The due date of the oldest overdue installment as of D + 1 (`delinquentDate` − grace), or null. */
  oldestOverdueDueDate: string | null;
  graceDays: number;
  pauses: readonly DelinquencyPause[];
  asOfDate: string;
  notBeforeDate: string | null;
  lastMoneyDate: string | null;
}): string | null {
  const threshold = input.chargeOffDaysPastDue;
  if (input.chargedOff || threshold === null || input.oldestOverdueDueDate === null) return null;
  if (input.delinquentDays < threshold) return null;
  const due = epochDayOf(input.oldestOverdueDueDate);
  const asOf = epochDayOf(input.asOfDate);
  let reached = asOf;
  for (let x = due + input.graceDays + threshold; x <= asOf; x++) {
    const date = addDays(input.oldestOverdueDueDate, x - due);
    if (x - due - input.graceDays - pausedDaysBefore(input.pauses, date) >= threshold) {
      reached = x;
      break;
    }
  }
  let date = addDays(input.oldestOverdueDueDate, reached - due);
  for (const floor of [input.notBeforeDate, input.lastMoneyDate]) {
    if (floor !== null && date < floor) date = floor;
  }
  // a floor after D + 1 (money value-dated ahead) leaves it to a later day
  return date > input.asOfDate ? null : date;
}
