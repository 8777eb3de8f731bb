/**
 * `npm run start:worker -- --queues servicing,lending`: a worker process (docs/processes.md P0),
 * with no HTTP. Runs one Temporal worker per named queue (workers/registry.ts; all registered
 * queues when `--queues` is omitted) and the background services (the start-intent relay), against
 * `DATABASE_URL` and `TEMPORAL_ADDRESS` (required: see scripts/process-support.ts). Run any
 * number of them. Activity slots per queue are sized to `DATABASE_POOL_SIZE`. Loads the prebuilt
 * workflow bundles (`WORKFLOW_BUNDLE_PATH`, one for every queue; or each queue's `dist/workflow-bundle-<entry>.js`
 * beside the built entry, with tracing on `…-traced.js`, which carries OpenTelemetry's workflow interceptors),
 * else bundles each queue's workflows at start. `--no-background` leaves the relays to other processes.
 * Applies pending migrations first (safe concurrently: advisory lock). SIGINT/SIGTERM stop it
 * gracefully with exit code 0. `WORKER_METRICS_ADDRESS=host:port` serves its Prometheus metrics there
 * (workers/metrics.ts: the Temporal SDK's worker metrics, the worker's counters, the durable state);
 * `OTEL_EXPORTER_OTLP_ENDPOINT` turns traces on (workers/tracing.ts, service.name `lending-worker`).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createDb } from '../db/client';
import { applyMigrations } from '../db/migrate';
import { startCodecServer } from '../workers/codec-server';
import { loadConfig, operationDeps } from '../workers/config';
import { createLogger } from '../workers/logger';
import { startWorkerMetricsServer } from '../workers/metrics';
import { EncryptionCodec } from '../workers/payload-codec';
import { workflowBundleFileName } from '../workers/queue-worker';
import { parseQueues, runWorkers } from '../workers/run';
import {
  ensureSearchAttributes,
  freeLoopbackPort,
  installTemporalRuntime,
  temporalChannelArgs,
  temporalSdkMetricsUrl,
} from '../workers/temporal';
import { startTracing, temporalClientInterceptors } from '../workers/tracing';
import { externalServices, stopOnSignals } from './process-support';

const { values } = parseArgs({
  options: { queues: { type: 'string' }, 'no-background': { type: 'boolean', default: false } },
});
const config = loadConfig();
const { databaseUrl, temporalAddress } = externalServices(config, 'npm run start:worker');
let queues: string[];
try {
  queues = parseQueues(values.queues ?? process.env.WORKER_QUEUES);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
const logger = createLogger(config.logLevel);
const tracing = startTracing({ serviceName: 'lending-worker' });
// The SDK's exporter listens on loopback only; WORKER_METRICS_ADDRESS serves its text with ours.
installTemporalRuntime(
  config.workerMetricsAddress ? { prometheusBindAddress: `127.0.0.1:${await freeLoopbackPort()}` } : {},
);

// Each queue's prebuilt bundle beside the built entry (scripts/build.ts), with tracing on the one that carries
// OpenTelemetry's workflow interceptors; WORKFLOW_BUNDLE_PATH names one bundle for every queue.
const builtBundleOf = (queue: string) =>
  fileURLToPath(new URL(`./${workflowBundleFileName(queue, tracing.enabled)}`, import.meta.url));
const builtBundles = queues.every((queue) => existsSync(builtBundleOf(queue)));
const bundlePath =
  config.workflowBundlePath ?? (builtBundles ? queues.map(builtBundleOf).join(',') : undefined);
const { db, close } = createDb(databaseUrl, { maxConnections: config.databasePoolSize });
await applyMigrations(db);
const connection = await Connection.connect({
  address: temporalAddress,
  connectTimeout: '30 seconds',
  channelArgs: temporalChannelArgs,
});
await ensureSearchAttributes(connection, config.temporalNamespace, logger);
// Every payload written to Temporal is encrypted (workers/payload-codec.ts), by this client and the workers alike.
const codec = new EncryptionCodec(config.temporalPayloadKeys);
const dataConverter = { payloadCodecs: [codec] };
const client = new Client({
  connection,
  namespace: config.temporalNamespace,
  interceptors: temporalClientInterceptors(),
  dataConverter,
});
const workerConnection = await NativeConnection.connect({ address: temporalAddress });
const workers = await runWorkers({
  queues,
  deps: operationDeps(db, config),
  connection: workerConnection,
  client,
  namespace: config.temporalNamespace,
  logger,
  poolSize: config.databasePoolSize,
  workflowBundle: config.workflowBundlePath
    ? { codePath: config.workflowBundlePath }
    : builtBundles
      ? (queue: string) => ({ codePath: builtBundleOf(queue) })
      : undefined,
  background: !values['no-background'],
  workflowCache: config.workflowCache,
  dataConverter,
});
// The Temporal UI's codec endpoint (workers/codec-server.ts) when TEMPORAL_CODEC_ADDRESS is set.
const codecServer = config.codecEndpoint.address
  ? await startCodecServer({
      address: config.codecEndpoint.address,
      codec,
      token: config.codecEndpoint.token,
      allowedOrigins: config.codecEndpoint.allowedOrigins,
    })
  : null;
const sdkMetricsUrl = temporalSdkMetricsUrl();
const metricsServer = config.workerMetricsAddress
  ? await startWorkerMetricsServer({
      address: config.workerMetricsAddress,
      db,
      exporterUrls: sdkMetricsUrl ? [sdkMetricsUrl] : [],
    })
  : null;
process.stdout.write(
  `Worker ready: queues ${queues.join(',')} (${workers.activitySlotsPerQueue} activity slots each, pool ${config.databasePoolSize}, bundle ${bundlePath ?? 'built at start'})${metricsServer ? `; metrics at ${metricsServer.url}` : ''}${codecServer ? `; codec endpoint at ${codecServer.url}` : ''}\n`,
);

stopOnSignals(
  async () => {
    await metricsServer?.stop();
    await codecServer?.stop();
    await workers.stop();
    await workerConnection.close();
    await connection.close();
    await close();
    await tracing.shutdown();
  },
  (message, err) => (err ? logger.error({ err }, message) : logger.info(message)),
);
