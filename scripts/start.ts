/**
 * `npm start`: the whole service with its embedded defaults (workers/stack.ts). Prints the base
 * URL, the Temporal UI URL and how to get a credential; Ctrl-C stops everything it started.
 */
import { loadConfig } from '../workers/config';
import { createLogger } from '../workers/logger';
import { runtimeFilePath } from '../workers/runtime-file';
import { startStack } from '../workers/stack';
import { freeLoopbackPort, installTemporalRuntime } from '../workers/temporal';
import { startTracing } from '../workers/tracing';
import { stopOnSignals } from './process-support';

const started = Date.now();
const config = loadConfig();
const logger = createLogger(config.logLevel);
// Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set (workers/tracing.ts); the SDK's worker metrics on a loopback
// port, re-exported by GET /metrics (api/metrics.ts), so one scrape shows everything.
const tracing = startTracing({ serviceName: 'lending-service' });
installTemporalRuntime({ prometheusBindAddress: `127.0.0.1:${await freeLoopbackPort()}` });
const stack = await startStack(config, logger);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(
  [
    '',
    `Lending and servicing engine ready in ${seconds} s (${config.environment})`,
    `  API:          ${stack.baseUrl}   (reference: ${stack.baseUrl}/docs, OpenAPI: ${stack.baseUrl}/v1/openapi.json)`,
    `  Health:       ${stack.baseUrl}/healthz   (metrics: ${stack.baseUrl}/metrics${config.environment === 'production' ? ', with METRICS_TOKEN' : ''})`,
    `  Tokens:       POST ${config.authBaseUrl ?? stack.baseUrl}/oauth2/token`,
    `  Temporal UI:  ${stack.temporalUiUrl ?? `(external Temporal at ${stack.temporalAddress})`}`,
    `  Codec:        ${stack.codecEndpointUrl ? `${stack.codecEndpointUrl}   (payloads are encrypted; the UI decodes them here)` : '(not served: set TEMPORAL_CODEC_ADDRESS)'}`,
    // Sandbox bootstraps the tenant `demo`; production has no tenant until one is asked for.
    `  Credential:   npm run admin -- clients create --tenant ${config.environment === 'sandbox' ? 'demo' : '<tenant> --create-tenant'} --environment ${config.environment} --scopes "servicing:read servicing:write lending:read lending:write" --permissions ALL`,
    `  Demo flow:    npm run demo   (both find this service through ${runtimeFilePath(config.dataDir)})`,
    `  Apart:        DATABASE_URL=${stack.databaseUrl} TEMPORAL_ADDRESS=${stack.temporalAddress} npm run start:worker (or start:api with another PORT)`,
    '',
  ].join('\n'),
);

stopOnSignals(
  async () => {
    await stack.stop();
    await tracing.shutdown();
  },
  (message, err) => (err ? logger.error({ err }, message) : logger.info(message)),
);
