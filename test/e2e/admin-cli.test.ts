/**
 * The admin CLI (`npm run admin`, scripts/admin.ts) reaches the running service's database or refuses
 *: with `DATABASE_URL` it uses that database; without, it uses the one named in
 * `<DATA_DIR>/runtime.json`, which `npm start` writes (workers/stack.ts), when the process that wrote it
 * still runs and uses the same secret pepper; otherwise it exits 2 saying what it needs, and never
 * starts a PostgreSQL of its own. Also `clients create` without `--create-tenant` (no implicit
 * tenants), `clients disable --client-id` and `tenants settings` (the close-of-business days, and the maker-checker
 * policy as its own output), `recon run`, `statements run` and `cob run` (close of business of an ended day, run by
 * a `lending` worker of this test, printed once it ended with `--wait`).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities';
import { createDb } from '../../db/client';
import { freePort } from '../../db/embedded';
import { apiClients, loans, tenants } from '../../db/schema';
import { addDays } from '../../domain/calendar';
import { asTemporalActivities } from '../../workers/activities';
import { loadConfig, projectRoot } from '../../workers/config';
import { pepperCheck, type RuntimeInfo, writeRuntimeFile } from '../../workers/runtime-file';
import { approvedLoan } from '../activities/ledger-fixtures';
import { testDataConverter, testSecrets, uniqueTenant } from '../support/context';
import { testNamespace } from '../support/namespaces';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

let dataDir: string;
let handle: ReturnType<typeof createDb>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lending-admin-cli-'));
  await chmod(dataDir, 0o755);
  handle = createDb(inject('databaseUrl'), { maxConnections: 2 });
});
afterAll(async () => {
  await handle?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The environment of a shell with `overrides`: no DATABASE_URL unless given, embedded port free. */
async function envWith(overrides: Record<string, string>): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, EMBEDDED_POSTGRES_PORT: String(await freePort()) };
  for (const name of [
    'DATABASE_URL',
    'SECRET_PEPPER',
    'CURSOR_SIGNING_KEY',
    'DATA_ENCRYPTION_KEY',
    'SERVICE_ENVIRONMENT',
  ])
    delete env[name];
  return { ...env, ...overrides };
}

async function admin(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(tsx, ['scripts/admin.ts', ...args], {
      cwd: projectRoot,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** A runtime file for `dir` as `npm start` writes it, naming the test database and a live process. */
async function writeRuntime(dir: string, overrides: Partial<RuntimeInfo> = {}): Promise<void> {
  const config = loadConfig({ DATA_DIR: dir });
  await writeRuntimeFile(dir, {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    environment: 'sandbox',
    databaseUrl: inject('databaseUrl'),
    baseUrl: 'http://127.0.0.1:1',
    tokenUrl: 'http://127.0.0.1:1/oauth2/token',
    secretPepperCheck: pepperCheck(config.secretPepper),
    ...overrides,
  });
}

const createArgs = (tenant: string) => [
  'clients',
  'create',
  '--tenant',
  tenant,
  '--environment',
  'sandbox',
  '--scopes',
  'servicing:read',
  '--permissions',
  'ALL',
];

describe('npm run admin: which database', () => {
  it('without DATABASE_URL and without a running service: exit 2 naming what it needs, no PostgreSQL of its own', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'lending-admin-none-'));
    try {
      const res = await admin(
        [...createArgs(uniqueTenant('cli')), '--create-tenant'],
        await envWith({ DATA_DIR: empty }),
      );
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain(path.join(empty, 'runtime.json'));
      expect(res.stderr).toContain('npm start');
      expect(res.stderr).toContain('DATABASE_URL');
      expect(existsSync(path.join(empty, 'postgres'))).toBe(false);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('uses the database named in runtime.json; refuses an unknown tenant without --create-tenant', async () => {
    await writeRuntime(dataDir);
    const env = await envWith({ DATA_DIR: dataDir });
    const tenant = uniqueTenant('cli');

    const refused = await admin(createArgs(tenant), env);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toContain(tenant);
    expect(refused.stderr).toContain('--create-tenant');
    expect(await handle.db.select().from(tenants).where(eq(tenants.id, tenant))).toHaveLength(0);

    const created = await admin([...createArgs(tenant), '--create-tenant'], env);
    expect(created.code, created.stderr).toBe(0);
    const client = JSON.parse(created.stdout) as { clientId: string; clientSecret: string; tenant: string };
    expect(client.tenant).toBe(tenant);
    const [row] = await handle.db.select().from(apiClients).where(eq(apiClients.clientId, client.clientId));
    expect(row?.tenantId).toBe(tenant);
    expect(row?.disabledAt).toBeNull();

    // An existing tenant needs no flag.
    const second = await admin(createArgs(tenant), env);
    expect(second.code, second.stderr).toBe(0);

    // clients disable --client-id
    const disabled = await admin(['clients', 'disable', '--client-id', client.clientId], env);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(JSON.parse(disabled.stdout)).toEqual({
      clientId: client.clientId,
      disabledAt: expect.any(String),
    });
    const [after] = await handle.db.select().from(apiClients).where(eq(apiClients.clientId, client.clientId));
    expect(after?.disabledAt).toBeInstanceOf(Date);
    const missing = await admin(['clients', 'disable'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--client-id');
  });

  it('refuses a runtime.json whose process has ended', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lending-admin-stale-'));
    try {
      const child = execFile(process.execPath, ['-e', '']);
      await new Promise((resolve) => child.once('exit', resolve));
      await writeRuntime(dir, { pid: child.pid as number });
      const res = await admin(['clients', 'list', '--tenant', 'demo'], await envWith({ DATA_DIR: dir }));
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stderr).toContain(`${child.pid}`);
      expect(res.stderr).toMatch(/not running/);
      expect(existsSync(path.join(dir, 'postgres'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses when its secret pepper differs from the running service’s, and a client of the other environment', async () => {
    await writeRuntime(dataDir);
    const pepper = await admin(
      [...createArgs(uniqueTenant('cli')), '--create-tenant'],
      await envWith({ DATA_DIR: dataDir, SECRET_PEPPER: 'another-pepper' }),
    );
    expect(pepper.code, pepper.stdout + pepper.stderr).toBe(2);
    expect(pepper.stderr).toContain('SECRET_PEPPER');

    const args = [...createArgs(uniqueTenant('cli')), '--create-tenant'];
    args[args.indexOf('sandbox')] = 'production';
    const production = await admin(args, await envWith({ DATA_DIR: dataDir }));
    expect(production.code, production.stdout + production.stderr).toBe(2);
    expect(production.stderr).toMatch(/serves sandbox/);
  });

  it('with DATABASE_URL uses that database, runtime.json or not', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lending-admin-url-'));
    try {
      const tenant = uniqueTenant('cli');
      const res = await admin(
        [...createArgs(tenant), '--create-tenant'],
        await envWith({ DATA_DIR: dir, DATABASE_URL: inject('databaseUrl') }),
      );
      expect(res.code, res.stderr).toBe(0);
      expect(await handle.db.select().from(tenants).where(eq(tenants.id, tenant))).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run admin -- tenants settings', () => {
  it('shows and sets the maker-checker policy (default distinct-client) as {tenantId, makerCheckerPolicy}; refuses an unknown policy or tenant, or the policy with day options', async () => {
    const tenant = uniqueTenant('cli-mc');
    const env = await envWith({ DATABASE_URL: inject('databaseUrl') });
    expect((await admin([...createArgs(tenant), '--create-tenant'], env)).code).toBe(0);
    const shown = await admin(['tenants', 'settings', '--tenant', tenant, '--maker-checker', 'show'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ tenantId: tenant, makerCheckerPolicy: 'distinct-client' });
    const set = await admin(
      ['tenants', 'settings', '--tenant', tenant, '--maker-checker', 'same-client-distinct-actor'],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      tenantId: tenant,
      makerCheckerPolicy: 'same-client-distinct-actor',
    });
    const again = await admin(['tenants', 'settings', '--tenant', tenant, '--maker-checker', 'show'], env);
    expect(JSON.parse(again.stdout)).toEqual({
      tenantId: tenant,
      makerCheckerPolicy: 'same-client-distinct-actor',
    });
    const mixed = await admin(
      [
        'tenants',
        'settings',
        '--tenant',
        tenant,
        '--maker-checker',
        'distinct-client',
        '--penalty-wait-period-days',
        '4',
      ],
      env,
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--maker-checker cannot be combined');
    const days = await admin(['tenants', 'settings', '--tenant', tenant], env);
    expect(JSON.parse(days.stdout)).toEqual({
      penaltyWaitPeriodDays: 2, // the refused call changed nothing
      dueDaysForRepaymentEvent: 3,
      overdueDaysForRepaymentEvent: 1,
    });
    const bad = await admin(['tenants', 'settings', '--tenant', tenant, '--maker-checker', 'anyone'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('distinct-client');
    const unknown = await admin(['tenants', 'settings', '--tenant', uniqueTenant('cli-none')], env);
    expect(unknown.code).toBe(2);
    const [row] = await handle.db
      .select({ policy: tenants.makerCheckerPolicy })
      .from(tenants)
      .where(eq(tenants.id, tenant));
    expect(row?.policy).toBe('same-client-distinct-actor');
  });
});

describe('npm run admin -- tenants settings (close-of-business days)', () => {
  it('shows the defaults 2, 3, 1, changes only the days given, and refuses a value out of range changing nothing', async () => {
    const tenant = uniqueTenant('cli-cob');
    const env = await envWith({ DATABASE_URL: inject('databaseUrl') });
    expect((await admin([...createArgs(tenant), '--create-tenant'], env)).code).toBe(0);
    const settings = (args: string[]) => admin(['tenants', 'settings', '--tenant', tenant, ...args], env);
    const shown = await settings([]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({
      penaltyWaitPeriodDays: 2,
      dueDaysForRepaymentEvent: 3,
      overdueDaysForRepaymentEvent: 1,
    });
    const set = await settings([
      '--penalty-wait-period-days',
      '5',
      '--overdue-days-for-repayment-event',
      '0',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      penaltyWaitPeriodDays: 5,
      dueDaysForRepaymentEvent: 3,
      overdueDaysForRepaymentEvent: 0,
    });
    const due = await settings(['--due-days-for-repayment-event', '7']);
    expect(JSON.parse(due.stdout)).toEqual({
      penaltyWaitPeriodDays: 5,
      dueDaysForRepaymentEvent: 7,
      overdueDaysForRepaymentEvent: 0,
    });
    for (const [option, value] of [
      ['--penalty-wait-period-days', '-1'],
      ['--due-days-for-repayment-event', '1.5'],
      ['--overdue-days-for-repayment-event', 'two'],
      ['--penalty-wait-period-days', '366'],
    ] as const) {
      // `--option=-1`: a value of its own would read as an option.
      const bad = await settings([`${option}=${value}`]);
      expect(bad.code, `${option} ${value}`).toBe(2);
      expect(bad.stderr).toContain(option.slice(2, 10));
    }
    const [row] = await handle.db
      .select({
        wait: tenants.penaltyWaitPeriodDays,
        due: tenants.dueDaysForRepaymentEvent,
        overdue: tenants.overdueDaysForRepaymentEvent,
      })
      .from(tenants)
      .where(eq(tenants.id, tenant));
    expect(row).toEqual({ wait: 5, due: 7, overdue: 0 });
  });
});

describe('npm run admin -- recon run', () => {
  it('starts a tenant’s reconciliation of a closed day on Temporal; refuses an open day or an unknown tenant', async () => {
    const tenant = uniqueTenant('cli');
    await handle.db.insert(tenants).values({ id: tenant, displayName: 'Recon CLI' });
    const env = await envWith({
      DATA_DIR: dataDir,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
    });
    const today = new Date().toISOString().slice(0, 10);
    const open = await admin(['recon', 'run', '--tenant', tenant, '--date', addDays(today, 1)], env);
    expect(open.code, open.stdout + open.stderr).toBe(2);
    expect(open.stderr).toContain('closed days');
    const unknown = await admin(['recon', 'run', '--tenant', `${tenant}x`, '--date', '2026-01-05'], env);
    expect(unknown.code, unknown.stdout + unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain(`${tenant}x does not exist`);

    const started = await admin(['recon', 'run', '--tenant', tenant, '--date', '2026-01-05'], env);
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toEqual({ workflowId: `daily-reconciliation/${tenant}/2026-01-05` });
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const workflow = new Client({ connection }).workflow.getHandle(
        `daily-reconciliation/${tenant}/2026-01-05`,
      );
      const described = await workflow.describe();
      expect(described.type).toBe('tenantReconciliationWorkflow');
      expect(described.taskQueue).toBe('lending');
      expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toContainEqual([
        'TenantId',
        tenant,
      ]);
      await workflow.terminate('test: started by the admin CLI only').catch(() => {});
    } finally {
      await connection.close();
    }
  });
});

describe('npm run admin -- statements run', () => {
  it('starts a tenant’s statement run for a date on Temporal; refuses a bad date or an unknown tenant', async () => {
    const tenant = uniqueTenant('cli');
    await handle.db.insert(tenants).values({ id: tenant, displayName: 'Statements CLI' });
    const env = await envWith({
      DATA_DIR: dataDir,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
    });
    const bad = await admin(['statements', 'run', '--tenant', tenant, '--as-of', '2026-02-30'], env);
    expect(bad.code, bad.stdout + bad.stderr).toBe(2);
    expect(bad.stderr).toContain('--as-of must be a calendar date');
    const early = await admin(['statements', 'run', '--tenant', tenant, '--as-of', '2999-01-05'], env);
    expect(early.code, early.stdout + early.stderr).toBe(2);
    expect(early.stderr).toContain('never early');
    const unknown = await admin(
      ['statements', 'run', '--tenant', `${tenant}x`, '--as-of', '2026-01-05'],
      env,
    );
    expect(unknown.code, unknown.stdout + unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain(`${tenant}x does not exist`);

    const started = await admin(['statements', 'run', '--tenant', tenant, '--as-of', '2026-01-05'], env);
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toEqual({ workflowId: `statement-cycle/${tenant}/2026-01-05` });
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const workflow = new Client({ connection }).workflow.getHandle(`statement-cycle/${tenant}/2026-01-05`);
      const described = await workflow.describe();
      expect(described.type).toBe('tenantStatementCycleWorkflow');
      expect(described.taskQueue).toBe('lending');
      expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toContainEqual([
        'TenantId',
        tenant,
      ]);
      await workflow.terminate('test: started by the admin CLI only').catch(() => {});
    } finally {
      await connection.close();
    }
  });
});

describe('npm run admin -- cob run', () => {
  it('runs close of business for an ended day and prints the run (after it ended with --wait); a repeat prints the same run; refusals exit 2', async () => {
    const tenant = uniqueTenant('cobcli');
    await handle.db.insert(tenants).values({ id: tenant, displayName: 'Close-of-business CLI' });
    const deps = {
      db: handle.db,
      clock: () => new Date(),
      secretPepper: 'admin-cli-cob',
      dataEncryptionKey: 'c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf',
      environment: 'sandbox' as const,
    };
    const activities = createActivities(deps);
    const loanIds: number[] = [];
    for (let i = 0; i < 2; i++) {
      const loan = await approvedLoan({ db: handle.db, activities }, tenant, {
        expectedDisbursementDate: '2025-01-02',
      });
      await activities.recordExternalFunding({
        tenantId: tenant,
        loanId: loan.loanId,
        amount: '300.00',
        currency: 'USD',
        fundingType: 'DISBURSEMENT',
        recipientType: 'BORROWER',
        recipientRef: 'borrower-primary',
        externalRecordRef: `fund-${tenant}-${i}`,
        reason: 'Disbursed by the originating bank',
        fundingDate: '2025-01-02',
      });
      loanIds.push(loan.loanId);
    }
    const keys = testSecrets.temporalPayloadKeys;
    const env = await envWith({
      DATA_DIR: dataDir,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: testNamespace(),
      TEMPORAL_PAYLOAD_KEYS: `test-1:${keys.keys['test-1']}`,
    });
    for (const [args, message] of [
      [['--date', '2026-02-30'], '--date must be a calendar date'],
      [['--date', '2999-01-05'], 'businessDate must be a day that has ended'],
      [['--date', '2025-02-01', '--loan', 'x1'], '--loan must be a positive loan id'],
      [['--date', '2025-02-01', '--loan', '999999999'], 'loanIds names no loan of the tenant'],
    ] as const) {
      const refused = await admin(['cob', 'run', '--tenant', tenant, ...args], env);
      expect(refused.code, refused.stdout + refused.stderr).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    const unknown = await admin(['cob', 'run', '--tenant', `${tenant}x`, '--date', '2025-02-01'], env);
    expect(unknown.code, unknown.stdout + unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain(`${tenant}x does not exist`);

    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await Worker.create({
      connection,
      namespace: testNamespace(),
      taskQueue: 'lending',
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: asTemporalActivities(activities),
      dataConverter: testDataConverter,
    });
    try {
      const { waited, again, named } = await worker.runUntil(async () => {
        const waited = await admin(['cob', 'run', '--tenant', tenant, '--date', '2025-02-01', '--wait'], env);
        const again = await admin(['cob', 'run', '--tenant', tenant, '--date', '2025-02-01'], env);
        const named = await admin(
          ['cob', 'run', '--tenant', tenant, '--date', '2025-02-02', '--loan', String(loanIds[1]), '--wait'],
          env,
        );
        return { waited, again, named };
      });
      expect(waited.code, waited.stderr).toBe(0);
      const run = JSON.parse(waited.stdout);
      expect(run).toMatchObject({
        businessDate: '2025-02-01',
        status: 'COMPLETED',
        loans: { total: 2, processed: 2, failed: 0 },
      });
      expect(run.runId).toMatch(/^cob_/);
      expect(run.completedAt).not.toBeNull();
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual(run);
      expect(named.code, named.stderr).toBe(0);
      expect(JSON.parse(named.stdout)).toMatchObject({
        businessDate: '2025-02-02',
        status: 'COMPLETED',
        loans: { total: 1, processed: 1, failed: 0 },
      });
    } finally {
      await connection.close().catch(() => {});
    }
    const days = await handle.db
      .select({ id: loans.id, day: loans.lastClosedBusinessDate })
      .from(loans)
      .where(eq(loans.tenantId, tenant));
    expect(Object.fromEntries(days.map((d) => [d.id, d.day]))).toEqual({
      [loanIds[0] as number]: '2025-02-01',
      [loanIds[1] as number]: '2025-02-02',
    });
  }, 180_000);
});
