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
 * measures, with autocannon:
 * - `GET /v1/loans/{id}/summary` with a bearer token, and the baseline's `GET /loans/{id}`: requests/s,
 *   p50 and p99 at saturation, then p50 and p99 paced at 70% of that rate; the ratio service/baseline; and the
 *   service's event-loop delay during the paced round (`eventLoopDelayOf`);
 * - an idempotent replay of a completed `POST /v1/servicing/cases` (2,000 sequential requests on one keep-alive
 *   connection, unloaded, timed to the microsecond): p50, p99;
 * - `GET /healthz` of the service at saturation, against the baseline's loan read rate.
 * Targets (`readTargets`): ratio ≥ 0.40; p99 at 70% of max < 20 ms in production, < 50 ms under npm start;
 * replay p50 ≤ 2 ms; `/healthz` ≥ baseline.
 *
 * P5's baseline, measured the same way (sequential, µs clock): the bare baseline's `GET /loans/{id}` and the
 * service's authenticated `GET /v1/loans/{id}/summary`.
 *
 * Usage: npm run bench:read [-- --duration 15 --connections 32 --processes 2 --topology production|single|both
 * --profile <dir>] (`--topology` default both, one after the other, each with its own stack and baseline)
 * (`--duration` seconds per round, default 15; `--processes` default = CPU cores). The load generator
 * shares the machine's cores with the servers, as it does for the baseline. `runReadBenchmark` is what
 * `npm run bench` (bench/index.ts) calls.
 */
import { mkdir, readFile } from 'node:fs/promises';
import http from 'node:http';
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
 * Latency of `count` sequential requests on one keep-alive connection, measured to the microsecond
 * (autocannon reports whole milliseconds): p50 and p99 in ms, after 200 unmeasured warm-up requests. A POST of
 * `body` must be answered as a replay (`x-served-from-cache: true`), a GET (no body) with 200, else it throws.
 */
async function sequentialLatency(
  url: string,
  headers: Record<string, string>,
  body: string | null,
  count: number,
): Promise<Round> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const method = body === null ? 'GET' : 'POST';
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(url, { method, headers, agent }, (response) => {
        response.resume();
        response.on('end', () =>
          (body === null ? response.statusCode === 200 : response.headers['x-served-from-cache'] === 'true')
            ? resolve()
            : reject(new Error(`${body === null ? 'not 200' : 'not a replay'}: ${response.statusCode}`)),
        );
      });
      request.on('error', reject);
      request.end(body ?? undefined);
    });
  for (let i = 0; i < 200; i++) await once();
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await once();
    samples.push(performance.now() - t0);
  }
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  samples.sort((a, b) => a - b);
  return {
    requestsPerSecond: count / elapsedS,
    requests: count,
    p50: percentileOf(samples, 0.5),
    p99: percentileOf(samples, 0.99),
    non2xx: 0,
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
 * ticks, so an idle loop reads this much; `eventLoopDelayOf` subtracts it.
 */
const eventLoopResolutionMs = 10;

/**
 * The service's event-loop delay (ms beyond the monitor's resolution) since the previous scrape: prom-client's
 * `nodejs_eventloop_lag_p99_seconds` and `_max_seconds` (`perf_hooks.monitorEventLoopDelay`, its histogram reset at
 * every collect) from `GET /metrics`; under `API_PROCESSES` > 1 the primary's aggregation gives the API processes'
 * average p99 and their largest max. A scrape before a round resets it; the one after reads the round. Errors: a
 * non-200 answer or a missing series.
 */
async function eventLoopDelayOf(
  baseUrl: string,
  metricsToken: string,
): Promise<{ p99: number; max: number }> {
  const response = await fetch(`${baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const seconds = (name: string) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
    if (!match) throw new Error(`GET /metrics has no ${name}`);
    return Math.max(0, Number(match[1]) * 1000 - eventLoopResolutionMs);
  };
  return {
    p99: seconds('nodejs_eventloop_lag_p99_seconds'),
    max: seconds('nodejs_eventloop_lag_max_seconds'),
  };
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
  /** Sequential idempotent replay p50 (ms), at most. */
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
  /** The service's event-loop delay during the summary's paced round (ms; `eventLoopDelayOf`). */
  eventLoop: { p99: number; max: number };
  topology: Topology;
  bare: { max: Round & { serverCpuMs: number; postgresCpuMs: number }; paced: Round } | null;
  health: Round | null;
  /** Idempotent replay of a completed POST, sequential (P5). */
  replay: Round | null;
  /** P5 baselines, sequential on the same clock: the service's authenticated summary GET, the bare baseline GET. */
  authenticatedGet: Round | null;
  bareGet: Round | null;
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
    const paced = await load({
      ...target,
      connections,
      duration,
      overallRate: Math.max(1, Math.floor(max.requestsPerSecond * 0.7)),
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
      apiNodeFlags: profileDir ? ['--import', './bench/cpu-profile.ts'] : [],
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
      `bench:read — ${topologyLabel(topology, processes)}; ${processes} baseline process(es), ${connections} connections, ${duration} s rounds, ${availableParallelism()} cores; rate limits raised to 1,000,000/s (client and RATE_LIMIT_PER_SECOND); the summary is served from its ${servedFrom}`,
    );
    const postmaster = stack.postgresPid;
    const summaryUrl = `${baseUrl}/v1/loans/${seeded.loanId}/summary`;
    let eventLoop = { p99: Number.NaN, max: Number.NaN };
    const summary = await saturationAndPaced(
      { url: summaryUrl, headers },
      { server: service.apiPid, postgres: postmaster },
      async () => {
        await eventLoopDelayOf(baseUrl, metricsToken); // resets the monitor's histogram
        return async () => {
          eventLoop = await eventLoopDelayOf(baseUrl, metricsToken);
        };
      },
    );
    const figures: ReadFigures = {
      topology,
      summary,
      eventLoop,
      bare: null,
      health: null,
      replay: null,
      authenticatedGet: null,
      bareGet: null,
      processes,
      connections,
      durationS: duration,
    };
    if (profileDir) {
      // Profiling: the summary rounds only, so that the profile holds nothing else.
      log(
        `  summary ${rate(summary.max.requestsPerSecond)} at saturation, CPU per request: node ${ms(summary.max.serverCpuMs)}, postgres ${ms(summary.max.postgresCpuMs)}; paced p99 ${ms(summary.paced.p99)}, event-loop delay p99 ${ms(eventLoop.p99)} (max ${ms(eventLoop.max)}); profile in ${profileDir}`,
      );
      return figures;
    }

    const bareUrl = `http://127.0.0.1:${baselinePort}/loans/${seeded.loanId}`;
    const bare = await saturationAndPaced({ url: bareUrl }, { server: baseline.pid!, postgres: postmaster });
    const health = await load({ url: `${baseUrl}/healthz`, connections, duration });

    const caseBody = JSON.stringify({
      customerRef: 'CUST-BENCH-1',
      caseTypeCode: 'PRIVACY',
      summary: 'bench replay',
    });
    const postHeaders = {
      ...headers,
      'content-type': 'application/json',
      'idempotency-key': 'bench-replay-1',
    };
    const first = await fetch(`${baseUrl}/v1/servicing/cases`, {
      method: 'POST',
      headers: postHeaders,
      body: caseBody,
    });
    if (first.status !== 201)
      throw new Error(`the case to replay answered ${first.status}: ${await first.text()}`);
    const replay = await sequentialLatency(`${baseUrl}/v1/servicing/cases`, postHeaders, caseBody, 2000);
    const authenticatedGet = await sequentialLatency(summaryUrl, headers, null, 2000);
    const bareGet = await sequentialLatency(bareUrl, {}, null, 2000);

    const row = (name: string, r: Round) =>
      `  ${name.padEnd(38)} ${rate(r.requestsPerSecond).padStart(9)}  p50 ${ms(r.p50).padStart(9)}  p99 ${ms(r.p99).padStart(9)}${r.non2xx || r.errors ? `  (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}`;
    log('');
    log(row('service summary, saturation', summary.max));
    log(row('baseline loan read, saturation', bare.max));
    log(row('service summary, 70% paced', summary.paced));
    log(
      `  ${'service event-loop delay, 70% paced'.padEnd(38)} ${''.padStart(9)}  p99 ${ms(eventLoop.p99).padStart(9)}  max ${ms(eventLoop.max).padStart(9)}  (GET /metrics around the round, less the ${eventLoopResolutionMs} ms resolution)`,
    );
    log(row('baseline loan read, 70% paced', bare.paced));
    log(row('service /healthz, saturation', health));
    log(row('service replay (sequential, µs clock)', replay));
    log(row('service summary GET (sequential)', authenticatedGet));
    log(row('baseline loan read (sequential)', bareGet));
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
      `  replay p50 ${ms(replay.p50)} (target ≤ ${readTargets.replayP50Ms} ms: ${verdict(replay.p50 <= readTargets.replayP50Ms)})`,
    );
    log(
      `  /healthz ${rate(health.requestsPerSecond)} vs baseline ${rate(bare.max.requestsPerSecond)} (target ≥: ${verdict(health.requestsPerSecond >= bare.max.requestsPerSecond)})`,
    );
    return { ...figures, bare, health, replay, authenticatedGet, bareGet };
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
      // `--profile <dir>`: the service is CPU-profiled (bench/cpu-profile.ts) into `<dir>/<topology>` (one process is profiled best).
      profileDir: at >= 0 ? path.join(path.resolve(process.argv[at + 1] ?? 'bench-profile'), topology) : null,
      log: (line) => console.log(line),
    });
  }
}
