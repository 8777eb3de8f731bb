/**
 * `GET /healthz`: 200 `{status: "ok", dependencies: {database, temporal}}` when every dependency
 * is up, 503 with the same body (`status: "degraded"`) when one is down. The status comes from
 * the health monitor (api/health-monitor.ts), refreshed in the background, so this route never
 * calls PostgreSQL or Temporal itself (docs/processes.md P0 "Health").
 */
import { describeRoute } from 'hono-openapi';
import { factory } from '../env';

export const healthRoutes = factory.createApp().get(
  '/',
  describeRoute({
    tags: ['Operations'],
    summary: 'Health of the service and its dependencies',
    description: 'The last status checked in the background (every 5 s), not a fresh check per request.',
    responses: { 200: { description: 'All dependencies up' }, 503: { description: 'A dependency is down' } },
  }),
  async (c) => {
    const { database, temporal } = await c.get('deps').health.current();
    const ok = database === 'up' && temporal === 'up';
    return c.json({ status: ok ? 'ok' : 'degraded', dependencies: { database, temporal } }, ok ? 200 : 503);
  },
);
