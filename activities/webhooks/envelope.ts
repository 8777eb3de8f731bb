/**
 * The bytes of a delivery: the spec's envelope (spec § Events; `EventEnvelope` of domain/events.ts)
 * of an outbox row, with the subscription's `apiVersion` (DESIGN-processes P2), serialized with a
 * fixed key order so every retry sends the same bytes.
 */
import type { outboxEvents } from '../../db/schema';
import type { EventEnvelope } from '../../domain/events';

/** The exact JSON text sent for `event` to a subscription of `apiVersion`. */
export function envelopeBody(event: typeof outboxEvents.$inferSelect, apiVersion: string): string {
  const envelope = {
    eventId: event.eventId,
    eventType: event.eventType,
    apiVersion,
    occurredAt: event.occurredAt.toISOString(),
    subject: { type: event.subjectType, id: event.subjectId },
    data: event.data,
  } as EventEnvelope;
  return JSON.stringify(envelope);
}
