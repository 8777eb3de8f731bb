/**
 * Read queries of reconciliation exceptions (docs/lending.md "Reconciliation exceptions"; docs/design.md §4 Paging: operational
 * lists use limit and offset → `{items}`; docs/processes.md P1). Each runs in a tenant-scoped read transaction, so
 * another tenant's exception reads as absent. `reconciliationExceptionView` is the one shape the API, the export
 * and the operations answer with.
 */
import { and, asc, desc, eq, gt, type SQL } from 'drizzle-orm';
import type {
  ReconciliationDetail,
  ReconciliationExceptionStatus,
  ReconciliationExceptionType,
  ReconciliationResolution,
} from '../../../domain/payments/reconciliation-exceptions';
import type { Db } from '../../client';
import { reconciliationExceptions } from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

/**
 * A reconciliation exception as the API shows it: the spec's fields (`exceptionId` integer, `exceptionType`,
 * `targetType`, `targetRef`, `status` `open`/`resolved`, `detail` with `providerRef`, `createdAt`, `lastSeenAt`
 * as ISO 8601 instants in UTC), and, only once resolved, `resolution`, `resolutionReason`, `resolvedBy` and
 * `resolvedAt` (an addition of ours).
 */
export interface ReconciliationExceptionView {
  exceptionId: number;
  exceptionType: ReconciliationExceptionType;
  targetType: string;
  targetRef: string;
  status: ReconciliationExceptionStatus;
  detail: ReconciliationDetail;
  createdAt: string;
  lastSeenAt: string;
  resolution?: ReconciliationResolution;
  resolutionReason?: string;
  resolvedBy?: string;
  resolvedAt?: string;
}

type ReconciliationExceptionRow = typeof reconciliationExceptions.$inferSelect;

/** The view of one stored row (module note). */
export function reconciliationExceptionView(row: ReconciliationExceptionRow): ReconciliationExceptionView {
  const view: ReconciliationExceptionView = {
    exceptionId: row.id,
    exceptionType: row.exceptionType,
    targetType: row.targetType,
    targetRef: row.targetRef,
    status: row.status,
    detail: row.detail,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
  };
  if (row.status === 'resolved') {
    if (row.resolution !== null) view.resolution = row.resolution;
    if (row.resolutionReason !== null) view.resolutionReason = row.resolutionReason;
    if (row.resolvedBy !== null) view.resolvedBy = row.resolvedBy;
    if (row.resolvedAt !== null) view.resolvedAt = row.resolvedAt.toISOString();
  }
  return view;
}

/** Filters of the list and the export; absent means any. */
export interface ReconciliationExceptionFilter {
  status?: ReconciliationExceptionStatus;
  exceptionType?: ReconciliationExceptionType;
}

function filterConditions(tenantId: string, filter: ReconciliationExceptionFilter): SQL[] {
  const conditions = [eq(reconciliationExceptions.tenantId, tenantId)];
  if (filter.status) conditions.push(eq(reconciliationExceptions.status, filter.status));
  if (filter.exceptionType) conditions.push(eq(reconciliationExceptions.exceptionType, filter.exceptionType));
  return conditions;
}

/**
 * One page of the tenant's exceptions, newest first (descending id, i.e. creation order), filtered by `status`
 * and `exceptionType`, offset-paged (`limit` 1–200 and `offset` ≥ 0, checked by the caller). A page shorter than
 * `limit` ends the collection (docs/design.md §4 Paging).
 */
export async function listReconciliationExceptions(
  db: Db,
  tenantId: string,
  query: ReconciliationExceptionFilter & { limit: number; offset: number },
): Promise<ReconciliationExceptionView[]> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(reconciliationExceptions)
      .where(and(...filterConditions(tenantId, query)))
      .orderBy(desc(reconciliationExceptions.id))
      .limit(query.limit)
      .offset(query.offset),
  );
  return rows.map(reconciliationExceptionView);
}

/** One exception of the tenant, or null when absent or another tenant's. */
export async function getReconciliationException(
  db: Db,
  tenantId: string,
  exceptionId: number,
): Promise<ReconciliationExceptionView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(reconciliationExceptions)
      .where(
        and(eq(reconciliationExceptions.tenantId, tenantId), eq(reconciliationExceptions.id, exceptionId)),
      ),
  );
  return row ? reconciliationExceptionView(row) : null;
}

/** Rows per query of the export. */
export const exportBatchSize = 500;

/**
 * Every exception of the tenant matching `filter`, oldest first (ascending id), in batches of at most
 * `batchSize` rows: one short read transaction per batch, keyset-paged on the id (`id > last id`), so memory stays
 * constant whatever the number of rows and no connection is held between batches. Live, not a snapshot (docs/design.md §4 Paging: "Lists are live"): a row created during the export appears if its id is beyond the batches already read.
 * Ends when a batch is empty; stops early when the consumer stops iterating.
 */
export async function* exportReconciliationExceptions(
  db: Db,
  tenantId: string,
  filter: ReconciliationExceptionFilter,
  batchSize = exportBatchSize,
): AsyncGenerator<ReconciliationExceptionView[], void, undefined> {
  let afterId = 0;
  for (;;) {
    const rows = await withTenantTransaction(db, tenantId, (tx) =>
      tx
        .select()
        .from(reconciliationExceptions)
        .where(and(...filterConditions(tenantId, filter), gt(reconciliationExceptions.id, afterId)))
        .orderBy(asc(reconciliationExceptions.id))
        .limit(batchSize),
    );
    const last = rows.at(-1);
    if (!last) return;
    yield rows.map(reconciliationExceptionView);
    if (rows.length < batchSize) return;
    afterId = last.id;
  }
}
