/**
 * `npm run bench:read` (targets docs/design.md §6): the read path measured side by side with a bare
 * baseline, in one run, on this machine. It prints figures only; nothing here is a test.
 *
 * What it starts (and stops, by pid, at the end), once per topology (bench/support.ts `startService`): an embedded
 * PostgreSQL and a Temporal dev server in a temporary folder; the service in that topology (`production`:
 * `scripts/start-api.ts` with `API_PROCESSES` = `--processes` behind one port beside `scripts/start-worker.ts`;
 * `single`: `scripts/start.ts`, what `npm start` runs); the bare baseline (`bench/baseline-server.ts`: Hono +
 * postgres.js, one primary-key query on the same `loans` table) with `--processes` processes. It seeds one tenant
 * through the public routes (the lending demo flow: product, customer, loan, funding, 12 payments) and then
 * measures (with autocannon unless said otherwise):
 * - `GET /v1/loans/{id}/summary` with a bearer token, and the baseline's `GET /loans/{id}`: requests/s,
 *   p50 and p99 at saturation (autocannon), then p50 and p99 paced at 70% of that rate (`pacedLoad`: open loop,
 *   evenly spaced, timed from each request's scheduled instant); the ratio service/baseline; and the service's
 *   event-loop delay during the paced round and its token cache's hits (`serviceMetricsOf`);
 * - `GET /healthz` of the service at saturation, against the baseline's loan read rate;
 * - an idempotent replay of a completed `POST /v1/servicing/cases` (the OpenAPI operation "Open a case", same body
 *   and Idempotency-Key), sequential on one keep-alive connection, unloaded, timed to the microsecond (p50, p99), two
 *   ways (`sequentialLatency`): back to back, 2,000 after 200 warm-ups, with the bench client; and as an
 *   integrator's client sees it, the P5 figure: a second client made as `npm run admin -- clients create` makes one,
 *   with the environment's default rate limit (25/s in the sandbox), its token fetched through `POST /oauth2/token`,
 *   a fresh connection pool, no warm-up, its requests paced at 80% of its rate (`--duration` seconds' worth, 100 to
 *   2,000). Each way has its baselines measured the same way in the same run: the service's authenticated
 *   `GET /v1/loans/{id}/summary` and the bare baseline's `GET /loans/{id}`.
 * Targets (`readTargets`): ratio ≥ 0.40; p99 at 70% of max < 20 ms in production, < 50 ms under npm start;
 * replay p50 (as an integrator) ≤ 2 ms; `/healthz` ≥ baseline.
 *
 * Usage: npm run bench:read [-- --duration 15 --connections 32 --processes 2 --topology production|single|both
 * --profile <dir>] (`--topology` default both, one after the other, each with its own stack and baseline)
 * (`--duration` seconds per round, default 15; `--processes` default = CPU cores). The load generator
 * shares the machine's cores with the servers, as it does for the baseline. `runReadBenchmark` is what
 * `npm run bench` (bench/index.ts) calls.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createPlatformOperations } from '../activities';
import type { Db } from '../db/client';
import { freePort } from '../db/embedded';
import { requestToken } from '../scripts/http-client';
import { runLendingDemoFlow } from '../scripts/lending-demo-flow';
import { operationDeps } from '../workers/config';
import {
  type BenchLog,
  cpuMillisOf,
  isMainModule,
  option,
  percentileOf,
  startBenchStack,
  startProcess,
  startService,
  stopProcess,
  type Topology,
  topologies,
  topologyLabel,
} from './support';

const tenant = 'bench';

/** One load round: requests per second, requests answered, latency p50/p99 (ms), non-2xx answers and errors. */
export interface Round {
  requestsPerSecond: number;
  /** Requests answered in the round. */
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(options: autocannon.Options & { duration: number }): Promise<Round> {
  const result = await autocannon(options);
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * An open-loop paced round: `ratePerSecond` GETs of `url` a second for `durationS` seconds, request i scheduled at
 * `i / ratePerSecond` s after the start (an even spacing, not a burst at the top of each second), sent on at most
 * `connections` keep-alive connections (a request waits for a free connection, first come first served, when every
 * one is busy). Each latency runs from the request's scheduled instant to the last byte of its answer, so time spent
 * waiting for a connection, or for the generator's own timer, counts (no coordinated omission). The client is a
 * plain TCP socket per connection writing one pre-built request and reading the answer's status line and
 * `Content-Length` (or chunked end): a node:http or fetch client costs several times the CPU per request and could
 * not keep the schedule at the baseline's rate on two shared cores. p50/p99 in ms; non-200 answers and socket
 * errors are counted, not timed (an errored connection is opened again).
 *
 * Why not autocannon's `overallRate`: it lets every connection send back to back until it has made its share of
 * the second, then stops it until the next one-second tick (autocannon lib/httpClient.js `reqsMadeThisSecond`), so
 * "70% of the rate" is saturation for 0.7 s out of every second; and its coordinated-omission correction is given
 * an expected interval of `ceil(1 / rate)` on a histogram of milliseconds (lib/run.js), always 1 ms, which adds a
 * synthetic sample for every millisecond of each slow answer. On this machine its "paced" p99 of the bare baseline
 * came out above the baseline's own p99 at saturation.
 */
async function pacedLoad(options: {
  url: string;
  headers: Record<string, string>;
  ratePerSecond: number;
  durationS: number;
  connections: number;
}): Promise<Round> {
  const { ratePerSecond, durationS, connections } = options;
  const target = new URL(options.url);
  const port = Number(target.port || 80);
  const request = Buffer.from(
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n${Object.entries(
      options.headers,
    )
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`,
  );
  const total = Math.max(1, Math.round(ratePerSecond * durationS));
  const intervalMs = 1000 / ratePerSecond;
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let settled = 0;
  const waiting: number[] = [];
  const idle: Connection[] = [];
  const started = performance.now();

  interface Connection {
    socket: net.Socket;
    /** Scheduled instant of the request in flight, null when idle. */
    scheduledAt: number | null;
    buffer: Buffer;
  }
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const settle = () => {
    settled += 1;
    if (settled === total) finish();
  };
  const dispatch = (connection: Connection) => {
    const next = waiting.shift();
    if (next === undefined) {
      connection.scheduledAt = null;
      idle.push(connection);
      return;
    }
    connection.scheduledAt = next;
    connection.socket.write(request);
  };
  /** Length of the complete answer at the start of `buffer`, with its status; null while incomplete. */
  const answerIn = (buffer: Buffer): { length: number; status: number } | null => {
    const headEnd = buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return null;
    const head = buffer.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    const contentLength = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (contentLength) {
      const length = headEnd + 4 + Number(contentLength[1]);
      return buffer.length >= length ? { length, status } : null;
    }
    if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return { length: headEnd + 4, status };
    const end = buffer.indexOf('\r\n0\r\n\r\n', headEnd + 4);
    return end < 0 ? null : { length: end + 7, status };
  };
  const open = (): Connection => {
    const connection: Connection = {
      socket: net.connect({ host: target.hostname, port, noDelay: true }),
      scheduledAt: null,
      buffer: Buffer.alloc(0),
    };
    connection.socket.on('data', (chunk: Buffer) => {
      connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk]);
      const answer = answerIn(connection.buffer);
      if (!answer || connection.scheduledAt === null) return;
      if (answer.status === 200) latencies.push(performance.now() - connection.scheduledAt);
      else non2xx += 1;
      connection.buffer = connection.buffer.subarray(answer.length);
      settle();
      dispatch(connection);
    });
    connection.socket.on('error', () => {});
    connection.socket.on('close', () => {
      const index = idle.indexOf(connection);
      if (index >= 0) idle.splice(index, 1);
      if (connection.scheduledAt !== null) {
        errors += 1;
        settle();
      }
      if (settled < total) dispatch(open());
    });
    return connection;
  };
  for (let i = 0; i < connections; i++) idle.push(open());
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    while (sent < total && started + sent * intervalMs <= now) {
      waiting.push(started + sent * intervalMs);
      sent += 1;
      const connection = idle.pop();
      if (connection) dispatch(connection);
    }
    if (sent < total) timer = setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
  };
  tick();
  await finished;
  clearTimeout(timer);
  const elapsedS = (performance.now() - started) / 1000;
  for (const connection of idle) connection.socket.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: (latencies.length + non2xx) / elapsedS,
    requests: latencies.length + non2xx,
    p50: percentileOf(latencies, 0.5),
    p99: percentileOf(latencies, 0.99),
    non2xx,
    errors,
  };
}

/**
 * Latency of `count` sequential requests on a fresh keep-alive agent of one socket (a new connection pool: the first
 * request opens the connection), measured to the microsecond (autocannon reports whole milliseconds), each from its
 * send to its answer's last byte: p50 and p99 in ms, after `warmUp` unmeasured requests (default 200).
 * `intervalMs` (default 0: back to back) spaces the sends: each request goes at least that long after the previous
 * one was sent (never sooner to catch up after a slow answer), so a client limited to `1000 / intervalMs` requests a
 * second is never refused with 429 and each request reaches a service that has been idle since the last answer, as an
 * integrator's retries do. A POST of `body` must be answered as a replay (`x-served-from-cache: true`), a GET (no
 * body) with 200: any other answer is counted in `non2xx` and not timed. `requestsPerSecond` is the answers per
 * second of wall time, gaps included.
 */
async function sequentialLatency(
  url: string,
  headers: Record<string, string>,
  body: string | null,
  count: number,
  options: { warmUp?: number; intervalMs?: number } = {},
): Promise<Round> {
  const { warmUp = 200, intervalMs = 0 } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const method = body === null ? 'GET' : 'POST';
  /** Sends one request; resolves whether its answer is the expected one. */
  const once = () =>
    new Promise<boolean>((resolve, reject) => {
      const request = http.request(url, { method, headers, agent }, (response) => {
        response.resume();
        response.on('end', () =>
          resolve(
            body === null ? response.statusCode === 200 : response.headers['x-served-from-cache'] === 'true',
          ),
        );
      });
      request.on('error', reject);
      request.end(body ?? undefined);
    });
  let lastSentAt = Number.NEGATIVE_INFINITY;
  const paced = async () => {
    const wait = lastSentAt + intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastSentAt = performance.now();
  };
  for (let i = 0; i < warmUp; i++) {
    await paced();
    await once();
  }
  const samples: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await paced();
    const t0 = performance.now();
    const expected = await once();
    if (expected) samples.push(performance.now() - t0);
    else non2xx += 1;
  }
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  samples.sort((a, b) => a - b);
  return {
    requestsPerSecond: count / elapsedS,
    requests: count,
    p50: percentileOf(samples, 0.5),
    p99: percentileOf(samples, 0.99),
    non2xx,
    errors: 0,
  };
}

/** Processes whose CPU time a round charges: a server (with its cluster workers) and PostgreSQL's processes. */
interface CpuOwners {
  server: number;
  postgres: number;
}

/** CPU milliseconds per request of the server's processes and of PostgreSQL during `run`. */
async function withCpu(
  owners: CpuOwners,
  run: () => Promise<Round>,
): Promise<Round & { serverCpuMs: number; postgresCpuMs: number }> {
  const before = { server: cpuMillisOf(owners.server), postgres: cpuMillisOf(owners.postgres) };
  const round = await run();
  return {
    ...round,
    serverCpuMs: (cpuMillisOf(owners.server) - before.server) / Math.max(1, round.requests),
    postgresCpuMs: (cpuMillisOf(owners.postgres) - before.postgres) / Math.max(1, round.requests),
  };
}

/**
 * The resolution (ms) of prom-client's event-loop monitor (`collectDefaultMetrics`' `eventLoopMonitoringPrecision`
 * default, api/metrics.ts): `perf_hooks.monitorEventLoopDelay` records the whole interval between its timer's
 * ticks, so an idle loop reads this much; `serviceMetricsOf` subtracts it.
 */
const eventLoopResolutionMs = 10;

/** What `serviceMetricsOf` reads from the service's `GET /metrics`. */
interface ServiceMetrics {
  /** Event-loop delay (ms beyond the monitor's resolution) since the previous scrape. */
  eventLoop: { p99: number; max: number };
  /** The token-grant cache's counters since the process started (api/token-cache.ts), summed over the API processes. */
  tokenCache: { hits: number; misses: number; stale: number };
  /**
   * Garbage-collection pauses since the process started (prom-client `nodejs_gc_duration_seconds`, every kind),
   * summed over the API processes: how many, how many longer than 10 ms, and their total in ms.
   */
  gc: { pauses: number; over10ms: number; totalMs: number };
}

/**
 * The service's event-loop delay (ms beyond the monitor's resolution) since the previous scrape: prom-client's
 * `nodejs_eventloop_lag_p99_seconds` and `_max_seconds` (`perf_hooks.monitorEventLoopDelay`, its histogram reset at
 * every collect) from `GET /metrics`; under `API_PROCESSES` > 1 the primary's aggregation gives the API processes'
 * average p99 and their largest max. A scrape before a round resets it; the one after reads the round. Also the
 * token-grant cache's counters (`token_cache_lookups_total` by result, `token_cache_stale_total`), whose difference
 * between two scrapes says whether the rounds between them were served from the cache. Errors: a non-200 answer or
 * a missing series.
 */
async function serviceMetricsOf(baseUrl: string, metricsToken: string): Promise<ServiceMetrics> {
  const response = await fetch(`${baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const value = (series: string) => {
    const escaped = series.replace(/[{}"]/g, (c) => `\\${c}`);
    const match = new RegExp(`^${escaped}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
    if (!match) throw new Error(`GET /metrics has no ${series}`);
    return Number(match[1]);
  };
  const delayMs = (name: string) => Math.max(0, value(name) * 1000 - eventLoopResolutionMs);
  return {
    eventLoop: {
      p99: delayMs('nodejs_eventloop_lag_p99_seconds'),
      max: delayMs('nodejs_eventloop_lag_max_seconds'),
    },
    gc: gcPausesIn(text),
    tokenCache: {
      hits: value('token_cache_lookups_total{result="hit"}'),
      misses: value('token_cache_lookups_total{result="miss"}'),
      stale: value('token_cache_stale_total'),
    },
  };
}

/** The GC pauses of a `GET /metrics` text (`ServiceMetrics.gc`): sums of every `kind` of `nodejs_gc_duration_seconds`. */
function gcPausesIn(text: string): ServiceMetrics['gc'] {
  const sumOf = (pattern: RegExp) => {
    let total = 0;
    for (const match of text.matchAll(pattern)) total += Number(match[1]);
    return total;
  };
  const pauses = sumOf(/^nodejs_gc_duration_seconds_count(?:\{[^}]*\})? ([0-9.eE+-]+)$/gm);
  const within10ms = sumOf(/^nodejs_gc_duration_seconds_bucket\{[^}]*le="0\.01"[^}]*\} ([0-9.eE+-]+)$/gm);
  const seconds = sumOf(/^nodejs_gc_duration_seconds_sum(?:\{[^}]*\})? ([0-9.eE+-]+)$/gm);
  return { pauses, over10ms: pauses - within10ms, totalMs: seconds * 1000 };
}

/**
 * Which path the summary of `loanId` takes today (db/queries/lending/ledger.ts `getLoanSummary`): `stored state`
 * once its projection answers today (no money event after it, every posted payment allocated), else `replay`.
 * Waits up to `waitMs` for the stored state (a payment the worker still allocates), so that the rounds measure the
 * path a settled loan takes; says `replay` when it never comes.
 */
async function summaryPathOf(db: Db, loanId: number, waitMs: number): Promise<'stored state' | 'replay'> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const today = new Date().toISOString().slice(0, 10);
    const [row] = await db.$client<{ state_current: boolean }[]>`
      select state_current from read_loan_summary_as_tenant(${tenant}, ${loanId}, ${today}, now(), false)`;
    if (row?.state_current) return 'stored state';
    if (Date.now() >= deadline) return 'replay';
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The targets of P1 and P5 (docs/operating.md "Benchmarks"): the summary's paced p99 depends on the topology. */
export const readTargets = {
  /** Summary requests/s at saturation ÷ the bare baseline's, at least. */
  ratio: 0.4,
  /** Summary p99 (ms) paced at 70% of its saturated rate, below. */
  pacedP99Ms: { production: 20, single: 50 } satisfies Record<Topology, number>,
  /** Idempotent replay p50 (ms) as an integrator's client sees it (`ReadFigures.replay`), at most. */
  replayP50Ms: 2,
} as const;

/** What one round of `npm run bench:read` measures (`runReadBenchmark`), all in the same run. */
export interface ReadOptions {
  /** How the service runs (bench/support.ts `Topology`). */
  topology: Topology;
  /** Seconds per round (saturation, paced); default 15. */
  durationS: number;
  /** autocannon connections; default 32. */
  connections: number;
  /** API processes and baseline processes; default = CPU cores. */
  processes: number;
  /** CPU-profile the service into this folder and measure the summary rounds only. */
  profileDir: string | null;
  /** Progress and detail lines. */
  log: BenchLog;
}

/** The figures of one run (ms and requests per second); `null` parts when profiling (summary rounds only). */
export interface ReadFigures {
  summary: { max: Round & { serverCpuMs: number; postgresCpuMs: number }; paced: Round };
  /** The service's event-loop delay during the summary's paced round (ms; `serviceMetricsOf`). */
  eventLoop: { p99: number; max: number };
  /** The token-grant cache during the summary rounds (warm-up, saturation, paced): hits, look-ups, stops. */
  tokenCache: { hits: number; misses: number; stale: number };
  /** The API processes' GC pauses during the summary's paced round (`ServiceMetrics.gc`). */
  gc: { pauses: number; over10ms: number; totalMs: number };
  topology: Topology;
  bare: { max: Round & { serverCpuMs: number; postgresCpuMs: number }; paced: Round } | null;
  health: Round | null;
  /**
   * Idempotent replay of a completed POST as an integrator's client sees it (P5): a client at the environment's
   * default rate limit, its token fetched, a fresh connection pool, sequential requests paced at 80% of that rate.
   */
  replay: Round | null;
  /** P5 baselines, measured as `replay` in the same run: the service's authenticated summary GET, the bare baseline GET. */
  authenticatedGet: Round | null;
  bareGet: Round | null;
  /** The same three back to back (2,000 each after 200 warm-ups) with the bench client (rate limit 1,000,000/s). */
  backToBack: { replay: Round; summary: Round; bare: Round } | null;
  /** How `replay` was paced: the client's rate limit (per second), the requests sent a second, requests per round. */
  integrator: { rateLimitPerSecond: number; pacedPerSecond: number; requests: number } | null;
  processes: number;
  connections: number;
  durationS: number;
}

const ms = (n: number) => `${n.toFixed(2)} ms`;
const rate = (n: number) => `${Math.round(n)}/s`;

/**
 * Runs the read benchmark (P1 and P5 of `npm run bench`): starts its stack, measures, prints the detail lines to
 * `options.log`, stops everything it started and returns the figures.
 */
export async function runReadBenchmark(options: ReadOptions): Promise<ReadFigures> {
  const { topology, durationS: duration, connections, processes, profileDir, log } = options;
  /**
   * Saturation (with the CPU it costs per request), then paced at 70% of the saturated rate (after a 3 s warm-up);
   * `aroundPaced` runs before the paced round and its result after it.
   */
  async function saturationAndPaced(
    target: autocannon.Options,
    owners: CpuOwners,
    aroundPaced: () => Promise<() => Promise<void>> = async () => async () => {},
  ): Promise<{ max: Round & { serverCpuMs: number; postgresCpuMs: number }; paced: Round }> {
    await load({ ...target, connections, duration: Math.min(3, duration) });
    const max = await withCpu(owners, () => load({ ...target, connections, duration }));
    const after = await aroundPaced();
    const paced = await pacedLoad({
      url: String(target.url),
      headers: (target.headers ?? {}) as Record<string, string>,
      connections,
      durationS: duration,
      ratePerSecond: Math.max(1, Math.floor(max.requestsPerSecond * 0.7)),
    });
    await after();
    return { max, paced };
  }

  const stack = await startBenchStack('lending-bench-read-');
  const { dataDir, config, db } = stack;
  try {
    const platform = createPlatformOperations(operationDeps(db, config));
    // The bench client's own rate limit is raised (1,000,000/s) so that the limiter never answers 429 here.
    const created = await platform.createClient({
      tenantId: tenant,
      environment: config.environment,
      scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
      permissions: ['ALL'],
      rateLimitPerSecond: 1_000_000,
      createTenant: true,
    });
    const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };

    const baselinePort = await freePort();
    // Sent with every scrape (GET /metrics asks for it in production; the bench runs the sandbox, where it is open).
    const metricsToken = 'bench-read-metrics-token-0123456789';
    const env: NodeJS.ProcessEnv = {
      // The production default: every request writes its access log line (workers/logger.ts, buffered).
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_SECOND: '1000000',
      SEARCH_RATE_LIMIT_PER_SECOND: '1000000',
      METRICS_TOKEN: metricsToken,
    };
    if (profileDir) await mkdir(profileDir, { recursive: true });
    const service = await startService(stack, {
      topology,
      apiProcesses: processes,
      env: { ...env, ...(profileDir ? { CPU_PROFILE_DIR: profileDir } : {}) },
      // The API only: the worker's workflow threads cannot import a .ts file (so `--profile` needs `production`).
      apiNodeFlags: profileDir ? ['--import', './bench/cpu-profile.mjs'] : [],
      logName: 'read',
    });
    const serviceLog = path.join(dataDir, topology === 'single' ? 'read-service.log' : 'read-api.log');
    const baseUrl = service.baseUrl;
    const seeded = await runLendingDemoFlow(baseUrl, credential);
    const servedFrom = await summaryPathOf(db, seeded.loanId, 30_000);
    const baseline = await startProcess(
      ['bench/baseline-server.ts'],
      {
        ...process.env,
        ...env,
        DATA_DIR: dataDir,
        DATABASE_URL: stack.postgresUrl,
        API_PROCESSES: String(processes),
        PORT: String(baselinePort),
      },
      'baseline ready',
      path.join(dataDir, 'baseline.log'),
    );
    stack.onStop(() => stopProcess(baseline));

    const token = await requestToken(
      baseUrl,
      credential,
      'lending:read servicing:read servicing:write',
      () => {},
    );
    const headers = { authorization: `Bearer ${token}`, 'service-tenant': tenant };

    log(
      `bench:read — ${topologyLabel(topology, processes)}; ${processes} baseline process(es), ${connections} connections, ${duration} s rounds, ${availableParallelism()} cores; rate limits raised to 1,000,000/s (client and RATE_LIMIT_PER_SECOND) but for P5's integrator client (${config.rateLimitPerSecond}/s, the environment's default); the summary is served from its ${servedFrom}`,
    );
    const postmaster = stack.postgresPid;
    const summaryUrl = `${baseUrl}/v1/loans/${seeded.loanId}/summary`;
    let eventLoop = { p99: Number.NaN, max: Number.NaN };
    const cacheBefore = (await serviceMetricsOf(baseUrl, metricsToken)).tokenCache;
    let cacheAfter = cacheBefore;
    let gcBefore: ServiceMetrics['gc'] = { pauses: 0, over10ms: 0, totalMs: 0 };
    let gcAfter = gcBefore;
    // The worker process's CPU while the summary is read (production: a process of its own on the same cores).
    const workerCpuBefore = topology === 'production' ? cpuMillisOf(service.workerPid) : 0;
    const summaryStarted = performance.now();
    const summary = await saturationAndPaced(
      { url: summaryUrl, headers },
      { server: service.apiPid, postgres: postmaster },
      async () => {
        gcBefore = (await serviceMetricsOf(baseUrl, metricsToken)).gc; // also resets the event-loop histogram
        return async () => {
          const after = await serviceMetricsOf(baseUrl, metricsToken);
          eventLoop = after.eventLoop;
          cacheAfter = after.tokenCache;
          gcAfter = after.gc;
        };
      },
    );
    const tokenCache = {
      hits: cacheAfter.hits - cacheBefore.hits,
      misses: cacheAfter.misses - cacheBefore.misses,
      stale: cacheAfter.stale - cacheBefore.stale,
    };
    // postgres.js opens another pooled connection whenever every open one is busy, up to the process's pool size.
    const [backends] = await db.$client<{ count: number }[]>`
      select count(*)::int as count from pg_stat_activity where application_name = 'lending-servicing-engine'`;
    const connectionsNote = `PostgreSQL connections the service holds after the summary rounds (API processes, worker, their LISTEN connections and the bench's own pool of 2; DATABASE_POOL_SIZE ${process.env.DATABASE_POOL_SIZE ?? 'unset: each API process the default of workers/config.ts defaultApiPoolSize, the worker 30'}): ${backends?.count ?? 0}`;
    const workerCpuShare =
      topology === 'production'
        ? (cpuMillisOf(service.workerPid) - workerCpuBefore) / (performance.now() - summaryStarted)
        : Number.NaN;
    const workerNote =
      topology === 'production'
        ? `worker process (scripts/start-worker.ts) during the summary rounds: ${(workerCpuShare * 100).toFixed(1)}% of a core`
        : null;
    const gc = {
      pauses: gcAfter.pauses - gcBefore.pauses,
      over10ms: gcAfter.over10ms - gcBefore.over10ms,
      totalMs: gcAfter.totalMs - gcBefore.totalMs,
    };
    const gcNote = `GC during the paced round: ${gc.pauses} pauses, ${gc.over10ms} over 10 ms, ${gc.totalMs.toFixed(0)} ms in all (${((gc.totalMs / (duration * 1000 * (topology === 'single' ? 1 : processes))) * 100).toFixed(1)}% of the API processes' time)`;
    const tokenCacheNote = `token cache during the summary rounds: ${tokenCache.hits} hits, ${tokenCache.misses} look-ups, stopped serving ${tokenCache.stale} time(s)`;
    const figures: ReadFigures = {
      topology,
      summary,
      eventLoop,
      tokenCache,
      gc,
      bare: null,
      health: null,
      replay: null,
      authenticatedGet: null,
      bareGet: null,
      backToBack: null,
      integrator: null,
      processes,
      connections,
      durationS: duration,
    };
    if (profileDir) {
      // Profiling: the summary rounds only, so that the profile holds nothing else.
      log(
        `  summary ${rate(summary.max.requestsPerSecond)} at saturation, CPU per request: node ${ms(summary.max.serverCpuMs)}, postgres ${ms(summary.max.postgresCpuMs)}; paced p99 ${ms(summary.paced.p99)}, event-loop delay p99 ${ms(eventLoop.p99)} (max ${ms(eventLoop.max)}); profile in ${profileDir}`,
      );
      log(`  ${tokenCacheNote}; ${gcNote}`);
      if (workerNote) log(`  ${workerNote}`);
      log(`  ${connectionsNote}`);
      return figures;
    }

    const bareUrl = `http://127.0.0.1:${baselinePort}/loans/${seeded.loanId}`;
    const bare = await saturationAndPaced({ url: bareUrl }, { server: baseline.pid!, postgres: postmaster });
    const health = await load({ url: `${baseUrl}/healthz`, connections, duration });

    // P5 on one route with one set of headers, measured twice. Back to back with the bench client (rate limit
    // 1,000,000/s: its bucket is leased 50,000 points at a time, about one rate-limit round trip a second), then as an
    // integrator's client sees it: a client as `npm run admin -- clients create` makes one, with the environment's
    // default rate limit (`config.rateLimitPerSecond`, 25/s in the sandbox: below the 40/s from which the store leases,
    // so each request is counted in PostgreSQL), its token fetched through `POST /oauth2/token`, a fresh connection pool
    // per round, no warm-up, each request sent at least 1/(80% of its rate) s after the previous one. Each way has its
    // baselines measured the same way in the same run: the service's summary GET and the bare baseline's loan read.
    const replayUrl = `${baseUrl}/v1/servicing/cases`;
    const caseBody = JSON.stringify({
      customerRef: 'CUST-BENCH-1',
      caseTypeCode: 'PRIVACY',
      summary: 'bench replay',
    });
    /** The POST headers of `auth` with a new Idempotency-Key (a UUID, as `idempotencyKeyRule` advises), the case opened. */
    const openedCase = async (auth: Record<string, string>) => {
      const postHeaders = { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
      const first = await fetch(replayUrl, { method: 'POST', headers: postHeaders, body: caseBody });
      if (first.status !== 201)
        throw new Error(`the case to replay answered ${first.status}: ${await first.text()}`);
      return postHeaders;
    };
    const benchPost = await openedCase(headers);
    const backToBack = {
      replay: await sequentialLatency(replayUrl, benchPost, caseBody, 2000),
      summary: await sequentialLatency(summaryUrl, headers, null, 2000),
      bare: await sequentialLatency(bareUrl, {}, null, 2000),
    };
    const integratorRate = config.rateLimitPerSecond;
    const integratorClient = await platform.createClient({
      tenantId: tenant,
      environment: config.environment,
      scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
      permissions: ['ALL'],
      rateLimitPerSecond: integratorRate,
    });
    const integratorToken = await requestToken(
      baseUrl,
      { tenant, clientId: integratorClient.clientId, clientSecret: integratorClient.clientSecret },
      'lending:read servicing:read servicing:write',
      () => {},
    );
    const integratorHeaders = { authorization: `Bearer ${integratorToken}`, 'service-tenant': tenant };
    const integratorPost = await openedCase(integratorHeaders);
    const pacedPerSecond = Math.max(1, Math.floor(integratorRate * 0.8));
    const pacedCount = Math.min(2000, Math.max(100, Math.round(pacedPerSecond * duration)));
    const pacing = { warmUp: 0, intervalMs: 1000 / pacedPerSecond };
    const replay = await sequentialLatency(replayUrl, integratorPost, caseBody, pacedCount, pacing);
    const authenticatedGet = await sequentialLatency(summaryUrl, integratorHeaders, null, pacedCount, pacing);
    const bareGet = await sequentialLatency(bareUrl, {}, null, pacedCount, pacing);
    const integrator = { rateLimitPerSecond: integratorRate, pacedPerSecond, requests: pacedCount };

    const row = (name: string, r: Round) =>
      `  ${name.padEnd(38)} ${rate(r.requestsPerSecond).padStart(9)}  p50 ${ms(r.p50).padStart(9)}  p99 ${ms(r.p99).padStart(9)}${r.non2xx || r.errors ? `  (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}`;
    log('');
    log(row('service summary, saturation', summary.max));
    log(row('baseline loan read, saturation', bare.max));
    log(row('service summary, 70% paced', summary.paced));
    log(
      `  ${'service event-loop delay, 70% paced'.padEnd(38)} ${''.padStart(9)}  p99 ${ms(eventLoop.p99).padStart(9)}  max ${ms(eventLoop.max).padStart(9)}  (GET /metrics around the round, less the ${eventLoopResolutionMs} ms resolution)`,
    );
    log(`  ${gcNote}`);
    log(`  ${tokenCacheNote}`);
    if (workerNote) log(`  ${workerNote}`);
    log(`  ${connectionsNote}`);
    log(row('baseline loan read, 70% paced', bare.paced));
    log(row('service /healthz, saturation', health));
    const p50p99 = (r: Round) =>
      `p50 ${ms(r.p50).padStart(9)}  p99 ${ms(r.p99).padStart(9)}${r.non2xx ? ` (${r.non2xx} not as expected)` : ''}`;
    const pair = (name: string, fast: Round, client: Round) =>
      `  ${name.padEnd(40)} ${p50p99(fast).padEnd(34)} ${p50p99(client)}`;
    log(
      `  ${'P5, one connection, µs clock'.padEnd(40)} ${'back to back (bench client)'.padEnd(34)} as an integrator (${integrator.rateLimitPerSecond}/s client, fresh pool, token fetched, ${integrator.pacedPerSecond}/s, ${integrator.requests} requests)`,
    );
    log(pair('service replay POST /v1/servicing/cases', backToBack.replay, replay));
    log(pair('service summary GET', backToBack.summary, authenticatedGet));
    log(pair('baseline loan read', backToBack.bare, bareGet));
    const cpu = (name: string, r: { serverCpuMs: number; postgresCpuMs: number }) =>
      `  ${name.padEnd(38)} node ${ms(r.serverCpuMs).padStart(9)}  postgres ${ms(r.postgresCpuMs).padStart(9)}  (CPU per request at saturation)`;
    log(cpu('service summary', summary.max));
    log(cpu('baseline loan read', bare.max));
    log('');
    const logLines = (await readFile(serviceLog, 'utf8')).split('\n').length - 1;
    log(`  (the service's API wrote ${logLines} log lines at LOG_LEVEL=info: one access line per request)`);
    const ratio = summary.max.requestsPerSecond / bare.max.requestsPerSecond;
    const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
    const p99Target = readTargets.pacedP99Ms[topology];
    log(
      `  ratio service/baseline ${ratio.toFixed(2)} (target ≥ ${readTargets.ratio.toFixed(2)}: ${verdict(ratio >= readTargets.ratio)})`,
    );
    log(
      `  summary p99 at 70% ${ms(summary.paced.p99)} (target < ${p99Target} ms: ${verdict(summary.paced.p99 < p99Target)}); event-loop delay p99 ${ms(eventLoop.p99)}`,
    );
    log(
      `  replay p50 as an integrator ${ms(replay.p50)}, ${(replay.p50 / bareGet.p50).toFixed(1)}× the baseline loan read paced the same (target ≤ ${readTargets.replayP50Ms} ms: ${verdict(replay.p50 <= readTargets.replayP50Ms)}); back to back ${ms(backToBack.replay.p50)}, ${(backToBack.replay.p50 / backToBack.bare.p50).toFixed(1)}× its baseline`,
    );
    log(
      `  /healthz ${rate(health.requestsPerSecond)} vs baseline ${rate(bare.max.requestsPerSecond)} (target ≥: ${verdict(health.requestsPerSecond >= bare.max.requestsPerSecond)})`,
    );
    return { ...figures, bare, health, replay, authenticatedGet, bareGet, backToBack, integrator };
  } finally {
    await stack.stop();
  }
}

if (isMainModule(import.meta.url)) {
  const at = process.argv.indexOf('--profile');
  const topologyAt = process.argv.indexOf('--topology');
  const wanted = topologyAt >= 0 ? process.argv[topologyAt + 1] : 'both';
  if (wanted !== 'both' && !(topologies as readonly string[]).includes(wanted ?? '')) {
    process.stderr.write('--topology takes production, single or both\n');
    process.exit(2);
  }
  // `--profile` profiles the API processes of `production` (bench/support.ts `startService` apiNodeFlags).
  const chosen = topologies.filter((t) => (at >= 0 ? t === 'production' : wanted === 'both' || t === wanted));
  for (const topology of chosen) {
    await runReadBenchmark({
      topology,
      durationS: option('duration', 15),
      connections: option('connections', 32),
      processes: option('processes', availableParallelism()),
      // `--profile <dir>`: the service is CPU-profiled (bench/cpu-profile.mjs) into `<dir>/<topology>` (one process is profiled best).
      profileDir: at >= 0 ? path.join(path.resolve(process.argv[at + 1] ?? 'bench-profile'), topology) : null,
      log: (line) => console.log(line),
    });
  }
}
