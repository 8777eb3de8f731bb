import { and, eq } from 'drizzle-orm';
import { interactions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps, OperationContext } from '../deps';
import { holdOpenCase, recordEffect, rowOfRequestKey } from './records';

export type InteractionChannel = 'PHONE' | 'SMS' | 'EMAIL' | 'CHAT' | 'LETTER' | 'VOICE';

export interface LogInteractionInput extends OperationContext {
  customerRef: string;
  caseId?: number | null;
  channel: InteractionChannel;
  direction: 'INBOUND' | 'OUTBOUND';
  summary: string;
}

/**
 * Records a contact with the customer; when it names a case, an `INTERACTION_LOGGED` effect is
 * appended to that case. Idempotent by `requestKey` (a replay returns the first
 * interaction id before any check). Errors for a named case, with nothing stored (`holdOpenCase`):
 * 404 `error.msg.resource.not.found` (absent or another tenant's), 409
 * `error.msg.case.customer.mismatch` (the case is another customer's), 409
 * `error.msg.case.invalid.state.transition` (the case is closed), each naming `caseId`.
 */
export function logInteraction(deps: Deps) {
  return async (input: LogInteractionInput): Promise<{ interactionId: number }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const caseId = input.caseId ?? null;
      if (input.requestKey) {
        const [replayed] = await tx
          .select({ id: interactions.id })
          .from(interactions)
          .where(
            and(eq(interactions.tenantId, input.tenantId), eq(interactions.requestKey, input.requestKey)),
          );
        if (replayed) return { interactionId: replayed.id };
      }
      if (caseId !== null) await holdOpenCase(tx, input.tenantId, caseId, input.customerRef);
      const now = deps.clock();
      const [created] = await tx
        .insert(interactions)
        .values({
          tenantId: input.tenantId,
          customerRef: input.customerRef,
          caseId,
          channel: input.channel,
          direction: input.direction,
          summary: input.summary,
          actorUsername: input.actor ?? null,
          occurredAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [interactions.tenantId, interactions.requestKey] })
        .returning({ id: interactions.id });
      if (!created) {
        const existing = await rowOfRequestKey(tx, interactions, input.tenantId, input.requestKey);
        return { interactionId: existing.id };
      }
      if (caseId !== null) {
        await recordEffect(tx, {
          tenantId: input.tenantId,
          caseId,
          effectType: 'INTERACTION_LOGGED',
          subjectType: 'interaction',
          subjectId: created.id,
          detail: { channel: input.channel, direction: input.direction },
          actor: input.actor,
          correlationId: input.correlationId,
          occurredAt: now,
          dedupeKey: `interaction/${created.id}/logged`,
        });
      }
      return { interactionId: created.id };
    });
}
