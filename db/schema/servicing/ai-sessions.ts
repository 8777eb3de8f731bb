/**
 * AI-assisted sessions of the servicing context (docs/servicing.md "AI sessions and their outputs"; docs/processes.md P4
 * "AI session outputs"): a session opened on a case for one customer, the outputs produced in it, and the
 * evidence each output cites. Every table is tenant-owned and under row-level security (docs/design.md §3); references
 * are tenant-consistent foreign keys, so an output can only cite evidence of its own tenant.
 *
 * Ids of sessions and outputs are opaque strings (`ais_…`, `aio_…`; docs/design.md §3: opaque refs are strings),
 * minted by the creating operation (domain/servicing/ai-sessions.ts).
 */
import { bigint, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, tenantId, tenantIsolation, tenantKey, tenantReference } from '../columns';
import { cases, evidence, tasks } from './servicing';

export const aiSessions = pgTable(
  'ai_sessions',
  {
    /** `ais_` + 24 letters. */
    id: text().primaryKey(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }).notNull(),
    customerRef: text().notNull(),
    purpose: text().notNull(),
    /** Optimistic-concurrency version: 1 at creation, +1 per accepted output (`If-Match` of the outputs route). */
    version: integer().notNull().default(1),
    actorUsername: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    /** `<clientId>/<Idempotency-Key>` of the create call, when one was sent. */
    requestKey: text(),
  },
  (t) => [
    tenantKey('ai_sessions', t),
    tenantReference('ai_sessions_case_fk', t, t.caseId, cases),
    index().on(t.tenantId, t.caseId),
    uniqueIndex('ai_sessions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('ai_sessions'),
  ],
).enableRLS();

export const aiSessionOutputs = pgTable(
  'ai_session_outputs',
  {
    /** `aio_` + 24 letters. */
    id: text().primaryKey(),
    tenantId: tenantId(),
    sessionId: text().notNull(),
    /** 1 for the session's first output, +1 each: the list order. */
    sequence: integer().notNull(),
    /** domain/servicing/ai-sessions.ts `aiOutputTypes`. */
    outputType: text().notNull(),
    content: text().notNull(),
    /** `high`, `medium` or `low`. */
    confidence: text().notNull(),
    /** `produced`. */
    status: text().notNull(),
    reviewRequired: boolean().notNull(),
    /** The `AI_OUTPUT_REVIEW` task opened on the session's case when review is required. */
    reviewTaskId: bigint({ mode: 'number' }),
    actorUsername: text(),
    createdAt: createdAt(),
    /** `<clientId>/<Idempotency-Key>` of the create call, when one was sent. */
    requestKey: text(),
  },
  (t) => [
    tenantKey('ai_session_outputs', t),
    tenantReference('ai_session_outputs_session_fk', t, t.sessionId, aiSessions),
    tenantReference('ai_session_outputs_review_task_fk', t, t.reviewTaskId, tasks),
    uniqueIndex('ai_session_outputs_session_sequence_idx').on(t.tenantId, t.sessionId, t.sequence),
    uniqueIndex('ai_session_outputs_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('ai_session_outputs'),
  ],
).enableRLS();

/** The citations of an output, in the order sent: each a fact and the evidence that supports it. */
export const aiOutputCitations = pgTable(
  'ai_output_citations',
  {
    tenantId: tenantId(),
    outputId: text().notNull(),
    /** 0-based position in the output's `citations` array. */
    position: integer().notNull(),
    fact: text().notNull(),
    evidenceId: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.outputId, t.position] }),
    tenantReference('ai_output_citations_output_fk', t, t.outputId, aiSessionOutputs),
    tenantReference('ai_output_citations_evidence_fk', t, t.evidenceId, evidence),
    index().on(t.tenantId, t.evidenceId),
    tenantIsolation('ai_output_citations'),
  ],
).enableRLS();
