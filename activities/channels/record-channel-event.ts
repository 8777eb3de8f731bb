/**
 * Records an inbound channel event (docs/processes.md P2; docs/design.md §5 "Inbound channel events"): the durable
 * record made before the gateway gets its 2xx, with the start intent of the `channelEventWorkflow` that processes
 * it (process-channel-event.ts).
 */
import { and, eq } from 'drizzle-orm';
import { channelEvents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { channelEventStartSpec } from '../../domain/channels/channel-event';
import type { Deps } from '../deps';
import { recordStartIntent } from '../platform/start-intents';

export interface RecordChannelEventInput {
  tenantId: string;
  gatewayCode: string;
  /** The gateway's event id (1–128 of `A–Z a–z 0–9 . _ : -`), unique per gateway. */
  eventId: string;
  eventType: string;
  /** ISO 8601 instant with offset. */
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface RecordChannelEventResult {
  channelEventId: number;
  /** True when (gatewayCode, eventId) was recorded before: nothing was written. */
  duplicate: boolean;
  /** RECEIVED until processing ran. */
  status: 'RECEIVED' | 'PROCESSED' | 'IGNORED';
}

/**
 * Inserts the event unless (gatewayCode, eventId) is already recorded (unique index), with the
 * start intent of its processing workflow, in one transaction; the caller answers 2xx only after
 * this returns, and the start-intent relay starts the workflow should the caller not. Idempotent.
 */
export function recordChannelEvent(deps: Deps) {
  return async (input: RecordChannelEventInput): Promise<RecordChannelEventResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [created] = await tx
        .insert(channelEvents)
        .values({
          tenantId: input.tenantId,
          gatewayCode: input.gatewayCode,
          eventId: input.eventId,
          eventType: input.eventType,
          occurredAt: new Date(input.occurredAt),
          data: input.data,
          receivedAt: deps.clock(),
        })
        .onConflictDoNothing({ target: [channelEvents.gatewayCode, channelEvents.eventId] })
        .returning({ id: channelEvents.id });
      if (created) {
        await recordStartIntent(
          tx,
          channelEventStartSpec({
            tenantId: input.tenantId,
            gatewayCode: input.gatewayCode,
            eventId: input.eventId,
            eventType: input.eventType,
          }),
          deps.clock(),
        );
        return { channelEventId: created.id, duplicate: false, status: 'RECEIVED' };
      }
      const [existing] = await tx
        .select({ id: channelEvents.id, status: channelEvents.status })
        .from(channelEvents)
        .where(
          and(eq(channelEvents.gatewayCode, input.gatewayCode), eq(channelEvents.eventId, input.eventId)),
        );
      if (!existing)
        throw new Error(`channel event ${input.gatewayCode}/${input.eventId} vanished after a conflict`);
      return { channelEventId: existing.id, duplicate: true, status: existing.status };
    });
}
