/**
 * Payment allocation of a loan: replays the loan's money events (disbursements and payments) in value-date
 * order against its installments and says, per payment, which component of which installment it paid, and
 * what is left over as an overpayment (issue: `POST /v1/loans/{loanId}/payments/record-external`, "value-dated
 * to effectiveDate, allocated by the loan's strategy across installments"; spec § States: "allocation performed
 * by the ledger").
 *
 * Pure and deterministic: no clock, no I/O, no float. Amounts are bigint counts of the currency's minor unit
 * (`…Minor`, e.g. cents for USD; `domain/money.ts` converts to and from decimal strings); dates are ISO calendar
 * dates `YYYY-MM-DD`, compared as calendar days.
 *
 * Replay order. Events are sorted by value date, then disbursements before payments on the same day (money
 * cannot be repaid before it is lent), then by `id` (the row's identity, i.e. the order of recording). The
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
 *   date and then to the last (NEXT_LAST_INSTALLMENT; the first installment's period includes its start).
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
 * is cash-based), and what exceeds everything is an overpayment. So paying exactly the quoted payoff on its date
 * closes the loan to the cent (all later charges waived), and paying more pays later charges before anything is an
 * overpayment: Fineract's published case of a 1,000.00 loan with a 20.00 fee due 2023-02-01 paid 1,020.00 on
 * 2023-01-10 pays the fee 20.00 and closes the loan (`closed.obligations.met`, not `overpaid`).
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
 * Errors: RangeError for malformed input (see `AllocationInput`), a payment value-dated before the first
 * disbursement, more disbursed than the installments' principal plus the principal forgiven, or more forgiven
 * than disbursed.
 */

import { epochDayOf } from '../calendar';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../money';
import type { Schedule } from './schedule';

/** The four components of an installment, as journal and allocation lines name them. */
export const allocationComponents = ['PRINCIPAL', 'INTEREST', 'FEE', 'PENALTY'] as const;
export type AllocationComponent = (typeof allocationComponents)[number];

/** Fineract `DueType`: relative to the payment's value date. */
export type DueType = 'PAST_DUE' | 'DUE' | 'IN_ADVANCE';

/** Fineract `PaymentAllocationType`, in Fineract's declaration order. */
export const paymentAllocationRules = [
  'PAST_DUE_PENALTY',
  'PAST_DUE_FEE',
  'PAST_DUE_PRINCIPAL',
  'PAST_DUE_INTEREST',
  'DUE_PENALTY',
  'DUE_FEE',
  'DUE_PRINCIPAL',
  'DUE_INTEREST',
  'IN_ADVANCE_PENALTY',
  'IN_ADVANCE_FEE',
  'IN_ADVANCE_PRINCIPAL',
  'IN_ADVANCE_INTEREST',
] as const;
export type PaymentAllocationRule = (typeof paymentAllocationRules)[number];

/** Fineract `FutureInstallmentAllocationRule` (REAMORTIZATION is not supported). */
export type FutureInstallmentAllocationRule =
  | 'NEXT_INSTALLMENT'
  | 'LAST_INSTALLMENT'
  | 'NEXT_LAST_INSTALLMENT';

/** Fineract `LoanScheduleProcessingType`. */
export type LoanScheduleProcessingType = 'HORIZONTAL' | 'VERTICAL';

/** One entry of Fineract's `paymentAllocationOrder`. */
export interface PaymentAllocationOrderItem {
  paymentAllocationRule: PaymentAllocationRule;
  /** Position, an integer; lower goes first. Orders must be distinct. */
  order: number;
}

/**
 * One element of a Fineract loan product's `paymentAllocation` array. Payments use the `REPAYMENT` rule set
 * when present, else `DEFAULT` (required).
 */
export interface PaymentAllocationRuleSet {
  /** Fineract `PaymentAllocationTransactionType` name: `DEFAULT`, `REPAYMENT`, … (others are ignored here). */
  transactionType: string;
  /** Each of the twelve `paymentAllocationRules` exactly once. */
  paymentAllocationOrder: readonly PaymentAllocationOrderItem[];
  /** Where in-advance money goes; absent/null = NEXT_INSTALLMENT. */
  futureInstallmentAllocationRule?: FutureInstallmentAllocationRule | null;
}

/** The loan's `transactionProcessingStrategyCode` with its settings. */
export type AllocationStrategy =
  | { code: 'mifos-standard-strategy' }
  | {
      code: 'advanced-payment-allocation-strategy';
      /** Fineract's `paymentAllocation`; absent/null = `coveredConsumerPaymentAllocation` (docs/design.md §5). */
      paymentAllocation?: readonly PaymentAllocationRuleSet[] | null;
      /** Absent/null = HORIZONTAL (Fineract's default). */
      loanScheduleProcessingType?: LoanScheduleProcessingType | null;
    };

/** The strategy codes this module implements. */
export const allocationStrategyCodes = [
  'mifos-standard-strategy',
  'advanced-payment-allocation-strategy',
] as const;

const defaultComponentOrder = ['INTEREST', 'PRINCIPAL', 'FEE', 'PENALTY'] as const;

/**
 * docs/design.md §5 default of `advanced-payment-allocation-strategy` for COVERED_CONSUMER products: past-due interest,
 * principal, fee, penalty (oldest installment first); then due; then in advance, each in the same order; future
 * payments to the next installment (16 CFR §444.4).
 */
export const coveredConsumerPaymentAllocation: readonly PaymentAllocationRuleSet[] = [
  {
    transactionType: 'DEFAULT',
    paymentAllocationOrder: (['PAST_DUE', 'DUE', 'IN_ADVANCE'] as const).flatMap((dueType, group) =>
      defaultComponentOrder.map((component, index) => ({
        paymentAllocationRule: `${dueType}_${component}` as PaymentAllocationRule,
        order: group * 4 + index + 1,
      })),
    ),
    futureInstallmentAllocationRule: 'NEXT_INSTALLMENT',
  },
];

/** What one installment asks for. Amounts in minor units, ≥ 0. */
export interface InstallmentDue {
  /** 1-based, unique; installments are processed in this order. */
  installmentNumber: number;
  /** Start of the installment's period (ISO date): the previous due date, or the disbursement date. */
  fromDate: string;
  /** ISO date, not before `fromDate`, not before the due date of a lower-numbered installment. */
  dueDate: string;
  principalDueMinor: bigint;
  interestDueMinor: bigint;
  feeDueMinor: bigint;
  penaltyDueMinor: bigint;
}

/** Money lent: a funding recorded for the loan. */
export interface DisbursementEvent {
  kind: 'DISBURSEMENT';
  /** The funding's identity (positive safe integer, unique among disbursements); breaks value-date ties. */
  id: number;
  /** ISO date the money moved (the original funding date). */
  valueDate: string;
  /** Minor units, > 0: the principal lent (the loan portfolio grows by it). */
  amountMinor: bigint;
  /**
   * Charges due at disbursement withheld from these proceeds (minor units, 0 ≤ withheld ≤ amount; absent = 0):
   * the borrower receives `amountMinor − chargesWithheldMinor` and the charges are paid at once (docs/design.md §5 APR
   * itemization: prepaid finance charges withheld from the amount financed, 12 CFR 1026.18(b)-(c)).
   */
  chargesWithheldMinor?: bigint;
}

/** Money received: a repayment (`record-external` or a settled payment). */
export interface PaymentEvent {
  kind: 'PAYMENT';
  /** The payment's identity (positive safe integer, unique among payments); breaks value-date ties. */
  id: number;
  /** ISO date the payment is value-dated to (`effectiveDate`). */
  valueDate: string;
  /** Minor units, > 0. */
  amountMinor: bigint;
}

export type MoneyEvent = DisbursementEvent | PaymentEvent;

/** Loan principal written off by a hardship relief (module note, principal forgiveness). */
export interface PrincipalForgivenessEvent {
  /** Identity of the forgiveness (positive safe integer, unique): the schedule version row that made it. */
  id: number;
  /** ISO date the relief was applied as of (the value date of its journal entry). */
  valueDate: string;
  /** Minor units, > 0. */
  amountMinor: bigint;
}

/** Input of `allocatePayments` and `outstandingSummary`. */
export interface AllocationInput {
  /** ISO 4217 code of every amount (echoed, not used in arithmetic). */
  currency: string;
  /** At least one. Their principal is the loan's principal; the disbursements may not exceed it. */
  installments: readonly InstallmentDue[];
  /** Disbursements and payments, in any order. */
  events: readonly MoneyEvent[];
  strategy: AllocationStrategy;
  /**
   * Principal forgiven by reliefs (module note), already taken off the installments' principal due; absent =
   * none. Σ ≤ Σ disbursements.
   */
  principalForgiveness?: readonly PrincipalForgivenessEvent[];
}

/** Money of one payment applied to one component of one installment (minor units, > 0). */
export interface InstallmentAllocationLine {
  installmentNumber: number;
  component: AllocationComponent;
  amountMinor: bigint;
}

/** The part of a payment no installment could take (minor units, > 0). */
export interface OverpaymentLine {
  installmentNumber: null;
  component: 'OVERPAYMENT';
  amountMinor: bigint;
}

export type AllocationLine = InstallmentAllocationLine | OverpaymentLine;

/** How one payment was allocated. Σ lines = `amountMinor`. */
export interface PaymentAllocation {
  paymentId: number;
  valueDate: string;
  amountMinor: bigint;
  /**
   * In the strategy's order for the payment's value date (the order the money was applied; a payoff's two passes
   * are merged into it), one line per (installment, component), the overpayment last.
   */
  lines: AllocationLine[];
  principalMinor: bigint;
  interestMinor: bigint;
  feeMinor: bigint;
  penaltyMinor: bigint;
  overpaymentMinor: bigint;
  /** True when this payment paid the loan off (module note: it covered the payoff amount on its value date). */
  payoff: boolean;
}

/** An installment after the replay. Minor units. */
export interface InstallmentState extends InstallmentDue {
  principalPaidMinor: bigint;
  interestPaidMinor: bigint;
  feePaidMinor: bigint;
  penaltyPaidMinor: bigint;
  /** Interest, fees and penalties waived by a payoff (module note), ≥ 0; principal is never waived. */
  interestWaivedMinor: bigint;
  feeWaivedMinor: bigint;
  penaltyWaivedMinor: bigint;
  /** Σ due − Σ paid − Σ waived, ≥ 0. */
  outstandingMinor: bigint;
  /** Date on which nothing remained due, null while something does. */
  obligationsMetOnDate: string | null;
}

/** Output of `allocatePayments`. */
export interface AllocationResult {
  currency: string;
  /** Ordered by installment number. */
  installments: InstallmentState[];
  /** Disbursements in replay order. */
  disbursements: DisbursementEvent[];
  /** Payments in replay order. */
  payments: PaymentAllocation[];
  /** Σ disbursements, minor units. */
  disbursedMinor: bigint;
  /** Σ overpayments of all payments, minor units. */
  overpaymentMinor: bigint;
  /** The principal forgiveness events of the input, by value date then id (empty when none). */
  principalForgiveness: PrincipalForgivenessEvent[];
  /** Σ principal forgiven, minor units (module note): principal outstanding = disbursed − forgiven − repaid. */
  principalForgivenMinor: bigint;
}

/**
 * Replays `input.events` in value-date order (module note) and allocates every payment by `input.strategy`.
 * RangeError on malformed input, a payment before the first disbursement, or disbursements above the principal.
 */
export function allocatePayments(input: AllocationInput): AllocationResult {
  const loan = normalize(input);
  return replay(loan, loan.events);
}

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
    loan.installments,
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

/**
 * Interest of an installment accrued by the end of `asOfDate` (ISO dates): none on or before `fromDate`, all of
 * `interestDueMinor` from `dueDate` on, and in between `interestDueMinor × (asOfDate − fromDate) ÷ (dueDate −
 * fromDate)` calendar days, rounded HALF_EVEN to the minor unit (straight-line over the period, as Fineract's
 * periodic accrual of a loan without interest recalculation). Minor units; RangeError for an invalid date or
 * a negative amount.
 */
export function accruedInterestMinor(
  interestDueMinor: bigint,
  fromDate: string,
  dueDate: string,
  asOfDate: string,
): bigint {
  if (typeof interestDueMinor !== 'bigint' || interestDueMinor < 0n) {
    throw new RangeError('interestDueMinor must be a bigint ≥ 0');
  }
  return accruedByDay(
    interestDueMinor,
    epochDay(fromDate, 'fromDate'),
    epochDay(dueDate, 'dueDate'),
    epochDay(asOfDate, 'asOfDate'),
  );
}

function accruedByDay(interestMinor: bigint, fromDay: number, dueDay: number, day: number): bigint {
  if (day >= dueDay) return interestMinor;
  if (day <= fromDay) return 0n;
  return divideHalfEven(interestMinor * BigInt(day - fromDay), BigInt(dueDay - fromDay));
}

/** numerator ÷ denominator (both ≥ 0, denominator > 0) rounded HALF_EVEN. */
function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const twice = (numerator % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}

type ComponentRecord = Record<AllocationComponent, bigint>;

/** One installment as `payoffRule` reads it (minor units, epoch days). */
interface PayoffInstallment {
  fromDay: number;
  dueDay: number;
  dueMinor: ComponentRecord;
  paidMinor: ComponentRecord;
  waivedMinor: ComponentRecord;
}

/** What `payoffRule` returns: the payoff's parts and, per installment, what stays owed of it. */
interface PayoffQuote {
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
function payoffRule(
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

const paidRecordOf = (
  state: Omit<InstallmentState, 'outstandingMinor' | 'obligationsMetOnDate'>,
): ComponentRecord => ({
  PRINCIPAL: state.principalPaidMinor,
  INTEREST: state.interestPaidMinor,
  FEE: state.feePaidMinor,
  PENALTY: state.penaltyPaidMinor,
});

const waivedRecordOf = (
  state: Omit<InstallmentState, 'outstandingMinor' | 'obligationsMetOnDate'>,
): ComponentRecord => ({
  PRINCIPAL: 0n,
  INTEREST: state.interestWaivedMinor,
  FEE: state.feeWaivedMinor,
  PENALTY: state.penaltyWaivedMinor,
});

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

/** JSON shape of a `PaymentAllocation` (e.g. `payments.allocation`): amounts as decimal strings. */
export interface PaymentAllocationPayload {
  paymentId: number;
  valueDate: string;
  currency: string;
  amount: string;
  principal: string;
  interest: string;
  fee: string;
  penalty: string;
  overpayment: string;
  lines: {
    installmentNumber: number | null;
    component: AllocationComponent | 'OVERPAYMENT';
    amount: string;
  }[];
}

/**
 * `allocation` as plain JSON with decimal strings of the currency's minor-unit digits (domain/money.ts
 * `minorUnitDigits`: USD 2, JPY 0). RangeError for an unknown currency.
 */
export function paymentAllocationPayload(
  allocation: PaymentAllocation,
  currency: string,
): PaymentAllocationPayload {
  const digits = minorUnitDigits(currency);
  const format = (minor: bigint): string => formatMinor(minor, digits);
  return {
    paymentId: allocation.paymentId,
    valueDate: allocation.valueDate,
    currency,
    amount: format(allocation.amountMinor),
    principal: format(allocation.principalMinor),
    interest: format(allocation.interestMinor),
    fee: format(allocation.feeMinor),
    penalty: format(allocation.penaltyMinor),
    overpayment: format(allocation.overpaymentMinor),
    lines: allocation.lines.map((line) => ({
      installmentNumber: line.installmentNumber,
      component: line.component,
      amount: format(line.amountMinor),
    })),
  };
}

// ---- internals ------------------------------------------------------------------------------------------------

interface NormalizedInstallment {
  due: InstallmentDue;
  fromDay: number;
  dueDay: number;
  dueMinor: Record<AllocationComponent, bigint>;
}

type NormalizedEvent = MoneyEvent & { day: number };

/** A slot of the allocation order: one component of one installment (index into the installments). */
type Slot = readonly [index: number, component: AllocationComponent];

type SlotOrder = (paymentDay: number) => Iterable<Slot>;

interface NormalizedLoan {
  currency: string;
  installments: NormalizedInstallment[];
  events: NormalizedEvent[];
  slotOrder: SlotOrder;
  principalForgiveness: PrincipalForgivenessEvent[];
  principalForgivenMinor: bigint;
}

const mifosComponentOrder = ['PENALTY', 'FEE', 'INTEREST', 'PRINCIPAL'] as const;

function replay(loan: NormalizedLoan, events: readonly NormalizedEvent[]): AllocationResult {
  const { installments } = loan;
  const zeroRecord = (): ComponentRecord => ({ PRINCIPAL: 0n, INTEREST: 0n, FEE: 0n, PENALTY: 0n });
  const paid = installments.map(zeroRecord);
  const waived = installments.map(zeroRecord);
  const metOn: (string | null)[] = installments.map(() => null);
  const outstandingOf = (index: number): bigint => {
    const due = installments[index]!.dueMinor;
    const p = paid[index]!;
    const w = waived[index]!;
    return (
      due.PRINCIPAL -
      p.PRINCIPAL +
      (due.INTEREST - p.INTEREST - w.INTEREST) +
      (due.FEE - p.FEE - w.FEE) +
      (due.PENALTY - p.PENALTY - w.PENALTY)
    );
  };
  let scheduledPrincipal = 0n;
  for (const installment of installments) scheduledPrincipal += installment.dueMinor.PRINCIPAL;
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

  for (const event of events) {
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
          dueMinor: installment.dueMinor,
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
    const allocate = (budget: bigint, roomOf: (index: number, component: AllocationComponent) => bigint) => {
      let left = budget;
      for (const [index, component] of loan.slotOrder(event.day)) {
        if (left === 0n) break;
        let room = roomOf(index, component);
        if (component === 'PRINCIPAL' && room > lentOf() - principalRepaid) room = lentOf() - principalRepaid;
        if (room <= 0n) continue;
        const amount = left < room ? left : room;
        left -= amount;
        paid[index]![component] += amount;
        totals[component] += amount;
        if (component === 'PRINCIPAL') principalRepaid += amount;
        const installmentNumber = installments[index]!.due.installmentNumber;
        const key = `${installmentNumber}/${component}`;
        const line = lines.get(key);
        if (line) line.amountMinor += amount;
        else lines.set(key, { installmentNumber, component, amountMinor: amount });
      }
      return left;
    };
    const unpaidOf = (index: number, component: AllocationComponent): bigint =>
      installments[index]!.dueMinor[component] - paid[index]![component] - waived[index]![component];
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
      // 3. principal is settled: what is still unpaid of them is waived
      for (const [index] of installments.entries()) {
        for (const component of ['INTEREST', 'FEE', 'PENALTY'] as const) {
          waived[index]![component] += unpaidOf(index, component);
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
      for (const [index, component] of loan.slotOrder(event.day)) {
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
  }

  return {
    currency: loan.currency,
    installments: installments.map((installment, index) => {
      const p = paid[index]!;
      const w = waived[index]!;
      return {
        ...installment.due,
        principalPaidMinor: p.PRINCIPAL,
        interestPaidMinor: p.INTEREST,
        feePaidMinor: p.FEE,
        penaltyPaidMinor: p.PENALTY,
        interestWaivedMinor: w.INTEREST,
        feeWaivedMinor: w.FEE,
        penaltyWaivedMinor: w.PENALTY,
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
  };
}

function normalize(input: AllocationInput): NormalizedLoan {
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
  events.sort(compareEvents);

  let disbursed = 0n;
  for (const event of events) {
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

/** Replay order: value date, disbursements before payments, then id. */
function compareEvents(a: NormalizedEvent, b: NormalizedEvent): number {
  if (a.day !== b.day) return a.day - b.day;
  if (a.kind !== b.kind) return a.kind === 'DISBURSEMENT' ? -1 : 1;
  return a.id - b.id;
}

function normalizeInstallment(due: InstallmentDue, position: number): NormalizedInstallment {
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
  if (!['NEXT_INSTALLMENT', 'LAST_INSTALLMENT', 'NEXT_LAST_INSTALLMENT'].includes(futureRule)) {
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
    if (futureRule === 'NEXT_INSTALLMENT') return future;
    // the installment whose period holds the payment; the first period includes its start (Fineract)
    const isCurrent = (i: number): boolean =>
      installments[i]!.fromDay < day || (i === 0 && installments[i]!.fromDay === day);
    return [...future.filter(isCurrent), ...future.filter((i) => !isCurrent(i)).reverse()];
  };

  if (processing === 'VERTICAL') {
    return function* vertical(day) {
      for (const rule of rules) {
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
  return function* horizontal(day) {
    for (const group of groups) {
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

/** Days since 1970-01-01 of an ISO date; RangeError naming `label` when it is not one. */
function epochDay(date: string, label: string): number {
  if (typeof date !== 'string') throw new RangeError(`${label} must be an ISO date`);
  try {
    return epochDayOf(date);
  } catch {
    throw new RangeError(`${label} is not an ISO calendar date: ${date}`);
  }
}
