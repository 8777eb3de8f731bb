/**
 * Payment allocation of a loan: replays the loan's money events (disbursements and payments) in value-date
 * order against its installments and says, per payment, which component of which installment it paid, and
 * what is left over as an overpayment (`POST /v1/loans/{loanId}/payments/record-external`, "value-dated
 * to effectiveDate, allocated by the loan's strategy across installments"; docs/lending.md "Lending core": allocation
 * is performed by the ledger).
 *
 * Pure and deterministic: no clock, no I/O, no float. Amounts are bigint counts of the currency's minor unit
 * (`…Minor`, e.g. cents for USD; `domain/money.ts` converts to and from decimal strings); dates are ISO calendar
 * dates `YYYY-MM-DD`, compared as calendar days.
 *
 * Replay order. Events are sorted by value date, then disbursements before payments on the same day (money
 * cannot be repaid before it is lent), a payment and a charge joining that day in the order they were recorded
 * (when both carry `recordedAtMs`), then by `id` (the row's identity, i.e. the order of recording). The
 * result depends only on the set of events, never on the order they are passed in, so a back-dated payment
 * gives exactly the allocation that posting in date order would have given; every later payment is
 * re-allocated against the state the back-dated one left.
 *
 * Strategies (`transactionProcessingStrategyCode`, Apache Fineract's names):
 * - `mifos-standard-strategy` (Fineract `FineractStyleLoanRepaymentScheduleTransactionProcessor`, "Penalties, Fees,
 *   Interest, Principal order"): installments oldest first, whatever their due dates; within one: penalties,
 *   fees, interest, principal.
 * - `advanced-payment-allocation-strategy` (Fineract `AdvancedPaymentScheduleTransactionProcessor`): twelve
 *   rules `<due-ness>_<component>` ordered by the loan product's `paymentAllocation` (Fineract's JSON format).
 *   Due-ness is decided against the payment's value date: PAST_DUE = due date before it (oldest installment
 *   first), DUE = due on that day, IN_ADVANCE = due after it. In-advance money goes, per
 *   `futureInstallmentAllocationRule`, to the next installment (NEXT_INSTALLMENT, then the one after, …), to
 *   the last (LAST_INSTALLMENT, then the one before, …), or to the installment whose period contains the value
 *   date and then to the last (NEXT_LAST_INSTALLMENT; the first installment's period includes its start), or
 *   evenly over every future installment still owing something (REAMORTIZATION: each gets the money left divided by
 *   their number, rounded half-even, the last one the rounding difference, pass after pass).
 *   `loanScheduleProcessingType` HORIZONTAL (Fineract's default) groups the rules by due-ness in the order of
 *   first appearance and pays installment by installment: every component of the oldest past-due installment
 *   (in rule order) before the next one. VERTICAL applies the rules one by one across all installments of
 *   their due-ness (e.g. past-due interest of every installment before any past-due principal).
 *   Without `paymentAllocation`, the COVERED_CONSUMER default of docs/design.md §5 applies
 *   (`coveredConsumerPaymentAllocation`): past-due interest, principal, fee, penalty; then due in the same
 *   order; then in advance in the same order, to the next installment (docs/design.md §5 cites 16 CFR §444.4, the FTC
 *   Credit Practices Rule's ban on pyramiding late charges: within an installment, interest and principal come
 *   before its fees and penalties). The rule itself is about assessing late charges, which is not done here:
 *   since every past-due rule precedes every due rule, an unpaid penalty of an earlier installment is still
 *   paid before the installment due today, so a late-charge assessor must not charge a late fee on a payment
 *   that was full and on time except for an earlier late fee. Fineract's own product default order differs
 *   (penalty, fee, principal, interest).
 *
 * Principal can never be repaid beyond the principal disbursed up to the payment's value date (the loan
 * portfolio account never turns to a credit); the excess flows to the next rule. Whatever no rule can take is
 * the payment's overpayment (its own line, `component: 'OVERPAYMENT'`), held as a liability by the ledger.
 *
 * An installment's `obligationsMetOnDate` is the value date of the payment that completed it; an installment
 * with nothing due is met on the first disbursement date (Fineract `updateDerivedFields`).
 *
 * The payoff a payment can be is the payoff rule of payoff.ts (its module note says how such a payment is
 * allocated first, waived after).
 *
 * Principal forgiveness (`AllocationInput.principalForgiveness`; hardship relief
 * `PRINCIPAL_FORGIVENESS`, activities/lending/loan-relief.ts): principal written off by a relief has already been
 * taken off the installments' principal due, so the principal the installments owe is the disbursed principal less
 * everything forgiven. The replay deducts the forgiven total from the disbursed principal wherever it bounds
 * principal (the cap on principal repaid, the payoff's "whole scheduled principal disbursed" test and the principal
 * outstanding), whatever the value dates: the installments read are always the current schedule version, so the
 * forgiveness applies to every day the replay looks at, like the rest of that version. Forgiveness events are
 * echoed in the result for the ledger (domain/lending/ledger.ts posts each one).
 *
 * Charges added to an active loan (`AllocationInput.charges`, types.ts `ChargeEvent`) are events too: on its
 * effective date (after that day's disbursements and payments; before every event when it has none, as Fineract's
 * cumulative processors apply charges) a charge joins its installment's fees or penalties, reopening the
 * installment if it was met. Within one component of one installment, money paid or waived goes to what
 * fell due first: the scheduled amount (due with the installment) and the charges by due date, the scheduled
 * amount before a charge of the same date, then by charge id; so each charge's paid and waived amounts are known
 * (`AllocationResult.charges`). A charge's waiver is kept out of every payment's reach from the moment the charge
 * joins the replay, and counts as waived from its waiver date.
 *
 * Errors: RangeError for malformed input (see `AllocationInput`), a payment value-dated before the first
 * disbursement, more disbursed than the installments' principal plus the principal forgiven, or more forgiven
 * than disbursed.
 */

import { parseDecimalToMinor } from '../../money';
import type { Schedule } from '../schedule';
import { epochDay } from './accrual';
import { type PayoffQuote, payoffRule } from './payoff';
import {
  type AllocationComponent,
  type AllocationInput,
  type AllocationLine,
  type AllocationResult,
  type AllocationStrategy,
  type ChargeEvent,
  type ChargeState,
  type ComponentRecord,
  coveredConsumerPaymentAllocation,
  type DisbursementEvent,
  type DueType,
  type InstallmentAllocationLine,
  type InstallmentDue,
  type MoneyEvent,
  type PaymentAllocation,
  type PaymentAllocationRuleSet,
  type PrincipalForgivenessEvent,
  paymentAllocationRules,
} from './types';

/**
 * Replays `input.events` in value-date order (module note) and allocates every payment by `input.strategy`.
 * RangeError on malformed input, a payment before the first disbursement, or disbursements above the principal.
 */
export function allocatePayments(input: AllocationInput): AllocationResult {
  const loan = normalize(input);
  return replay(loan, loan.events);
}

/**
 * The installments of a `generateSchedule` result (domain/lending/schedule.ts), its decimal strings turned into minor
 * units at the schedule's `digitsAfterDecimal`. RangeError when the disbursement period carries charges: those
 * are not installments; pass them as the first disbursement's `chargesWithheldMinor` instead.
 */
export function installmentsFromSchedule(schedule: Schedule): InstallmentDue[] {
  const digits = schedule.currency.digitsAfterDecimal;
  const [disbursement, ...periods] = schedule.periods;
  if (parseDecimalToMinor(disbursement.feeChargesDue, digits) !== 0n) {
    throw new RangeError('charges due at disbursement are not supported by payment allocation');
  }
  return periods.map((period) => ({
    installmentNumber: period.period,
    fromDate: period.fromDate,
    dueDate: period.dueDate,
    principalDueMinor: parseDecimalToMinor(period.principalDue, digits),
    interestDueMinor: parseDecimalToMinor(period.interestDue, digits),
    feeDueMinor: parseDecimalToMinor(period.feeChargesDue, digits),
    penaltyDueMinor: parseDecimalToMinor(period.penaltyChargesDue, digits),
  }));
}

// ---- internals ------------------------------------------------------------------------------------------------

/** An installment with its dates as epoch days and its due amounts by component. */
export interface NormalizedInstallment {
  due: InstallmentDue;
  fromDay: number;
  dueDay: number;
  dueMinor: Record<AllocationComponent, bigint>;
}

/** A money event, a charge falling due, or a charge's waiver taking effect, with its value date as an epoch day. */
type NormalizedEvent =
  | (MoneyEvent & { day: number })
  | {
      kind: 'CHARGE';
      id: number;
      valueDate: string;
      day: number;
      dueDay: number;
      /** Epoch day of its `submittedOnDate` (or due date): a payoff before it does not waive it. */
      submittedDay: number;
      charge: ChargeEvent;
    }
  | { kind: 'CHARGE_WAIVER'; id: number; valueDate: string; day: number; charge: ChargeEvent };

/** Same-day order of event kinds (module note). */
const kindRank = { DISBURSEMENT: 0, PAYMENT: 1, CHARGE: 2, CHARGE_WAIVER: 3 } as const;

/**
 * Money of one component of one installment that fell due at once: the scheduled amount (`chargeId` null) or one
 * charge. `reservedMinor` is a charge's waiver (no payment may take it), `waiverInForceMinor` the part of it
 * already counted as waived, `waivedMinor` what a payoff waived.
 */
interface DueBucket {
  chargeId: number | null;
  day: number;
  dueMinor: bigint;
  paidMinor: bigint;
  waivedMinor: bigint;
  reservedMinor: bigint;
  waiverInForceMinor: bigint;
  /** A payoff value-dated before this epoch day leaves it owed (a charge's submission day); scheduled: never. */
  waivableFromDay: number;
}

/** A slot of the allocation order: one component of one installment (index into the installments). */
type Slot = readonly [index: number, component: AllocationComponent];

/**
 * Fineract's REAMORTIZATION future-installment rule: the money left is split evenly, component by component, over
 * the installments `split` (those due after the payment, each while not fully paid), in passes until it is spent or a
 * pass pays nothing (`runSteps`).
 */
interface SplitStep {
  split: readonly number[];
  components: readonly AllocationComponent[];
}

/** One step of the allocation order: a slot, or an even split over future installments. */
type Step = Slot | SplitStep;

type SlotOrder = (paymentDay: number) => Iterable<Step>;

/** The slots of `steps` in order (a split step lists its components, each over its installments). */
function* slotsOf(steps: Iterable<Step>): Iterable<Slot> {
  for (const step of steps) {
    if (!('split' in step)) {
      yield step;
      continue;
    }
    for (const component of step.components) {
      for (const index of step.split) yield [index, component] as const;
    }
  }
}

/** `amount / n` rounded half-even to a minor unit (Fineract `Money.dividedBy` with its HALF_EVEN MathContext). */
function divideHalfEven(amount: bigint, n: bigint): bigint {
  const quotient = amount / n;
  const remainder = amount - quotient * n;
  const twice = remainder * 2n;
  if (twice > n || (twice === n && quotient % 2n !== 0n)) return quotient + 1n;
  return quotient;
}

interface NormalizedLoan {
  currency: string;
  installments: NormalizedInstallment[];
  events: NormalizedEvent[];
  slotOrder: SlotOrder;
  principalForgiveness: PrincipalForgivenessEvent[];
  principalForgivenMinor: bigint;
}

const mifosComponentOrder = ['PENALTY', 'FEE', 'INTEREST', 'PRINCIPAL'] as const;

/** The portion of a `PaymentAllocation` that money paid to a component adds to. */
const portionField = {
  PRINCIPAL: 'principalMinor',
  INTEREST: 'interestMinor',
  FEE: 'feeMinor',
  PENALTY: 'penaltyMinor',
} as const;

/** The replay itself (module note) over `events`, already normalized and sorted. */
export function replay(loan: NormalizedLoan, events: readonly NormalizedEvent[]): AllocationResult {
  const { installments } = loan;
  const zeroRecord = (): ComponentRecord => ({ PRINCIPAL: 0n, INTEREST: 0n, FEE: 0n, PENALTY: 0n });
  const paid = installments.map(zeroRecord);
  const waived = installments.map(zeroRecord);
  const metOn: (string | null)[] = installments.map(() => null);
  // what each installment asks for now: its schedule, plus the charges fallen due so far
  const dueOf = installments.map((installment) => ({ ...installment.dueMinor }));
  // the part of `waived` that charges' waivers reserved but that is not yet in force (module note)
  const reserved = installments.map(zeroRecord);
  const indexOfNumber = new Map(
    installments.map((installment, index) => [installment.due.installmentNumber, index]),
  );
  const buckets = installments.map((installment) => ({
    FEE: [bucketOf(null, installment.dueDay, installment.dueMinor.FEE)],
    PENALTY: [bucketOf(null, installment.dueDay, installment.dueMinor.PENALTY)],
  }));
  const chargeBuckets = new Map<number, { charge: ChargeEvent; bucket: DueBucket }>();
  /** Spreads `amount` paid (or waived by a payoff) of a fee or penalty over its buckets, oldest due first. */
  const spread = (
    index: number,
    component: AllocationComponent,
    amount: bigint,
    field: 'paidMinor' | 'waivedMinor',
  ) => {
    if (component !== 'FEE' && component !== 'PENALTY') return;
    let left = amount;
    for (const bucket of buckets[index]![component]) {
      if (left === 0n) break;
      const room = bucket.dueMinor - bucket.paidMinor - bucket.waivedMinor - bucket.reservedMinor;
      if (room <= 0n) continue;
      const part = left < room ? left : room;
      bucket[field] += part;
      left -= part;
    }
  };
  const outstandingOf = (index: number): bigint => {
    const due = dueOf[index]!;
    const p = paid[index]!;
    const w = waived[index]!;
    const r = reserved[index]!;
    return (
      due.PRINCIPAL -
      p.PRINCIPAL +
      (due.INTEREST - p.INTEREST - w.INTEREST) +
      (due.FEE - p.FEE - w.FEE + r.FEE) +
      (due.PENALTY - p.PENALTY - w.PENALTY + r.PENALTY)
    );
  };
  let scheduledPrincipal = 0n;
  for (const due of dueOf) scheduledPrincipal += due.PRINCIPAL;
  let disbursed = 0n;
  let principalRepaid = 0n;
  let overpaymentTotal = 0n;
  // the principal the installments owe: disbursed less forgiven (module note), never below zero
  const lentOf = (): bigint => {
    const lent = disbursed - loan.principalForgivenMinor;
    return lent > 0n ? lent : 0n;
  };
  const disbursements: DisbursementEvent[] = [];
  const payments: PaymentAllocation[] = [];
  const paymentDays: number[] = [];

  /**
   * Pays up to `budget` in the strategy's order for a payment on `day`, each slot up to `roomOf` it (principal never
   * beyond what is lent and not repaid), by `pay`; returns what is left. A split step (REAMORTIZATION) shares the money
   * left evenly over its installments still owing something, the last one taking the rounding difference, pass after
   * pass while a pass pays something (Fineract `processAllocationsHorizontally`, IN_ADVANCE with REAMORTIZATION).
   */
  const runSteps = (
    day: number,
    budget: bigint,
    roomOf: (index: number, component: AllocationComponent) => bigint,
    pay: (index: number, component: AllocationComponent, amount: bigint) => void,
  ): bigint => {
    let left = budget;
    const cappedRoom = (index: number, component: AllocationComponent): bigint => {
      const room = roomOf(index, component);
      const lent = lentOf() - principalRepaid;
      return component === 'PRINCIPAL' && room > lent ? lent : room;
    };
    const payUpTo = (index: number, component: AllocationComponent, most: bigint): bigint => {
      const room = cappedRoom(index, component);
      let amount = most < room ? most : room;
      if (amount > left) amount = left;
      if (amount <= 0n) return 0n;
      left -= amount;
      paid[index]![component] += amount;
      spread(index, component, amount, 'paidMinor');
      if (component === 'PRINCIPAL') principalRepaid += amount;
      pay(index, component, amount);
      return amount;
    };
    for (const step of loan.slotOrder(day)) {
      if (left === 0n) break;
      if (!('split' in step)) {
        payUpTo(step[0], step[1], left);
        continue;
      }
      for (let pass = 0; pass <= 100 * step.split.length && left > 0n; pass += 1) {
        const live = step.split.filter((index) => outstandingOf(index) > 0n);
        if (live.length === 0) break;
        let progress = 0n;
        for (const component of step.components) {
          if (left === 0n) break;
          const n = BigInt(live.length);
          let portion = divideHalfEven(left, n);
          let adjustment = left - portion * n;
          if (portion + adjustment < 0n) {
            portion = left / n;
            adjustment = left - portion * n;
          }
          for (const [position, index] of live.entries()) {
            const share = position === live.length - 1 ? portion + adjustment : portion;
            progress += payUpTo(index, component, share);
          }
        }
        if (progress === 0n) break;
      }
    }
    return left;
  };

  /**
   * A charge that joins the replay after payments overpaid the loan is paid from their overpayment, oldest payment
   * first, each re-allocated by the strategy as of its own value date (Fineract
   * `AdvancedPaymentScheduleTransactionProcessor.processOverpaidTransactions`): the payment's overpayment shrinks and
   * its portions grow by what it now pays; an installment it completes is met on the payment's value date.
   */
  const payFromOverpayments = () => {
    for (const [position, payment] of payments.entries()) {
      if (payment.overpaymentMinor === 0n) continue;
      const paymentDay = paymentDays[position]!;
      const overpaymentLine = payment.lines.pop();
      const left = runSteps(
        paymentDay,
        payment.overpaymentMinor,
        (index, component) => dueOf[index]![component] - paid[index]![component] - waived[index]![component],
        (index, component, amount) => {
          payment[portionField[component]] += amount;
          const installmentNumber = installments[index]!.due.installmentNumber;
          const line = payment.lines.find(
            (l) => l.installmentNumber === installmentNumber && l.component === component,
          );
          if (line) line.amountMinor += amount;
          else payment.lines.push({ installmentNumber, component, amountMinor: amount });
          if (metOn[index] === null && outstandingOf(index) === 0n) metOn[index] = payment.valueDate;
        },
      );
      overpaymentTotal -= payment.overpaymentMinor - left;
      payment.overpaymentMinor = left;
      if (left > 0n && overpaymentLine) {
        overpaymentLine.amountMinor = left;
        payment.lines.push(overpaymentLine);
      }
      if (overpaymentTotal === 0n) break;
    }
  };

  for (const event of events) {
    if (event.kind === 'CHARGE') {
      const { charge } = event;
      const index = indexOfNumber.get(charge.installmentNumber)!;
      const waiver = charge.waivedMinor ?? 0n;
      dueOf[index]![charge.component] += charge.amountMinor;
      // the waiver is out of every payment's reach from now on, but counts as waived from its own date
      waived[index]![charge.component] += waiver;
      reserved[index]![charge.component] += waiver;
      const bucket = bucketOf(charge.id, event.dueDay, charge.amountMinor);
      bucket.reservedMinor = waiver;
      bucket.waivableFromDay = event.submittedDay;
      const list = buckets[index]![charge.component];
      list.push(bucket);
      list.sort(compareBuckets);
      chargeBuckets.set(charge.id, { charge, bucket });
      if (outstandingOf(index) > 0n) metOn[index] = null;
      if (overpaymentTotal > 0n) payFromOverpayments();
      continue;
    }
    if (event.kind === 'CHARGE_WAIVER') {
      const { charge } = event;
      const index = indexOfNumber.get(charge.installmentNumber)!;
      const entry = chargeBuckets.get(charge.id)!;
      reserved[index]![charge.component] -= entry.bucket.reservedMinor;
      entry.bucket.waiverInForceMinor = entry.bucket.reservedMinor;
      if (metOn[index] === null && disbursements.length > 0 && outstandingOf(index) === 0n) {
        metOn[index] = event.valueDate;
      }
      continue;
    }
    if (event.kind === 'DISBURSEMENT') {
      if (disbursements.length === 0) {
        for (const [index] of installments.entries()) {
          if (outstandingOf(index) === 0n) metOn[index] = event.valueDate;
        }
      }
      disbursed += event.amountMinor;
      disbursements.push({
        kind: 'DISBURSEMENT',
        id: event.id,
        valueDate: event.valueDate,
        amountMinor: event.amountMinor,
        ...(event.chargesWithheldMinor ? { chargesWithheldMinor: event.chargesWithheldMinor } : {}),
      });
      continue;
    }
    // A payment that covers the payoff on its value date pays the loan off (module note, `payoffRule`).
    let quote: PayoffQuote | null = null;
    if (lentOf() === scheduledPrincipal && installments.some((_, index) => outstandingOf(index) > 0n)) {
      const candidate = payoffRule(
        installments.map((installment, index) => ({
          fromDay: installment.fromDay,
          dueDay: installment.dueDay,
          dueMinor: dueOf[index]!,
          paidMinor: paid[index]!,
          waivedMinor: waived[index]!,
        })),
        lentOf() - principalRepaid,
        event.day,
      );
      if (event.amountMinor >= candidate.totalMinor) quote = candidate;
    }
    let remaining = event.amountMinor;
    const lines = new Map<string, InstallmentAllocationLine>();
    const totals: ComponentRecord = zeroRecord();
    /** Pays up to `budget` in the strategy's order, each slot up to `roomOf` it; returns what is left. */
    const allocate = (budget: bigint, roomOf: (index: number, component: AllocationComponent) => bigint) =>
      runSteps(event.day, budget, roomOf, (index, component, amount) => {
        totals[component] += amount;
        const installmentNumber = installments[index]!.due.installmentNumber;
        const key = `${installmentNumber}/${component}`;
        const line = lines.get(key);
        if (line) line.amountMinor += amount;
        else lines.set(key, { installmentNumber, component, amountMinor: amount });
      });
    const unpaidOf = (index: number, component: AllocationComponent): bigint =>
      dueOf[index]![component] - paid[index]![component] - waived[index]![component];
    if (quote === null) {
      remaining = allocate(remaining, unpaidOf);
    } else {
      const payoffQuote = quote;
      // 1. the payoff amount, by the strategy, to what the payoff keeps owed: it settles every principal slot
      const keptUnpaidOf = (index: number, component: AllocationComponent): bigint =>
        component === 'PRINCIPAL'
          ? unpaidOf(index, component)
          : payoffQuote.keptMinor[index]![component] - paid[index]![component];
      remaining = allocate(payoffQuote.totalMinor, keptUnpaidOf) + (remaining - payoffQuote.totalMinor);
      // 2. the rest, by the strategy, to the later interest, fees and penalties (paid in advance)
      remaining = allocate(remaining, unpaidOf);
      // 3. principal is settled: what is still unpaid of them is waived, except the charges added to the loan after
      // the payoff's day (types.ts `ChargeEvent.submittedOnDate`): the loan owes them still, and reopens
      for (const [index] of installments.entries()) {
        const interest = unpaidOf(index, 'INTEREST');
        waived[index]!.INTEREST += interest;
        for (const component of ['FEE', 'PENALTY'] as const) {
          let unpaid = 0n;
          for (const bucket of buckets[index]![component]) {
            if (bucket.waivableFromDay > event.day) continue;
            const room = bucket.dueMinor - bucket.paidMinor - bucket.waivedMinor - bucket.reservedMinor;
            if (room <= 0n) continue;
            bucket.waivedMinor += room;
            unpaid += room;
          }
          waived[index]![component] += unpaid;
        }
      }
    }
    // after the whole payment: an installment it completed (or a payoff waived to nothing) is met today
    for (const [index] of installments.entries()) {
      if (metOn[index] === null && outstandingOf(index) === 0n) metOn[index] = event.valueDate;
    }
    let allocationLines: AllocationLine[] = [...lines.values()];
    if (quote !== null && allocationLines.length > 1) {
      // two passes applied money: list the lines in the strategy's order, as one pass would have
      const rank = new Map<string, number>();
      for (const [index, component] of slotsOf(loan.slotOrder(event.day))) {
        const key = `${installments[index]!.due.installmentNumber}/${component}`;
        if (!rank.has(key)) rank.set(key, rank.size);
      }
      const rankOf = (line: AllocationLine): number =>
        rank.get(`${line.installmentNumber}/${line.component}`) ?? Number.MAX_SAFE_INTEGER;
      allocationLines = allocationLines.sort((a, b) => rankOf(a) - rankOf(b));
    }
    if (remaining > 0n) {
      allocationLines.push({ installmentNumber: null, component: 'OVERPAYMENT', amountMinor: remaining });
      overpaymentTotal += remaining;
    }
    payments.push({
      paymentId: event.id,
      valueDate: event.valueDate,
      amountMinor: event.amountMinor,
      lines: allocationLines,
      principalMinor: totals.PRINCIPAL,
      interestMinor: totals.INTEREST,
      feeMinor: totals.FEE,
      penaltyMinor: totals.PENALTY,
      overpaymentMinor: remaining,
      payoff: quote !== null,
    });
    paymentDays.push(event.day);
  }

  return {
    currency: loan.currency,
    installments: installments.map((installment, index) => {
      const p = paid[index]!;
      const w = waived[index]!;
      const r = reserved[index]!;
      return {
        ...installment.due,
        feeDueMinor: dueOf[index]!.FEE,
        penaltyDueMinor: dueOf[index]!.PENALTY,
        principalPaidMinor: p.PRINCIPAL,
        interestPaidMinor: p.INTEREST,
        feePaidMinor: p.FEE,
        penaltyPaidMinor: p.PENALTY,
        interestWaivedMinor: w.INTEREST,
        feeWaivedMinor: w.FEE - r.FEE,
        penaltyWaivedMinor: w.PENALTY - r.PENALTY,
        outstandingMinor: outstandingOf(index),
        obligationsMetOnDate: metOn[index]!,
      };
    }),
    disbursements,
    payments,
    disbursedMinor: disbursed,
    overpaymentMinor: overpaymentTotal,
    principalForgiveness: loan.principalForgiveness.map((f) => ({ ...f })),
    principalForgivenMinor: loan.principalForgivenMinor,
    charges: [...chargeBuckets.values()]
      .sort((a, b) => a.charge.id - b.charge.id)
      .map(({ charge, bucket }): ChargeState => {
        const waivedMinor = bucket.waivedMinor + bucket.waiverInForceMinor;
        return {
          id: charge.id,
          installmentNumber: charge.installmentNumber,
          component: charge.component,
          dueDate: charge.dueDate,
          amountMinor: charge.amountMinor,
          paidMinor: bucket.paidMinor,
          waivedMinor,
          outstandingMinor: charge.amountMinor - bucket.paidMinor - waivedMinor,
        };
      }),
  };
}

function bucketOf(chargeId: number | null, day: number, dueMinor: bigint): DueBucket {
  return {
    chargeId,
    day,
    dueMinor,
    paidMinor: 0n,
    waivedMinor: 0n,
    reservedMinor: 0n,
    waiverInForceMinor: 0n,
    waivableFromDay: Number.MIN_SAFE_INTEGER,
  };
}

/** What fell due first is settled first; the scheduled amount before a charge of its day; then by charge id. */
function compareBuckets(a: DueBucket, b: DueBucket): number {
  if (a.day !== b.day) return a.day - b.day;
  if (a.chargeId === null) return -1;
  if (b.chargeId === null) return 1;
  return a.chargeId - b.chargeId;
}

/** Validates `input` (RangeError) and sorts its events into replay order. */
export function normalize(input: AllocationInput): NormalizedLoan {
  if (typeof input.currency !== 'string' || !/^[A-Z]{3}$/.test(input.currency)) {
    throw new RangeError(`currency must be an ISO 4217 code: ${String(input.currency)}`);
  }
  if (!Array.isArray(input.installments) || input.installments.length === 0) {
    throw new RangeError('installments must be a non-empty array');
  }
  const installments = [...input.installments]
    .map((due, position) => normalizeInstallment(due, position))
    .sort((a, b) => a.due.installmentNumber - b.due.installmentNumber);
  let scheduledPrincipal = 0n;
  for (const [index, installment] of installments.entries()) {
    scheduledPrincipal += installment.dueMinor.PRINCIPAL;
    const previous = installments[index - 1];
    if (!previous) continue;
    if (previous.due.installmentNumber === installment.due.installmentNumber) {
      throw new RangeError(`installmentNumber ${installment.due.installmentNumber} appears twice`);
    }
    if (installment.dueDay < previous.dueDay) {
      throw new RangeError(
        `installment ${installment.due.installmentNumber} falls due before the one before it`,
      );
    }
  }

  if (!Array.isArray(input.events)) throw new RangeError('events must be an array');
  const seen = new Set<string>();
  const events = input.events.map((event, position) => {
    const label = `events[${position}]`;
    if (event.kind !== 'DISBURSEMENT' && event.kind !== 'PAYMENT') {
      throw new RangeError(`${label}.kind must be DISBURSEMENT or PAYMENT`);
    }
    if (!Number.isSafeInteger(event.id) || event.id < 1) {
      throw new RangeError(`${label}.id must be a positive safe integer`);
    }
    const key = `${event.kind}/${event.id}`;
    if (seen.has(key)) throw new RangeError(`${label}: ${event.kind} id ${event.id} appears twice`);
    seen.add(key);
    if (typeof event.amountMinor !== 'bigint' || event.amountMinor <= 0n) {
      throw new RangeError(`${label}.amountMinor must be a bigint > 0`);
    }
    return { ...event, day: epochDay(event.valueDate, `${label}.valueDate`) } as NormalizedEvent;
  });
  events.push(...chargeEventsOf(input.charges ?? [], installments));
  events.sort(compareEvents);

  let disbursed = 0n;
  for (const event of events) {
    if (event.kind === 'CHARGE' || event.kind === 'CHARGE_WAIVER') continue;
    if (event.kind === 'DISBURSEMENT') {
      disbursed += event.amountMinor;
      const withheld = event.chargesWithheldMinor ?? 0n;
      if (withheld < 0n || withheld > event.amountMinor) {
        throw new RangeError(
          `disbursement ${event.id}: chargesWithheldMinor must be between 0 and the disbursed amount`,
        );
      }
    } else if (disbursed === 0n) {
      throw new RangeError(
        `payment ${event.id} is value-dated ${event.valueDate}, before the first disbursement`,
      );
    }
  }
  const forgivenessInput = input.principalForgiveness ?? [];
  if (!Array.isArray(forgivenessInput)) throw new RangeError('principalForgiveness must be an array');
  const forgivenIds = new Set<number>();
  let forgiven = 0n;
  const principalForgiveness = forgivenessInput.map((event, position) => {
    const label = `principalForgiveness[${position}]`;
    if (!Number.isSafeInteger(event.id) || event.id < 1 || forgivenIds.has(event.id)) {
      throw new RangeError(`${label}.id must be a unique positive safe integer`);
    }
    forgivenIds.add(event.id);
    if (typeof event.amountMinor !== 'bigint' || event.amountMinor <= 0n) {
      throw new RangeError(`${label}.amountMinor must be a bigint > 0`);
    }
    epochDay(event.valueDate, `${label}.valueDate`);
    forgiven += event.amountMinor;
    return { id: event.id, valueDate: event.valueDate, amountMinor: event.amountMinor };
  });
  principalForgiveness.sort((a, b) =>
    a.valueDate === b.valueDate ? a.id - b.id : a.valueDate < b.valueDate ? -1 : 1,
  );
  if (forgiven > disbursed) {
    throw new RangeError(
      `principal forgiven (${forgiven} minor units) exceeds the disbursements (${disbursed})`,
    );
  }
  if (disbursed - forgiven > scheduledPrincipal) {
    throw new RangeError(
      `disbursements (${disbursed} minor units) less the principal forgiven (${forgiven}) exceed the installments' principal (${scheduledPrincipal})`,
    );
  }

  return {
    currency: input.currency,
    installments,
    events,
    slotOrder: slotOrderOf(input.strategy, installments),
    principalForgiveness,
    principalForgivenMinor: forgiven,
  };
}

/**
 * Replay order: value date; disbursements first; a payment and a charge joining the same day in the order they were
 * recorded when both say when (Fineract `ChangeOperation.compareTo`); else payments, charges joining, waivers taking
 * effect; then id.
 */
function compareEvents(a: NormalizedEvent, b: NormalizedEvent): number {
  if (a.day !== b.day) return a.day - b.day;
  const recordedA = recordedAtOf(a);
  const recordedB = recordedAtOf(b);
  if (recordedA !== undefined && recordedB !== undefined && recordedA !== recordedB && a.kind !== b.kind) {
    return recordedA - recordedB;
  }
  if (a.kind !== b.kind) return kindRank[a.kind] - kindRank[b.kind];
  return a.id - b.id;
}

/** When a payment or a joining charge was recorded (epoch ms), undefined for other events or when not known. */
function recordedAtOf(event: NormalizedEvent): number | undefined {
  if (event.kind === 'PAYMENT') return event.recordedAtMs;
  if (event.kind === 'CHARGE') return event.charge.recordedAtMs;
  return undefined;
}

/** Validates the charges (RangeError naming the position) and makes their due and waiver events. */
function chargeEventsOf(
  charges: readonly ChargeEvent[],
  installments: readonly NormalizedInstallment[],
): NormalizedEvent[] {
  if (!Array.isArray(charges)) throw new RangeError('charges must be an array');
  const numbers = new Set(installments.map((installment) => installment.due.installmentNumber));
  const ids = new Set<number>();
  return charges.flatMap((charge, position): NormalizedEvent[] => {
    const label = `charges[${position}]`;
    if (!Number.isSafeInteger(charge.id) || charge.id < 1 || ids.has(charge.id)) {
      throw new RangeError(`${label}.id must be a unique positive safe integer`);
    }
    ids.add(charge.id);
    if (!numbers.has(charge.installmentNumber)) {
      throw new RangeError(`${label}.installmentNumber ${charge.installmentNumber} is not an installment`);
    }
    if (charge.component !== 'FEE' && charge.component !== 'PENALTY') {
      throw new RangeError(`${label}.component must be FEE or PENALTY`);
    }
    if (typeof charge.amountMinor !== 'bigint' || charge.amountMinor <= 0n) {
      throw new RangeError(`${label}.amountMinor must be a bigint > 0`);
    }
    const waived = charge.waivedMinor ?? 0n;
    if (typeof waived !== 'bigint' || waived < 0n || waived > charge.amountMinor) {
      throw new RangeError(`${label}.waivedMinor must be a bigint between 0 and amountMinor`);
    }
    const dueDay = epochDay(charge.dueDate, `${label}.dueDate`);
    let day = dueDay;
    let valueDate = charge.dueDate;
    if (charge.effectiveDate === null) {
      // from the start: before every event of the replay (types.ts `ChargeEvent`)
      day = Number.MIN_SAFE_INTEGER;
    } else if (charge.effectiveDate !== undefined) {
      day = epochDay(charge.effectiveDate, `${label}.effectiveDate`);
      if (day > dueDay) throw new RangeError(`${label}.effectiveDate is after its dueDate`);
      valueDate = charge.effectiveDate;
    }
    const submittedDay =
      typeof charge.submittedOnDate === 'string'
        ? epochDay(charge.submittedOnDate, `${label}.submittedOnDate`)
        : dueDay;
    const copy = { ...charge };
    const due: NormalizedEvent = {
      kind: 'CHARGE',
      id: charge.id,
      valueDate,
      day,
      dueDay,
      submittedDay,
      charge: copy,
    };
    if (waived === 0n) return [due];
    if (typeof charge.waivedOnDate !== 'string') {
      throw new RangeError(`${label}.waivedOnDate is required with a waiver`);
    }
    const waiverDay = epochDay(charge.waivedOnDate, `${label}.waivedOnDate`);
    const inForce = waiverDay > day ? { day: waiverDay, valueDate: charge.waivedOnDate } : { day, valueDate };
    return [due, { kind: 'CHARGE_WAIVER', id: charge.id, ...inForce, charge: copy }];
  });
}

/** Validates one installment (RangeError naming its position) and reads its dates as epoch days. */
export function normalizeInstallment(due: InstallmentDue, position: number): NormalizedInstallment {
  const label = `installments[${position}]`;
  if (!Number.isSafeInteger(due.installmentNumber) || due.installmentNumber < 1) {
    throw new RangeError(`${label}.installmentNumber must be a positive integer`);
  }
  const fromDay = epochDay(due.fromDate, `${label}.fromDate`);
  const dueDay = epochDay(due.dueDate, `${label}.dueDate`);
  if (dueDay < fromDay) throw new RangeError(`${label}.dueDate is before its fromDate`);
  const amount = (value: bigint, name: string): bigint => {
    if (typeof value !== 'bigint' || value < 0n)
      throw new RangeError(`${label}.${name} must be a bigint ≥ 0`);
    return value;
  };
  return {
    due: { ...due },
    fromDay,
    dueDay,
    dueMinor: {
      PRINCIPAL: amount(due.principalDueMinor, 'principalDueMinor'),
      INTEREST: amount(due.interestDueMinor, 'interestDueMinor'),
      FEE: amount(due.feeDueMinor, 'feeDueMinor'),
      PENALTY: amount(due.penaltyDueMinor, 'penaltyDueMinor'),
    },
  };
}

function slotOrderOf(
  strategy: AllocationStrategy,
  installments: readonly NormalizedInstallment[],
): SlotOrder {
  if (strategy?.code === 'mifos-standard-strategy') {
    return function* mifos() {
      for (const index of installments.keys()) {
        for (const component of mifosComponentOrder) yield [index, component] as const;
      }
    };
  }
  if (strategy?.code !== 'advanced-payment-allocation-strategy') {
    throw new RangeError(`unknown allocation strategy: ${String((strategy as { code?: unknown })?.code)}`);
  }
  const ruleSets = strategy.paymentAllocation ?? coveredConsumerPaymentAllocation;
  if (!Array.isArray(ruleSets)) throw new RangeError('paymentAllocation must be an array');
  const ruleSet =
    ruleSets.find((set) => set?.transactionType === 'REPAYMENT') ??
    ruleSets.find((set) => set?.transactionType === 'DEFAULT');
  if (!ruleSet) throw new RangeError('paymentAllocation needs a DEFAULT rule set');
  const rules = orderedRules(ruleSet);
  const futureRule = ruleSet.futureInstallmentAllocationRule ?? 'NEXT_INSTALLMENT';
  if (
    !['NEXT_INSTALLMENT', 'LAST_INSTALLMENT', 'NEXT_LAST_INSTALLMENT', 'REAMORTIZATION'].includes(futureRule)
  ) {
    throw new RangeError(`unsupported futureInstallmentAllocationRule: ${String(futureRule)}`);
  }
  const processing = strategy.loanScheduleProcessingType ?? 'HORIZONTAL';
  if (processing !== 'HORIZONTAL' && processing !== 'VERTICAL') {
    throw new RangeError(`unknown loanScheduleProcessingType: ${String(processing)}`);
  }

  /** The installments of one due-ness for a payment on `day`, in the order they receive money. */
  const bucket = (dueType: DueType, day: number): number[] => {
    const indexes = [...installments.keys()];
    if (dueType === 'PAST_DUE') return indexes.filter((i) => installments[i]!.dueDay < day);
    if (dueType === 'DUE') return indexes.filter((i) => installments[i]!.dueDay === day);
    const future = indexes.filter((i) => installments[i]!.dueDay > day);
    if (futureRule === 'LAST_INSTALLMENT') return future.reverse();
    if (futureRule === 'NEXT_INSTALLMENT' || futureRule === 'REAMORTIZATION') return future;
    // the installment whose period holds the payment; the first period includes its start (Fineract)
    const isCurrent = (i: number): boolean =>
      installments[i]!.fromDay < day || (i === 0 && installments[i]!.fromDay === day);
    return [...future.filter(isCurrent), ...future.filter((i) => !isCurrent(i)).reverse()];
  };

  if (processing === 'VERTICAL') {
    return function* vertical(day): Iterable<Step> {
      for (const rule of rules) {
        if (rule.dueType === 'IN_ADVANCE' && futureRule === 'REAMORTIZATION') {
          yield { split: bucket('IN_ADVANCE', day), components: [rule.component] };
          continue;
        }
        for (const index of bucket(rule.dueType, day)) yield [index, rule.component] as const;
      }
    };
  }
  const groups: { dueType: DueType; components: AllocationComponent[] }[] = [];
  for (const rule of rules) {
    const group = groups.find((g) => g.dueType === rule.dueType);
    if (group) group.components.push(rule.component);
    else groups.push({ dueType: rule.dueType, components: [rule.component] });
  }
  return function* horizontal(day): Iterable<Step> {
    for (const group of groups) {
      if (group.dueType === 'IN_ADVANCE' && futureRule === 'REAMORTIZATION') {
        yield { split: bucket('IN_ADVANCE', day), components: group.components };
        continue;
      }
      for (const index of bucket(group.dueType, day)) {
        for (const component of group.components) yield [index, component] as const;
      }
    }
  };
}

function orderedRules(
  ruleSet: PaymentAllocationRuleSet,
): { dueType: DueType; component: AllocationComponent }[] {
  const items = ruleSet.paymentAllocationOrder;
  if (!Array.isArray(items) || items.length !== paymentAllocationRules.length) {
    throw new RangeError(`paymentAllocationOrder must list all ${paymentAllocationRules.length} rules once`);
  }
  const rules = new Set<string>();
  const orders = new Set<number>();
  for (const item of items) {
    if (!(paymentAllocationRules as readonly string[]).includes(item?.paymentAllocationRule)) {
      throw new RangeError(`unknown paymentAllocationRule: ${String(item?.paymentAllocationRule)}`);
    }
    if (!Number.isSafeInteger(item.order))
      throw new RangeError('paymentAllocationOrder.order must be an integer');
    rules.add(item.paymentAllocationRule);
    orders.add(item.order);
  }
  if (rules.size !== items.length) throw new RangeError('paymentAllocationOrder lists a rule twice');
  if (orders.size !== items.length) throw new RangeError('paymentAllocationOrder repeats an order');
  return [...items]
    .sort((a, b) => a.order - b.order)
    .map((item) => {
      const rule = item.paymentAllocationRule;
      const dueType: DueType = rule.startsWith('PAST_DUE_')
        ? 'PAST_DUE'
        : rule.startsWith('IN_ADVANCE_')
          ? 'IN_ADVANCE'
          : 'DUE';
      const component = rule.slice(rule.lastIndexOf('_') + 1) as AllocationComponent;
      return { dueType, component };
    });
}
