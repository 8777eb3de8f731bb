/**
 * `npm run bench:cob -- --loans N [--catch-up-loans 2000] [--rate 20] [--idle-seconds 20] [--api-processes 1]
 * [--timeout-minutes 20]`
 * (docs/processes.md P7 "Scale": 100,000 active loans closed for one day in ≤ 5 minutes on the 2-core machine,
 * read-path p99 during the run ≤ 2 × its idle p99). It prints figures beside their targets and a same-run baseline;
 * nothing here is a vitest test.
 *
 * What it starts (and stops, by pid / process group, at the end): an embedded PostgreSQL and a Temporal dev server
 * in a temporary folder (bench/support.ts `startBenchStack`), one API process (`scripts/start-api.ts`) and one
 * worker process (`scripts/start-worker.ts`, every queue), as production runs them; a tenant and a client with
 * every permission, its rate limit raised to 1,000,000/s.
 *
 * 1. Seeds N active loans as a portfolio closed every day before (bench/cob-seed.ts: templates through the API,
 *    disbursed about 8 months ago at four due-date phases, from current to never paid, on a product with a
 *    delinquency bucket, an overdue penalty and charge-off at 120 days; the templates closed through the day before
 *    yesterday by a run of their own; the rest copied in SQL with what that close wrote) and checks the copies and
 *    the trial balance. `--catch-up-loans` of the N are copied before the templates' close, so never closed.
 * 2. The baseline: one SQL pass reading every active loan's installments (run twice, the second timed).
 * 2b. The first close: the never-closed copies closed through the day before yesterday by runs of named loans
 *    (`loanIds`, 1,000 a run, the runs at once): wall time and loans/s of a catch-up over 8 months (penalties on
 *    every missed installment, charge-offs, re-posts), then the books checked again. After it every loan is closed
 *    through the day before yesterday, so the measured run below is a daily close.
 * 3. Idle: a paced read load (`--rate` GETs a second of `GET /v1/loans/{loanId}/summary`, random seeded loans,
 *    open loop) for `--idle-seconds`: p50/p99.
 * 4. The run: `POST /v1/cob/runs {businessDate: yesterday in the tenant's time zone}`, then `GET
 *    /v1/cob/runs/{runId}` every second until it is not RUNNING, with the same read load: wall time (from the
 *    POST to the first answer not RUNNING), loans/s (loans whose `lastClosedBusinessDate` is that day, counted in
 *    PostgreSQL, also every 10 s as progress), the peak resident set of the worker's and the API's process trees
 *    (sampled every 500 ms from /proc), p50/p99 during the run, and what the day did (penalties, range changes,
 *    charge-offs, notices: rows and events written for that day).
 *
 * Exit code 0 when the run completed (whatever the figures: they are printed beside their targets), 1 when it
 * failed or was not done after `--timeout-minutes` (the figures up to then are printed, with the time all N loans
 * would take at the rate reached), 2 when the set-up failed or the service has no `POST /v1/cob/runs` (the figures
 * of steps 1–3 are still printed). SIGINT or SIGTERM stops what it started (by pid) before it exits.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { createPlatformOperations } from '../activities';
import { freePort } from '../db/embedded';
import { addDays } from '../domain/calendar';
import {
  memoryOf,
  processTree,
  type Started,
  startChild,
  stopChild,
  tsxBin,
} from '../scripts/boarding-run-support';
import { tenantToday } from '../scripts/delinquency-demo-flow';
import { type ApiSession, requestToken } from '../scripts/http-client';
import { operationDeps } from '../workers/config';
import {
  CobRoutesMissing,
  type CobRun,
  checkPortfolio,
  latencySummary,
  pacedReads,
  seedPortfolio,
  sqlPassBaseline,
  startCobRun,
  waitForCobRun,
  yesterdayIn,
} from './cob-seed';
import { isMainModule, option, startBenchStack } from './support';

const tenant = 'benchcob';

/** Resident set (MiB) of `root`'s process tree now; 0 when it is gone. */
function treeRssMiB(root: number): number {
  let kib = 0;
  for (const pid of processTree(root)) kib += memoryOf(pid)?.rssKiB ?? 0;
  return kib / 1024;
}

/** Samples the trees' RSS every 500 ms until `stop()`, which answers each tree's peak (MiB). */
function peakRss(roots: Record<string, number>): { stop(): Record<string, number> } {
  const peaks: Record<string, number> = Object.fromEntries(Object.keys(roots).map((k) => [k, 0]));
  const sample = () => {
    for (const [name, pid] of Object.entries(roots)) peaks[name] = Math.max(peaks[name]!, treeRssMiB(pid));
  };
  sample();
  const timer = setInterval(sample, 500);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

/** What `runCobBenchmark` is told. */
export interface CobBenchOptions {
  loans: number;
  /** Of `loans`, how many are never closed before the first-close sample (2b). */
  catchUpLoans: number;
  /** Paced reads per second (idle and during the run). */
  ratePerSecond: number;
  idleSeconds: number;
  apiProcesses: number;
  timeoutMinutes: number;
  log: (line: string) => void;
}

/** Stops what a running benchmark started (set while one runs), for SIGINT and SIGTERM. */
let stopStarted: (() => Promise<void>) | null = null;

/** Runs the benchmark (module note); answers the exit code. */
export async function runCobBenchmark(options: CobBenchOptions): Promise<number> {
  const { loans, ratePerSecond, idleSeconds, log } = options;
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  const stack = await startBenchStack('lending-bench-cob-');
  let api: Started | null = null;
  let worker: Started | null = null;
  const sql = postgres(stack.postgresUrl, { max: 4, onnotice: () => {} });
  let stopped = false;
  const stopAll = async () => {
    if (stopped) return;
    stopped = true;
    await sql.end({ timeout: 1 }).catch(() => {});
    for (const child of [api, worker]) if (child) await stopChild(child, 30_000);
    await stack.stop();
  };
  stopStarted = stopAll;
  try {
    const created = await createPlatformOperations(operationDeps(stack.db, stack.config)).createClient({
      tenantId: tenant,
      environment: 'sandbox',
      scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
      permissions: ['ALL'],
      rateLimitPerSecond: 1_000_000,
      createTenant: true,
    });
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: stack.dataDir,
      DATABASE_URL: stack.postgresUrl,
      TEMPORAL_ADDRESS: stack.temporal.address,
      SERVICE_ENVIRONMENT: 'sandbox',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '1000000',
      SEARCH_RATE_LIMIT_PER_SECOND: '1000000',
      API_PROCESSES: String(options.apiProcesses),
    };
    worker = await startChild(tsxBin, ['scripts/start-worker.ts'], {
      env,
      ready: 'Worker ready',
      timeoutMs: 180_000,
    });
    api = await startChild(tsxBin, ['scripts/start-api.ts'], { env, ready: 'API ready', timeoutMs: 120_000 });
    const baseUrl = `http://127.0.0.1:${port}`;
    const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
    const session: ApiSession = {
      baseUrl,
      accessToken: await requestToken(
        baseUrl,
        credential,
        'lending:read lending:write servicing:read servicing:write',
        () => {},
      ),
      tenant,
      actor: 'bench.cob',
    };
    const businessDate = yesterdayIn();
    const closedThrough = addDays(businessDate, -1);
    log(
      `bench:cob — ${loans.toLocaleString('en-US')} loans, ${availableParallelism()} cores, API pid ${api.pid} (${options.apiProcesses} process(es)), worker pid ${worker.pid}; business date ${businessDate} (yesterday, America/Los_Angeles)`,
    );

    // 1. the portfolio
    log('seeding:');
    const seeded = await seedPortfolio({
      session,
      sql,
      tenant,
      count: loans,
      today: tenantToday(),
      closedThrough,
      catchUpCount: options.catchUpLoans,
      say: log,
    });
    const copies = loans - seeded.templateLoanIds.length;
    const books = await checkPortfolio(sql, tenant);
    log(
      `  ${seeded.loanIds.length.toLocaleString('en-US')} active loans; copies ${(copies / Math.max(seeded.copySeconds, 0.001)).toFixed(0)} loans/s in SQL; ${books.journalLines.toLocaleString('en-US')} journal lines, Σ debit ${books.debit} = Σ credit ${books.credit}: ${books.problems.length === 0 ? 'consistent, trial balance zero' : `PROBLEMS: ${books.problems.join('; ')}`}`,
    );
    if (books.problems.length > 0) return 2;

    // 2. the baseline
    await sqlPassBaseline(sql, tenant);
    const baseline = await sqlPassBaseline(sql, tenant);
    log(
      `baseline: one SQL pass reading every active loan's installments: ${baseline.seconds.toFixed(2)} s, ${baseline.loans.toLocaleString('en-US')} loans (${baseline.installments.toLocaleString('en-US')} installments), ${Math.round(baseline.loansPerSecond).toLocaleString('en-US')} loans/s`,
    );

    // 2b. the first close of never-closed loans, on a sample
    if (seeded.catchUpLoanIds.length > 0) {
      const sample = seeded.catchUpLoanIds;
      const t = performance.now();
      const batches: number[][] = [];
      for (let i = 0; i < sample.length; i += 1000) batches.push(sample.slice(i, i + 1000));
      const runs = await Promise.all(
        batches.map((loanIds, i) =>
          startCobRun(
            session,
            { businessDate: closedThrough, loanIds },
            `bench-cob-catch-up-${Date.now().toString(36)}-${i}`,
          ),
        ),
      );
      const done: CobRun[] = await Promise.all(
        runs.map((r) => waitForCobRun(session, r.runId, { timeoutMs: options.timeoutMinutes * 60_000 })),
      );
      const seconds = (performance.now() - t) / 1000;
      const counts = done.reduce(
        (sum, r) => ({
          total: sum.total + r.loans.total,
          processed: sum.processed + r.loans.processed,
          failed: sum.failed + r.loans.failed,
        }),
        { total: 0, processed: 0, failed: 0 },
      );
      const after = await checkPortfolio(sql, tenant);
      log(
        `first close (catch-up of never-closed loans disbursed ~8 months ago, through ${closedThrough}): ${sample.length.toLocaleString('en-US')} loans in ${done.length} run(s) (${done.map((r) => r.status).join(', ')}; ${JSON.stringify(counts)}) in ${seconds.toFixed(1)} s: ${(counts.processed / seconds).toFixed(1)} loans/s; books after it: ${after.problems.length === 0 ? 'consistent, trial balance zero' : `PROBLEMS: ${after.problems.join('; ')}`}`,
      );
    }
    const [notClosed] = await sql<{ n: number }[]>`
      select count(*)::int as n from loans where tenant_id = ${tenant} and status = 'ACTIVE'
        and (last_closed_business_date is null or last_closed_business_date <> ${closedThrough})`;
    log(
      `  before the daily run: ${notClosed!.n} active loans not closed through ${closedThrough} (0: the run of ${businessDate} is a daily close)`,
    );

    // 3. idle reads
    const headers = { authorization: `Bearer ${session.accessToken}`, 'service-tenant': tenant };
    const urlOf = () =>
      `${baseUrl}/v1/loans/${seeded.loanIds[Math.floor(Math.random() * seeded.loanIds.length)]}/summary`;
    const idleLoad = pacedReads(urlOf, headers, ratePerSecond);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idleSamples = await idleLoad.stop();
    const idle = latencySummary(idleSamples);
    log(
      `idle: ${idle.count} summary reads at ${ratePerSecond}/s over ${idleSeconds} s: p50 ${ms(idle.p50)}, p99 ${ms(idle.p99)}${idleSamples.failures ? ` (${idleSamples.failures} failed: ${idleSamples.failureNotes.join('; ')})` : ''}`,
    );

    // 4. the run, under the same load
    const memory = peakRss({ worker: worker.pid, api: api.pid });
    const duringLoad = pacedReads(urlOf, headers, ratePerSecond);
    const t0 = performance.now();
    const runStartedAt = new Date();
    const closedNow = async () => {
      const [row] = await sql<{ closed: number; active: number }[]>`
        select count(*) filter (where last_closed_business_date = ${businessDate})::int as closed,
               count(*)::int as active
        from loans where tenant_id = ${tenant} and status = 'ACTIVE'`;
      return row!;
    };
    let started: CobRun;
    try {
      started = await startCobRun(session, { businessDate }, `bench-cob-${Date.now().toString(36)}`);
    } catch (err) {
      await duringLoad.stop();
      memory.stop();
      if (err instanceof CobRoutesMissing) {
        log(`COB run: NOT MEASURED — ${err.message}`);
        return 2;
      }
      log(`COB run: FAILED — ${(err as Error).message}`);
      return 1;
    }
    log(
      `run ${started.runId} started (status ${started.status}); progress every 10 s (loans closed, from PostgreSQL):`,
    );
    let lastPolled: CobRun = started;
    const progress = setInterval(() => {
      void closedNow()
        .then((now) => {
          const s = (performance.now() - t0) / 1000;
          log(
            `  ${s.toFixed(0).padStart(5)} s  ${now.closed.toLocaleString('en-US')} of ${now.active.toLocaleString('en-US')} closed (${(now.closed / s).toFixed(0)}/s); run ${lastPolled.status} ${JSON.stringify(lastPolled.loans)}; worker RSS ${treeRssMiB(worker!.pid).toFixed(0)} MiB`,
          );
        })
        .catch(() => {});
    }, 10_000);
    let run: CobRun | null = null;
    try {
      run = await waitForCobRun(session, started.runId, {
        timeoutMs: options.timeoutMinutes * 60_000,
        onPoll: (r) => {
          lastPolled = r;
        },
      });
    } catch (err) {
      log(`COB run: NOT DONE — ${(err as Error).message}; the figures below are up to now`);
    } finally {
      clearInterval(progress);
    }
    const wallS = (performance.now() - t0) / 1000;
    const duringSamples = await duringLoad.stop();
    const peaks = memory.stop();
    const during = latencySummary(duringSamples);
    const closed = await closedNow();
    const loansPerSecond = closed.closed / wallS;
    const targetS = (300 * loans) / 100_000;
    const ratio = during.p99 / idle.p99;
    log('');
    const shown = run ?? lastPolled;
    log(
      `run ${shown.runId}: ${run ? run.status : `still ${shown.status} after ${options.timeoutMinutes} min`}, loans ${JSON.stringify(shown.loans)} (startedAt ${shown.startedAt}, completedAt ${shown.completedAt ?? '-'})`,
    );
    log(`  loans with lastClosedBusinessDate = ${businessDate}: ${closed.closed} of ${closed.active} active`);
    log(
      `  wall time        ${wallS.toFixed(1).padStart(8)} s   target ≤ ${targetS.toFixed(0)} s (5 min per 100,000 loans): ${run ? verdict(wallS <= targetS) : `MISSES (not done; at ${loansPerSecond.toFixed(1)} loans/s all ${loans.toLocaleString('en-US')} would take ${(loans / Math.max(loansPerSecond, 0.001) / 60).toFixed(0)} min)`}`,
    );
    log(
      `  loans/s          ${loansPerSecond.toFixed(1).padStart(8)}     target ≥ ${(100_000 / 300).toFixed(0)}/s; baseline SQL pass ${Math.round(baseline.loansPerSecond)}/s (${baseline.seconds.toFixed(2)} s for every loan)`,
    );
    log(
      `  peak RSS         worker ${peaks.worker!.toFixed(0)} MiB, API ${peaks.api!.toFixed(0)} MiB (process trees)`,
    );
    const [day] = await sql<
      {
        penalties: number;
        changes: number;
        charge_offs: number;
        due: number;
        overdue: number;
        noop: number;
      }[]
    >`
      select (select count(*)::int from outbox_events where tenant_id = ${tenant}
                and event_type = 'loan.penalty.assessed' and data->>'businessDate' = ${businessDate}) as penalties,
             (select count(*)::int from loan_delinquency_history where tenant_id = ${tenant}
                and business_date = ${businessDate}) as changes,
             (select count(*)::int from outbox_events where tenant_id = ${tenant}
                and event_type = 'loan.chargeoff.posted' and occurred_at >= ${runStartedAt}) as charge_offs,
             (select count(*)::int from outbox_events where tenant_id = ${tenant}
                and event_type = 'loan.repayment.due' and occurred_at >= ${runStartedAt}) as due,
             (select count(*)::int from outbox_events where tenant_id = ${tenant}
                and event_type = 'loan.repayment.overdue' and occurred_at >= ${runStartedAt}) as overdue,
             (select count(*)::int from loans l where l.tenant_id = ${tenant} and l.status = 'ACTIVE'
                and not exists (select 1 from outbox_events e where e.tenant_id = l.tenant_id
                  and e.occurred_at >= ${runStartedAt} and e.data->>'loanId' = l.id::text)) as noop`;
    log(
      `  the day's work   ${day!.penalties} penalties, ${day!.changes} delinquency changes, ${day!.charge_offs} charge-offs, ${day!.due} due and ${day!.overdue} overdue notices; ${day!.noop.toLocaleString('en-US')} loans (${((100 * day!.noop) / Math.max(closed.active, 1)).toFixed(1)} %) with no event`,
    );
    log(
      `  summary p99      idle ${ms(idle.p99)}, during ${ms(during.p99)} (p50 ${ms(idle.p50)} → ${ms(during.p50)}; ${during.count} reads${duringSamples.failures ? `, ${duringSamples.failures} failed: ${duringSamples.failureNotes.join('; ')}` : ''}): ${ratio.toFixed(2)}× — target ≤ 2×: ${verdict(ratio <= 2)}`,
    );
    return run ? 0 : 1;
  } catch (err) {
    log(`set-up failed: ${(err as Error).stack ?? err}`);
    if (api) log(`API output:\n${api.output().slice(-3000)}`);
    if (worker) log(`worker output:\n${worker.output().slice(-3000)}`);
    return 2;
  } finally {
    await stopAll();
    stopStarted = null;
  }
}

if (isMainModule(import.meta.url)) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      console.log(`${signal}: stopping what bench:cob started…`);
      void (stopStarted?.() ?? Promise.resolve()).finally(() => process.exit(130));
    });
  const code = await runCobBenchmark({
    loans: option('loans', 10_000),
    catchUpLoans: option('catch-up-loans', 2_000),
    ratePerSecond: option('rate', 20),
    idleSeconds: option('idle-seconds', 20),
    apiProcesses: option('api-processes', 1),
    timeoutMinutes: option('timeout-minutes', 20),
    log: (line) => console.log(line),
  });
  process.exit(code);
}
