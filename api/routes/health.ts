/**
 * `GET /healthz`: 200 `{status: "ok", dependencies: {database, temporal}}` when every dependency
 * answers, 503 with the same body (`status: "degraded"`) when one does not.
 */
import { describeRoute } from 'hono-openapi';
import { pingDatabase } from '../../db/queries/platform';
import { factory } from '../env';

export const healthRoutes = factory.createApp().get(
  '/',
  describeRoute({
    tags: ['Operations'],
    summary: 'Health of the service and its dependencies',
    responses: { 200: { description: 'All dependencies up' }, 503: { description: 'A dependency is down' } },
  }),
  async (c) => {
    const { db, temporal } = c.get('deps');
    const [database, workflow] = await Promise.all([pingDatabase(db), temporal.health()]);
    const ok = database && workflow;
    return c.json(
      {
        status: ok ? 'ok' : 'degraded',
        dependencies: { database: database ? 'up' : 'down', temporal: workflow ? 'up' : 'down' },
      },
      ok ? 200 : 503,
    );
  },
);
