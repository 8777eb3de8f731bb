/**
 * The Hono environment of the app, typed once (docs/conventions.md §13.9), and what the app is built from.
 */

import { createFactory } from 'hono/factory';
import type { Logger } from 'pino';
import type { Activities, PlatformOperations } from '../activities';
import type { Db } from '../db/client';
import type { HealthMonitor } from './health-monitor';
import type { ProcessClients } from './processes';
import type { StartMarkSink } from './start-marks';
import type { TokenGrantCache } from './token-cache';

export interface ApiConfig {
  environment: 'sandbox' | 'production';
  /** Secret of paging cursors (`CURSOR_SIGNING_KEY`): their AES-256-GCM keys are derived from it (domain/cursor.ts); also keys the idempotency fingerprint of blinded fields. */
  cursorSigningKey: string;
  /** Base of Shape B `type` URLs (`{docs_url}/errors/<code>`). */
  docsUrl: string;
  /** Default requests per second per client in this environment (docs/design.md §5 Rate limits). */
  rateLimitPerSecond: number;
  /**
   * Requests per second per client to portfolio search, journal-entry lists and exports, together, on top of
   * `rateLimitPerSecond` (docs/design.md §5: 20; `SEARCH_RATE_LIMIT_PER_SECOND`). Unset: 20.
   */
  searchRateLimitPerSecond?: number;
  /**
   * Token requests per second per source address (`POST /oauth2/token`, whatever client id is presented), on top of
   * the per-client-id limit (`TOKEN_SOURCE_RATE_LIMIT_PER_SECOND`). Unset: 10.
   */
  tokenSourceRateLimitPerSecond?: number;
  /**
   * Public base address of the token endpoint (`AUTH_BASE_URL`, the spec's `{auth_url}`; docs/design.md §4),
   * no trailing slash; advertised as `<authBaseUrl>/oauth2/token` in the OpenAPI document. Unset:
   * `/oauth2/token` of this server.
   */
  authBaseUrl?: string;
  /**
   * Longest life in milliseconds of a cached token grant (`TOKEN_CACHE_TTL_MS`; api/token-cache.ts):
   * the worst-case delay before a revoked token is refused. Unset: 5000; 0: no cache.
   */
  tokenCacheTtlMs?: number;
  /**
   * Bearer token `GET /metrics` requires in production (`METRICS_TOKEN`; api/routes/metrics.ts). Unset in
   * production: `/metrics` answers 404. Sandbox: `/metrics` is open whatever this is.
   */
  metricsToken?: string;
  /**
   * `http://127.0.0.1:<port>/metrics` of this process's Temporal SDK Prometheus exporter (workers/temporal.ts), whose
   * text `GET /metrics` appends (the all-in-one `npm start`); unset: none.
   */
  temporalMetricsUrl?: string;
}

export interface AppDeps {
  db: Db;
  activities: Activities;
  platform: PlatformOperations;
  /**
   * Where routes note the start intents they started (api/start-marks.ts): written in batches, not by the request.
   * Whoever builds the app starts and stops it.
   */
  startMarks: StartMarkSink;
  /** Typed ports of the durable processes (workflows/<context>/<process>/client.ts). */
  processes: ProcessClients;
  /** Dependency status for `/healthz`, refreshed in the background. */
  health: HealthMonitor;
  config: ApiConfig;
  logger: Logger;
  /** Current instant, the same clock the operations use (`Deps.clock`); reads that depend on time take it. */
  clock: () => Date;
  /**
   * This app's token-grant cache (api/token-cache.ts), started and stopped by whoever builds the app;
   * not started, it looks every token up.
   */
  tokenGrants: TokenGrantCache;
  /**
   * The text of this process's metrics for `GET /metrics` (api/metrics.ts): under `API_PROCESSES` > 1 the sum over
   * the cluster's API processes (workers/metrics.ts `clusterMetricsOfApiProcess`). Unset: this process's registry.
   */
  processMetrics?: () => Promise<string>;
}

/** Who is calling, resolved from the bearer token. */
export interface AuthContext {
  clientId: string;
  tenantId: string;
  environment: 'sandbox' | 'production';
  scopes: string[];
  permissions: string[];
  rateLimitPerSecond: number | null;
}

export interface AppEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    auth: AuthContext;
    /** The `Service-Tenant` header, equal to the token's tenant (or the token's tenant where the token selects it). */
    tenantId: string;
    /**
     * Error body shape of this request's route (api/middleware/error-shape.ts): `problem` (Shape B, RFC 9457)
     * where a route chose it before authentication; unset means Shape A.
     */
    errorShape: 'shapeA' | 'problem';
    /**
     * How the tenant is selected (api/middleware/auth.ts): unset means the `Service-Tenant` header (required);
     * `token` means the token's tenant (the header optional, and when sent it must name that tenant).
     */
    tenantSelection: 'header' | 'token';
    /** `Service-Actor`, or null. */
    actor: string | null;
  };
}

export const factory = createFactory<AppEnv>();
