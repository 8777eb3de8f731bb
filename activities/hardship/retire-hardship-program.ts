/**
 * Retires a hardship program (docs/servicing.md "Hardship policies" `programs`; docs/processes.md P5 first
 * bullet): `retireHardshipProgram` ends its latest version in one tenant transaction (docs/conventions.md §5) under the
 * tenant's hardship-policy lock; a RETIRED program no longer counts for `portfolioValid`.
 */
import { and, eq } from 'drizzle-orm';
import {
  type HardshipProgramView,
  latestProgramVersion,
  programViewOf,
  tenantToday,
} from '../../db/queries/hardship/hardship-policies';
import { hardshipPrograms, hardshipProgramVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { invalidState, lockTenantPolicies, programRow } from './hardship-policy-writes';

export interface RetireHardshipProgramInput extends OperationContext {
  programCode: string;
  /** ISO date, last day in effect; default today (tenant time zone). */
  effectiveTo?: string | undefined;
}

/**
 * Retires the program: state RETIRED, and its latest version's `effectiveTo` set (default today, tenant time
 * zone). Returns the program with that version. A RETIRED program no longer counts for `portfolioValid`.
 * Errors, nothing changed: 404 unknown program; 409 `error.msg.hardship.program.invalid.state.transition` when
 * already RETIRED; 400 naming `effectiveTo` when before today or before the latest version's `effectiveFrom`.
 */
export function retireHardshipProgram(deps: Deps) {
  return async (input: RetireHardshipProgramInput): Promise<HardshipProgramView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      const program = await programRow(tx, input.tenantId, input.programCode, true);
      if (!program) throw notFound('Hardship program', input.programCode);
      if (program.state !== 'ACTIVE') throw invalidState(input.programCode);
      const latest = await latestProgramVersion(tx, input.tenantId, input.programCode);
      if (!latest) throw new Error(`hardship program ${input.programCode} has no version`);
      const now = deps.clock();
      const today = await tenantToday(tx, input.tenantId, now);
      const effectiveTo = input.effectiveTo ?? today;
      if (effectiveTo < today || effectiveTo < latest.effectiveFrom) {
        const message = `effectiveTo must be today (${today}) or later and not before version ${latest.version}'s effectiveFrom ${latest.effectiveFrom}.`;
        throw new DomainError('validation.msg.validation.errors.exist', message, {
          errors: [fieldError('effectiveTo', effectiveTo, message)],
        });
      }
      const [version] = await tx
        .update(hardshipProgramVersions)
        .set({ effectiveTo })
        .where(
          and(
            eq(hardshipProgramVersions.tenantId, input.tenantId),
            eq(hardshipProgramVersions.id, latest.id),
          ),
        )
        .returning();
      const [updated] = await tx
        .update(hardshipPrograms)
        .set({ state: 'RETIRED', retiredAt: now, updatedAt: now })
        .where(
          and(
            eq(hardshipPrograms.tenantId, input.tenantId),
            eq(hardshipPrograms.programCode, input.programCode),
          ),
        )
        .returning();
      if (!version || !updated) throw new Error('hardship program vanished under its lock');
      return programViewOf(updated, version);
    });
}
