/**
 * Read queries of a loan's money (`GET /v1/loans/{loanId}/fundings`, `GET /v1/loans/{loanId}/payments`,
 * `GET /v1/journalentries`, `GET /v1/loans/{loanId}/summary`; docs/lending.md "Lending core", OpenAPI `GET /v1/loans/{loanId}/payments`, docs/design.md §4 Paging
 * paging shapes). Each runs in one tenant-scoped read transaction (row-level security), its statements pipelined.
 * Stored `numeric(19,6)` amounts are rendered with exactly the currency's minor-unit digits (never via a float).
 * A loan of another tenant is invisible: the functions answer null, which the routes turn into 404.
 */
import { and, asc, count, desc, eq, or, sql } from 'drizzle-orm';
import type { PaymentAllocationPayload } from '../../../domain/lending/allocation/payload';
import {
  installmentStatesAsOf,
  outstandingSummary,
  summaryFromPostedState,
} from '../../../domain/lending/allocation/summary';
import {
  type DelinquencyRangeDefinition,
  delinquencyInstallmentsOf,
  type InstallmentDelinquencyTag,
  loanStatusAsOf,
} from '../../../domain/lending/delinquency';
import type { DelinquencyActionRecord } from '../../../domain/lending/delinquency-actions';
import {
  allocationAmountsOf,
  allocationInputOf,
  allocationStrategyOf,
  minorOf,
  type PaymentAllocationAmounts,
  type StoredInstallment,
  type StoredLoanCharge,
  type StoredMoneyEvent,
  type StoredPrincipalForgiveness,
} from '../../../domain/lending/loan-allocation';
import { type LoanStatus, type LoanStatusView, loanStatusView } from '../../../domain/lending/loan-status';
import { advanceTransactionRef } from '../../../domain/lending/merchant-advance';
import { formatMinor, minorUnitDigits } from '../../../domain/money';
import type { Db } from '../../client';
import { fundings, journalEntries, loans, payments } from '../../schema';
import { readAsTenant, type Tx, withTenantTransaction } from '../../tenant-tx';
import {
  delinquencyPausesOf,
  delinquencySettingsOf,
  type LoanDelinquencyFields,
  loanDelinquencyFields,
  storedDelinquencySettingsOf,
} from './delinquency';
import { merchantAdvanceRowOf } from './merchant-advances';

type PaymentStatus = (typeof payments.$inferSelect)['status'];

/** Decimal string as stored → decimal string with exactly the currency's digits. */
function moneyText(amount: string, currency: string): string {
  return formatMinor(minorOf(amount, currency), minorUnitDigits(currency));
}

async function loanRefOf(tx: Tx, tenantId: string, loanId: number): Promise<string | null> {
  const [row] = await tx
    .select({ accountNo: loans.accountNo })
    .from(loans)
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
  return row?.accountNo ?? null;
}

/** A funding as listed (OpenAPI `GET /v1/loans/{loanId}/fundings`). */
export interface FundingView {
  fundingId: number;
  loanId: number;
  loanRef: string;
  /** DISBURSEMENT. */
  fundingType: string;
  /** BORROWER. */
  recipientType: string;
  recipientRef: string;
  /** RECORDED_EXTERNAL. */
  status: string;
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
  /** ISO date the disbursement is value-dated to. */
  fundingDate: string;
  externalRecordRef: string;
  reason: string;
  /** ISO 8601 instant (UTC) it was recorded. */
  createdAt: string;
}

/**
 * One page of the loan's fundings, newest first (funding date, then recording order), or null when the tenant
 * has no loan `loanId`. `limit` 1–200, `offset` ≥ 0 (checked by the route).
 */
export async function listLoanFundings(
  db: Db,
  tenantId: string,
  loanId: number,
  page: { limit: number; offset: number },
): Promise<FundingView[] | null> {
  const [loanRef, rows] = await withTenantTransaction(db, tenantId, (tx) =>
    Promise.all([
      loanRefOf(tx, tenantId, loanId),
      tx
        .select()
        .from(fundings)
        .where(and(eq(fundings.tenantId, tenantId), eq(fundings.loanId, loanId)))
        .orderBy(desc(fundings.fundingDate), desc(fundings.id))
        .limit(page.limit)
        .offset(page.offset),
    ]),
  );
  if (loanRef === null) return null;
  return rows.map((row) => ({
    fundingId: row.id,
    loanId: row.loanId,
    loanRef,
    fundingType: row.fundingType,
    recipientType: row.recipientType,
    recipientRef: row.recipientRef,
    status: row.status,
    amount: moneyText(row.amount, row.currencyCode),
    currency: row.currencyCode,
    fundingDate: row.fundingDate,
    externalRecordRef: row.externalRecordRef,
    reason: row.reason,
    createdAt: row.createdAt.toISOString(),
  }));
}

/** A payment as listed and as carried in events (OpenAPI `GET /v1/loans/{loanId}/payments`), plus how it was allocated. */
export interface PaymentView {
  paymentId: number;
  loanRef: string;
  status: PaymentStatus;
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
  /** ISO date. */
  effectiveDate: string;
  /** The rail of a payment intent (docs/design.md §5); null for a payment recorded as external. */
  rail: string | null;
  /** Originating system or actor (`IMPORT` for boarded history). */
  source: string;
  /** The instrument a payment intent debits; null for a payment recorded as external. */
  instrumentId: number | null;
  /** The rail's reference once submitted, else null. */
  providerRef: string | null;
  /** The rail's return code of a RETURNED payment, else null. */
  returnCode: string | null;
  /** The current split of a posted payment; null while it is not allocated (not posted). */
  allocation: PaymentAllocationAmounts | null;
}

/**
 * One page of the loan's payments, newest first (effective date, then recording order), optionally of one
 * `status`, or null when the tenant has no loan `loanId`.
 */
export async function listLoanPayments(
  db: Db,
  tenantId: string,
  loanId: number,
  filter: { status?: PaymentStatus | undefined; limit: number; offset: number },
): Promise<PaymentView[] | null> {
  const [loanRef, rows] = await withTenantTransaction(db, tenantId, (tx) =>
    Promise.all([
      loanRefOf(tx, tenantId, loanId),
      tx
        .select()
        .from(payments)
        .where(
          and(
            eq(payments.tenantId, tenantId),
            eq(payments.loanId, loanId),
            filter.status === undefined ? undefined : eq(payments.status, filter.status),
          ),
        )
        .orderBy(desc(payments.effectiveDate), desc(payments.id))
        .limit(filter.limit)
        .offset(filter.offset),
    ]),
  );
  if (loanRef === null) return null;
  return rows.map((row) => ({
    paymentId: row.id,
    loanRef,
    status: row.status,
    amount: moneyText(row.amount, row.currencyCode),
    currency: row.currencyCode,
    effectiveDate: row.effectiveDate,
    rail: row.rail,
    source: row.source,
    instrumentId: row.instrumentId,
    providerRef: row.providerRef,
    returnCode: row.returnCode,
    allocation:
      row.allocation === null
        ? null
        : allocationAmountsOf(row.allocation as Partial<PaymentAllocationPayload>, row.currencyCode),
  }));
}

/** One journal line (one `journal_entries` row). */
export interface JournalEntryView {
  id: number;
  /** `funding/<id>`, `payment/<id>`, `<base>/revision/<n>`, `<base>/reversal/<n>` (domain/lending/ledger.ts). */
  transactionRef: string;
  /** Code of the tenant's chart (domain/lending/ledger.ts `accountCodes`). */
  accountCode: string;
  /** ISO date: value date of the money event. */
  entryDate: string;
  /** Decimal strings with the currency's digits; exactly one is above zero. */
  debit: string;
  credit: string;
  currency: string;
  /** The line this one reverses, null for a posting line. */
  reversesEntryId: number | null;
  /** ISO 8601 instant (UTC) it was appended. */
  createdAt: string;
}

/**
 * The tenant's journal lines in the order they were appended, optionally of one loan and/or of one merchant advance
 * (`advanceId`: the lines whose ref is `merchant-advance/<advanceId>` or starts with `merchant-advance/<advanceId>/`,
 * domain/lending/merchant-advance.ts): `{totalFilteredRecords, pageItems}` (docs/design.md §4 Paging: journal-entry lists
 * report a total), or null when `loanId` or `advanceId` is given and the tenant has no such loan or advance.
 */
export async function listJournalEntries(
  db: Db,
  tenantId: string,
  filter: { loanId?: number | undefined; advanceId?: string | undefined; limit: number; offset: number },
): Promise<{ totalFilteredRecords: number; pageItems: JournalEntryView[] } | null> {
  const advanceRef = filter.advanceId === undefined ? undefined : advanceTransactionRef(filter.advanceId);
  const where = and(
    eq(journalEntries.tenantId, tenantId),
    filter.loanId === undefined ? undefined : eq(journalEntries.loanId, filter.loanId),
    advanceRef === undefined
      ? undefined
      : or(
          eq(journalEntries.transactionRef, advanceRef),
          sql`starts_with(${journalEntries.transactionRef}, ${`${advanceRef}/`})`,
        ),
  );
  const [loanRef, advance, total, rows] = await withTenantTransaction(db, tenantId, (tx) =>
    Promise.all([
      filter.loanId === undefined ? Promise.resolve('') : loanRefOf(tx, tenantId, filter.loanId),
      filter.advanceId === undefined
        ? Promise.resolve(true)
        : merchantAdvanceRowOf(tx, tenantId, filter.advanceId).then((row) => row !== undefined),
      tx.select({ n: count() }).from(journalEntries).where(where),
      tx
        .select()
        .from(journalEntries)
        .where(where)
        .orderBy(asc(journalEntries.id))
        .limit(filter.limit)
        .offset(filter.offset),
    ]),
  );
  if (!advance) return null;
  if (loanRef === null) return null;
  return {
    totalFilteredRecords: total[0]?.n ?? 0,
    pageItems: rows.map((row) => ({
      id: row.id,
      transactionRef: row.transactionRef,
      accountCode: row.accountCode,
      entryDate: row.entryDate,
      debit: moneyText(row.debit, row.currencyCode),
      credit: moneyText(row.credit, row.currencyCode),
      currency: row.currencyCode,
      reversesEntryId: row.reversesEntryId,
      createdAt: row.createdAt.toISOString(),
    })),
  };
}

/** Amounts by component, decimal strings with the currency's digits. */
export interface ComponentAmountsView {
  principal: string;
  interest: string;
  fee: string;
  penalty: string;
  total: string;
}

/** A restriction in force on the loan (the borrower's customer-wide ones and those of this loan). */
export interface SummaryRestrictionView {
  restrictionId: number;
  restrictionType: string;
  /** The loan it is limited to, null when it covers every loan of the borrower. */
  loanId: number | null;
  reason: string;
  /** ISO 8601 instants (UTC). */
  effectiveAt: string;
  expiresAt: string | null;
}

/** `GET /v1/loans/{loanId}/summary`: balances, overdue, payoff, APR disclosure and restrictions in one response. */
export interface LoanSummaryView {
  loanId: number;
  loanRef: string;
  /** Fineract's form, e.g. `{id: 300, code: "loanStatusType.active", value: "Active"}`. */
  status: LoanStatusView;
  currency: string;
  /** ISO date the figures are as of (end of that day: money events value-dated after it are left out). */
  asOfDate: string;
  /** Outstanding: principal disbursed and not repaid; scheduled interest, fees, penalties not paid nor waived. */
  balances: {
    principalOutstanding: string;
    interestOutstanding: string;
    feeOutstanding: string;
    penaltyOutstanding: string;
    totalOutstanding: string;
    /** Overpayments held for the borrower (a liability; not netted from the figures above). */
    overpayment: string;
  };
  /** Unpaid components of installments due before `asOfDate`. */
  overdue: ComponentAmountsView & {
    /** Due date of the oldest installment with something overdue, null when nothing is. */
    oldestOverdueDueDate: string | null;
    /** Calendar days from `oldestOverdueDueDate` to `asOfDate`, 0 when nothing is overdue. */
    daysPastDue: number;
  };
  /**
   * What pays the loan off on `asOfDate` (domain/lending/allocation/summary.ts `outstandingSummary`, payoff rule): outstanding
   * principal, the unpaid interest, fees and penalties of installments due on or before it, and the interest of
   * the period that contains it accrued to it, less what is paid of it. Paying it on `asOfDate` closes the loan.
   */
  payoff: ComponentAmountsView & {
    asOfDate: string;
    /** The installment whose period strictly contains `asOfDate`, null when none does. */
    currentInstallmentNumber: number | null;
    currentPeriodInterest: string;
  };
  /**
   * Payment intents in flight (CREATED or SUBMITTED): their count and sum (decimal string). Not in the
   * balances, which are posted money only.
   */
  paymentsInFlight: { count: number; amount: string };
  /** The Regulation Z §1026.18 disclosure frozen at approval (docs/design.md §5 APR), null before approval. */
  aprDisclosure: Record<string, unknown> | null;
  /** Restrictions in force now, oldest first. */
  activeRestrictions: SummaryRestrictionView[];
  /** Derived as of `asOfDate` (docs/lending.md "Delinquency"). */
  delinquent: LoanDelinquencyFields['delinquent'];
  /** The stored classification (null before a close-of-business run set one). */
  delinquencyRange: LoanDelinquencyFields['delinquencyRange'];
  /** ISO date of the last day a close-of-business run closed for the loan, null before the first. */
  lastClosedBusinessDate: string | null;
  chargedOff: boolean;
  chargedOffOnDate: string | null;
}

/**
 * One installment as `loan_summary_projections.installments` stores it (migration
 * `read_compact_installments_in_loan_summary`): `[installmentNumber, fromDate, dueDate, principalDue, interestDue,
 * feeChargesDue, penaltyChargesDue, principalPaid, interestPaid, feeChargesPaid, penaltyChargesPaid, interestWaived,
 * feeChargesWaived, penaltyChargesWaived]`, the dates ISO, the amounts decimal strings at the currency's
 * scale (the `loan_installments` columns as text).
 */
export type CompactInstallment = [
  number,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];

/**
 * A compact stored installment as the summary's posted state (domain/lending/allocation/summary.ts
 * `summaryFromPostedState`): its number and dates, and its due, paid and waived amounts in minor units of
 * `currency` (ISO 4217). Throws as `minorOf` does on an amount finer than the currency's minor unit.
 */
export function postedInstallmentOf(i: CompactInstallment, currency: string) {
  return {
    installmentNumber: i[0],
    fromDate: i[1],
    dueDate: i[2],
    principalDueMinor: minorOf(i[3], currency),
    interestDueMinor: minorOf(i[4], currency),
    feeDueMinor: minorOf(i[5], currency),
    penaltyDueMinor: minorOf(i[6], currency),
    principalPaidMinor: minorOf(i[7], currency),
    interestPaidMinor: minorOf(i[8], currency),
    feePaidMinor: minorOf(i[9], currency),
    penaltyPaidMinor: minorOf(i[10], currency),
    interestWaivedMinor: minorOf(i[11], currency),
    feeWaivedMinor: minorOf(i[12], currency),
    penaltyWaivedMinor: minorOf(i[13], currency),
  };
}

/** A compact stored installment's schedule part (number, dates, dues as decimal strings), as the replay reads it. */
function storedInstallmentOf(i: CompactInstallment): StoredInstallment {
  return {
    installmentNumber: i[0],
    fromDate: i[1],
    dueDate: i[2],
    principalDue: i[3],
    interestDue: i[4],
    feeChargesDue: i[5],
    penaltyChargesDue: i[6],
  };
}

interface SummaryRow extends Record<string, unknown> {
  id: number;
  account_no: string;
  status: LoanStatus;
  currency_code: string;
  strategy_code: string;
  apr_disclosure: Record<string, unknown> | null;
  payment_allocation: unknown[] | null;
  /**
   * The projection's installments in its compact shape (migration `read_compact_installments_in_loan_summary`):
   * one array per installment, by installment number.
   */
  installments: CompactInstallment[];
  /** The stored allocation state answers `asOfDate` (no event after it, every posted payment allocated). */
  state_current: boolean;
  /** Σ fundings (decimal text), their count, Σ overpayments of the posted payments (decimal text). */
  disbursed: string;
  disbursement_count: number;
  overpayment: string;
  in_flight_count: number;
  in_flight_amount: string;
  /** Σ principal forgiven by hardship reliefs, minor units (decimal text of an integer; migration 0045). */
  principal_forgiven: string;
  restrictions: {
    restrictionId: number;
    restrictionType: string;
    loanId: number | null;
    reason: string;
    effectiveAt: string;
    expiresAt: string | null;
  }[];
  /** The stored close-of-business columns (migration 0060). */
  delinquency_range_id: number | string | null;
  last_closed_business_date: string | null;
  charged_off: boolean;
  charged_off_on_date: string | null;
  /** The last POSTED payment value-dated on or before `asOfDate`, or null. */
  last_payment: { valueDate: string; amount: string } | null;
  /** The stored terms' `delinquency` object, null when absent (migration `read_delinquency_in_loan_summary`). */
  delinquency_terms: Record<string, unknown> | null;
  /**
   * The ranges of the bucket those settings name, by minimum age then id; `[]` when none (migration
   * `read_delinquency_in_loan_summary`).
   */
  delinquency_ranges: DelinquencyRangeDefinition[];
  /** The loan's delinquency actions, oldest first (migration `read_delinquency_in_loan_summary`). */
  delinquency_actions: DelinquencyActionRecord[];
  /** The stored installment-level tags, null when none (migration `add_installment_delinquency_tags`). */
  installment_delinquency_tags: InstallmentDelinquencyTag[] | null;
}

/**
 * The loan summary as of `asOfDate` (ISO date), or null when the tenant has no loan `loanId`. ONE statement, one
 * round trip: `read_loan_summary_as_tenant` (migration 0019) sets the same transaction-local role and tenant as
 * db/tenant-tx.ts and reads, under row-level security, the loan with its product's allocation rules, its row of
 * `loan_summary_projections` (installments with the paid and waived amounts the last posting stored, the sums of
 * its fundings and overpayments, the last value dates; kept by triggers, migration 0018) and the restrictions in
 * force at `at` (status ACTIVE, not expired, customer-wide or on this loan). When no money event is value-dated
 * after `asOfDate`, the figures come from that stored state (domain/lending/allocation/summary.ts `summaryFromPostedState`);
 * otherwise a second read returns the installments, fundings and posted payments from the raw tables in one
 * snapshot and the figures are their replay up to `asOfDate` (`outstandingSummary`, the replay the operations
 * post from). Both give the same figures to the minor unit; `mode: 'replay'` forces the replay (tests compare the
 * two). `delinquent` is derived as of `asOfDate` from the same installments (domain/lending/delinquency.ts, with the
 * loan's delinquency settings, its bucket's ranges, its delinquency actions (as pauses) and the last posted payment
 * on or before it, all of which the statement also returns: migration `read_delinquency_in_loan_summary`);
 * `delinquencyRange`, `lastClosedBusinessDate`, `chargedOff` and `chargedOffOnDate` are the loan's stored columns.
 * Amounts are decimal strings at the currency's minor unit.
 * Errors: PostgreSQL's, unchanged.
 */
export async function getLoanSummary(
  db: Db,
  tenantId: string,
  loanId: number,
  asOfDate: string,
  at: Date,
  mode: 'auto' | 'replay' = 'auto',
): Promise<LoanSummaryView | null> {
  // ONE statement (migration 0019 read_loan_summary_as_tenant: the tenant context and primary-key reads of the loan
  // and its loan_summary_projections row): the summary is the most polled read. A statement of its own
  // on the pool, so its implicit transaction ends with it.
  const rows = await db.$client<SummaryRow[]>`
    select * from read_loan_summary_as_tenant(${tenantId}, ${loanId}, ${asOfDate}, ${at.toISOString()}, ${mode === 'replay'})`;
  const row = rows[0];
  if (!row) return null;
  const currency = row.currency_code;
  const digits = minorUnitDigits(currency);
  const text = (minor: bigint) => formatMinor(minor, digits);
  const zero = text(0n);

  let figures: ReturnType<typeof outstandingSummary> | null = null;
  let installmentStates: Parameters<typeof delinquencyInstallmentsOf>[0] = [];
  if (row.installments.length > 0 && row.state_current) {
    // No event after asOfDate: the state the last posting stored IS the replay's (domain/lending/allocation/
    // summaryFromPostedState), so the events are not replayed on every read.
    const posted = row.installments.map((i) => postedInstallmentOf(i, currency));
    installmentStates = posted;
    figures = summaryFromPostedState(
      {
        currency,
        installments: posted,
        disbursedMinor: minorOf(row.disbursed, currency),
        disbursementCount: row.disbursement_count,
        overpaymentMinor: minorOf(row.overpayment, currency),
        principalForgivenMinor: BigInt(row.principal_forgiven),
      },
      asOfDate,
    );
  } else if (row.installments.length > 0) {
    // An as-of date before the loan's last money event (or `mode: 'replay'`): replay the events up to it. The
    // installments are read again from loan_installments beside the events, so all come from one snapshot and
    // the replay owes nothing to the projection (tests compare the two modes).
    const [events] = await readAsTenant<{
      installments: StoredInstallment[];
      fundings: StoredMoneyEvent[];
      payments: StoredMoneyEvent[];
      forgiveness: StoredPrincipalForgiveness[];
      charges: StoredLoanCharge[];
    }>(
      db,
      tenantId,
      sql`
        select coalesce((select json_agg(json_build_object(
                           'installmentNumber', i.installment_number, 'fromDate', i.from_date::text,
                           'dueDate', i.due_date::text, 'principalDue', i.principal_due::text,
                           'interestDue', i.interest_due::text, 'feeChargesDue', i.fee_charges_due::text,
                           'penaltyChargesDue', i.penalty_charges_due::text) order by i.installment_number)
                           from loan_installments i
                          where i.tenant_id = ${tenantId} and i.loan_id = ${loanId}), '[]'::json) as installments,
               coalesce((select json_agg(json_build_object(
                           'id', f.id, 'valueDate', f.funding_date::text, 'amount', f.amount::text))
                           from fundings f
                          where f.tenant_id = ${tenantId} and f.loan_id = ${loanId}), '[]'::json) as fundings,
               coalesce((select json_agg(json_build_object(
                           'id', pm.id, 'valueDate', pm.effective_date::text, 'amount', pm.amount::text,
                           'recordedAt', pm.created_at))
                           from payments pm
                          where pm.tenant_id = ${tenantId} and pm.loan_id = ${loanId}
                            and pm.status = 'POSTED'), '[]'::json) as payments,
               coalesce((select json_agg(json_build_object(
                           'id', v.id, 'valueDate', v.as_of_date::text,
                           'amountMinor', v.principal_forgiven_minor::text) order by v.id)
                           from loan_schedule_versions v
                          where v.tenant_id = ${tenantId} and v.loan_id = ${loanId}
                            and v.principal_forgiven_minor > 0), '[]'::json) as forgiveness,
               coalesce((select json_agg(json_build_object(
                           'id', c.id, 'installmentNumber', c.installment_number, 'penalty', c.penalty,
                           'dueDate', c.due_date::text, 'amount', c.amount::text,
                           'waiverAmount', c.waiver_amount::text, 'waivedOnDate', c.waived_on_date::text,
                           'submittedOnDate', c.submitted_on_date::text, 'recordedAt', c.created_at)
                           order by c.id)
                           from loan_charges c
                          where c.tenant_id = ${tenantId} and c.loan_id = ${loanId}), '[]'::json) as charges`,
    );
    const input = allocationInputOf({
      currency,
      installments: events?.installments ?? row.installments.map(storedInstallmentOf),
      fundings: events?.fundings ?? [],
      payments: events?.payments ?? [],
      principalForgiveness: events?.forgiveness ?? [],
      loanCharges: events?.charges ?? [],
      strategy: allocationStrategyOf(row.strategy_code, row.payment_allocation),
    });
    figures = outstandingSummary(input, asOfDate);
    if ((events?.fundings.length ?? 0) > 0) installmentStates = installmentStatesAsOf(input, asOfDate);
  }
  // Delinquency as of asOfDate (docs/lending.md "Delinquency"): from the installments the figures above read.
  // The loan's delinquency settings (its terms, its bucket's ranges) and actions came with the summary's statement
  // (migration `read_delinquency_in_loan_summary`), the same values readDelinquencySettings and
  // readDelinquencyPauses read.
  const settings = delinquencySettingsOf(
    storedDelinquencySettingsOf({ delinquency: row.delinquency_terms }),
    row.delinquency_ranges,
  );
  const pauses = delinquencyPausesOf(row.delinquency_actions);
  const owed = delinquencyInstallmentsOf(installmentStates);
  const { derived: _derived, ...delinquency } = loanDelinquencyFields({
    currency,
    asOfDate,
    loanStatus: loanStatusAsOf(row.status, owed),
    installments: owed,
    lastPayment: row.last_payment
      ? { valueDate: row.last_payment.valueDate, amountMinor: minorOf(row.last_payment.amount, currency) }
      : null,
    settings,
    pauses,
    stored: {
      delinquencyRangeId: row.delinquency_range_id === null ? null : Number(row.delinquency_range_id),
      lastClosedBusinessDate: row.last_closed_business_date,
      chargedOff: row.charged_off,
      chargedOffOnDate: row.charged_off_on_date,
      installmentDelinquencyTags: row.installment_delinquency_tags,
    },
  });
  const components = (
    amounts:
      | {
          principalMinor: bigint;
          interestMinor: bigint;
          feeMinor: bigint;
          penaltyMinor: bigint;
          totalMinor: bigint;
        }
      | undefined,
  ): ComponentAmountsView => ({
    principal: amounts ? text(amounts.principalMinor) : zero,
    interest: amounts ? text(amounts.interestMinor) : zero,
    fee: amounts ? text(amounts.feeMinor) : zero,
    penalty: amounts ? text(amounts.penaltyMinor) : zero,
    total: amounts ? text(amounts.totalMinor) : zero,
  });
  const outstanding = components(figures?.outstanding);
  return {
    loanId: Number(row.id),
    loanRef: row.account_no,
    status: loanStatusView(row.status),
    currency,
    asOfDate,
    balances: {
      principalOutstanding: outstanding.principal,
      interestOutstanding: outstanding.interest,
      feeOutstanding: outstanding.fee,
      penaltyOutstanding: outstanding.penalty,
      totalOutstanding: outstanding.total,
      overpayment: figures ? text(figures.overpaymentMinor) : zero,
    },
    overdue: {
      ...components(figures?.overdue),
      oldestOverdueDueDate: figures?.overdue.oldestOverdueDueDate ?? null,
      daysPastDue: figures?.overdue.daysPastDue ?? 0,
    },
    payoff: {
      asOfDate,
      ...components(figures?.payoff),
      currentInstallmentNumber: figures?.payoff.currentInstallmentNumber ?? null,
      currentPeriodInterest: figures ? text(figures.payoff.currentPeriodInterestMinor) : zero,
    },
    paymentsInFlight: { count: row.in_flight_count, amount: text(minorOf(row.in_flight_amount, currency)) },
    aprDisclosure: row.apr_disclosure ?? null,
    activeRestrictions: row.restrictions.map((r) => ({
      restrictionId: Number(r.restrictionId),
      restrictionType: r.restrictionType,
      loanId: r.loanId === null ? null : Number(r.loanId),
      reason: r.reason,
      effectiveAt: new Date(r.effectiveAt).toISOString(),
      expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt).toISOString(),
    })),
    ...delinquency,
  };
}
