/**
 * Admission of webhook delivery attempts (DESIGN §5 Webhooks; Svix endpoint throttling and
 * disabling): the durable circuit breaker of each endpoint and the slots of each tenant's cap on
 * concurrent attempts. In PostgreSQL, not in a worker's memory, because many workers deliver the
 * same tenant's events (domain/webhooks/circuit-breaker.ts has the rules). Tenant-owned, under
 * row-level security (DESIGN §3).
 */
import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { instant, tenantId, tenantIsolation } from './columns';

/** One row per subscription that has had an attempt; absent = CLOSED with no failures. */
export const webhookEndpointBreakers = pgTable(
  'webhook_endpoint_breakers',
  {
    tenantId: tenantId(),
    /** The subscription (the endpoint) this breaker guards. */
    subscriptionId: bigint({ mode: 'number' }).notNull(),
    /** `CLOSED`, `OPEN` or `HALF_OPEN`. */
    state: text().notNull().default('CLOSED'),
    /** Failed attempts since the last success. */
    consecutiveFailures: integer().notNull().default(0),
    /** Openings since the last success (the open time doubles with each). */
    openings: integer().notNull().default(0),
    /** OPEN: no attempt is sent before this instant. */
    openUntil: instant(),
    /** HALF_OPEN: the delivery (`whd_…`) sending the probe, and until when it holds it. */
    probeDeliveryId: text(),
    probeUntil: instant(),
    updatedAt: instant().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.subscriptionId] }),
    tenantIsolation('webhook_endpoint_breakers'),
  ],
).enableRLS();

/** One row per delivery attempt in flight (a slot of its tenant's cap), deleted when its outcome is recorded. */
export const webhookDeliverySlots = pgTable(
  'webhook_delivery_slots',
  {
    tenantId: tenantId(),
    /** `whd_…`: the delivery whose attempt holds the slot. */
    deliveryId: text().notNull(),
    subscriptionId: bigint({ mode: 'number' }).notNull(),
    /** The slot frees itself after this instant (a worker that died mid-attempt). */
    expiresAt: instant().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.deliveryId] }),
    index().on(t.tenantId, t.expiresAt),
    tenantIsolation('webhook_delivery_slots'),
  ],
).enableRLS();

/**
 * The start pacing of each tenant's webhook deliveries (domain/webhooks/start-pacing.ts): the GCRA's theoretical
 * arrival time of the tenant's next start. One row per tenant that has had a delivery; the outbox relay locks it
 * while it plans a pass's starts, so relays in several workers share one pace.
 */
export const webhookStartPacing = pgTable(
  'webhook_start_pacing',
  {
    tenantId: tenantId(),
    /** When the tenant's next delivery start is due at the paced rate. */
    theoreticalAt: instant().notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId] }), tenantIsolation('webhook_start_pacing')],
).enableRLS();
