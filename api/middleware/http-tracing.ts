/**
 * The HTTP server span of each request (OpenTelemetry HTTP semantic conventions): named
 * `<METHOD> <route template>`, kind SERVER, a child of the caller's W3C `traceparent` when one is sent, and the
 * active span while the request runs, so a workflow start, signal or update made by the route (the Temporal client
 * interceptor, workers/tracing.ts) is its child. Attributes: `http.request.method`, `http.route` (the template,
 * never the raw path with ids), `http.response.status_code`, `app.request_id` and `app.tenant_id` when known.
 * Never tokens, secrets, customer identifiers, bodies or query strings. With tracing off (no tracer provider
 * registered) the OpenTelemetry API hands out a non-recording span and this costs next to nothing.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import { factory } from '../env';
import { methodLabelOf, routeTemplateOf } from '../metrics';

const tracer = trace.getTracer('lending-api');

/** Reads only `traceparent` / `tracestate` from the request headers. */
const headerGetter = {
  keys: (carrier: Headers) => [...carrier.keys()],
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
};

export const httpTracing = factory.createMiddleware(async (c, next) => {
  const parent = propagation.extract(context.active(), c.req.raw.headers, headerGetter);
  await tracer.startActiveSpan('HTTP', { kind: SpanKind.SERVER }, parent, async (span) => {
    // Off (a non-recording span): nothing more is computed.
    const recording = span.isRecording();
    if (recording) {
      const method = methodLabelOf(c.req.method);
      const route = routeTemplateOf(c);
      span.updateName(`${method} ${route}`);
      span.setAttributes({ [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_HTTP_ROUTE]: route });
    }
    try {
      await next();
    } finally {
      if (recording) {
        const status = c.res.status;
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        const requestId = c.get('requestId');
        if (requestId) span.setAttribute('app.request_id', requestId);
        const tenantId = c.get('tenantId') ?? c.get('auth')?.tenantId;
        if (tenantId) span.setAttribute('app.tenant_id', tenantId);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  });
});
