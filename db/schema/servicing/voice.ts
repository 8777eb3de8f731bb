/**
 * Voice-provider control surface (docs/servicing.md "Voice-provider control surface", docs/design.md §5 "Inbound channel events";
 * docs/processes.md P4; docs/design.md §5 "Inbound channel events": the voice task token).
 *
 * - `voice_workflows`: one row per (tenant, workflowId), the counter that numbers versions 1, 2, … without gaps
 *   (an upsert increments it under the row lock, so concurrent creates queue; a rollback returns the number)
 *   and the version currently active.
 * - `voice_workflow_versions`: immutable definitions (the application role may update only `is_active` and
 *   `activated_at`: custom migration), unique per (tenant, workflowId, version), at most one active per
 *   workflow (partial unique index).
 * - `voice_dispatches`: one outbound call of a case's customer by the provider, pinned to the version active at
 *   creation, with the task it opened on the case.
 * - `voice_dispatch_events`: the provider's callback events, append-only, unique per (dispatch, eventId).
 * - `voice_task_tokens`: a platform table without row-level security (like `access_tokens`), read by dispatch id
 *   before a tenant is known: the SHA-256 digest of the dispatch's task token (never the token), its tenant and
 *   its expiry.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { VoiceWorkflowDefinition } from '../../../domain/servicing/voice-workflow';
import {
  createdAt,
  identityId,
  instant,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';
import { cases, tasks } from './servicing';

export const voiceWorkflows = pgTable(
  'voice_workflows',
  {
    tenantId: tenantId(),
    workflowId: text().notNull(),
    /** Number of versions created; the next version is this plus one. */
    versionCount: integer().notNull(),
    /** The active version, or null before the first activation. */
    activeVersion: integer(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.workflowId] }), tenantIsolation('voice_workflows')],
).enableRLS();

export const voiceWorkflowVersions = pgTable(
  'voice_workflow_versions',
  {
    id: identityId(),
    tenantId: tenantId(),
    workflowId: text().notNull(),
    /** 1, 2, … per (tenant, workflowId). */
    version: integer().notNull(),
    label: text().notNull(),
    /** The definition as validated (domain/servicing/voice-workflow.ts); answers rebuild its key order. */
    definition: jsonb().notNull().$type<VoiceWorkflowDefinition>(),
    isActive: boolean().notNull().default(false),
    activatedAt: instant(),
    createdAt: createdAt(),
    /** Idempotency of the create operation: `<clientId>/<Idempotency-Key>` when one was sent. */
    requestKey: text(),
  },
  (t) => [
    tenantKey('voice_workflow_versions', t),
    foreignKey({
      name: 'voice_workflow_versions_workflow_fk',
      columns: [t.tenantId, t.workflowId],
      foreignColumns: [voiceWorkflows.tenantId, voiceWorkflows.workflowId],
    }),
    uniqueIndex('voice_workflow_versions_tenant_workflow_version_idx').on(
      t.tenantId,
      t.workflowId,
      t.version,
    ),
    uniqueIndex('voice_workflow_versions_one_active_idx')
      .on(t.tenantId, t.workflowId)
      .where(sql`${t.isActive}`),
    uniqueIndex('voice_workflow_versions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('voice_workflow_versions'),
  ],
).enableRLS();

export const voiceDispatchStatus = pgEnum('voice_dispatch_status', [
  'DISPATCHED',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'NO_ANSWER',
]);

export const voiceDispatches = pgTable(
  'voice_dispatches',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }).notNull(),
    /**
     * The `VOICE_DISPATCH` task opened on the case (set in the transaction that creates the dispatch: the task
     * names the dispatch); the token works only while it is OPEN.
     */
    taskId: bigint({ mode: 'number' }),
    /** The version pinned at creation (the one active then). */
    workflowVersionId: bigint({ mode: 'number' }).notNull(),
    workflowId: text().notNull(),
    workflowVersion: integer().notNull(),
    contactPointId: bigint({ mode: 'number' }).notNull(),
    contactPointRef: text().notNull(),
    customerRef: text().notNull(),
    status: voiceDispatchStatus().notNull().default('DISPATCHED'),
    /** The node of the last `node.entered` event. */
    lastNodeId: text(),
    /** The terminal event type (`call.completed`, `call.failed`, `call.no_answer`) once the call ended. */
    outcome: text(),
    /** The interaction logged by the terminal event. */
    interactionId: bigint({ mode: 'number' }),
    /** The token stops working at this instant at the latest. */
    expiresAt: instant().notNull(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    completedAt: instant(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('voice_dispatches', t),
    tenantReference('voice_dispatches_case_fk', t, t.caseId, cases),
    tenantReference('voice_dispatches_task_fk', t, t.taskId, tasks),
    tenantReference('voice_dispatches_version_fk', t, t.workflowVersionId, voiceWorkflowVersions),
    index().on(t.tenantId, t.caseId),
    uniqueIndex('voice_dispatches_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('voice_dispatches'),
  ],
).enableRLS();

export const voiceDispatchEvents = pgTable(
  'voice_dispatch_events',
  {
    id: identityId(),
    tenantId: tenantId(),
    dispatchId: bigint({ mode: 'number' }).notNull(),
    /** The provider's event id: the dedupe key within the dispatch. */
    eventId: text().notNull(),
    eventType: text().notNull(),
    nodeId: text(),
    occurredAt: instant().notNull(),
    data: jsonb().notNull().$type<Record<string, unknown>>(),
    receivedAt: createdAt(),
  },
  (t) => [
    tenantReference('voice_dispatch_events_dispatch_fk', t, t.dispatchId, voiceDispatches),
    uniqueIndex('voice_dispatch_events_dispatch_event_idx').on(t.tenantId, t.dispatchId, t.eventId),
    tenantIsolation('voice_dispatch_events'),
  ],
).enableRLS();

export const voiceTaskTokens = pgTable('voice_task_tokens', {
  /** The dispatch the token belongs to (a tenant row; this table is read before the tenant is known). */
  dispatchId: bigint({ mode: 'number' }).primaryKey(),
  tenantId: text().notNull(),
  /** Lower-case hex SHA-256 of the token. */
  tokenDigest: text().notNull(),
  expiresAt: instant().notNull(),
  /** Set when the dispatch's call ended: the token works no more. */
  revokedAt: instant(),
  createdAt: createdAt(),
});
