/**
 * Serves the HTTP API (docs/conventions.md §1 `api/server.ts`): builds the app from an open database and
 * Temporal client, starts the background health monitor, the token-grant cache's watch of
 * credential changes (api/token-cache.ts) and the start-mark buffer (api/start-marks.ts), listens on `host:port` (port 0 picks a free one), and
 * returns how to stop it. Used by `npm run start:api` (scripts/start-api.ts) and
 * the all-in-one `npm start` (workers/stack.ts).
 */
import { serve } from '@hono/node-server';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { createActivities, createPlatformOperations, type Deps } from '../activities';
import { createApp } from './app';
import type { ApiConfig } from './env';
import { createDependencyHealth, createProcessClients } from './processes';
import { createStartMarkBuffer } from './start-marks';
import { createTokenGrantCache } from './token-cache';

export interface RunningApi {
  /** `http://<host>:<port>` as bound (a wildcard host shows as 127.0.0.1). */
  baseUrl: string;
  /** Stops accepting requests, ends open connections, the health monitor, the token cache's LISTEN; flushes start marks. */
  stop(): Promise<void>;
}

export async function serveApi(options: {
  deps: Deps;
  client: Client;
  config: ApiConfig;
  logger: Logger;
  host: string;
  port: number;
  /** This process's metrics text for `GET /metrics` (api/env.ts `AppDeps.processMetrics`); unset: its registry. */
  processMetrics?: () => Promise<string>;
}): Promise<RunningApi> {
  const health = createDependencyHealth(options.deps.db, options.client);
  health.start();
  const tokenGrants = createTokenGrantCache({
    db: options.deps.db,
    logger: options.logger,
    ...(options.config.tokenCacheTtlMs === undefined ? {} : { ttlMs: options.config.tokenCacheTtlMs }),
  });
  await tokenGrants.start();
  const platform = createPlatformOperations(options.deps);
  const startMarks = createStartMarkBuffer({ platform, logger: options.logger });
  const app = createApp({
    db: options.deps.db,
    activities: createActivities(options.deps),
    platform,
    startMarks,
    processes: createProcessClients(options.client),
    health,
    config: options.config,
    logger: options.logger,
    clock: options.deps.clock,
    tokenGrants,
    ...(options.processMetrics ? { processMetrics: options.processMetrics } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shownHost = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    baseUrl: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`,
    stop: async () => {
      await new Promise<void>((resolve) => {
        health.stop();
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await tokenGrants.stop();
      await startMarks.stop();
    },
  };
}
