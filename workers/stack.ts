/**
 * The whole service in one process, as `npm start` runs it: PostgreSQL (DATABASE_URL
 * or embedded), migrations, the `demo` sandbox tenant, Temporal (TEMPORAL_ADDRESS or a local dev
 * server with the Web UI), every queue's worker with the background services (workers/run.ts),
 * and the HTTP API (api/server.ts). Production runs the last two apart (scripts/start-worker.ts,
 * scripts/start-api.ts).
 * Once the API serves, it writes `<DATA_DIR>/runtime.json` (workers/runtime-file.ts: database URL,
 * pid, base and token URLs, start time) so that `npm run admin` and `npm run demo` reach this
 * service's database whatever settings it runs with; `stop()` removes it first.
 * `stop()` ends everything it started, in reverse order. The e2e test boots the stack this way.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createPlatformOperations } from '../activities';
import { serveApi } from '../api/server';
import { createDb } from '../db/client';
import { startEmbeddedPostgres } from '../db/embedded';
import { applyMigrations } from '../db/migrate';
import { endWithThisProcess } from './child-watchdog';
import { startCodecServer } from './codec-server';
import { apiConfigOf, operationDeps, type ServiceConfig } from './config';
import { EncryptionCodec } from './payload-codec';
import type { WorkflowBundle } from './registry';
import { parseQueues, runWorkers } from './run';
import { pepperCheck, removeRuntimeFile, writeRuntimeFile } from './runtime-file';
import { ensureSearchAttributes, temporalChannelArgs, temporalSdkMetricsUrl } from './temporal';
import { startTemporalDevServer } from './temporal-server';
import { temporalClientInterceptors } from './tracing';

export { ensureSearchAttributes, installTemporalRuntime } from './temporal';

export interface RunningStack {
  baseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  /** The codec endpoint of the Temporal UI (workers/codec-server.ts), or null when not served. */
  codecEndpointUrl: string | null;
  databaseUrl: string;
  stop(): Promise<void>;
}

export async function startStack(
  config: ServiceConfig,
  logger: Logger,
  options: { workflowBundle?: WorkflowBundle } = {},
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
      // PostgreSQL ends with this process even when it is killed (workers/child-watchdog.ts); SIGINT is its fast
      // shutdown. An orderly stop releases the watchdog and stops the server itself.
      const watchdog =
        embedded.pid === null
          ? null
          : endWithThisProcess({ pid: embedded.pid, signal: 'SIGINT', group: false });
      stops.push(async () => {
        watchdog?.release();
        await embedded.stop();
      });
      databaseUrl = embedded.url;
    }
    const { db, close } = createDb(databaseUrl, { maxConnections: config.databasePoolSize });
    stops.push(close);
    // The HTTP API reads through a pool of its own, sized for short statements (workers/config.ts
    // `defaultApiPoolSize`), so the workers' activity slots and the API's requests never wait for each other.
    const apiPool = createDb(databaseUrl, { maxConnections: config.apiDatabasePoolSize });
    stops.push(apiPool.close);
    await applyMigrations(db);
    const deps = operationDeps(db, config);
    const platform = createPlatformOperations(deps);
    if (config.environment === 'sandbox')
      await platform.ensureTenant({ tenantId: 'demo', displayName: 'Demo tenant' });

    // Every payload this process's clients and workers write to Temporal is encrypted (workers/payload-codec.ts).
    const codec = new EncryptionCodec(config.temporalPayloadKeys);
    const dataConverter = { payloadCodecs: [codec] };
    // The codec endpoint of the Temporal UI: TEMPORAL_CODEC_ADDRESS, else in sandbox a free loopback port handed to
    // the dev server started below (`--ui-codec-endpoint`), so its UI shows payloads decoded.
    const codecAddress =
      config.codecEndpoint.address ?? (config.environment === 'sandbox' ? '127.0.0.1:0' : undefined);
    let codecEndpointUrl: string | null = null;
    if (codecAddress) {
      const codecServer = await startCodecServer({
        address: codecAddress,
        codec,
        token: config.codecEndpoint.token,
        allowedOrigins: config.codecEndpoint.allowedOrigins,
      });
      stops.push(codecServer.stop);
      codecEndpointUrl = codecServer.url;
    }

    let temporalAddress = config.temporalAddress;
    let temporalUiUrl: string | null = null;
    if (!temporalAddress) {
      logger.info('starting Temporal dev server');
      const server = await startTemporalDevServer({
        port: config.temporalPort,
        uiPort: config.temporalUiPort,
        dbFile: `${config.dataDir}/temporal/temporal.sqlite`,
        namespace: config.temporalNamespace,
        // Its output goes to a file, never to a pipe of ours: a pipe breaks when this process dies.
        logFile: `${config.dataDir}/temporal/temporal.log`,
        log: (line) => logger.info(line),
        // The UI can send no bearer token of ours: only a loopback endpoint without one is handed to it.
        ...(codecEndpointUrl && !config.codecEndpoint.token ? { uiCodecEndpoint: codecEndpointUrl } : {}),
      });
      stops.push(server.stop);
      temporalAddress = server.address;
      temporalUiUrl = server.uiUrl;
    }
    // A dev server this process just started can take longer than the client's default 10 s to answer its first
    // call on a loaded machine (seen in CI): give it a minute before giving up; a given server half a minute.
    const connection = await Connection.connect({
      address: temporalAddress,
      connectTimeout: config.temporalAddress ? '30 seconds' : '60 seconds',
      channelArgs: temporalChannelArgs,
    });
    stops.push(() => connection.close());
    await ensureSearchAttributes(connection, config.temporalNamespace, logger);
    // With tracing on (workers/tracing.ts), starts and signals are children of the request's server span.
    const client = new Client({
      connection,
      namespace: config.temporalNamespace,
      interceptors: temporalClientInterceptors(),
      dataConverter,
    });

    const workerConnection = await NativeConnection.connect({ address: temporalAddress });
    stops.push(() => workerConnection.close());
    const workers = await runWorkers({
      queues: parseQueues(undefined),
      deps,
      connection: workerConnection,
      client,
      namespace: config.temporalNamespace,
      logger,
      poolSize: config.databasePoolSize,
      workflowBundle: options.workflowBundle,
      workflowCache: config.workflowCache,
      dataConverter,
    });
    stops.push(workers.stop);

    // GET /metrics appends the Temporal SDK's worker metrics when scripts/start.ts installed its exporter.
    const sdkMetricsUrl = temporalSdkMetricsUrl();
    const api = await serveApi({
      deps: { ...deps, db: apiPool.db },
      client,
      config: { ...apiConfigOf(config), ...(sdkMetricsUrl ? { temporalMetricsUrl: sdkMetricsUrl } : {}) },
      logger,
      host: config.host,
      port: config.port,
    });
    stops.push(api.stop);
    await writeRuntimeFile(config.dataDir, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      environment: config.environment,
      databaseUrl,
      baseUrl: api.baseUrl,
      tokenUrl: `${config.authBaseUrl ?? api.baseUrl}/oauth2/token`,
      secretPepperCheck: pepperCheck(config.secretPepper),
      temporalAddress,
      temporalNamespace: config.temporalNamespace,
    });
    // Runs first on stop: no tool may pick up a service that is going away.
    stops.push(() => removeRuntimeFile(config.dataDir, process.pid));
    return { baseUrl: api.baseUrl, temporalAddress, temporalUiUrl, codecEndpointUrl, databaseUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
