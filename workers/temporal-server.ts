/**
 * Finds the Temporal CLI and runs its dev server (docs/design.md §2): `TEMPORAL_CLI_PATH`, else
 * `temporal` on PATH, else the project's tools folder, built there by
 * scripts/tools/build-temporal-cli.sh (`go install`, first time only). The dev server keeps its
 * state in a SQLite file under the data folder and serves the Web UI.
 *
 * The dev server never outlives the process that started it, however that process ends: it runs in a process
 * group of its own, its output goes to a file (or nowhere), never to a pipe of ours that would break when we die,
 * and a watchdog (workers/child-watchdog.ts) ends its group once we are gone, even after a SIGKILL.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { searchAttributes } from '../domain/ids';
import { endWithThisProcess } from './child-watchdog';
import { projectRoot } from './config';

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, binary);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The dynamic-config values that turn on task-queue priority and fairness on a self-hosted Temporal server
 * (Temporal's "Task Queue Priority and Fairness": `matching.useNewMatcher`, `matching.enableFairness`,
 * `matching.enableMigration`; one read and one write partition per task queue, so that fairness is not split
 * across partitions). The dev server starts with them; set the same on a production cluster.
 */
export const temporalFairnessDynamicConfig = [
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
  'matching.enableMigration=true',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
] as const;

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
 * `dbFile` undefined keeps the state in memory (tests). The server's output is appended to `logFile` when given
 * (`npm start`: `<DATA_DIR>/temporal/temporal.log`), else discarded; `log` only hears about the CLI build and an
 * early exit. `stop()` sends SIGTERM to the server's process group, SIGKILL after 5 s.
 */
export async function startTemporalDevServer(options: {
  port: number;
  uiPort: number | null;
  dbFile?: string;
  namespace?: string;
  /** More namespaces to create at launch (with the same search attributes), e.g. one per test worker process. */
  extraNamespaces?: string[];
  /** A file the server's stdout and stderr are appended to; nothing is kept when absent. */
  logFile?: string;
  log?: (line: string) => void;
  /** The codec endpoint the Web UI decodes payloads through (workers/codec-server.ts; `--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
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
    // Task-queue priority and fairness (server ≥ 1.29): tasks carrying a fairness key (webhook deliveries use their
    // tenant, workflows/webhooks/webhook-delivery/client.ts) are dispatched in proportion per key, so one tenant's backlog
    // does not queue ahead of another's. Self-hosted, fairness needs the new matcher and the migration to it, and
    // dispatches most evenly from a single partition per task queue (Temporal's "Task Queue Priority and Fairness").
    // A production cluster needs the same dynamic-config values.
    ...temporalFairnessDynamicConfig.flatMap((value) => ['--dynamic-config-value', value]),
  ];
  for (const namespace of options.extraNamespaces ?? []) args.push('--namespace', namespace);
  if (options.uiPort === null) args.push('--headless');
  else {
    args.push('--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1');
    if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  }
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const [name, type] of Object.entries(searchAttributes))
    args.push('--search-attribute', `${name}=${type}`);
  let output: number | 'ignore' = 'ignore';
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    output = openSync(options.logFile, 'a');
  }
  // Its own process group (detached), so the watchdog can end it whole and a Ctrl-C reaches only our orderly stop.
  const child = spawn(cli, args, {
    stdio: ['ignore', output, output],
    detached: true,
    env: { ...process.env, TEMPORAL_VERSION_CHECK_DISABLED: '1' },
  });
  if (typeof output === 'number') closeSync(output);
  const watchdog =
    child.pid === undefined ? null : endWithThisProcess({ pid: child.pid, signal: 'SIGTERM', group: true });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(
        new Error(
          `temporal server exited early with ${code ?? signal}${options.logFile ? ` (its output: ${options.logFile})\n${lastLinesOf(options.logFile)}` : ''}`,
        ),
      ),
    ),
  );
  try {
    await Promise.race([waitForPort(options.port, 60_000), exited]);
  } catch (err) {
    watchdog?.release();
    if (child.exitCode === null && child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    throw err;
  }
  exited.catch(() => {});
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.uiPort === null ? null : `http://127.0.0.1:${options.uiPort}`,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        watchdog?.release();
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
        const pid = child.pid;
        child.once('exit', () => resolve());
        killGroup(pid, 'SIGTERM');
        setTimeout(() => killGroup(pid, 'SIGKILL'), 5000).unref();
      }),
  };
}

/** The last 40 lines of the dev server's output file (what it said before it exited), '' when unreadable. */
function lastLinesOf(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-40).join('\n');
  } catch {
    return '';
  }
}

/** Signals the process group led by `pid` (the dev server is spawned detached), or just `pid` if that fails. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
