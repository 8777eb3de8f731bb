/**
 * The pure helpers behind the metrics' labels and the metrics route: route templates as label
 * values (api/metrics.ts `routeLabelOf`), bounded method labels, HTTP status classes and the worker's webhook and
 * boarding counters (workers/metrics.ts), the listen address of a worker's metrics, the constant-time token check
 * (api/routes/metrics.ts) and which environment turns tracing on (workers/tracing.ts).
 */
import { describe, expect, it } from 'vitest';
import { methodLabelOf, metricsRegistry, routeLabelOf } from '../../api/metrics';
import { metricsTokenMatches } from '../../api/routes/metrics';
import { metricsActivityInterceptors, parseListenAddress, statusClassOf } from '../../workers/metrics';
import { tracingRequested, workflowSpanAttributesOf } from '../../workers/tracing';

describe('routeLabelOf', () => {
  it('is the first handler route, never a middleware path', () => {
    expect(
      routeLabelOf([
        { method: 'ALL', path: '*' },
        { method: 'ALL', path: '/v1/*' },
        { method: 'GET', path: '/v1/loans/:loanId' },
        { method: 'GET', path: '/v1/loans/:loanId' },
      ]),
    ).toBe('/v1/loans/:loanId');
  });
  it('is `unmatched` when only middleware matched (404, 405)', () => {
    expect(routeLabelOf([])).toBe('unmatched');
    expect(
      routeLabelOf([
        { method: 'ALL', path: '*' },
        { method: 'ALL', path: '/v1/*' },
      ]),
    ).toBe('unmatched');
  });
  it('drops regular-expression constraints of parameters', () => {
    expect(routeLabelOf([{ method: 'GET', path: '/v1/loans/:loanId{[0-9]+}/summary' }])).toBe(
      '/v1/loans/:loanId/summary',
    );
    expect(routeLabelOf([{ method: 'GET', path: '/v1/x/:id{[0-9]{1,3}}' }])).toBe('/v1/x/:id');
    expect(routeLabelOf([{ method: 'GET', path: '/' }])).toBe('/');
  });
});

describe('methodLabelOf', () => {
  it('keeps the usual methods and folds any other into OTHER', () => {
    for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
      expect(methodLabelOf(m)).toBe(m);
    expect(methodLabelOf('PROPFIND')).toBe('OTHER');
    expect(methodLabelOf('get')).toBe('OTHER');
  });
});

describe('statusClassOf', () => {
  it('classes statuses and calls a missing answer none', () => {
    expect(statusClassOf(200)).toBe('2xx');
    expect(statusClassOf(410)).toBe('4xx');
    expect(statusClassOf(503)).toBe('5xx');
    expect(statusClassOf(null)).toBe('none');
    expect(statusClassOf(undefined)).toBe('none');
    expect(statusClassOf(42)).toBe('none');
  });
});

describe('parseListenAddress', () => {
  it('reads host:port and [ipv6]:port', () => {
    expect(parseListenAddress('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListenAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseListenAddress('0.0.0.0:0')).toEqual({ host: '0.0.0.0', port: 0 });
  });
  it('refuses anything else', () => {
    for (const bad of ['9464', '127.0.0.1', '127.0.0.1:99999', 'http://127.0.0.1:9464', '::1:9464', ''])
      expect(() => parseListenAddress(bad), bad).toThrow(/host:port/);
  });
});

describe('metricsTokenMatches', () => {
  it('accepts exactly `Bearer <token>`', () => {
    expect(metricsTokenMatches('Bearer s3cret', 's3cret')).toBe(true);
    expect(metricsTokenMatches('Bearer s3cret ', 's3cret')).toBe(false);
    expect(metricsTokenMatches('bearer s3cret', 's3cret')).toBe(false);
    expect(metricsTokenMatches('s3cret', 's3cret')).toBe(false);
    expect(metricsTokenMatches(undefined, 's3cret')).toBe(false);
    expect(metricsTokenMatches('Bearer ', '')).toBe(false);
  });
});

describe('metricsActivityInterceptors', () => {
  const count = async (name: string) => (await metricsRegistry.getSingleMetric(name)?.get())?.values ?? [];
  const sampleValue = async (name: string, labels: Record<string, string>) =>
    (await count(name)).find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
  const run = async (activityType: string, result: unknown, fails = false) => {
    const interceptors = metricsActivityInterceptors({ info: { activityType } } as never);
    const next = async () => {
      if (fails) throw new Error('down');
      return result;
    };
    const call = interceptors.inbound?.execute?.({ args: [], headers: {} } as never, next as never);
    return call ?? next();
  };

  it('counts webhook attempts by outcome and status class, a thrown call as failed/none', async () => {
    const ok = await sampleValue('webhook_delivery_attempts_total', {
      outcome: 'succeeded',
      status_class: '2xx',
    });
    const gone = await sampleValue('webhook_delivery_attempts_total', {
      outcome: 'failed',
      status_class: '4xx',
    });
    const none = await sampleValue('webhook_delivery_attempts_total', {
      outcome: 'failed',
      status_class: 'none',
    });
    await run('sendWebhook', { responseStatus: 204, latencyMs: 3, error: null, retryAfterMs: null });
    await run('sendWebhook', { responseStatus: 410, latencyMs: 3, error: 'HTTP 410', retryAfterMs: null });
    await run('sendWebhook', { responseStatus: null, latencyMs: 3, error: 'timeout', retryAfterMs: null });
    await expect(run('sendWebhook', null, true)).rejects.toThrow('down');
    expect(
      await sampleValue('webhook_delivery_attempts_total', { outcome: 'succeeded', status_class: '2xx' }),
    ).toBe(ok + 1);
    expect(
      await sampleValue('webhook_delivery_attempts_total', { outcome: 'failed', status_class: '4xx' }),
    ).toBe(gone + 1);
    expect(
      await sampleValue('webhook_delivery_attempts_total', { outcome: 'failed', status_class: 'none' }),
    ).toBe(none + 2);
  });

  it('counts boarded and failed lines per kind; other activities pass through uncounted', async () => {
    await run('boardBoardingChunk', { loan: { boarded: 3, failed: 1 }, payment: { boarded: 0, failed: 0 } });
    expect(await sampleValue('boarding_lines_processed_total', { kind: 'loan', outcome: 'boarded' })).toBe(3);
    expect(await sampleValue('boarding_lines_processed_total', { kind: 'loan', outcome: 'failed' })).toBe(1);
    expect(await sampleValue('boarding_lines_processed_total', { kind: 'payment', outcome: 'boarded' })).toBe(
      0,
    );
    expect(metricsActivityInterceptors({ info: { activityType: 'openCase' } } as never)).toEqual({});
  });
});

describe('tracing', () => {
  it('is requested only by an OTLP endpoint, and OTEL_SDK_DISABLED wins', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(
      true,
    );
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
  });
  it('keeps only execution identifiers of the workflow info on workflow spans', () => {
    const attributes = workflowSpanAttributesOf({
      workflowId: 'privacy-request/t1/7',
      runId: 'r1',
      workflowType: 'privacyRequestWorkflow',
      taskQueue: 'servicing',
      namespace: 'default',
      searchAttributes: { CustomerRef: ['cus_secret'] },
      memo: { note: 'x' },
    } as never);
    expect(attributes).toEqual({
      temporalWorkflowId: 'privacy-request/t1/7',
      temporalRunId: 'r1',
      temporalWorkflowType: 'privacyRequestWorkflow',
      temporalTaskQueue: 'servicing',
      temporalNamespace: 'default',
    });
    expect(JSON.stringify(attributes)).not.toContain('cus_secret');
  });
});
