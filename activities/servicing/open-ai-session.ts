/**
 * Opens an AI-assisted session (docs/servicing.md "AI sessions and their outputs";
 * docs/processes.md P4 "AI session outputs") on an open case for the case's customer, in one tenant transaction,
 * idempotent by `requestKey`.
 */
import { and, eq } from 'drizzle-orm';
import { type AiSessionRead, aiSessionReadOf } from '../../db/queries/servicing/ai-sessions';
import { aiSessions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { aiSessionIdPrefix } from '../../domain/servicing/ai-sessions';
import type { Deps, OperationContext } from '../deps';
import { mintOpaqueId } from './ai-opaque-ids';
import { holdOpenCase, recordEffect } from './records';

export interface OpenAiSessionInput extends OperationContext {
  caseId: number;
  /** The customer the session is about; must be the case's customer. */
  customerRef: string;
  /** Free text: what the session assists with (guarded at the edge: bounded, no identifiers). */
  purpose: string;
}

/**
 * Opens an AI session on an open case of the tenant, for that case's customer, and appends `AI_SESSION_OPENED`
 * to the case's effects. Idempotent by `requestKey` (a replay returns the first session before any check).
 * Errors, nothing stored (`holdOpenCase`): 404 `error.msg.resource.not.found` naming `caseId` (absent or another
 * tenant's); 409 `error.msg.case.customer.mismatch` (the case is another customer's); 409
 * `error.msg.case.invalid.state.transition` (the case is closed).
 */
export function openAiSession(deps: Deps) {
  return async (input: OpenAiSessionInput): Promise<AiSessionRead> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [replayed] = await tx
          .select()
          .from(aiSessions)
          .where(and(eq(aiSessions.tenantId, input.tenantId), eq(aiSessions.requestKey, input.requestKey)));
        if (replayed) return aiSessionReadOf(replayed);
      }
      await holdOpenCase(tx, input.tenantId, input.caseId, input.customerRef);
      const now = deps.clock();
      const [created] = await tx
        .insert(aiSessions)
        .values({
          id: mintOpaqueId(aiSessionIdPrefix),
          tenantId: input.tenantId,
          caseId: input.caseId,
          customerRef: input.customerRef,
          purpose: input.purpose,
          actorUsername: input.actor ?? null,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [aiSessions.tenantId, aiSessions.requestKey] })
        .returning();
      if (!created) {
        const [existing] = await tx
          .select()
          .from(aiSessions)
          .where(
            and(eq(aiSessions.tenantId, input.tenantId), eq(aiSessions.requestKey, input.requestKey ?? '')),
          );
        if (!existing) throw new Error('ai_sessions row vanished after a request-key conflict');
        return aiSessionReadOf(existing);
      }
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        effectType: 'AI_SESSION_OPENED',
        subjectType: 'ai_session',
        subjectId: created.id,
        detail: { aiSessionId: created.id },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
        dedupeKey: `ai-session/${created.id}/opened`,
      });
      return aiSessionReadOf(created);
    });
}
