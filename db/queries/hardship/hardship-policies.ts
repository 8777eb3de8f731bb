/**
 * Reads of hardship policies (docs/servicing.md "Hardship policies"; docs/processes.md P5): the active
 * guardrails, the programs with the version in effect today (tenant compliance time zone, docs/design.md §5
 * "Deadlines"), and the overview the admin read answers. The admin operations
 * (activities/hardship/hardship-policy-writes.ts) use the `Tx` helpers inside their own transaction.
 */
import { and, asc, desc, eq } from 'drizzle-orm';
import { defaultComplianceTimeZone } from '../../../domain/deadlines';
import {
  activeVersionOn,
  guardrailsView,
  guardrailViolations,
  type HardshipGuardrailSettings,
  type HardshipGuardrails,
  type HardshipProgramSummary,
  isSupportedNativeCapability,
  programSummaryOf,
} from '../../../domain/hardship/policy';
import { localDate } from '../../../domain/time-zone';
import type { Db } from '../../client';
import { hardshipGuardrailVersions, hardshipPrograms, hardshipProgramVersions, tenants } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** The spec's `commonGuardrails`. */
export interface CommonGuardrailsView {
  version: number;
  /** ISO 8601 instant (UTC, `Z`). */
  activatedAt: string;
  guardrails: HardshipGuardrails;
}

/** The spec's program of the overview. */
export interface HardshipProgramView {
  programCode: string;
  displayName: string;
  hardshipReasonCode: string;
  description: string;
  state: string;
  activeVersion: number;
  /** ISO date. */
  effectiveFrom: string;
  /** ISO date (inclusive) or null. */
  effectiveTo: string | null;
  versionCount: number;
  summary: HardshipProgramSummary;
}

/** The spec's hardship policy overview. */
export interface HardshipPolicyOverview {
  commonGuardrails: CommonGuardrailsView;
  programs: HardshipProgramView[];
  portfolioValid: boolean;
}

type GuardrailRow = typeof hardshipGuardrailVersions.$inferSelect;

export function commonGuardrailsViewOf(row: GuardrailRow): CommonGuardrailsView {
  return {
    version: row.version,
    activatedAt: row.activatedAt.toISOString(),
    guardrails: guardrailsView(row.version, row.guardrails),
  };
}

/** The tenant's active (highest) guardrails version, or null before the first one. */
export async function activeGuardrails(tx: Tx, tenantId: string): Promise<GuardrailRow | null> {
  const [row] = await tx
    .select()
    .from(hardshipGuardrailVersions)
    .where(eq(hardshipGuardrailVersions.tenantId, tenantId))
    .orderBy(desc(hardshipGuardrailVersions.version))
    .limit(1);
  return row ?? null;
}

/** Today's date (ISO) in the tenant's compliance time zone at `now`. */
export async function tenantToday(tx: Tx, tenantId: string, now: Date): Promise<string> {
  const [row] = await tx
    .select({ zone: tenants.complianceTimeZone })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return localDate(now.getTime(), row?.zone ?? defaultComplianceTimeZone);
}

type ProgramRow = typeof hardshipPrograms.$inferSelect;
type ProgramVersionRow = typeof hardshipProgramVersions.$inferSelect;

/** The spec's program built from its row and one of its versions (shown as `activeVersion`). */
export function programViewOf(program: ProgramRow, version: ProgramVersionRow): HardshipProgramView {
  return {
    programCode: program.programCode,
    displayName: program.displayName,
    hardshipReasonCode: program.hardshipReasonCode,
    description: program.description,
    state: program.state,
    activeVersion: version.version,
    effectiveFrom: version.effectiveFrom,
    effectiveTo: version.effectiveTo,
    versionCount: program.versionCount,
    summary: programSummaryOf(version.terms),
  };
}

/** Every program of the tenant (by programCode) with the version in effect on `today` (domain `activeVersionOn`). */
export async function programViews(tx: Tx, tenantId: string, today: string): Promise<HardshipProgramView[]> {
  const programs = await tx
    .select()
    .from(hardshipPrograms)
    .where(eq(hardshipPrograms.tenantId, tenantId))
    .orderBy(asc(hardshipPrograms.programCode));
  const versions = await tx
    .select()
    .from(hardshipProgramVersions)
    .where(eq(hardshipProgramVersions.tenantId, tenantId));
  const views: HardshipProgramView[] = [];
  for (const program of programs) {
    const active = activeVersionOn(
      versions.filter((v) => v.programCode === program.programCode),
      today,
    );
    if (!active) continue;
    views.push(programViewOf(program, active));
  }
  return views;
}

/**
 * True when every ACTIVE program's version in effect satisfies `guardrails` (domain `guardrailViolations`) and
 * requires only a native capability this engine supports (domain `isSupportedNativeCapability`; a program stored
 * before that rule with another capability can make no offer, so the portfolio is not valid).
 */
export function portfolioValidOf(
  guardrails: HardshipGuardrailSettings,
  programs: HardshipProgramView[],
): boolean {
  return programs
    .filter((p) => p.state === 'ACTIVE')
    .every(
      (p) =>
        guardrailViolations(guardrails, p.summary).length === 0 &&
        isSupportedNativeCapability(p.summary.scope.requiredNativeCapability),
    );
}

/**
 * The spec's overview for the tenant at `now`, or null when the tenant has set no guardrails yet (the read
 * answers 404: there is no `commonGuardrails.version` to show, and no program can exist before one).
 */
export async function getHardshipPolicyOverview(
  db: Db,
  tenantId: string,
  now: Date,
): Promise<HardshipPolicyOverview | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const guardrails = await activeGuardrails(tx, tenantId);
    if (!guardrails) return null;
    const programs = await programViews(tx, tenantId, await tenantToday(tx, tenantId, now));
    return {
      commonGuardrails: commonGuardrailsViewOf(guardrails),
      programs,
      portfolioValid: portfolioValidOf(guardrails.guardrails, programs),
    };
  });
}

/** The program's latest version row (for a new version or the retirement), or null. */
export async function latestProgramVersion(
  tx: Tx,
  tenantId: string,
  programCode: string,
): Promise<ProgramVersionRow | null> {
  const [row] = await tx
    .select()
    .from(hardshipProgramVersions)
    .where(
      and(
        eq(hardshipProgramVersions.tenantId, tenantId),
        eq(hardshipProgramVersions.programCode, programCode),
      ),
    )
    .orderBy(desc(hardshipProgramVersions.version))
    .limit(1);
  return row ?? null;
}
