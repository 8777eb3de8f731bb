/**
 * INTERIM (issue 6, delivery helper): the event envelope (spec § Events). The catalogue helper
 * provides the envelope type in `domain/events.ts`; when merged, import `WebhookEnvelope` from
 * there and keep `envelopeBody` (it fixes the key order, so the bytes sent are stable).
 */
import type { outboxEvents } from '../../db/schema';

/** The spec's envelope; `apiVersion` is the subscription's (DESIGN-processes P2). */
export interface WebhookEnvelope {
  eventId: string;
  eventType: string;
  /** `YYYY-MM-DD`. */
  apiVersion: string;
  /** ISO 8601 instant with `Z`. */
  occurredAt: string;
  subject: { type: string; id: string };
  data: Record<string, unknown>;
}

/** The exact JSON text sent for `event` to a subscription of `apiVersion`. */
export function envelopeBody(event: typeof outboxEvents.$inferSelect, apiVersion: string): string {
  const envelope: WebhookEnvelope = {
    eventId: event.eventId,
    eventType: event.eventType,
    apiVersion,
    occurredAt: event.occurredAt.toISOString(),
    subject: { type: event.subjectType, id: event.subjectId },
    data: event.data as Record<string, unknown>,
  };
  return JSON.stringify(envelope);
}
