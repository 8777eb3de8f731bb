/**
 * `npm run bench:privacy` (P6 of `npm run bench`): privacy-request creation, a request that starts a
 * workflow, side by side with a bare workflow start on the same Temporal server, in one run, on this machine.
 * Prints figures only; nothing here is a test.
 *
 * What it starts (and stops, by pid, at the end): an embedded PostgreSQL and a Temporal dev server in a temporary
 * folder (bench/support.ts), and the service's API (`scripts/start-api.ts`, `--processes` processes behind one
 * port). No worker runs: what is measured is the creation (the request's transaction with its start intent, the
 * workflow start, the intent marked started), not the process that follows. It seeds `--cases` PRIVACY cases, each
 * with an inbound interaction, through the public routes, then measures for `--duration` seconds each, with
 * `--concurrency` requests in flight (a closed loop):
 * - `POST /v1/servicing/privacy-requests` (spec § Privacy request) with autocannon, a fresh Idempotency-Key per
 *   request and the cases taken in turn: requests per second, p50, p99; every answer must be 201;
 * - the baseline: `client.workflow.start('emptyOneActivityWorkflow')` (bench/workflows/empty.ts) with a fresh
 *   workflow id, from this process, on a task queue no worker polls: starts per second, p50, p99.
 * Then the ratio (no target in docs/design.md §6; reported).
 *
 * Usage: npm run bench:privacy [-- --duration 10 --concurrency 16 --cases 8 --processes 2].
 * `runPrivacyBenchmark` is what `npm run bench` calls.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import autocannon from 'autocannon';
import { createPlatformOperations } from '../activities';
import { freePort } from '../db/embedded';
import { apiRequest, requestToken } from '../scripts/http-client';
import { operationDeps } from '../workers/config';
import {
  type BenchLog,
  type ConcurrentRun,
  isMainModule,
  measureConcurrent,
  option,
  startBenchStack,
  startProcess,
  stopProcess,
} from './support';

const tenant = 'bench-privacy';
const customerRef = 'CUST-BENCH-PRIVACY';

/** What `runPrivacyBenchmark` is asked to do. */
export interface PrivacyOptions {
  /** Seconds per measured round (each side); default 10. */
  durationS: number;
  /** Requests (starts) in flight at once; default 16. */
  concurrency: number;
  /** PRIVACY cases the requests are spread over; default 8. */
  cases: number;
  /** API processes; default = CPU cores. */
  processes: number;
  log: BenchLog;
}

/** Privacy-request creations and bare workflow starts: per second, p50/p99 (ms), failures (non-201 for the API). */
export interface PrivacyFigures {
  creations: ConcurrentRun;
  bareStarts: ConcurrentRun;
  concurrency: number;
  durationS: number;
}

const line = (label: string, run: ConcurrentRun) =>
  `  ${label.padEnd(44)} ${`${Math.round(run.perSecond)}/s`.padStart(7)}  p50 ${run.p50.toFixed(1).padStart(6)} ms  p99 ${run.p99.toFixed(1).padStart(6)} ms${run.failures ? `  (${run.failures} failed)` : ''}`;

/**
 * Runs the privacy-request creation benchmark: starts its stack, measures, prints the detail lines to
 * `options.log`, stops everything it started and returns the figures.
 */
export async function runPrivacyBenchmark(options: PrivacyOptions): Promise<PrivacyFigures> {
  const { durationS, concurrency, cases: caseCount, processes, log } = options;
  const stack = await startBenchStack('lending-bench-privacy-');
  const { dataDir, config, db, temporal } = stack;
  try {
    // The bench client's own rate limit is raised so that the limiter never answers 429 here.
    const created = await createPlatformOperations(operationDeps(db, config)).createClient({
      tenantId: tenant,
      environment: config.environment,
      scopes: ['servicing:read', 'servicing:write'],
      permissions: ['ALL'],
      rateLimitPerSecond: 1_000_000,
      createTenant: true,
    });
    const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
    const port = await freePort();
    const api = await startProcess(
      ['scripts/start-api.ts'],
      {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: stack.postgresUrl,
        TEMPORAL_ADDRESS: temporal.address,
        LOG_LEVEL: 'info',
        RATE_LIMIT_PER_SECOND: '1000000',
        API_PROCESSES: String(processes),
        PORT: String(port),
      },
      'API ready at',
      path.join(dataDir, 'api.log'),
    );
    stack.onStop(() => stopProcess(api));
    const baseUrl = `http://127.0.0.1:${port}`;
    const session = {
      baseUrl,
      accessToken: await requestToken(baseUrl, credential, 'servicing:read servicing:write', () => {}),
      tenant,
      actor: 'bench',
    };
    const created201 = async (response: Response, what: string) => {
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== 201)
        throw new Error(`${what} answered ${response.status}: ${JSON.stringify(body)}`);
      return body;
    };
    const bodies: string[] = [];
    for (let i = 0; i < caseCount; i++) {
      const kase = await created201(
        await apiRequest(session, 'POST', '/v1/servicing/cases', {
          customerRef,
          caseTypeCode: 'PRIVACY',
          summary: 'Benchmark privacy case',
        }),
        'the case',
      );
      const interaction = await created201(
        await apiRequest(session, 'POST', '/v1/servicing/interactions', {
          customerRef,
          caseId: kase.caseId,
          channel: 'EMAIL',
          direction: 'INBOUND',
          summary: 'Customer asked for deletion',
        }),
        'the interaction',
      );
      bodies.push(
        JSON.stringify({
          customerRef,
          requestType: 'DELETION',
          regime: 'CCPA_CPRA',
          summary: 'Delete my data',
          caseId: kase.caseId,
          sourceInteractionId: interaction.interactionId,
        }),
      );
    }
    log(
      `bench:privacy — ${processes} API process(es), ${concurrency} in flight, ${durationS} s per side, ${availableParallelism()} cores, no worker; rate limits raised to 1,000,000/s (client and RATE_LIMIT_PER_SECOND)`,
    );

    const run = `${Date.now().toString(36)}`;
    let sent = 0;
    const headers = {
      authorization: `Bearer ${session.accessToken}`,
      'service-tenant': tenant,
      'content-type': 'application/json',
    };
    const creationRound = async (seconds: number): Promise<ConcurrentRun> => {
      const result = await autocannon({
        url: `${baseUrl}/v1/servicing/privacy-requests`,
        connections: concurrency,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            setupRequest: (request) => {
              const n = sent++;
              return {
                ...request,
                headers: { ...headers, 'idempotency-key': `bench-privacy-${run}-${n.toString(36)}` },
                body: bodies[n % bodies.length],
              };
            },
          },
        ],
      });
      const completed = result['2xx'];
      return {
        perSecond: completed / seconds,
        completed,
        p50: result.latency.p50,
        p99: result.latency.p99,
        failures: result.non2xx + result.errors + result.timeouts,
      };
    };
    await creationRound(Math.min(3, durationS));
    const creations = await creationRound(durationS);

    const connection = await Connection.connect({ address: temporal.address });
    stack.onStop(() => connection.close());
    const client = new Client({ connection });
    const bareStart = async (index: number) => {
      await client.workflow.start('emptyOneActivityWorkflow', {
        taskQueue: 'bench-bare-start',
        workflowId: `bench-bare-start-${run}-${index.toString(36)}`,
      });
    };
    let offset = 0;
    const startRound = async (seconds: number) => {
      const base = offset;
      const result = await measureConcurrent({ concurrency, durationMs: seconds * 1000, log }, (index) =>
        bareStart(base + index),
      );
      offset += result.completed + result.failures + concurrency;
      return result;
    };
    await startRound(Math.min(3, durationS));
    const bareStarts = await startRound(durationS);

    log(line('privacy-request creation (API, workflow start)', creations));
    log(line('bare workflow start (baseline)', bareStarts));
    log(
      `  ratio ${(creations.perSecond / bareStarts.perSecond).toFixed(2)} (no docs/design.md §6 target; reported)`,
    );
    return { creations, bareStarts, concurrency, durationS };
  } finally {
    await stack.stop();
  }
}

if (isMainModule(import.meta.url)) {
  await runPrivacyBenchmark({
    durationS: option('duration', 10),
    concurrency: option('concurrency', 16),
    cases: option('cases', 8),
    processes: option('processes', availableParallelism()),
    log: (text) => console.log(text),
  });
}
