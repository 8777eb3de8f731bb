/**
 * What the end-to-end files share: the service started exactly as `npm start` starts it (`tsx scripts/start.ts`
 * with its own embedded PostgreSQL and Temporal dev server on free ports, in a fresh data folder), a credential
 * from the admin CLI, and the clean-up. Not a test file.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../db/embedded';
import { projectRoot } from '../../workers/config';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

export interface BootedService {
  dataDir: string;
  /** The environment the service (and the admin CLI) run with. */
  env: NodeJS.ProcessEnv;
  service: ChildProcess;
  baseUrl: string;
  temporalPort: number;
  /** Everything the service printed so far (stdout and stderr). */
  output(): string;
  /** Stops the service if it still runs (SIGINT, then SIGKILL after 30 s) and removes the data folder. */
  stop(): Promise<void>;
}

export interface AdminCredential {
  clientId: string;
  clientSecret: string;
  tenant: string;
}

/** Starts `npm start`'s stack in a fresh data folder (mode 755, PostgreSQL may run as `postgres`) and waits until ready. */
export async function bootService(prefix = 'lending-e2e-'): Promise<BootedService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  await chmod(dataDir, 0o755);
  const [port, pgPort, temporalPort, uiPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    EMBEDDED_POSTGRES_PORT: String(pgPort),
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(uiPort),
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  let output = '';
  const service = spawn(tsx, ['scripts/start.ts'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  service.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  service.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });

  const stop = async () => {
    if (service.exitCode === null && service.signalCode === null) {
      const exited = new Promise<void>((resolve) => service.once('exit', () => resolve()));
      service.kill('SIGINT');
      const timer = setTimeout(() => service.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + 90_000;
    while (!output.includes('ready in')) {
      if (service.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm start was not ready in 90 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    dataDir,
    env,
    service,
    baseUrl: `http://127.0.0.1:${port}`,
    temporalPort,
    output: () => output,
    stop,
  };
}

/**
 * `npm run admin -- clients create … --create-tenant` against the booted service: the parsed JSON it prints.
 * Run as the README shows, without the service's port settings (only its data folder): the CLI finds
 * the service's database through `<DATA_DIR>/runtime.json`, which `npm start` wrote.
 */
export async function createClientWithAdminCli(
  booted: BootedService,
  tenant: string,
  scopes: string,
  permissions = 'ALL',
): Promise<AdminCredential> {
  const alive = booted.service.exitCode === null && booted.service.signalCode === null;
  if (!alive) throw new Error(`npm start is no longer running:\n${booted.output()}`);
  const { stdout } = await run(
    tsx,
    [
      'scripts/admin.ts',
      'clients',
      'create',
      '--tenant',
      tenant,
      '--environment',
      'sandbox',
      '--scopes',
      scopes,
      '--permissions',
      permissions,
      '--create-tenant',
    ],
    { cwd: projectRoot, env: adminEnv(booted) },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nnpm start's output:\n${booted.output()}`);
  });
  return JSON.parse(stdout) as AdminCredential;
}

/** The booted service's environment without its port settings: what a second terminal has besides DATA_DIR. */
export function adminEnv(booted: BootedService): NodeJS.ProcessEnv {
  const env = { ...booted.env };
  for (const name of ['PORT', 'EMBEDDED_POSTGRES_PORT', 'TEMPORAL_PORT', 'TEMPORAL_UI_PORT'])
    delete env[name];
  return env;
}
