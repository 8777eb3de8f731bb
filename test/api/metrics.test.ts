/**
 * `GET /metrics` (api/routes/metrics.ts, api/metrics.ts) on the real app, PostgreSQL and Temporal:
 * after a 200, a 404 (from a route and from no route), an idempotent replay and a 429, the scrape counts them by
 * route template with no id in any label; the durable-state gauges read from PostgreSQL have numeric values (the
 * outbox backlog includes an event this file wrote); the Temporal SDK's worker metrics are appended; production
 * answers 404 without `METRICS_TOKEN`, without or with a wrong token, and 200 with it; a worker process's metrics
 * address (workers/metrics.ts) serves the same registry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMetrics, serviceStateCacheMs } from '../../api/metrics';
import { createDb } from '../../db/client';
import { startWorkerMetricsServer } from '../../workers/metrics';
import { freeLoopbackPort, installTemporalRuntime, temporalSdkMetricsUrl } from '../../workers/temporal';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { appWith, expectShapeA, newKey, openCase, send } from './helpers';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  // Before any worker or native connection: the SDK's Prometheus exporter on a loopback port, as `npm start` does.
  installTemporalRuntime({ prometheusBindAddress: `127.0.0.1:${await freeLoopbackPort()}` });
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('metrics'));
});
afterAll(async () => ctx?.close());

/** The value of the sample `name{labels}` in `text` (labels as written by prom-client, in order), or null. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  const rendered = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = rendered ? `${name}{${rendered}} ` : `${name} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? null : Number(line.slice(prefix.length));
}

async function scrape(app = ctx.app, headers: Record<string, string> = {}) {
  const res = await app.request('/metrics', { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('GET /metrics', () => {
  it('counts requests by route template and status, replays and rate-limit rejections, never with ids', async () => {
    const caseId = await openCase(ctx, cred);
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`)).status).toBe(200);
    const missingId = caseId + 7_654_321;
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${missingId}`)).status).toBe(404);
    expect((await send(ctx, `/no-such-route/${missingId}`)).status).toBe(404);

    const key = newKey('metrics');
    const body = { customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'Replayed' };
    const first = await call(ctx, cred, 'POST', '/v1/servicing/cases', body, { 'idempotency-key': key });
    const replay = await call(ctx, cred, 'POST', '/v1/servicing/cases', body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');

    // A client allowed 1 request a second: the second at once is refused.
    const slow = await credentialFor(ctx, uniqueTenant('metrics-slow'), { rateLimitPerSecond: 1 });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(ctx, slow, 'GET', `/v1/servicing/cases/${caseId}`)).status);
    expect(statuses).toContain(429);

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = res.text;
    const route = '/v1/servicing/cases/:caseId';
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route, status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route, status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route, status: '429' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_requests_total', { method: 'POST', route: '/v1/servicing/cases', status: '201' }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(text, 'http_request_duration_seconds_count', { method: 'GET', route, status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_request_duration_seconds_bucket', { le: '5', method: 'GET', route, status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_idempotent_replays_total', { route: '/v1/servicing/cases' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_rate_limit_rejections_total', { policy: 'default', route }),
    ).toBeGreaterThanOrEqual(1);
    // No id, raw path or token in any label value: every route label is a template or `unmatched`.
    const httpLines = text.split('\n').filter((l) => l.startsWith('http_'));
    expect(httpLines.length).toBeGreaterThan(0);
    for (const line of httpLines) {
      const labels = line.slice(0, line.lastIndexOf(' '));
      expect(labels).not.toContain(String(missingId));
      expect(labels).not.toContain('no-such-route');
      expect(labels).not.toContain(cred.token);
      const route = /route="([^"]*)"/.exec(labels)?.[1];
      if (route !== undefined)
        expect(route).toMatch(
          /^(unmatched|\/(?:[a-z0-9.-]+|:[A-Za-z]+|\*)(?:\/(?:[a-z0-9.-]+|:[A-Za-z]+|\*))*)$/,
        );
      if (route !== undefined && route !== 'unmatched')
        expect(route.split('/').filter((segment) => /^[0-9]+$/.test(segment))).toEqual([]);
    }
    // Node's process metrics.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('reads the durable state from PostgreSQL: outbox backlog and lag, reconciliation, boarding', async () => {
    // Creating a customer writes an outbox event (customer.created); no relay runs in this file, so it stays
    // unpublished.
    await ctx.activities.createCustomer({
      tenantId: cred.tenant,
      requestKey: null,
      actor: 'metrics-test',
      correlationId: 'metrics',
      firstName: 'Ana',
      lastName: 'Metrics',
    });
    // The durable part is cached for 5 s: wait it out so this scrape reads the database afresh.
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    const { text } = await scrape();
    expect(sample(text, 'service_state_read_up')).toBe(1);
    expect(sample(text, 'outbox_unpublished_events')).toBeGreaterThanOrEqual(1);
    const lag = sample(text, 'outbox_oldest_unpublished_age_seconds');
    expect(lag).not.toBeNull();
    expect(Number.isFinite(lag)).toBe(true);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE reconciliation_exceptions_open gauge');
    expect(text).toContain('# TYPE boarding_batches gauge');
    expect(text).toContain('# TYPE boarding_batch_lines gauge');
  });

  it("appends the Temporal SDK's worker metrics", async () => {
    const url = temporalSdkMetricsUrl();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const app = appWith(ctx, { config: { temporalMetricsUrl: url as string } });
    const { status, text } = await scrape(app);
    expect(status).toBe(200);
    expect(text).toMatch(/^temporal_[a-z_]+(\{[^}]*\})? \d/m);
    expect(text).toMatch(/^http_requests_total\{/m);
  });

  it('production: 404 without METRICS_TOKEN, without or with a wrong token; 200 with it', async () => {
    const token = 'metrics-token-for-tests';
    const closed = appWith(ctx, { config: { environment: 'production' } });
    expectShapeA(
      {
        ...(await send({ ...ctx, app: closed }, '/metrics', {
          headers: { authorization: `Bearer ${token}` },
        })),
      },
      404,
      'error.msg.resource.not.found',
    );
    const guarded = appWith(ctx, { config: { environment: 'production', metricsToken: token } });
    const guardedCtx = { ...ctx, app: guarded };
    expectShapeA(await send(guardedCtx, '/metrics'), 404, 'error.msg.resource.not.found');
    for (const authorization of [
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      token,
      `Basic ${token}`,
      'Bearer ',
    ]) {
      expectShapeA(
        await send(guardedCtx, '/metrics', { headers: { authorization } }),
        404,
        'error.msg.resource.not.found',
      );
    }
    const open = await scrape(guarded, { authorization: `Bearer ${token}` });
    expect(open.status).toBe(200);
    expect(open.text).toMatch(/^http_requests_total\{/m);
  });

  it('is not part of the OpenAPI document', async () => {
    const res = await send(ctx, '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).not.toContain('/metrics');
  });
});

describe('a worker process metrics address', () => {
  it('serves the registry, the durable state and the SDK metrics; anything else 404', async () => {
    const url = temporalSdkMetricsUrl() as string;
    const server = await startWorkerMetricsServer({
      address: '127.0.0.1:0',
      db: ctx.db,
      exporterUrls: [url],
    });
    try {
      const res = await fetch(server.url);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/^http_requests_total\{/m);
      expect(text).toMatch(/^outbox_unpublished_events \d/m);
      expect(text).toMatch(/^temporal_/m);
      expect((await fetch(server.url.replace(/\/metrics$/, '/other'))).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});

describe('a failed read of the durable state', () => {
  it('drops those series and never fails the scrape', async () => {
    // Past the cache of the reads above, against a database that refuses connections.
    await new Promise((resolve) => setTimeout(resolve, serviceStateCacheMs + 100));
    const unreachable = createDb('postgres://nobody@127.0.0.1:1/none', { maxConnections: 1 });
    try {
      const text = await renderMetrics({ db: unreachable.db });
      expect(sample(text, 'service_state_read_up')).toBe(0);
      expect(sample(text, 'service_state_read_failures_total')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'outbox_unpublished_events')).toBeNull();
      expect(text).toMatch(/^http_requests_total\{/m);
    } finally {
      await unreachable.close();
    }
  });
});
