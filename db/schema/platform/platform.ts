/**
 * Platform context: tenants, API clients, their secrets and access tokens (docs/design.md §4 Tokens), and
 * the idempotency-key store. Tenants, clients and tokens are read before a tenant is known (token
 * look-up), so they carry no row-level security; the idempotency store does.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { makerCheckerPolicies } from '../../../domain/maker-checker';
import { createdAt, identityId, instant, tenantId, tenantIsolation } from '../columns';

export const serviceEnvironment = pgEnum('service_environment', ['sandbox', 'production']);

export const tenants = pgTable(
  'tenants',
  {
    id: text().primaryKey(),
    displayName: text().notNull(),
    /** IANA zone in which statutory due days end (docs/design.md §5). */
    complianceTimeZone: text().notNull().default('America/Los_Angeles'),
    /**
     * Maker-checker policy (domain/maker-checker.ts): `distinct-client` (default: the checker is another OAuth client
     * and another actor) or `same-client-distinct-actor`. Set with `npm run admin -- tenants settings`.
     */
    makerCheckerPolicy: text({ enum: makerCheckerPolicies }).notNull().default('distinct-client'),
    /** Days an installment stays overdue before an overdue charge is assessed (Fineract `penalty-wait-period`). */
    penaltyWaitPeriodDays: integer().notNull().default(2),
    /** Days before a due date that `loan.repayment.due` is sent (Fineract `days-before-repayment-is-due`). */
    dueDaysForRepaymentEvent: integer().notNull().default(3),
    /** Days after a due date that `loan.repayment.overdue` is sent (Fineract `days-after-repayment-is-overdue`). */
    overdueDaysForRepaymentEvent: integer().notNull().default(1),
    createdAt: createdAt(),
  },
  (t) => [
    check(
      'tenants_close_of_business_days_check',
      sql`${t.penaltyWaitPeriodDays} >= 0 and ${t.dueDaysForRepaymentEvent} >= 0 and ${t.overdueDaysForRepaymentEvent} >= 0`,
    ),
    check(
      'tenants_maker_checker_policy_check',
      sql`${t.makerCheckerPolicy} in ('distinct-client', 'same-client-distinct-actor')`,
    ),
  ],
);

export const apiClients = pgTable(
  'api_clients',
  {
    clientId: text().primaryKey(),
    tenantId: text()
      .notNull()
      .references(() => tenants.id),
    environment: serviceEnvironment().notNull(),
    scopes: text().array().notNull(),
    /** Permission names, or `['ALL']`. */
    permissions: text().array().notNull(),
    /** Requests per second for this client; null takes the environment default. */
    rateLimitPerSecond: integer(),
    description: text(),
    createdAt: createdAt(),
    disabledAt: instant(),
  },
  (t) => [index().on(t.tenantId)],
);

export const clientSecrets = pgTable(
  'client_secrets',
  {
    id: identityId(),
    clientId: text()
      .notNull()
      .references(() => apiClients.clientId),
    /** Hex HMAC-SHA256(pepper, secret); the secret itself is shown once and never stored. */
    secretDigest: text().notNull(),
    createdAt: createdAt(),
    /** Null while the secret has no end; set when a rotation retires it. */
    expiresAt: instant(),
  },
  (t) => [index().on(t.clientId)],
);

export const accessTokens = pgTable(
  'access_tokens',
  {
    /** Hex SHA-256 of the opaque token. */
    tokenDigest: text().primaryKey(),
    clientId: text()
      .notNull()
      .references(() => apiClients.clientId),
    tenantId: text().notNull(),
    environment: serviceEnvironment().notNull(),
    scopes: text().array().notNull(),
    issuedAt: createdAt(),
    expiresAt: instant().notNull(),
  },
  (t) => [index().on(t.expiresAt)],
);

export const idempotencyState = pgEnum('idempotency_state', ['IN_FLIGHT', 'COMPLETED']);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: tenantId(),
    environment: serviceEnvironment().notNull(),
    clientId: text().notNull(),
    key: text().notNull(),
    fingerprint: text().notNull(),
    routeTemplate: text().notNull(),
    state: idempotencyState().notNull(),
    /** While IN_FLIGHT: until when the first request holds the key (a crashed holder frees it). */
    lockedUntil: instant().notNull(),
    responseStatus: integer(),
    /** The response body exactly as sent (text, not jsonb: jsonb reorders keys), replayed byte for byte. */
    responseBody: text(),
    responseHeaders: jsonb().$type<Record<string, string>>(),
    createdAt: createdAt(),
    completedAt: instant(),
    /** 24 h after completion (docs/design.md §4). */
    expiresAt: instant(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.environment, t.clientId, t.key] }),
    index().on(t.expiresAt),
    tenantIsolation('idempotency_keys'),
  ],
).enableRLS();

/** Transactional outbox: events written with the state change, relayed to webhooks later. */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** `evt_` + opaque id; unique, the receivers' dedupe key. */
    eventId: text().notNull().unique(),
    eventType: text().notNull(),
    apiVersion: text().notNull(),
    occurredAt: instant().notNull(),
    subjectType: text().notNull(),
    subjectId: text().notNull(),
    data: jsonb().notNull(),
    /** Business key that makes a retried write a no-op, e.g. `case/12/closed`. */
    dedupeKey: text().notNull(),
    /** Set for `webhook.test`: delivered to this subscription only, whatever its event types. */
    targetSubscriptionId: bigint({ mode: 'number' }),
    /**
     * What caused the event when it is not a live change: `BOARDING` for an event written while boarding a batch
     * (the migrated history), delivered only to subscriptions with `includeBoardedHistory`; null for every other.
     */
    source: text({ enum: ['BOARDING'] }),
    /** The boarding batch whose boarding wrote the event (set exactly when `source` is `BOARDING`). */
    boardingBatchId: bigint({ mode: 'number' }),
    publishedAt: instant(),
  },
  (t) => [
    check(
      'outbox_events_boarding_source_check',
      sql`(${t.source} is null and ${t.boardingBatchId} is null) or (${t.source} = 'BOARDING' and ${t.boardingBatchId} is not null)`,
    ),
    index().on(t.id).where(sql`${t.publishedAt} is null`),
    // The relay's fair claim: the tenants with unpublished events (a skip scan) and each one's oldest.
    index('outbox_events_unpublished_tenant_idx').on(t.tenantId, t.id).where(sql`${t.publishedAt} is null`),
    uniqueIndex('outbox_events_tenant_dedupe_idx').on(t.tenantId, t.dedupeKey),
    tenantIsolation('outbox_events'),
  ],
).enableRLS();

/**
 * Start intents (docs/processes.md P0): the one generic way a process start survives a crash. The
 * operation that stores the row a process is started for writes its intent in the same
 * transaction; the API starts the workflow after commit and marks the intent started; the
 * start-intent relay (workers/start-intent-relay.ts) starts intents still unstarted after a grace
 * period. Starting is idempotent (deterministic workflow ids), so a double start is harmless.
 */
export const workflowStartIntents = pgTable(
  'workflow_start_intents',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** Deterministic id `<process>/<tenant>/<businessId>`. */
    workflowId: text().notNull().unique(),
    workflowType: text().notNull(),
    taskQueue: text().notNull(),
    /** The workflow's one argument. */
    input: jsonb().notNull(),
    /** `{CustomerRef?, CaseId?, LoanId?}`; TenantId comes from `tenant_id`. */
    searchAttributes: jsonb().notNull(),
    staticSummary: text().notNull(),
    idReusePolicy: text().notNull(),
    createdAt: createdAt(),
    /** Set once the workflow is known to run (or to have run). */
    startedAt: instant(),
    /** A relay holds the intent until then; another relay skips it. */
    claimedUntil: instant(),
    /** Relay start attempts so far. */
    attempts: integer().notNull().default(0),
    lastError: text(),
  },
  (t) => [
    index('workflow_start_intents_unstarted_idx').on(t.createdAt).where(sql`${t.startedAt} is null`),
    tenantIsolation('workflow_start_intents'),
  ],
).enableRLS();
