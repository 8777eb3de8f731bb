/**
 * Read queries of delinquency ranges and buckets (Apache Fineract `DelinquencyReadPlatformService`:
 * `GET /v1/delinquency/ranges[/{id}]`, `GET /v1/delinquency/buckets[/{id}]`) and of a loan's delinquency actions
 * (`GET /v1/loans/{loanId}/delinquency-actions`). Each runs in a tenant-scoped read transaction (row-level
 * security), or in the caller's transaction for the `read…(tx, …)` variants. Ages are whole days; dates ISO.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../client';
import {
  delinquencyBucketRanges,
  delinquencyBuckets,
  delinquencyRanges,
  loanDelinquencyActions,
  loans,
} from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** A range as the API shows it (Fineract `DelinquencyRangeData`, plus our `collectionsCaseTypeCode`). */
export interface DelinquencyRangeView {
  id: number;
  classification: string;
  minimumAgeDays: number;
  /** Null: no upper bound. */
  maximumAgeDays: number | null;
  collectionsCaseTypeCode: string | null;
}

/** A bucket as the API shows it (Fineract `DelinquencyBucketData`): its ranges by `minimumAgeDays`. */
export interface DelinquencyBucketView {
  id: number;
  name: string;
  ranges: DelinquencyRangeView[];
}

/** A delinquency action as the API shows it (Fineract `LoanDelinquencyActionData`). */
export interface DelinquencyActionView {
  id: number;
  action: 'PAUSE' | 'RESUME';
  startDate: string;
  endDate: string | null;
  /** The day the action was recorded (UTC calendar date of its creation instant, as Fineract's `createdOn`). */
  createdOn: string;
}

const rangeColumns = {
  id: delinquencyRanges.id,
  classification: delinquencyRanges.classification,
  minimumAgeDays: delinquencyRanges.minimumAgeDays,
  maximumAgeDays: delinquencyRanges.maximumAgeDays,
  collectionsCaseTypeCode: delinquencyRanges.collectionsCaseTypeCode,
};

const byAge = (a: DelinquencyRangeView, b: DelinquencyRangeView) =>
  a.minimumAgeDays - b.minimumAgeDays || a.id - b.id;

/** The tenant's range `rangeId`, or null (absent or another tenant's). */
export async function getDelinquencyRange(
  db: Db,
  tenantId: string,
  rangeId: number,
): Promise<DelinquencyRangeView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select(rangeColumns)
      .from(delinquencyRanges)
      .where(and(eq(delinquencyRanges.tenantId, tenantId), eq(delinquencyRanges.id, rangeId))),
  );
  return row ?? null;
}

/** Every range of the tenant, oldest first (Fineract's list is unpaged). */
export async function listDelinquencyRanges(db: Db, tenantId: string): Promise<DelinquencyRangeView[]> {
  return withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select(rangeColumns)
      .from(delinquencyRanges)
      .where(eq(delinquencyRanges.tenantId, tenantId))
      .orderBy(asc(delinquencyRanges.id)),
  );
}

/** The tenant's ranges among `rangeIds` (those that exist), in the caller's transaction. */
export async function readDelinquencyRanges(
  tx: Tx,
  tenantId: string,
  rangeIds: readonly number[],
): Promise<DelinquencyRangeView[]> {
  if (rangeIds.length === 0) return [];
  return tx
    .select(rangeColumns)
    .from(delinquencyRanges)
    .where(and(eq(delinquencyRanges.tenantId, tenantId), inArray(delinquencyRanges.id, [...rangeIds])));
}

async function bucketsWhere(tx: Tx, tenantId: string, bucketId?: number): Promise<DelinquencyBucketView[]> {
  const buckets = await tx
    .select({ id: delinquencyBuckets.id, name: delinquencyBuckets.name })
    .from(delinquencyBuckets)
    .where(
      bucketId === undefined
        ? eq(delinquencyBuckets.tenantId, tenantId)
        : and(eq(delinquencyBuckets.tenantId, tenantId), eq(delinquencyBuckets.id, bucketId)),
    )
    .orderBy(asc(delinquencyBuckets.id));
  if (buckets.length === 0) return [];
  const mapped = await tx
    .select({ bucketId: delinquencyBucketRanges.bucketId, ...rangeColumns })
    .from(delinquencyBucketRanges)
    .innerJoin(
      delinquencyRanges,
      and(
        eq(delinquencyRanges.tenantId, delinquencyBucketRanges.tenantId),
        eq(delinquencyRanges.id, delinquencyBucketRanges.rangeId),
      ),
    )
    .where(
      and(
        eq(delinquencyBucketRanges.tenantId, tenantId),
        inArray(
          delinquencyBucketRanges.bucketId,
          buckets.map((b) => b.id),
        ),
      ),
    );
  return buckets.map((b) => ({
    ...b,
    ranges: mapped
      .filter((m) => m.bucketId === b.id)
      .map(({ bucketId: _bucketId, ...range }) => range)
      .sort(byAge),
  }));
}

/** The tenant's bucket `bucketId` with its ranges, or null (absent or another tenant's). */
export async function getDelinquencyBucket(
  db: Db,
  tenantId: string,
  bucketId: number,
): Promise<DelinquencyBucketView | null> {
  const [bucket] = await withTenantTransaction(db, tenantId, (tx) => bucketsWhere(tx, tenantId, bucketId));
  return bucket ?? null;
}

/** The tenant's bucket `bucketId` with its ranges, or null, in the caller's transaction. */
export async function readDelinquencyBucket(
  tx: Tx,
  tenantId: string,
  bucketId: number,
): Promise<DelinquencyBucketView | null> {
  const [bucket] = await bucketsWhere(tx, tenantId, bucketId);
  return bucket ?? null;
}

/** Every bucket of the tenant with its ranges, oldest first. */
export async function listDelinquencyBuckets(db: Db, tenantId: string): Promise<DelinquencyBucketView[]> {
  return withTenantTransaction(db, tenantId, (tx) => bucketsWhere(tx, tenantId));
}

/** The delinquency actions of a loan, oldest first, in the caller's transaction. */
export async function readDelinquencyActions(
  tx: Tx,
  tenantId: string,
  loanId: number,
): Promise<DelinquencyActionView[]> {
  const rows = await tx
    .select()
    .from(loanDelinquencyActions)
    .where(and(eq(loanDelinquencyActions.tenantId, tenantId), eq(loanDelinquencyActions.loanId, loanId)))
    .orderBy(asc(loanDelinquencyActions.id));
  return rows.map((r) => ({
    id: r.id,
    action: r.action,
    startDate: r.startDate,
    endDate: r.endDate,
    createdOn: r.createdAt.toISOString().slice(0, 10),
  }));
}

/** The delinquency actions of the tenant's loan `loanId`, oldest first; null when the loan is not the tenant's. */
export async function listDelinquencyActions(
  db: Db,
  tenantId: string,
  loanId: number,
): Promise<DelinquencyActionView[] | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [loan] = await tx
      .select({ id: loans.id })
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
    return loan ? readDelinquencyActions(tx, tenantId, loanId) : null;
  });
}
