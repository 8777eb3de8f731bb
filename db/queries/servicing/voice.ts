/**
 * Read queries of the voice-provider control surface (docs/processes.md P4). Each runs in a tenant-scoped
 * transaction, so row-level security confines it to `tenantId`; another tenant's row reads as absent (404).
 */
import { and, eq } from 'drizzle-orm';
import { canonicalDefinition, type VoiceWorkflowDefinition } from '../../../domain/servicing/voice-workflow';
import type { Db } from '../../client';
import { voiceDispatches, voiceWorkflowVersions } from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

/**
 * A voice workflow version exactly as the spec shows it (docs/servicing.md "Voice-provider control surface"), snake_case:
 * `{id, workflow_id, version, label, is_active, created_at, definition}`; `created_at` an ISO 8601 instant (Z),
 * `definition` with its keys in the spec's order.
 */
export interface VoiceWorkflowVersionView {
  id: number;
  workflow_id: string;
  version: number;
  label: string;
  is_active: boolean;
  created_at: string;
  definition: VoiceWorkflowDefinition;
}

/** The spec view of a version row. */
export function voiceWorkflowVersionView(
  row: typeof voiceWorkflowVersions.$inferSelect,
): VoiceWorkflowVersionView {
  return {
    id: row.id,
    workflow_id: row.workflowId,
    version: row.version,
    label: row.label,
    is_active: row.isActive,
    created_at: row.createdAt.toISOString(),
    definition: canonicalDefinition(row.definition),
  };
}

/** Version `version` of workflow `workflowId` of the tenant, or null. */
export async function getVoiceWorkflowVersion(
  db: Db,
  tenantId: string,
  workflowId: string,
  version: number,
): Promise<VoiceWorkflowVersionView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(voiceWorkflowVersions)
      .where(
        and(
          eq(voiceWorkflowVersions.tenantId, tenantId),
          eq(voiceWorkflowVersions.workflowId, workflowId),
          eq(voiceWorkflowVersions.version, version),
        ),
      ),
  );
  return row ? voiceWorkflowVersionView(row) : null;
}

/**
 * A voice dispatch as the API shows it (never its token): `{dispatchId, resourceId, caseId, taskId, workflowId,
 * workflowVersion, contactPointRef, customerRef, status, lastNodeId, outcome, interactionId, expiresAt,
 * createdAt, completedAt}`, instants as ISO 8601 (Z) or null.
 */
export function voiceDispatchView(row: typeof voiceDispatches.$inferSelect) {
  return {
    dispatchId: row.id,
    resourceId: row.id,
    caseId: row.caseId,
    taskId: row.taskId,
    workflowId: row.workflowId,
    workflowVersion: row.workflowVersion,
    contactPointRef: row.contactPointRef,
    customerRef: row.customerRef,
    status: row.status,
    lastNodeId: row.lastNodeId,
    outcome: row.outcome,
    interactionId: row.interactionId,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt ? row.completedAt.toISOString() : null,
  };
}

export type VoiceDispatchView = ReturnType<typeof voiceDispatchView>;

/** Dispatch `dispatchId` of the tenant, or null. */
export async function getVoiceDispatch(
  db: Db,
  tenantId: string,
  dispatchId: number,
): Promise<VoiceDispatchView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(voiceDispatches)
      .where(and(eq(voiceDispatches.tenantId, tenantId), eq(voiceDispatches.id, dispatchId))),
  );
  return row ? voiceDispatchView(row) : null;
}
