/**
 * `npm run admin -- <command>`: client administration against the running service's database.
 * Which database (workers/runtime-file.ts): `DATABASE_URL` when set, else the one `npm start`
 * recorded in `<DATA_DIR>/runtime.json` while it runs; with neither it exits 2 and says what it
 * needs. It never starts a PostgreSQL of its own (issue 14: a second, empty database whose
 * credentials the service refuses).
 *   clients create --tenant <t> [--create-tenant] --environment sandbox|production --scopes "<s1 s2>" --permissions "<P1 P2>|ALL" [--rate-limit <n>]
 *   clients rotate-secret --client-id <id> [--overlap-seconds <n>]
 *   clients disable --client-id <id>
 *   clients list --tenant <t>
 *   gateways create --tenant <t> --code <gatewayCode>
 *   gateways rotate-secret --code <gatewayCode> [--overlap-seconds <n>]
 *   gateways list --tenant <t>
 * `clients create` refuses a tenant that does not exist unless `--create-tenant` is given (`npm start`
 * creates the sandbox tenant `demo`). `clients disable` refuses the client's tokens from the next
 * request on. Prints one JSON object (or array) on stdout; client and gateway secrets are shown once.
 * Exit codes: 0 done, 2 usage, business refusal or no database to use.
 */
import { parseArgs } from 'node:util';
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { applyMigrations } from '../db/migrate';
import { isPermission, isScope } from '../domain/auth';
import { DomainError } from '../domain/errors';
import { loadConfig, operationDeps } from '../workers/config';
import { NoServiceDatabaseError, serviceDatabase } from '../workers/runtime-file';

const usage = `usage:
  npm run admin -- clients create --tenant <t> [--create-tenant] --environment sandbox|production --scopes "<space-separated>" --permissions "<space-separated>|ALL" [--rate-limit <n>]
  npm run admin -- clients rotate-secret --client-id <id> [--overlap-seconds <n>]
  npm run admin -- clients disable --client-id <id>
  npm run admin -- clients list --tenant <t>
  npm run admin -- gateways create --tenant <t> --code <gatewayCode>
  npm run admin -- gateways rotate-secret --code <gatewayCode> [--overlap-seconds <n>]
  npm run admin -- gateways list --tenant <t>
It uses DATABASE_URL, or else the database of the service \`npm start\` runs (<DATA_DIR>/runtime.json).`;

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
    'client-id': { type: 'string' },
    'create-tenant': { type: 'boolean' },
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
let database: ReturnType<typeof serviceDatabase>;
try {
  database = serviceDatabase(config);
} catch (err) {
  if (!(err instanceof NoServiceDatabaseError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}
const { db, close } = createDb(database.databaseUrl, { maxConnections: 2 });
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
    const environment = values.environment ?? database.runtime?.environment ?? config.environment;
    if (environment !== 'sandbox' && environment !== 'production')
      fail('--environment must be sandbox or production');
    if (database.runtime && database.runtime.environment !== environment)
      fail(
        `The running service serves ${database.runtime.environment}; it would refuse a ${environment} client (DESIGN §3: one environment per deployment).`,
      );
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
    const tenantId = values.tenant;
    result = await ops
      .createClient({
        tenantId,
        environment,
        scopes,
        permissions,
        rateLimitPerSecond: rate ? Number(rate) : null,
        createTenant: values['create-tenant'] === true,
      })
      .catch((err: unknown) => {
        if (err instanceof DomainError && err.code === 'error.msg.resource.not.found')
          fail(`Tenant ${tenantId} does not exist; add --create-tenant to create it with the client.`);
        throw err;
      });
  } else if (command === 'rotate-secret') {
    // --client is the older spelling of --client-id.
    const clientId = values['client-id'] ?? values.client;
    if (!clientId) fail('--client-id is required');
    const overlap = values['overlap-seconds'];
    result = await ops.rotateClientSecret({
      clientId,
      ...(overlap ? { overlapSeconds: Number(overlap) } : {}),
    });
  } else if (command === 'disable') {
    const clientId = values['client-id'];
    if (!clientId) fail('--client-id is required');
    result = await ops.disableClient({ clientId });
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
}
