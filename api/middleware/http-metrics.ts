/**
 * Counts every HTTP request and observes its latency (api/metrics.ts `http_requests_total`,
 * `http_request_duration_seconds`), labelled by method, route template (never the raw path) and status. Mounted
 * first, so the latency covers every other middleware and the answer of `onError` / `notFound`.
 */
import { factory } from '../env';
import { httpRequestDurationSeconds, httpRequestsTotal, methodLabelOf, routeTemplateOf } from '../metrics';

export const httpMetrics = factory.createMiddleware(async (c, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    const labels = {
      method: methodLabelOf(c.req.method),
      route: routeTemplateOf(c),
      status: String(c.res.status),
    };
    httpRequestsTotal.inc(labels);
    httpRequestDurationSeconds.observe(labels, (performance.now() - started) / 1000);
  }
});
