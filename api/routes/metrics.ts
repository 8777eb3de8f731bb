/**
 * `GET /metrics`: the process's metrics in the Prometheus text exposition format (api/metrics.ts),
 * for the operators' scraper; not part of the OpenAPI document and not behind tenant authentication.
 * - sandbox: open;
 * - production: only with `Authorization: Bearer <METRICS_TOKEN>`, the token compared in constant time (SHA-256
 *   digests through `timingSafeEqual`); without `METRICS_TOKEN`, a missing or a wrong token the answer is the 404
 *   of an unknown route, so the public port does not reveal the route exists.
 * Answers `Cache-Control: no-store`. The durable-state part is cached for a few seconds (api/metrics.ts), so a
 * flood of scrapes cannot load the database.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../domain/errors';
import { factory } from '../env';
import { sendError } from '../errors';
import { metricsContentType, renderMetrics } from '../metrics';

/** True when `authorization` is `Bearer <token>` exactly (constant-time comparison of digests). */
export function metricsTokenMatches(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0;
}

export const metricsRoutes = factory.createApp().get('/', async (c) => {
  const { config, db, processMetrics } = c.get('deps');
  if (config.environment === 'production') {
    const token = config.metricsToken;
    if (!token || !metricsTokenMatches(c.req.header('authorization'), token)) {
      return sendError(
        c,
        new DomainError('error.msg.resource.not.found', `No route ${c.req.method} ${c.req.path}.`),
      );
    }
  }
  const text = await renderMetrics({
    db,
    exporterUrls: config.temporalMetricsUrl ? [config.temporalMetricsUrl] : [],
    ...(processMetrics ? { processMetrics } : {}),
  });
  return c.body(text, 200, { 'Content-Type': metricsContentType, 'Cache-Control': 'no-store' });
});
