/**
 * `npm run demo`: runs the integrator flow (scripts/demo-flow.ts) against the running service
 * (`npm start`) with a fresh credential of the sandbox tenant `demo`, printing every request and
 * response, then where to see the workflow in the Temporal UI.
 * Env: DEMO_BASE_URL (default http://127.0.0.1:$PORT), TEMPORAL_UI_URL (default http://127.0.0.1:8233).
 */
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { startEmbeddedPostgres } from '../db/embedded';
import { loadConfig, operationDeps } from '../workers/config';
import { runDemoFlow } from './demo-flow';

const config = loadConfig();
const baseUrl = process.env.DEMO_BASE_URL ?? `http://127.0.0.1:${config.port}`;
const uiUrl = process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${config.temporalUiPort}`;

const health = await fetch(`${baseUrl}/healthz`).catch(() => null);
if (health?.status !== 200) {
  process.stderr.write(
    `The service does not answer at ${baseUrl}/healthz: start it with \`npm start\` first.\n`,
  );
  process.exit(1);
}

const embedded = config.databaseUrl
  ? null
  : await startEmbeddedPostgres({ dataDir: `${config.dataDir}/postgres`, port: config.embeddedPostgresPort });
const { db, close } = createDb(config.databaseUrl ?? embedded!.url, { maxConnections: 2 });
const platform = createPlatformOperations(operationDeps(db, config));
const client = await platform.createClient({
  tenantId: 'demo',
  environment: config.environment,
  scopes: ['servicing:read', 'servicing:write'],
  permissions: ['ALL'],
  description: 'npm run demo',
});
await close();
await embedded?.stop();

process.stdout.write(
  `Fresh credential for tenant demo: client ${client.clientId} (secret shown once, not printed)\n\n`,
);
const result = await runDemoFlow(
  baseUrl,
  { tenant: 'demo', clientId: client.clientId, clientSecret: client.clientSecret },
  (x) => {
    process.stdout.write(`> ${x.method} ${x.path}\n`);
    if (x.requestBody !== undefined) {
      process.stdout.write(
        `${typeof x.requestBody === 'string' ? x.requestBody : JSON.stringify(x.requestBody, null, 2)}\n`,
      );
    }
    process.stdout.write(`< ${x.status}\n${JSON.stringify(x.responseBody, null, 2)}\n\n`);
  },
);
process.stdout.write(
  [
    `Flow complete: case ${result.caseId}, privacy request ${result.requestId}, ${result.effects.length} effects.`,
    `Workflow ${result.workflowId}:`,
    `  ${uiUrl}/namespaces/${config.temporalNamespace}/workflows/${encodeURIComponent(result.workflowId)}`,
    `All of the tenant's workflows: ${uiUrl}/namespaces/${config.temporalNamespace}/workflows?query=${encodeURIComponent('TenantId="demo"')}`,
    '',
  ].join('\n'),
);
