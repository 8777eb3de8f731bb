/**
 * Hardship relief of a loan's schedule (docs/processes.md P5 "Relief types"): one pure function per
 * relief type that turns the loan's current schedule into the modified schedule — the next schedule version,
 * a new object; the input is never mutated — plus a summary of what changed, and `reliefSize`, the size of a
 * requested relief in its own unit (P5 routing: ≤ `straightThroughMaximum` → OFFERED, ≤ `humanApprovalMaximum`
 * → PENDING_APPROVAL, above → REFERRED).
 *
 * Pure and deterministic: no clock, no I/O, no float. Amounts are bigint minor units of the loan's currency
 * (`…Minor`); dates are ISO calendar dates `YYYY-MM-DD`; calendar arithmetic is `domain/calendar.ts`'s.
 *
 * The schedule is the allocation's view of the loan (`InstallmentState` of `domain/lending/allocation/types.ts`, of which only
 * the due and paid components are read and returned; its derived fields — outstanding, waived by a payoff,
 * obligations met — are dropped, as they would go stale): per installment its due date and, per component
 * (principal, interest, fee, penalty), the amount due and the amount already paid. Rules common to every relief:
 * - paid amounts are never changed, and no due amount goes below what is already paid of it, so a fully paid
 *   installment (nothing outstanding) is never touched; a relief works only on the outstanding part
 *   (due − paid) of "open" installments (something outstanding);
 * - "the next installments from the as-of date" are the open installments due on or after `asOfDate`, in due
 *   date order (past-due installments are not part of a relief's window, except a fee waiver's explicit window);
 * - installments are never removed or renumbered (allocation lines name installment numbers); a relief that
 *   adds installments appends them after the last one, numbered on, each one repayment period after the
 *   previous due date (`repaymentEvery` units of `repaymentFrequencyType`, months clamped to the month end),
 *   so due dates stay strictly increasing;
 * - no amount is ever negative; the result is checked before it is returned (a RangeError would be a bug).
 *
 * Relief types and what they conserve (Σ due over all installments and components = "total due"):
 * - `PAYMENT_DEFERRAL` (`applyPaymentDeferral`): the outstanding part of the next n installments moves, component
 *   by component, to n new installments at the end, in the same order; a deferred installment keeps its due date
 *   with only its paid part due. Total due conserved exactly; count + n.
 * - `FORBEARANCE` (`applyForbearance`): in each of the next n installments every outstanding component is reduced
 *   by `paymentReductionBasisPoints` (10000 = payments suspended; the reduction rounded down to the minor unit);
 *   each component's forborne total is recovered over the open installments due after the window, equally
 *   (rounded down) with the remainder on the last of them. Total due (and each component's total) conserved
 *   exactly; count unchanged. At least one open installment must follow the window.
 * - `REDUCED_PAYMENT` (`applyReducedPayment`): the outstanding part of each of the next n installments is capped
 *   at `reducedPaymentMinor`, kept in the order interest, principal, fee, penalty (docs/design.md §5's covered-consumer
 *   order); the shortfall of each capped installment becomes one extra installment at the end (chosen over
 *   raising the remaining installments, which is what forbearance does, so that no later payment grows). Total
 *   due conserved exactly; count + the number of installments that had a shortfall.
 * - `FEE_WAIVER` (`applyFeeWaiver`): outstanding penalties, then fees, of installments due within
 *   [`fromDate`, `toDate`] are waived, oldest installment first, up to `maximumWaiverMinor`. Total due reduced by
 *   exactly the waived amount (reported); count unchanged.
 * - `RATE_REDUCTION` (`applyRateReduction`): the interest of the next open installments is recomputed at the
 *   reduced nominal rate. The schedule's interest methods (`domain/lending/schedule.ts`: declining balance, balance ×
 *   periodic rate; flat, principal × periodic rate × term) are linear in the nominal rate for the unchanged
 *   principal, so an installment's interest at the reduced rate is its scheduled interest × reduced ÷ current
 *   rate, rounded HALF_EVEN to the minor unit (Fineract's 12-significant-digit rounding of the periodic rate is
 *   not redone), and never below the interest already paid of it. Principal conserved; total due reduced by
 *   exactly the interest reduction (reported); count unchanged.
 * - `PRINCIPAL_FORGIVENESS` (`applyPrincipalForgiveness`): outstanding principal of the open installments due on
 *   or after the as-of date is reduced by `amountMinor`, from the last installment backwards. Interest is not
 *   recomputed (combine with a rate reduction for that). Total due reduced by exactly the forgiven amount
 *   (reported); count unchanged.
 *
 * Errors (`DomainError`): a malformed parameter (n not a positive integer, a negative or zero amount, a rate below
 * zero, a percentage outside 1–10000 basis points, a malformed date) → `validation.msg.validation.errors.exist`
 * (400) with one field error; a relief the schedule cannot take (more installments asked than remain open from
 * the as-of date, nothing left to recover a forbearance over, more principal forgiven than remains, a reduced
 * rate not below the current one) → `error.msg.hardship.relief.not.applicable` (409) with one field error.
 * A malformed schedule (unordered due dates, negative amounts, paid above due) is a RangeError (a caller bug).
 */

import { addDays, addMonths, isIsoDate } from '../calendar';
import { DomainError, fieldError, validationError } from '../errors';
import type { InstallmentState } from '../lending/allocation/types';
import type { PeriodFrequencyType } from '../lending/schedule';
import { minorUnitDigits } from '../money';

/** The relief types of docs/processes.md P5, in its order. */
export const reliefTypes = [
  'PAYMENT_DEFERRAL',
  'FORBEARANCE',
  'REDUCED_PAYMENT',
  'FEE_WAIVER',
  'RATE_REDUCTION',
  'PRINCIPAL_FORGIVENESS',
] as const;
export type ReliefType = (typeof reliefTypes)[number];

/** One installment as a relief reads and writes it: an `InstallmentState`'s due and paid parts (minor units, ≥ 0). */
export type ReliefInstallment = Pick<
  InstallmentState,
  | 'installmentNumber'
  | 'fromDate'
  | 'dueDate'
  | 'principalDueMinor'
  | 'interestDueMinor'
  | 'feeDueMinor'
  | 'penaltyDueMinor'
  | 'principalPaidMinor'
  | 'interestPaidMinor'
  | 'feePaidMinor'
  | 'penaltyPaidMinor'
>;

/** A loan's schedule with what a relief needs of the loan's terms. */
export interface ReliefSchedule {
  /** ISO 4217 code of every amount. */
  currency: string;
  /** Installments fall due every `repaymentEvery` (integer ≥ 1) units of `repaymentFrequencyType`. */
  repaymentEvery: number;
  /** 0 days, 1 weeks, 2 months, 3 years (Fineract `PeriodFrequencyType`, as `domain/lending/schedule.ts`). */
  repaymentFrequencyType: PeriodFrequencyType;
  /**
   * At least one; installment numbers strictly increasing, due dates strictly increasing, `fromDate` ≤ `dueDate`,
   * every amount ≥ 0 and each paid component ≤ its due component.
   */
  installments: readonly ReliefInstallment[];
}

/** `PAYMENT_DEFERRAL`: defer the next `installmentCount` (integer ≥ 1) open installments to the end. */
export interface PaymentDeferralParams {
  installmentCount: number;
}

/** `FORBEARANCE`: reduce the next `installmentCount` open installments by a share of their outstanding amount. */
export interface ForbearanceParams {
  installmentCount: number;
  /** Integer 1–10000: share of each outstanding component forborne; 10000 suspends the payments. */
  paymentReductionBasisPoints: number;
}

/** `REDUCED_PAYMENT`: cap the next `installmentCount` open installments' outstanding amount. */
export interface ReducedPaymentParams {
  installmentCount: number;
  /** The cap, minor units ≥ 0. */
  reducedPaymentMinor: bigint;
}

/** `FEE_WAIVER`: waive penalties and fees of installments due in a window, up to a maximum. */
export interface FeeWaiverParams {
  /** ISO date, first due date of the window (inclusive). */
  fromDate: string;
  /** ISO date, last due date of the window (inclusive), not before `fromDate`. */
  toDate: string;
  /** Most that may be waived, minor units > 0. */
  maximumWaiverMinor: bigint;
}

/** `RATE_REDUCTION`: the loan's nominal rate before and after, basis points (1 bp = 0.01 % per year). */
export interface RateReductionParams {
  /** Integer > 0. */
  currentRateBasisPoints: number;
  /** Integer, 0 ≤ reduced < current. */
  reducedRateBasisPoints: number;
}

/** `PRINCIPAL_FORGIVENESS`: principal forgiven, minor units > 0. */
export interface PrincipalForgivenessParams {
  amountMinor: bigint;
}

/** Parameters of each relief type. */
export interface ReliefParamsByType {
  PAYMENT_DEFERRAL: PaymentDeferralParams;
  FORBEARANCE: ForbearanceParams;
  REDUCED_PAYMENT: ReducedPaymentParams;
  FEE_WAIVER: FeeWaiverParams;
  RATE_REDUCTION: RateReductionParams;
  PRINCIPAL_FORGIVENESS: PrincipalForgivenessParams;
}

/** Amounts per component, minor units. */
export interface ReliefComponentAmounts {
  principalMinor: bigint;
  interestMinor: bigint;
  feeMinor: bigint;
  penaltyMinor: bigint;
}

/** What a relief changed. Minor units. */
export interface ReliefSummary {
  reliefType: ReliefType;
  asOfDate: string;
  /** Σ due of every installment and component, before and after. */
  totalDueBeforeMinor: bigint;
  totalDueAfterMinor: bigint;
  /**
   * Money taken off the loan, by component: waived (fee waiver), interest reduction (rate reduction), forgiven
   * (principal forgiveness); all zero for the conserving reliefs. `totalDueAfterMinor = totalDueBeforeMinor −
   * Σ reduction`.
   */
  reductionMinor: ReliefComponentAmounts;
  reductionTotalMinor: bigint;
  /** Money moved to other or new installments (deferred, forborne, shortfall); 0 for the reducing reliefs. */
  movedMinor: bigint;
  /** Numbers of existing installments whose due amounts changed, ascending. */
  changedInstallmentNumbers: number[];
  /** Numbers of the installments appended, ascending. */
  addedInstallmentNumbers: number[];
}

/** A relief's result: the next schedule version and what changed. */
export interface ReliefOutcome {
  schedule: ReliefSchedule;
  summary: ReliefSummary;
}

const components = ['principal', 'interest', 'fee', 'penalty'] as const;
type Component = (typeof components)[number];
type Amounts = Record<Component, bigint>;

const dueKey = {
  principal: 'principalDueMinor',
  interest: 'interestDueMinor',
  fee: 'feeDueMinor',
  penalty: 'penaltyDueMinor',
} as const;
const paidKey = {
  principal: 'principalPaidMinor',
  interest: 'interestPaidMinor',
  fee: 'feePaidMinor',
  penalty: 'penaltyPaidMinor',
} as const;

const notApplicableCode = 'error.msg.hardship.relief.not.applicable';

function notApplicable(parameterName: string, value: unknown, message: string): DomainError {
  return new DomainError(notApplicableCode, message, {
    errors: [fieldError(parameterName, value, message, notApplicableCode)],
  });
}

const zeroAmounts = (): Amounts => ({ principal: 0n, interest: 0n, fee: 0n, penalty: 0n });
const sumOf = (amounts: Amounts): bigint =>
  amounts.principal + amounts.interest + amounts.fee + amounts.penalty;

function outstandingOf(installment: ReliefInstallment): Amounts {
  const amounts = zeroAmounts();
  for (const c of components) amounts[c] = installment[dueKey[c]] - installment[paidKey[c]];
  return amounts;
}

const isOpen = (installment: ReliefInstallment): boolean => sumOf(outstandingOf(installment)) > 0n;

/** Σ due of every installment and component, minor units. */
export function totalDueMinor(schedule: ReliefSchedule): bigint {
  let total = 0n;
  for (const installment of schedule.installments) {
    for (const c of components) total += installment[dueKey[c]];
  }
  return total;
}

/** RangeError unless `schedule` is well formed (see `ReliefSchedule`). */
function checkSchedule(schedule: ReliefSchedule): void {
  minorUnitDigits(schedule.currency);
  if (!Number.isInteger(schedule.repaymentEvery) || schedule.repaymentEvery < 1) {
    throw new RangeError('repaymentEvery must be an integer ≥ 1');
  }
  if (![0, 1, 2, 3].includes(schedule.repaymentFrequencyType)) {
    throw new RangeError('repaymentFrequencyType must be 0, 1, 2 or 3');
  }
  if (schedule.installments.length === 0) throw new RangeError('the schedule has no installment');
  let previous: ReliefInstallment | undefined;
  for (const installment of schedule.installments) {
    const n = installment.installmentNumber;
    if (!Number.isSafeInteger(n) || n < 1)
      throw new RangeError(`installment number ${n} is not a positive integer`);
    if (!isIsoDate(installment.fromDate) || !isIsoDate(installment.dueDate)) {
      throw new RangeError(`installment ${n}: dates must be ISO calendar dates`);
    }
    if (installment.fromDate > installment.dueDate)
      throw new RangeError(`installment ${n}: fromDate after dueDate`);
    if (previous && (n <= previous.installmentNumber || installment.dueDate <= previous.dueDate)) {
      throw new RangeError(`installment ${n}: numbers and due dates must be strictly increasing`);
    }
    for (const c of components) {
      const due = installment[dueKey[c]];
      const paid = installment[paidKey[c]];
      if (typeof due !== 'bigint' || typeof paid !== 'bigint' || paid < 0n || due < paid) {
        throw new RangeError(`installment ${n}: ${c} must satisfy 0 ≤ paid ≤ due`);
      }
    }
    previous = installment;
  }
}

function checkAsOfDate(asOfDate: string): void {
  if (!isIsoDate(asOfDate))
    throw validationError('asOfDate', asOfDate, 'asOfDate must be an ISO date YYYY-MM-DD.');
}

function checkCount(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw validationError(name, value, `${name} must be an integer ≥ 1.`);
  }
  return value;
}

function checkMinor(value: unknown, name: string, minimum: 0n | 1n): bigint {
  if (typeof value !== 'bigint' || value < minimum) {
    throw validationError(name, value, `${name} must be an amount in minor units ≥ ${minimum}.`);
  }
  return value;
}

function checkBasisPoints(value: unknown, name: string, minimum: number, maximum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw validationError(
      name,
      value,
      `${name} must be an integer from ${minimum} to ${maximum} basis points.`,
    );
  }
  return value;
}

/** Validates the parameters of `reliefType` alone (400 `DomainError`), before the schedule is looked at. */
function checkParams<T extends ReliefType>(reliefType: T, params: ReliefParamsByType[T]): void {
  if (typeof params !== 'object' || params === null)
    throw validationError('params', params, 'params are required.');
  switch (reliefType) {
    case 'PAYMENT_DEFERRAL':
      checkCount((params as PaymentDeferralParams).installmentCount, 'installmentCount');
      return;
    case 'FORBEARANCE': {
      const p = params as ForbearanceParams;
      checkCount(p.installmentCount, 'installmentCount');
      checkBasisPoints(p.paymentReductionBasisPoints, 'paymentReductionBasisPoints', 1, 10_000);
      return;
    }
    case 'REDUCED_PAYMENT': {
      const p = params as ReducedPaymentParams;
      checkCount(p.installmentCount, 'installmentCount');
      checkMinor(p.reducedPaymentMinor, 'reducedPaymentMinor', 0n);
      return;
    }
    case 'FEE_WAIVER': {
      const p = params as FeeWaiverParams;
      if (!isIsoDate(p.fromDate))
        throw validationError('fromDate', p.fromDate, 'fromDate must be an ISO date.');
      if (!isIsoDate(p.toDate) || p.toDate < p.fromDate) {
        throw validationError('toDate', p.toDate, 'toDate must be an ISO date not before fromDate.');
      }
      checkMinor(p.maximumWaiverMinor, 'maximumWaiverMinor', 1n);
      return;
    }
    case 'RATE_REDUCTION': {
      const p = params as RateReductionParams;
      checkBasisPoints(p.currentRateBasisPoints, 'currentRateBasisPoints', 1, Number.MAX_SAFE_INTEGER);
      checkBasisPoints(p.reducedRateBasisPoints, 'reducedRateBasisPoints', 0, Number.MAX_SAFE_INTEGER);
      if (p.reducedRateBasisPoints >= p.currentRateBasisPoints) {
        throw notApplicable(
          'reducedRateBasisPoints',
          p.reducedRateBasisPoints,
          'reducedRateBasisPoints must be below currentRateBasisPoints.',
        );
      }
      return;
    }
    case 'PRINCIPAL_FORGIVENESS':
      checkMinor((params as PrincipalForgivenessParams).amountMinor, 'amountMinor', 1n);
      return;
    default:
      throw validationError('reliefType', reliefType, `reliefType must be one of ${reliefTypes.join(', ')}.`);
  }
}

/**
 * Size of a requested relief in its own unit (docs/processes.md P5 routing): installments for `PAYMENT_DEFERRAL`,
 * `FORBEARANCE` and `REDUCED_PAYMENT`; whole units of `currency` (ISO 4217 code) for `FEE_WAIVER`
 * (`maximumWaiverMinor`) and `PRINCIPAL_FORGIVENESS` (`amountMinor`), rounded up so that a part of a unit never
 * routes a relief past a limit it exceeds; basis points (current − reduced) for `RATE_REDUCTION`. `currency` is
 * read only for the money reliefs. Errors: as the relief's parameter checks (400 / 409 `DomainError`); RangeError
 * for an unknown currency code.
 */
export function reliefSize<T extends ReliefType>(
  reliefType: T,
  params: ReliefParamsByType[T],
  currency: string,
): number {
  checkParams(reliefType, params);
  const wholeUnits = (minor: bigint): number => {
    const unit = 10n ** BigInt(minorUnitDigits(currency));
    return Number((minor + unit - 1n) / unit);
  };
  switch (reliefType) {
    case 'FEE_WAIVER':
      return wholeUnits((params as FeeWaiverParams).maximumWaiverMinor);
    case 'PRINCIPAL_FORGIVENESS':
      return wholeUnits((params as PrincipalForgivenessParams).amountMinor);
    case 'RATE_REDUCTION': {
      const p = params as RateReductionParams;
      return p.currentRateBasisPoints - p.reducedRateBasisPoints;
    }
    default:
      return (params as PaymentDeferralParams).installmentCount;
  }
}

/** The due date `periods` repayment periods after ISO `date` (months clamped to the month end). */
function periodsAfter(schedule: ReliefSchedule, date: string, periods: number): string {
  const units = periods * schedule.repaymentEvery;
  switch (schedule.repaymentFrequencyType) {
    case 0:
      return addDays(date, units);
    case 1:
      return addDays(date, 7 * units);
    case 2:
      return addMonths(date, units);
    default:
      return addMonths(date, 12 * units);
  }
}

/** Indices of the open installments due on or after `asOfDate`, in order. */
function openIndicesFrom(schedule: ReliefSchedule, asOfDate: string): number[] {
  const indices: number[] = [];
  schedule.installments.forEach((installment, index) => {
    if (installment.dueDate >= asOfDate && isOpen(installment)) indices.push(index);
  });
  return indices;
}

/** The next `count` open installments from the as-of date; 409 when fewer remain. */
function nextOpen(schedule: ReliefSchedule, asOfDate: string, count: number): number[] {
  const open = openIndicesFrom(schedule, asOfDate);
  if (count > open.length) {
    throw notApplicable(
      'installmentCount',
      count,
      `installmentCount ${count} is more than the ${open.length} open installment(s) due on or after ${asOfDate}.`,
    );
  }
  return open.slice(0, count);
}

const withDue = (installment: ReliefInstallment, due: Amounts): ReliefInstallment => ({
  ...installment,
  principalDueMinor: due.principal,
  interestDueMinor: due.interest,
  feeDueMinor: due.fee,
  penaltyDueMinor: due.penalty,
});

const dueOf = (installment: ReliefInstallment): Amounts => ({
  principal: installment.principalDueMinor,
  interest: installment.interestDueMinor,
  fee: installment.feeDueMinor,
  penalty: installment.penaltyDueMinor,
});

/** Appends one installment per amounts, each one repayment period after the previous last due date. */
function appendInstallments(
  schedule: ReliefSchedule,
  installments: ReliefInstallment[],
  dues: readonly Amounts[],
): number[] {
  const last = installments[installments.length - 1] as ReliefInstallment;
  const added: number[] = [];
  dues.forEach((due, k) => {
    const previous = installments[installments.length - 1] as ReliefInstallment;
    const installmentNumber = last.installmentNumber + k + 1;
    installments.push({
      installmentNumber,
      fromDate: previous.dueDate,
      dueDate: periodsAfter(schedule, last.dueDate, k + 1),
      principalDueMinor: due.principal,
      interestDueMinor: due.interest,
      feeDueMinor: due.fee,
      penaltyDueMinor: due.penalty,
      principalPaidMinor: 0n,
      interestPaidMinor: 0n,
      feePaidMinor: 0n,
      penaltyPaidMinor: 0n,
    });
    added.push(installmentNumber);
  });
  return added;
}

/** Builds the outcome, checking the invariants every relief keeps (RangeError: a bug here, never returned). */
function outcome(
  reliefType: ReliefType,
  before: ReliefSchedule,
  installments: ReliefInstallment[],
  asOfDate: string,
  movedMinor: bigint,
  reduction: Amounts,
  addedInstallmentNumbers: number[],
): ReliefOutcome {
  const schedule: ReliefSchedule = {
    currency: before.currency,
    repaymentEvery: before.repaymentEvery,
    repaymentFrequencyType: before.repaymentFrequencyType,
    installments,
  };
  checkSchedule(schedule);
  const changedInstallmentNumbers: number[] = [];
  before.installments.forEach((old, index) => {
    const now = installments[index] as ReliefInstallment;
    for (const c of components) {
      if (now[paidKey[c]] !== old[paidKey[c]] || now.dueDate !== old.dueDate) {
        throw new RangeError(
          `relief changed a paid amount or due date of installment ${old.installmentNumber}`,
        );
      }
    }
    if (components.some((c) => now[dueKey[c]] !== old[dueKey[c]])) {
      changedInstallmentNumbers.push(old.installmentNumber);
    }
  });
  const totalDueBeforeMinor = totalDueMinor(before);
  const totalDueAfterMinor = totalDueMinor(schedule);
  const reductionTotalMinor = sumOf(reduction);
  if (totalDueAfterMinor !== totalDueBeforeMinor - reductionTotalMinor) {
    throw new RangeError(`${reliefType}: total due is not conserved`);
  }
  return {
    schedule,
    summary: {
      reliefType,
      asOfDate,
      totalDueBeforeMinor,
      totalDueAfterMinor,
      reductionMinor: {
        principalMinor: reduction.principal,
        interestMinor: reduction.interest,
        feeMinor: reduction.fee,
        penaltyMinor: reduction.penalty,
      },
      reductionTotalMinor,
      movedMinor,
      changedInstallmentNumbers,
      addedInstallmentNumbers,
    },
  };
}

function prepare<T extends ReliefType>(
  reliefType: T,
  schedule: ReliefSchedule,
  params: ReliefParamsByType[T],
  asOfDate: string,
): ReliefInstallment[] {
  checkSchedule(schedule);
  checkAsOfDate(asOfDate);
  checkParams(reliefType, params);
  return schedule.installments.map(copyOf);
}

/** The relief's fields of an installment only: derived fields of an `InstallmentState` would go stale. */
const copyOf = (installment: ReliefInstallment): ReliefInstallment => ({
  installmentNumber: installment.installmentNumber,
  fromDate: installment.fromDate,
  dueDate: installment.dueDate,
  principalDueMinor: installment.principalDueMinor,
  interestDueMinor: installment.interestDueMinor,
  feeDueMinor: installment.feeDueMinor,
  penaltyDueMinor: installment.penaltyDueMinor,
  principalPaidMinor: installment.principalPaidMinor,
  interestPaidMinor: installment.interestPaidMinor,
  feePaidMinor: installment.feePaidMinor,
  penaltyPaidMinor: installment.penaltyPaidMinor,
});

/**
 * `PAYMENT_DEFERRAL` (module note): the outstanding part of the next `installmentCount` open installments due on
 * or after `asOfDate` moves to as many new installments at the end of the term, one repayment period apart.
 * Total due conserved exactly, nothing forgiven; installment count + n. Errors: module note.
 */
export function applyPaymentDeferral(
  schedule: ReliefSchedule,
  params: PaymentDeferralParams,
  asOfDate: string,
): ReliefOutcome {
  const installments = prepare('PAYMENT_DEFERRAL', schedule, params, asOfDate);
  const selected = nextOpen(schedule, asOfDate, params.installmentCount);
  const deferred: Amounts[] = [];
  let movedMinor = 0n;
  for (const index of selected) {
    const installment = installments[index] as ReliefInstallment;
    const outstanding = outstandingOf(installment);
    deferred.push(outstanding);
    movedMinor += sumOf(outstanding);
    const paid = zeroAmounts();
    for (const c of components) paid[c] = installment[paidKey[c]];
    installments[index] = withDue(installment, paid);
  }
  const added = appendInstallments(schedule, installments, deferred);
  return outcome('PAYMENT_DEFERRAL', schedule, installments, asOfDate, movedMinor, zeroAmounts(), added);
}

/**
 * `FORBEARANCE` (module note): each outstanding component of the next `installmentCount` open installments is
 * reduced by `paymentReductionBasisPoints` / 10000 (rounded down; 10000 suspends the payment) and the forborne
 * total of each component is spread over the open installments due after the window, equal shares rounded down,
 * the remainder on the last. Total due and each component's total conserved exactly; count unchanged. Errors:
 * module note (409 when no open installment follows the window).
 */
export function applyForbearance(
  schedule: ReliefSchedule,
  params: ForbearanceParams,
  asOfDate: string,
): ReliefOutcome {
  const installments = prepare('FORBEARANCE', schedule, params, asOfDate);
  const selected = nextOpen(schedule, asOfDate, params.installmentCount);
  const lastSelected = selected[selected.length - 1] as number;
  const recovery = openIndicesFrom(schedule, asOfDate).filter((index) => index > lastSelected);
  if (recovery.length === 0) {
    throw notApplicable(
      'installmentCount',
      params.installmentCount,
      'No open installment follows the forbearance window, so the forborne amounts cannot be recovered over the remaining term.',
    );
  }
  const basisPoints = BigInt(params.paymentReductionBasisPoints);
  const forborne = zeroAmounts();
  for (const index of selected) {
    const installment = installments[index] as ReliefInstallment;
    const outstanding = outstandingOf(installment);
    const due = dueOf(installment);
    for (const c of components) {
      const reduction = (outstanding[c] * basisPoints) / 10_000n;
      due[c] -= reduction;
      forborne[c] += reduction;
    }
    installments[index] = withDue(installment, due);
  }
  const count = BigInt(recovery.length);
  recovery.forEach((index, position) => {
    const installment = installments[index] as ReliefInstallment;
    const due = dueOf(installment);
    for (const c of components) {
      const share = forborne[c] / count;
      due[c] += position === recovery.length - 1 ? forborne[c] - share * (count - 1n) : share;
    }
    installments[index] = withDue(installment, due);
  });
  return outcome('FORBEARANCE', schedule, installments, asOfDate, sumOf(forborne), zeroAmounts(), []);
}

/** Order in which a capped installment keeps its outstanding components (docs/design.md §5 covered-consumer order). */
const keepOrder: readonly Component[] = ['interest', 'principal', 'fee', 'penalty'];

/**
 * `REDUCED_PAYMENT` (module note): the outstanding part of each of the next `installmentCount` open installments
 * is capped at `reducedPaymentMinor` (kept in the order interest, principal, fee, penalty); each installment's
 * shortfall becomes one extra installment at the end, in order, one repayment period apart. Total due conserved
 * exactly; count + the number of installments with a shortfall. Errors: module note.
 */
export function applyReducedPayment(
  schedule: ReliefSchedule,
  params: ReducedPaymentParams,
  asOfDate: string,
): ReliefOutcome {
  const installments = prepare('REDUCED_PAYMENT', schedule, params, asOfDate);
  const selected = nextOpen(schedule, asOfDate, params.installmentCount);
  const shortfalls: Amounts[] = [];
  let movedMinor = 0n;
  for (const index of selected) {
    const installment = installments[index] as ReliefInstallment;
    const outstanding = outstandingOf(installment);
    let room = params.reducedPaymentMinor;
    const shortfall = zeroAmounts();
    const due = dueOf(installment);
    for (const c of keepOrder) {
      const kept = outstanding[c] < room ? outstanding[c] : room;
      room -= kept;
      shortfall[c] = outstanding[c] - kept;
      due[c] -= shortfall[c];
    }
    if (sumOf(shortfall) > 0n) {
      shortfalls.push(shortfall);
      movedMinor += sumOf(shortfall);
      installments[index] = withDue(installment, due);
    }
  }
  const added = appendInstallments(schedule, installments, shortfalls);
  return outcome('REDUCED_PAYMENT', schedule, installments, asOfDate, movedMinor, zeroAmounts(), added);
}

/**
 * `FEE_WAIVER` (module note): outstanding penalties, then fees, of the installments due within [`fromDate`,
 * `toDate`] are waived, oldest first, up to `maximumWaiverMinor`; `asOfDate` is only checked. Total due reduced by
 * exactly the waived amount (`summary.reductionMinor`, possibly 0 when nothing is due in the window); count
 * unchanged. Errors: module note.
 */
export function applyFeeWaiver(
  schedule: ReliefSchedule,
  params: FeeWaiverParams,
  asOfDate: string,
): ReliefOutcome {
  const installments = prepare('FEE_WAIVER', schedule, params, asOfDate);
  let budget = params.maximumWaiverMinor;
  const waived = zeroAmounts();
  installments.forEach((installment, index) => {
    if (installment.dueDate < params.fromDate || installment.dueDate > params.toDate) return;
    const outstanding = outstandingOf(installment);
    const due = dueOf(installment);
    for (const c of ['penalty', 'fee'] as const) {
      const amount = outstanding[c] < budget ? outstanding[c] : budget;
      budget -= amount;
      due[c] -= amount;
      waived[c] += amount;
    }
    installments[index] = withDue(installment, due);
  });
  return outcome('FEE_WAIVER', schedule, installments, asOfDate, 0n, waived, []);
}

/** numerator ÷ denominator (numerator ≥ 0, denominator > 0), HALF_EVEN. */
function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const twice = (numerator % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}

/**
 * `RATE_REDUCTION` (module note): the interest of every open installment due on or after `asOfDate` becomes its
 * scheduled interest × `reducedRateBasisPoints` ÷ `currentRateBasisPoints`, HALF_EVEN, never below the interest
 * already paid of it. Principal conserved; total due reduced by exactly the interest reduction
 * (`summary.reductionMinor.interestMinor`); count unchanged. Errors: module note (409 when no open installment
 * is due on or after the as-of date).
 */
export function applyRateReduction(
  schedule: ReliefSchedule,
  params: RateReductionParams,
  asOfDate: string,
): ReliefOutcome {
  const installments = prepare('RATE_REDUCTION', schedule, params, asOfDate);
  const open = openIndicesFrom(schedule, asOfDate);
  if (open.length === 0) {
    throw notApplicable('asOfDate', asOfDate, `No open installment is due on or after ${asOfDate}.`);
  }
  const reduction = zeroAmounts();
  for (const index of open) {
    const installment = installments[index] as ReliefInstallment;
    const scaled = divideHalfEven(
      installment.interestDueMinor * BigInt(params.reducedRateBasisPoints),
      BigInt(params.currentRateBasisPoints),
    );
    const interest = scaled > installment.interestPaidMinor ? scaled : installment.interestPaidMinor;
    reduction.interest += installment.interestDueMinor - interest;
    installments[index] = { ...installment, interestDueMinor: interest };
  }
  return outcome('RATE_REDUCTION', schedule, installments, asOfDate, 0n, reduction, []);
}

/**
 * `PRINCIPAL_FORGIVENESS` (module note): outstanding principal of the open installments due on or after
 * `asOfDate` is reduced by `amountMinor`, from the last installment backwards. Total due reduced by exactly
 * `amountMinor` (`summary.reductionMinor.principalMinor`); count unchanged. Errors: module note (409 when the
 * amount exceeds that outstanding principal).
 */
export function applyPrincipalForgiveness(
  schedule: ReliefSchedule,
  params: PrincipalForgivenessParams,
  asOfDate: string,
): ReliefOutcome {
  const installments = prepare('PRINCIPAL_FORGIVENESS', schedule, params, asOfDate);
  const open = openIndicesFrom(schedule, asOfDate);
  const available = open.reduce(
    (sum, index) => sum + outstandingOf(installments[index] as ReliefInstallment).principal,
    0n,
  );
  if (params.amountMinor > available) {
    throw notApplicable(
      'amountMinor',
      params.amountMinor.toString(),
      `amountMinor ${params.amountMinor} is more than the ${available} minor units of principal outstanding in installments due on or after ${asOfDate}.`,
    );
  }
  let left = params.amountMinor;
  for (const index of [...open].reverse()) {
    if (left === 0n) break;
    const installment = installments[index] as ReliefInstallment;
    const outstanding = outstandingOf(installment).principal;
    const forgiven = outstanding < left ? outstanding : left;
    left -= forgiven;
    installments[index] = { ...installment, principalDueMinor: installment.principalDueMinor - forgiven };
  }
  const reduction = zeroAmounts();
  reduction.principal = params.amountMinor;
  return outcome('PRINCIPAL_FORGIVENESS', schedule, installments, asOfDate, 0n, reduction, []);
}

/**
 * Applies `reliefType` with its parameters (the matching `apply…` function above). Same results and errors; a
 * `reliefType` that is not one of `reliefTypes` → 400 `DomainError`.
 */
export function applyRelief<T extends ReliefType>(
  reliefType: T,
  schedule: ReliefSchedule,
  params: ReliefParamsByType[T],
  asOfDate: string,
): ReliefOutcome {
  switch (reliefType) {
    case 'PAYMENT_DEFERRAL':
      return applyPaymentDeferral(schedule, params as PaymentDeferralParams, asOfDate);
    case 'FORBEARANCE':
      return applyForbearance(schedule, params as ForbearanceParams, asOfDate);
    case 'REDUCED_PAYMENT':
      return applyReducedPayment(schedule, params as ReducedPaymentParams, asOfDate);
    case 'FEE_WAIVER':
      return applyFeeWaiver(schedule, params as FeeWaiverParams, asOfDate);
    case 'RATE_REDUCTION':
      return applyRateReduction(schedule, params as RateReductionParams, asOfDate);
    case 'PRINCIPAL_FORGIVENESS':
      return applyPrincipalForgiveness(schedule, params as PrincipalForgivenessParams, asOfDate);
    default:
      throw validationError('reliefType', reliefType, `reliefType must be one of ${reliefTypes.join(', ')}.`);
  }
}
