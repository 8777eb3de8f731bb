/**
 * `npm start`: the whole service with its embedded defaults (workers/stack.ts). Prints the base
 * URL, the Temporal UI URL and how to get a credential; Ctrl-C stops everything it started.
 */
import { loadConfig } from '../workers/config';
import { createLogger } from '../workers/logger';
import { runtimeFilePath } from '../workers/runtime-file';
import { startStack } from '../workers/stack';
import { installTemporalRuntime } from '../workers/temporal';
import { stopOnSignals } from './process-support';

const started = Date.now();
const config = loadConfig();
const logger = createLogger(config.logLevel);
installTemporalRuntime();
const stack = await startStack(config, logger);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(
  [
    '',
    `Lending and servicing engine ready in ${seconds} s (${config.environment})`,
    `  API:          ${stack.baseUrl}   (reference: ${stack.baseUrl}/docs, OpenAPI: ${stack.baseUrl}/v1/openapi.json)`,
    `  Health:       ${stack.baseUrl}/healthz`,
    `  Tokens:       POST ${config.authBaseUrl ?? stack.baseUrl}/oauth2/token`,
    `  Temporal UI:  ${stack.temporalUiUrl ?? `(external Temporal at ${stack.temporalAddress})`}`,
    // Sandbox bootstraps the tenant `demo`; production has no tenant until one is asked for.
    `  Credential:   npm run admin -- clients create --tenant ${config.environment === 'sandbox' ? 'demo' : '<tenant> --create-tenant'} --environment ${config.environment} --scopes "servicing:read servicing:write lending:read lending:write" --permissions ALL`,
    `  Demo flow:    npm run demo   (both find this service through ${runtimeFilePath(config.dataDir)})`,
    `  Apart:        DATABASE_URL=${stack.databaseUrl} TEMPORAL_ADDRESS=${stack.temporalAddress} npm run start:worker (or start:api with another PORT)`,
    '',
  ].join('\n'),
);

stopOnSignals(stack.stop, (message, err) => (err ? logger.error({ err }, message) : logger.info(message)));
