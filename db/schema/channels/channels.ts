/**
 * Channels context: inbound channel events from messaging and voice gateways (docs/processes.md P2,
 * docs/design.md §5 "Inbound channel events"; docs/processes.md P2).
 *
 * Gateways and their secrets are platform tables without row-level security: the gateway code in
 * the callback path selects the tenant, so they are read before a tenant is known (like API
 * clients). Verifying a gateway signature needs the secret itself (HMAC), so it is stored
 * encrypted (AES-256-GCM under the data-encryption key), never in clear. Channel events are
 * tenant rows under RLS, unique per (gateway, eventId): the durable record made before any 2xx.
 */
import { index, jsonb, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, identityId, instant, tenantId, tenantIsolation } from '../columns';
import { tenants } from '../platform/platform';

export const channelGateways = pgTable(
  'channel_gateways',
  {
    /** Lower-case letters, digits and hyphens, 1–64; appears in the callback path. Unique across tenants. */
    code: text().primaryKey(),
    tenantId: text()
      .notNull()
      .references(() => tenants.id),
    createdAt: createdAt(),
    disabledAt: instant(),
  },
  (t) => [index().on(t.tenantId)],
);

export const channelGatewaySecrets = pgTable(
  'channel_gateway_secrets',
  {
    id: identityId(),
    gatewayCode: text()
      .notNull()
      .references(() => channelGateways.code),
    /** AES-256-GCM ciphertext of the `gws_…` secret. */
    secretCiphertext: text().notNull(),
    createdAt: createdAt(),
    /** Null while current; set when a rotation retires it. */
    expiresAt: instant(),
  },
  (t) => [index().on(t.gatewayCode)],
);

/** RECEIVED on insert; PROCESSED once its handling ran; IGNORED when its type or content needs nothing. */
export const channelEventStatus = pgEnum('channel_event_status', ['RECEIVED', 'PROCESSED', 'IGNORED']);

export const channelEvents = pgTable(
  'channel_events',
  {
    id: identityId(),
    tenantId: tenantId(),
    gatewayCode: text().notNull(),
    /** The gateway's own event id: the dedupe key with the gateway code. */
    eventId: text().notNull(),
    eventType: text().notNull(),
    occurredAt: instant().notNull(),
    data: jsonb().notNull().$type<Record<string, unknown>>(),
    receivedAt: createdAt(),
    status: channelEventStatus().notNull().default('RECEIVED'),
    processedAt: instant(),
    /** What processing did, e.g. `{consentsRevoked: [12]}`, `{interactionId: 7}`. */
    outcome: jsonb().$type<Record<string, unknown>>(),
  },
  (t) => [
    uniqueIndex('channel_events_gateway_event_idx').on(t.gatewayCode, t.eventId),
    index().on(t.tenantId, t.id),
    tenantIsolation('channel_events'),
  ],
).enableRLS();
