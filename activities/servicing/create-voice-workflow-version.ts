/**
 * Creates the next immutable version of a voice workflow (docs/servicing.md "Voice-provider control surface";
 * docs/processes.md P4 "Voice-provider control surface"), in one tenant transaction (docs/conventions.md §5).
 */
import { and, eq, sql } from 'drizzle-orm';
import { type VoiceWorkflowVersionView, voiceWorkflowVersionView } from '../../db/queries/servicing/voice';
import { voiceWorkflows, voiceWorkflowVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';
import {
  canonicalDefinition,
  definitionProblems,
  type VoiceWorkflowDefinition,
} from '../../domain/servicing/voice-workflow';
import type { Deps, OperationContext } from '../deps';

export interface CreateVoiceWorkflowVersionInput extends OperationContext {
  /** The path's workflow id (domain/servicing/voice-workflow.ts `workflowIdPattern`). */
  workflowId: string;
  /** Free text naming the version (no identifiers; checked at the edge). */
  label: string;
  definition: VoiceWorkflowDefinition;
}

/**
 * Stores the next version of `workflowId` (1 for a new workflow), inactive, and returns it in the spec's view.
 * Versions are numbered 1, 2, … per (tenant, workflowId) without gaps, also under concurrent creates: the
 * workflow's counter row is incremented by one upsert that holds its row lock until commit, so a second create
 * waits and takes the next number, and a rolled-back create gives its number back. Idempotent by `requestKey`
 * (a replay returns the version created first). Errors: 400 `validation.msg.validation.errors.exist` with one
 * field error per structural problem of the definition (domain `definitionProblems`), nothing stored.
 */
export function createVoiceWorkflowVersion(deps: Deps) {
  return async (input: CreateVoiceWorkflowVersionInput): Promise<VoiceWorkflowVersionView> => {
    const problems = definitionProblems(input.workflowId, input.definition);
    if (problems.length > 0) {
      throw new DomainError(
        'validation.msg.validation.errors.exist',
        problems.map((p) => p.message).join(' '),
        { errors: problems.map((p) => fieldError(p.parameterName, p.value, p.message)) },
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [replayed] = await tx
          .select()
          .from(voiceWorkflowVersions)
          .where(
            and(
              eq(voiceWorkflowVersions.tenantId, input.tenantId),
              eq(voiceWorkflowVersions.requestKey, input.requestKey),
            ),
          );
        if (replayed) return voiceWorkflowVersionView(replayed);
      }
      const now = deps.clock();
      const [counter] = await tx
        .insert(voiceWorkflows)
        .values({
          tenantId: input.tenantId,
          workflowId: input.workflowId,
          versionCount: 1,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: [voiceWorkflows.tenantId, voiceWorkflows.workflowId],
          set: { versionCount: sql`${voiceWorkflows.versionCount} + 1`, updatedAt: now },
        })
        .returning({ versionCount: voiceWorkflows.versionCount });
      if (!counter) throw new Error('voice workflow counter upsert returned no row');
      const [created] = await tx
        .insert(voiceWorkflowVersions)
        .values({
          tenantId: input.tenantId,
          workflowId: input.workflowId,
          version: counter.versionCount,
          label: input.label,
          definition: canonicalDefinition(input.definition),
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!created) throw new Error('voice workflow version insert returned no row');
      return voiceWorkflowVersionView(created);
    });
  };
}
