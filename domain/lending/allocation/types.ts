/**
 * The shapes of a loan's payment allocation: the four components of an installment, the allocation strategies
 * (`transactionProcessingStrategyCode` and Fineract's `paymentAllocation` rule sets, with the COVERED_CONSUMER
 * default of docs/design.md §5, 16 CFR §444.4), the input of the replay (installments due, disbursements,
 * payments, principal forgiveness) and its output (allocation lines, installment states). The rules that
 * use them are in replay.ts (the replay), summary.ts, payoff.ts, accrual.ts and payload.ts of this folder.
 *
 * Amounts are bigint counts of the currency's minor unit (`…Minor`, e.g. cents for USD); dates are ISO
 * calendar dates `YYYY-MM-DD`. Source: Apache Fineract's loan transaction processing (`PaymentAllocationType`,
 * `FutureInstallmentAllocationRule`, `LoanScheduleProcessingType`).
 */

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

/**
 * Fineract `FutureInstallmentAllocationRule`. REAMORTIZATION shares in-advance money evenly over every installment
 * due after the payment (replay.ts `runSteps`).
 */
export type FutureInstallmentAllocationRule =
  | 'NEXT_INSTALLMENT'
  | 'LAST_INSTALLMENT'
  | 'NEXT_LAST_INSTALLMENT'
  | 'REAMORTIZATION';

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
      /**
       * True when these rules stand for one of Fineract's cumulative processors (e.g.
       * `due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy`), which put every
       * charge on its installment for the whole replay (`ChargeEvent`); absent = false.
       */
      chargesFromStart?: boolean;
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
  /**
   * When it was recorded (epoch milliseconds): orders it against a charge joining the replay the same day (`ChargeEvent`
   * `recordedAtMs`, Fineract `ChangeOperation.compareTo`: the order recorded). Absent = payments before charges.
   */
  recordedAtMs?: number;
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

/**
 * A charge added to an active loan (`POST /v1/loans/{loanId}/charges`, Fineract `LoanCharge` of
 * `chargeTimeType` 2 SPECIFIED_DUE_DATE): it joins the fees or penalties of installment `installmentNumber` on its
 * `effectiveDate`, in value-date order with the money events (after the disbursements of that day, and among its
 * payments in the order recorded when both carry `recordedAtMs`, else after them).
 * Fineract's cumulative processors (`mifos-standard-strategy`, `due-penalty-interest-principal-fee-in-advance-…`)
 * put every charge on its installment before the first transaction is replayed
 * (`AbstractLoanRepaymentScheduleTransactionProcessor.reprocessLoanTransactions`): `effectiveDate` null. Its
 * `AdvancedPaymentScheduleTransactionProcessor` replays charges and transactions together, a charge on the day it
 * was submitted, or on its due date when that is earlier (`ChangeOperation.getEffectiveDate`): a payment
 * value-dated before that never pays it. Its installment's due in `AllocationInput.installments` excludes it.
 * A waiver (Fineract WAIVE_CHARGES) fixes `waivedMinor` when it is made: no payment of the replay can pay that
 * part, whatever its value date (Fineract LoanCharge.feature, "partially waived installment fee applied correctly
 * in reverse-replay logic"); it counts as waived, no longer outstanding, from `waivedOnDate` (or the day it joins
 * the replay, when later).
 */
export interface ChargeEvent {
  /** The loan charge's identity (positive safe integer, unique); orders charges of one day and one installment. */
  id: number;
  /** Installment whose fees or penalties it joins. */
  installmentNumber: number;
  component: 'FEE' | 'PENALTY';
  /** ISO date it falls due. */
  dueDate: string;
  /**
   * ISO date it joins its installment in the replay (see above); null = before every event; absent = `dueDate`.
   * Never after `dueDate`.
   */
  effectiveDate?: string | null;
  /**
   * ISO business date the charge was added on (Fineract's `submittedOnDate`); absent or null = its due date. A
   * payoff (payoff.ts) value-dated before it does not waive it: the charge did not exist when the loan was paid off,
   * so it stays owed (and reopens a loan it was added to after its payoff).
   */
  submittedOnDate?: string | null;
  /** When it was added (epoch milliseconds): orders it against a payment of its replay day (`PaymentEvent`). */
  recordedAtMs?: number;
  /** Minor units, > 0. */
  amountMinor: bigint;
  /** Minor units waived, 0 ≤ waived ≤ amount; absent = 0. */
  waivedMinor?: bigint;
  /** ISO date of the waiver; required when `waivedMinor` > 0. */
  waivedOnDate?: string | null;
}

/** A charge after the replay (minor units): paid by payments, waived (its waiver and a payoff), outstanding. */
export interface ChargeState {
  id: number;
  installmentNumber: number;
  component: 'FEE' | 'PENALTY';
  dueDate: string;
  amountMinor: bigint;
  paidMinor: bigint;
  waivedMinor: bigint;
  outstandingMinor: bigint;
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
  /** Charges added to the active loan (`ChargeEvent`); absent = none. */
  charges?: readonly ChargeEvent[];
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

/**
 * An installment after the replay. Minor units. Its `feeDueMinor` and `penaltyDueMinor` include the charges
 * (`ChargeEvent`) that had fallen due by the last event replayed.
 */
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
  /** The charges of the input that fell due by the last event replayed, by id. */
  charges: ChargeState[];
}

/** An amount per component, minor units. */
export type ComponentRecord = Record<AllocationComponent, bigint>;
