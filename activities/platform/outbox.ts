/**
 * The transactional outbox writer (docs/design.md §3 "State changes that others must hear about write an
 * outbox row in the same transaction"; docs/processes.md P0 Outbox relay, Typed event catalogue).
 * Every operation that emits an event calls it inside its own transaction; the relay turns the
 * rows into webhook deliveries later.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { insertJsonRows } from '../../db/queries/json-rows';
import { outboxEvents } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { type EventData, type EventType, eventApiVersion, eventCatalogue } from '../../domain/events';

export interface OutboxEventInput<T extends EventType> {
  tenantId: string;
  /** A catalogue type (domain/events.ts); the subject type comes from the catalogue. */
  eventType: T;
  /** `subject.id` of the envelope (written as text). */
  subjectId: string | number;
  /** The type's `data`, checked against its catalogue schema at run time. */
  data: EventData<T>;
  occurredAt: Date;
  /** Business key that makes a retried write a no-op, e.g. `case/12/closed`. */
  dedupeKey: string;
  /** Only for `webhook.test`: the one subscription that receives it. */
  targetSubscriptionId?: number | null;
}

/**
 * What caused the events written while it is in force, when that is not a live change: `BOARDING` with the batch id
 * for the operations portfolio boarding runs (the migrated history of boarded loans; docs/processes.md P3). Stored on
 * the outbox row (`source`, `boardingBatchId`), delivered as two optional envelope members of the same names
 * (activities/webhooks/envelope.ts) and only to subscriptions with `includeBoardedHistory` (workers/outbox-relay.ts).
 */
export interface EventOrigin {
  source: 'BOARDING';
  /** The boarding batch (`boarding_batches.id`). */
  boardingBatchId: number;
}

const eventOrigin = new AsyncLocalStorage<EventOrigin>();

/**
 * Runs `run` with every outbox event it writes (in its own async context, whatever operation writes it) marked with
 * `origin`; resolves or rejects as `run` does. Portfolio boarding wraps each chunk in it, so the route operations it
 * reuses need no extra parameter and a live call of the same operations is never marked.
 */
export function withEventOrigin<T>(origin: EventOrigin, run: () => Promise<T>): Promise<T> {
  return eventOrigin.run(origin, run);
}

/**
 * Writes one event of the spec's envelope to the outbox, with `eventId` `evt_<32 hex>`, the
 * current `eventApiVersion` and the catalogue's subject type. A retry with the same `dedupeKey`
 * is a no-op and returns the first row's `eventId`. Throws a plain Error (a bug, not a business
 * rule) when `data` does not match the catalogue schema of `eventType`.
 */
export async function writeOutboxEvent<T extends EventType>(
  tx: Tx,
  input: OutboxEventInput<T>,
  deferTo?: OutboxBuffer,
): Promise<{ eventId: string; created: boolean }> {
  const row = outboxRowOf(input);
  if (deferTo) {
    deferTo.rows.push(row);
    return { eventId: row.eventId, created: true };
  }
  const [inserted] = await tx
    .insert(outboxEvents)
    .values(row)
    .onConflictDoNothing({ target: [outboxEvents.tenantId, outboxEvents.dedupeKey] })
    .returning({ eventId: outboxEvents.eventId });
  if (inserted) return { eventId: inserted.eventId, created: true };
  const [existing] = await tx
    .select({ eventId: outboxEvents.eventId })
    .from(outboxEvents)
    .where(and(eq(outboxEvents.tenantId, input.tenantId), eq(outboxEvents.dedupeKey, input.dedupeKey)));
  if (!existing) throw new Error(`outbox event ${input.dedupeKey} vanished after a conflict`);
  return { eventId: existing.eventId, created: false };
}

/**
 * `writeOutboxEvent` for many events of one type in one statement (a loan's boarded payment history: one
 * `payment.posted` per payment): each `data` checked against the catalogue, one multi-row insert, a retried
 * `dedupeKey` a no-op. Returns how many rows were inserted. Throws a plain Error when a `data` does not match.
 */
export async function writeOutboxEvents<T extends EventType>(
  tx: Tx,
  inputs: readonly OutboxEventInput<T>[],
  deferTo?: OutboxBuffer,
): Promise<number> {
  if (inputs.length === 0) return 0;
  if (deferTo) {
    deferTo.rows.push(...inputs.map(outboxRowOf));
    return inputs.length;
  }
  return insertJsonRows(tx, outboxEvents, inputs.map(outboxRowOf), {
    onConflictDoNothing: { target: [outboxEvents.tenantId, outboxEvents.dedupeKey] },
  });
}

/**
 * Outbox rows held back to be written together, in the order they were added, by ONE multi-row insert at the end of
 * the caller's transaction (`flush`): portfolio boarding writes the events of a whole chunk of loans this way
 * (activities/lending/loan-chunk.ts). Each row is checked against the catalogue and gets its `eventId` and origin when
 * it is added, as `writeOutboxEvent` would; a retried `dedupeKey` is a no-op at the flush. `flush` may run more than
 * once (it writes what is not written yet); `mark` and `truncate` undo what a rolled-back savepoint added or wrote. An event written through a buffer reports `created: true` (its
 * dedupe is only known at the flush): only callers that do not branch on it may defer.
 */
export class OutboxBuffer {
  readonly rows: (typeof outboxEvents.$inferInsert)[] = [];
  /** How many of `rows` are written. */
  private written = 0;
  /** Where the buffer stands (a position for `truncate`). */
  mark(): BufferMark {
    return { held: this.rows.length, written: this.written };
  }
  /**
   * Back to `mark` after the savepoint taken there rolled back: drops the rows added since, and takes the rows
   * written since (their insert rolled back with the savepoint) as not written.
   */
  truncate(mark: BufferMark): void {
    this.rows.length = mark.held;
    this.written = Math.min(this.written, mark.written);
  }
  /** Inserts the rows not yet written in one statement (`ON CONFLICT (tenant_id, dedupe_key) DO NOTHING`). */
  async flush(tx: Tx): Promise<number> {
    const rows = this.rows.slice(this.written);
    this.written = this.rows.length;
    return insertJsonRows(tx, outboxEvents, rows, {
      onConflictDoNothing: { target: [outboxEvents.tenantId, outboxEvents.dedupeKey] },
    });
  }
}

/** A position in a write buffer: rows held, and rows of them written (`OutboxBuffer`, `CustomerHistoryBuffer`). */
export interface BufferMark {
  held: number;
  written: number;
}

/**
 * The outbox row of an event: `data` checked against its catalogue schema (a plain Error when it does not match,
 * a bug), a fresh `evt_<32 hex>` id, the current `eventApiVersion`, the catalogue's subject type and the
 * `EventOrigin` in force (`withEventOrigin`), if any.
 */
function outboxRowOf<T extends EventType>(
  input: OutboxEventInput<T>,
): typeof outboxEvents.$inferInsert & { eventId: string } {
  const definition = eventCatalogue[input.eventType];
  if (!definition) throw new Error(`${String(input.eventType)} is not a catalogue event type`);
  const checked = v.safeParse(definition.data, input.data);
  if (!checked.success) {
    const problems = checked.issues
      .map((issue) => `${v.getDotPath(issue) ?? 'data'}: ${issue.message}`)
      .join('; ');
    throw new Error(`${input.eventType} data does not match the event catalogue: ${problems}`);
  }
  const origin = eventOrigin.getStore();
  return {
    tenantId: input.tenantId,
    eventId: `evt_${randomUUID().replace(/-/g, '')}`,
    eventType: input.eventType,
    apiVersion: eventApiVersion,
    occurredAt: input.occurredAt,
    subjectType: definition.subjectType,
    subjectId: String(input.subjectId),
    data: checked.output,
    dedupeKey: input.dedupeKey,
    targetSubscriptionId: input.targetSubscriptionId ?? null,
    source: origin?.source ?? null,
    boardingBatchId: origin?.boardingBatchId ?? null,
  };
}
