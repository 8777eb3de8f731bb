/**
 * `npm run start:worker -- --queues servicing,lending`: a worker process (DESIGN-processes P0),
 * with no HTTP. Runs one Temporal worker per named queue (workers/registry.ts; all registered
 * queues when `--queues` is omitted) and the background services (the start-intent relay), against
 * `DATABASE_URL` and `TEMPORAL_ADDRESS` (required: see scripts/process-support.ts). Run any
 * number of them. Activity slots per queue are sized to `DATABASE_POOL_SIZE`. Loads the prebuilt
 * workflow bundle (`WORKFLOW_BUNDLE_PATH`, or `dist/workflow-bundle.js` beside the built entry),
 * else bundles the workflows at start. `--no-background` leaves the relays to other processes.
 * Applies pending migrations first (safe concurrently: advisory lock). SIGINT/SIGTERM stop it
 * gracefully with exit code 0.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createDb } from '../db/client';
import { applyMigrations } from '../db/migrate';
import { loadConfig, operationDeps } from '../workers/config';
import { createLogger } from '../workers/logger';
import { parseQueues, runWorkers } from '../workers/run';
import { ensureSearchAttributes, installTemporalRuntime } from '../workers/temporal';
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
installTemporalRuntime();

const builtBundle = fileURLToPath(new URL('./workflow-bundle.js', import.meta.url));
const bundlePath = config.workflowBundlePath ?? (existsSync(builtBundle) ? builtBundle : undefined);

const { db, close } = createDb(databaseUrl, { maxConnections: config.databasePoolSize });
await applyMigrations(db);
const connection = await Connection.connect({ address: temporalAddress, connectTimeout: '30 seconds' });
await ensureSearchAttributes(connection, config.temporalNamespace, logger);
const client = new Client({ connection, namespace: config.temporalNamespace });
const workerConnection = await NativeConnection.connect({ address: temporalAddress });
const workers = await runWorkers({
  queues,
  deps: operationDeps(db, config),
  connection: workerConnection,
  client,
  namespace: config.temporalNamespace,
  logger,
  poolSize: config.databasePoolSize,
  workflowBundle: bundlePath ? { codePath: bundlePath } : undefined,
  background: !values['no-background'],
});
process.stdout.write(
  `Worker ready: queues ${queues.join(',')} (${workers.activitySlotsPerQueue} activity slots each, pool ${config.databasePoolSize}, bundle ${bundlePath ?? 'built at start'})\n`,
);

stopOnSignals(
  async () => {
    await workers.stop();
    await workerConnection.close();
    await connection.close();
    await close();
  },
  (message, err) => (err ? logger.error({ err }, message) : logger.info(message)),
);
