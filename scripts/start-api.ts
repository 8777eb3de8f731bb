/**
 * `npm run start:api`: an HTTP API process (docs/processes.md P0), with no workers. Serves the API
 * on `HOST` (default 127.0.0.1; 0.0.0.0 in a container) and `PORT` (default 8080) against
 * `DATABASE_URL` and `TEMPORAL_ADDRESS` (required: see scripts/process-support.ts); run any number
 * behind a load balancer. Applies pending migrations first (safe concurrently: advisory lock).
 * SIGINT/SIGTERM stop it gracefully with exit code 0.
 *
 * `API_PROCESSES=N` (default 1) runs N API processes behind the one port with Node's `cluster` module
 * ("make the API able to use every core"): the primary forks N workers, shares connections among
 * them round-robin, forks a replacement when one dies unexpectedly (at most once a second), and on
 * SIGINT/SIGTERM stops them all and exits 0. Each worker is a full API process with its own database pool of
 * `DATABASE_POOL_SIZE` connections (default: workers/config.ts `defaultApiPoolSize` of the cores and N). Nothing is shared in memory between them (docs/design.md §1 stateless processes).
 */
import cluster from 'node:cluster';
import { Client, Connection } from '@temporalio/client';
import { serveApi } from '../api/server';
import { createDb } from '../db/client';
import { applyMigrations } from '../db/migrate';
import { apiConfigOf, loadConfig, operationDeps } from '../workers/config';
import { createLogger } from '../workers/logger';
import { clusterMetricsOfApiProcess, serveClusterMetrics } from '../workers/metrics';
import { temporalDataConverter } from '../workers/payload-codec';
import { temporalChannelArgs } from '../workers/temporal-channel';
import { startTracing, temporalClientInterceptors } from '../workers/tracing';
import { externalServices, stopOnSignals } from './process-support';

const config = loadConfig();
const { databaseUrl, temporalAddress } = externalServices(config, 'npm run start:api');
const logger = createLogger(config.logLevel);

if (config.apiProcesses > 1 && cluster.isPrimary) {
  await runPrimary(config.apiProcesses);
} else {
  await runApiProcess();
}

/** One API process: HTTP only, on `HOST`:`PORT` (shared with its siblings when under `cluster`). */
async function runApiProcess(): Promise<void> {
  // Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set (workers/tracing.ts): the server span per request, and the
  // Temporal client's spans as its children.
  const tracing = startTracing({ serviceName: 'lending-api' });
  const { db, close } = createDb(databaseUrl, { maxConnections: config.apiDatabasePoolSize });
  await applyMigrations(db);
  const connection = await Connection.connect({
    address: temporalAddress,
    connectTimeout: '30 seconds',
    channelArgs: temporalChannelArgs,
  });
  const client = new Client({
    connection,
    namespace: config.temporalNamespace,
    interceptors: temporalClientInterceptors(),
    dataConverter: temporalDataConverter(config.temporalPayloadKeys),
  });
  const api = await serveApi({
    deps: operationDeps(db, config),
    client,
    config: apiConfigOf(config),
    logger,
    host: config.host,
    port: config.port,
    // Under the cluster, GET /metrics shows the sum over every API process (workers/metrics.ts).
    ...(cluster.isWorker ? { processMetrics: clusterMetricsOfApiProcess() } : {}),
  });
  if (cluster.isPrimary) process.stdout.write(`API ready at ${api.baseUrl} (${config.environment})\n`);
  else process.send?.({ ready: api.baseUrl });

  stopOnSignals(
    async () => {
      await api.stop();
      await connection.close();
      await close();
      await tracing.shutdown();
    },
    (message, err) => (err ? logger.error({ err }, message) : logger.info(message)),
  );
}

/** The cluster primary: forks `count` API processes, replaces the ones that die, stops them all on a signal. */
async function runPrimary(count: number): Promise<void> {
  let stopping = false;
  let lastFork = 0;
  const fork = () => {
    lastFork = Date.now();
    cluster.fork();
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error(
      { pid: worker.process.pid, code, signal },
      'an API process ended unexpectedly; starting another',
    );
    setTimeout(fork, Math.max(0, lastFork + 1000 - Date.now()));
  });
  serveClusterMetrics();
  const ready = new Promise<string>((resolve) => {
    let readyCount = 0;
    cluster.on('message', (_worker, message: { ready?: string }) => {
      if (typeof message?.ready === 'string' && ++readyCount === count) resolve(message.ready);
    });
  });
  for (let i = 0; i < count; i++) fork();
  const baseUrl = await ready;
  process.stdout.write(`API ready at ${baseUrl} (${config.environment}, ${count} processes)\n`);

  stopOnSignals(
    async () => {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              worker.once('exit', () => resolve());
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    },
    (message, err) => (err ? logger.error({ err }, message) : logger.info(message)),
  );
}
