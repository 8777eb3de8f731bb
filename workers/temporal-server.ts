/**
 * Finds the Temporal CLI and runs its dev server (DESIGN §2): `TEMPORAL_CLI_PATH`, else
 * `temporal` on PATH, else the project's tools folder, built there by
 * scripts/tools/build-temporal-cli.sh (`go install`, first time only). The dev server keeps its
 * state in a SQLite file under the data folder and serves the Web UI.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { searchAttributes } from '../domain/ids';
import { projectRoot } from './config';

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, binary);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Path of a usable Temporal CLI, building it when none is found. */
export function resolveTemporalCli(log: (line: string) => void = () => {}): string {
  const configured = process.env.TEMPORAL_CLI_PATH;
  if (configured) return configured;
  const found = onPath('temporal');
  if (found) return found;
  const local = path.join(projectRoot, '.tools', 'bin', 'temporal');
  if (!existsSync(local))
    log('Temporal CLI not found: building it with go install (first start only, a few minutes)...');
  return execFileSync('bash', [path.join(projectRoot, 'scripts', 'tools', 'build-temporal-cli.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** Path of the time-skipping test server wrapper, fetching it with Maven when missing. */
export function resolveTestServer(): string {
  const configured = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (configured) return configured;
  return execFileSync('bash', [path.join(projectRoot, 'scripts', 'tools', 'fetch-test-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

export async function waitForPort(port: number, timeoutMs: number, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing answered on ${host}:${port} within ${timeoutMs} ms`);
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` on loopback with the project's search attributes.
 * `dbFile` undefined keeps the state in memory (tests).
 */
export async function startTemporalDevServer(options: {
  port: number;
  uiPort: number | null;
  dbFile?: string;
  namespace?: string;
  /** More namespaces to create at launch (with the same search attributes), e.g. one per test worker process. */
  extraNamespaces?: string[];
  log?: (line: string) => void;
}): Promise<DevServer> {
  const cli = resolveTemporalCli(options.log);
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace ?? 'default',
    '--log-level',
    'error',
    // Task-queue fairness (server ≥ 1.29): tasks carrying a fairness key (webhook deliveries use their tenant,
    // workflows/webhook-delivery/client.ts) are dispatched in proportion per key, so one tenant's backlog does
    // not queue ahead of another's. A production cluster needs the same dynamic-config value.
    '--dynamic-config-value',
    'matching.enableFairness=true',
  ];
  for (const namespace of options.extraNamespaces ?? []) args.push('--namespace', namespace);
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1');
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const [name, type] of Object.entries(searchAttributes))
    args.push('--search-attribute', `${name}=${type}`);
  const child = spawn(cli, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TEMPORAL_VERSION_CHECK_DISABLED: '1' },
  });
  child.stdout?.on('data', (chunk) => options.log?.(String(chunk).trimEnd()));
  child.stderr?.on('data', (chunk) => options.log?.(String(chunk).trimEnd()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`temporal server exited early with code ${code}`))),
  );
  await Promise.race([waitForPort(options.port, 60_000), exited]);
  exited.catch(() => {});
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.uiPort === null ? null : `http://127.0.0.1:${options.uiPort}`,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
