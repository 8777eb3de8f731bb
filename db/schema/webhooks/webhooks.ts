/**
 * Webhooks context (docs/integrating.md "Webhooks"; docs/design.md §5 Webhooks; docs/processes.md P2): subscriptions with
 * their signing secrets, one delivery per (event, subscription) and the append-only attempts of
 * each delivery. Every table is tenant-owned and under row-level security (docs/design.md §3).
 *
 * Signing needs the secret itself (HMAC), so secrets are stored encrypted (AES-256-GCM with the
 * data-encryption key), never in clear and never returned after the create / rotate answer.
 */
import { bigint, boolean, index, integer, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, identityId, instant, tenantId, tenantIsolation } from '../columns';

/** ACTIVE receives events; INACTIVE was deactivated by the integrator; DISABLED by the service (410, 5 days of failures). */
export const webhookSubscriptionStatus = pgEnum('webhook_subscription_status', [
  'ACTIVE',
  'INACTIVE',
  'DISABLED',
]);

export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: identityId(),
    tenantId: tenantId(),
    url: text().notNull(),
    /** Catalogue event types (domain/events.ts) this subscription receives. */
    eventTypes: text().array().notNull(),
    /** `YYYY-MM-DD`: the envelope's `apiVersion` for this subscription. */
    apiVersion: text().notNull(),
    description: text().notNull(),
    status: webhookSubscriptionStatus().notNull().default('ACTIVE'),
    /** Why the service disabled it (`GONE` on a 410, `FAILING` after 5 days of failures). */
    disabledReason: text(),
    /** Optimistic-concurrency version: the `ETag` of reads, `If-Match` of PATCH; +1 on every change. */
    version: integer().notNull().default(1),
    /** Version of the newest signing secret; 1 at creation, +1 per rotation. */
    secretVersion: integer().notNull().default(1),
    /**
     * Also receive the events of portfolio boarding (outbox `source` `BOARDING`: the migrated history of boarded
     * loans); false by default, so boarding does not flood receivers. `boarding.batch.completed` is not one of them.
     */
    includeBoardedHistory: boolean().notNull().default(false),
    /** Start of the current run of failed deliveries; null while deliveries succeed. */
    failingSince: instant(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    /** `<clientId>/<Idempotency-Key>` of the create call, when one was sent. */
    requestKey: text(),
  },
  (t) => [
    index().on(t.tenantId, t.id),
    index().on(t.tenantId, t.status),
    uniqueIndex('webhook_subscriptions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('webhook_subscriptions'),
  ],
).enableRLS();

export const webhookSecrets = pgTable(
  'webhook_secrets',
  {
    id: identityId(),
    tenantId: tenantId(),
    subscriptionId: bigint({ mode: 'number' })
      .notNull()
      .references(() => webhookSubscriptions.id),
    secretVersion: integer().notNull(),
    /** AES-256-GCM ciphertext of the `whsec_…` secret (base64 of iv | tag | ciphertext). */
    secretCiphertext: text().notNull(),
    createdAt: createdAt(),
    /** Null while current; set when a rotation retires it (signatures stop after this instant). */
    expiresAt: instant(),
  },
  (t) => [
    uniqueIndex('webhook_secrets_subscription_version_idx').on(t.subscriptionId, t.secretVersion),
    tenantIsolation('webhook_secrets'),
  ],
).enableRLS();

export const webhookDeliveryState = pgEnum('webhook_delivery_state', [
  'PENDING',
  'RETRYING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
]);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** `whd_…`: the `Service-Webhook-Id` header, stable across the retries of this delivery. */
    deliveryId: text().notNull().unique(),
    subscriptionId: bigint({ mode: 'number' })
      .notNull()
      .references(() => webhookSubscriptions.id),
    /** The outbox event's `eventId` (`evt_…`). */
    eventId: text().notNull(),
    eventType: text().notNull(),
    state: webhookDeliveryState().notNull().default('PENDING'),
    attemptCount: integer().notNull().default(0),
    /** When the next attempt is planned; null once the delivery has ended. */
    nextAttemptAt: instant(),
    createdAt: createdAt(),
    completedAt: instant(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_subscription_event_idx').on(t.subscriptionId, t.eventId),
    index().on(t.tenantId, t.subscriptionId, t.id),
    tenantIsolation('webhook_deliveries'),
  ],
).enableRLS();

/** Append-only: one row per HTTP attempt of a delivery. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: identityId(),
    tenantId: tenantId(),
    deliveryId: text()
      .notNull()
      .references(() => webhookDeliveries.deliveryId),
    /** 1-based attempt number. */
    attempt: integer().notNull(),
    at: instant().notNull(),
    /** HTTP status answered; null when no answer came (timeout, refused, blocked address). */
    responseStatus: integer(),
    latencyMs: integer().notNull(),
    /** Short reason when no 2xx came (`timeout`, `connection refused`, `blocked address`, `HTTP 500`). */
    error: text(),
  },
  (t) => [
    uniqueIndex('webhook_delivery_attempts_delivery_attempt_idx').on(t.deliveryId, t.attempt),
    tenantIsolation('webhook_delivery_attempts'),
  ],
).enableRLS();
