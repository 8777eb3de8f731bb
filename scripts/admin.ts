/**
 * `npm run admin -- <command>`: client administration against the running service's database.
 * Which database (workers/runtime-file.ts): `DATABASE_URL` when set, else the one `npm start`
 * recorded in `<DATA_DIR>/runtime.json` while it runs; with neither it exits 2 and says what it
 * needs. It never starts a PostgreSQL of its own (a second, empty database whose
 * credentials the service refuses).
 *   clients create --tenant <t> [--create-tenant] --environment sandbox|production --scopes "<s1 s2>" --permissions "<P1 P2>|ALL" [--rate-limit <n>]
 *   clients rotate-secret --client-id <id> [--overlap-seconds <n>]
 *   clients disable --client-id <id>
 *   clients list --tenant <t>
 *   tenants settings --tenant <t> [--penalty-wait-period-days N] [--due-days-for-repayment-event N]
 *     [--overdue-days-for-repayment-event N]
 *   tenants settings --tenant <t> --maker-checker show|distinct-client|same-client-distinct-actor
 *   gateways create --tenant <t> --code <gatewayCode>
 *   gateways rotate-secret --code <gatewayCode> [--overlap-seconds <n>]
 *   gateways list --tenant <t>
 *   recon run --tenant <t> --date <YYYY-MM-DD> [--to <YYYY-MM-DD>] [--wait]
 *   statements run --tenant <t> --as-of <YYYY-MM-DD> [--wait]
 *   cob run --tenant <t> --date <YYYY-MM-DD> [--loan <id>…] [--wait]
 * `cob run` runs close of business for a day that has ended in the tenant's time zone (docs/processes.md P7 "The
 * run"; `closeOfBusinessWorkflow`): every loan active on it, or the loans given with `--loan` (repeatable). It prints
 * the run `{runId, businessDate, status, loans: {total, processed, failed}, startedAt, completedAt}`; with `--wait`,
 * once the run has ended. The whole-tenant run of a day is made once: asked again it prints that run.
 * `statements run` starts the tenant's statement run for a date (`tenantStatementCycleWorkflow`, docs/processes.md
 * P6): every ACTIVE loan of a statement-enabled product whose installment falls due `statementLeadDays` after the
 * date (the tenant's calendar) gets its statement; it prints `{workflowId}` (`statement-cycle/<tenant>/<date>`), and
 * with `--wait` also the result. Idempotent: a rerun finds the statements already issued and adds none.
 * `recon run` starts the tenant's reconciliation of the rail's settlements for a closed day (or the days
 * `--date`–`--to`), `tenantReconciliationWorkflow`, on the Temporal server at `TEMPORAL_ADDRESS` (else
 * the one the running `npm start` recorded in its runtime file, else `127.0.0.1:<TEMPORAL_PORT>`; workers/runtime-file.ts
 * `serviceTemporal`); it prints `{workflowId}`, and with `--wait` also the
 * result (counts opened and recurred by type) once a worker ran it. A rerun of a day opens nothing new.
 * `tenants settings` without `--maker-checker` prints the tenant's close-of-business days as one JSON object
 * `{penaltyWaitPeriodDays, dueDaysForRepaymentEvent, overdueDaysForRepaymentEvent}`, after changing those given
 * (docs/lending.md "Delinquency configuration"; integers 0–365): `--penalty-wait-period-days` (Fineract
 * `penalty-wait-period`, default 2), `--due-days-for-repayment-event` (`days-before-repayment-is-due`, default 3),
 * `--overdue-days-for-repayment-event` (`days-after-repayment-is-overdue`, default 1).
 * `tenants settings --maker-checker` prints `{tenantId, makerCheckerPolicy}`, after setting the policy given
 * (domain/maker-checker.ts: `distinct-client`, the default, makes a checker use another client than the maker;
 * `same-client-distinct-actor` lets one client serve both when the actors differ), or unchanged with `show`; it
 * cannot be combined with the day options (exit 2).
 * `clients create` refuses a tenant that does not exist unless `--create-tenant` is given (`npm start`
 * creates the sandbox tenant `demo`). `clients disable` refuses the client's tokens from the next
 * request on. Prints one JSON object (or array) on stdout; client and gateway secrets are shown once.
 * Exit codes: 0 done, 2 usage, business refusal or no database to use.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import { createActivities, createPlatformOperations } from '../activities';
import { reconciliationRangeDaysMax } from '../activities/payments/reconcile-rail-settlements';
import { createDb, type Db } from '../db/client';
import { applyMigrations } from '../db/migrate';
import { getCobRun } from '../db/queries/lending/cob-runs';
import { tenants } from '../db/schema';
import { withPlatformTransaction } from '../db/tenant-tx';
import { isPermission, isScope } from '../domain/auth';
import { daysBetween, isIsoDate } from '../domain/calendar';
import { DomainError } from '../domain/errors';
import { reconciliationTimeZone } from '../domain/payments/daily-reconciliation';
import { localDate } from '../domain/time-zone';
import { loadConfig, operationDeps } from '../workers/config';
import { temporalDataConverter } from '../workers/payload-codec';
import { NoServiceDatabaseError, serviceDatabase, serviceTemporal } from '../workers/runtime-file';
import { createCloseOfBusinessClient } from '../workflows/lending/close-of-business/client';
import { startTenantStatementCycle } from '../workflows/lending/statement-cycle/client';
import { startTenantReconciliation } from '../workflows/payments/daily-reconciliation/client';

const usage = `usage:
  npm run admin -- clients create --tenant <t> [--create-tenant] --environment sandbox|production --scopes "<space-separated>" --permissions "<space-separated>|ALL" [--rate-limit <n>]
  npm run admin -- clients rotate-secret --client-id <id> [--overlap-seconds <n>]
  npm run admin -- clients disable --client-id <id>
  npm run admin -- clients list --tenant <t>
  npm run admin -- tenants settings --tenant <t> [--penalty-wait-period-days <n>] [--due-days-for-repayment-event <n>] [--overdue-days-for-repayment-event <n>]
  npm run admin -- tenants settings --tenant <t> --maker-checker show|distinct-client|same-client-distinct-actor
  npm run admin -- gateways create --tenant <t> --code <gatewayCode>
  npm run admin -- gateways rotate-secret --code <gatewayCode> [--overlap-seconds <n>]
  npm run admin -- gateways list --tenant <t>
  npm run admin -- recon run --tenant <t> --date <YYYY-MM-DD> [--to <YYYY-MM-DD>] [--wait]
  npm run admin -- statements run --tenant <t> --as-of <YYYY-MM-DD> [--wait]
  npm run admin -- cob run --tenant <t> --date <YYYY-MM-DD> [--loan <id>…] [--wait]
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
    date: { type: 'string' },
    to: { type: 'string' },
    'as-of': { type: 'string' },
    wait: { type: 'boolean' },
    loan: { type: 'string', multiple: true },
    'maker-checker': { type: 'string' },
    'penalty-wait-period-days': { type: 'string' },
    'due-days-for-repayment-event': { type: 'string' },
    'overdue-days-for-repayment-event': { type: 'string' },
  },
});
const [group, command] = positionals;
if (
  (group !== 'clients' &&
    group !== 'gateways' &&
    group !== 'recon' &&
    group !== 'statements' &&
    group !== 'cob' &&
    group !== 'tenants') ||
  !command
) {
  process.stderr.write(`unknown command\n${usage}\n`);
  process.exit(2);
}

const config = loadConfig();

/**
 * `recon run`: checks the tenant and a closed range of ISO dates, then starts the tenant's reconciliation on
 * Temporal; with `--wait`, waits for its result. Answers `{workflowId, result?}`.
 */
async function runReconciliation(db: Db): Promise<{ workflowId: string; result?: unknown }> {
  const tenantId = values.tenant;
  const from = values.date;
  const to = values.to ?? from;
  if (!tenantId) fail('--tenant is required');
  if (!isIsoDate(from)) fail('--date must be a calendar date YYYY-MM-DD');
  if (!isIsoDate(to) || (to as string) < (from as string))
    fail('--to must be a calendar date YYYY-MM-DD, not before --date');
  if (daysBetween(from as string, to as string) + 1 > reconciliationRangeDaysMax)
    fail(`A reconciliation covers at most ${reconciliationRangeDaysMax} days.`);
  const [tenant] = await withPlatformTransaction(db, (tx) =>
    tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, tenantId as string)),
  );
  if (!tenant) fail(`Tenant ${tenantId} does not exist.`);
  const today = localDate(Date.now(), reconciliationTimeZone);
  if ((to as string) >= today)
    fail(`Only closed days are reconciled: before ${today} (${reconciliationTimeZone}).`);
  const temporal = serviceTemporal(config);
  const connection = await Connection.connect({ address: temporal.address });
  try {
    // The service's payload keys (workers/payload-codec.ts): what it starts is encrypted, what it awaits decrypted.
    const client = new Client({
      connection,
      namespace: temporal.namespace,
      dataConverter: temporalDataConverter(config.temporalPayloadKeys),
    });
    const input = { tenantId, from: from as string, to: to as string };
    const workflowId = await startTenantReconciliation(client, input);
    if (!values.wait) return { workflowId };
    return { workflowId, result: await client.workflow.getHandle(workflowId).result() };
  } finally {
    await connection.close();
  }
}

/**
 * `statements run`: checks the tenant and the ISO date, then starts the tenant's statement run for that date on
 * Temporal; with `--wait`, waits for its result. Answers `{workflowId, result?}`. A past date issues the statements a
 * missed run would have (statements are unique per loan and due date); a date after today in the tenant's time zone
 * is refused.
 */
async function runStatements(db: Db): Promise<{ workflowId: string; result?: unknown }> {
  const tenantId = values.tenant;
  const asOf = values['as-of'];
  if (!tenantId) fail('--tenant is required');
  if (!isIsoDate(asOf)) fail('--as-of must be a calendar date YYYY-MM-DD');
  const [tenant] = await withPlatformTransaction(db, (tx) =>
    tx
      .select({ id: tenants.id, timeZone: tenants.complianceTimeZone })
      .from(tenants)
      .where(eq(tenants.id, tenantId as string)),
  );
  if (!tenant) fail(`Tenant ${tenantId} does not exist.`);
  const today = localDate(Date.now(), tenant.timeZone);
  if ((asOf as string) > today)
    fail(
      `Statements are issued on their date, never early: --as-of must be on or before ${today} (${tenant.timeZone}).`,
    );
  const temporal = serviceTemporal(config);
  const connection = await Connection.connect({ address: temporal.address });
  try {
    // The service's payload keys (workers/payload-codec.ts): what it starts is encrypted, what it awaits decrypted.
    const client = new Client({
      connection,
      namespace: temporal.namespace,
      dataConverter: temporalDataConverter(config.temporalPayloadKeys),
    });
    const workflowId = await startTenantStatementCycle(client, { tenantId, asOf: asOf as string });
    if (!values.wait) return { workflowId };
    return { workflowId, result: await client.workflow.getHandle(workflowId).result() };
  } finally {
    await connection.close();
  }
}

/**
 * `cob run`: checks the tenant, the ISO date and the loan ids, opens the run (activities/lending/open-cob-run.ts: the
 * day must have ended in the tenant's time zone, the loans must be the tenant's) and starts its workflow on Temporal;
 * with `--wait`, waits for it to end. Answers the run as `GET /v1/cob/runs/{runId}` shows it.
 */
async function runCloseOfBusiness(db: Db): Promise<unknown> {
  const tenantId = values.tenant;
  const businessDate = values.date;
  if (!tenantId) fail('--tenant is required');
  if (!isIsoDate(businessDate)) fail('--date must be a calendar date YYYY-MM-DD');
  const loanOptions = values.loan ?? [];
  if (!loanOptions.every((id) => /^[1-9][0-9]{0,15}$/.test(id))) fail('--loan must be a positive loan id');
  const [tenant] = await withPlatformTransaction(db, (tx) =>
    tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, tenantId as string)),
  );
  if (!tenant) fail(`Tenant ${tenantId} does not exist.`);
  const deps = operationDeps(db, config);
  const opened = await createActivities(deps).openCobRun({
    tenantId: tenantId as string,
    businessDate: businessDate as string,
    loanIds: loanOptions.length > 0 ? loanOptions.map(Number) : null,
  });
  const temporal = serviceTemporal(config);
  const connection = await Connection.connect({ address: temporal.address });
  try {
    // The service's payload keys (workers/payload-codec.ts): what it starts is encrypted, what it awaits decrypted.
    const client = new Client({
      connection,
      namespace: temporal.namespace,
      dataConverter: temporalDataConverter(config.temporalPayloadKeys),
    });
    const runs = createCloseOfBusinessClient(client);
    // A run that ended is never started again (the day's whole-tenant run asked again).
    if (opened.created || opened.run.status === 'RUNNING') {
      await runs.start(opened.workflow.input);
      await createPlatformOperations(deps).markStartIntentStarted({
        tenantId: tenantId as string,
        workflowId: opened.workflow.workflowId,
      });
    }
    let run = opened.run;
    if (values.wait && run.status === 'RUNNING') {
      await runs.result(opened.workflow.workflowId);
      run = (await getCobRun(db, tenantId as string, opened.run.runId)) ?? run;
    } else if (run.status === 'RUNNING') {
      const loans = await runs.progress(run.workflowId).catch(() => null);
      if (loans) run = { ...run, loans };
    }
    const { workflowId: _workflowId, loanIds: _loanIds, ...view } = run;
    return view;
  } finally {
    await connection.close();
  }
}

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
  if (group === 'recon') {
    if (command !== 'run') fail(`unknown command recon ${command}`);
    result = await runReconciliation(db);
  } else if (group === 'cob') {
    if (command !== 'run') fail(`unknown command cob ${command}`);
    result = await runCloseOfBusiness(db);
  } else if (group === 'statements') {
    if (command !== 'run') fail(`unknown command statements ${command}`);
    result = await runStatements(db);
  } else if (group === 'tenants') {
    if (command !== 'settings') fail(`unknown command tenants ${command}`);
    if (!values.tenant) fail('--tenant is required');
    const policy = values['maker-checker'];
    const days = (option: string, value: string | undefined) => {
      if (value === undefined) return undefined;
      if (!/^[0-9]{1,3}$/.test(value) || Number(value) > 365)
        fail(`--${option} must be a whole number of days from 0 to 365`);
      return Number(value);
    };
    const dayOptions = {
      penaltyWaitPeriodDays: days('penalty-wait-period-days', values['penalty-wait-period-days']),
      dueDaysForRepaymentEvent: days('due-days-for-repayment-event', values['due-days-for-repayment-event']),
      overdueDaysForRepaymentEvent: days(
        'overdue-days-for-repayment-event',
        values['overdue-days-for-repayment-event'],
      ),
    };
    const givenDays = Object.fromEntries(Object.entries(dayOptions).filter(([, v]) => v !== undefined));
    if (policy !== undefined && Object.keys(givenDays).length > 0)
      fail('--maker-checker cannot be combined with the close-of-business day options: run them separately');
    const settings = await ops
      .tenantSettings({
        tenantId: values.tenant,
        ...(policy === undefined || policy === 'show' ? {} : { makerCheckerPolicy: policy }),
        ...givenDays,
      })
      .catch((err: unknown) => {
        if (err instanceof DomainError && err.code === 'error.msg.resource.not.found')
          fail(`Tenant ${values.tenant} does not exist.`);
        throw err;
      });
    result =
      policy === undefined
        ? {
            penaltyWaitPeriodDays: settings.penaltyWaitPeriodDays,
            dueDaysForRepaymentEvent: settings.dueDaysForRepaymentEvent,
            overdueDaysForRepaymentEvent: settings.overdueDaysForRepaymentEvent,
          }
        : { tenantId: settings.tenantId, makerCheckerPolicy: settings.makerCheckerPolicy };
  } else if (group === 'gateways') {
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
        `The running service serves ${database.runtime.environment}; it would refuse a ${environment} client (docs/design.md §3: one environment per deployment).`,
      );
    if (!values.tenant) fail('--tenant is required');
    const scopes = (values.scopes ?? '').split(/\s+/).filter(Boolean);
    const permissions = (values.permissions ?? '').split(/\s+/).filter(Boolean);
    if (scopes.length === 0 || !scopes.every(isScope))
      fail(
        `--scopes must name scopes of: servicing:read servicing:write lending:read lending:write actions:approve`,
      );
    if (permissions.length === 0 || !permissions.every(isPermission))
      fail(
        '--permissions must be ALL or known permission names (docs/integrating.md "Routes, scopes and permissions")',
      );
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
