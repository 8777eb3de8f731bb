import { type HardshipProgramView, programViewOf } from '../../db/queries/hardship/hardship-policies';
import { hardshipPrograms, hardshipProgramVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';
import type { HardshipProgramTerms } from '../../domain/hardship/policy';
import type { Deps, OperationContext } from '../deps';
import {
  assertTermsAllowed,
  lockTenantPolicies,
  programRow,
  replayedVersion,
} from './hardship-policy-writes';

export interface CreateHardshipProgramInput extends OperationContext {
  programCode: string;
  displayName: string;
  hardshipReasonCode: string;
  description: string;
  /** ISO date, first day of version 1. */
  effectiveFrom: string;
  terms: HardshipProgramTerms;
}

/**
 * Creates a program (state ACTIVE) with its version 1 in effect from `effectiveFrom`, and returns it in the
 * overview's program shape. Errors, nothing stored: 400 naming `summary.straightThroughMaximum` when above
 * `humanApprovalMaximum`; 409 `error.msg.hardship.guardrails.missing` before the tenant's first guardrails; 409
 * `error.msg.hardship.program.guardrail.violation` with one field error per broken guardrail (its code ends with
 * the guardrail's name; `args[0].guardrail` names it); 409 `error.msg.hardship.program.duplicate` naming
 * `programCode` when the tenant has it already. Idempotent by `requestKey`.
 */
export function createHardshipProgram(deps: Deps) {
  return async (input: CreateHardshipProgramInput): Promise<HardshipProgramView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      const replayed = await replayedVersion(tx, input.tenantId, input.requestKey);
      if (replayed) return replayed;
      if (await programRow(tx, input.tenantId, input.programCode, false)) {
        const message = `programCode: a hardship program ${input.programCode} already exists.`;
        throw new DomainError('error.msg.hardship.program.duplicate', message, {
          errors: [
            fieldError('programCode', input.programCode, message, 'error.msg.hardship.program.duplicate'),
          ],
        });
      }
      await assertTermsAllowed(tx, input.tenantId, input.terms);
      const now = deps.clock();
      const [program] = await tx
        .insert(hardshipPrograms)
        .values({
          tenantId: input.tenantId,
          programCode: input.programCode,
          displayName: input.displayName,
          hardshipReasonCode: input.hardshipReasonCode,
          description: input.description,
          state: 'ACTIVE',
          versionCount: 1,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      const [version] = await tx
        .insert(hardshipProgramVersions)
        .values({
          tenantId: input.tenantId,
          programCode: input.programCode,
          version: 1,
          effectiveFrom: input.effectiveFrom,
          effectiveTo: null,
          terms: input.terms,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!program || !version) throw new Error('hardship program insert returned no row');
      return programViewOf(program, version);
    });
}
