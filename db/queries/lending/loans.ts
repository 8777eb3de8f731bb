/**
 * Reads of loans (OpenAPI `GET /v1/loans`, `GET /v1/loans/{loanId}?associations=
 * repaymentSchedule,transactions`; `GET /v1/loans`; docs/design.md §4 Paging: native lists `{totalFilteredRecords,
 * pageItems}`), and `lockLoanForMoney`, the row lock every money operation (fundings, payments, ledger) takes
 * first. Reads run in a tenant-scoped read transaction (row-level security); the `…(tx, …)` functions run in
 * the caller's. Stored `numeric(19,6)` money is re-rendered with the loan currency's digits (never through a
 * float); dates are ISO calendar dates.
 */

import { and, asc, count, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { daysBetween } from '../../../domain/calendar';
import { notFound } from '../../../domain/errors';
import type { PaymentAllocationPayload } from '../../../domain/lending/allocation/payload';
import { chargeCalculationTypes, chargeTimeTypes } from '../../../domain/lending/charges';
import { fixDecimalText, trimDecimalText } from '../../../domain/lending/decimal-text';
import type { LoanOrderBy } from '../../../domain/lending/loan-list';
import { type LoanStatus, type LoanStatusView, loanStatusView } from '../../../domain/lending/loan-status';
import type { LoanChargeDefinition, LoanTerms } from '../../../domain/lending/loan-terms/types';
import type { PaymentAllocationRule } from '../../../domain/lending/products';
import type { ChargeCalculationType, ChargeTimeType } from '../../../domain/lending/schedule';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../../domain/money';
import type { Db } from '../../client';
import {
  charges,
  fundings,
  loanChargeOffs,
  loanCharges,
  loanInstallments,
  loanParties,
  loanProducts,
  loans,
  payments,
} from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';
import { type LoanDelinquencyFields, readLoanDelinquencyFields, tenantToday } from './delinquency';
import { chargeAmountText } from './products';

// ---- the lock of money operations ------------------------------------------------------------------------

/** What a money operation needs of a loan, read under `SELECT … FOR UPDATE` of the loan row. */
export interface LoanForMoney {
  /** The loan id. */
  id: number;
  /** Fineract-style account number, zero-padded (`"000000042"`); the spec's `loanRef`. */
  accountNo: string;
  /** The borrower: a customer id of the tenant. */
  clientId: number;
  productId: number;
  /** SUBMITTED, APPROVED, ACTIVE, CLOSED_OBLIGATIONS_MET or OVERPAID (domain/lending/loan-status.ts). */
  status: LoanStatus;
  /** ISO 4217 code of every amount of the loan. */
  currencyCode: string;
  /** Fraction digits of the currency (USD 2, JPY 0); every amount below carries exactly these. */
  digitsAfterDecimal: number;
  /** Principal applied for, decimal string. */
  principal: string;
  /** Principal frozen at approval, decimal string; null while SUBMITTED. Fundings may not exceed it. */
  approvedPrincipal: string | null;
  /** The loan's Fineract repayment strategy (equal to its product's, domain/lending/loan-terms/application.ts). */
  transactionProcessingStrategyCode: string;
  /** The product's allocation rules of the advanced strategy (docs/design.md §5 default stored); null otherwise. */
  paymentAllocation: PaymentAllocationRule[] | null;
  /** ISO date; the schedule's disbursement date (set at submission, may be moved at approval). */
  expectedDisbursementDate: string;
  /** ISO date of approval, null while SUBMITTED. */
  approvedOnDate: string | null;
  /** ISO date of the first disbursement, null until disbursed. */
  disbursedOnDate: string | null;
  /**
   * Charges due at disbursement of the current schedule (decimal string, currency digits): withheld from the
   * first funding's proceeds (`loans.terms.disbursementFeeChargesDue`).
   */
  disbursementChargesDue: string;
  /**
   * ISO date of the last day a close-of-business step closed for the loan, null before its first step: the loan's
   * business date is the day after (docs/lending.md "Close of business").
   */
  lastClosedBusinessDate: string | null;
}

/**
 * Locks the tenant's loan `loanId` (`SELECT … FOR UPDATE OF loans`, joined with its product for the allocation
 * rules) for the rest of the caller's transaction `tx` and returns what money operations need (see
 * `LoanForMoney`). Throws 404 `error.msg.resource.not.found` when the tenant has no such loan. Approval takes the
 * same lock, so a funding and an approval of one loan serialize. Lock order: the loan, then the borrower's
 * customer row.
 */
export async function lockLoanForMoney(tx: Tx, tenantId: string, loanId: number): Promise<LoanForMoney> {
  const [row] = await tx
    .select({
      id: loans.id,
      accountNo: loans.accountNo,
      clientId: loans.clientId,
      productId: loans.productId,
      status: loans.status,
      currencyCode: loans.currencyCode,
      principal: loans.principal,
      approvedPrincipal: loans.approvedPrincipal,
      transactionProcessingStrategyCode: loans.transactionProcessingStrategyCode,
      paymentAllocation: loanProducts.paymentAllocation,
      expectedDisbursementDate: loans.expectedDisbursementDate,
      approvedOnDate: loans.approvedOnDate,
      disbursedOnDate: loans.disbursedOnDate,
      disbursementChargesDue: sql<string>`coalesce(${loans.terms}->>'disbursementFeeChargesDue', '0')`,
      lastClosedBusinessDate: loans.lastClosedBusinessDate,
    })
    .from(loans)
    .innerJoin(
      loanProducts,
      and(eq(loanProducts.tenantId, loans.tenantId), eq(loanProducts.id, loans.productId)),
    )
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)))
    .for('update', { of: loans });
  if (!row) throw notFound('Loan', loanId);
  const digits = minorUnitDigits(row.currencyCode);
  return {
    ...row,
    digitsAfterDecimal: digits,
    principal: fixDecimalText(row.principal, digits),
    approvedPrincipal: row.approvedPrincipal === null ? null : fixDecimalText(row.approvedPrincipal, digits),
    disbursementChargesDue: fixDecimalText(row.disbursementChargesDue, digits),
    paymentAllocation: (row.paymentAllocation as PaymentAllocationRule[] | null) ?? null,
  };
}

// ---- charge definitions of an application ---------------------------------------------------------------------

/**
 * The tenant's charge definitions among `chargeIds` (missing ids are simply absent), by id, in the shape
 * domain/lending/loan-terms/application.ts checks an application's `charges` against. Runs in the caller's transaction.
 */
export async function readLoanChargeDefinitions(
  tx: Tx,
  tenantId: string,
  chargeIds: readonly number[],
): Promise<Map<number, LoanChargeDefinition>> {
  const found = new Map<number, LoanChargeDefinition>();
  const ids = [...new Set(chargeIds)];
  if (ids.length === 0) return found;
  const rows = await tx
    .select()
    .from(charges)
    .where(and(eq(charges.tenantId, tenantId), inArray(charges.id, ids)));
  for (const row of rows) {
    if (!(chargeTimeTypes as readonly number[]).includes(row.chargeTimeType)) continue;
    if (!(chargeCalculationTypes as readonly number[]).includes(row.chargeCalculationType)) continue;
    found.set(row.id, {
      chargeId: row.id,
      name: row.name,
      currencyCode: row.currencyCode,
      active: row.active,
      chargeTimeType: row.chargeTimeType as ChargeTimeType,
      chargeCalculationType: row.chargeCalculationType as ChargeCalculationType,
      amount: chargeAmountText(row, minorUnitDigits(row.currencyCode)),
      penalty: row.penalty,
    });
  }
  return found;
}

// ---- stored terms ---------------------------------------------------------------------------------------------

/**
 * `loans.terms` as the loan operations write it: the loan's terms (domain/lending/loan-terms/types.ts `LoanTerms`)
 * plus the charges due at disbursement of its current schedule (`disbursementFeeChargesDue`, decimal string with
 * the currency's digits), which `loan_installments` (installments 1…n) does not hold.
 */
export type StoredLoanTerms = LoanTerms & { disbursementFeeChargesDue: string };

// ---- the native list ------------------------------------------------------------------------------------------

/** One item of the native loan list (OpenAPI `GET /v1/loans`). */
export interface LoanListItem {
  id: number;
  accountNo: string;
  /** The borrower's customer id. */
  clientId: number;
  status: LoanStatusView;
}

/**
 * One page of the tenant's loans (docs/design.md §4 Paging: native lists `{totalFilteredRecords, pageItems}`): sorted by
 * `orderBy` in `sortOrder`, ties broken by id in the same direction, `limit` items from `offset`;
 * `totalFilteredRecords` counts all the tenant's loans. Count and page are read in one transaction.
 */
export async function listLoans(
  db: Db,
  tenantId: string,
  page: { offset: number; limit: number; orderBy: LoanOrderBy; sortOrder: 'ASC' | 'DESC' },
): Promise<{ totalFilteredRecords: number; pageItems: LoanListItem[] }> {
  const column = { id: loans.id, accountNo: loans.accountNo, submittedOnDate: loans.submittedOnDate }[
    page.orderBy
  ];
  const direction = page.sortOrder === 'ASC' ? asc : desc;
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [counted] = await tx.select({ n: count() }).from(loans).where(eq(loans.tenantId, tenantId));
    const rows = await tx
      .select({ id: loans.id, accountNo: loans.accountNo, clientId: loans.clientId, status: loans.status })
      .from(loans)
      .where(eq(loans.tenantId, tenantId))
      .orderBy(...(page.orderBy === 'id' ? [direction(loans.id)] : [direction(column), direction(loans.id)]))
      .limit(page.limit)
      .offset(page.offset);
    return {
      totalFilteredRecords: counted?.n ?? 0,
      pageItems: rows.map((row) => ({
        id: row.id,
        accountNo: row.accountNo,
        clientId: row.clientId,
        status: loanStatusView(row.status),
      })),
    };
  });
}

// ---- one loan with its associations ---------------------------------------------------------------------------

/** The disbursement row of a loan's schedule (no `period`, as in Fineract). Money: decimal strings. */
export interface LoanScheduleDisbursementRow {
  /** The actual disbursement date once disbursed, else the expected one (ISO). */
  dueDate: string;
  principalDisbursed: string;
  /** Charges due at disbursement (withheld from the proceeds, so paid once disbursed). */
  feeChargesDue: string;
  totalDueForPeriod: string;
  totalPaidForPeriod: string;
  totalOutstandingForPeriod: string;
  principalLoanBalanceOutstanding: string;
}

/** One installment of a loan's authoritative schedule with what has been paid of it. Money: decimal strings. */
export interface LoanScheduleInstallmentRow {
  period: number;
  fromDate: string;
  dueDate: string;
  daysInPeriod: number;
  principalDue: string;
  interestDue: string;
  feeChargesDue: string;
  penaltyChargesDue: string;
  totalDueForPeriod: string;
  principalPaid: string;
  interestPaid: string;
  feeChargesPaid: string;
  penaltyChargesPaid: string;
  totalPaidForPeriod: string;
  /**
   * Waived by a payoff (domain/lending/allocation/payoff.ts; Fineract `interestWaived`, `feeChargesWaived`,
   * `penaltyChargesWaived`, `totalWaivedForPeriod`).
   */
  interestWaived: string;
  feeChargesWaived: string;
  penaltyChargesWaived: string;
  totalWaivedForPeriod: string;
  /** Due − paid − waived, per component and in total. */
  principalOutstanding: string;
  interestOutstanding: string;
  feeChargesOutstanding: string;
  penaltyChargesOutstanding: string;
  totalOutstandingForPeriod: string;
  /** Scheduled principal balance after this installment. */
  principalLoanBalanceOutstanding: string;
  /**
   * Paid of this installment by payments value-dated before its `dueDate` (Fineract
   * `totalPaidInAdvanceForPeriod`); see `paidInAdvanceAndLate`.
   */
  totalPaidInAdvanceForPeriod: string;
  /** Paid of this installment by payments value-dated after its `dueDate` (Fineract `totalPaidLateForPeriod`). */
  totalPaidLateForPeriod: string;
  /** True when nothing of the installment is outstanding. */
  complete: boolean;
  /** ISO date on which it became fully paid (kept by the ledger), or null. */
  obligationsMetOnDate: string | null;
  /**
   * True for the down payment due at disbursement (Fineract `downPaymentPeriod`): installment 1 of a loan whose
   * product has `enableDownPayment` (domain/lending/schedule.ts puts it first).
   */
  downPaymentPeriod: boolean;
}

/** `repaymentSchedule` of `GET /v1/loans/{loanId}`: the preview's shape plus paid and outstanding amounts. */
export interface LoanRepaymentSchedule {
  currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
  /** Days from the disbursement to the last due date. */
  loanTermInDays: number;
  totalPrincipalExpected: string;
  totalPrincipalPaid: string;
  totalInterestCharged: string;
  totalInterestPaid: string;
  totalFeeChargesCharged: string;
  totalFeeChargesPaid: string;
  totalPenaltyChargesCharged: string;
  totalPenaltyChargesPaid: string;
  totalRepaymentExpected: string;
  /** Paid in total (Fineract `totalRepayment`). */
  totalRepayment: string;
  /** Waived by a payoff in total (Fineract `totalWaived`). */
  totalWaived: string;
  /** Expected − paid − waived. */
  totalOutstanding: string;
  /**
   * Σ of the installments' `totalPaidInAdvanceForPeriod` and `totalPaidLateForPeriod` (Fineract
   * `LoanScheduleData.totalPaidInAdvance`, `totalPaidLate`: the "In advance" and "Late" of the schedule's total row).
   */
  totalPaidInAdvance: string;
  totalPaidLate: string;
  periods: [LoanScheduleDisbursementRow, ...LoanScheduleInstallmentRow[]];
}

/** A posted money event of a loan (`transactions` of `GET /v1/loans/{loanId}`). Money: decimal strings. */
export interface LoanTransactionView {
  /** Id of the funding, payment or loan charge row (each has its own id space; see `transactionRef`). */
  id: number;
  /**
   * `funding/<id>` or `payment/<id>`, as in the journal (`journal_entries.transaction_ref`); `loan-charge/<id>/waiver`
   * for a charge's waiver (no journal entry on the cash basis).
   */
  transactionRef: string;
  /**
   * Fineract `LoanTransactionType`: 1 `loanTransactionType.disbursement`, 2 `loanTransactionType.repayment`, 28
   * `loanTransactionType.downPayment` (the down payment recorded with a funding of a product with
   * `enableAutoRepaymentForDownPayment`), 9 `loanTransactionType.waiveCharges` (a loan charge waived: `amount` the
   * waived amount, in `feeChargesPortion` or `penaltyChargesPortion`, Fineract `LoanTransaction.waiveLoanCharge`),
   * 27 `loanTransactionType.chargeOff` (a charge-off in force, `charge-off/<id>`: what the schedule had outstanding,
   * by portion; an undone charge-off is not listed).
   */
  type: {
    id: 1 | 2 | 9 | 27 | 28;
    code: string;
    value: 'Disbursement' | 'Repayment' | 'Down Payment' | 'Waive loan charges' | 'Charge-off';
  };
  /** Value date (ISO). */
  date: string;
  currency: string;
  amount: string;
  /**
   * What the transaction paid of principal, interest, fees and penalties, and the overpayment; null for a
   * payment the ledger has not allocated. A disbursement reports every portion as zero, as Fineract does (its
   * `LoanTransaction.disbursement` sets only the amount; apache/fineract integration-tests
   * `BaseLoanIntegrationTest`: `transaction(1000.0, "Disbursement", "01 January 2023", 1000.0, 0.0, 0.0, 0.0, 0.0,
   * 0.0, 0.0)` = amount, type, date, outstanding principal, then the portions).
   */
  principalPortion: string | null;
  interestPortion: string | null;
  feeChargesPortion: string | null;
  penaltyChargesPortion: string | null;
  overpaymentPortion: string | null;
  /**
   * The loan's outstanding principal after this transaction (Fineract `outstandingLoanBalance`), following
   * apache/fineract `LoanBalanceService.updateLoanOutstandingBalances`: over the transactions in order, a
   * disbursement adds its amount, a repayment subtracts its principal portion, and each transaction records the
   * running balance, never below zero. So a loan's first disbursement shows the disbursed principal. Null after a
   * payment the ledger has not allocated (and for every later transaction), since its principal is not known.
   */
  outstandingLoanBalance: string | null;
  /** The `externalRecordRef` the money was recorded under. */
  externalId: string | null;
}

/** A charge of the loan as shown. */
export interface LoanChargeView {
  chargeId: number;
  name: string;
  chargeTimeType: number;
  chargeCalculationType: number;
  /** Flat: money with the currency's digits; percentage: the percent. */
  amount: string;
  penalty: boolean;
  dueDate: string | null;
}

/** `GET /v1/loans/{loanId}`. */
export interface LoanView {
  id: number;
  accountNo: string;
  clientId: number;
  productId: number;
  loanType: string;
  status: LoanStatusView;
  currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
  /** Principal applied for. */
  principal: string;
  /** Principal frozen at approval; null before. */
  approvedPrincipal: string | null;
  transactionProcessingStrategyCode: string;
  /**
   * The loan's Fineract terms (codes as in the creation body). A field is null only for a loan whose terms were
   * not written by `createLoan` (rows inserted around the operations, e.g. by test fixtures).
   */
  terms: {
    loanTermFrequency: number | null;
    loanTermFrequencyType: number | null;
    numberOfRepayments: number | null;
    repaymentEvery: number | null;
    repaymentFrequencyType: number | null;
    /** Nominal rate in percent per `interestRateFrequencyType` (a JSON number, as the product shows it). */
    interestRatePerPeriod: number | null;
    interestRateFrequencyType: number | null;
    interestType: number | null;
    amortizationType: number | null;
    interestCalculationPeriodType: number | null;
    allowPartialPeriodInterestCalcualtion: boolean | null;
    daysInYearType: number | null;
    daysInMonthType: number | null;
    graceOnPrincipalPayment: number | null;
    graceOnInterestPayment: number | null;
    repaymentsStartingFromDate: string | null;
    installmentAmountInMultiplesOf: number | null;
    charges: LoanChargeView[];
    /**
     * The product's down payment as the loan took it (false, null, false for loans without one): the percent of
     * the principal as a JSON number (display only, like the rate).
     */
    enableDownPayment: boolean;
    disbursedAmountPercentageForDownPayment: number | null;
    enableAutoRepaymentForDownPayment: boolean;
  };
  /** ISO dates (Fineract's `timeline`). */
  timeline: {
    submittedOnDate: string;
    expectedDisbursementDate: string;
    approvedOnDate: string | null;
    actualDisbursementDate: string | null;
  };
  /** `Service-Actor` of the approval, or null. */
  approvedBy: string | null;
  externalId: string | null;
  /** The §1026.18 disclosure frozen at approval (with `finalizedAt`); null before, or for non-APR products. */
  aprDisclosure: Record<string, unknown> | null;
  /** Fineract `chargedOff`: true while a charge-off is in force (docs/lending.md "Charge-off"). */
  chargedOff: boolean;
  /** ISO date of the charge-off in force, else null. */
  chargedOffOnDate: string | null;
  /** Co-borrowers, authorized parties and guarantors, oldest first. */
  parties: { partyId: number; customerId: number; role: string }[];
  /** Derived as of today in the tenant's time zone (db/queries/lending/delinquency.ts `readLoanDelinquencyFields`). */
  delinquent: LoanDelinquencyFields['delinquent'];
  /** The stored classification (null before a close-of-business run set one). */
  delinquencyRange: LoanDelinquencyFields['delinquencyRange'];
  /** ISO date of the last day a close-of-business run closed for the loan, null before the first. */
  lastClosedBusinessDate: string | null;
  repaymentSchedule?: LoanRepaymentSchedule;
  transactions?: LoanTransactionView[];
}

/** Fundings that moved money: recorded as external (docs/lending.md "Lending core") or posted by a rail. */
const postedFundingStatuses = ['RECORDED_EXTERNAL', 'POSTED'];

/**
 * The tenant's loan `loanId`, or null (absent or another tenant's), with `repaymentSchedule` (from
 * `loan_installments`, whose paid columns the ledger keeps) and `transactions` (posted fundings and payments by
 * value date, a disbursement before a repayment of the same day) when asked. One read transaction; one query
 * per table (installments, fundings, payments), never one per installment or transaction. `delinquent` is derived
 * as of today (`now` in the tenant's time zone; docs/lending.md "Delinquency"); `delinquencyRange`,
 * `lastClosedBusinessDate`, `chargedOff`, `chargedOffOnDate` are the stored columns.
 */
export async function getLoan(
  db: Db,
  tenantId: string,
  loanId: number,
  associations: { repaymentSchedule: boolean; transactions: boolean },
  now: Date,
): Promise<LoanView | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [row] = await tx
      .select()
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
    if (!row) return null;
    const today = await tenantToday(tx, tenantId, now);
    const delinquency = await readLoanDelinquencyFields(tx, tenantId, row, today);
    const [partyRows, installmentRows, fundingRows, paymentRows, waiverRows, chargeOffRows] =
      await Promise.all([
        tx
          .select({ partyId: loanParties.id, customerId: loanParties.customerId, role: loanParties.role })
          .from(loanParties)
          .where(and(eq(loanParties.tenantId, tenantId), eq(loanParties.loanId, loanId)))
          .orderBy(asc(loanParties.id)),
        associations.repaymentSchedule
          ? tx
              .select()
              .from(loanInstallments)
              .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loanId)))
              .orderBy(asc(loanInstallments.installmentNumber))
          : Promise.resolve([]),
        associations.transactions
          ? tx
              .select()
              .from(fundings)
              .where(
                and(
                  eq(fundings.tenantId, tenantId),
                  eq(fundings.loanId, loanId),
                  inArray(fundings.status, postedFundingStatuses),
                ),
              )
          : Promise.resolve([]),
        // Payments also feed the schedule's paid-in-advance and paid-late amounts (one query for both).
        associations.transactions || associations.repaymentSchedule
          ? tx
              .select()
              .from(payments)
              .where(
                and(
                  eq(payments.tenantId, tenantId),
                  eq(payments.loanId, loanId),
                  eq(payments.status, 'POSTED'),
                ),
              )
          : Promise.resolve([]),
        associations.transactions
          ? tx
              .select({
                id: loanCharges.id,
                waiverAmount: loanCharges.waiverAmount,
                waivedOnDate: loanCharges.waivedOnDate,
                penalty: loanCharges.penalty,
                externalId: loanCharges.externalId,
              })
              .from(loanCharges)
              .where(
                and(
                  eq(loanCharges.tenantId, tenantId),
                  eq(loanCharges.loanId, loanId),
                  isNotNull(loanCharges.waivedOnDate),
                ),
              )
          : Promise.resolve([]),
        associations.transactions
          ? tx
              .select()
              .from(loanChargeOffs)
              .where(
                and(
                  eq(loanChargeOffs.tenantId, tenantId),
                  eq(loanChargeOffs.loanId, loanId),
                  eq(loanChargeOffs.reversed, false),
                ),
              )
          : Promise.resolve([]),
      ]);
    const terms = row.terms as Partial<StoredLoanTerms>;
    const currency = {
      code: row.currencyCode,
      digitsAfterDecimal: minorUnitDigits(row.currencyCode),
      inMultiplesOf: terms.currency?.inMultiplesOf ?? 0,
    };
    const digits = currency.digitsAfterDecimal;
    const money = (value: string) => fixDecimalText(value, digits);
    const rate = terms.interestRatePerPeriod;
    const view: LoanView = {
      id: row.id,
      accountNo: row.accountNo,
      clientId: row.clientId,
      productId: row.productId,
      loanType: row.loanType,
      status: loanStatusView(row.status),
      currency,
      principal: money(row.principal),
      approvedPrincipal: row.approvedPrincipal === null ? null : money(row.approvedPrincipal),
      transactionProcessingStrategyCode: row.transactionProcessingStrategyCode,
      terms: {
        loanTermFrequency: terms.loanTermFrequency ?? null,
        loanTermFrequencyType: terms.loanTermFrequencyType ?? null,
        numberOfRepayments: terms.numberOfRepayments ?? null,
        repaymentEvery: terms.repaymentEvery ?? null,
        repaymentFrequencyType: terms.repaymentFrequencyType ?? null,
        interestRatePerPeriod:
          rate === undefined || rate === null ? null : Number(trimDecimalText(String(rate))),
        interestRateFrequencyType: terms.interestRateFrequencyType ?? null,
        interestType: terms.interestType ?? null,
        amortizationType: terms.amortizationType ?? null,
        interestCalculationPeriodType: terms.interestCalculationPeriodType ?? null,
        allowPartialPeriodInterestCalcualtion: terms.allowPartialPeriodInterestCalcualtion ?? null,
        daysInYearType: terms.daysInYearType ?? null,
        daysInMonthType: terms.daysInMonthType ?? null,
        graceOnPrincipalPayment: terms.graceOnPrincipalPayment ?? null,
        graceOnInterestPayment: terms.graceOnInterestPayment ?? null,
        repaymentsStartingFromDate: terms.repaymentsStartingFromDate ?? null,
        installmentAmountInMultiplesOf: terms.installmentAmountInMultiplesOf ?? null,
        charges: (terms.charges ?? []).map((c) => ({ ...c })),
        enableDownPayment: terms.enableDownPayment ?? false,
        disbursedAmountPercentageForDownPayment:
          terms.disbursedAmountPercentageForDownPayment === null ||
          terms.disbursedAmountPercentageForDownPayment === undefined
            ? null
            : Number(trimDecimalText(terms.disbursedAmountPercentageForDownPayment)),
        enableAutoRepaymentForDownPayment: terms.enableAutoRepaymentForDownPayment ?? false,
      },
      timeline: {
        submittedOnDate: row.submittedOnDate,
        expectedDisbursementDate: row.expectedDisbursementDate,
        approvedOnDate: row.approvedOnDate,
        actualDisbursementDate: row.disbursedOnDate,
      },
      approvedBy: row.approvedBy,
      externalId: row.externalId,
      aprDisclosure: row.aprDisclosure ?? null,
      parties: partyRows,
      // delinquent, delinquencyRange, lastClosedBusinessDate, chargedOff, chargedOffOnDate
      ...delinquency,
    };
    if (associations.repaymentSchedule) {
      view.repaymentSchedule = repaymentScheduleOf(row, currency, terms, installmentRows, paymentRows);
    }
    if (associations.transactions) {
      view.transactions = transactionsOf(
        fundingRows,
        paymentRows,
        waiverRows,
        chargeOffRows,
        row.currencyCode,
        digits,
      );
    }
    return view;
  });
}

type LoanRow = typeof loans.$inferSelect;
/** A waived loan charge as the transactions list reads it. */
interface ChargeWaiverRow {
  id: number;
  waiverAmount: string | null;
  waivedOnDate: string | null;
  penalty: boolean;
  externalId: string | null;
}
type InstallmentRow = typeof loanInstallments.$inferSelect;

/**
 * Per installment number, what posted payments paid of it in advance and late, in minor units of `digits`:
 * each line of a payment's stored allocation (`payments.allocation.lines`, written by the ledger's repost,
 * activities/lending/repost-loan.ts) counts as paid in advance when the payment's value date is before the
 * installment's due date, as paid late when after it, and as neither on the due date. Source: apache/fineract
 * `LoanRepaymentScheduleInstallment` (fineract-loan, `trackAdvanceAndLateTotalsForRepaymentPeriod`, called by
 * `payPrincipalComponent`, `payInterestComponent`, `payFeeChargesComponent`, `payPenaltyChargesComponent`):
 * `isInAdvance` = `DateUtils.isBefore(transactionDate, getDueDate())`, `isLatePayment` =
 * `DateUtils.isAfter(transactionDate, getDueDate())`. (A fork compares with the installment's from-date instead;
 * Apache's compares with the due date, which is followed here.) Overpayment lines belong to no installment.
 */
function paidInAdvanceAndLate(
  installments: readonly InstallmentRow[],
  paymentRows: readonly PaymentRow[],
  digits: number,
): Map<number, { advanceMinor: bigint; lateMinor: bigint }> {
  const dueDates = new Map(installments.map((r) => [r.installmentNumber, r.dueDate]));
  const totals = new Map(installments.map((r) => [r.installmentNumber, { advanceMinor: 0n, lateMinor: 0n }]));
  for (const payment of paymentRows) {
    if (payment.status !== 'POSTED') continue;
    const lines = (payment.allocation as Partial<PaymentAllocationPayload> | null)?.lines ?? [];
    for (const line of lines) {
      if (line.installmentNumber === null || line.installmentNumber === undefined) continue;
      const dueDate = dueDates.get(line.installmentNumber);
      const total = totals.get(line.installmentNumber);
      if (dueDate === undefined || total === undefined) continue;
      const amountMinor = parseDecimalToMinor(line.amount, digits, { allowTrailingZeros: true });
      if (payment.effectiveDate < dueDate) total.advanceMinor += amountMinor;
      else if (payment.effectiveDate > dueDate) total.lateMinor += amountMinor;
    }
  }
  return totals;
}

function repaymentScheduleOf(
  loan: LoanRow,
  currency: LoanView['currency'],
  terms: Partial<StoredLoanTerms>,
  rows: readonly InstallmentRow[],
  paymentRows: readonly PaymentRow[],
): LoanRepaymentSchedule {
  const digits = currency.digitsAfterDecimal;
  const minor = (value: string) => parseDecimalToMinor(value, digits, { allowTrailingZeros: true });
  const text = (value: bigint) => formatMinor(value, digits);
  const timing = paidInAdvanceAndLate(rows, paymentRows, digits);
  const disbursed = loan.disbursedOnDate !== null;
  const disbursementDate = loan.disbursedOnDate ?? loan.expectedDisbursementDate;
  const feesAtDisbursement = minor(terms.disbursementFeeChargesDue ?? '0');
  const principal = rows.reduce((sum, r) => sum + minor(r.principalDue), 0n);
  const totals = {
    principal: 0n,
    principalPaid: 0n,
    interest: 0n,
    interestPaid: 0n,
    fee: feesAtDisbursement,
    feePaid: disbursed ? feesAtDisbursement : 0n,
    penalty: 0n,
    penaltyPaid: 0n,
    waived: 0n,
    paidInAdvance: 0n,
    paidLate: 0n,
  };
  let balance = principal;
  const installments = rows.map((r): LoanScheduleInstallmentRow => {
    const due = {
      principal: minor(r.principalDue),
      interest: minor(r.interestDue),
      fee: minor(r.feeChargesDue),
      penalty: minor(r.penaltyChargesDue),
    };
    const paid = {
      principal: minor(r.principalPaid),
      interest: minor(r.interestPaid),
      fee: minor(r.feeChargesPaid),
      penalty: minor(r.penaltyChargesPaid),
    };
    const waived = {
      interest: minor(r.interestWaived),
      fee: minor(r.feeChargesWaived),
      penalty: minor(r.penaltyChargesWaived),
    };
    const totalDue = due.principal + due.interest + due.fee + due.penalty;
    const totalPaid = paid.principal + paid.interest + paid.fee + paid.penalty;
    const totalWaived = waived.interest + waived.fee + waived.penalty;
    totals.waived += totalWaived;
    balance -= due.principal;
    totals.principal += due.principal;
    totals.principalPaid += paid.principal;
    totals.interest += due.interest;
    totals.interestPaid += paid.interest;
    totals.fee += due.fee;
    totals.feePaid += paid.fee;
    totals.penalty += due.penalty;
    totals.penaltyPaid += paid.penalty;
    const { advanceMinor, lateMinor } = timing.get(r.installmentNumber) ?? {
      advanceMinor: 0n,
      lateMinor: 0n,
    };
    totals.paidInAdvance += advanceMinor;
    totals.paidLate += lateMinor;
    return {
      period: r.installmentNumber,
      fromDate: r.fromDate,
      dueDate: r.dueDate,
      daysInPeriod: daysBetween(r.fromDate, r.dueDate),
      principalDue: text(due.principal),
      interestDue: text(due.interest),
      feeChargesDue: text(due.fee),
      penaltyChargesDue: text(due.penalty),
      totalDueForPeriod: text(totalDue),
      principalPaid: text(paid.principal),
      interestPaid: text(paid.interest),
      feeChargesPaid: text(paid.fee),
      penaltyChargesPaid: text(paid.penalty),
      totalPaidForPeriod: text(totalPaid),
      interestWaived: text(waived.interest),
      feeChargesWaived: text(waived.fee),
      penaltyChargesWaived: text(waived.penalty),
      totalWaivedForPeriod: text(totalWaived),
      principalOutstanding: text(due.principal - paid.principal),
      interestOutstanding: text(due.interest - paid.interest - waived.interest),
      feeChargesOutstanding: text(due.fee - paid.fee - waived.fee),
      penaltyChargesOutstanding: text(due.penalty - paid.penalty - waived.penalty),
      totalOutstandingForPeriod: text(totalDue - totalPaid - totalWaived),
      principalLoanBalanceOutstanding: text(balance),
      totalPaidInAdvanceForPeriod: text(advanceMinor),
      totalPaidLateForPeriod: text(lateMinor),
      complete: totalDue - totalPaid - totalWaived <= 0n,
      obligationsMetOnDate: r.obligationsMetOnDate,
      downPaymentPeriod: terms.enableDownPayment === true && r.installmentNumber === 1,
    };
  });
  const feesPaidAtDisbursement = disbursed ? feesAtDisbursement : 0n;
  const expected = totals.principal + totals.interest + totals.fee + totals.penalty;
  const paidTotal = totals.principalPaid + totals.interestPaid + totals.feePaid + totals.penaltyPaid;
  const last = rows[rows.length - 1];
  return {
    currency: { ...currency },
    loanTermInDays: last ? daysBetween(disbursementDate, last.dueDate) : 0,
    totalPrincipalExpected: text(totals.principal),
    totalPrincipalPaid: text(totals.principalPaid),
    totalInterestCharged: text(totals.interest),
    totalInterestPaid: text(totals.interestPaid),
    totalFeeChargesCharged: text(totals.fee),
    totalFeeChargesPaid: text(totals.feePaid),
    totalPenaltyChargesCharged: text(totals.penalty),
    totalPenaltyChargesPaid: text(totals.penaltyPaid),
    totalRepaymentExpected: text(expected),
    totalRepayment: text(paidTotal),
    totalWaived: text(totals.waived),
    totalOutstanding: text(expected - paidTotal - totals.waived),
    totalPaidInAdvance: text(totals.paidInAdvance),
    totalPaidLate: text(totals.paidLate),
    periods: [
      {
        dueDate: disbursementDate,
        principalDisbursed: text(principal),
        feeChargesDue: text(feesAtDisbursement),
        totalDueForPeriod: text(feesAtDisbursement),
        totalPaidForPeriod: text(feesPaidAtDisbursement),
        totalOutstandingForPeriod: text(feesAtDisbursement - feesPaidAtDisbursement),
        principalLoanBalanceOutstanding: text(principal),
      },
      ...installments,
    ],
  };
}

type FundingRow = typeof fundings.$inferSelect;
type PaymentRow = typeof payments.$inferSelect;

const repaymentType: LoanTransactionView['type'] = {
  id: 2,
  code: 'loanTransactionType.repayment',
  value: 'Repayment',
};
const downPaymentType: LoanTransactionView['type'] = {
  id: 28,
  code: 'loanTransactionType.downPayment',
  value: 'Down Payment',
};

/**
 * Posted fundings and payments in value-date order (disbursement first on the same day, then by id), each with
 * its portions and the outstanding principal after it (see `LoanTransactionView`).
 */
function transactionsOf(
  fundingRows: readonly FundingRow[],
  paymentRows: readonly PaymentRow[],
  waiverRows: readonly ChargeWaiverRow[],
  chargeOffRows: readonly (typeof loanChargeOffs.$inferSelect)[],
  currency: string,
  digits: number,
): LoanTransactionView[] {
  const money = (value: string) => fixDecimalText(value, digits);
  const portion = (allocation: Record<string, unknown> | null, key: string): string | null => {
    const value = allocation?.[key];
    return typeof value === 'string' ? money(value) : null;
  };
  const zero = formatMinor(0n, digits);
  const events: (LoanTransactionView & { order: number })[] = [
    ...fundingRows.map((f) => ({
      order: 0,
      id: f.id,
      transactionRef: `funding/${f.id}`,
      type: { id: 1 as const, code: 'loanTransactionType.disbursement', value: 'Disbursement' as const },
      date: f.fundingDate,
      currency: f.currencyCode,
      amount: money(f.amount),
      principalPortion: zero,
      interestPortion: zero,
      feeChargesPortion: zero,
      penaltyChargesPortion: zero,
      overpaymentPortion: zero,
      outstandingLoanBalance: null,
      externalId: f.externalRecordRef,
    })),
    ...paymentRows.map((p) => ({
      order: 1,
      id: p.id,
      transactionRef: `payment/${p.id}`,
      type: p.transactionType === 'DOWN_PAYMENT' ? downPaymentType : repaymentType,
      date: p.effectiveDate,
      currency: p.currencyCode,
      amount: money(p.amount),
      principalPortion: portion(p.allocation, 'principal'),
      interestPortion: portion(p.allocation, 'interest'),
      feeChargesPortion: portion(p.allocation, 'fee'),
      penaltyChargesPortion: portion(p.allocation, 'penalty'),
      overpaymentPortion: portion(p.allocation, 'overpayment'),
      outstandingLoanBalance: null,
      externalId: p.externalRecordRef,
    })),
    ...waiverRows.flatMap((w) =>
      w.waiverAmount === null || w.waivedOnDate === null
        ? []
        : [
            {
              order: 2,
              id: w.id,
              transactionRef: `loan-charge/${w.id}/waiver`,
              type: {
                id: 9 as const,
                code: 'loanTransactionType.waiveCharges',
                value: 'Waive loan charges' as const,
              },
              date: w.waivedOnDate,
              currency,
              amount: money(w.waiverAmount),
              principalPortion: zero,
              interestPortion: zero,
              feeChargesPortion: w.penalty ? zero : money(w.waiverAmount),
              penaltyChargesPortion: w.penalty ? money(w.waiverAmount) : zero,
              overpaymentPortion: zero,
              outstandingLoanBalance: null,
              externalId: w.externalId,
            },
          ],
    ),
    // Fineract's charge-off transaction: the last of its day (nothing may be recorded after it that day).
    ...chargeOffRows.map((co) => ({
      order: 3,
      id: co.id,
      transactionRef: `charge-off/${co.id}`,
      type: { id: 27 as const, code: 'loanTransactionType.chargeOff', value: 'Charge-off' as const },
      date: co.transactionDate,
      currency: co.currencyCode,
      amount: money(co.amount),
      principalPortion: money(co.principalPortion),
      interestPortion: money(co.interestPortion),
      feeChargesPortion: money(co.feeChargesPortion),
      penaltyChargesPortion: money(co.penaltyChargesPortion),
      overpaymentPortion: zero,
      outstandingLoanBalance: null,
      externalId: co.externalId,
    })),
  ];
  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.order - b.order || a.id - b.id));
  // Running outstanding principal (apache/fineract LoanBalanceService.updateLoanOutstandingBalances).
  const minor = (value: string) => parseDecimalToMinor(value, digits, { allowTrailingZeros: true });
  let outstandingMinor: bigint | null = 0n;
  for (const event of events) {
    if (outstandingMinor !== null) {
      if (event.type.id === 1) outstandingMinor += minor(event.amount);
      else if (event.principalPortion === null) outstandingMinor = null;
      else outstandingMinor -= minor(event.principalPortion);
    }
    event.outstandingLoanBalance =
      outstandingMinor === null ? null : formatMinor(outstandingMinor < 0n ? 0n : outstandingMinor, digits);
  }
  return events.map(({ order: _order, ...event }) => event);
}
