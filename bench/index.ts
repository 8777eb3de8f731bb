/**
 * `npm run bench [-- --quick] [-- --only P1,P6]` (targets docs/design.md §6 and docs/processes.md P3): every
 * benchmark, each measured against its baseline in the same run on this machine, then ONE table:
 * benchmark | figure | baseline (same run) | ratio | target | verdict. Prints figures only; nothing here is a test.
 *
 * - P1 `GET /v1/loans/{id}/summary` vs a bare Hono + postgres.js handler doing one primary-key query
 *   (bench/read.ts), once per topology (production and npm start, each with its own baseline): requests/s at
 *   saturation (target ratio ≥ 0.40) and p99 paced at 70% of max (< 20 ms production, < 50 ms npm start), with the
 *   API's event-loop delay p99 in that round.
 * - P2 payment intents end to end (API → workflow → sandbox rail → posting → outbox) vs an empty one-activity
 *   workflow on the same Temporal server, and the autopay day (10,000 enrolments collecting on the same day, 500
 *   under --quick: intents SUBMITTED and POSTED per second vs as many empty workflows), each in both topologies
 *   (bench/payments.ts): per second (target ratio ≥ 0.60).
 * - P3 boarding 10,000 loans × 12 payments through the public operations (scripts/bench-boarding.ts): wall time
 *   and loans/s (target ≥ 60 loans/s, 10,000 ≤ 180 s) vs PostgreSQL's `COPY` of the same file (the physical
 *   floor), one row per topology (production: API processes + one worker process; npm start).
 * - P4 a 360-installment schedule plus its APR disclosure (bench/schedule.ts): median of the slowest variant
 *   (target ≤ 1 ms) vs the schedule alone.
 * - P5 an idempotent replay (bench/read.ts, per topology): p50 as an integrator's client sees it (a client at the
 *   environment's default rate limit, token fetched, fresh connection, paced within its rate; target ≤ 2 ms) vs a
 *   plain authenticated GET of the loan summary measured the same way.
 * - P6 routes that start a durable process (bench/privacy.ts: privacy-request creation and a scheduled contact-consent
 *   update), per topology: per second vs a bare workflow start on the same Temporal server (target ratio ≥ 0.80).
 * The ratio is always figure ÷ baseline (for times, how many times the baseline's time it takes).
 *
 * Options: `--quick` (short rounds, 500 loans for P3: marked as not the target size, so no verdict on the
 * targets that name a size), `--only P1,P3` (the benchmarks to run; P1 and P5 share one run), `--processes <n>`
 * (API processes for P1/P5/P6, default the CPU cores). Rate limits: every bench client is created with a rate limit
 * of 1,000,000/s and the API runs with `RATE_LIMIT_PER_SECOND=1000000` (printed at the start), but for P5's
 * integrator client, which has the environment's default rate.
 * The table is also written as JSON to `.data/bench/<timestamp>.json`. Each benchmark starts and stops its own
 * servers (by pid); one that fails is reported in its rows and the others still run. Exit code 0, or 1 when a
 * benchmark failed to run (a missed target is a verdict, not a failure).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runBoardingBenchmark } from '../scripts/bench-boarding';
import { projectRoot } from '../workers/config';
import { runAutopayDayBenchmark, runPaymentsBenchmark } from './payments';
import { runPrivacyBenchmark } from './privacy';
import { readTargets, runReadBenchmark } from './read';
import { runScheduleBenchmark } from './schedule';
import { type Topology, topologies } from './support';

const all = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6'] as const;
type BenchId = (typeof all)[number];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    processes: { type: 'string' },
  },
});
const quick = values.quick ?? false;
const selected = new Set<BenchId>(
  values.only === undefined
    ? all
    : values.only.split(',').map((each) => {
        const id = each.trim().toUpperCase();
        if (!(all as readonly string[]).includes(id)) {
          process.stderr.write(`--only takes a comma-separated list of ${all.join(', ')}; got ${each}\n`);
          process.exit(2);
        }
        return id as BenchId;
      }),
);
const processes = values.processes === undefined ? availableParallelism() : Number(values.processes);
if (!Number.isSafeInteger(processes) || processes < 1) {
  process.stderr.write('--processes must be a whole number ≥ 1\n');
  process.exit(2);
}

/** One row of the table (and of the JSON). Numbers are in `unit`; null when not measured. */
interface Row {
  id: BenchId;
  benchmark: string;
  figure: number | null;
  baseline: number | null;
  baselineName: string;
  unit: string;
  /** figure ÷ baseline */
  ratio: number | null;
  target: string;
  verdict: 'meets' | 'MISSES' | 'n/a' | 'reported' | 'error';
  note?: string;
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const indent = (line: string) => say(`    ${line}`);
const rows: Row[] = [];
const ratioOf = (figure: number, baseline: number) => (baseline > 0 ? figure / baseline : null);
const judged = (ok: boolean): Row['verdict'] => (ok ? 'meets' : 'MISSES');
let failed = false;

/** Runs one benchmark; on failure its rows say so (with the error) and the run goes on. */
async function section(ids: BenchId[], title: string, run: () => Promise<void>): Promise<void> {
  const wanted = ids.filter((id) => selected.has(id));
  if (wanted.length === 0) return;
  say(`\n== ${wanted.join(', ')}: ${title}`);
  const started = Date.now();
  try {
    await run();
  } catch (err) {
    failed = true;
    const message = (err as Error).message?.split('\n')[0] ?? String(err);
    say(`    FAILED: ${(err as Error).stack ?? err}`);
    for (const id of wanted)
      rows.push({
        id,
        benchmark: title,
        figure: null,
        baseline: null,
        baselineName: '',
        unit: '',
        ratio: null,
        target: '',
        verdict: 'error',
        note: message,
      });
  }
  say(`    (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

const startedAt = new Date();
say(
  `npm run bench${quick ? ' --quick (short rounds, small sizes: NOT the target sizes)' : ''} — ${[...selected].join(', ')}; ${cpus().length} cores, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
say(
  'Rate limits raised for the bench clients: each is created with a rate limit of 1,000,000/s and the API runs with RATE_LIMIT_PER_SECOND=1000000 (SEARCH_RATE_LIMIT_PER_SECOND too), so no 429 limits a figure.',
);

await section(['P1', 'P5'], 'read path and idempotent replay (bench/read.ts), per topology', async () => {
  for (const topology of topologies) {
    const suffix = ` [${topology === 'production' ? 'production' : 'npm start'}]`;
    const figures = await runReadBenchmark({
      topology,
      durationS: quick ? 3 : 15,
      connections: 32,
      processes,
      profileDir: null,
      log: indent,
    });
    if (selected.has('P1')) {
      const bare = figures.bare!;
      const ratio = ratioOf(figures.summary.max.requestsPerSecond, bare.max.requestsPerSecond);
      rows.push({
        id: 'P1',
        benchmark: `GET /v1/loans/{id}/summary, saturation${suffix}`,
        figure: figures.summary.max.requestsPerSecond,
        baseline: bare.max.requestsPerSecond,
        baselineName: 'bare Hono + postgres.js',
        unit: 'req/s',
        ratio,
        target: `ratio ≥ ${readTargets.ratio.toFixed(2)}`,
        verdict: ratio === null ? 'n/a' : judged(ratio >= readTargets.ratio),
        note:
          figures.summary.max.non2xx || figures.summary.max.errors
            ? `${figures.summary.max.non2xx} non-2xx, ${figures.summary.max.errors} errors`
            : undefined,
      });
      const p99Target = readTargets.pacedP99Ms[topology];
      rows.push({
        id: 'P1',
        benchmark: `GET /v1/loans/{id}/summary, p99 at 70% of max${suffix}`,
        figure: figures.summary.paced.p99,
        baseline: bare.paced.p99,
        baselineName: 'bare baseline at 70% of its max',
        unit: 'ms',
        ratio: ratioOf(figures.summary.paced.p99, bare.paced.p99),
        target: `p99 < ${p99Target} ms`,
        verdict: judged(figures.summary.paced.p99 < p99Target),
        note: `event-loop delay p99 ${figures.eventLoop.p99.toFixed(2)} ms, max ${figures.eventLoop.max.toFixed(2)} ms`,
      });
    }
    if (selected.has('P5')) {
      const replay = figures.replay!;
      const get = figures.authenticatedGet!;
      rows.push({
        id: 'P5',
        benchmark: `idempotent replay of POST /v1/servicing/cases as an integrator's client, p50${suffix}`,
        figure: replay.p50,
        baseline: get.p50,
        baselineName: `authenticated GET summary p50 (bare GET ${figures.bareGet!.p50.toFixed(2)} ms)`,
        unit: 'ms',
        ratio: ratioOf(replay.p50, get.p50),
        target: `p50 ≤ ${readTargets.replayP50Ms} ms`,
        verdict: judged(replay.p50 <= readTargets.replayP50Ms),
        note: `back to back with the bench client: ${figures.backToBack!.replay.p50.toFixed(2)} ms`,
      });
    }
  }
});

await section(['P2'], 'payment intents end to end and the autopay day (bench/payments.ts)', async () => {
  const suffix = (topology: Topology) => (topology === 'production' ? ' [production]' : ' [npm start]');
  /** One measurement of one topology; a failure is its own error row, and the others still run. */
  const attempt = async (benchmark: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      failed = true;
      indent(`FAILED: ${(err as Error).stack ?? err}`);
      rows.push({
        id: 'P2',
        benchmark,
        figure: null,
        baseline: null,
        baselineName: '',
        unit: '',
        ratio: null,
        target: 'ratio ≥ 0.60',
        verdict: 'error',
        note: (err as Error).message?.split('\n')[0] ?? String(err),
      });
    }
  };
  const enrolments = quick ? 500 : 10_000;
  for (const topology of topologies) {
    await attempt(`payment intent end to end${suffix(topology)}`, async () => {
      const figures = await runPaymentsBenchmark({
        intents: quick ? 40 : 300,
        concurrency: quick ? 8 : 16,
        loans: quick ? 4 : 8,
        topology,
        log: indent,
      });
      const ratio = ratioOf(figures.intents.perSecond, figures.emptyWorkflow.perSecond);
      rows.push({
        id: 'P2',
        benchmark: `payment intent end to end (${figures.count}, ${figures.concurrency} in flight)${suffix(topology)}`,
        figure: figures.intents.perSecond,
        baseline: figures.emptyWorkflow.perSecond,
        baselineName: 'empty one-activity workflow',
        unit: '/s',
        ratio,
        target: 'ratio ≥ 0.60',
        verdict: ratio === null ? 'n/a' : judged(ratio >= 0.6),
        note: figures.intents.failures ? `${figures.intents.failures} intents failed` : undefined,
      });
    });
    await attempt(`autopay day, ${enrolments} enrolments${suffix(topology)}`, async () => {
      const figures = await runAutopayDayBenchmark({ enrolments, concurrency: 64, topology, log: indent });
      const size = `${figures.enrolments.toLocaleString('en-US')} enrolments${quick ? ' — quick size' : ''}`;
      for (const [what, run] of [
        ['SUBMITTED', figures.submitted],
        ['POSTED', figures.posted],
      ] as const) {
        const ratio = ratioOf(run.perSecond, figures.emptyWorkflow.perSecond);
        rows.push({
          id: 'P2',
          benchmark: `autopay day → every intent ${what} (${size})${suffix(topology)}`,
          figure: run.perSecond,
          baseline: figures.emptyWorkflow.perSecond,
          baselineName: `${figures.enrolments.toLocaleString('en-US')} empty one-activity workflows`,
          unit: '/s',
          ratio,
          target: 'ratio ≥ 0.60',
          verdict: ratio === null ? 'n/a' : judged(ratio >= 0.6),
        });
      }
    });
  }
});

await section(['P3'], 'portfolio boarding (scripts/bench-boarding.ts)', async () => {
  const loans = quick ? 500 : 10_000;
  const targetSize = loans === 10_000;
  for (const topology of topologies) {
    const figures = await runBoardingBenchmark({
      topology,
      loans,
      paymentsPerLoan: 12,
      seed: 1,
      log: indent,
    });
    if (figures.cliExitCode !== 0 && figures.cliExitCode !== 1)
      throw new Error(`the board CLI failed with exit code ${figures.cliExitCode}`);
    rows.push({
      id: 'P3',
      benchmark: `boarding ${figures.loans} loans × 12 payments (${figures.lines} lines), ${figures.loansPerSecond.toFixed(1)} loans/s${targetSize ? '' : ' — quick size, NOT the target'} [${topology === 'production' ? 'production' : 'npm start'}]`,
      figure: figures.wallSeconds,
      baseline: figures.copySeconds,
      baselineName: 'COPY of the same file',
      unit: 's',
      ratio: ratioOf(figures.wallSeconds, figures.copySeconds),
      target: '≥ 60 loans/s (10,000 ≤ 180 s)',
      verdict: targetSize ? judged(figures.loansPerSecond >= 60 && figures.wallSeconds <= 180) : 'n/a',
      note: figures.cliExitCode === 1 ? 'some lines were rejected (CLI exit code 1)' : undefined,
    });
  }
});

await section(['P4'], '360-installment schedule + APR (bench/schedule.ts)', async () => {
  const figures = runScheduleBenchmark({
    runs: quick ? 1000 : 2000,
    warmup: quick ? 100 : 300,
    referenceRuns: quick ? 10 : 60,
    log: indent,
  });
  const slowest = figures.variants.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
  rows.push({
    id: 'P4',
    benchmark: `schedule + APR, median of the slowest variant (${figures.variants.length} variants)`,
    figure: slowest.medianMs,
    baseline: slowest.scheduleAloneMedianMs,
    baselineName: `schedule alone (40-digit reference APR ${slowest.referenceMedianMs.toFixed(2)} ms)`,
    unit: 'ms',
    ratio: ratioOf(slowest.medianMs, slowest.scheduleAloneMedianMs),
    target: 'median ≤ 1 ms',
    verdict: judged(figures.variants.every((v) => v.medianMs <= 1)),
    note: slowest.name,
  });
});

await section(['P6'], 'routes that start a process (bench/privacy.ts)', async () => {
  for (const topology of topologies) {
    const figures = await runPrivacyBenchmark({
      durationS: quick ? 3 : 10,
      concurrency: 16,
      cases: quick ? 4 : 8,
      processes,
      topology,
      log: indent,
    });
    const suffix = topology === 'production' ? ' [production]' : ' [npm start]';
    for (const [route, run] of [
      ['POST /v1/servicing/privacy-requests', figures.creations],
      ['POST /v1/servicing/cases/{id}/contact-consent-updates', figures.consentUpdates],
    ] as const) {
      const ratio = ratioOf(run.perSecond, figures.bareStarts.perSecond);
      rows.push({
        id: 'P6',
        benchmark: `${route} (${figures.concurrency} in flight)${suffix}`,
        figure: run.perSecond,
        baseline: figures.bareStarts.perSecond,
        baselineName: 'bare workflow start',
        unit: 'req/s',
        ratio,
        target: 'ratio ≥ 0.80',
        verdict: ratio === null ? 'n/a' : judged(ratio >= 0.8),
        note: run.failures ? `${run.failures} non-2xx or errors` : undefined,
      });
    }
  }
});

// The table, in P order.
rows.sort((a, b) => a.id.localeCompare(b.id));
const number = (n: number | null, unit: string) =>
  n === null
    ? '—'
    : unit === 'ms'
      ? `${n.toFixed(n < 10 ? 3 : 1)} ms`
      : unit === 's'
        ? `${n.toFixed(1)} s`
        : `${n.toFixed(n < 100 ? 1 : 0)} ${unit}`;
const table = [
  ['', 'benchmark', 'figure', 'baseline (same run)', 'ratio', 'target', 'verdict'],
  ...rows.map((row) => [
    row.id,
    row.benchmark,
    number(row.figure, row.unit),
    row.baseline === null ? '—' : `${number(row.baseline, row.unit)} ${row.baselineName}`,
    row.ratio === null ? '—' : row.ratio.toFixed(2),
    row.target,
    row.verdict + (row.note ? ` (${row.note})` : ''),
  ]),
];
const widths = table[0]!.map((_, column) => Math.max(...table.map((line) => line[column]!.length)));
say('');
say(quick ? 'Results (--quick: short rounds and small sizes; not the target measurement):' : 'Results:');
for (const [index, line] of table.entries()) {
  say(
    line
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join(' | ')
      .trimEnd(),
  );
  if (index === 0) say(widths.map((w) => '-'.repeat(w)).join('-|-'));
}

const file = path.join(
  projectRoot,
  '.data',
  'bench',
  `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`,
);
await mkdir(path.dirname(file), { recursive: true });
await writeFile(
  file,
  `${JSON.stringify(
    {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      quick,
      selected: [...selected],
      cores: cpus().length,
      loadAverageAtEnd: loadavg(),
      node: process.version,
      rateLimits: 'bench clients 1,000,000/s; RATE_LIMIT_PER_SECOND=1000000',
      rows,
    },
    null,
    2,
  )}\n`,
);
say(`\nWritten to ${path.relative(projectRoot, file)}`);
process.exit(failed ? 1 : 0);
