/**
 * OpenTelemetry traces from the HTTP request through the workflow to its activities (* workers/tracing.ts, api/middleware/http-tracing.ts), with tracing turned on as a process does it
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`), exporting OTLP/HTTP JSON to a real receiver in this test (a node:http server),
 * the real app, PostgreSQL, the Temporal dev server and a worker on the bundle with the workflow interceptors.
 * A privacy request received and then fulfilled yields one trace per request: the HTTP server span → the
 * workflow start (Temporal client interceptor) → the workflow's run → an activity's schedule → the activity's run;
 * attributes name the route template, status, request id, tenant and workflow id; no token, customer ref or body
 * text is in any attribute.
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privacyRequestWorkflowId } from '../../domain/ids';
import { installTemporalRuntime } from '../../workers/temporal';
import { flushTracing, startTracing } from '../../workers/tracing';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { logInteraction, openCase } from './helpers';

/** An OTLP/JSON attribute value. */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  serviceName: string | undefined;
}

const received: ExportedSpan[] = [];
const rawBodies: string[] = [];
let receiver: Server;
let ctx: TestContext;
let cred: Credential;
let stopTracing: () => Promise<void> = async () => {};

function attributeValueOf(value: AnyValue | undefined): string | number | boolean | undefined {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.boolValue ?? value.doubleValue;
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined) {
  return Object.fromEntries((list ?? []).map((a) => [a.key, attributeValueOf(a.value)]));
}

/** Collects the spans of an OTLP/HTTP JSON export request. */
function collect(body: string): void {
  rawBodies.push(body);
  const request = JSON.parse(body) as {
    resourceSpans?: {
      resource?: { attributes?: { key: string; value: AnyValue }[] };
      scopeSpans?: { spans?: (Omit<ExportedSpan, 'attributes' | 'serviceName'> & { attributes?: [] })[] }[];
    }[];
  };
  for (const resourceSpans of request.resourceSpans ?? []) {
    const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'] as
      | string
      | undefined;
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        received.push({ ...span, attributes: attributesOf(span.attributes), serviceName });
  }
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let bytes = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') bytes = gunzipSync(bytes);
      if (req.method === 'POST' && req.url === '/v1/traces') collect(bytes.toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // As a process is configured: tracing on before any Temporal client or worker exists.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
  const tracing = startTracing({ serviceName: 'lending-test' });
  expect(tracing.enabled).toBe(true);
  stopTracing = tracing.shutdown;
  installTemporalRuntime();
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('tracing'));
});

afterAll(async () => {
  await ctx?.close();
  await stopTracing();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

/** Flushes and waits until a span named `name` of trace `traceId` (any when null) arrived (20 s at most). */
async function spanNamed(name: string, traceId: string | null = null): Promise<ExportedSpan> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await flushTracing();
    const found = received.find((s) => s.name === name && (traceId === null || s.traceId === traceId));
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`no span ${name}; received: ${received.map((s) => s.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('traces', () => {
  it('link the HTTP request, the workflow start, the workflow and its activities in one trace', async () => {
    const customerRef = 'cus_traced_9';
    const caseId = await openCase(ctx, cred, { customerRef, caseTypeCode: 'PRIVACY', summary: 'DSR' });
    const interactionId = await logInteraction(ctx, cred, caseId, { customerRef });
    const requestIdHeader = `trace-test-${Date.now().toString(36)}`;
    // Received in the future of the real clock, so no reminder or deadline timer fires during the test.
    ctx.now.value = new Date('2036-03-02T18:00:00Z');
    const created = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/privacy-requests',
      {
        customerRef,
        requestType: 'DELETION',
        regime: 'CCPA_CPRA',
        summary: 'Delete my traced data',
        caseId,
        sourceInteractionId: interactionId,
      },
      { 'x-request-id': requestIdHeader },
    );
    ctx.now.value = null;
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const requestId = created.body.requestId as number;
    const workflowId = privacyRequestWorkflowId(cred.tenant, requestId);

    // Fulfilled, so the workflow ends and its run span (ended last) is exported too.
    const evidence = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
      caseId,
      evidenceType: 'DELETION_CONFIRMATION',
      description: 'Deleted from all systems',
    });
    const fulfilled = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [evidence.body.evidenceId],
    });
    expect(fulfilled.status, JSON.stringify(fulfilled.body)).toBe(200);
    await ctx.client.workflow.getHandle(workflowId).result();

    // The request's server span.
    await spanNamed('POST /v1/servicing/privacy-requests');
    const server = received.find(
      (s) =>
        s.name === 'POST /v1/servicing/privacy-requests' &&
        s.attributes['app.request_id'] === requestIdHeader,
    );
    expect(server).toBeDefined();
    const trace = server?.traceId as string;
    expect(server).toMatchObject({
      kind: 2,
      serviceName: 'lending-test',
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/v1/servicing/privacy-requests',
        'http.response.status_code': 201,
        'app.request_id': requestIdHeader,
        'app.tenant_id': cred.tenant,
      },
    });
    expect(server?.parentSpanId ?? '').toBe('');

    // → the workflow start (client interceptor), with the workflow id.
    const start = await spanNamed('StartWorkflow:privacyRequestWorkflow', trace);
    expect(start.parentSpanId).toBe(server?.spanId);
    expect(start.attributes.temporalWorkflowId).toBe(workflowId);
    // → the workflow's run (workflow interceptor, exported through the worker's sink).
    const run = await spanNamed('RunWorkflow:privacyRequestWorkflow', trace);
    expect(run.parentSpanId).toBe(start.spanId);
    expect(run.attributes).toMatchObject({
      temporalWorkflowId: workflowId,
      temporalWorkflowType: 'privacyRequestWorkflow',
    });
    // → an activity scheduled by the workflow, and its execution on the worker.
    const schedule = await spanNamed('StartActivity:markPrivacyWorkflowStarted', trace);
    expect(schedule.parentSpanId).toBe(run.spanId);
    const activity = await spanNamed('RunActivity:markPrivacyWorkflowStarted', trace);
    expect(activity.parentSpanId).toBe(schedule.spanId);

    // The fulfilment request is a trace of its own, down to the activity it runs.
    const fulfil = received.find((s) => s.name === 'POST /v1/servicing/privacy-requests/:requestId/fulfill');
    expect(fulfil).toBeDefined();
    expect(fulfil?.attributes['http.route']).toBe('/v1/servicing/privacy-requests/:requestId/fulfill');
    const fulfilActivity = await spanNamed('RunActivity:fulfilPrivacyRequest', fulfil?.traceId as string);
    expect(fulfilActivity.traceId).toBe(fulfil?.traceId);

    // Nothing secret or identifying in what was exported: no token, customer ref, body text or raw path with ids.
    const exported = rawBodies.join('\n');
    for (const secret of [
      cred.token,
      cred.clientSecret,
      'cus_traced_9',
      'Delete my traced data',
      'Deleted from all',
    ])
      expect(exported).not.toContain(secret);
    expect(exported).not.toContain(`/v1/servicing/privacy-requests/${requestId}/fulfill`);
    expect(exported).not.toContain('CustomerRef');
  });
});
