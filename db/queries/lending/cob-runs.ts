/**
 * Reads of close-of-business runs (docs/processes.md P7 "The run"): the loans a run covers, a run, its errors, and
 * the tenants' zones the daily schedules follow. The run's reads run in one tenant transaction (row-level
 * security: another tenant's run is invisible, so the functions answer null and the routes turn that into 404).
 */
import { and, asc, count, eq, gt, inArray, isNull, lte, or, type SQL } from 'drizzle-orm';
import { defaultComplianceTimeZone } from '../../../domain/deadlines';
import type { CobRunView } from '../../../domain/lending/cob-runs';
import type { Db } from '../../client';
import { cobRunErrors, cobRuns, loans, tenants } from '../../schema';
import { type Tx, withPlatformTransaction, withTenantTransaction } from '../../tenant-tx';

/**
 * The loans the whole-tenant run of day D covers (docs/processes.md P7): ACTIVE, disbursed on or before D, and not
 * closed for a later day (`last_closed_business_date` null or ≤ D). Loans already closed for D stay in, so a
 * retried chunk or a resumed run counts them once more as processed (their step answers SKIPPED) rather than losing
 * them from its counts.
 */
export function cobLoansOfDay(tenantId: string, businessDate: string): SQL {
  return and(
    eq(loans.tenantId, tenantId),
    eq(loans.status, 'ACTIVE'),
    lte(loans.disbursedOnDate, businessDate),
    or(isNull(loans.lastClosedBusinessDate), lte(loans.lastClosedBusinessDate, businessDate)),
  ) as SQL;
}

/** How many loans the whole-tenant run of D covers (`cobLoansOfDay`), read in `tx`. */
export async function countCobLoans(tx: Tx, tenantId: string, businessDate: string): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(loans).where(cobLoansOfDay(tenantId, businessDate));
  return row?.n ?? 0;
}

/** The ids of the loans of D (`cobLoansOfDay`) after `afterLoanId`, ascending, at most `limit`, read in `tx`. */
export async function cobLoanIdsAfter(
  tx: Tx,
  tenantId: string,
  businessDate: string,
  afterLoanId: number,
  limit: number,
): Promise<number[]> {
  const rows = await tx
    .select({ id: loans.id })
    .from(loans)
    .where(and(cobLoansOfDay(tenantId, businessDate), gt(loans.id, afterLoanId)))
    .orderBy(asc(loans.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** The ids among `loanIds` that the tenant has (the rest name no loan of its), read in `tx`. */
export async function existingLoanIds(
  tx: Tx,
  tenantId: string,
  loanIds: readonly number[],
): Promise<Set<number>> {
  const rows = await tx
    .select({ id: loans.id })
    .from(loans)
    .where(and(eq(loans.tenantId, tenantId), inArray(loans.id, [...loanIds])));
  return new Set(rows.map((r) => r.id));
}

/** A stored run with its workflow id (not shown on the API). */
export interface StoredCobRun extends CobRunView {
  workflowId: string;
  loanIds: number[] | null;
}

/** A `cob_runs` row → `StoredCobRun`. */
export function storedCobRun(row: typeof cobRuns.$inferSelect): StoredCobRun {
  return {
    runId: row.runId,
    businessDate: row.businessDate,
    status: row.status,
    loans: { total: row.loansTotal, processed: row.loansProcessed, failed: row.loansFailed },
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt ? row.completedAt.toISOString() : null,
    workflowId: row.workflowId,
    loanIds: row.loanIds ?? null,
  };
}

/** The tenant's run `runId`, or null when it has none. */
export async function getCobRun(db: Db, tenantId: string, runId: string): Promise<StoredCobRun | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(cobRuns)
      .where(and(eq(cobRuns.tenantId, tenantId), eq(cobRuns.runId, runId))),
  );
  return row ? storedCobRun(row) : null;
}

/**
 * One page of the run's errors (one per loan, its latest error), by loan id, `limit` from `offset`, with `hasMore`;
 * null when the tenant has no run `runId`.
 */
export async function listCobRunErrors(
  db: Db,
  tenantId: string,
  runId: string,
  page: { limit: number; offset: number },
): Promise<{ items: { loanId: number; error: string }[]; hasMore: boolean } | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [run] = await tx
      .select({ id: cobRuns.id })
      .from(cobRuns)
      .where(and(eq(cobRuns.tenantId, tenantId), eq(cobRuns.runId, runId)));
    if (!run) return null;
    const rows = await tx
      .select({ loanId: cobRunErrors.loanId, error: cobRunErrors.error })
      .from(cobRunErrors)
      .where(and(eq(cobRunErrors.tenantId, tenantId), eq(cobRunErrors.runId, runId)))
      .orderBy(asc(cobRunErrors.loanId))
      .limit(page.limit + 1)
      .offset(page.offset);
    return { items: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
  });
}

/** Every tenant with its compliance time zone (IANA; the default when unset), by id: the daily schedules' list. */
export async function listTenantTimeZones(db: Db): Promise<{ tenantId: string; timeZone: string }[]> {
  const rows = await withPlatformTransaction(
    db,
    (tx) =>
      tx
        .select({ tenantId: tenants.id, timeZone: tenants.complianceTimeZone })
        .from(tenants)
        .orderBy(asc(tenants.id)),
    { accessMode: 'read only' },
  );
  return rows.map((r) => ({ tenantId: r.tenantId, timeZone: r.timeZone ?? defaultComplianceTimeZone }));
}
