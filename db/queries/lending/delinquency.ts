/**
 * Reads of a loan's delinquency (docs/lending.md "Delinquency"): the product's delinquency settings and the loan's
 * pause periods that the derivation (domain/lending/delinquency.ts) takes, the stored classification as the reads
 * show it, and `GET /v1/loans/{loanId}/delinquency-history`. Tenant-scoped reads under row-level security.
 */
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { defaultComplianceTimeZone } from '../../../domain/deadlines';
import { installmentStatesAsOf } from '../../../domain/lending/allocation/summary';
import { fixDecimalText } from '../../../domain/lending/decimal-text';
import {
  type DelinquencyPause,
  type DelinquencyRangeDefinition,
  type DelinquencyResult,
  type DelinquentView,
  delinquencyInstallmentsOf,
  deriveDelinquency,
  type InstallmentDelinquencyTag,
  installmentLevelOf,
  loanStatusAsOf,
} from '../../../domain/lending/delinquency';
import { type DelinquencyActionRecord, effectivePauses } from '../../../domain/lending/delinquency-actions';
import {
  defaultDelinquencySettings,
  type DelinquencySettings as StoredDelinquencySettings,
} from '../../../domain/lending/delinquency-ranges';
import {
  allocationInputOf,
  allocationStrategyOf,
  minorOf,
  type StoredInstallment,
  type StoredLoanCharge,
  type StoredMoneyEvent,
  type StoredPrincipalForgiveness,
} from '../../../domain/lending/loan-allocation';
import type { LoanStatus } from '../../../domain/lending/loan-status';
import { minorUnitDigits } from '../../../domain/money';
import { localDate } from '../../../domain/time-zone';
import type { Db } from '../../client';
import { loanDelinquencyHistory, loans, tenants } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';
import { readDelinquencyActions, readDelinquencyBucket } from './delinquency-configuration';

/** What a loan's product says about delinquency (Fineract's loan product fields). */
export interface DelinquencySettings {
  /** `graceOnArrearsAgeing`, days ≥ 0 (Fineract's default 0). */
  graceOnArrearsAgeingDays: number;
  /** The ranges of the product's `delinquencyBucketId`; empty when it has no bucket. */
  ranges: DelinquencyRangeDefinition[];
  /** `enableInstallmentLevelDelinquency` (default false). */
  enableInstallmentLevelDelinquency: boolean;
}

/**
 * The delinquency settings of loan `loanId`: its stored terms' `delinquency` (the product's settings copied at
 * creation; terms stored before them have none and read as `defaultDelinquencySettings`,
 * domain/lending/delinquency-ranges.ts) give the grace, the installment-level flag and the bucket, whose ranges come
 * from the tenant's delinquency configuration (db/queries/lending/delinquency-configuration.ts). A bucket the
 * tenant no longer has reads as no ranges. In `tx` (the caller's read transaction) or, when null, in a tenant read
 * transaction of its own on `db`. Errors: PostgreSQL's, unchanged.
 */
export async function readDelinquencySettings(
  tx: Tx | null,
  tenantId: string,
  loanId: number,
  db?: Db,
): Promise<DelinquencySettings> {
  return inTenantTx(tx, db, tenantId, async (t) => {
    const [row] = await t
      .select({ terms: loans.terms })
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
    const stored = storedDelinquencySettingsOf(row?.terms ?? null);
    const bucket =
      stored.delinquencyBucketId === null
        ? null
        : await readDelinquencyBucket(t, tenantId, stored.delinquencyBucketId);
    return delinquencySettingsOf(stored, bucket?.ranges ?? []);
  });
}

/**
 * The delinquency settings from a loan's stored settings (`storedDelinquencySettingsOf`) and the ranges of the
 * bucket they name (`[]` when none or when the tenant has no such bucket), ranges as given (the reads give them by
 * minimum age, then id). Pure; what `readDelinquencySettings` and the loan summary's one-statement read
 * (db/queries/lending/ledger.ts `getLoanSummary`) both return.
 */
export function delinquencySettingsOf(
  stored: StoredDelinquencySettings,
  bucketRanges: readonly DelinquencyRangeDefinition[],
): DelinquencySettings {
  return {
    graceOnArrearsAgeingDays: stored.graceOnArrearsAgeing,
    ranges: bucketRanges.map((range) => ({
      id: Number(range.id),
      classification: range.classification,
      minimumAgeDays: range.minimumAgeDays,
      maximumAgeDays: range.maximumAgeDays,
    })),
    enableInstallmentLevelDelinquency: stored.enableInstallmentLevelDelinquency,
  };
}

/**
 * The delinquency settings a loan's stored terms carry under `delinquency`, each field its default when absent
 * (terms stored before the settings existed have no such key).
 */
export function storedDelinquencySettingsOf(
  terms: Record<string, unknown> | null,
): StoredDelinquencySettings {
  const value = terms?.delinquency;
  if (value === null || typeof value !== 'object') return defaultDelinquencySettings;
  return { ...defaultDelinquencySettings, ...(value as Partial<StoredDelinquencySettings>) };
}

/**
 * The pause periods of loan `loanId` by start: its delinquency actions' effective pauses (a resumed pause ending
 * on the resume's date; domain/lending/delinquency-actions.ts `effectivePauses`). In `tx` or, when null, in a
 * tenant read transaction of its own on `db`. Errors: PostgreSQL's, unchanged.
 */
export async function readDelinquencyPauses(
  tx: Tx | null,
  tenantId: string,
  loanId: number,
  db?: Db,
): Promise<DelinquencyPause[]> {
  return inTenantTx(tx, db, tenantId, async (t) => {
    return delinquencyPausesOf(await readDelinquencyActions(t, tenantId, loanId));
  });
}

/**
 * The pause periods by start of a loan's delinquency actions given oldest first (`effectivePauses`). Pure; what
 * `readDelinquencyPauses` and the loan summary's one-statement read both return.
 */
export function delinquencyPausesOf(actions: readonly DelinquencyActionRecord[]): DelinquencyPause[] {
  return effectivePauses(actions).sort((a, b) =>
    a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : 0,
  );
}

async function inTenantTx<T>(
  tx: Tx | null,
  db: Db | undefined,
  tenantId: string,
  run: (tx: Tx) => Promise<T>,
) {
  if (tx) return run(tx);
  if (!db) throw new Error('a delinquency read needs a transaction or a database');
  return withTenantTransaction(db, tenantId, run);
}

/** The `delinquencyRange` a read shows: the stored range among the bucket's ranges, null when none is stored. */
export function storedDelinquencyRangeOf(
  rangeId: number | null,
  settings: DelinquencySettings,
): DelinquencyRangeDefinition | null {
  if (rangeId === null) return null;
  return settings.ranges.find((range) => range.id === rangeId) ?? null;
}

/** The delinquency fields the loan read and the summary carry at their top level. */
export interface LoanDelinquencyFields {
  delinquent: DelinquentView;
  delinquencyRange: DelinquencyRangeDefinition | null;
  lastClosedBusinessDate: string | null;
  chargedOff: boolean;
  chargedOffOnDate: string | null;
}

/**
 * The delinquency fields of a loan from its stored columns and the derivation as of `asOfDate` (ISO date) of
 * its installments' outstanding amounts (domain/lending/delinquency.ts `deriveDelinquency`).
 */
export function loanDelinquencyFields(input: {
  currency: string;
  asOfDate: string;
  loanStatus: LoanStatus;
  installments: Parameters<typeof deriveDelinquency>[0]['installments'];
  lastPayment: { valueDate: string; amountMinor: bigint } | null;
  settings: DelinquencySettings;
  pauses: DelinquencyPause[];
  stored: {
    delinquencyRangeId: number | null;
    lastClosedBusinessDate: string | null;
    chargedOff: boolean;
    chargedOffOnDate: string | null;
    /** `loans.installment_delinquency_tags` (null: none stored). */
    installmentDelinquencyTags: readonly InstallmentDelinquencyTag[] | null;
  };
}): LoanDelinquencyFields & { derived: DelinquencyResult } {
  const derived = deriveDelinquency({
    currency: input.currency,
    asOfDate: input.asOfDate,
    loanStatus: input.loanStatus,
    installments: input.installments,
    graceOnArrearsAgeingDays: input.settings.graceOnArrearsAgeingDays,
    ranges: input.settings.ranges,
    pausePeriods: input.pauses,
    enableInstallmentLevelDelinquency: input.settings.enableInstallmentLevelDelinquency,
    lastPayment: input.lastPayment,
  });
  // Installment-level delinquency is a stored tag like the classification (Fineract reads its
  // `m_loan_installment_delinquency_tag` rows): the tags the last step or money operation set, shown while the
  // loan-level delinquent days are above 0.
  const delinquent: DelinquentView = {
    ...derived.delinquent,
    installmentLevelDelinquency:
      input.settings.enableInstallmentLevelDelinquency && derived.delinquent.delinquentDays > 0
        ? installmentLevelOf(
            input.stored.installmentDelinquencyTags ?? [],
            input.settings.ranges,
            input.currency,
          )
        : [],
  };
  return {
    derived,
    delinquent,
    delinquencyRange: storedDelinquencyRangeOf(input.stored.delinquencyRangeId, input.settings),
    lastClosedBusinessDate: input.stored.lastClosedBusinessDate,
    chargedOff: input.stored.chargedOff,
    chargedOffOnDate: input.stored.chargedOffOnDate,
  };
}

/** One row of `GET /v1/loans/{loanId}/delinquency-history`; amounts with the loan currency's digits. */
export interface DelinquencyHistoryItemView {
  businessDate: string;
  classification: string;
  previousClassification: string;
  delinquentDays: number;
  delinquentAmount: string;
  collectionsCaseId: number | null;
  collectionsSuppressedBy: string | null;
}

/**
 * A page of loan `loanId`'s delinquency history, newest first (by row id, the order the runs stored them):
 * `limit + 1` rows after `beforeId` (null = from the newest), so the caller knows whether more follow. Each row
 * carries its `rowId` for the cursor. Null when the tenant has no such loan. One read transaction.
 */
export async function listLoanDelinquencyHistory(
  db: Db,
  tenantId: string,
  loanId: number,
  page: { beforeId: number | null; limit: number },
): Promise<(DelinquencyHistoryItemView & { rowId: number })[] | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [loan] = await tx
      .select({ currencyCode: loans.currencyCode })
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
    if (!loan) return null;
    const digits = minorUnitDigits(loan.currencyCode);
    const h = loanDelinquencyHistory;
    const rows = await tx
      .select()
      .from(h)
      .where(
        and(
          eq(h.tenantId, tenantId),
          eq(h.loanId, loanId),
          page.beforeId === null ? undefined : lt(h.id, page.beforeId),
        ),
      )
      .orderBy(desc(h.id))
      .limit(page.limit + 1);
    return rows.map((row) => ({
      rowId: row.id,
      businessDate: row.businessDate,
      classification: row.classification,
      previousClassification: row.previousClassification,
      delinquentDays: row.delinquentDays,
      delinquentAmount: fixDecimalText(row.delinquentAmount, digits),
      collectionsCaseId: row.collectionsCaseId,
      collectionsSuppressedBy: row.collectionsSuppressedBy,
    }));
  });
}

/** Today in the tenant's compliance time zone (docs/design.md §5 "Deadlines"; the default zone when it has none). */
export async function tenantToday(tx: Tx, tenantId: string, now: Date): Promise<string> {
  const [row] = await tx
    .select({ zone: tenants.complianceTimeZone })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return localDate(now.getTime(), row?.zone ?? defaultComplianceTimeZone);
}

/**
 * The delinquency fields of a loan read (`GET /v1/loans/{loanId}`) as of `asOfDate`: its installments, posted
 * fundings and payments, added charges and principal forgiven are read in `tx` (one statement) and replayed up to
 * `asOfDate` (domain/lending/allocation/summary.ts `installmentStatesAsOf`, the replay the operations post from), so
 * a payment value-dated after it does not count. `loan` is the loan's row.
 */
export async function readLoanDelinquencyFields(
  tx: Tx,
  tenantId: string,
  loan: typeof loans.$inferSelect,
  asOfDate: string,
): Promise<LoanDelinquencyFields> {
  const settings = await readDelinquencySettings(tx, tenantId, loan.id);
  const pauses = await readDelinquencyPauses(tx, tenantId, loan.id);
  const stored = {
    delinquencyRangeId: loan.delinquencyRangeId,
    lastClosedBusinessDate: loan.lastClosedBusinessDate,
    chargedOff: loan.chargedOff,
    chargedOffOnDate: loan.chargedOffOnDate,
    installmentDelinquencyTags: loan.installmentDelinquencyTags ?? null,
  };
  const base = {
    currency: loan.currencyCode,
    asOfDate,
    loanStatus: loan.status as LoanStatus,
    settings,
    pauses,
    stored,
  };
  if (loan.status === 'SUBMITTED' || loan.status === 'APPROVED') {
    const { derived: _derived, ...fields } = loanDelinquencyFields({
      ...base,
      installments: [],
      lastPayment: null,
    });
    return fields;
  }
  const posted = await readLoanPostedState(tx, tenantId, loan);
  const states = installmentStatesOfPostedState(posted, loan, asOfDate);
  const payments = posted.payments;
  const last = payments
    .filter((p) => p.valueDate <= asOfDate)
    .sort((a, b) =>
      a.valueDate === b.valueDate ? Number(a.id) - Number(b.id) : a.valueDate < b.valueDate ? -1 : 1,
    )
    .at(-1);
  const owed = delinquencyInstallmentsOf(states);
  const { derived: _derived, ...fields } = loanDelinquencyFields({
    ...base,
    loanStatus: loanStatusAsOf(base.loanStatus, owed),
    installments: owed,
    lastPayment: last
      ? { valueDate: last.valueDate, amountMinor: minorOf(last.amount, loan.currencyCode) }
      : null,
  });
  return fields;
}

/** A loan's posted state as one statement reads it (the input of the allocation replay, plus its pauses). */
export interface LoanPostedState {
  installments: StoredInstallment[];
  fundings: StoredMoneyEvent[];
  /** POSTED payments. */
  payments: StoredMoneyEvent[];
  forgiveness: StoredPrincipalForgiveness[];
  /** The charges added to the loan, each with its definition's `chargeId`. */
  charges: (StoredLoanCharge & { chargeId: number })[];
  /** The product's advanced allocation rules (stored JSON), or null. */
  paymentAllocation: unknown;
  /** The loan's delinquency actions, oldest first. */
  actions: DelinquencyActionRecord[];
}

/**
 * The posted state of loan `loan.id` in ONE statement in `tx`: its installments, posted fundings and payments,
 * principal forgiven, added charges, its product's allocation rules and its delinquency actions (`productId`
 * null: the loan's product, looked up in the statement). The loan read's delinquency and the close of business's
 * loan step both replay from it. Errors: PostgreSQL's, unchanged.
 */
export async function readLoanPostedState(
  tx: Tx,
  tenantId: string,
  loan: { id: number; productId: number | null },
): Promise<LoanPostedState> {
  const [row] = (await tx.execute(sql`
    select coalesce((select json_agg(json_build_object(
                       'installmentNumber', i.installment_number, 'fromDate', i.from_date::text,
                       'dueDate', i.due_date::text, 'principalDue', i.principal_due::text,
                       'interestDue', i.interest_due::text, 'feeChargesDue', i.fee_charges_due::text,
                       'penaltyChargesDue', i.penalty_charges_due::text) order by i.installment_number)
                       from loan_installments i
                      where i.tenant_id = ${tenantId} and i.loan_id = ${loan.id}), '[]'::json) as installments,
           coalesce((select json_agg(json_build_object(
                       'id', f.id, 'valueDate', f.funding_date::text, 'amount', f.amount::text))
                       from fundings f
                      where f.tenant_id = ${tenantId} and f.loan_id = ${loan.id}), '[]'::json) as fundings,
           coalesce((select json_agg(json_build_object(
                       'id', pm.id, 'valueDate', pm.effective_date::text, 'amount', pm.amount::text,
                           'recordedAt', pm.created_at))
                       from payments pm
                      where pm.tenant_id = ${tenantId} and pm.loan_id = ${loan.id}
                        and pm.status = 'POSTED'), '[]'::json) as payments,
           coalesce((select json_agg(json_build_object(
                       'id', v.id, 'valueDate', v.as_of_date::text,
                       'amountMinor', v.principal_forgiven_minor::text) order by v.id)
                       from loan_schedule_versions v
                      where v.tenant_id = ${tenantId} and v.loan_id = ${loan.id}
                        and v.principal_forgiven_minor > 0), '[]'::json) as forgiveness,
           coalesce((select json_agg(json_build_object(
                       'id', c.id, 'chargeId', c.charge_id, 'installmentNumber', c.installment_number,
                       'penalty', c.penalty, 'dueDate', c.due_date::text, 'amount', c.amount::text,
                       'waiverAmount', c.waiver_amount::text, 'waivedOnDate', c.waived_on_date::text,
                           'submittedOnDate', c.submitted_on_date::text, 'recordedAt', c.created_at)
                       order by c.id)
                       from loan_charges c
                      where c.tenant_id = ${tenantId} and c.loan_id = ${loan.id}), '[]'::json) as charges,
           coalesce((select json_agg(json_build_object(
                       'action', a.action, 'startDate', a.start_date::text, 'endDate', a.end_date::text)
                       order by a.id)
                       from loan_delinquency_actions a
                      where a.tenant_id = ${tenantId} and a.loan_id = ${loan.id}), '[]'::json) as actions,
           (select p.payment_allocation from loan_products p
             where p.tenant_id = ${tenantId}
               and p.id = ${loan.productId ?? sql`(select l.product_id from loans l where l.tenant_id = ${tenantId} and l.id = ${loan.id})`}) as payment_allocation`)) as unknown as {
    installments: StoredInstallment[];
    fundings: StoredMoneyEvent[];
    payments: StoredMoneyEvent[];
    forgiveness: StoredPrincipalForgiveness[];
    charges: (StoredLoanCharge & { chargeId: number })[];
    actions: DelinquencyActionRecord[];
    payment_allocation: unknown;
  }[];
  return {
    installments: row?.installments ?? [],
    fundings: row?.fundings ?? [],
    payments: row?.payments ?? [],
    forgiveness: row?.forgiveness ?? [],
    charges: row?.charges ?? [],
    paymentAllocation: row?.payment_allocation ?? null,
    actions: row?.actions ?? [],
  };
}

/**
 * The installments of a posted state replayed up to `asOfDate` (ISO date; domain/lending/allocation/summary.ts
 * `installmentStatesAsOf`, the replay the operations post from): what each has due, paid and waived then. Empty
 * before the first funding. Errors: the replay's RangeError for a stored state it cannot replay.
 */
export function installmentStatesOfPostedState(
  posted: LoanPostedState,
  loan: { currencyCode: string; transactionProcessingStrategyCode: string },
  asOfDate: string,
): ReturnType<typeof installmentStatesAsOf> {
  if (posted.installments.length === 0 || posted.fundings.length === 0) return [];
  return installmentStatesAsOf(
    allocationInputOf({
      currency: loan.currencyCode,
      installments: posted.installments,
      fundings: posted.fundings,
      payments: posted.payments,
      principalForgiveness: posted.forgiveness,
      loanCharges: posted.charges,
      strategy: allocationStrategyOf(loan.transactionProcessingStrategyCode, posted.paymentAllocation),
    }),
    asOfDate,
  );
}
