/**
 * The whole service in one process, as `npm start` runs it (issue 2 §3): PostgreSQL (DATABASE_URL
 * or embedded), migrations, the `demo` sandbox tenant, Temporal (TEMPORAL_ADDRESS or a local dev
 * server with the Web UI), the servicing worker and its start sweep, the webhooks worker and the
 * outbox relay, and the HTTP API.
 * `stop()` ends everything it started, in reverse order. The e2e test boots the stack this way.
 */
import { serve } from '@hono/node-server';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities, createPlatformOperations } from '../activities';
import { createApp } from '../api/app';
import { createTemporalGateway } from '../api/temporal-gateway';
import { createDb } from '../db/client';
import { startEmbeddedPostgres } from '../db/embedded';
import { applyMigrations } from '../db/migrate';
import { searchAttributes } from '../domain/ids';
import { operationDeps, type ServiceConfig } from './config';
import { startOutboxRelay } from './outbox-relay';
import { createServicingWorker, startPrivacyStartSweep } from './servicing';
import { startTemporalDevServer } from './temporal-server';
import { createWebhooksWorker } from './webhooks';

export interface RunningStack {
  baseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** Registers the project's search attributes on a server we did not start (best effort). */
async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  logger: Logger,
): Promise<void> {
  const typeIds: Record<string, number> = { Keyword: 2, Int: 3 };
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(searchAttributes).filter(
      ([name]) => !(name in (existing.customAttributes ?? {})),
    );
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, typeIds[type] ?? 2])),
    });
  } catch (err) {
    logger.warn(
      { err },
      'could not register search attributes; register TenantId, CustomerRef, CaseId, LoanId by hand',
    );
  }
}

export async function startStack(
  config: ServiceConfig,
  logger: Logger,
  options: { workflowBundle?: { codePath: string } } = {},
): Promise<RunningStack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) {
      try {
        await fn();
      } catch (err) {
        logger.warn({ err }, 'error while stopping');
      }
    }
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      logger.info('starting embedded PostgreSQL');
      const embedded = await startEmbeddedPostgres({
        dataDir: `${config.dataDir}/postgres`,
        port: config.embeddedPostgresPort,
        log: (line) => logger.debug({ postgres: line }),
      });
      stops.push(embedded.stop);
      databaseUrl = embedded.url;
    }
    const { db, close } = createDb(databaseUrl, { maxConnections: 20 });
    stops.push(close);
    await applyMigrations(db);
    const deps = operationDeps(db, config);
    const activities = createActivities(deps);
    const platform = createPlatformOperations(deps);
    if (config.environment === 'sandbox')
      await platform.ensureTenant({ tenantId: 'demo', displayName: 'Demo tenant' });

    let temporalAddress = config.temporalAddress;
    let temporalUiUrl: string | null = null;
    if (!temporalAddress) {
      logger.info('starting Temporal dev server');
      const server = await startTemporalDevServer({
        port: config.temporalPort,
        uiPort: config.temporalUiPort,
        dbFile: `${config.dataDir}/temporal/temporal.sqlite`,
        namespace: config.temporalNamespace,
        log: (line) => logger.debug({ temporal: line }),
      });
      stops.push(server.stop);
      temporalAddress = server.address;
      temporalUiUrl = server.uiUrl;
    }
    const connection = await Connection.connect({ address: temporalAddress });
    stops.push(() => connection.close());
    await ensureSearchAttributes(connection, config.temporalNamespace, logger);
    const client = new Client({ connection, namespace: config.temporalNamespace });

    const workerConnection = await NativeConnection.connect({ address: temporalAddress });
    stops.push(() => workerConnection.close());
    const worker = await createServicingWorker({
      connection: workerConnection,
      namespace: config.temporalNamespace,
      activities,
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
    });
    const workerRun = worker.run();
    stops.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await workerRun;
    });
    stops.push(startPrivacyStartSweep({ client, activities, logger }));

    const webhooksWorker = await createWebhooksWorker({
      connection: workerConnection,
      namespace: config.temporalNamespace,
      activities,
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
    });
    const webhooksWorkerRun = webhooksWorker.run();
    stops.push(async () => {
      if (webhooksWorker.getState() === 'RUNNING') webhooksWorker.shutdown();
      await webhooksWorkerRun;
    });
    const relay = await startOutboxRelay({ db, client, logger });
    stops.push(() => relay.stop());

    const app = createApp({
      db,
      activities,
      platform,
      temporal: createTemporalGateway(client),
      config: {
        environment: config.environment,
        cursorSigningKey: config.cursorSigningKey,
        docsUrl: config.docsUrl,
        rateLimitPerSecond: config.rateLimitPerSecond,
      },
      logger,
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: config.port, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    );
    return { baseUrl: `http://127.0.0.1:${port}`, temporalAddress, temporalUiUrl, databaseUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Keeps the SDK's own log output to warnings and errors (our logs are JSON through pino). */
export function installTemporalRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A runtime is already installed in this process.
  }
}
