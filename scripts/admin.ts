/**
 * `npm run admin -- <command>`: client administration against the service's database (the
 * embedded default included; run it while `npm start` runs).
 *   clients create --tenant <t> --environment sandbox|production --scopes "<s1 s2>" --permissions "<P1 P2>|ALL" [--rate-limit <n>]
 *   clients rotate-secret --client <id> [--overlap-seconds <n>]
 *   clients list --tenant <t>
 *   gateways create --tenant <t> --code <gatewayCode>
 *   gateways rotate-secret --code <gatewayCode> [--overlap-seconds <n>]
 *   gateways list --tenant <t>
 * Prints one JSON object (or array) on stdout; client and gateway secrets are shown once.
 */
import { parseArgs } from 'node:util';
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { startEmbeddedPostgres } from '../db/embedded';
import { applyMigrations } from '../db/migrate';
import { isPermission, isScope } from '../domain/auth';
import { DomainError } from '../domain/errors';
import { loadConfig, operationDeps } from '../workers/config';

const usage = `usage:
  npm run admin -- clients create --tenant <t> --environment sandbox|production --scopes "<space-separated>" --permissions "<space-separated>|ALL" [--rate-limit <n>]
  npm run admin -- clients rotate-secret --client <id> [--overlap-seconds <n>]
  npm run admin -- clients list --tenant <t>
  npm run admin -- gateways create --tenant <t> --code <gatewayCode>
  npm run admin -- gateways rotate-secret --code <gatewayCode> [--overlap-seconds <n>]
  npm run admin -- gateways list --tenant <t>`;

/** A usage or business error: printed with the usage after the database is closed, exit code 2. */
class UsageError extends Error {}

function fail(message: string): never {
  throw new UsageError(message);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    tenant: { type: 'string' },
    environment: { type: 'string' },
    scopes: { type: 'string' },
    permissions: { type: 'string' },
    client: { type: 'string' },
    'rate-limit': { type: 'string' },
    'overlap-seconds': { type: 'string' },
    code: { type: 'string' },
  },
});
const [group, command] = positionals;
if ((group !== 'clients' && group !== 'gateways') || !command) {
  process.stderr.write(`unknown command\n${usage}\n`);
  process.exit(2);
}

const config = loadConfig();
const embedded = config.databaseUrl
  ? null
  : await startEmbeddedPostgres({ dataDir: `${config.dataDir}/postgres`, port: config.embeddedPostgresPort });
const { db, close } = createDb(config.databaseUrl ?? embedded!.url, { maxConnections: 2 });
try {
  await applyMigrations(db);
  const ops = createPlatformOperations(operationDeps(db, config));
  let result: unknown;
  const overlapOption = values['overlap-seconds'];
  if (group === 'gateways') {
    if (command === 'create') {
      if (!values.tenant || !values.code) fail('--tenant and --code are required');
      result = await ops.createChannelGateway({ tenantId: values.tenant, code: values.code });
    } else if (command === 'rotate-secret') {
      if (!values.code) fail('--code is required');
      result = await ops.rotateChannelGatewaySecret({
        code: values.code,
        ...(overlapOption ? { overlapSeconds: Number(overlapOption) } : {}),
      });
    } else if (command === 'list') {
      if (!values.tenant) fail('--tenant is required');
      result = await ops.listChannelGateways({ tenantId: values.tenant });
    } else {
      fail(`unknown command gateways ${command}`);
    }
  } else if (command === 'create') {
    const environment = values.environment ?? config.environment;
    if (environment !== 'sandbox' && environment !== 'production')
      fail('--environment must be sandbox or production');
    if (!values.tenant) fail('--tenant is required');
    const scopes = (values.scopes ?? '').split(/\s+/).filter(Boolean);
    const permissions = (values.permissions ?? '').split(/\s+/).filter(Boolean);
    if (scopes.length === 0 || !scopes.every(isScope))
      fail(
        `--scopes must name scopes of: servicing:read servicing:write lending:read lending:write actions:approve`,
      );
    if (permissions.length === 0 || !permissions.every(isPermission))
      fail('--permissions must be ALL or known permission names (README)');
    const rate = values['rate-limit'];
    result = await ops.createClient({
      tenantId: values.tenant,
      environment,
      scopes,
      permissions,
      rateLimitPerSecond: rate ? Number(rate) : null,
    });
  } else if (command === 'rotate-secret') {
    if (!values.client) fail('--client is required');
    const overlap = values['overlap-seconds'];
    result = await ops.rotateClientSecret({
      clientId: values.client,
      ...(overlap ? { overlapSeconds: Number(overlap) } : {}),
    });
  } else if (command === 'list') {
    if (!values.tenant) fail('--tenant is required');
    result = await ops.listClients({ tenantId: values.tenant });
  } else {
    fail(`unknown command clients ${command}`);
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (err) {
  if (!(err instanceof DomainError || err instanceof UsageError)) throw err;
  process.stderr.write(`${err.message}\n${usage}\n`);
  process.exitCode = 2;
} finally {
  await close();
  // The embedded server belongs to `npm start` when it runs; stop it only if this command started it.
  await embedded?.stop();
}
