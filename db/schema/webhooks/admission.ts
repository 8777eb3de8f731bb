/**
 * Admission of webhook delivery attempts (docs/design.md §5 Webhooks; Svix endpoint throttling and
 * disabling): the durable circuit breaker of each endpoint and the slots of each tenant's cap on
 * concurrent attempts. In PostgreSQL, not in a worker's memory, because many workers deliver the
 * same tenant's events (domain/webhooks/circuit-breaker.ts has the rules). Tenant-owned, under
 * row-level security (docs/design.md §3).
 */
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { identityId, instant, tenantId, tenantIsolation } from '../columns';

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
    /**
     * While not CLOSED: the one waiting delivery (`whd_…`) that holds a timer to the breaker's next change (its
     * open time or its probe's lease ending), and when that timer fires. The endpoint's other waiting deliveries
     * hold no timer of their own but a row in `webhook_admission_waiters`; they are woken when a slot or the
     * endpoint frees. Another delivery takes the part when this one is overdue (its workflow ended or lost).
     */
    wakerDeliveryId: text(),
    wakerUntil: instant(),
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

/**
 * The deliveries waiting for admission (`admitWebhookAttempt` refused them: their tenant at its cap, or their
 * endpoint's breaker open) that hold no timer to ask again but wait for a wake-up signal: whoever frees a slot or
 * closes a breaker (`recordWebhookAttempt`, `cancelWebhookDelivery`) wakes the oldest that may now go, so a
 * backlog of thousands of waiting deliveries costs no workflow task until its turn. `id` keeps the queue's order
 * (a delivery refused again keeps its place); `wokenAt` marks a wake-up sent and not yet answered. The row goes
 * when the delivery is admitted or cancelled.
 */
export const webhookAdmissionWaiters = pgTable(
  'webhook_admission_waiters',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** `whd_…`. */
    deliveryId: text().notNull(),
    subscriptionId: bigint({ mode: 'number' }).notNull(),
    /** The delivery's workflow id, to signal. */
    workflowId: text().notNull(),
    /** `TENANT_AT_CAPACITY` or `BREAKER_OPEN`: why it was last refused. */
    reason: text().notNull(),
    /** When it first waited. */
    since: instant().notNull(),
    /** When a wake-up was last sent to it; null while it waits for one. */
    wokenAt: instant(),
  },
  (t) => [
    uniqueIndex().on(t.tenantId, t.deliveryId),
    index().on(t.tenantId, t.id),
    tenantIsolation('webhook_admission_waiters'),
  ],
).enableRLS();
