import { and, eq } from 'drizzle-orm';
import { cases, interactions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { recordEffect, rowOfRequestKey } from './records';

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
 * appended to that case (issue 2 §6). Idempotent by `requestKey`.
 * Errors: 400 (parameterName `caseId`) when the case is not the tenant's.
 */
export function logInteraction(deps: Deps) {
  return async (input: LogInteractionInput): Promise<{ interactionId: number }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const caseId = input.caseId ?? null;
      if (caseId !== null) {
        const [found] = await tx
          .select({ id: cases.id })
          .from(cases)
          .where(and(eq(cases.tenantId, input.tenantId), eq(cases.id, caseId)));
        if (!found) throw validationError('caseId', caseId, `Case ${caseId} was not found.`);
      }
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
