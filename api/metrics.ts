/**
 * The service's Prometheus metrics (Prometheus exposition format 0.0.4, naming per the Prometheus
 * "Metric and label naming" guide: base units, `_total` counters, `_seconds` durations), held in one process-wide
 * prom-client registry (`metricsRegistry`) that the API and, in the same process, the workers
 * (workers/metrics.ts) add to:
 * - `http_requests_total` and `http_request_duration_seconds` by method, route template and status
 *   (api/middleware/http-metrics.ts); the route is the matched template (`/v1/loans/:loanId`), never the raw path,
 *   and `unmatched` when no route answers (404, 405), so no id ever becomes a label value;
 * - `http_idempotent_replays_total` (api/middleware/idempotency.ts) and `http_rate_limit_rejections_total`
 *   (api/middleware/rate-limit.ts), by route template;
 * - `token_cache_lookups_total` by result (`hit`, `miss`) and `token_cache_stale_total` (api/token-cache.ts);
 * - durable state read from PostgreSQL at scrape time (db/queries/platform/service-state.ts): outbox backlog and lag, open
 *   reconciliation exceptions, boarding batches and their lines; read at most once per `serviceStateCacheMs` per
 *   process whatever the scrape rate, bounded by `serviceStateTimeoutMs`; a failed read removes those series,
 *   sets `service_state_read_up` to 0 and never fails the scrape (a registry of their own, rendered by the process
 *   answering the scrape, so a cluster's processes never add them up);
 * - Node's process metrics (`collectDefaultMetrics`: `process_*`, `nodejs_*`).
 * `renderMetrics` also appends the text of other exporters of the process (the Temporal SDK's, `temporal_*`).
 */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/client';
import { readServiceStateCounts } from '../db/queries/platform/service-state';

/**
 * The process's registry: its counters, histograms and Node's metrics. Under `API_PROCESSES` > 1 each API process
 * has its own, and a scrape shows their sum (workers/metrics.ts `clusterMetricsOfApiProcess`).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];

/**
 * The durable-state gauges, read from PostgreSQL by the process that answers a scrape: never summed, and shown only
 * while the last read succeeded (an unlabelled gauge would otherwise show a false 0); whether it did is in
 * `serviceStateReadRegistry`, always shown.
 */
const serviceStateRegistry = new Registry();
const stateRegisters = [serviceStateRegistry];
const serviceStateReadRegistry = new Registry();
let serviceStateReadOk = false;

/** Latency buckets in seconds, 1 ms to 5 s (roughly 1-2.5-5 per decade). */
export const httpDurationBucketsSeconds = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

export const httpRequestsTotal = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  registers,
});

export const httpRequestDurationSeconds = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to its response headers, in seconds, by method, route template and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: httpDurationBucketsSeconds,
  registers,
});

export const idempotentReplaysTotal = new Counter({
  name: 'http_idempotent_replays_total',
  help: 'Requests answered from the Idempotency-Key store (x-served-from-cache: true), by route template.',
  labelNames: ['route'] as const,
  registers,
});

export const rateLimitRejectionsTotal = new Counter({
  name: 'http_rate_limit_rejections_total',
  help: 'Requests refused with 429 by a rate limit, by policy (default, search, token) and route template.',
  labelNames: ['policy', 'route'] as const,
  registers,
});

export const tokenCacheLookupsTotal = new Counter({
  name: 'token_cache_lookups_total',
  help: 'Bearer tokens resolved by the token-grant cache (api/token-cache.ts), by result: hit (served from the cache) or miss (looked up in PostgreSQL).',
  labelNames: ['result'] as const,
  registers,
});

export const tokenCacheStaleTotal = new Counter({
  name: 'token_cache_stale_total',
  help: 'Times a token-grant cache stopped serving because its credential-change LISTEN connection could not be shown alive.',
  registers,
});

const outboxUnpublishedEvents = new Gauge({
  name: 'outbox_unpublished_events',
  help: 'Outbox events not yet relayed to webhook deliveries, every tenant (counted up to 100000).',
  registers: stateRegisters,
});
const outboxOldestUnpublishedAgeSeconds = new Gauge({
  name: 'outbox_oldest_unpublished_age_seconds',
  help: 'Age of the oldest outbox event not yet relayed, in seconds (0 when none): the relay lag.',
  registers: stateRegisters,
});
const reconciliationExceptionsOpen = new Gauge({
  name: 'reconciliation_exceptions_open',
  help: 'Open reconciliation exceptions, every tenant, by exception type.',
  labelNames: ['exception_type'] as const,
  registers: stateRegisters,
});
const boardingBatches = new Gauge({
  name: 'boarding_batches',
  help: 'Boarding batches, every tenant, by status as last recorded.',
  labelNames: ['status'] as const,
  registers: stateRegisters,
});
const boardingBatchLines = new Gauge({
  name: 'boarding_batch_lines',
  help: 'Lines of boarding batches boarded or failed so far (as the batches last recorded), by batch status and outcome.',
  labelNames: ['status', 'outcome'] as const,
  registers: stateRegisters,
});
const serviceStateReadUp = new Gauge({
  name: 'service_state_read_up',
  help: '1 when the last read of durable state from PostgreSQL for these metrics succeeded, else 0.',
  registers: [serviceStateReadRegistry],
});
const serviceStateReadFailuresTotal = new Counter({
  name: 'service_state_read_failures_total',
  help: 'Reads of durable state from PostgreSQL for these metrics that failed or timed out.',
  registers: [serviceStateReadRegistry],
});

/** The durable-state series are read at most once per this many milliseconds per database. */
export const serviceStateCacheMs = 5_000;
/** A read of durable state taking longer is abandoned for this scrape (its statements time out too). */
export const serviceStateTimeoutMs = 2_000;

/** The last read (one process serves one database, so one cache): its start and its promise. */
let lastServiceStateRead: { atMs: number; read: Promise<void> } | null = null;

function clearServiceState(): void {
  for (const gauge of [
    outboxUnpublishedEvents,
    outboxOldestUnpublishedAgeSeconds,
    reconciliationExceptionsOpen,
    boardingBatches,
    boardingBatchLines,
  ])
    gauge.reset();
}

async function readServiceState(db: Db): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const counts = await Promise.race([
      readServiceStateCounts(db, { statementTimeoutMs: serviceStateTimeoutMs }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('service state read timed out')), serviceStateTimeoutMs);
      }),
    ]);
    clearServiceState();
    outboxUnpublishedEvents.set(counts.outboxUnpublished);
    outboxOldestUnpublishedAgeSeconds.set(counts.outboxOldestUnpublishedAgeSeconds);
    for (const row of counts.openReconciliationExceptions)
      reconciliationExceptionsOpen.set({ exception_type: row.exceptionType }, row.count);
    for (const row of counts.boardingBatches) {
      boardingBatches.set({ status: row.status }, row.batches);
      boardingBatchLines.set({ status: row.status, outcome: 'boarded' }, row.linesBoarded);
      boardingBatchLines.set({ status: row.status, outcome: 'failed' }, row.linesFailed);
    }
    serviceStateReadUp.set(1);
    serviceStateReadOk = true;
  } catch {
    clearServiceState();
    serviceStateReadOk = false;
    serviceStateReadUp.set(0);
    serviceStateReadFailuresTotal.inc();
  } finally {
    clearTimeout(timer);
  }
}

/** Refreshes the durable-state series from `db` unless read less than `serviceStateCacheMs` ago (or under way). */
export function refreshServiceState(db: Db, nowMs = Date.now()): Promise<void> {
  const last = lastServiceStateRead;
  if (last && nowMs - last.atMs >= 0 && nowMs - last.atMs < serviceStateCacheMs) return last.read;
  const read = readServiceState(db);
  lastServiceStateRead = { atMs: nowMs, read };
  return read;
}

/**
 * The text of another Prometheus exporter at `url` (the Temporal SDK's), or '' when it does not answer 200
 * within `timeoutMs` (default 1000): a missing part never fails the scrape.
 */
export async function exporterText(url: string, timeoutMs = 1_000): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return '';
    const text = await res.text();
    return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  } catch {
    return '';
  }
}

/**
 * The whole scrape: the durable state refreshed from `db` (when given), this registry, then the text of each
 * exporter in `exporterUrls` (the Temporal SDK's Prometheus exporter of this process; their metric names,
 * `temporal_*`, never clash with ours).
 */
export async function renderMetrics(
  options: {
    db?: Db;
    exporterUrls?: readonly string[];
    /** This process's part, as text; default `metricsRegistry`'s (a cluster's sum under `API_PROCESSES` > 1). */
    processMetrics?: () => Promise<string>;
  } = {},
): Promise<string> {
  const own = options.processMetrics
    ? await options.processMetrics().catch(() => metricsRegistry.metrics())
    : await metricsRegistry.metrics();
  let state = '';
  if (options.db) {
    await refreshServiceState(options.db);
    state =
      (serviceStateReadOk ? await serviceStateRegistry.metrics() : '') +
      (await serviceStateReadRegistry.metrics());
  }
  const others = await Promise.all((options.exporterUrls ?? []).map((url) => exporterText(url)));
  return [own, state]
    .filter((text) => text !== '')
    .map((text) => (text.endsWith('\n') ? text : `${text}\n`))
    .concat(others)
    .join('');
}

/** Content type of the exposition format. */
export const metricsContentType = metricsRegistry.contentType;

/** HTTP methods kept as label values; any other becomes `OTHER`, so a client cannot mint label values. */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method as a label value (`OTHER` when not a usual method). */
export function methodLabelOf(method: string): string {
  return knownMethods.has(method) ? method : 'OTHER';
}

const routeLabels = new Map<string, string>();

/**
 * The route template a request is answered by, as a label value: the path of the first matched route that is a
 * handler (not an `app.use` middleware, whose method is `ALL`), with Hono's regular-expression constraints left
 * out (`/v1/loans/:loanId{[0-9]+}` → `/v1/loans/:loanId`); `unmatched` when no handler matches (404, 405).
 */
export function routeLabelOf(routes: readonly { method: string; path: string }[]): string {
  const handler = routes.find((r) => r.method !== 'ALL');
  if (!handler) return 'unmatched';
  let label = routeLabels.get(handler.path);
  if (label === undefined) {
    label =
      handler.path
        .split('/')
        .map((segment) => segment.replace(/\{.*$/, ''))
        .join('/') || '/';
    // Keyed by registered route paths only, a bounded set.
    routeLabels.set(handler.path, label);
  }
  return label;
}

/** `routeLabelOf` for the request of `c`. */
export function routeTemplateOf(c: Context): string {
  try {
    return routeLabelOf(matchedRoutes(c));
  } catch {
    return 'unmatched';
  }
}
