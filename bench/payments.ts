/**
 * `npm run bench:payments` (target docs/design.md §6): payment intents end to end per second, side by side
 * with an empty one-activity workflow on the same Temporal server, in one run, on this machine. Prints figures
 * only; nothing here is a test.
 *
 * What it starts (and stops, by pid, at the end): an embedded PostgreSQL and a Temporal dev server in a temporary
 * folder; the service's API (`scripts/start-api.ts`, one process) and a worker (`scripts/start-worker.ts --queues
 * lending`), both in sandbox; and, in this process, a worker for the baseline workflow (bench/workflows/empty.ts).
 * It boards `--loans` loans through the public routes (scripts/lending-demo-flow.ts, no payment history: each
 * ACTIVE with its whole balance owed), then measures, with `--concurrency` intents in flight:
 * - one intent end to end: `POST /v1/loans/{loanId}/payments` (ACH, today, 1.00 from the borrower's verified
 *   instrument) → at once `POST /v1/sandbox/payments/{paymentId}/settle`, which the workflow queues until it has
 *   submitted the payment to the sandbox rail and answers once it has posted it (allocation, journal and the
 *   `payment.posted` outbox row in one transaction): intents per second, p50 and p99 of that whole life;
 * - the baseline: start `emptyOneActivityWorkflow` and wait for its result, the same number with the same
 *   concurrency: workflows per second.
 * Then the ratio (target ≥ 0.6).
 *
 * Usage: npm run bench:payments [-- --intents 300 --concurrency 16 --loans 8]. `runPaymentsBenchmark` is what
 * `npm run bench` (bench/index.ts) calls.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createPlatformOperations } from '../activities';
import { freePort } from '../db/embedded';
import { apiRequest, requestToken } from '../scripts/http-client';
import { runLendingDemoFlow } from '../scripts/lending-demo-flow';
import { operationDeps, projectRoot } from '../workers/config';
import { installTemporalRuntime } from '../workers/stack';
import {
  type BenchLog,
  type ConcurrentRun,
  cpuMillisOf,
  isMainModule,
  measureConcurrent,
  option,
  ownCpuMillisOf,
  startBenchStack,
  startProcess,
  stopProcess,
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
  log: BenchLog;
}

/** Payment intents end to end and the empty one-activity workflow, each per second with p50/p99 (ms). */
export interface PaymentsFigures {
  intents: ConcurrentRun;
  emptyWorkflow: ConcurrentRun;
  count: number;
  concurrency: number;
}

const line = (label: string, run: ConcurrentRun) =>
  `  ${label.padEnd(44)} ${`${Math.round(run.perSecond)}/s`.padStart(7)}  p50 ${run.p50.toFixed(0).padStart(5)} ms  p99 ${run.p99.toFixed(0).padStart(5)} ms${run.failures ? `  (${run.failures} failed)` : ''}`;

/**
 * Runs the payments benchmark (P2 of `npm run bench`): starts its stack, measures, prints the detail lines to
 * `options.log`, stops everything it started and returns the figures.
 */
export async function runPaymentsBenchmark(options: PaymentsOptions): Promise<PaymentsFigures> {
  const { intents, concurrency, loans: loanCount, log } = options;
  const measure = (count: number, job: (index: number) => Promise<void>) =>
    measureConcurrent({ concurrency, count, log }, job);
  const stack = await startBenchStack('lending-bench-payments-');
  const { dataDir, config, db, temporal } = stack;
  try {
    const created = await createPlatformOperations(operationDeps(db, config)).createClient({
      tenantId: tenant,
      environment: 'sandbox',
      scopes: ['lending:read', 'lending:write'],
      permissions: ['ALL'],
      rateLimitPerSecond: 1_000_000,
      createTenant: true,
    });
    const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: stack.postgresUrl,
      TEMPORAL_ADDRESS: temporal.address,
      SERVICE_ENVIRONMENT: 'sandbox',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_SECOND: '1000000',
      API_PROCESSES: '1',
    };
    const port = await freePort();
    const api = await startProcess(
      ['scripts/start-api.ts'],
      { ...env, PORT: String(port) },
      'API ready at',
      path.join(dataDir, 'api.log'),
    );
    stack.onStop(() => stopProcess(api));
    const worker = await startProcess(
      ['scripts/start-worker.ts', '--queues', 'lending'],
      env,
      'Worker ready',
      path.join(dataDir, 'worker.log'),
    );
    stack.onStop(() => stopProcess(worker));
    const baseUrl = `http://127.0.0.1:${port}`;

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
    const intentLife = async (index: number) => {
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
      const paymentId = createdIntent.paymentId as number;
      // The simulation is accepted once the submission is due (today: at once) and answers when it is posted.
      const settled = await json(
        await apiRequest(session, 'POST', `/v1/sandbox/payments/${paymentId}/settle`, {}),
        200,
      );
      if (settled.status !== 'POSTED')
        throw new Error(`payment ${paymentId} is ${String(settled.status)} after settlement`);
    };

    log(
      `bench:payments — ${intents} intents over ${loanCount} loans and ${intents} empty workflows, ${concurrency} in flight, ${availableParallelism()} cores; API 1 process, worker 1 process (lending queue); rate limits raised to 1,000,000/s`,
    );
    // Warm-up (prepared statements, caches, the workflow bundle), not measured.
    await measure(Math.min(20, intents), intentLife);
    const postmaster = stack.postgresPid;
    const owners = {
      api: api.pid!,
      worker: worker.pid!,
      postgres: postmaster,
      temporal: temporal.process.pid!,
      bench: process.pid,
    };
    /** CPU milliseconds per job of each process during `run` (the bench process includes its own HTTP client). */
    const withCpu = async (count: number, job: (index: number) => Promise<void>) => {
      // The bench process's own CPU only: its tree holds every other process measured here.
      const cpu = () =>
        Object.fromEntries(
          Object.entries(owners).map(([name, pid]) => [
            name,
            name === 'bench' ? ownCpuMillisOf(pid) : cpuMillisOf(pid),
          ]),
        );
      const before = cpu();
      const run = await measure(count, job);
      const after = cpu();
      const perJob = Object.fromEntries(
        Object.keys(after).map((name) => [name, ((after[name] ?? 0) - (before[name] ?? 0)) / count]),
      );
      return { run, perJob };
    };
    const service = await withCpu(intents, intentLife);
    // The baseline's worker, in this process, on its own queue of the same server.
    installTemporalRuntime();
    const baselineQueue = 'bench-empty-workflow';
    const nativeConnection = await NativeConnection.connect({ address: temporal.address });
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
    const connection = await Connection.connect({ address: temporal.address });
    stack.onStop(() => connection.close());
    const client = new Client({ connection });
    const emptyLife = async (index: number) => {
      await client.workflow.execute('emptyOneActivityWorkflow', {
        taskQueue: baselineQueue,
        workflowId: `bench-empty-${Date.now().toString(36)}-${index}`,
      });
    };

    await measure(Math.min(20, intents), emptyLife);
    const baseline = await withCpu(intents, emptyLife);
    log(line('payment intent end to end (API → posted)', service.run));
    log(line('empty one-activity workflow (baseline)', baseline.run));
    const cpuLine = (label: string, perJob: Record<string, number>) =>
      `  ${label.padEnd(44)} CPU ms per job: ${Object.entries(perJob)
        .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
        .join(', ')}`;
    log(cpuLine('payment intent', service.perJob));
    log(cpuLine('empty workflow (its worker runs in bench)', baseline.perJob));
    const lines = async (file: string) =>
      (await readFile(path.join(dataDir, file), 'utf8')).split('\n').length - 1;
    log(
      `  (at LOG_LEVEL=info the API wrote ${await lines('api.log')} log lines, the worker ${await lines('worker.log')})`,
    );
    const ratio = service.run.perSecond / baseline.run.perSecond;
    log(`  ratio ${ratio.toFixed(2)} (target ≥ 0.60: ${ratio >= 0.6 ? 'meets' : 'MISSES'})`);
    return { intents: service.run, emptyWorkflow: baseline.run, count: intents, concurrency };
  } finally {
    await stack.stop();
  }
}

if (isMainModule(import.meta.url)) {
  await runPaymentsBenchmark({
    intents: option('intents', 300),
    concurrency: option('concurrency', 16),
    loans: option('loans', 8),
    log: (text) => console.log(text),
  });
}
