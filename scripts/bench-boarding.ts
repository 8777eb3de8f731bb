/**
 * `npm run bench:boarding -- --loans 10000 --payments-per-loan 12 [--seed 1] [--topology production|single|both]
 * [--worker-queues <list>] [--profile <dir>] [--statements]`: the boarding benchmark (docs/processes.md P3 targets: ≥ 60 loans/s, 10,000 loans with 12
 * payments each in ≤ 3 minutes on 2 cores; 100,000 loans with flat memory), once per topology (default both).
 *
 * 1. The portfolio: generated with scripts/portfolio-generate.ts under `.data/boarding/`, or reused when a file of
 *    the same loans, payments per loan, seed and date exists.
 * 2. The service: a PostgreSQL and a Temporal dev server of the benchmark's own in a temporary folder
 *    (bench/support.ts `startBenchStack`, removed afterwards), and the service on them (`startService`,
 *    `LOG_LEVEL=warn`): `production` runs `scripts/start-api.ts` with `API_PROCESSES` = the cores and ONE
 *    `scripts/start-worker.ts` process with every queue (boarding included, and the relays); `single` runs
 *    `scripts/start.ts`, what `npm start` runs. `--worker-queues boarding` runs the production worker with the
 *    boarding queue only (`npm run start:worker -- --queues boarding`, a boarding worker of its own). A credential for a fresh tenant from the admin CLI. With
 *    `--profile <dir>`, the service's processes write `<dir>/<pid>.cpuprofile` (bench/cpu-profile.mjs).
 * 3. Boarding: `npm run board` (scripts/board.ts) as a child process (off a TTY, so it prints progress lines
 *    every 2 s, echoed here with the seconds since the upload began); wall time from its start to its exit. The
 *    progress lines also give the time of each phase (`BoardingPhases`): staging, validation, then each kind until
 *    its last line is handled. With `--statements`, pg_stat_statements is loaded into the bench's PostgreSQL and
 *    the statements of the boarding are printed per loan afterwards.
 * 4. Memory: every 500 ms, from /proc: the peak (`VmHWM`) of the API process(es), of the worker process (production),
 *    of the largest PostgreSQL process, of Temporal and of the CLI. CPU: the user + system seconds of the API
 *    processes, the worker, PostgreSQL and Temporal from the upload's start to the CLI's exit, and per loan.
 * 5. The physical floor: in the same run, after boarding, `COPY … FROM STDIN` of the same file (one row per line:
 *    line number and the line as `jsonb`) into a scratch table of the service's database, timed, then dropped.
 * 6. Prints wall time, loans/s, payments/s, lines/s, the memory figures and the COPY time with the ratio.
 * 7. With `--webhooks`: before boarding, two webhook subscriptions of the tenant (`POST
 *    /v1/servicing/webhook-subscriptions`, a `servicing:write` credential) for every subscribable event type, to a
 *    receiver in this process that answers 204: one with `includeBoardedHistory: true`, one without. After the batch, once the relay has published every
 *    outbox event of the tenant, it prints the webhook backlog boarding made: the outbox events written (boarded
 *    history vs. others) and the deliveries per subscription (one delivery row, and one delivery workflow started,
 *    per (event, subscription): workers/outbox-relay.ts).
 *
 * Ends only what it started (by process group of its own children). Exit code: the CLI's (0 when every line
 * boarded), 2 on a setup failure. `runBoardingBenchmark` is what `npm run bench` (bench/index.ts) calls (P3).
 */
import { createReadStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import {
  type BenchStack,
  logStatements,
  startBenchStack,
  startService,
  statementStatsSettings,
  type Topology,
  topologies,
  topologyLabel,
} from '../bench/support';
import { subscribableEventTypes } from '../domain/events';
import { formatDuration } from './board';
import {
  countKinds,
  cpuDelta,
  createCredential,
  ensurePortfolio,
  mib,
  type Started,
  sampleTreeMemory,
  startChild,
  stopChild,
  treeCpuSeconds,
  tsxBin,
} from './boarding-run-support';
import { requestToken } from './http-client';
import { todayUtc, wholeNumber } from './portfolio-generate';

/** What `runBoardingBenchmark` is asked to do. */
export interface BoardingBenchOptions {
  loans: number;
  paymentsPerLoan: number;
  seed: number;
  /** The service's topology (bench/support.ts). */
  topology: Topology;
  /** API processes in `production` (default: the CPU cores). */
  apiProcesses?: number;
  /** `production`: the worker process's queues (`start-worker.ts --queues`, e.g. `boarding`); default every queue. */
  workerQueues?: string;
  /** CPU-profile the service's processes (bench/cpu-profile.mjs) into this folder (absolute). */
  profileDir?: string;
  /** Measure the webhook backlog of the boarding (module note, step 7). */
  webhooks?: boolean;
  /** Load pg_stat_statements and print the boarding's SQL statements per loan (bench/support.ts `logStatements`). */
  statements?: boolean;
  log: (line: string) => void;
}

/** Seconds between the board CLI's progress lines (its `--progress-interval`): the resolution of the phase times. */
const progressIntervalSeconds = 2;

/**
 * The phases of a batch, read from the board CLI's progress lines (`progress: <STATUS> … | <kind> <done>/<total>
 * …`) with the seconds since the upload began: staging ends at the first progress line, validation at the first
 * line past VALIDATING, and each kind (boarding order) when its done count first reaches its total (fundings and
 * payments end with their loans). `summary` names each phase with its seconds, to ± the progress interval.
 */
export class BoardingPhases {
  private firstProgress: number | null = null;
  private runningFrom: number | null = null;
  private readonly kindDone = new Map<string, number>();
  private readonly kindOrder: string[] = [];

  /** Reads one CLI line seen `seconds` after the upload began. */
  see(seconds: number, line: string): void {
    const match = /progress: ([A-Z_]+) .*?\| (.*)$/.exec(line);
    if (!match) return;
    this.firstProgress ??= seconds;
    if (match[1] !== 'VALIDATING' && match[1] !== 'PENDING') this.runningFrom ??= seconds;
    for (const [, kind, done, total] of (match[2] ?? '').matchAll(/(\w+) (\d+)\/(\d+)/g)) {
      if (kind === undefined) continue;
      if (!this.kindOrder.includes(kind)) this.kindOrder.push(kind);
      if (Number(total) > 0 && Number(done) >= Number(total) && !this.kindDone.has(kind))
        this.kindDone.set(kind, seconds);
    }
  }

  /** `staging 4.7 s, validating 23.9 s, customer 51.2 s, …` over a run of `wallSeconds`. */
  summary(wallSeconds: number): string {
    if (this.firstProgress === null) return 'no progress line seen';
    const parts = [`staging ${this.firstProgress.toFixed(1)} s`];
    let from = this.firstProgress;
    if (this.runningFrom !== null) {
      parts.push(`validating ${(this.runningFrom - from).toFixed(1)} s`);
      from = this.runningFrom;
    }
    for (const kind of this.kindOrder) {
      const done = this.kindDone.get(kind);
      if (done === undefined || done < from) continue;
      if (done > from) parts.push(`${kind} ${(done - from).toFixed(1)} s`);
      from = done;
    }
    if (wallSeconds > from) parts.push(`the end ${(wallSeconds - from).toFixed(1)} s`);
    return parts.join(', ');
  }
}

/** What one boarding run measured (seconds, counts, KiB). */
export interface BoardingFigures {
  topology: Topology;
  loans: number;
  payments: number;
  lines: number;
  /** Upload to final status, as the CLI sees it. */
  wallSeconds: number;
  loansPerSecond: number;
  /** The board CLI's exit code (0 every line boarded, 1 some rejected). */
  cliExitCode: number | null;
  copySeconds: number;
  copyRows: number;
  /** Peak RSS of the (largest) API process; in `single` the one service process. */
  peakApiRssKiB: number;
  /** Peak RSS of the worker process (`production` only). */
  peakWorkerRssKiB: number | null;
  peakPostgresRssKiB: number;
}

/** The two subscriptions of step 7 and the receiver they deliver to. */
interface BenchSubscriptions {
  withHistory: number;
  withoutHistory: number;
  /** Deliveries the receiver answered, by subscription id (from the `Service-Webhook-Id`-signed posts' URL path). */
  received: Map<number, number>;
  close: () => Promise<void>;
}

/** Step 7: a receiver answering 204 and the two subscriptions, through the public API. */
async function webhookSubscriptions(
  baseUrl: string,
  adminEnv: NodeJS.ProcessEnv,
  tenant: string,
): Promise<BenchSubscriptions> {
  const received = new Map<number, number>();
  const server = http.createServer((req, res) => {
    const id = Number(/\/hooks\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    req.resume();
    req.on('end', () => {
      received.set(id, (received.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiverPort = (server.address() as AddressInfo).port;
  const credential = await createCredential(adminEnv, tenant, 1_000_000, 'servicing:read servicing:write');
  const token = await requestToken(baseUrl, credential, 'servicing:write', () => {});
  const create = async (includeBoardedHistory: boolean, slot: number) => {
    const response = await fetch(`${baseUrl}/v1/servicing/webhook-subscriptions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'service-tenant': tenant,
        'idempotency-key': `bench-hooks-${slot}`,
      },
      body: JSON.stringify({
        url: `http://127.0.0.1:${receiverPort}/hooks/${slot}`,
        eventTypes: subscribableEventTypes,
        apiVersion: '2026-11-01',
        description: includeBoardedHistory ? 'bench: with boarded history' : 'bench: live events only',
        includeBoardedHistory,
      }),
    });
    const body = (await response.json()) as { subscriptionId?: number };
    if (response.status !== 201 || !body.subscriptionId)
      throw new Error(`creating a subscription answered ${response.status}: ${JSON.stringify(body)}`);
    return body.subscriptionId;
  };
  const withHistory = await create(true, 1);
  const withoutHistory = await create(false, 2);
  return {
    withHistory,
    withoutHistory,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Step 7: waits (up to 10 minutes) until the relay has published every outbox event of `tenant`, then reads the
 * outbox events written (by type and source) and the deliveries per subscription; the lines to print.
 */
async function webhookBacklog(
  databaseUrl: string,
  tenant: string,
  hooks: BenchSubscriptions,
): Promise<string[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const waitUntil = Date.now() + 600_000;
    for (;;) {
      const [left] = await sql<{ n: string }[]>`
        select count(*) as n from outbox_events where tenant_id = ${tenant} and published_at is null`;
      if (Number(left?.n ?? 0) === 0 || Date.now() > waitUntil) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const events = await sql<{ event_type: string; source: string | null; n: string }[]>`
      select event_type, source, count(*) as n from outbox_events where tenant_id = ${tenant}
      group by event_type, source order by event_type, source`;
    const deliveries = await sql<{ subscription_id: string; n: string }[]>`
      select subscription_id, count(*) as n from webhook_deliveries where tenant_id = ${tenant}
      group by subscription_id`;
    const total = events.reduce((a, e) => a + Number(e.n), 0);
    const boarded = events.filter((e) => e.source === 'BOARDING').reduce((a, e) => a + Number(e.n), 0);
    const deliveriesOf = (id: number) =>
      Number(deliveries.find((d) => Number(d.subscription_id) === id)?.n ?? 0);
    return [
      `webhook backlog: ${total} outbox events written, ${boarded} of them boarded history (source BOARDING): ${events
        .map((e) => `${e.event_type}${e.source ? ` [${e.source}]` : ''} ${e.n}`)
        .join(', ')}`,
      `  subscription ${hooks.withHistory} (includeBoardedHistory true): ${deliveriesOf(hooks.withHistory)} deliveries = delivery workflows started (${hooks.received.get(1) ?? 0} received so far)`,
      `  subscription ${hooks.withoutHistory} (includeBoardedHistory false): ${deliveriesOf(hooks.withoutHistory)} deliveries = delivery workflows started (${hooks.received.get(2) ?? 0} received so far)`,
    ];
  } finally {
    await sql.end();
    await hooks.close();
  }
}

/** Times `COPY … FROM STDIN` of `file` (one row per line) into a scratch table; resolves with seconds and rows. */
async function copyFloor(databaseUrl: string, file: string): Promise<{ seconds: number; rows: number }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const table = `bench_copy_floor_${process.pid}`;
  try {
    await sql.unsafe(`create table ${table} (line_no integer not null, line jsonb not null)`);
    let rows = 0;
    async function* copyRows(): AsyncGenerator<string> {
      let chunk = '';
      for await (const line of createInterface({
        input: createReadStream(file),
        crlfDelay: Number.POSITIVE_INFINITY,
      })) {
        if (!line.trim()) continue;
        rows++;
        // COPY text format: backslash escaped; JSON text holds no raw tab or newline.
        chunk += `${rows}\t${line.replace(/\\/g, '\\\\')}\n`;
        if (chunk.length >= 262_144) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    }
    const started = process.hrtime.bigint();
    const writable = await sql.unsafe(`copy ${table} (line_no, line) from stdin`).writable();
    await pipeline(Readable.from(copyRows()), writable);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const [counted] = await sql.unsafe<{ n: string }[]>(`select count(*)::text as n from ${table}`);
    if (Number(counted!.n) !== rows) throw new Error(`COPY loaded ${counted!.n} rows of ${rows}`);
    return { seconds, rows };
  } finally {
    await sql.unsafe(`drop table if exists ${table}`).catch(() => {});
    await sql.end();
  }
}

/** The pids of `root`'s tree, by command name: CPU seconds now (see `treeCpuSeconds`). */
function cpuOfTrees(roots: number[]): Map<string, number> {
  const sum = new Map<string, number>();
  for (const root of new Set(roots))
    for (const [name, seconds] of treeCpuSeconds(root)) sum.set(name, (sum.get(name) ?? 0) + seconds);
  return sum;
}

/**
 * Runs the boarding benchmark in `options.topology` (module note): generates or reuses the portfolio, starts a
 * PostgreSQL and Temporal of its own (bench/support.ts `startBenchStack`) and the service on them
 * (`startService`: in `production` the API processes and one worker process running every queue, boarding
 * included; in `single` what `npm start` runs), boards the file with the CLI, times COPY of the same file, prints
 * the detail lines to `options.log`, stops what it started (also on SIGINT/SIGTERM, then exits 130) and returns the
 * figures. Throws when the set-up fails.
 */
export async function runBoardingBenchmark(options: BoardingBenchOptions): Promise<BoardingFigures> {
  const { loans, paymentsPerLoan, seed, topology } = options;
  const apiProcesses = options.apiProcesses ?? availableParallelism();
  const say = options.log;
  const asOf = todayUtc();
  let stack: BenchStack | null = null;
  let cli: Started | null = null;

  /** Stops what this benchmark started (CLI, then the service, its servers and their folder). */
  async function cleanUp(): Promise<void> {
    if (cli) await stopChild(cli, 5_000);
    if (stack) await stack.stop();
  }
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    say(`\n${signal}: stopping what the benchmark started…`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    say(
      `Boarding benchmark [${topologyLabel(topology, apiProcesses)}]: ${loans} loans, ${paymentsPerLoan} payments per loan, seed ${seed}, ${cpus().length} cores; rate limits raised to 1,000,000/s (client --rate-limit and RATE_LIMIT_PER_SECOND)`,
    );
    const portfolio = await ensurePortfolio({ loans, paymentsPerLoan, seed, asOf });
    const kinds = portfolio.counts ?? (await countKinds(portfolio.file));
    const lineCount = Object.values(kinds).reduce((a, b) => a + b, 0);
    say(
      `  portfolio: ${portfolio.file} (${portfolio.reused ? 'reused' : `generated in ${portfolio.seconds.toFixed(1)} s`}): ${lineCount} lines, ${kinds.loan ?? 0} loans, ${kinds.payment ?? 0} payments`,
    );

    const serviceStarted = Date.now();
    stack = await startBenchStack(
      'bench-boarding-',
      options.statements ? { postgresSettings: statementStatsSettings } : {},
    );
    if (options.statements) await stack.db.execute(sql`create extension if not exists pg_stat_statements`);
    const env: NodeJS.ProcessEnv = {
      LOG_LEVEL: 'warn',
      // Raised for the benchmark, as for the bench client below: the limiter never answers 429 here.
      RATE_LIMIT_PER_SECOND: '1000000',
      ...(options.profileDir ? { CPU_PROFILE_DIR: options.profileDir } : {}),
    };
    const service = await startService(stack, {
      topology,
      env,
      apiProcesses,
      logName: 'boarding',
      ...(options.workerQueues ? { workerArgs: ['--queues', options.workerQueues] } : {}),
      ...(options.profileDir ? { nodeFlags: ['--import', './bench/cpu-profile.mjs'] } : {}),
    });
    say(
      `  service: ${topologyLabel(topology, apiProcesses)} (API pid ${service.apiPid}, worker pid ${service.workerPid}) ready in ${((Date.now() - serviceStarted) / 1000).toFixed(1)} s at ${service.baseUrl}`,
    );
    const tenant = `bench${Date.now().toString(36)}`;
    const adminEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: stack.dataDir,
      DATABASE_URL: stack.postgresUrl,
      TEMPORAL_ADDRESS: stack.temporal.address,
      LOG_LEVEL: 'warn',
    };
    const credential = await createCredential(adminEnv, tenant, 1_000_000);

    const hooks = options.webhooks ? await webhookSubscriptions(service.baseUrl, adminEnv, tenant) : null;

    const postgresPid = stack.postgresPid;
    const temporalPid = stack.temporal.process.pid ?? postgresPid;
    const apiMemory = sampleTreeMemory(() => service.apiPid);
    const workerMemory = topology === 'production' ? sampleTreeMemory(() => service.workerPid) : null;
    const postgresMemory = sampleTreeMemory(() => postgresPid);
    const temporalMemory = sampleTreeMemory(() => temporalPid);
    const roots = {
      api: service.apiPid,
      worker: service.workerPid,
      postgres: postgresPid,
      temporal: temporalPid,
    };
    const cpuBefore = {
      api: cpuOfTrees([roots.api]),
      worker: cpuOfTrees([roots.worker]),
      postgres: cpuOfTrees([roots.postgres]),
      temporal: cpuOfTrees([roots.temporal]),
    };
    if (options.statements) await stack.db.execute(sql`select pg_stat_statements_reset()`);
    const boardStarted = Date.now();
    const phases = new BoardingPhases();
    cli = await startChild(
      tsxBin,
      [
        'scripts/board.ts',
        '--tenant',
        tenant,
        '--file',
        portfolio.file,
        '--base-url',
        service.baseUrl,
        '--progress-interval',
        String(progressIntervalSeconds),
      ],
      {
        env: {
          ...process.env,
          SERVICE_CLIENT_ID: credential.clientId,
          SERVICE_CLIENT_SECRET: credential.clientSecret,
        },
        ready: null,
        echo: (line) => {
          const seconds = (Date.now() - boardStarted) / 1000;
          phases.see(seconds, line);
          say(`  | ${seconds.toFixed(1).padStart(6)} s  ${line}`);
        },
      },
    );
    const cliMemory = sampleTreeMemory(() => cli?.pid ?? null);
    const cliCode = await cli.exited;
    const wallSeconds = (Date.now() - boardStarted) / 1000;
    const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    const cpuSeconds = {
      api: total(cpuDelta(cpuBefore.api, cpuOfTrees([roots.api]))),
      worker: topology === 'production' ? total(cpuDelta(cpuBefore.worker, cpuOfTrees([roots.worker]))) : 0,
      postgres: total(cpuDelta(cpuBefore.postgres, cpuOfTrees([roots.postgres]))),
      temporal: total(cpuDelta(cpuBefore.temporal, cpuOfTrees([roots.temporal]))),
    };
    const cliPeak = cliMemory.stop();
    const apiPeak = apiMemory.stop();
    const workerPeak = workerMemory?.stop() ?? null;
    const postgresPeak = postgresMemory.stop();
    const temporalPeak = temporalMemory.stop();
    cli = null;

    const backlog = hooks ? await webhookBacklog(stack.postgresUrl, tenant, hooks) : null;
    const floor = await copyFloor(stack.postgresUrl, portfolio.file);
    const peak = (map: Map<string, number>, name: string) => map.get(name) ?? 0;
    const loansPerSecond = (kinds.loan ?? 0) / wallSeconds;
    say('');
    if (cliCode !== 0 && cliCode !== 1)
      say(`The board CLI failed (exit code ${cliCode}): the figures below do not measure boarding.`);
    say(
      `Results [${topologyLabel(topology, apiProcesses)}] (${loans} loans, ${kinds.payment ?? 0} payments, ${lineCount} lines; CLI exit code ${cliCode}):`,
    );
    say(`  wall time (upload to final status): ${formatDuration(wallSeconds)} (${wallSeconds.toFixed(1)} s)`);
    say(
      `  throughput: ${loansPerSecond.toFixed(1)} loans/s, ${((kinds.payment ?? 0) / wallSeconds).toFixed(1)} payments/s, ${(lineCount / wallSeconds).toFixed(1)} lines/s`,
    );
    say(
      topology === 'production'
        ? `  peak RSS: API processes (primary + ${apiProcesses} children, at once) ${mib(apiPeak.peakTreeRssKiB)}, largest API process ${mib(peak(apiPeak.peakByName, 'node'))}; worker process ${mib(peak(workerPeak?.peakByName ?? new Map(), 'node'))}`
        : `  peak RSS: the npm start process ${mib(peak(apiPeak.peakByName, 'node'))}`,
    );
    say(
      `  peak RSS, servers: largest PostgreSQL process ${mib(peak(postgresPeak.peakByName, 'postgres'))} (all at once ${mib(postgresPeak.peakTreeRssKiB)}), Temporal ${mib(temporalPeak.peakTreeRssKiB)}; CLI ${mib(peak(cliPeak.peakByName, 'node'))}`,
    );
    const perLoanMs = (seconds: number) => ((seconds * 1000) / Math.max(1, kinds.loan ?? 0)).toFixed(1);
    say(
      topology === 'production'
        ? `  CPU while boarding: API processes ${cpuSeconds.api.toFixed(1)} s, worker ${cpuSeconds.worker.toFixed(1)} s, PostgreSQL ${cpuSeconds.postgres.toFixed(1)} s, Temporal ${cpuSeconds.temporal.toFixed(1)} s of ${(wallSeconds * cpus().length).toFixed(0)} core-seconds (per loan: API ${perLoanMs(cpuSeconds.api)} + worker ${perLoanMs(cpuSeconds.worker)} + PostgreSQL ${perLoanMs(cpuSeconds.postgres)} + Temporal ${perLoanMs(cpuSeconds.temporal)} ms)`
        : `  CPU while boarding: the npm start process ${cpuSeconds.api.toFixed(1)} s, PostgreSQL ${cpuSeconds.postgres.toFixed(1)} s, Temporal ${cpuSeconds.temporal.toFixed(1)} s of ${(wallSeconds * cpus().length).toFixed(0)} core-seconds (per loan: Node ${perLoanMs(cpuSeconds.api)} + PostgreSQL ${perLoanMs(cpuSeconds.postgres)} + Temporal ${perLoanMs(cpuSeconds.temporal)} ms)`,
    );
    say(
      `  COPY floor: ${floor.rows} rows into a scratch table in ${floor.seconds.toFixed(2)} s (${(floor.rows / floor.seconds).toFixed(0)} rows/s)`,
    );
    say(`  boarding / COPY: ${(wallSeconds / floor.seconds).toFixed(1)}× the physical floor`);
    say(`  phases (from the progress lines, ±${progressIntervalSeconds} s): ${phases.summary(wallSeconds)}`);
    if (options.statements) await logStatements(stack.db, 'the boarding', kinds.loan ?? 0, say, 'loan');
    if (backlog) for (const line of backlog) say(`  ${line}`);
    return {
      topology,
      loans: kinds.loan ?? 0,
      payments: kinds.payment ?? 0,
      lines: lineCount,
      wallSeconds,
      loansPerSecond,
      cliExitCode: cliCode,
      copySeconds: floor.seconds,
      copyRows: floor.rows,
      peakApiRssKiB: peak(apiPeak.peakByName, 'node'),
      peakWorkerRssKiB: workerPeak ? peak(workerPeak.peakByName, 'node') : null,
      peakPostgresRssKiB: peak(postgresPeak.peakByName, 'postgres'),
    };
  } catch (err) {
    if (stack) say(`service logs: ${stack.dataDir}/boarding-*.log (removed when the stack stops)`);
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (!interrupted) await cleanUp();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      loans: { type: 'string' },
      'payments-per-loan': { type: 'string' },
      seed: { type: 'string' },
      topology: { type: 'string', default: 'both' },
      profile: { type: 'string' },
      'worker-queues': { type: 'string' },
      webhooks: { type: 'boolean', default: false },
      statements: { type: 'boolean', default: false },
    },
  });
  let exitCode = 2;
  try {
    const chosen = values.topology === 'both' ? topologies : [values.topology as Topology];
    if (!chosen.every((t) => topologies.includes(t)))
      throw new RangeError('--topology must be production, single or both');
    exitCode = 0;
    const summary: string[] = [];
    for (const topology of chosen) {
      const figures = await runBoardingBenchmark({
        topology,
        loans: wholeNumber('loans', values.loans, 10_000, 1),
        paymentsPerLoan: wholeNumber('payments-per-loan', values['payments-per-loan'], 12),
        seed: wholeNumber('seed', values.seed, 1),
        webhooks: values.webhooks ?? false,
        statements: values.statements ?? false,
        ...(values['worker-queues'] ? { workerQueues: values['worker-queues'] } : {}),
        ...(values.profile ? { profileDir: path.resolve(values.profile) } : {}),
        log: (line) => process.stdout.write(`${line}\n`),
      });
      summary.push(
        `  ${topologyLabel(topology, availableParallelism())}: ${figures.loansPerSecond.toFixed(1)} loans/s, ${figures.wallSeconds.toFixed(1)} s, COPY ${figures.copySeconds.toFixed(2)} s (${(figures.wallSeconds / figures.copySeconds).toFixed(0)}×)`,
      );
      exitCode = Math.max(exitCode, figures.cliExitCode ?? 1);
      process.stdout.write('\n');
    }
    process.stdout.write(`Summary:\n${summary.join('\n')}\n`);
  } catch (err) {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    exitCode = 2;
  }
  process.exit(exitCode);
}
