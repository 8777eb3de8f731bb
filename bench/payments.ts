/**
 * `npm run bench:payments` (target docs/design.md §6; docs/processes.md P2): payment intents end to end per second,
 * side by side with an empty one-activity workflow on the same Temporal server, in one run, on this machine. Prints
 * figures only; nothing here is a test.
 *
 * What it starts (and stops, by pid, at the end): an embedded PostgreSQL and a Temporal dev server in a temporary
 * folder; the service in sandbox in one topology (bench/support.ts `startService`: `production`, the API processes
 * beside a worker process; `single`, npm start's one process); and, in this process, a worker for the baseline
 * workflow (bench/workflows/empty.ts).
 *
 * `--mode intent` (default): it boards `--loans` loans through the public routes (scripts/lending-demo-flow.ts, no
 * payment history: each ACTIVE with its whole balance owed), then measures, with `--concurrency` in flight:
 * - one intent end to end: `POST /v1/loans/{loanId}/payments` (ACH, today, 1.00 from the borrower's verified
 *   instrument) → at once `POST /v1/sandbox/payments/{paymentId}/settle`, which the workflow queues until it has
 *   submitted the payment to the sandbox rail and answers once it has posted it (allocation, journal and the
 *   `payment.posted` outbox row in one transaction): intents per second, p50 and p99 of that whole life;
 * - the baseline: start `emptyOneActivityWorkflow` and wait for its result, the same number with the same
 *   concurrency: workflows per second.
 *
 * `--mode autopay-day --enrolments N`: N loans whose autopay collects on the same day, today. Seeding: the loans
 * are bench/cob-seed.ts's portfolio (five template loans through the API, the rest SQL copies of them, disbursed
 * eight months ago with an installment due today); each template borrower gets a verified instrument through the
 * API; one more loan is enrolled through the API (`POST /v1/loans/{loanId}/autopay`, RTP, the installment due, 0
 * days before due), and its enrolment row is copied in SQL to the N measured loans, with each loan's borrower's
 * instrument and enrolled yesterday (so that today's installment is collectable; no start intent: the bench starts
 * the processes). The day: autopay fires per loan, on its process's timer at 00:00 UTC of the collection date
 * (workflows/payments/autopay/); the bench stands for that instant by starting the N processes
 * `autopay/<tenant>/<loanId>` (their start options from `autopayStartSpec`, `--concurrency` starts in flight), each
 * of which plans, finds today's collection, creates the intent and starts its process. Measured: the seconds until
 * every intent is SUBMITTED (or later), and until every one is POSTED after the sandbox rail settled it (RTP: the
 * sandbox timeline settles an instant rail two seconds after submission), polled in SQL; intents per second each.
 * Baseline: N empty one-activity workflows started with the same concurrency, until all have completed.
 * Then the ratios (target ≥ 0.6).
 *
 * Usage: npm run bench:payments [-- --mode intent --intents 300 --concurrency 16 --loans 8]
 * [-- --mode autopay-day --enrolments 10000 --concurrency 64] [-- --topology production|single|both] (default
 * both). `runPaymentsBenchmark` and `runAutopayDayBenchmark` are what `npm run bench` (bench/index.ts) calls.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import postgres from 'postgres';
import { createPlatformOperations } from '../activities';
import { addDays } from '../domain/calendar';
import { autopayStartSpec } from '../domain/payments/autopay';
import { apiRequest, requestToken } from '../scripts/http-client';
import { runLendingDemoFlow } from '../scripts/lending-demo-flow';
import { operationDeps, projectRoot } from '../workers/config';
import { installTemporalRuntime } from '../workers/stack';
import { workflowStartOptions } from '../workflows/common/client-start';
import { seedPortfolio } from './cob-seed';
import {
  type BenchLog,
  type BenchStack,
  type ConcurrentRun,
  cpuMillisOf,
  isMainModule,
  measureConcurrent,
  ownCpuMillisOf,
  type ServiceUnderTest,
  startBenchStack,
  startService,
  type Topology,
  topologies,
  topologyLabel,
} from './support';

const tenant = 'bench-payments';

/** What `runPaymentsBenchmark` is asked to do. */
export interface PaymentsOptions {
  /** Intents measured, and as many empty workflows; default 300. */
  intents: number;
  /** In flight at once; default 16. */
  concurrency: number;
  /** Loans the intents are spread over; default 8. */
  loans: number;
  /** How the service runs (bench/support.ts). */
  topology: Topology;
  log: BenchLog;
}

/** Payment intents end to end and the empty one-activity workflow, each per second with p50/p99 (ms). */
export interface PaymentsFigures {
  intents: ConcurrentRun;
  emptyWorkflow: ConcurrentRun;
  count: number;
  concurrency: number;
  topology: Topology;
  /** CPU milliseconds per intent and per empty workflow of each process measured. */
  cpuPerIntent: Record<string, number>;
  /** CPU milliseconds per intent creation alone (`POST …/payments`, no settle request) of each process measured. */
  cpuPerIntentCreation: Record<string, number>;
  cpuPerEmptyWorkflow: Record<string, number>;
}

const line = (label: string, run: ConcurrentRun) =>
  `  ${label.padEnd(44)} ${`${Math.round(run.perSecond)}/s`.padStart(7)}  p50 ${run.p50.toFixed(0).padStart(5)} ms  p99 ${run.p99.toFixed(0).padStart(5)} ms${run.failures ? `  (${run.failures} failed)` : ''}`;

/** The service's environment in both modes: sandbox, the production log level, rate limits out of the way. */
const serviceEnv: NodeJS.ProcessEnv = {
  SERVICE_ENVIRONMENT: 'sandbox',
  LOG_LEVEL: 'info',
  RATE_LIMIT_PER_SECOND: '1000000',
  SEARCH_RATE_LIMIT_PER_SECOND: '1000000',
};

/** The bench tenant and its API client (rate limit 1,000,000/s), made directly through the platform operation. */
async function benchCredential(stack: BenchStack) {
  const created = await createPlatformOperations(operationDeps(stack.db, stack.config)).createClient({
    tenantId: tenant,
    environment: 'sandbox',
    scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
    permissions: ['ALL'],
    rateLimitPerSecond: 1_000_000,
    createTenant: true,
  });
  return { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
}

/**
 * The baseline's worker, in this process, on its own queue of the stack's Temporal server (stopped with the
 * stack), and `emptyLife(index)`, which runs one `emptyOneActivityWorkflow` to its end.
 */
async function startBaseline(stack: BenchStack) {
  installTemporalRuntime();
  const baselineQueue = 'bench-empty-workflow';
  const nativeConnection = await NativeConnection.connect({ address: stack.temporal.address });
  const baselineWorker = await Worker.create({
    connection: nativeConnection,
    taskQueue: baselineQueue,
    workflowsPath: path.join(projectRoot, 'bench', 'workflows', 'empty.ts'),
    activities: { nothing: async () => {} },
  });
  const baselineRun = baselineWorker.run();
  stack.onStop(async () => {
    baselineWorker.shutdown();
    await baselineRun;
    await nativeConnection.close();
  });
  const connection = await Connection.connect({ address: stack.temporal.address });
  stack.onStop(() => connection.close());
  const client = new Client({ connection });
  const emptyLife = async (index: number) => {
    await client.workflow.execute('emptyOneActivityWorkflow', {
      taskQueue: baselineQueue,
      workflowId: `bench-empty-${Date.now().toString(36)}-${index}`,
    });
  };
  return { emptyLife };
}

/** The processes whose CPU is measured: the service's (one in `single`), PostgreSQL, Temporal and this one. */
function cpuOwners(stack: BenchStack, service: ServiceUnderTest): Record<string, number> {
  return {
    ...(service.topology === 'production'
      ? { api: service.apiPid, worker: service.workerPid }
      : { service: service.apiPid }),
    postgres: stack.postgresPid,
    temporal: stack.temporal.process.pid!,
    bench: process.pid,
  };
}

/** CPU milliseconds so far of each of `owners` (this process's own only: its tree holds the others). */
function cpuNow(owners: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(owners).map(([name, pid]) => [
      name,
      name === 'bench' ? ownCpuMillisOf(pid) : cpuMillisOf(pid),
    ]),
  );
}

const cpuLine = (label: string, perJob: Record<string, number>) =>
  `  ${label.padEnd(44)} CPU ms per job: ${Object.entries(perJob)
    .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
    .join(', ')}`;

const perJobOf = (before: Record<string, number>, after: Record<string, number>, count: number) =>
  Object.fromEntries(
    Object.keys(after).map((name) => [name, ((after[name] ?? 0) - (before[name] ?? 0)) / count]),
  );

/**
 * Runs the per-intent payments benchmark (P2 of `npm run bench`, `--mode intent`) in `options.topology`: starts its
 * stack and the service, measures (module note), prints the detail lines to `options.log`, stops everything it
 * started and returns the figures. Errors: a server that does not start, a seeding call that fails.
 */
export async function runPaymentsBenchmark(options: PaymentsOptions): Promise<PaymentsFigures> {
  const { intents, concurrency, loans: loanCount, topology, log } = options;
  const measure = (count: number, job: (index: number) => Promise<void>) =>
    measureConcurrent({ concurrency, count, log }, job);
  const stack = await startBenchStack('lending-bench-payments-');
  try {
    const credential = await benchCredential(stack);
    const apiProcesses = availableParallelism();
    const service = await startService(stack, {
      topology,
      env: serviceEnv,
      apiProcesses,
      logName: 'payments',
    });
    const baseUrl = service.baseUrl;

    // Loans to pay: each ACTIVE with its whole balance owed, and its borrower's verified instrument.
    const loans: { loanId: number; instrumentId: number }[] = [];
    for (let i = 0; i < loanCount; i++) {
      const boarded = await runLendingDemoFlow(baseUrl, credential, () => {}, { historyPayments: 0 });
      loans.push({ loanId: boarded.loanId, instrumentId: boarded.instrumentId });
    }
    const session = {
      baseUrl,
      accessToken: await requestToken(baseUrl, credential, 'lending:read lending:write', () => {}),
      tenant,
      actor: 'bench',
    };
    const today = new Date().toISOString().slice(0, 10);
    const json = async (response: Response, expected: number) => {
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== expected) throw new Error(`${response.status}: ${JSON.stringify(body)}`);
      return body;
    };
    /** `POST /v1/loans/{loanId}/payments`: the intent's creation alone; its id. */
    const createIntent = async (index: number): Promise<number> => {
      const loan = loans[index % loans.length]!;
      const createdIntent = await json(
        await apiRequest(
          session,
          'POST',
          `/v1/loans/${loan.loanId}/payments`,
          {
            instrumentId: loan.instrumentId,
            amount: '1.00',
            currency: 'USD',
            rail: 'ACH',
            effectiveDate: today,
            source: 'bench',
          },
          `bench-intent-${index}-${Date.now().toString(36)}`,
        ),
        201,
      );
      return createdIntent.paymentId as number;
    };
    const intentLife = async (index: number) => {
      const paymentId = await createIntent(index);
      // The simulation is accepted once the submission is due (today: at once) and answers when it is posted.
      const settled = await json(
        await apiRequest(session, 'POST', `/v1/sandbox/payments/${paymentId}/settle`, {}),
        200,
      );
      if (settled.status !== 'POSTED')
        throw new Error(`payment ${paymentId} is ${String(settled.status)} after settlement`);
    };

    log(
      `bench:payments intent — ${topologyLabel(topology, apiProcesses)}; ${intents} intents over ${loanCount} loans and ${intents} empty workflows, ${concurrency} in flight, ${availableParallelism()} cores; rate limits raised to 1,000,000/s`,
    );
    // Warm-up (prepared statements, caches, the workflow bundle), not measured.
    await measure(Math.min(20, intents), intentLife);
    const owners = cpuOwners(stack, service);
    /** CPU milliseconds per job of each process during `run` (the bench process includes its own HTTP client). */
    const withCpu = async (count: number, job: (index: number) => Promise<void>) => {
      const before = cpuNow(owners);
      const run = await measure(count, job);
      return { run, perJob: perJobOf(before, cpuNow(owners), count) };
    };
    const measured = await withCpu(intents, intentLife);
    const { emptyLife } = await startBaseline(stack);
    await measure(Math.min(20, intents), emptyLife);
    const baseline = await withCpu(intents, emptyLife);
    // The API's own cost apart from the bench's settle request (which holds its connection until the intent is
    // POSTED): creations alone, measured last so that the intents they leave waiting for settlement disturb nothing.
    const creation = await withCpu(intents, async (index) => {
      await createIntent(index + intents);
    });
    log(line('payment intent end to end (API → posted)', measured.run));
    log(line('empty one-activity workflow (baseline)', baseline.run));
    log(cpuLine('payment intent', measured.perJob));
    log(cpuLine('payment intent creation only (POST, no settle)', creation.perJob));
    log(cpuLine('empty workflow (its worker runs in bench)', baseline.perJob));
    const lines = async (file: string) =>
      (await readFile(path.join(stack.dataDir, file), 'utf8').catch(() => '')).split('\n').length - 1;
    log(
      topology === 'production'
        ? `  (at LOG_LEVEL=info the API wrote ${await lines('payments-api.log')} log lines, the worker ${await lines('payments-worker.log')})`
        : `  (at LOG_LEVEL=info the service wrote ${await lines('payments-service.log')} log lines)`,
    );
    const ratio = measured.run.perSecond / baseline.run.perSecond;
    log(`  ratio ${ratio.toFixed(2)} (target ≥ 0.60: ${ratio >= 0.6 ? 'meets' : 'MISSES'})`);
    return {
      intents: measured.run,
      emptyWorkflow: baseline.run,
      count: intents,
      concurrency,
      topology,
      cpuPerIntent: measured.perJob,
      cpuPerIntentCreation: creation.perJob,
      cpuPerEmptyWorkflow: baseline.perJob,
    };
  } finally {
    await stack.stop();
  }
}

/** What `runAutopayDayBenchmark` is asked to do. */
export interface AutopayDayOptions {
  /** Enrolments collecting today, and as many empty workflows; default 10,000. */
  enrolments: number;
  /** Process starts (and empty workflows) in flight at once; default 64. */
  concurrency: number;
  topology: Topology;
  log: BenchLog;
  /** Longest wait for every intent to be posted, seconds; default 300 + enrolments / 2. */
  timeoutSeconds?: number;
}

/** Seconds from the trigger until every one was reached, and the rate that makes. */
export interface Throughput {
  seconds: number;
  perSecond: number;
}

/** The autopay day: intents submitted and posted per second, and the empty workflows' rate on the same server. */
export interface AutopayDayFigures {
  enrolments: number;
  submitted: Throughput;
  posted: Throughput;
  emptyWorkflow: Throughput;
  topology: Topology;
  /** CPU milliseconds per enrolment (trigger to POSTED) of each process measured. */
  cpuPerEnrolment: Record<string, number>;
}

/**
 * Runs the autopay-day benchmark (P2 of `npm run bench`, `--mode autopay-day`) in `options.topology` (module note):
 * seeds the loans and enrolments, starts the N autopay processes, polls until every intent is SUBMITTED and then
 * POSTED, runs the baseline, prints the detail lines and returns the figures. Errors: a server that does not start,
 * a seeding call that fails, an intent FAILED or CANCELLED, intents not all posted within the timeout (the error
 * says how many got where).
 */
export async function runAutopayDayBenchmark(options: AutopayDayOptions): Promise<AutopayDayFigures> {
  const { enrolments, concurrency, topology, log } = options;
  const timeoutMs = (options.timeoutSeconds ?? 300 + enrolments / 2) * 1000;
  const stack = await startBenchStack('lending-bench-autopay-');
  const sql = postgres(stack.postgresUrl, { max: 2, onnotice: () => {} });
  stack.onStop(() => sql.end({ timeout: 1 }));
  try {
    const credential = await benchCredential(stack);
    const apiProcesses = availableParallelism();
    const service = await startService(stack, {
      topology,
      env: serviceEnv,
      apiProcesses,
      logName: 'autopay',
    });
    const session = {
      baseUrl: service.baseUrl,
      // The portfolio's set-up (bench/cob-seed.ts) also configures servicing (case types).
      accessToken: await requestToken(
        service.baseUrl,
        credential,
        'lending:read lending:write servicing:read servicing:write',
        () => {},
      ),
      tenant,
      actor: 'bench',
    };
    const call = async (method: string, url: string, body: unknown, expected: number, key?: string) => {
      const response = await apiRequest(session, method, url, body, key);
      const parsed = (await response.json()) as Record<string, unknown>;
      if (response.status !== expected)
        throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(parsed)}`);
      return parsed;
    };
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = addDays(today, -1);
    log(
      `bench:payments autopay-day — ${topologyLabel(topology, apiProcesses)}; ${enrolments.toLocaleString('en-US')} enrolments collecting today (${today}), ${concurrency} process starts in flight, ${availableParallelism()} cores`,
    );

    // 1. The loans: the templates through the API, the copies in SQL (bench/cob-seed.ts); one more loan than
    // measured, whose enrolment goes through the API and is the one copied.
    const t0 = performance.now();
    const seeded = await seedPortfolio({ session, sql, tenant, count: enrolments + 1, today, say: log });
    const [apiEnrolled, ...measuredLoans] = seeded.loanIds;
    if (apiEnrolled === undefined || measuredLoans.length !== enrolments)
      throw new Error(`seeded ${seeded.loanIds.length} loans, expected ${enrolments + 1}`);
    // 2. A verified instrument for each template borrower, through the API.
    const borrowers = await sql<{ client_id: string }[]>`
      select distinct client_id::text from loans
      where tenant_id = ${tenant} and id = any(${seeded.templateLoanIds}::bigint[])`;
    const instrumentOf = new Map<string, number>();
    for (const { client_id: customerId } of borrowers) {
      const instrument = await call(
        'POST',
        `/v1/customers/${customerId}/payment-instruments`,
        {
          instrumentType: 'BANK_ACCOUNT',
          providerTokenRef: `tok_vault_bench_${customerId}`,
          lastFour: '6789',
        },
        201,
        `bench-instrument-${customerId}`,
      );
      const instrumentId = instrument.instrumentId as number;
      await call(
        'POST',
        `/v1/customers/${customerId}/payment-instruments/${instrumentId}/verification`,
        { verificationSource: 'LEGACY_SYSTEM_MICRO_DEPOSITS', verifiedAt: `${yesterday}T16:00:00Z` },
        200,
        `bench-verify-${customerId}`,
      );
      instrumentOf.set(customerId, instrumentId);
    }
    // 3. One enrolment through the API, then its row copied in SQL to the measured loans (module note).
    const [apiLoan] = await sql<{ client_id: string }[]>`
      select client_id::text from loans where tenant_id = ${tenant} and id = ${apiEnrolled}`;
    const enrolled = await call(
      'POST',
      `/v1/loans/${apiEnrolled}/autopay`,
      {
        instrumentId: instrumentOf.get(apiLoan!.client_id),
        authorizationRef: 'bench-autopay-auth-1',
        rail: 'RTP',
        amountType: 'INSTALLMENT_DUE',
        daysBeforeDue: 0,
      },
      201,
      'bench-enrol',
    );
    const templateEnrolmentId = enrolled.enrolmentId as number;
    const copied = await sql`
      insert into autopay_enrolments (tenant_id, loan_id, instrument_id, authorization_ref, rail, amount_type,
        fixed_amount, days_before_due, status, enrolled_at, enrolled_on, actor_username, request_key, updated_at)
      select e.tenant_id, l.id, i.id, e.authorization_ref, e.rail, e.amount_type, e.fixed_amount, e.days_before_due,
        e.status, e.enrolled_at - interval '1 day', ${yesterday}::date, e.actor_username, null, e.updated_at
      from autopay_enrolments e
      join loans l on l.tenant_id = e.tenant_id and l.id = any(${measuredLoans}::bigint[])
      join payment_instruments i on i.tenant_id = e.tenant_id and i.customer_id = l.client_id
        and i.id = any(${[...instrumentOf.values()]}::bigint[])
      where e.tenant_id = ${tenant} and e.id = ${templateEnrolmentId}`;
    if (copied.count !== enrolments)
      throw new Error(`copied ${copied.count} enrolments, expected ${enrolments}`);
    await sql`analyze autopay_enrolments`;
    const enrolmentRows = await sql<{ id: string; loan_id: string; account_no: string }[]>`
      select e.id::text, e.loan_id::text, l.account_no from autopay_enrolments e
      join loans l on l.tenant_id = e.tenant_id and l.id = e.loan_id
      where e.tenant_id = ${tenant} and e.id <> ${templateEnrolmentId} order by e.id`;
    log(
      `  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${seeded.templateLoanIds.length} template loans, ${borrowers.length} instruments and 1 enrolment through the API; ${seeded.loanIds.length - seeded.templateLoanIds.length} loan copies and ${enrolments} enrolment copies in SQL`,
    );

    // 4. The day: every measured loan's autopay process starts (standing for its timer firing at 00:00 UTC).
    const connection = await Connection.connect({ address: stack.temporal.address });
    stack.onStop(() => connection.close());
    const client = new Client({ connection });
    const counts = async () => {
      const [row] = await sql<{ created: string; submitted: string; posted: string; failed: string }[]>`
        select count(*)::text as created, count(*) filter (where status in ('SUBMITTED', 'POSTED', 'RETURNED'))::text as submitted,
          count(*) filter (where status = 'POSTED')::text as posted,
          count(*) filter (where status in ('FAILED', 'CANCELLED'))::text as failed
        from payments where tenant_id = ${tenant} and source = 'AUTOPAY'`;
      return {
        created: Number(row!.created),
        submitted: Number(row!.submitted),
        posted: Number(row!.posted),
        failed: Number(row!.failed),
      };
    };
    const owners = cpuOwners(stack, service);
    const cpuBefore = cpuNow(owners);
    const started = performance.now();
    const starting = measureConcurrent({ concurrency, count: enrolments, log }, async (index) => {
      const row = enrolmentRows[index]!;
      await client.workflow.start(
        'autopayWorkflow',
        workflowStartOptions(
          autopayStartSpec({
            tenantId: tenant,
            loanId: Number(row.loan_id),
            loanRef: row.account_no,
            enrolmentId: Number(row.id),
            lastInstallmentNumber: 0,
          }),
        ),
      );
    });
    let submittedAt: number | null = null;
    let postedAt: number | null = null;
    while (postedAt === null) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = performance.now();
      const seen = await counts();
      if (submittedAt === null && seen.submitted >= enrolments) submittedAt = now;
      if (seen.posted >= enrolments) postedAt = now;
      if (seen.failed > 0) throw new Error(`${seen.failed} autopay intents failed or were cancelled`);
      if (now - started > timeoutMs)
        throw new Error(
          `after ${(timeoutMs / 1000).toFixed(0)} s: ${seen.created} of ${enrolments} intents created, ${seen.submitted} submitted, ${seen.posted} posted`,
        );
    }
    const startRun = await starting;
    if (startRun.failures > 0) throw new Error(`${startRun.failures} autopay processes did not start`);
    const cpuPerEnrolment = perJobOf(cpuBefore, cpuNow(owners), enrolments);
    const throughput = (at: number): Throughput => {
      const seconds = (at - started) / 1000;
      return { seconds, perSecond: enrolments / seconds };
    };
    const submitted = throughput(submittedAt!);
    const posted = throughput(postedAt);

    // 5. The baseline: N empty one-activity workflows on the same server, the same concurrency.
    const { emptyLife } = await startBaseline(stack);
    await measureConcurrent({ concurrency, count: Math.min(100, enrolments), log }, emptyLife);
    const baselineStarted = performance.now();
    const baselineRun = await measureConcurrent({ concurrency, count: enrolments, log }, emptyLife);
    if (baselineRun.failures > 0) throw new Error(`${baselineRun.failures} empty workflows failed`);
    const baselineSeconds = (performance.now() - baselineStarted) / 1000;
    const emptyWorkflow = { seconds: baselineSeconds, perSecond: enrolments / baselineSeconds };

    const rate = (label: string, t: Throughput) =>
      `  ${label.padEnd(44)} ${`${t.perSecond.toFixed(0)}/s`.padStart(7)}  (all ${enrolments.toLocaleString('en-US')} in ${t.seconds.toFixed(1)} s)`;
    log(rate('autopay day: every intent SUBMITTED', submitted));
    log(rate('autopay day: every intent POSTED', posted));
    log(rate('empty one-activity workflow (baseline)', emptyWorkflow));
    log(cpuLine('autopay enrolment (trigger → POSTED)', cpuPerEnrolment));
    const ratio = (t: Throughput) => t.perSecond / emptyWorkflow.perSecond;
    log(
      `  ratios: submitted ${ratio(submitted).toFixed(2)}, posted ${ratio(posted).toFixed(2)} (target ≥ 0.60: ${ratio(posted) >= 0.6 ? 'meets' : 'MISSES'})`,
    );
    return { enrolments, submitted, posted, emptyWorkflow, topology, cpuPerEnrolment };
  } finally {
    await stack.stop();
  }
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      mode: { type: 'string', default: 'intent' },
      topology: { type: 'string', default: 'both' },
      intents: { type: 'string', default: '300' },
      concurrency: { type: 'string' },
      loans: { type: 'string', default: '8' },
      enrolments: { type: 'string', default: '10000' },
    },
  });
  const whole = (name: string, text: string) => {
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`--${name} must be a whole number ≥ 1`);
    return value;
  };
  if (values.mode !== 'intent' && values.mode !== 'autopay-day')
    throw new RangeError('--mode must be intent or autopay-day');
  if (values.topology !== 'production' && values.topology !== 'single' && values.topology !== 'both')
    throw new RangeError('--topology must be production, single or both');
  const chosen: readonly Topology[] = values.topology === 'both' ? topologies : [values.topology];
  const log = (text: string) => console.log(text);
  for (const topology of chosen) {
    if (values.mode === 'intent') {
      await runPaymentsBenchmark({
        intents: whole('intents', values.intents),
        concurrency: whole('concurrency', values.concurrency ?? '16'),
        loans: whole('loans', values.loans),
        topology,
        log,
      });
    } else {
      await runAutopayDayBenchmark({
        enrolments: whole('enrolments', values.enrolments),
        concurrency: whole('concurrency', values.concurrency ?? '64'),
        topology,
        log,
      });
    }
  }
}
