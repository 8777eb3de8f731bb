/**
 * A loan's delinquency as of a date, derived from its posted state, never typed in (docs/lending.md
 * "Delinquency"). The figures are Apache Fineract's: `LoanDelinquencyDomainServiceImpl.getOverdueCollectionData`
 * (loan level), `getInstallmentOverdueCollectionData` (installment level, grouped per range as
 * `DelinquencyReadPlatformServiceImpl.addInstallmentLevelDelinquencyData` shows them),
 * `DelinquencyEffectivePauseHelperImpl.getPausedDaysBeforeDate` (paused days) and the range lookup of
 * `DelinquencyWritePlatformServiceHelper` (ranges by minimum age; a range without maximum holds every age from
 * its minimum; no range below 1 day).
 *
 * "As of X" is Fineract's business date X: an installment due on X is not overdue on X.
 * - `pastDueDays` = X − the due date of the oldest installment not fully paid that is due before X (0 if none).
 * - `delinquentDate` = that due date + the product's `graceOnArrearsAgeing` days (null if none).
 * - `delinquentDays` = `pastDueDays` − grace, and when that is above 0, less the paused days, floored at 0.
 * - paused days: for every pause that started before X, the days from its start to the earlier of its end and X.
 * - `delinquentAmount` and its parts: what the installments due before X still have outstanding.
 * - the classification: the range holding `delinquentDays` (`NO_DELINQUENCY` when none does).
 * - installment level (when the product enables it and the loan-level `delinquentDays` is above 0): each
 *   overdue installment aged by its own days (X − its due date, less the paused days, no grace), summed per range,
 *   ranges by minimum age; per installment, `installmentTags` is what a step or a money operation stores, and the
 *   reads show the stored tags (`installmentLevelOf`), not this day's figures.
 * - `nextPaymentDueDate`: the due date of the earliest installment not fully paid (Fineract's default
 *   `next-payment-due-date` = `earliest-unpaid-date`), null when none.
 * - `lastPaymentDate`, `lastPaymentAmount`: the last payment value-dated on or before X (amount 0 when none).
 * - `delinquencyPausePeriods`: the pauses by start, `active` when start ≤ X ≤ end.
 * Loans not yet active (SUBMITTED, APPROVED) have Fineract's template (every figure 0 or null, no pauses shown);
 * closed and overpaid loans have no delinquency (figures 0 or null) but show their last payment and pauses.
 *
 * Pure: no clock, no I/O, no float. Amounts in, minor units (bigint); amounts out, decimal strings with the
 * currency's digits; dates ISO `YYYY-MM-DD`. Chargebacks, which move Fineract's delinquent date, do not exist
 * here.
 */
import { addDays, epochDayOf } from '../calendar';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../money';
import type { LoanStatus } from './loan-status';

/** The classification when no range holds the loan's days (Fineract's name). */
export const noDelinquency = 'NO_DELINQUENCY';

/** One range of a delinquency bucket (Fineract `DelinquencyRange`). Ages in days. */
export interface DelinquencyRangeDefinition {
  id: number;
  classification: string;
  /** ≥ 1. */
  minimumAgeDays: number;
  /** ≥ minimumAgeDays; null = no upper bound. */
  maximumAgeDays: number | null;
}

/** A pause of the delinquency ageing: start inclusive, end (or the resume's date) exclusive in the day count. */
export interface DelinquencyPause {
  /** ISO dates, startDate < endDate. */
  startDate: string;
  endDate: string;
}

/** What one installment still has outstanding as of the as-of date, minor units (≥ 0). */
export interface DelinquencyInstallment {
  installmentNumber: number;
  /** ISO date. */
  dueDate: string;
  principalOutstandingMinor: bigint;
  interestOutstandingMinor: bigint;
  feeOutstandingMinor: bigint;
  penaltyOutstandingMinor: bigint;
}

/** Input of `deriveDelinquency`. */
export interface DelinquencyInput {
  /** ISO 4217 code: the digits of the amounts out. */
  currency: string;
  /** ISO date X (the business date the figures are as of). */
  asOfDate: string;
  loanStatus: LoanStatus;
  /** Every installment of the schedule, any order, with what it has outstanding as of X. */
  installments: readonly DelinquencyInstallment[];
  /** The product's `graceOnArrearsAgeing`, days ≥ 0. */
  graceOnArrearsAgeingDays: number;
  /** The ranges of the product's bucket; empty or null when it has none. */
  ranges: readonly DelinquencyRangeDefinition[] | null;
  /** The loan's pause periods (a resumed pause ends on the resume's date). */
  pausePeriods: readonly DelinquencyPause[];
  /** The product's `enableInstallmentLevelDelinquency`. */
  enableInstallmentLevelDelinquency: boolean;
  /** The last payment value-dated on or before X, minor units > 0; null when none. */
  lastPayment: { valueDate: string; amountMinor: bigint } | null;
}

/** One group of the installment-level delinquency (Fineract `InstallmentLevelDelinquency`). */
export interface InstallmentLevelDelinquencyView {
  rangeId: number;
  classification: string;
  minimumAgeDays: number;
  maximumAgeDays: number | null;
  /** Decimal string, the currency's digits. */
  delinquentAmount: string;
}

/** The `delinquent` object of the loan reads (Fineract `CollectionData`). */
export interface DelinquentView {
  pastDueDays: number;
  delinquentDays: number;
  delinquentDate: string | null;
  delinquentAmount: string;
  delinquentPrincipal: string;
  delinquentInterest: string;
  delinquentFee: string;
  delinquentPenalty: string;
  nextPaymentDueDate: string | null;
  lastPaymentDate: string | null;
  lastPaymentAmount: string;
  installmentLevelDelinquency: InstallmentLevelDelinquencyView[];
  delinquencyPausePeriods: { active: boolean; pausePeriodStart: string; pausePeriodEnd: string }[];
}

/**
 * One installment-level delinquency tag (Fineract `LoanInstallmentDelinquencyTag`): an overdue installment, the range
 * of its own days and what it owed, as a close-of-business step or a money operation stores it.
 */
export interface InstallmentDelinquencyTag {
  installmentNumber: number;
  rangeId: number;
  /** Decimal string, the currency's digits. */
  amount: string;
}

/** Output of `deriveDelinquency`. */
export interface DelinquencyResult {
  delinquent: DelinquentView;
  /** The range holding `delinquentDays`, null when none does or the loan is not ACTIVE. */
  range: DelinquencyRangeDefinition | null;
  /** `range.classification`, or `NO_DELINQUENCY`. */
  classification: string;
  /** `delinquentAmount` in minor units (for events and history rows). */
  delinquentAmountMinor: bigint;
  /**
   * The installment-level tags as of the as-of date, by installment number: what a step or a money operation
   * stores (empty unless installment level is enabled and the loan-level `delinquentDays` is above 0).
   */
  installmentTags: InstallmentDelinquencyTag[];
}

const day = (date: string, label: string): number => {
  try {
    return epochDayOf(date);
  } catch {
    throw new RangeError(`${label} is not an ISO calendar date: ${date}`);
  }
};

/**
 * Fineract `DelinquencyEffectivePauseHelperImpl.getPausedDaysBeforeDate`: Σ over the pauses that started before
 * `asOfDate` of the days from their start to the earlier of their end and `asOfDate`. RangeError for bad dates.
 */
export function pausedDaysBefore(pauses: readonly DelinquencyPause[], asOfDate: string): number {
  const asOf = day(asOfDate, 'asOfDate');
  let paused = 0;
  for (const pause of pauses) {
    const start = day(pause.startDate, 'startDate');
    const end = day(pause.endDate, 'endDate');
    if (start < asOf) paused += Math.min(end, asOf) - start;
  }
  return paused;
}

/**
 * The range of `ranges` holding `days` (Fineract's lookup: none for 0 days or less; ranges by minimum age; a
 * range without maximum holds every age from its minimum), or null.
 */
export function rangeForDays(
  ranges: readonly DelinquencyRangeDefinition[] | null,
  days: number,
): DelinquencyRangeDefinition | null {
  if (days <= 0 || !ranges) return null;
  const sorted = [...ranges].sort((a, b) => a.minimumAgeDays - b.minimumAgeDays || a.id - b.id);
  for (const range of sorted) {
    if (range.minimumAgeDays <= days && (range.maximumAgeDays === null || days <= range.maximumAgeDays)) {
      return range;
    }
  }
  return null;
}

const outstandingOf = (i: DelinquencyInstallment): bigint =>
  i.principalOutstandingMinor +
  i.interestOutstandingMinor +
  i.feeOutstandingMinor +
  i.penaltyOutstandingMinor;

/**
 * The loan's delinquency as of `input.asOfDate` (module note). RangeError for an invalid date, a negative grace or
 * a negative outstanding amount.
 */
export function deriveDelinquency(input: DelinquencyInput): DelinquencyResult {
  const digits = minorUnitDigits(input.currency);
  const text = (minor: bigint) => formatMinor(minor, digits);
  const asOf = day(input.asOfDate, 'asOfDate');
  if (!Number.isSafeInteger(input.graceOnArrearsAgeingDays) || input.graceOnArrearsAgeingDays < 0) {
    throw new RangeError('graceOnArrearsAgeingDays must be an integer ≥ 0');
  }
  const installments = [...input.installments].sort(
    (a, b) =>
      day(a.dueDate, 'dueDate') - day(b.dueDate, 'dueDate') || a.installmentNumber - b.installmentNumber,
  );
  for (const i of installments) {
    if (
      i.principalOutstandingMinor < 0n ||
      i.interestOutstandingMinor < 0n ||
      i.feeOutstandingMinor < 0n ||
      i.penaltyOutstandingMinor < 0n
    ) {
      throw new RangeError(`installment ${i.installmentNumber} has a negative outstanding amount`);
    }
  }
  const pauses = [...input.pausePeriods].sort(
    (a, b) => day(a.startDate, 'startDate') - day(b.startDate, 'startDate'),
  );
  const pausePeriods = pauses.map((p) => ({
    active: day(p.startDate, 'startDate') <= asOf && asOf <= day(p.endDate, 'endDate'),
    pausePeriodStart: p.startDate,
    pausePeriodEnd: p.endDate,
  }));
  const template = (): DelinquencyResult => ({
    delinquent: {
      pastDueDays: 0,
      delinquentDays: 0,
      delinquentDate: null,
      delinquentAmount: text(0n),
      delinquentPrincipal: text(0n),
      delinquentInterest: text(0n),
      delinquentFee: text(0n),
      delinquentPenalty: text(0n),
      nextPaymentDueDate: null,
      lastPaymentDate: null,
      lastPaymentAmount: text(0n),
      installmentLevelDelinquency: [],
      delinquencyPausePeriods: [],
    },
    range: null,
    classification: noDelinquency,
    delinquentAmountMinor: 0n,
    installmentTags: [],
  });
  if (input.loanStatus === 'SUBMITTED' || input.loanStatus === 'APPROVED') return template();

  const unpaid = installments.filter((i) => outstandingOf(i) > 0n);
  const result = template();
  const delinquent = result.delinquent;
  delinquent.nextPaymentDueDate = unpaid[0]?.dueDate ?? null;
  if (input.lastPayment) {
    delinquent.lastPaymentDate = input.lastPayment.valueDate;
    delinquent.lastPaymentAmount = text(input.lastPayment.amountMinor);
  }
  delinquent.delinquencyPausePeriods = pausePeriods;
  if (input.loanStatus !== 'ACTIVE') return result;

  const overdue = unpaid.filter((i) => day(i.dueDate, 'dueDate') < asOf);
  const sum = (pick: (i: DelinquencyInstallment) => bigint) => overdue.reduce((s, i) => s + pick(i), 0n);
  const principal = sum((i) => i.principalOutstandingMinor);
  const interest = sum((i) => i.interestOutstandingMinor);
  const fee = sum((i) => i.feeOutstandingMinor);
  const penalty = sum((i) => i.penaltyOutstandingMinor);
  const amount = principal + interest + fee + penalty;
  delinquent.delinquentAmount = text(amount);
  delinquent.delinquentPrincipal = text(principal);
  delinquent.delinquentInterest = text(interest);
  delinquent.delinquentFee = text(fee);
  delinquent.delinquentPenalty = text(penalty);
  result.delinquentAmountMinor = amount;
  const oldest = overdue[0];
  if (!oldest) return result;

  const grace = input.graceOnArrearsAgeingDays;
  const pastDueDays = asOf - day(oldest.dueDate, 'dueDate');
  const paused = pausedDaysBefore(pauses, input.asOfDate);
  const ageing = pastDueDays - grace;
  delinquent.pastDueDays = pastDueDays;
  delinquent.delinquentDate = addDays(oldest.dueDate, grace);
  delinquent.delinquentDays = ageing > 0 ? Math.max(ageing - paused, 0) : 0;
  result.range = rangeForDays(input.ranges, delinquent.delinquentDays);
  result.classification = result.range?.classification ?? noDelinquency;

  if (input.enableInstallmentLevelDelinquency && delinquent.delinquentDays > 0) {
    for (const installment of overdue) {
      const own = Math.max(asOf - day(installment.dueDate, 'dueDate') - paused, 0);
      const range = rangeForDays(input.ranges, own);
      if (!range) continue;
      result.installmentTags.push({
        installmentNumber: installment.installmentNumber,
        rangeId: range.id,
        amount: text(outstandingOf(installment)),
      });
    }
    result.installmentTags.sort((a, b) => a.installmentNumber - b.installmentNumber);
    delinquent.installmentLevelDelinquency = installmentLevelOf(
      result.installmentTags,
      input.ranges ?? [],
      input.currency,
    );
  }
  return result;
}

/**
 * The `installmentLevelDelinquency` groups of `tags` (Fineract `DelinquencyReadPlatformServiceImpl.
 * addInstallmentLevelDelinquencyData`): the tags' amounts summed per range, ranges by minimum age. A tag whose range
 * is not among `ranges` (a bucket changed since) is left out. RangeError for an amount that is not a decimal.
 */
export function installmentLevelOf(
  tags: readonly InstallmentDelinquencyTag[],
  ranges: readonly DelinquencyRangeDefinition[],
  currency: string,
): InstallmentLevelDelinquencyView[] {
  const digits = minorUnitDigits(currency);
  const groups = new Map<number, { range: DelinquencyRangeDefinition; amountMinor: bigint }>();
  for (const tag of tags) {
    const range = ranges.find((r) => r.id === tag.rangeId);
    if (!range) continue;
    const group = groups.get(range.id) ?? { range, amountMinor: 0n };
    group.amountMinor += parseDecimalToMinor(tag.amount, digits, { allowTrailingZeros: true });
    groups.set(range.id, group);
  }
  return [...groups.values()]
    .sort((a, b) => a.range.minimumAgeDays - b.range.minimumAgeDays || a.range.id - b.range.id)
    .map(({ range, amountMinor }) => ({
      rangeId: range.id,
      classification: range.classification,
      minimumAgeDays: range.minimumAgeDays,
      maximumAgeDays: range.maximumAgeDays,
      delinquentAmount: formatMinor(amountMinor, digits),
    }));
}

/** True when two sets of installment-level tags are the same (installment, range and amount). */
export function sameInstallmentTags(
  a: readonly InstallmentDelinquencyTag[] | null | undefined,
  b: readonly InstallmentDelinquencyTag[] | null | undefined,
): boolean {
  const key = (tags: readonly InstallmentDelinquencyTag[] | null | undefined) =>
    JSON.stringify(
      [...(tags ?? [])]
        .sort((x, y) => x.installmentNumber - y.installmentNumber)
        .map((t) => [t.installmentNumber, t.rangeId, t.amount]),
    );
  return key(a) === key(b);
}

/**
 * The loan's status on the as-of date as far as delinquency is concerned: a loan closed or overpaid since, whose
 * installments still owed something on that date (a read as of an earlier day, or before a payment value-dated
 * later), was ACTIVE then; any other status is the stored one.
 */
export function loanStatusAsOf(
  status: LoanStatus,
  installments: readonly DelinquencyInstallment[],
): LoanStatus {
  if (
    (status === 'CLOSED_OBLIGATIONS_MET' || status === 'OVERPAID') &&
    installments.some((i) => outstandingOf(i) > 0n)
  ) {
    return 'ACTIVE';
  }
  return status;
}

/**
 * Per installment what it has outstanding, from its due, paid and waived amounts as the allocation replay or the
 * posted state holds them (domain/lending/allocation/types.ts `InstallmentState`, minor units). Principal is never
 * waived.
 */
export function delinquencyInstallmentsOf(
  states: readonly {
    installmentNumber: number;
    dueDate: string;
    principalDueMinor: bigint;
    interestDueMinor: bigint;
    feeDueMinor: bigint;
    penaltyDueMinor: bigint;
    principalPaidMinor: bigint;
    interestPaidMinor: bigint;
    feePaidMinor: bigint;
    penaltyPaidMinor: bigint;
    interestWaivedMinor: bigint;
    feeWaivedMinor: bigint;
    penaltyWaivedMinor: bigint;
  }[],
): DelinquencyInstallment[] {
  const floor = (v: bigint) => (v > 0n ? v : 0n);
  return states.map((s) => ({
    installmentNumber: s.installmentNumber,
    dueDate: s.dueDate,
    principalOutstandingMinor: floor(s.principalDueMinor - s.principalPaidMinor),
    interestOutstandingMinor: floor(s.interestDueMinor - s.interestPaidMinor - s.interestWaivedMinor),
    feeOutstandingMinor: floor(s.feeDueMinor - s.feePaidMinor - s.feeWaivedMinor),
    penaltyOutstandingMinor: floor(s.penaltyDueMinor - s.penaltyPaidMinor - s.penaltyWaivedMinor),
  }));
}
