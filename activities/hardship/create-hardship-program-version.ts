/**
 * Adds a hardship program version (docs/servicing.md "Hardship policies" `programs`; docs/processes.md P5
 * first bullet): `createHardshipProgramVersion` stores the program's next version in one tenant transaction
 * (docs/conventions.md §5) under the tenant's hardship-policy lock; terms that break the ACTIVE guardrails are refused.
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
import { addDays } from '../../domain/calendar';
import { DomainError, fieldError, notFound } from '../../domain/errors';
import type { HardshipProgramTerms } from '../../domain/hardship/policy';
import type { Deps, OperationContext } from '../deps';
import {
  assertTermsAllowed,
  invalidState,
  lockTenantPolicies,
  programRow,
  replayedVersion,
} from './hardship-policy-writes';

export interface CreateHardshipProgramVersionInput extends OperationContext {
  programCode: string;
  /** ISO date: today or later (tenant calendar) and after the previous version's `effectiveFrom`. */
  effectiveFrom: string;
  terms: HardshipProgramTerms;
}

/**
 * Adds the program's next version, in effect from `effectiveFrom`; the previous version's `effectiveTo` becomes
 * the day before. Returns the program with the new version. Errors, nothing stored: 404 for an unknown program
 * (or another tenant's); 409 `error.msg.hardship.program.invalid.state.transition` when RETIRED; 400 naming
 * `effectiveFrom` when before today (tenant time zone) or not after the previous version's `effectiveFrom`; the
 * term and guardrail errors of `createHardshipProgram`. Idempotent by `requestKey`.
 */
export function createHardshipProgramVersion(deps: Deps) {
  return async (input: CreateHardshipProgramVersionInput): Promise<HardshipProgramView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      const replayed = await replayedVersion(tx, input.tenantId, input.requestKey);
      if (replayed) return replayed;
      const program = await programRow(tx, input.tenantId, input.programCode, true);
      if (!program) throw notFound('Hardship program', input.programCode);
      if (program.state !== 'ACTIVE') throw invalidState(input.programCode);
      const previous = await latestProgramVersion(tx, input.tenantId, input.programCode);
      if (!previous) throw new Error(`hardship program ${input.programCode} has no version`);
      const now = deps.clock();
      const today = await tenantToday(tx, input.tenantId, now);
      if (input.effectiveFrom < today || input.effectiveFrom <= previous.effectiveFrom) {
        const message = `effectiveFrom must be today (${today}) or later and after version ${previous.version}'s effectiveFrom ${previous.effectiveFrom}.`;
        throw new DomainError('validation.msg.validation.errors.exist', message, {
          errors: [fieldError('effectiveFrom', input.effectiveFrom, message)],
        });
      }
      await assertTermsAllowed(tx, input.tenantId, input.terms);
      await tx
        .update(hardshipProgramVersions)
        .set({ effectiveTo: addDays(input.effectiveFrom, -1) })
        .where(
          and(
            eq(hardshipProgramVersions.tenantId, input.tenantId),
            eq(hardshipProgramVersions.id, previous.id),
          ),
        );
      const [version] = await tx
        .insert(hardshipProgramVersions)
        .values({
          tenantId: input.tenantId,
          programCode: input.programCode,
          version: program.versionCount + 1,
          effectiveFrom: input.effectiveFrom,
          effectiveTo: null,
          terms: input.terms,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      const [updated] = await tx
        .update(hardshipPrograms)
        .set({ versionCount: program.versionCount + 1, updatedAt: now })
        .where(
          and(
            eq(hardshipPrograms.tenantId, input.tenantId),
            eq(hardshipPrograms.programCode, input.programCode),
          ),
        )
        .returning();
      if (!version || !updated) throw new Error('hardship program version insert returned no row');
      return programViewOf(updated, version);
    });
}
