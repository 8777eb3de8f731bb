/**
 * `npm run bench:read` (targets docs/design.md §6): the read path measured side by side with a bare
 * baseline, in one run, on this machine. It prints figures only; nothing here is a test.
 *
 * What it starts (and stops, by pid, at the end): an embedded PostgreSQL and a Temporal dev server in a
 * temporary folder; the service's API (`scripts/start-api.ts`, `API_PROCESSES` processes behind one port);
 * the bare baseline (`bench/baseline-server.ts`: Hono + postgres.js, one primary-key query on the same
 * `loans` table) with the same number of processes. It seeds one tenant through the public routes (the
 * lending demo flow: product, customer, loan, funding, 12 payments) and then measures, with autocannon:
 * - `GET /v1/loans/{id}/summary` with a bearer token, and the baseline's `GET /loans/{id}`: requests/s,
 *   p50 and p99 at saturation, then p50 and p99 paced at 70% of that rate; the ratio service/baseline;
 * - an idempotent replay of a completed `POST /v1/servicing/cases` (2,000 sequential requests on one keep-alive
 *   connection, unloaded, timed to the microsecond): p50, p99;
 * - `GET /healthz` of the service at saturation, against the baseline's loan read rate.
 * Targets: ratio ≥ 0.5, p99 < 20 ms at 70% of max, replay p50 ≤ 2 ms, `/healthz` ≥ baseline.
 *
 * P5's baseline, measured the same way (sequential, µs clock): the bare baseline's `GET /loans/{id}` and the
 * service's authenticated `GET /v1/loans/{id}/summary`.
 *
 * Usage: npm run bench:read [-- --duration 15 --connections 32 --processes 2 --profile <dir>]
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
  stopProcess,
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

/** What one round of `npm run bench:read` measures (`runReadBenchmark`), all in the same run. */
export interface ReadOptions {
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
  const { durationS: duration, connections, processes, profileDir, log } = options;
  /** Saturation (with the CPU it costs per request), then paced at 70% of the saturated rate (after a 3 s warm-up). */
  async function saturationAndPaced(
    target: autocannon.Options,
    owners: CpuOwners,
  ): Promise<{ max: Round & { serverCpuMs: number; postgresCpuMs: number }; paced: Round }> {
    await load({ ...target, connections, duration: Math.min(3, duration) });
    const max = await withCpu(owners, () => load({ ...target, connections, duration }));
    const paced = await load({
      ...target,
      connections,
      duration,
      overallRate: Math.max(1, Math.floor(max.requestsPerSecond * 0.7)),
    });
    return { max, paced };
  }

  const stack = await startBenchStack('lending-bench-read-');
  const { dataDir, config, db, temporal } = stack;
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

    const servicePort = await freePort();
    const baselinePort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: stack.postgresUrl,
      TEMPORAL_ADDRESS: temporal.address,
      // The production default: every request writes its access log line (workers/logger.ts, buffered).
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_SECOND: '1000000',
      SEARCH_RATE_LIMIT_PER_SECOND: '1000000',
      API_PROCESSES: String(processes),
    };
    if (profileDir) await mkdir(profileDir, { recursive: true });
    const profileFlags = profileDir ? ['--import', './bench/cpu-profile.ts'] : [];
    const service = await startProcess(
      [...profileFlags, 'scripts/start-api.ts'],
      { ...env, PORT: String(servicePort), ...(profileDir ? { CPU_PROFILE_DIR: profileDir } : {}) },
      'API ready at',
      path.join(dataDir, 'service.log'),
    );
    stack.onStop(() => stopProcess(service));
    const baseUrl = `http://127.0.0.1:${servicePort}`;
    const seeded = await runLendingDemoFlow(baseUrl, credential);
    const baseline = await startProcess(
      ['bench/baseline-server.ts'],
      { ...env, PORT: String(baselinePort) },
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
      `bench:read — ${processes} API process(es) and ${processes} baseline process(es), ${connections} connections, ${duration} s rounds, ${availableParallelism()} cores; rate limits raised to 1,000,000/s (client and RATE_LIMIT_PER_SECOND)`,
    );
    const postmaster = stack.postgresPid;
    const summaryUrl = `${baseUrl}/v1/loans/${seeded.loanId}/summary`;
    const summary = await saturationAndPaced(
      { url: summaryUrl, headers },
      { server: service.pid!, postgres: postmaster },
    );
    const figures: ReadFigures = {
      summary,
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
        `  summary ${rate(summary.max.requestsPerSecond)} at saturation, CPU per request: node ${ms(summary.max.serverCpuMs)}, postgres ${ms(summary.max.postgresCpuMs)}; profile in ${profileDir}`,
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
    const logLines = (await readFile(path.join(dataDir, 'service.log'), 'utf8')).split('\n').length - 1;
    log(`  (the service wrote ${logLines} log lines at LOG_LEVEL=info: one access line per request)`);
    const ratio = summary.max.requestsPerSecond / bare.max.requestsPerSecond;
    const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
    log(`  ratio service/baseline ${ratio.toFixed(2)} (target ≥ 0.50: ${verdict(ratio >= 0.5)})`);
    log(`  summary p99 at 70% ${ms(summary.paced.p99)} (target < 20 ms: ${verdict(summary.paced.p99 < 20)})`);
    log(`  replay p50 ${ms(replay.p50)} (target ≤ 2 ms: ${verdict(replay.p50 <= 2)})`);
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
  await runReadBenchmark({
    durationS: option('duration', 15),
    connections: option('connections', 32),
    processes: option('processes', availableParallelism()),
    // `--profile <dir>`: the service is CPU-profiled (bench/cpu-profile.ts) into `<dir>` (one process is profiled best).
    profileDir: at >= 0 ? path.resolve(process.argv[at + 1] ?? 'bench-profile') : null,
    log: (line) => console.log(line),
  });
}
