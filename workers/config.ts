/**
 * Process configuration from the environment (docs/operating.md "What runs where" lists every variable). Secrets the service
 * needs (client-secret pepper, cursor key, data-encryption key) come from the environment; in
 * sandbox without them, they are generated once into the git-ignored data folder so restarts and
 * the admin CLI agree. Production refuses to start without them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deps } from '../activities/deps';
import { createSandboxRail } from '../activities/payments/sandbox-rail';
import type { ApiConfig } from '../api/env';
import { defaultTokenSourceRateLimitPerSecond } from '../api/middleware/rate-limit';
import type { Db } from '../db/client';
import { boardingRawRetentionDaysDefault, boardingRawRetentionDaysMax } from '../domain/boarding/retention';
import { defaultWebhookLimits, type WebhookLimits } from '../domain/webhooks/limits';
import { checkPayloadKeyring, type PayloadKeyring } from './payload-codec';

/**
 * The folder holding package.json: found upwards from this file, so it is the same whether this
 * module runs from `workers/` (tsx) or bundled into `dist/` (plain node).
 */
export const projectRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    dir = parent;
  }
  return dir;
})();

/** Bounds of a worker's workflow memory (Temporal `WorkerOptions`). */
export interface WorkflowCacheLimits {
  /** Workflows kept in the sticky cache; an evicted one is replayed from history when it next runs. */
  maxCachedWorkflows: number;
  /** Workflow tasks run at once (at most `maxCachedWorkflows`). */
  maxConcurrentWorkflowTaskExecutions: number;
}

/**
 * Per queue worker. The SDK's default cache grows with the heap (about 600 workflows per GiB), so a
 * backlog of ~1,600 waiting deliveries held 3.8 GB; 100 bounds a worker's cached workflows to a
 * few hundred MB, and a waiting workflow evicted from it costs only a replay when its timer fires.
 */
export const defaultWorkflowCacheLimits: WorkflowCacheLimits = {
  maxCachedWorkflows: 100,
  maxConcurrentWorkflowTaskExecutions: 10,
};

export interface ServiceConfig {
  environment: 'sandbox' | 'production';
  port: number;
  /** Listen address of the HTTP API (`HOST`, default 127.0.0.1; `0.0.0.0` in a container). */
  host: string;
  /** Connections of this process's PostgreSQL pool (`DATABASE_POOL_SIZE`, default 30: 7 activity slots per queue with every queue in one process). */
  databasePoolSize: number;
  /**
   * Connections of the HTTP API's PostgreSQL pool in each API process (`DATABASE_POOL_SIZE` when set, else
   * `defaultApiPoolSize(cores, API_PROCESSES)`: docs/operating.md "What runs where"). `npm start` gives its API a
   * pool of its own beside the workers' `databasePoolSize`.
   */
  apiDatabasePoolSize: number;
  /** Prebuilt workflow bundle (`WORKFLOW_BUNDLE_PATH`); unset: the build's, or bundle at start. */
  workflowBundlePath: string | undefined;
  /** Unset: the embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | undefined;
  embeddedPostgresPort: number;
  /** Unset: a local Temporal dev server. */
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalPort: number;
  temporalUiPort: number;
  dataDir: string;
  secretPepper: string;
  cursorSigningKey: string;
  /** 64 hex characters: AES-256-GCM key of government identifiers. */
  dataEncryptionKey: string;
  docsUrl: string;
  rateLimitPerSecond: number;
  /** Portfolio search and journal lists per client (`SEARCH_RATE_LIMIT_PER_SECOND`, default 20; docs/design.md §5). */
  searchRateLimitPerSecond: number;
  /** Token requests per source address (`TOKEN_SOURCE_RATE_LIMIT_PER_SECOND`, default 10; api/middleware/rate-limit.ts). */
  tokenSourceRateLimitPerSecond: number;
  /**
   * Public base address of the token endpoint (`AUTH_BASE_URL`, the spec's `{auth_url}`; docs/design.md §4):
   * an absolute http(s) URL without query, fragment or credentials, kept without a trailing slash.
   * Unset: the API's own address.
   */
  authBaseUrl: string | undefined;
  /**
   * Longest life in milliseconds of a cached token grant (`TOKEN_CACHE_TTL_MS`, default 5000; 0: no
   * cache): the worst-case delay before a revoked token is refused (api/token-cache.ts).
   */
  tokenCacheTtlMs: number;
  logLevel: string;
  /**
   * API processes `npm run start:api` runs behind its one port (`API_PROCESSES`, default 1; Node's `cluster`
   * module, connections shared round-robin by the primary). One per core uses the whole machine.
   */
  apiProcesses: number;
  /**
   * Bearer token of `GET /metrics` in production (`METRICS_TOKEN`; api/routes/metrics.ts); unset: `/metrics`
   * answers 404 in production. Sandbox serves `/metrics` openly.
   */
  metricsToken: string | undefined;
  /**
   * `host:port` where `npm run start:worker` serves its Prometheus metrics (`WORKER_METRICS_ADDRESS`, e.g.
   * `127.0.0.1:9464`; workers/metrics.ts): the Temporal SDK's worker metrics, the worker's own counters and the
   * durable state. Unset: not served.
   */
  workerMetricsAddress: string | undefined;
  /**
   * Webhook limits per tenant (domain/webhooks/limits.ts): ACTIVE subscriptions
   * (`WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT`, default 100) and delivery attempts in flight at once
   * (`WEBHOOK_MAX_CONCURRENT_DELIVERIES_PER_TENANT`, default 5); the relay's pacing of a tenant's delivery starts
   * (`WEBHOOK_TENANT_STARTS_PER_SECOND`, default 20, 0 = off; `WEBHOOK_TENANT_START_BURST`, default 100).
   */
  webhookLimits: WebhookLimits;
  /**
   * Memory bounds of each queue's worker (workers/queue-worker.ts): workflows kept in its sticky
   * cache (`WORKER_MAX_CACHED_WORKFLOWS`, default 100) and workflow tasks run at once
   * (`WORKER_MAX_CONCURRENT_WORKFLOW_TASKS`, default 10, at most the cache size).
   */
  workflowCache: WorkflowCacheLimits;
  /**
   * Keys of the Temporal payload codec (workers/payload-codec.ts): `TEMPORAL_PAYLOAD_KEYS` (`id:hex64[,id:hex64…]`)
   * and `TEMPORAL_PAYLOAD_KEY_ID` (the current one; optional with a single key). Sandbox without them: one key
   * `dev-1` generated once into `<DATA_DIR>/dev-keys.json`. Production refuses to start without them.
   */
  temporalPayloadKeys: PayloadKeyring;
  /**
   * The codec endpoint the Temporal Web UI decodes payloads through (workers/codec-server.ts): `host:port`
   * (`TEMPORAL_CODEC_ADDRESS`; sandbox default `127.0.0.1:<TEMPORAL_UI_PORT + 1>` under `npm start`, production:
   * off unless set) and its bearer token (`TEMPORAL_CODEC_TOKEN`; required in production and for any
   * non-loopback address), and the origins of the Temporal UI allowed to call it from a browser
   * (`TEMPORAL_CODEC_UI_ORIGINS`, comma-separated; default `http://127.0.0.1:<TEMPORAL_UI_PORT>` and
   * `http://localhost:<TEMPORAL_UI_PORT>`).
   */
  codecEndpoint: { address: string | undefined; token: string | undefined; allowedOrigins: string[] };
}

interface Keys {
  secretPepper: string;
  cursorSigningKey: string;
  dataEncryptionKey: string;
  /** 64 hex characters: the sandbox's Temporal payload key, id `dev-1`. */
  temporalPayloadKey: string;
}

/** Id of the sandbox's generated Temporal payload key. */
export const devPayloadKeyId = 'dev-1';

function loadOrCreateKeys(dataDir: string): Keys {
  const file = path.join(dataDir, 'dev-keys.json');
  const stored: Partial<Keys> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const keys: Keys = {
    secretPepper: stored.secretPepper ?? randomBytes(32).toString('hex'),
    cursorSigningKey: stored.cursorSigningKey ?? randomBytes(32).toString('hex'),
    dataEncryptionKey: stored.dataEncryptionKey ?? randomBytes(32).toString('hex'),
    temporalPayloadKey: stored.temporalPayloadKey ?? randomBytes(32).toString('hex'),
  };
  if (JSON.stringify(keys) !== JSON.stringify(stored)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  }
  return keys;
}

function intOf(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  if (!/^[0-9]+$/.test(value)) throw new Error(`${name} must be a whole number`);
  return Number(value);
}

/**
 * Days a finished boarding batch keeps the raw text of its lines before the daily purge (`BOARDING_RAW_RETENTION_DAYS`,
 * a whole number from 0 to 3650; default 30; domain/boarding/retention.ts). Throws on any other value.
 */
export function boardingRawRetentionDaysOf(env: NodeJS.ProcessEnv = process.env): number {
  const days = intOf(
    env.BOARDING_RAW_RETENTION_DAYS,
    boardingRawRetentionDaysDefault,
    'BOARDING_RAW_RETENTION_DAYS',
  );
  if (days > boardingRawRetentionDaysMax)
    throw new Error(`BOARDING_RAW_RETENTION_DAYS must be at most ${boardingRawRetentionDaysMax}`);
  return days;
}

/** `AUTH_BASE_URL` checked and normalized (no trailing slash); undefined when unset. */
function authBaseUrlOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('AUTH_BASE_URL must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error('AUTH_BASE_URL must be an absolute http or https URL');
  if (url.search || url.hash || url.username || url.password || value.includes('?') || value.includes('#'))
    throw new Error('AUTH_BASE_URL must have no query, fragment or credentials');
  return url.href.replace(/\/+$/, '');
}

function positiveIntOf(value: string | undefined, fallback: number, name: string): number {
  const n = intOf(value, fallback, name);
  if (n < 1) throw new Error(`${name} must be at least 1`);
  return n;
}

/** `METRICS_TOKEN` checked: at least 16 visible ASCII characters (a guessable token would open the metrics). */
function metricsTokenOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[\x21-\x7e]{16,256}$/.test(value))
    throw new Error('METRICS_TOKEN must be 16 to 256 visible ASCII characters (e.g. 32 random bytes in hex)');
  return value;
}

/** `WORKER_METRICS_ADDRESS` checked: `host:port` (an IPv6 host in brackets). */
function workerMetricsAddressOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const match = /^(?:\[[^\]]+\]|[^:[\]]+):([0-9]{1,5})$/.exec(value);
  if (!match || Number(match[1]) > 65_535)
    throw new Error('WORKER_METRICS_ADDRESS must be host:port, e.g. 127.0.0.1:9464');
  return value;
}

/**
 * `TEMPORAL_PAYLOAD_KEYS` (`id:hex64[,id:hex64…]`, ids of 1–64 `[A-Za-z0-9._-]`, each once) and
 * `TEMPORAL_PAYLOAD_KEY_ID` (the current id; may be omitted when there is one key) as a checked keyring.
 * Throws an `Error` naming the variable and the offending id, never a key.
 */
export function payloadKeyringOf(keysText: string, currentKeyId: string | undefined): PayloadKeyring {
  const keys: Record<string, string> = {};
  for (const entry of keysText.split(',')) {
    const match = /^\s*([^:\s]+):([^\s]*)\s*$/.exec(entry);
    if (!match) throw new Error('TEMPORAL_PAYLOAD_KEYS must be id:hex64[,id:hex64...]');
    const [, id, hex] = match as unknown as [string, string, string];
    if (id in keys) throw new Error(`TEMPORAL_PAYLOAD_KEYS names key id "${id}" twice`);
    keys[id] = hex;
  }
  const ids = Object.keys(keys);
  const current = currentKeyId || (ids.length === 1 ? ids[0] : undefined);
  if (!current) throw new Error('TEMPORAL_PAYLOAD_KEY_ID must name the current key of TEMPORAL_PAYLOAD_KEYS');
  const keyring = { currentKeyId: current, keys };
  try {
    checkPayloadKeyring(keyring);
  } catch (err) {
    throw new Error(`TEMPORAL_PAYLOAD_KEYS / TEMPORAL_PAYLOAD_KEY_ID: ${(err as Error).message}`);
  }
  return keyring;
}

/** `TEMPORAL_CODEC_TOKEN` checked: 16 to 256 visible ASCII characters. */
function codecTokenOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[\x21-\x7e]{16,256}$/.test(value))
    throw new Error(
      'TEMPORAL_CODEC_TOKEN must be 16 to 256 visible ASCII characters (e.g. 32 random bytes in hex)',
    );
  return value;
}

/** True when `address` (`host:port`) listens on a loopback interface only. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.replace(/:[0-9]+$/, '').replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(host);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const environment = env.SERVICE_ENVIRONMENT ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new Error('SERVICE_ENVIRONMENT must be sandbox or production');
  }
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(projectRoot, '.data'));
  let secretPepper = env.SECRET_PEPPER;
  let cursorSigningKey = env.CURSOR_SIGNING_KEY;
  let dataEncryptionKey = env.DATA_ENCRYPTION_KEY;
  let temporalPayloadKeys = env.TEMPORAL_PAYLOAD_KEYS
    ? payloadKeyringOf(env.TEMPORAL_PAYLOAD_KEYS, env.TEMPORAL_PAYLOAD_KEY_ID)
    : undefined;
  if (!secretPepper || !cursorSigningKey || !dataEncryptionKey || !temporalPayloadKeys) {
    if (environment === 'production') {
      throw new Error(
        'production needs SECRET_PEPPER, CURSOR_SIGNING_KEY, DATA_ENCRYPTION_KEY and TEMPORAL_PAYLOAD_KEYS',
      );
    }
    const keys = loadOrCreateKeys(dataDir);
    secretPepper ||= keys.secretPepper;
    cursorSigningKey ||= keys.cursorSigningKey;
    dataEncryptionKey ||= keys.dataEncryptionKey;
    temporalPayloadKeys ??= {
      currentKeyId: devPayloadKeyId,
      keys: { [devPayloadKeyId]: keys.temporalPayloadKey },
    };
  }
  if (!/^[0-9a-f]{64}$/i.test(dataEncryptionKey))
    throw new Error('DATA_ENCRYPTION_KEY must be 64 hex characters');
  const codecAddress = env.TEMPORAL_CODEC_ADDRESS || undefined;
  const codecToken = codecTokenOf(env.TEMPORAL_CODEC_TOKEN);
  if (codecAddress) {
    if (!/^(?:\[[^\]]+\]|[^:[\]]+):([0-9]{1,5})$/.test(codecAddress))
      throw new Error('TEMPORAL_CODEC_ADDRESS must be host:port, e.g. 127.0.0.1:8234');
    if (!codecToken && (environment === 'production' || !isLoopbackAddress(codecAddress)))
      throw new Error('TEMPORAL_CODEC_ADDRESS needs TEMPORAL_CODEC_TOKEN in production or off loopback');
  }
  const uiPort = intOf(env.TEMPORAL_UI_PORT, 8233, 'TEMPORAL_UI_PORT');
  const codecOrigins = env.TEMPORAL_CODEC_UI_ORIGINS
    ? env.TEMPORAL_CODEC_UI_ORIGINS.split(',').map((origin) => origin.trim())
    : [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`];
  for (const origin of codecOrigins)
    if (!/^https?:\/\/[^/?#\s]+$/.test(origin))
      throw new Error(
        'TEMPORAL_CODEC_UI_ORIGINS must be origins like https://temporal-ui.example.com, comma-separated',
      );
  return {
    environment,
    port: intOf(env.PORT, 8080, 'PORT'),
    host: env.HOST || '127.0.0.1',
    databasePoolSize: Math.max(1, intOf(env.DATABASE_POOL_SIZE, 30, 'DATABASE_POOL_SIZE')),
    apiDatabasePoolSize: env.DATABASE_POOL_SIZE
      ? Math.max(1, intOf(env.DATABASE_POOL_SIZE, 30, 'DATABASE_POOL_SIZE'))
      : defaultApiPoolSize(availableParallelism(), positiveIntOf(env.API_PROCESSES, 1, 'API_PROCESSES')),
    workflowBundlePath: env.WORKFLOW_BUNDLE_PATH || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedPostgresPort: intOf(env.EMBEDDED_POSTGRES_PORT, 54329, 'EMBEDDED_POSTGRES_PORT'),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    temporalPort: intOf(env.TEMPORAL_PORT, 7233, 'TEMPORAL_PORT'),
    temporalUiPort: uiPort,
    dataDir,
    secretPepper,
    cursorSigningKey,
    dataEncryptionKey,
    docsUrl: env.DOCS_URL ?? 'https://docs.example.invalid/lending',
    rateLimitPerSecond: intOf(
      env.RATE_LIMIT_PER_SECOND,
      environment === 'production' ? 100 : 25,
      'RATE_LIMIT_PER_SECOND',
    ),
    searchRateLimitPerSecond: positiveIntOf(
      env.SEARCH_RATE_LIMIT_PER_SECOND,
      20,
      'SEARCH_RATE_LIMIT_PER_SECOND',
    ),
    tokenSourceRateLimitPerSecond: positiveIntOf(
      env.TOKEN_SOURCE_RATE_LIMIT_PER_SECOND,
      defaultTokenSourceRateLimitPerSecond,
      'TOKEN_SOURCE_RATE_LIMIT_PER_SECOND',
    ),
    authBaseUrl: authBaseUrlOf(env.AUTH_BASE_URL),
    tokenCacheTtlMs: intOf(env.TOKEN_CACHE_TTL_MS, 5000, 'TOKEN_CACHE_TTL_MS'),
    logLevel: env.LOG_LEVEL ?? 'info',
    apiProcesses: positiveIntOf(env.API_PROCESSES, 1, 'API_PROCESSES'),
    metricsToken: metricsTokenOf(env.METRICS_TOKEN),
    workerMetricsAddress: workerMetricsAddressOf(env.WORKER_METRICS_ADDRESS),
    webhookLimits: {
      maxSubscriptionsPerTenant: positiveIntOf(
        env.WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT,
        defaultWebhookLimits.maxSubscriptionsPerTenant,
        'WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT',
      ),
      maxConcurrentDeliveriesPerTenant: positiveIntOf(
        env.WEBHOOK_MAX_CONCURRENT_DELIVERIES_PER_TENANT,
        defaultWebhookLimits.maxConcurrentDeliveriesPerTenant,
        'WEBHOOK_MAX_CONCURRENT_DELIVERIES_PER_TENANT',
      ),
      deliveryStartPacing: {
        ratePerSecond: intOf(
          env.WEBHOOK_TENANT_STARTS_PER_SECOND,
          defaultWebhookLimits.deliveryStartPacing.ratePerSecond,
          'WEBHOOK_TENANT_STARTS_PER_SECOND',
        ),
        burst: positiveIntOf(
          env.WEBHOOK_TENANT_START_BURST,
          defaultWebhookLimits.deliveryStartPacing.burst,
          'WEBHOOK_TENANT_START_BURST',
        ),
      },
    },
    temporalPayloadKeys,
    codecEndpoint: { address: codecAddress, token: codecToken, allowedOrigins: codecOrigins },
    workflowCache: {
      maxCachedWorkflows: Math.max(
        2,
        intOf(
          env.WORKER_MAX_CACHED_WORKFLOWS,
          defaultWorkflowCacheLimits.maxCachedWorkflows,
          'WORKER_MAX_CACHED_WORKFLOWS',
        ),
      ),
      maxConcurrentWorkflowTaskExecutions: Math.max(
        2,
        intOf(
          env.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
          defaultWorkflowCacheLimits.maxConcurrentWorkflowTaskExecutions,
          'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS',
        ),
      ),
    },
  };
}

/**
 * The default size of one API process's PostgreSQL pool: four connections per core of the machine, shared among
 * its `apiProcesses` API processes, at least 4 and at most 30 (the workers' default). A read is one short statement
 * (the summary: one round trip of well under a millisecond), so a few connections per core keep PostgreSQL busy;
 * more only let more statements run at once on the same cores, which costs PostgreSQL CPU per request (context
 * switches, lock and buffer contention) without serving more. A request that finds every connection busy waits in
 * the pool's queue (postgres.js), it is not refused. `cores` and `apiProcesses` are positive integers.
 */
export function defaultApiPoolSize(cores: number, apiProcesses: number): number {
  return Math.min(30, Math.max(4, Math.ceil((4 * cores) / apiProcesses)));
}

/** The operations' dependencies from the configuration and an open database. */
export function operationDeps(db: Db, config: ServiceConfig): Deps {
  // Sandbox: the sandbox rail (a provider's test mode). Production: no rail adapter exists in this build yet, so
  // intents wait for one (the submission activity retries, visibly) rather than pretending money moved.
  const sandboxRail = config.environment === 'sandbox' ? createSandboxRail(db) : undefined;
  return {
    db,
    clock: () => new Date(),
    secretPepper: config.secretPepper,
    dataEncryptionKey: config.dataEncryptionKey,
    environment: config.environment,
    webhookLimits: config.webhookLimits,
    ...(sandboxRail ? { paymentRail: sandboxRail, sandboxRail } : {}),
  };
}

/** What the HTTP API takes from the process configuration (api/env.ts `ApiConfig`). */
export function apiConfigOf(config: ServiceConfig): ApiConfig {
  return {
    environment: config.environment,
    cursorSigningKey: config.cursorSigningKey,
    docsUrl: config.docsUrl,
    rateLimitPerSecond: config.rateLimitPerSecond,
    searchRateLimitPerSecond: config.searchRateLimitPerSecond,
    tokenSourceRateLimitPerSecond: config.tokenSourceRateLimitPerSecond,
    tokenCacheTtlMs: config.tokenCacheTtlMs,
    ...(config.authBaseUrl ? { authBaseUrl: config.authBaseUrl } : {}),
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
  };
}
