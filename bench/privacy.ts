/**
 * `npm run bench:privacy` (P6 of `npm run bench`): routes that start a durable process, side by side with a bare
 * workflow start on the same Temporal server, in one run, on this machine, per topology (bench/support.ts
 * `startService`). Prints figures only; nothing here is a test.
 *
 * What it starts (and stops, by pid, at the end): an embedded PostgreSQL and a Temporal dev server in a temporary
 * folder (bench/support.ts), and the service in the topology asked:
 * - `production`: `scripts/start-api.ts` (`--processes` processes behind one port) beside `scripts/start-worker.ts`
 *   serving every queue but `servicing` (`--queues lending,boarding,webhooks,webhooks-backlog`), with its background
 *   services (the start-intent relay): the processes both routes start wait on `servicing`, so what is measured is
 *   the creation path (the request's transaction with its start intent, the workflow start, the start mark noted),
 *   as the baseline's start of a workflow no worker runs, while the relay still runs beside it;
 * - `single`: `scripts/start.ts` (`npm start`), whose worker runs in the same process, so the started workflows'
 *   first tasks run there too: what `npm start` users see.
 * It seeds `--cases` PRIVACY cases, each with an inbound interaction, and as many customers each with a phone and
 * an open case, through the public routes, then measures for `--duration` seconds each, with `--concurrency`
 * requests in flight (a closed loop):
 * - `POST /v1/servicing/privacy-requests` (docs/servicing.md "Privacy requests in Temporal") with autocannon, a fresh Idempotency-Key per
 *   request and the cases taken in turn: requests per second, p50, p99; every answer must be 201;
 * - `POST /v1/servicing/cases/{caseId}/contact-consent-updates` scheduling an SMS permission change 30 days ahead
 *   (so it starts `contact-consent-update/<tenant>/<updateId>`, a different process), the same way; answers 200;
 * - the baseline: `client.workflow.start('emptyOneActivityWorkflow')` (bench/workflows/empty.ts) with a fresh
 *   workflow id, from this process, on a task queue no worker polls: starts per second, p50, p99.
 * Then each route's ratio to the baseline (target ≥ 0.80, docs/processes.md P0 "Start intents").
 *
 * Each route line also gives the service's CPU per request (API and worker processes, from /proc), and every line
 * the CPU per request of the bench's PostgreSQL (postmaster and live backends) and Temporal dev server.
 *
 * Usage: npm run bench:privacy [-- --duration 10 --concurrency 16 --cases 8 --processes 2 --topology both
 * --profile <dir> --statements] (`--profile`: CPU-profile the API processes of the production topology,
 * bench/cpu-profile.mjs; `--statements`: list the SQL statements per request of each route, from pg_stat_statements).
 * `runPrivacyBenchmark` is what `npm run bench` calls.
 */
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { createPlatformOperations } from '../activities';
import { apiRequest, requestToken } from '../scripts/http-client';
import { operationDeps } from '../workers/config';
import {
  type BenchLog,
  type ConcurrentRun,
  cpuMillisOf,
  isMainModule,
  logStatements,
  measureConcurrent,
  option,
  startBenchStack,
  startService,
  statementStatsSettings,
  type Topology,
  topologies,
  topologyLabel,
} from './support';

const tenant = 'bench-privacy';
const customerRef = 'CUST-BENCH-PRIVACY';
/** Every queue but `servicing`, where both measured routes start their processes (production topology). */
const workerQueuesButServicing = ['lending', 'boarding', 'webhooks', 'webhooks-backlog'];

/** What `runPrivacyBenchmark` is asked to do. */
export interface PrivacyOptions {
  /** Seconds per measured round (each side); default 10. */
  durationS: number;
  /** Requests (starts) in flight at once; default 16. */
  concurrency: number;
  /** PRIVACY cases (and customers with a case) the requests are spread over; default 8. */
  cases: number;
  /** API processes in the production topology; default = CPU cores. */
  processes: number;
  /** Which service runs (bench/support.ts); default production. */
  topology?: Topology;
  /** CPU-profile the API processes (production topology) into this folder (bench/cpu-profile.mjs; bench/profile-top.ts reads them). */
  profileDir?: string | null;
  /**
   * Load pg_stat_statements into the bench's PostgreSQL and print, after each measured route round, every
   * statement PostgreSQL ran in it: calls per answered request, mean and total execution time.
   */
  statements?: boolean;
  log: BenchLog;
}

/**
 * Per second, p50/p99 (ms), failures (answers other than the route's success status): privacy-request creations,
 * scheduled contact-consent updates and bare workflow starts, measured in one run on one topology.
 */
export interface PrivacyFigures {
  topology: Topology;
  creations: ConcurrentRun & { cpuMsPerRequest: number } & BackendCpu;
  consentUpdates: ConcurrentRun & { cpuMsPerRequest: number } & BackendCpu;
  bareStarts: ConcurrentRun & BackendCpu;
  concurrency: number;
  durationS: number;
}

/** CPU per request (ms) of the bench's PostgreSQL (postmaster and its live backends) and Temporal dev server. */
interface BackendCpu {
  postgresCpuMsPerRequest: number;
  temporalCpuMsPerRequest: number;
}

const line = (label: string, run: ConcurrentRun & { cpuMsPerRequest?: number } & BackendCpu) =>
  `  ${label.padEnd(52)} ${`${Math.round(run.perSecond)}/s`.padStart(7)}  p50 ${run.p50.toFixed(1).padStart(6)} ms  p99 ${run.p99.toFixed(1).padStart(6)} ms${run.cpuMsPerRequest === undefined ? '' : `  service CPU ${run.cpuMsPerRequest.toFixed(2)} ms/req`}  PostgreSQL ${run.postgresCpuMsPerRequest.toFixed(2)}  Temporal ${run.temporalCpuMsPerRequest.toFixed(2)} ms/req${run.failures ? `  (${run.failures} failed)` : ''}`;

/**
 * Runs the start-path benchmark on one topology: starts its stack and the service, measures both routes and the
 * bare start, prints the detail lines to `options.log`, stops everything it started and returns the figures.
 */
export async function runPrivacyBenchmark(options: PrivacyOptions): Promise<PrivacyFigures> {
  const { durationS, concurrency, cases: caseCount, processes, log } = options;
  const topology = options.topology ?? 'production';
  if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });
  const stack = await startBenchStack(
    'lending-bench-privacy-',
    options.statements ? { postgresSettings: statementStatsSettings } : {},
  );
  const { config, db, temporal } = stack;
  try {
    if (options.statements) await db.execute(sql`create extension if not exists pg_stat_statements`);
    // The bench client's own rate limit is raised so that the limiter never answers 429 here.
    const created = await createPlatformOperations(operationDeps(db, config)).createClient({
      tenantId: tenant,
      environment: config.environment,
      scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'],
      permissions: ['ALL'],
      rateLimitPerSecond: 1_000_000,
      createTenant: true,
    });
    const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
    const service = await startService(stack, {
      topology,
      apiProcesses: processes,
      env: { LOG_LEVEL: 'info', RATE_LIMIT_PER_SECOND: '1000000' },
      workerArgs: ['--queues', workerQueuesButServicing.join(',')],
      logName: 'privacy',
      ...(options.profileDir
        ? {
            apiNodeFlags: ['--import', './bench/cpu-profile.mjs'],
            env: { LOG_LEVEL: 'info', RATE_LIMIT_PER_SECOND: '1000000', CPU_PROFILE_DIR: options.profileDir },
          }
        : {}),
    });
    // CPU of the service under test (the API processes, and the worker: separate in production, the same in single).
    const serviceCpuMs = () =>
      cpuMillisOf(service.apiPid) +
      (service.workerPid === service.apiPid ? 0 : cpuMillisOf(service.workerPid));
    const { baseUrl } = service;
    const temporalPid = temporal.process.pid ?? 0;
    const backendCpu = () => ({
      postgres: cpuMillisOf(stack.postgresPid),
      temporal: cpuMillisOf(temporalPid),
    });
    const backendCpuSince = (
      before: { postgres: number; temporal: number },
      completed: number,
    ): BackendCpu => {
      const now = backendCpu();
      const per = (ms: number) => (completed > 0 ? ms / completed : 0);
      return {
        postgresCpuMsPerRequest: per(now.postgres - before.postgres),
        temporalCpuMsPerRequest: per(now.temporal - before.temporal),
      };
    };
    const scopes = 'servicing:read servicing:write lending:read lending:write';
    const session = {
      baseUrl,
      accessToken: await requestToken(baseUrl, credential, scopes, () => {}),
      tenant,
      actor: 'bench',
    };
    const answered = async (response: Response, status: number, what: string) => {
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== status)
        throw new Error(`${what} answered ${response.status}: ${JSON.stringify(body)}`);
      return body;
    };
    const privacyBodies: string[] = [];
    const consentTargets: { path: string; body: string }[] = [];
    const effectiveAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    for (let i = 0; i < caseCount; i++) {
      const kase = await answered(
        await apiRequest(session, 'POST', '/v1/servicing/cases', {
          customerRef,
          caseTypeCode: 'PRIVACY',
          summary: 'Benchmark privacy case',
        }),
        201,
        'the case',
      );
      const interaction = await answered(
        await apiRequest(session, 'POST', '/v1/servicing/interactions', {
          customerRef,
          caseId: kase.caseId,
          channel: 'EMAIL',
          direction: 'INBOUND',
          summary: 'Customer asked for deletion',
        }),
        201,
        'the interaction',
      );
      privacyBodies.push(
        JSON.stringify({
          customerRef,
          requestType: 'DELETION',
          regime: 'CCPA_CPRA',
          summary: 'Delete my data',
          caseId: kase.caseId,
          sourceInteractionId: interaction.interactionId,
        }),
      );
      const customer = await answered(
        await apiRequest(session, 'POST', '/v1/customers', {
          firstName: 'Cora',
          lastName: `Consent${String.fromCharCode(97 + (i % 26))}`,
          contactPoints: [{ contactType: 'PHONE', value: '(415) 555-2671' }],
        }),
        201,
        'the customer',
      );
      const read = await answered(
        await apiRequest(session, 'GET', `/v1/customers/${customer.customerId}`, undefined),
        200,
        'the customer read',
      );
      const phone = (read.contactPoints as { contactType: string; contactPointRef: string }[]).find(
        (cp) => cp.contactType === 'PHONE',
      );
      const consentCase = await answered(
        await apiRequest(session, 'POST', '/v1/servicing/cases', {
          customerRef: customer.customerRef,
          caseTypeCode: 'GENERAL',
          summary: 'Contact preferences',
        }),
        201,
        'the consent case',
      );
      consentTargets.push({
        path: `/v1/servicing/cases/${consentCase.caseId}/contact-consent-updates`,
        body: JSON.stringify({
          customerRef: customer.customerRef,
          operation: 'UPDATE_SMS_PERMISSION',
          contactPointRef: phone?.contactPointRef,
          canReceiveSms: false,
          effectiveAt,
          reason: 'Customer asked to stop text messages next month',
        }),
      });
    }
    log(
      `bench:privacy — ${topologyLabel(topology, processes)}; ${concurrency} in flight, ${durationS} s per side, ${availableParallelism()} cores; ${topology === 'production' ? `worker queues ${workerQueuesButServicing.join(',')} (not servicing: the started processes wait)` : 'the started processes run in the same process'}; rate limits raised to 1,000,000/s`,
    );

    const run = `${Date.now().toString(36)}`;
    let sent = 0;
    const headers = {
      authorization: `Bearer ${session.accessToken}`,
      'service-tenant': tenant,
      'content-type': 'application/json',
    };
    const routeRound = async (
      seconds: number,
      next: (n: number) => { path: string; body: string },
      statementsOf?: string,
    ): Promise<ConcurrentRun & { cpuMsPerRequest: number } & BackendCpu> => {
      if (statementsOf) await db.execute(sql`select pg_stat_statements_reset()`);
      const cpuBefore = serviceCpuMs();
      const backendBefore = backendCpu();
      const result = await autocannon({
        url: baseUrl,
        connections: concurrency,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            setupRequest: (request) => {
              const n = sent++;
              const target = next(n);
              return {
                ...request,
                path: target.path,
                headers: { ...headers, 'idempotency-key': `bench-start-${run}-${n.toString(36)}` },
                body: target.body,
              };
            },
          },
        ],
      });
      const completed = result['2xx'];
      const backend = backendCpuSince(backendBefore, completed);
      if (statementsOf) await logStatements(db, `the measured ${statementsOf} round`, completed, log);
      return {
        ...backend,
        cpuMsPerRequest: completed > 0 ? (serviceCpuMs() - cpuBefore) / completed : 0,
        perSecond: completed / seconds,
        completed,
        p50: result.latency.p50,
        p99: result.latency.p99,
        failures: result.non2xx + result.errors + result.timeouts,
      };
    };
    const privacy = (n: number) => ({
      path: '/v1/servicing/privacy-requests',
      body: privacyBodies[n % privacyBodies.length]!,
    });
    const consent = (n: number) => consentTargets[n % consentTargets.length]!;
    await routeRound(Math.min(3, durationS), privacy);
    const creations = await routeRound(
      durationS,
      privacy,
      options.statements ? 'privacy-request creation' : undefined,
    );
    await routeRound(Math.min(2, durationS), consent);
    const consentUpdates = await routeRound(
      durationS,
      consent,
      options.statements ? 'contact-consent update' : undefined,
    );

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
      const backendBefore = backendCpu();
      const result = await measureConcurrent({ concurrency, durationMs: seconds * 1000, log }, (index) =>
        bareStart(base + index),
      );
      offset += result.completed + result.failures + concurrency;
      return { ...result, ...backendCpuSince(backendBefore, result.completed) };
    };
    await startRound(Math.min(3, durationS));
    const bareStarts = await startRound(durationS);

    log(line('privacy-request creation (API, workflow start)', creations));
    log(line('contact-consent update scheduled (API, workflow start)', consentUpdates));
    log(line('bare workflow start (baseline)', bareStarts));
    log(
      `  ratios ${(creations.perSecond / bareStarts.perSecond).toFixed(2)} (privacy request), ${(consentUpdates.perSecond / bareStarts.perSecond).toFixed(2)} (contact-consent update); target ≥ 0.80`,
    );
    return { topology, creations, consentUpdates, bareStarts, concurrency, durationS };
  } finally {
    await stack.stop();
  }
}

if (isMainModule(import.meta.url)) {
  const at = process.argv.indexOf('--topology');
  const asked = at >= 0 ? process.argv[at + 1] : 'both';
  const profileAt = process.argv.indexOf('--profile');
  if (asked !== 'both' && !topologies.includes(asked as Topology))
    throw new Error(`--topology must be production, single or both (got ${asked})`);
  for (const topology of asked === 'both' ? topologies : [asked as Topology]) {
    await runPrivacyBenchmark({
      durationS: option('duration', 10),
      concurrency: option('concurrency', 16),
      cases: option('cases', 8),
      processes: option('processes', availableParallelism()),
      topology,
      profileDir:
        profileAt >= 0 ? path.resolve(process.argv[profileAt + 1] ?? '.data/profile-privacy') : null,
      statements: process.argv.includes('--statements'),
      log: (text) => console.log(text),
    });
  }
}
