/**
 * The bridge between a loan as stored (db/schema/lending/lending.ts: `loans`, `loan_products.payment_allocation`,
 * `loan_installments`, `fundings`, posted `payments`) and domain/lending/allocation/: the allocation strategy of a loan
 * and the `AllocationInput` of its money events. Used by the money operations (activities/lending/repost-loan.ts)
 * and by the loan summary read (db/queries/lending/ledger.ts), so both replay the same events the same way.
 *
 * Pure. Stored amounts are `numeric(19,6)` decimal strings (always 6 fraction digits when read back from
 * PostgreSQL); they are converted to minor units of the loan currency (domain/money.ts `minorUnitDigits`),
 * accepting only zeros beyond the currency's digits. Dates are ISO calendar dates.
 */

import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../money';
import type { PaymentAllocationPayload } from './allocation/payload';
import type {
  AllocationInput,
  AllocationStrategy,
  MoneyEvent,
  PaymentAllocationRuleSet,
  PaymentAllocationRule as RuleName,
} from './allocation/types';

/**
 * Fineract's `due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy` expressed as
 * advanced-strategy rules: installments oldest first, each paid penalty, interest, principal, fee, first the
 * late and due ones, then in advance (next installment first). Source: Fineract
 * `DuePenIntPriFeeInAdvancePenIntPriFeeLoanRepaymentScheduleTransactionProcessor` (late and on-time payments are
 * handled installment by installment in that order). Fineract's in-advance branch first pays loan charges already
 * due by the transaction date and then penalty, interest, principal, fee of the next installment; with the charges
 * this engine schedules (installment fees and penalties fall due with their installment, none is due before it)
 * the first step pays nothing, so these rules give the same split. Like Fineract's cumulative processor it puts
 * every charge on its installment for the whole replay (`chargesFromStart`), so a payment in advance pays the
 * next installment's charges too. Not checked against Fineract for charges due on a specified date before the
 * installment's due date.
 */
export const duePenIntPriFeePaymentAllocation: readonly PaymentAllocationRuleSet[] = [
  {
    transactionType: 'DEFAULT',
    paymentAllocationOrder: (['PAST_DUE', 'DUE', 'IN_ADVANCE'] as const).flatMap((dueType, group) =>
      (['PENALTY', 'INTEREST', 'PRINCIPAL', 'FEE'] as const).map((component, index) => ({
        paymentAllocationRule: `${dueType}_${component}` as RuleName,
        order: group * 4 + index + 1,
      })),
    ),
    futureInstallmentAllocationRule: 'NEXT_INSTALLMENT',
  },
];

/**
 * The allocation strategy of a loan from its `transactionProcessingStrategyCode` and its product's stored
 * `paymentAllocation` (Fineract JSON, used by the advanced strategy only; null → docs/design.md §5 default).
 * RangeError for a code domain/lending/allocation/replay.ts cannot replay.
 */
export function allocationStrategyOf(strategyCode: string, paymentAllocation: unknown): AllocationStrategy {
  switch (strategyCode) {
    case 'advanced-payment-allocation-strategy':
      return {
        code: 'advanced-payment-allocation-strategy',
        paymentAllocation: (paymentAllocation as PaymentAllocationRuleSet[] | null | undefined) ?? null,
      };
    case 'mifos-standard-strategy':
      return { code: 'mifos-standard-strategy' };
    case 'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy':
      return {
        code: 'advanced-payment-allocation-strategy',
        paymentAllocation: duePenIntPriFeePaymentAllocation,
        loanScheduleProcessingType: 'HORIZONTAL',
        chargesFromStart: true,
      };
    default:
      throw new RangeError(`no payment allocation for strategy ${strategyCode}`);
  }
}

/** One `loan_installments` row as read (amounts are decimal strings). */
export interface StoredInstallment {
  installmentNumber: number;
  fromDate: string;
  dueDate: string;
  principalDue: string;
  interestDue: string;
  feeChargesDue: string;
  penaltyChargesDue: string;
}

/** A funding or posted payment as read: identity, value date (ISO) and amount (decimal string, > 0). */
export interface StoredMoneyEvent {
  id: number;
  valueDate: string;
  amount: string;
  /** When the row was recorded (its `created_at`: a Date, or text PostgreSQL can print); absent = not known. */
  recordedAt?: Date | string | null;
}

/** Epoch milliseconds of a stored `created_at` (Date or timestamp text), or nothing when absent or unreadable. */
export function recordedAtMsOf(value: Date | string | null | undefined): { recordedAtMs?: number } {
  if (value === null || value === undefined) return {};
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(ms) ? { recordedAtMs: ms } : {};
}

/** What `allocationInputOf` needs of one loan. */
export interface StoredLoanMoney {
  /** ISO 4217 code of the loan; every amount is in it. */
  currency: string;
  installments: readonly StoredInstallment[];
  /** Fundings (disbursements) of the loan. */
  fundings: readonly StoredMoneyEvent[];
  /** Payments of the loan with status POSTED. */
  payments: readonly StoredMoneyEvent[];
  strategy: AllocationStrategy;
  /** Charges due at disbursement (decimal string; absent = none), withheld from the first funding. */
  disbursementChargesDue?: string;
  /**
   * Principal forgiven by hardship reliefs (`loan_schedule_versions` rows of relief type PRINCIPAL_FORGIVENESS):
   * the version's id, its as-of date (ISO) and the principal it forgave in minor units (decimal string of an
   * integer > 0). Absent = none.
   */
  principalForgiveness?: readonly StoredPrincipalForgiveness[];
  /**
   * Charges added to the active loan (`loan_charges`); their amounts are part of their installment's stored
   * `feeChargesDue`/`penaltyChargesDue`, which `allocationInputOf` takes off again so that each joins the replay on
   * its own date (`chargeTimingOf`; domain/lending/allocation/replay.ts module note). Absent = none.
   */
  loanCharges?: readonly StoredLoanCharge[];
}

/** One `loan_charges` row as read (amounts decimal strings, dates ISO). */
export interface StoredLoanCharge {
  id: number;
  installmentNumber: number;
  penalty: boolean;
  dueDate: string;
  amount: string;
  /** What its waiver waived (decimal string), null when not waived. */
  waiverAmount: string | null;
  /** ISO date of the waiver, null when not waived. */
  waivedOnDate: string | null;
  /** ISO business date it was added on (Fineract's `submittedOnDate`); absent or null = not known. */
  submittedOnDate?: string | null;
  /** When it was added (its `created_at`); absent = not known. */
  recordedAt?: Date | string | null;
}

/** One principal forgiveness as read (see `StoredLoanMoney.principalForgiveness`). */
export interface StoredPrincipalForgiveness {
  id: number;
  valueDate: string;
  /** Minor units, decimal string of an integer > 0. */
  amountMinor: string;
}

/**
 * Decimal string (as stored or as sent) → minor units of `currency`; RangeError when it has non-zero digits
 * beyond the currency's.
 */
export function minorOf(amount: string, currency: string): bigint {
  return parseDecimalToMinor(amount, minorUnitDigits(currency), { allowTrailingZeros: true });
}

/** The `AllocationInput` of a stored loan (RangeError as `minorOf`). */
export function allocationInputOf(loan: StoredLoanMoney): AllocationInput {
  const minor = (amount: string) => minorOf(amount, loan.currency);
  const withheld = minor(loan.disbursementChargesDue ?? '0');
  // The first funding in replay order (value date, then id) pays the charges due at disbursement.
  const first = [...loan.fundings].sort((a, b) =>
    a.valueDate === b.valueDate ? a.id - b.id : a.valueDate < b.valueDate ? -1 : 1,
  )[0];
  const events: MoneyEvent[] = [
    ...loan.fundings.map(
      (f): MoneyEvent => ({
        kind: 'DISBURSEMENT',
        id: f.id,
        valueDate: f.valueDate,
        amountMinor: minor(f.amount),
        ...(f === first && withheld > 0n ? { chargesWithheldMinor: withheld } : {}),
      }),
    ),
    ...loan.payments.map(
      (p): MoneyEvent => ({
        kind: 'PAYMENT',
        id: p.id,
        valueDate: p.valueDate,
        amountMinor: minor(p.amount),
        ...recordedAtMsOf(p.recordedAt),
      }),
    ),
  ];
  const added = new Map<number, { fee: bigint; penalty: bigint }>();
  for (const charge of loan.loanCharges ?? []) {
    const sums = added.get(charge.installmentNumber) ?? { fee: 0n, penalty: 0n };
    if (charge.penalty) sums.penalty += minor(charge.amount);
    else sums.fee += minor(charge.amount);
    added.set(charge.installmentNumber, sums);
  }
  const scheduled = (stored: string, installmentNumber: number, addedMinor: bigint): bigint => {
    const value = minor(stored) - addedMinor;
    if (value < 0n) {
      throw new RangeError(`installment ${installmentNumber} owes less than the charges added to it`);
    }
    return value;
  };
  return {
    currency: loan.currency,
    installments: loan.installments.map((i) => ({
      installmentNumber: i.installmentNumber,
      fromDate: i.fromDate,
      dueDate: i.dueDate,
      principalDueMinor: minor(i.principalDue),
      interestDueMinor: minor(i.interestDue),
      feeDueMinor: scheduled(i.feeChargesDue, i.installmentNumber, added.get(i.installmentNumber)?.fee ?? 0n),
      penaltyDueMinor: scheduled(
        i.penaltyChargesDue,
        i.installmentNumber,
        added.get(i.installmentNumber)?.penalty ?? 0n,
      ),
    })),
    charges: (loan.loanCharges ?? []).map((c) => ({
      id: c.id,
      installmentNumber: c.installmentNumber,
      component: c.penalty ? ('PENALTY' as const) : ('FEE' as const),
      dueDate: c.dueDate,
      ...chargeTimingOf(loan.strategy, c),
      submittedOnDate: c.submittedOnDate ?? null,
      ...recordedAtMsOf(c.recordedAt),
      amountMinor: minor(c.amount),
      ...(c.waiverAmount !== null && c.waivedOnDate !== null
        ? { waivedMinor: minor(c.waiverAmount), waivedOnDate: c.waivedOnDate }
        : {}),
    })),
    events,
    strategy: loan.strategy,
    principalForgiveness: (loan.principalForgiveness ?? []).map((f) => ({
      id: f.id,
      valueDate: f.valueDate,
      amountMinor: BigInt(f.amountMinor),
    })),
  };
}

/**
 * When a stored charge joins its installment in the replay (types.ts `ChargeEvent.effectiveDate`): from the start
 * under a cumulative strategy (Fineract's cumulative processors apply every charge before the first transaction);
 * under advanced payment allocation on the day it was submitted, or on its due date when that is earlier or the
 * submission date is not known (Fineract `ChangeOperation.getEffectiveDate`).
 */
export function chargeTimingOf(
  strategy: AllocationStrategy,
  charge: Pick<StoredLoanCharge, 'dueDate' | 'submittedOnDate'>,
): { effectiveDate?: string | null } {
  if (strategy.code === 'mifos-standard-strategy' || strategy.chargesFromStart)
    return { effectiveDate: null };
  const submitted = charge.submittedOnDate ?? null;
  return submitted !== null && submitted < charge.dueDate ? { effectiveDate: submitted } : {};
}

/** How a payment was split, decimal strings with the currency's digits (Σ = the payment's amount). */
export interface PaymentAllocationAmounts {
  principal: string;
  interest: string;
  fee: string;
  penalty: string;
  overpayment: string;
}

/**
 * The split of a stored allocation payload (`payments.allocation`, domain/lending/allocation/payload.ts
 * `paymentAllocationPayload`); every part zero when the payment is not allocated (null payload).
 */
export function allocationAmountsOf(
  payload: Partial<PaymentAllocationPayload> | null | undefined,
  currency: string,
): PaymentAllocationAmounts {
  const zero = formatMinor(0n, minorUnitDigits(currency));
  return {
    principal: payload?.principal ?? zero,
    interest: payload?.interest ?? zero,
    fee: payload?.fee ?? zero,
    penalty: payload?.penalty ?? zero,
    overpayment: payload?.overpayment ?? zero,
  };
}
