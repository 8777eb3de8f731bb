/**
 * Reads of a loan's close-of-business step (docs/lending.md "Close of business"): the tenant-level context read
 * once per chunk of loans (settings, delinquency ranges and buckets, the products' overdue charges) and the loan's
 * row under its lock. Tenant-scoped under row-level security, in the caller's transaction.
 */
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { defaultComplianceTimeZone } from '../../../domain/deadlines';
import type { OverdueCharge } from '../../../domain/lending/close-of-business';
import type {
  DelinquencyRangeDefinition,
  InstallmentDelinquencyTag,
} from '../../../domain/lending/delinquency';
import type { DelinquencyActionRecord } from '../../../domain/lending/delinquency-actions';
import type { LoanStatus } from '../../../domain/lending/loan-status';
import {
  charges,
  delinquencyBucketRanges,
  delinquencyRanges,
  loanDelinquencyHistory,
  loanProductCharges,
  loans,
  tenants,
} from '../../schema';
import type { Tx } from '../../tenant-tx';

/** A delinquency range with the case type a loan entering it opens a collections case of. */
export interface CloseOfBusinessRange extends DelinquencyRangeDefinition {
  collectionsCaseTypeCode: string | null;
}

/** What every loan step of a tenant's day needs beside the loan itself (read once per chunk). */
export interface CloseOfBusinessContext {
  tenantId: string;
  /** IANA zone of the tenant's calendar. */
  timeZone: string;
  penaltyWaitPeriodDays: number;
  dueDaysForRepaymentEvent: number;
  overdueDaysForRepaymentEvent: number;
  /** Every range of the tenant by id. */
  ranges: Map<number, CloseOfBusinessRange>;
  /** The ranges of each bucket by bucket id. */
  bucketRanges: Map<number, CloseOfBusinessRange[]>;
  /** The active overdue-installment charges (chargeTimeType 9) each product attaches, by product id. */
  overdueCharges: Map<number, OverdueCharge[]>;
}

/**
 * The tenant-level context of a close-of-business day in `tx` (three statements). Errors: PostgreSQL's, unchanged;
 * a plain Error when the tenant does not exist.
 */
export async function readCloseOfBusinessContext(tx: Tx, tenantId: string): Promise<CloseOfBusinessContext> {
  const [[tenant], rangeRows, chargeRows] = await Promise.all([
    tx
      .select({
        zone: tenants.complianceTimeZone,
        penaltyWaitPeriodDays: tenants.penaltyWaitPeriodDays,
        dueDaysForRepaymentEvent: tenants.dueDaysForRepaymentEvent,
        overdueDaysForRepaymentEvent: tenants.overdueDaysForRepaymentEvent,
      })
      .from(tenants)
      .where(eq(tenants.id, tenantId)),
    tx
      .select({
        id: delinquencyRanges.id,
        classification: delinquencyRanges.classification,
        minimumAgeDays: delinquencyRanges.minimumAgeDays,
        maximumAgeDays: delinquencyRanges.maximumAgeDays,
        collectionsCaseTypeCode: delinquencyRanges.collectionsCaseTypeCode,
        bucketId: delinquencyBucketRanges.bucketId,
      })
      .from(delinquencyRanges)
      .leftJoin(
        delinquencyBucketRanges,
        and(
          eq(delinquencyBucketRanges.tenantId, delinquencyRanges.tenantId),
          eq(delinquencyBucketRanges.rangeId, delinquencyRanges.id),
        ),
      )
      .where(eq(delinquencyRanges.tenantId, tenantId))
      .orderBy(asc(delinquencyRanges.minimumAgeDays), asc(delinquencyRanges.id)),
    tx
      .select({
        productId: loanProductCharges.productId,
        chargeId: charges.id,
        amount: sql<string>`${charges.amount}::text`,
        chargeCalculationType: charges.chargeCalculationType,
      })
      .from(loanProductCharges)
      .innerJoin(
        charges,
        and(eq(charges.tenantId, loanProductCharges.tenantId), eq(charges.id, loanProductCharges.chargeId)),
      )
      .where(
        and(
          eq(loanProductCharges.tenantId, tenantId),
          eq(charges.chargeTimeType, 9),
          eq(charges.active, true),
          eq(charges.penalty, true),
        ),
      )
      .orderBy(asc(charges.id)),
  ]);
  if (!tenant) throw new Error(`tenant ${tenantId} does not exist`);
  const ranges = new Map<number, CloseOfBusinessRange>();
  const bucketRanges = new Map<number, CloseOfBusinessRange[]>();
  for (const { bucketId, ...range } of rangeRows) {
    const known = ranges.get(range.id) ?? range;
    ranges.set(range.id, known);
    if (bucketId !== null) bucketRanges.set(bucketId, [...(bucketRanges.get(bucketId) ?? []), known]);
  }
  const overdueCharges = new Map<number, OverdueCharge[]>();
  for (const row of chargeRows) {
    if (row.chargeCalculationType < 1 || row.chargeCalculationType > 3) continue;
    overdueCharges.set(row.productId, [
      ...(overdueCharges.get(row.productId) ?? []),
      {
        chargeId: row.chargeId,
        amount: row.amount,
        chargeCalculationType: row.chargeCalculationType as 1 | 2 | 3,
      },
    ]);
  }
  return {
    tenantId,
    timeZone: tenant.zone ?? defaultComplianceTimeZone,
    penaltyWaitPeriodDays: tenant.penaltyWaitPeriodDays,
    dueDaysForRepaymentEvent: tenant.dueDaysForRepaymentEvent,
    overdueDaysForRepaymentEvent: tenant.overdueDaysForRepaymentEvent,
    ranges,
    bucketRanges,
    overdueCharges,
  };
}

/** A loan's row as its close-of-business step reads it under the row lock. */
export interface LoanDayRow {
  id: number;
  accountNo: string;
  clientId: number;
  productId: number;
  status: LoanStatus;
  currencyCode: string;
  transactionProcessingStrategyCode: string;
  /** ISO dates or null. */
  disbursedOnDate: string | null;
  /** The day closed before this step (the stamp's previous value). */
  lastClosedBusinessDate: string | null;
  delinquencyRangeId: number | null;
  chargedOff: boolean;
  /** The stored terms' `delinquency` settings (null for terms stored before them). */
  delinquency: Record<string, unknown> | null;
  /** The stored installment-level tags (null: none). */
  installmentDelinquencyTags: InstallmentDelinquencyTag[] | null;
  /** ISO date (tenant's calendar) the loan was boarded, null for a loan created through the API. */
  boardedOnDate: string | null;
  /** ISO date the loan was created, in `timeZone`. */
  createdOnDate: string;
}

/**
 * Locks loan `loanId` and stamps its `last_closed_business_date` := `businessDate` in ONE statement in `tx`
 * (UPDATE of the row locked FOR UPDATE), when its last closed day is before `businessDate`; answers the row with
 * the previous stamp, or `SKIPPED` when the day was closed before, or null when the tenant has no such loan.
 * `timeZone` dates the creation instant. Errors: PostgreSQL's, unchanged.
 */
export async function stampLoanDay(
  tx: Tx,
  tenantId: string,
  loanId: number,
  businessDate: string,
  timeZone: string,
): Promise<LoanDayRow | 'SKIPPED' | null> {
  const [row] = (await tx.execute(sql`
    update loans l set last_closed_business_date = ${businessDate}::date
      from (select id, last_closed_business_date as previous from loans
             where tenant_id = ${tenantId} and id = ${loanId} for update) o
     where l.tenant_id = ${tenantId} and l.id = o.id
       and (o.previous is null or o.previous < ${businessDate}::date)
    returning l.id::text as id, l.account_no, l.client_id::text as client_id, l.product_id::text as product_id,
              l.status::text as status, l.currency_code, l.transaction_processing_strategy_code,
              l.disbursed_on_date::text as disbursed_on_date, o.previous::text as previous,
              l.delinquency_range_id::text as delinquency_range_id, l.charged_off,
              (l.terms->'delinquency')::text as delinquency, l.terms->>'boardedOnDate' as boarded_on_date,
              l.installment_delinquency_tags::text as installment_delinquency_tags,
              (l.created_at at time zone ${timeZone})::date::text as created_on_date`)) as unknown as {
    id: string;
    account_no: string;
    client_id: string;
    product_id: string;
    status: LoanStatus;
    currency_code: string;
    transaction_processing_strategy_code: string;
    disbursed_on_date: string | null;
    previous: string | null;
    delinquency_range_id: string | null;
    charged_off: boolean;
    delinquency: string | null;
    boarded_on_date: string | null;
    installment_delinquency_tags: string | null;
    created_on_date: string;
  }[];
  if (!row) {
    const [existing] = await tx
      .select({ id: loans.id })
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
    return existing ? 'SKIPPED' : null;
  }
  return {
    id: Number(row.id),
    accountNo: row.account_no,
    clientId: Number(row.client_id),
    productId: Number(row.product_id),
    status: row.status,
    currencyCode: row.currency_code,
    transactionProcessingStrategyCode: row.transaction_processing_strategy_code,
    disbursedOnDate: row.disbursed_on_date,
    lastClosedBusinessDate: row.previous,
    delinquencyRangeId: row.delinquency_range_id === null ? null : Number(row.delinquency_range_id),
    chargedOff: row.charged_off,
    delinquency: row.delinquency === null ? null : (JSON.parse(row.delinquency) as Record<string, unknown>),
    installmentDelinquencyTags:
      row.installment_delinquency_tags === null
        ? null
        : (JSON.parse(row.installment_delinquency_tags) as InstallmentDelinquencyTag[]),
    boardedOnDate: row.boarded_on_date,
    createdOnDate: row.created_on_date,
  };
}

/**
 * The collections case a loan's delinquency history opened that is still OPEN (the latest), or null: the case
 * belongs to the loan through the history row that names it (`collections_case_id`).
 */
export async function openCollectionsCaseOfLoan(
  tx: Tx,
  tenantId: string,
  loanId: number,
): Promise<number | null> {
  const [row] = (await tx.execute(sql`
    select h.collections_case_id as case_id
      from ${loanDelinquencyHistory} h
      join cases c on c.tenant_id = h.tenant_id and c.id = h.collections_case_id
     where h.tenant_id = ${tenantId} and h.loan_id = ${loanId} and h.collections_case_id is not null
       and c.status = 'OPEN'
     order by h.id desc
     limit 1`)) as unknown as { case_id: string | number }[];
  return row ? Number(row.case_id) : null;
}

/** What a money operation's re-post needs to re-derive a closed loan's delinquency tag (`readLoanTagContext`). */
export interface LoanTagContext {
  /** The stored terms' `delinquency` settings (null for terms stored before them). */
  delinquency: Record<string, unknown> | null;
  /** The stored tag: its range id and classification, null for NO_DELINQUENCY. */
  delinquencyRangeId: number | null;
  storedClassification: string | null;
  /** The ranges of the loan's bucket, by minimum age then id (empty without a bucket). */
  ranges: CloseOfBusinessRange[];
  /** The loan's delinquency actions in id order (PAUSE / RESUME). */
  actions: DelinquencyActionRecord[];
  /** The stored installment-level tags (null or absent: none). */
  installmentDelinquencyTags?: InstallmentDelinquencyTag[] | null;
}

/**
 * The SQL expression (a json array, `[]` when none) of the ranges of the tenant's delinquency bucket `bucketId` (an
 * SQL expression), by minimum age then id, each as `CloseOfBusinessRange` with its id as PostgreSQL sends a bigint.
 */
const bucketRangesJson = (tenantId: string, bucketId: SQL) => sql`
  coalesce((select json_agg(json_build_object(
              'id', r.id, 'classification', r.classification, 'minimumAgeDays', r.minimum_age_days,
              'maximumAgeDays', r.maximum_age_days, 'collectionsCaseTypeCode',
              r.collections_case_type_code) order by r.minimum_age_days, r.id)
              from delinquency_bucket_ranges br
              join delinquency_ranges r on r.tenant_id = br.tenant_id and r.id = br.range_id
             where br.tenant_id = ${tenantId} and br.bucket_id = ${bucketId}), '[]'::json)`;

/**
 * The delinquency context of loan `loanId` in ONE statement in `tx` (docs/lending.md "Close of business": a
 * payment or charge that changes what is overdue sets the tag at once): its settings, stored tag, its bucket's
 * ranges and its delinquency actions. Null when the tenant has no such loan. Errors: PostgreSQL's, unchanged.
 */
export async function readLoanTagContext(
  tx: Tx,
  tenantId: string,
  loanId: number,
): Promise<LoanTagContext | null> {
  const [row] = (await tx.execute(sql`
    select (l.terms->'delinquency')::text as delinquency,
           l.delinquency_range_id::text as delinquency_range_id,
           sr.classification as stored_classification,
           l.installment_delinquency_tags as installment_delinquency_tags,
           ${bucketRangesJson(tenantId, sql`(l.terms->'delinquency'->>'delinquencyBucketId')::bigint`)} as ranges,
           coalesce((select json_agg(json_build_object(
                       'action', a.action, 'startDate', a.start_date::text, 'endDate', a.end_date::text)
                       order by a.id)
                       from loan_delinquency_actions a
                      where a.tenant_id = ${tenantId} and a.loan_id = ${loanId}), '[]'::json) as actions
      from loans l
      left join delinquency_ranges sr on sr.tenant_id = l.tenant_id and sr.id = l.delinquency_range_id
     where l.tenant_id = ${tenantId} and l.id = ${loanId}`)) as unknown as {
    delinquency: string | null;
    delinquency_range_id: string | null;
    stored_classification: string | null;
    installment_delinquency_tags: InstallmentDelinquencyTag[] | null;
    ranges: CloseOfBusinessRange[];
    actions: DelinquencyActionRecord[];
  }[];
  if (!row) return null;
  return {
    delinquency: row.delinquency === null ? null : (JSON.parse(row.delinquency) as Record<string, unknown>),
    delinquencyRangeId: row.delinquency_range_id === null ? null : Number(row.delinquency_range_id),
    storedClassification: row.stored_classification,
    ranges: row.ranges.map((r) => ({ ...r, id: Number(r.id) })),
    actions: row.actions,
    installmentDelinquencyTags: row.installment_delinquency_tags,
  };
}

/**
 * The ranges of the tenant's delinquency bucket `bucketId` as `readLoanTagContext` gives them (by minimum age, then
 * id; `[]` when the tenant has no such bucket), in ONE statement in `tx`: portfolio boarding reads them once per
 * bucket for the loans of a chunk (activities/lending/loan-chunk.ts). Errors: PostgreSQL's, unchanged.
 */
export async function readBucketRangesForTag(
  tx: Tx,
  tenantId: string,
  bucketId: number,
): Promise<CloseOfBusinessRange[]> {
  const [row] = (await tx.execute(sql`
    select ${bucketRangesJson(tenantId, sql`${bucketId}::bigint`)} as ranges`)) as unknown as {
    ranges: CloseOfBusinessRange[];
  }[];
  return (row?.ranges ?? []).map((r) => ({ ...r, id: Number(r.id) }));
}

/** The id of loan `loanId`'s newest delinquency history row, 0 when it has none (names the change that follows). */
export async function lastDelinquencyHistoryId(tx: Tx, tenantId: string, loanId: number): Promise<number> {
  const [row] = (await tx.execute(sql`
    select coalesce(max(h.id), 0)::text as id from ${loanDelinquencyHistory} h
     where h.tenant_id = ${tenantId} and h.loan_id = ${loanId}`)) as unknown as { id: string }[];
  return Number(row?.id ?? 0);
}
