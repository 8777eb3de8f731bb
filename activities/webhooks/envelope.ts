/**
 * The bytes of a delivery: the envelope (docs/integrating.md "Webhooks"; `EventEnvelope` of domain/events.ts)
 * of an outbox row, with the subscription's `apiVersion` (docs/processes.md P2), serialized with a
 * fixed key order so every retry sends the same bytes.
 */
import type { outboxEvents } from '../../db/schema';
import type { EventEnvelope } from '../../domain/events';

/**
 * The exact JSON text sent for `event` to a subscription of `apiVersion`. An event of portfolio boarding (outbox
 * `source` `BOARDING`) carries two more top-level members after `data`, `"source": "BOARDING"` and
 * `"boardingBatchId": <integer>` (`EventEnvelope`); every other envelope is exactly the spec's six members.
 */
export function envelopeBody(event: typeof outboxEvents.$inferSelect, apiVersion: string): string {
  const envelope = {
    eventId: event.eventId,
    eventType: event.eventType,
    apiVersion,
    occurredAt: event.occurredAt.toISOString(),
    subject: { type: event.subjectType, id: event.subjectId },
    data: event.data,
    ...(event.source === 'BOARDING' && event.boardingBatchId !== null
      ? { source: event.source, boardingBatchId: event.boardingBatchId }
      : {}),
  } as EventEnvelope;
  return JSON.stringify(envelope);
}
