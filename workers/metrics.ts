/**
 * The worker side of the service's metrics, on the process's registry (api/metrics.ts):
 * - `webhook_delivery_attempts_total{outcome, status_class}`: every HTTP attempt `sendWebhook` made, `outcome`
 *   `succeeded` (2xx) or `failed`, `status_class` `2xx`…`5xx` or `none` (no answer: timeout, refused, blocked);
 *   a call that threw (retried by Temporal) counts as `failed`/`none`;
 * - `boarding_lines_processed_total{kind, outcome}`: lines a `boardBoardingChunk` call boarded or failed;
 * counted by an activity inbound interceptor (`metricsActivityInterceptors`), so the operations stay unaware.
 * `startWorkerMetricsServer` serves the registry, the durable state (db/queries/platform/service-state.ts) and the Temporal
 * SDK's own metrics (workers/temporal.ts) at `http://<WORKER_METRICS_ADDRESS>/metrics` in a worker process.
 * Under `API_PROCESSES` > 1 (scripts/start-api.ts) a scrape reaches one API process of the cluster; it asks the
 * primary (`serveClusterMetrics`), which sums every API process's registry with prom-client's `AggregatorRegistry`
 * (`clusterMetricsOfApiProcess`), so counters never jump between processes.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker';
import { AggregatorRegistry, Counter } from 'prom-client';
import type { BoardingCountsDelta } from '../activities/boarding/board-boarding-chunk';
import type { SendWebhookResult } from '../activities/webhooks/send-webhook';
import { metricsContentType, metricsRegistry, renderMetrics } from '../api/metrics';
import type { Db } from '../db/client';

export const webhookDeliveryAttemptsTotal = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'HTTP attempts of webhook deliveries, by outcome (succeeded: 2xx; failed) and status class (none: no answer).',
  labelNames: ['outcome', 'status_class'] as const,
  registers: [metricsRegistry],
});

export const boardingLinesProcessedTotal = new Counter({
  name: 'boarding_lines_processed_total',
  help: 'Boarding lines processed by this process, by kind and outcome (boarded, failed).',
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** The status class of an HTTP status (`2xx`…`5xx`), `none` when no answer came. */
export function statusClassOf(status: number | null | undefined): string {
  if (typeof status !== 'number' || status < 100 || status > 599) return 'none';
  return `${Math.floor(status / 100)}xx`;
}

function countWebhookAttempt(result: SendWebhookResult | null): void {
  const statusClass = statusClassOf(result?.responseStatus);
  webhookDeliveryAttemptsTotal.inc({
    outcome: statusClass === '2xx' ? 'succeeded' : 'failed',
    status_class: statusClass,
  });
}

function countBoardingChunk(delta: BoardingCountsDelta): void {
  for (const [kind, counts] of Object.entries(delta)) {
    if (!counts) continue;
    if (counts.boarded > 0) boardingLinesProcessedTotal.inc({ kind, outcome: 'boarded' }, counts.boarded);
    if (counts.failed > 0) boardingLinesProcessedTotal.inc({ kind, outcome: 'failed' }, counts.failed);
  }
}

/** The activity interceptor counting what the module note lists (every other activity passes through). */
export const metricsActivityInterceptors: ActivityInterceptorsFactory = (ctx) => {
  const activityType = ctx.info.activityType;
  if (activityType !== 'sendWebhook' && activityType !== 'boardBoardingChunk') return {};
  const inbound: ActivityInboundCallsInterceptor = {
    async execute(input, next) {
      let result: unknown;
      try {
        result = await next(input);
      } catch (err) {
        if (activityType === 'sendWebhook') countWebhookAttempt(null);
        throw err;
      }
      if (activityType === 'sendWebhook') countWebhookAttempt(result as SendWebhookResult);
      else countBoardingChunk((result ?? {}) as BoardingCountsDelta);
      return result;
    },
  };
  return { inbound };
};

/** `host:port` (an IPv6 host in brackets) as its parts. Errors: not of that form. */
export function parseListenAddress(address: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(address.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new Error(`not a host:port address: ${address}`);
  return { host: (match[1] ?? match[2]) as string, port };
}

/**
 * Serves `GET /metrics` (the Prometheus text: this registry, the durable state read from `db`, then each exporter
 * of `exporterUrls`) on `address` (`host:port`, WORKER_METRICS_ADDRESS; keep it off the public network: it has no
 * authentication); anything else → 404. Resolves once listening, to its bound URL and how to stop it.
 */
export async function startWorkerMetricsServer(options: {
  address: string;
  db?: Db;
  exporterUrls?: readonly string[];
}): Promise<{ url: string; stop(): Promise<void> }> {
  const { host, port } = parseListenAddress(options.address);
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    renderMetrics({
      ...(options.db ? { db: options.db } : {}),
      exporterUrls: options.exporterUrls ?? [],
    }).then(
      (text) =>
        res.writeHead(200, { 'content-type': metricsContentType, 'cache-control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address();
  const boundPort = typeof bound === 'object' && bound ? bound.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Messages between an API process and the cluster primary about metrics. */
interface ClusterMetricsMessage {
  clusterMetricsRequest?: number;
  clusterMetricsResponse?: number;
  text?: string;
  error?: string;
}

/**
 * In the cluster primary of `npm run start:api` (API_PROCESSES > 1): answers each API process's request for the
 * cluster's metrics with the sum of every API process's registry (prom-client `AggregatorRegistry`: counters and
 * histograms summed, Node's metrics by their own aggregators).
 */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: ClusterMetricsMessage) => {
    const id = message?.clusterMetricsRequest;
    if (typeof id !== 'number') return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ clusterMetricsResponse: id, text } satisfies ClusterMetricsMessage),
      (err: unknown) =>
        worker.send({ clusterMetricsResponse: id, error: String(err) } satisfies ClusterMetricsMessage),
    );
  });
}

/**
 * In an API process of the cluster: offers its registry to the primary's aggregation and returns the function
 * `GET /metrics` takes as `processMetrics` (api/env.ts): the cluster's sum, asked of the primary (5 s at most;
 * errors: the primary's, or a timeout, and the route then shows this process's registry alone).
 */
export function clusterMetricsOfApiProcess(): () => Promise<string> {
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metricsRegistry]);
  let next = 0;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const done = (settle: () => void) => {
        clearTimeout(timer);
        process.off('message', onMessage);
        settle();
      };
      const onMessage = (message: ClusterMetricsMessage) => {
        if (message?.clusterMetricsResponse !== id) return;
        done(() => (message.error ? reject(new Error(message.error)) : resolve(message.text ?? '')));
      };
      const timer = setTimeout(() => done(() => reject(new Error('cluster metrics timed out'))), 5_000);
      process.on('message', onMessage);
      process.send?.({ clusterMetricsRequest: id } satisfies ClusterMetricsMessage);
    });
}
