/**
 * Activates a version of a voice workflow (docs/servicing.md "Voice-provider control surface"; docs/processes.md P4
 * "Voice-provider control surface"): at most one active per workflow, in one tenant transaction
 * (docs/conventions.md §5).
 */
import { and, eq } from 'drizzle-orm';
import { type VoiceWorkflowVersionView, voiceWorkflowVersionView } from '../../db/queries/servicing/voice';
import { voiceWorkflows, voiceWorkflowVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';

export interface ActivateVoiceWorkflowVersionInput extends OperationContext {
  workflowId: string;
  version: number;
}

/**
 * Makes `version` the one active version of `workflowId`: the previously active version is deactivated in the
 * same transaction, under the workflow's row lock (a partial unique index backs the rule). Activating the active
 * version changes nothing. Dispatches already created keep the version they pinned. Returns the version's view.
 * Errors: 404 `error.msg.resource.not.found` when the tenant has no such version.
 */
export function activateVoiceWorkflowVersion(deps: Deps) {
  return async (input: ActivateVoiceWorkflowVersionInput): Promise<VoiceWorkflowVersionView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const missing = () => notFound('Voice workflow version', `${input.workflowId}/${input.version}`);
      const [workflow] = await tx
        .select()
        .from(voiceWorkflows)
        .where(
          and(eq(voiceWorkflows.tenantId, input.tenantId), eq(voiceWorkflows.workflowId, input.workflowId)),
        )
        .for('update');
      if (!workflow) throw missing();
      const ofWorkflow = and(
        eq(voiceWorkflowVersions.tenantId, input.tenantId),
        eq(voiceWorkflowVersions.workflowId, input.workflowId),
      );
      const [target] = await tx
        .select()
        .from(voiceWorkflowVersions)
        .where(and(ofWorkflow, eq(voiceWorkflowVersions.version, input.version)));
      if (!target) throw missing();
      if (target.isActive) return voiceWorkflowVersionView(target);
      const now = deps.clock();
      await tx
        .update(voiceWorkflowVersions)
        .set({ isActive: false })
        .where(and(ofWorkflow, eq(voiceWorkflowVersions.isActive, true)));
      const [activated] = await tx
        .update(voiceWorkflowVersions)
        .set({ isActive: true, activatedAt: now })
        .where(and(ofWorkflow, eq(voiceWorkflowVersions.id, target.id)))
        .returning();
      if (!activated) throw new Error('voice workflow version vanished under its workflow lock');
      await tx
        .update(voiceWorkflows)
        .set({ activeVersion: input.version, updatedAt: now })
        .where(
          and(eq(voiceWorkflows.tenantId, input.tenantId), eq(voiceWorkflows.workflowId, input.workflowId)),
        );
      return voiceWorkflowVersionView(activated);
    });
}
