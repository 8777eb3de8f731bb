/**
 * Reads of a loan's schedule history (`loan_schedule_versions`; docs/processes.md P5 "a new schedule
 * version"): every version of the loan's schedule, newest first — the offer read and the demo show "the new
 * schedule" beside the one it replaced. Version 1 is the schedule before the first relief; it exists only once a
 * relief was applied (activities/lending/loan-relief.ts), so a loan never modified has no rows (its schedule is
 * `loan_installments`). Amounts are decimal strings of minor units of the loan's currency; dates ISO.
 */
import { and, asc, desc, eq, gt } from 'drizzle-orm';
import type { ReliefSummaryJson, ScheduleInstallmentJson } from '../../../domain/hardship/schedule-version';
import type { StoredPrincipalForgiveness } from '../../../domain/lending/loan-allocation';
import type { Db } from '../../client';
import { loanScheduleVersions as scheduleVersions } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** One version of a loan's schedule. */
export interface LoanScheduleVersionView {
  /** 1, 2, … per loan. */
  version: number;
  /** ORIGINAL (version 1) or HARDSHIP_RELIEF. */
  reason: string;
  /** What caused it (`{kind: 'HARDSHIP_OFFER', id: offerId}`); null for ORIGINAL. */
  source: { kind: string; id: number | null } | null;
  /** The relief type applied; null for ORIGINAL. */
  reliefType: string | null;
  /** ISO date the relief was applied as of; null for ORIGINAL. */
  asOfDate: string | null;
  installmentCount: number;
  /** Σ due of every installment and component, decimal string of minor units. */
  totalDueMinor: string;
  /** The installments; paid amounts as at the version's creation (before the repost that followed it). */
  installments: ScheduleInstallmentJson[];
  /** What the relief changed; null for ORIGINAL. */
  summary: ReliefSummaryJson | null;
  /** ISO 8601 instant (UTC, `Z`). */
  createdAt: string;
  /** The actor that made it, null when none. */
  createdBy: string | null;
}

/** The schedule versions of loan `loanId`, newest first (empty when none), in the caller's transaction `tx`. */
export async function loanScheduleVersions(
  tx: Tx,
  tenantId: string,
  loanId: number,
): Promise<LoanScheduleVersionView[]> {
  const rows = await tx
    .select()
    .from(scheduleVersions)
    .where(and(eq(scheduleVersions.tenantId, tenantId), eq(scheduleVersions.loanId, loanId)))
    .orderBy(desc(scheduleVersions.version));
  return rows.map((row) => ({
    version: row.version,
    reason: row.reason,
    source: row.sourceKind === null ? null : { kind: row.sourceKind, id: row.sourceId },
    reliefType: row.reliefType,
    asOfDate: row.asOfDate,
    installmentCount: row.installmentCount,
    totalDueMinor: row.totalDueMinor,
    installments: row.installments,
    summary: row.summary ?? null,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
  }));
}

/** `loanScheduleVersions` in a tenant-scoped transaction of its own on `db`. */
export function getLoanScheduleVersions(
  db: Db,
  tenantId: string,
  loanId: number,
): Promise<LoanScheduleVersionView[]> {
  return withTenantTransaction(db, tenantId, (tx) => loanScheduleVersions(tx, tenantId, loanId));
}

/**
 * The principal forgiveness of loan `loanId` (its schedule versions that wrote principal off), by id, in the
 * caller's transaction: what domain/lending/loan-allocation.ts `allocationInputOf` takes as
 * `principalForgiveness` (amounts in minor units, decimal strings). Empty for a loan never forgiven.
 */
export async function loanPrincipalForgiveness(
  tx: Tx,
  tenantId: string,
  loanId: number,
): Promise<StoredPrincipalForgiveness[]> {
  const rows = await tx
    .select({
      id: scheduleVersions.id,
      valueDate: scheduleVersions.asOfDate,
      amountMinor: scheduleVersions.principalForgivenMinor,
    })
    .from(scheduleVersions)
    .where(
      and(
        eq(scheduleVersions.tenantId, tenantId),
        eq(scheduleVersions.loanId, loanId),
        gt(scheduleVersions.principalForgivenMinor, '0'),
      ),
    )
    .orderBy(asc(scheduleVersions.id));
  return rows.map((row) => ({
    id: row.id,
    // a forgiving version is always a relief, which has an as-of date
    valueDate: row.valueDate ?? '',
    amountMinor: row.amountMinor,
  }));
}
