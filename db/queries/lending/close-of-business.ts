/**
 * Reads of a loan's close-of-business step (docs/lending.md "Close of business"): the tenant-level context read
 * once per chunk of loans (settings, delinquency ranges and buckets, the products' overdue charges) and the loan's
 * row under its lock. Tenant-scoped under row-level security, in the caller's transaction.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { defaultComplianceTimeZone } from '../../../domain/deadlines';
import type { OverdueCharge } from '../../../domain/lending/close-of-business';
import type { DelinquencyRangeDefinition } from '../../../domain/lending/delinquency';
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
  lastClosedBusinessDate: string | null;
  delinquencyRangeId: number | null;
  chargedOff: boolean;
  /** The stored terms' `delinquency` settings (null for terms stored before them). */
  delinquency: Record<string, unknown> | null;
  /** ISO date (tenant's calendar) the loan was boarded, null for a loan created through the API. */
  boardedOnDate: string | null;
  createdAt: Date;
}

/** Loan `loanId` locked FOR UPDATE in `tx` (one statement), or null when the tenant has no such loan. */
export async function lockLoanForDay(tx: Tx, tenantId: string, loanId: number): Promise<LoanDayRow | null> {
  const [row] = await tx
    .select({
      id: loans.id,
      accountNo: loans.accountNo,
      clientId: loans.clientId,
      productId: loans.productId,
      status: loans.status,
      currencyCode: loans.currencyCode,
      transactionProcessingStrategyCode: loans.transactionProcessingStrategyCode,
      disbursedOnDate: loans.disbursedOnDate,
      lastClosedBusinessDate: loans.lastClosedBusinessDate,
      delinquencyRangeId: loans.delinquencyRangeId,
      chargedOff: loans.chargedOff,
      delinquency: sql<Record<string, unknown> | null>`${loans.terms}->'delinquency'`,
      boardedOnDate: sql<string | null>`${loans.terms}->>'boardedOnDate'`,
      createdAt: loans.createdAt,
    })
    .from(loans)
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)))
    .for('update');
  return row ?? null;
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
