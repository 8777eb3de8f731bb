/**
 * `npm run start:api`: an HTTP API process (DESIGN-processes P0), with no workers. Serves the API
 * on `HOST` (default 127.0.0.1; 0.0.0.0 in a container) and `PORT` (default 8080) against
 * `DATABASE_URL` and `TEMPORAL_ADDRESS` (required: see scripts/process-support.ts); run any number
 * behind a load balancer. Applies pending migrations first (safe concurrently: advisory lock).
 * SIGINT/SIGTERM stop it gracefully with exit code 0.
 */
import { Client, Connection } from '@temporalio/client';
import { serveApi } from '../api/server';
import { createDb } from '../db/client';
import { applyMigrations } from '../db/migrate';
import { apiConfigOf, loadConfig, operationDeps } from '../workers/config';
import { createLogger } from '../workers/logger';
import { externalServices, stopOnSignals } from './process-support';

const config = loadConfig();
const { databaseUrl, temporalAddress } = externalServices(config, 'npm run start:api');
const logger = createLogger(config.logLevel);

const { db, close } = createDb(databaseUrl, { maxConnections: config.databasePoolSize });
await applyMigrations(db);
const connection = await Connection.connect({ address: temporalAddress });
const client = new Client({ connection, namespace: config.temporalNamespace });
const api = await serveApi({
  deps: operationDeps(db, config),
  client,
  config: apiConfigOf(config),
  logger,
  host: config.host,
  port: config.port,
});
process.stdout.write(`API ready at ${api.baseUrl} (${config.environment})\n`);

stopOnSignals(
  async () => {
    await api.stop();
    await connection.close();
    await close();
  },
  (message, err) => (err ? logger.error({ err }, message) : logger.info(message)),
);
