/**
 * What the benchmarks share (bench/read.ts, bench/payments.ts): starting a server process of this project with
 * its output appended to a log file, and stopping it by its pid (never by a name pattern). Prints nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'drizzle-orm';
import { createDb, type Db } from '../db/client';
import { freePort, startEmbeddedPostgres } from '../db/embedded';
import { applyMigrations } from '../db/migrate';
import { loadConfig, projectRoot, type ServiceConfig } from '../workers/config';
import { type DevServer, startTemporalDevServer } from '../workers/temporal-server';

/** True when the module at `moduleUrl` (its `import.meta.url`) is the script Node was started with. */
export function isMainModule(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && pathToFileURL(path.resolve(entry)).href === moduleUrl;
}

/** Where a benchmark writes its progress lines (the console when run alone, indented under `npm run bench`). */
export type BenchLog = (line: string) => void;

/** Nearest-rank percentile `q` (0..1) of ascending `sorted`; NaN when empty. */
export function percentileOf(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** What `measureConcurrent` found: completed jobs per second, latency percentiles of each job (ms), failures. */
export interface ConcurrentRun {
  perSecond: number;
  completed: number;
  p50: number;
  p99: number;
  failures: number;
}

/**
 * Runs `job(0)`, `job(1)`, … with `concurrency` in flight until `count` jobs have run (or, with `durationMs`, until
 * that many milliseconds have passed: no new job starts after it). Completed jobs per second, p50/p99 of each
 * job's latency (ms, nearest rank) and the failures (the first three are written to `log`).
 */
export async function measureConcurrent(
  options: { concurrency: number; count?: number; durationMs?: number; log?: BenchLog },
  job: (index: number) => Promise<void>,
): Promise<ConcurrentRun> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  const more = (index: number) =>
    (options.count === undefined || index < options.count) &&
    (options.durationMs === undefined || performance.now() - started < options.durationMs);
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      for (let index = next++; more(index); index = next++) {
        const t0 = performance.now();
        try {
          await job(index);
          latencies.push(performance.now() - t0);
        } catch (err) {
          failures += 1;
          if (failures <= 3) (options.log ?? console.error)(`  job ${index} failed: ${String(err)}`);
        }
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsedS,
    completed: latencies.length,
    p50: percentileOf(latencies, 0.5),
    p99: percentileOf(latencies, 0.99),
    failures,
  };
}

/** `--<name> <n>` of the command line, a whole number ≥ 1, else `fallback`. RangeError for anything else. */
export function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`--${name} must be a whole number ≥ 1`);
  return value;
}

/** What a benchmark runs against: its own PostgreSQL and Temporal dev server in a temporary folder. */
export interface BenchStack {
  /** The temporary folder (PostgreSQL's data under `postgres/`, the servers' logs). */
  dataDir: string;
  /** The service configuration for that folder, embedded defaults. */
  config: ServiceConfig;
  postgresUrl: string;
  /** PID of the postmaster (its backends are its children). */
  postgresPid: number;
  temporal: DevServer;
  /** A small pool (2 connections), migrated. */
  db: Db;
  /** Runs `stop` (newest first) when the stack stops. */
  onStop(stop: () => Promise<void>): void;
  /** Stops everything registered, then the servers, and removes the folder; reports failures and goes on. */
  stop(): Promise<void>;
}

/** How many times `startBenchStack` starts the Temporal dev server before it gives up. */
const devServerAttempts = 3;

/**
 * Starts the Temporal dev server for a bench stack in `dataDir`, its output in `temporal-<attempt>.log` there. The
 * dev server takes a few ports besides its frontend (HTTP API, metrics, its internal services), each picked free
 * when it starts; on a machine where other servers start and stop at the same moment (the previous benchmark's
 * stack, other people's tests), one of them can be taken before the server binds it, and the server then exits at
 * once (code 1 for its frontend, 2 when it panics on another port). Such an early exit is retried on a new frontend
 * port (the others are picked anew), up to `devServerAttempts` times; each failure is written to stderr with the
 * server's own last lines.
 */
async function startDevServerRetrying(dataDir: string): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTemporalDevServer({
        port: await freePort(),
        uiPort: null,
        namespace: 'default',
        logFile: path.join(dataDir, `temporal-${attempt}.log`),
      });
    } catch (err) {
      if (attempt >= devServerAttempts || !/exited early/.test(String(err))) throw err;
      console.error(
        `Temporal dev server, attempt ${attempt} of ${devServerAttempts}: ${String(err)}\nretrying`,
      );
    }
  }
}

/**
 * Starts PostgreSQL and Temporal in a new temporary folder (prefix `prefix`) and applies the migrations.
 * `options.postgresSettings`: more PostgreSQL server settings (`name=value`, db/embedded.ts `settings`).
 */
export async function startBenchStack(
  prefix: string,
  options: { postgresSettings?: readonly string[] } = {},
): Promise<BenchStack> {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  // Run as root, PostgreSQL runs as its own user (db/embedded.ts): it must reach the folder.
  await chmod(dataDir, 0o755);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const each of stops.reverse())
      await each().catch((err: unknown) => console.error('stop failed', err));
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', TEMPORAL_ADDRESS: '' });
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(dataDir, 'postgres'),
      port: await freePort(),
      settings: options.postgresSettings ?? [],
    });
    stops.push(postgres.stop);
    const temporal = await startDevServerRetrying(dataDir);
    stops.push(temporal.stop);
    const { db, close } = createDb(postgres.url, { maxConnections: 2 });
    stops.push(close);
    await applyMigrations(db);
    const postgresPid = Number(
      (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    return {
      dataDir,
      config,
      postgresUrl: postgres.url,
      postgresPid,
      temporal,
      db,
      onStop: (each) => stops.push(each),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Starts `node --import tsx <args>` with its standard output and error appended to `logFile` (as a log collector
 * would take them, without costing this process, which runs the load generator) and waits for `readyText` in it.
 */
export async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  readyText: string,
  logFile: string,
): Promise<ChildProcess> {
  const log = await open(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', log.fd, log.fd],
  });
  await log.close();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const output = await readFile(logFile, 'utf8');
    if (output.includes(readyText)) return child;
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before ready:\n${output}`);
    if (Date.now() > deadline) throw new Error(`not ready in 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops `child` (SIGTERM, SIGKILL after 15 s) and waits for it to exit; a no-op when it already has. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (code !== 0) console.error(`process ${child.pid} ended with ${code ?? signal}`);
      resolve();
    }),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** CPU milliseconds (user + system, from /proc) used so far by process `pid` alone (all its threads), 0 when gone. */
export function ownCpuMillisOf(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
  } catch {
    return 0;
  }
}

/** CPU milliseconds (user + system, from /proc) used so far by `root` and every live descendant of it. */
export function cpuMillisOf(root: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      // fields[1] = ppid, fields[11] = utime, fields[12] = stime (proc(5), counted after the command name)
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended while being read.
    }
  }
  const included = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!included.has(pid) && included.has(stat.ppid)) {
        included.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const pid of included) ticks += stats.get(pid)?.ticks ?? 0;
  return (ticks * 1000) / clockTicksPerSecond;
}
const clockTicksPerSecond = 100;

/**
 * The two ways the service runs that every benchmark measures (docs/operating.md "Benchmarks"):
 * - `production`: `scripts/start-api.ts` with `API_PROCESSES` = the CPU cores behind one port, and
 *   `scripts/start-worker.ts` (every queue and the background relays) as a separate process;
 * - `single`: `scripts/start.ts`, what `npm start` runs: the API and the workers in one process, here pointed at the
 *   benchmark's own PostgreSQL and Temporal (`DATABASE_URL`, `TEMPORAL_ADDRESS`).
 */
export type Topology = 'production' | 'single';

/** Both topologies, in the order `npm run bench` measures them. */
export const topologies: readonly Topology[] = ['production', 'single'];

/** One line naming `topology` for figures and tables. */
export function topologyLabel(topology: Topology, apiProcesses: number): string {
  return topology === 'production'
    ? `production: start:api ×${apiProcesses} + start:worker`
    : 'npm start: API and worker in one process';
}

/** The service started by `startService`. */
export interface ServiceUnderTest {
  topology: Topology;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** The process that serves HTTP (the cluster primary in `production`; its workers are its children). */
  apiPid: number;
  /** The worker process; in `single` the same process as `apiPid`. */
  workerPid: number;
  /** Stops what it started, by pid (worker last, so nothing started by the API is left without a worker). */
  stop(): Promise<void>;
}

/**
 * Starts the service against `stack` in `topology` with `env` (merged over the stack's `DATA_DIR`, `DATABASE_URL`
 * and `TEMPORAL_ADDRESS`); logs go to `<dataDir>/<logName>-api.log` and `-worker.log` (or `-service.log`).
 * `apiProcesses` (production only; default the CPU cores) sets `API_PROCESSES`; `workerArgs` are extra arguments of
 * `start-worker.ts` (e.g. `['--queues', 'lending']`); `nodeFlags` go before the script (e.g. a CPU profiler import);
 * `apiNodeFlags` too, but only in the process that serves HTTP of `production` (a flag the worker's workflow
 * threads cannot take, such as a `.ts` import); `single` refuses them (its one process runs the workflow threads).
 * The stack stops the service too (registered with `onStop`). Errors: a process that exits or is not ready in 60 s.
 */
export async function startService(
  stack: BenchStack,
  options: {
    topology: Topology;
    env?: NodeJS.ProcessEnv;
    apiProcesses?: number;
    workerArgs?: string[];
    nodeFlags?: string[];
    apiNodeFlags?: string[];
    logName?: string;
  },
): Promise<ServiceUnderTest> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: stack.dataDir,
    DATABASE_URL: stack.postgresUrl,
    TEMPORAL_ADDRESS: stack.temporal.address,
    ...options.env,
    PORT: String(port),
  };
  const logName = options.logName ?? 'service';
  const flags = options.nodeFlags ?? [];
  const baseUrl = `http://127.0.0.1:${port}`;
  const apiFlags = options.apiNodeFlags ?? [];
  if (options.topology === 'single') {
    if (apiFlags.length > 0) throw new Error('apiNodeFlags need the production topology');
    const service = await startProcess(
      [...flags, 'scripts/start.ts'],
      env,
      'ready in',
      path.join(stack.dataDir, `${logName}-service.log`),
    );
    const stop = () => stopProcess(service);
    stack.onStop(stop);
    return { topology: 'single', baseUrl, apiPid: service.pid!, workerPid: service.pid!, stop };
  }
  const apiProcesses = options.apiProcesses ?? availableParallelism();
  const worker = await startProcess(
    [...flags, 'scripts/start-worker.ts', ...(options.workerArgs ?? [])],
    env,
    'Worker ready',
    path.join(stack.dataDir, `${logName}-worker.log`),
  );
  stack.onStop(() => stopProcess(worker));
  const api = await startProcess(
    [...flags, ...apiFlags, 'scripts/start-api.ts'],
    { ...env, API_PROCESSES: String(apiProcesses) },
    'API ready at',
    path.join(stack.dataDir, `${logName}-api.log`),
  );
  stack.onStop(() => stopProcess(api));
  return {
    topology: 'production',
    baseUrl,
    apiPid: api.pid!,
    workerPid: worker.pid!,
    stop: async () => {
      await stopProcess(api);
      await stopProcess(worker);
    },
  };
}

/** PostgreSQL settings that load pg_stat_statements (`startBenchStack`'s `postgresSettings`, for `logStatements`). */
export const statementStatsSettings = [
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.max=1000',
];

/**
 * Prints what pg_stat_statements counted since its last reset (every database user and statement, the benchmark's
 * own queries included): per statement, calls per `unit` (`requests` of them: answered requests, boarded loans),
 * mean and total execution time in ms, and the text (whitespace folded, cut at 150 characters); then the totals per
 * `unit`. Needs the stack started with `statementStatsSettings` and the extension created.
 */
export async function logStatements(
  db: Db,
  label: string,
  requests: number,
  log: BenchLog,
  unit = 'request',
): Promise<void> {
  const rows = (await db.execute(
    sql`select calls::int as calls, mean_exec_time::float8 as mean, total_exec_time::float8 as total, query
          from pg_stat_statements where query not like '%pg_stat_statements%' order by calls desc, total_exec_time desc`,
  )) as unknown as { calls: number; mean: number; total: number; query: string }[];
  const perRequest = (n: number) => (requests > 0 ? n / requests : 0);
  log(`  statements during ${label} (${requests} ${unit}s):`);
  log(`    calls/${unit.slice(0, 4)}   mean ms   total ms  statement`);
  for (const row of rows) {
    if (perRequest(row.calls) < 0.01) continue;
    log(
      `    ${perRequest(row.calls).toFixed(2).padStart(9)} ${row.mean.toFixed(3).padStart(9)} ${row.total.toFixed(0).padStart(10)}  ${row.query.replace(/\s+/g, ' ').slice(0, 150)}`,
    );
  }
  const calls = rows.reduce((sum, row) => sum + row.calls, 0);
  const total = rows.reduce((sum, row) => sum + row.total, 0);
  log(
    `    total: ${perRequest(calls).toFixed(1)} statements per ${unit}, ${perRequest(total).toFixed(3)} ms of execution per ${unit}`,
  );
}
