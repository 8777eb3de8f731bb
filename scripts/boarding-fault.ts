/**
 * `npm run boarding:fault -- [--loans 1000] [--payments-per-loan 12] [--kills 5] [--timeout-minutes 15] [--keep]`:
 * the fault test  (docs/processes.md P3 "a worker killed repeatedly mid-batch loses and duplicates
 * nothing"), bounded in time.
 *
 * Set-up (everything started here, and ended here by pid/process group): an embedded PostgreSQL (db/embedded.ts,
 * data folder `.data/boarding-fault-<time>`, removed afterwards unless `--keep`) and a Temporal dev server (in
 * memory) started in this process; then apart, as production runs them (docs/processes.md P0), one worker process
 * (`tsx scripts/start-worker.ts`, every queue) and one API process (`tsx scripts/start-api.ts`); a credential for a
 * fresh tenant from the admin CLI; the portfolio from scripts/portfolio-generate.ts (generated or reused).
 *
 * The run: `npm run board` uploads the file and follows the batch (its progress lines are echoed); meanwhile the
 * worker process group is killed with SIGKILL `--kills` times (default 5) and restarted each time: a kill comes,
 * while the batch is VALIDATING or RUNNING, when the batch has advanced by an eighth of its lines since the worker
 * came up, or by any line after 20 s of its uptime, or after 60 s of uptime whatever the progress (a batch waiting
 * for a killed worker's activity to time out makes no progress: the kill then lands in that wait).
 *
 * Checks (directly in the database, as the superuser, filtered by the tenant), each printed PASS/FAIL:
 * - the batch ended COMPLETED (its view, `GET /v1/boarding/batches/{batchId}`) and the CLI exited 0;
 * - all `--kills` kills happened before the batch ended;
 * - every loan boarded exactly once: the tenant's loans are exactly the file's loans, one per `externalId` =
 *   the line's `sourceRef`;
 * - every funding and every payment posted once: one row per `externalRecordRef` = `sourceRef`, as many as
 *   the file's lines, none missing, none extra (payments POSTED);
 * - the trial balance is zero: Σ debit = Σ credit over the tenant's journal lines, and per loan;
 * - the cash moved once: the net of EXTERNAL_CLEARING (debits − credits; domain/lending/ledger.ts: a disbursement credits
 *   it, a payment debits it) equals Σ payments − Σ fundings of the file, computed here with decimal.js.
 *
 * Exit code 0 when every check passes, 1 otherwise (also on timeout), 2 when the set-up fails.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import Decimal from 'decimal.js';
import postgres from 'postgres';
import { type EmbeddedDatabase, freePort, startEmbeddedPostgres } from '../db/embedded';
import type { BoardingBatchView } from '../domain/boarding/batch';
import { projectRoot } from '../workers/config';
import { type DevServer, startTemporalDevServer } from '../workers/temporal-server';
import { progressOf } from './board';
import {
  createCredential,
  ensurePortfolio,
  killGroup,
  type Started,
  startChild,
  stopChild,
  tsxBin,
} from './boarding-run-support';
import { requestToken } from './http-client';
import { todayUtc, wholeNumber } from './portfolio-generate';

const { values } = parseArgs({
  options: {
    loans: { type: 'string' },
    'payments-per-loan': { type: 'string' },
    kills: { type: 'string' },
    'timeout-minutes': { type: 'string' },
    seed: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
let loans: number;
let paymentsPerLoan: number;
let killsWanted: number;
let timeoutMinutes: number;
let seed: number;
try {
  loans = wholeNumber('loans', values.loans, 1000, 1);
  paymentsPerLoan = wholeNumber('payments-per-loan', values['payments-per-loan'], 12);
  killsWanted = wholeNumber('kills', values.kills, 5);
  timeoutMinutes = wholeNumber('timeout-minutes', values['timeout-minutes'], 15, 1);
  seed = wholeNumber('seed', values.seed, 2);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const scriptStarted = Date.now();
const elapsed = () => `${((Date.now() - scriptStarted) / 1000).toFixed(0).padStart(4)} s`;
const dataDir = path.join(projectRoot, '.data', `boarding-fault-${Date.now().toString(36)}`);

let database: EmbeddedDatabase | null = null;
let temporal: DevServer | null = null;
let worker: Started | null = null;
let api: Started | null = null;
let cli: Started | null = null;

/** Ends what this script started, in reverse order, and removes the data folder unless --keep. */
async function cleanUp(): Promise<void> {
  for (const started of [cli, api, worker]) if (started) await stopChild(started, 30_000);
  await temporal?.stop().catch(() => {});
  await database?.stop().catch(() => {});
  if (!values.keep) await rm(dataDir, { recursive: true, force: true });
}

let finishing = false;
const timeout = setTimeout(() => {
  if (finishing) return;
  finishing = true;
  say(`FAIL: the fault test did not finish in ${timeoutMinutes} minutes; stopping.`);
  if (worker) say(`worker output (last 3000 characters):\n${worker.output().slice(-3000)}`);
  void cleanUp().finally(() => process.exit(1));
}, timeoutMinutes * 60_000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (finishing) return;
    finishing = true;
    say(`${signal}: stopping what the fault test started…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** The file's loan, funding and payment refs and the sums of fundings and payments. */
async function expectations(file: string) {
  const loanRefs: string[] = [];
  const fundingRefs: string[] = [];
  const paymentRefs: string[] = [];
  let fundingSum = new Decimal(0);
  let paymentSum = new Decimal(0);
  for await (const text of createInterface({
    input: createReadStream(file),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    if (!text.trim()) continue;
    const line = JSON.parse(text) as { kind: string; sourceRef: string; body: { amount?: string } };
    if (line.kind === 'loan') loanRefs.push(line.sourceRef);
    if (line.kind === 'funding') {
      fundingRefs.push(line.sourceRef);
      fundingSum = fundingSum.plus(line.body.amount!);
    }
    if (line.kind === 'payment') {
      paymentRefs.push(line.sourceRef);
      paymentSum = paymentSum.plus(line.body.amount!);
    }
  }
  return { loanRefs, fundingRefs, paymentRefs, fundingSum, paymentSum };
}

const checks: { name: string; pass: boolean; detail: string }[] = [];
const check = (name: string, pass: boolean, detail: string) => {
  checks.push({ name, pass, detail });
  say(`${pass ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
};

let exitCode = 2;
try {
  say(
    `Boarding fault test: ${loans} loans, ${paymentsPerLoan} payments per loan, ${killsWanted} SIGKILLs of the worker, at most ${timeoutMinutes} min`,
  );
  const portfolio = await ensurePortfolio({ loans, paymentsPerLoan, seed, asOf: todayUtc() });
  const expected = await expectations(portfolio.file);
  say(
    `${elapsed()}  portfolio ${portfolio.file}: ${expected.loanRefs.length} loans, ${expected.fundingRefs.length} fundings, ${expected.paymentRefs.length} payments`,
  );

  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  database = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'postgres'),
    port: await freePort(),
    fast: true,
  });
  temporal = await startTemporalDevServer({ port: await freePort(), uiPort: null, namespace: 'default' });
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  say(
    `${elapsed()}  PostgreSQL at ${database.url.replace(/:[^:@/]+@/, ':***@')}, Temporal at ${temporal.address}`,
  );

  let workerReadyAt = 0;
  const startWorker = async () => {
    worker = await startChild(tsxBin, ['scripts/start-worker.ts'], {
      env,
      ready: 'Worker ready',
      timeoutMs: 180_000,
    });
    workerReadyAt = Date.now();
  };
  await startWorker();
  say(`${elapsed()}  worker process up (pid ${worker!.pid})`);
  api = await startChild(tsxBin, ['scripts/start-api.ts'], { env, ready: 'API ready', timeoutMs: 120_000 });
  const baseUrl = `http://127.0.0.1:${port}`;
  say(`${elapsed()}  API process up (pid ${api.pid}) at ${baseUrl}`);
  const tenant = `fault${Date.now().toString(36)}`;
  const credential = await createCredential(env, tenant);
  const token = await requestToken(baseUrl, credential, 'lending:read lending:write', () => {});

  cli = await startChild(
    tsxBin,
    [
      'scripts/board.ts',
      '--tenant',
      tenant,
      '--file',
      portfolio.file,
      '--base-url',
      baseUrl,
      '--progress-interval',
      '10',
    ],
    {
      env: {
        ...process.env,
        SERVICE_CLIENT_ID: credential.clientId,
        SERVICE_CLIENT_SECRET: credential.clientSecret,
      },
      ready: null,
      echo: (line) => say(`${elapsed()}  | ${line}`),
    },
  );
  const cliExit = cli.exited;
  let cliCode: number | null | undefined;
  void cliExit.then((code) => {
    cliCode = code;
  });

  // Waits for the batch id the CLI prints.
  let batchId: number | null = null;
  while (batchId === null && cliCode === undefined) {
    batchId = Number(/^Batch (\d+): \d+ lines staged/m.exec(cli.output())?.[1] ?? 'NaN') || null;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (batchId === null) throw new Error(`the board CLI ended (${cliCode}) without a batch:\n${cli.output()}`);

  const viewOf = async (): Promise<BoardingBatchView | null> => {
    const response = await fetch(`${baseUrl}/v1/boarding/batches/${batchId}`, {
      headers: { authorization: `Bearer ${token}`, 'service-tenant': tenant },
      signal: AbortSignal.timeout(30_000),
    }).catch(() => null);
    if (response?.status !== 200) {
      await response?.body?.cancel();
      return null;
    }
    return (await response.json()) as BoardingBatchView;
  };

  let kills = 0;
  let doneAtStart = 0;
  while (cliCode === undefined) {
    await new Promise((r) => setTimeout(r, 1000));
    const view = await viewOf();
    if (!view || kills >= killsWanted) continue;
    if (view.status !== 'VALIDATING' && view.status !== 'RUNNING') continue;
    const { done, total } = progressOf(view);
    const uptime = Date.now() - workerReadyAt;
    const advanced = done - doneAtStart;
    if (advanced >= total / 8 || (advanced > 0 && uptime >= 20_000) || uptime >= 60_000) {
      killGroup(worker!, 'SIGKILL');
      await worker!.exited;
      kills++;
      say(
        `${elapsed()}  SIGKILL #${kills} of the worker (pid ${worker!.pid}) at ${done}/${total} lines, ${view.status}`,
      );
      await startWorker();
      say(`${elapsed()}  worker restarted (pid ${worker!.pid})`);
      doneAtStart = progressOf((await viewOf()) ?? view).done;
    }
  }
  const finalView = await viewOf();

  say('');
  check(
    'batch status',
    finalView?.status === 'COMPLETED',
    `${finalView?.status ?? 'unknown'} (CLI exit code ${cliCode})`,
  );
  check('CLI exit code', cliCode === 0, String(cliCode));
  check('worker kills', kills === killsWanted, `${kills} of ${killsWanted} before the batch ended`);

  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const [loanRow] = await sql<{ rows: string; refs: string; matched: string }[]>`
      select count(*)::text as rows, count(distinct external_id)::text as refs,
             count(*) filter (where external_id = any(${expected.loanRefs}))::text as matched
      from loans where tenant_id = ${tenant}`;
    check(
      'loans boarded exactly once',
      Number(loanRow!.rows) === expected.loanRefs.length &&
        Number(loanRow!.refs) === expected.loanRefs.length &&
        Number(loanRow!.matched) === expected.loanRefs.length,
      `${loanRow!.rows} loans, ${loanRow!.refs} distinct externalIds, ${loanRow!.matched} of the file's ${expected.loanRefs.length}`,
    );
    const [fundingRow] = await sql<{ rows: string; refs: string; matched: string }[]>`
      select count(*)::text as rows, count(distinct external_record_ref)::text as refs,
             count(*) filter (where external_record_ref = any(${expected.fundingRefs}))::text as matched
      from fundings where tenant_id = ${tenant}`;
    check(
      'fundings posted once',
      [fundingRow!.rows, fundingRow!.refs, fundingRow!.matched].every(
        (n) => Number(n) === expected.fundingRefs.length,
      ),
      `${fundingRow!.rows} fundings, ${fundingRow!.refs} distinct refs, ${fundingRow!.matched} of the file's ${expected.fundingRefs.length}`,
    );
    const [paymentRow] = await sql<{ rows: string; refs: string; matched: string; posted: string }[]>`
      select count(*)::text as rows, count(distinct external_record_ref)::text as refs,
             count(*) filter (where external_record_ref = any(${expected.paymentRefs}))::text as matched,
             count(*) filter (where status = 'POSTED')::text as posted
      from payments where tenant_id = ${tenant}`;
    check(
      'payments posted once',
      [paymentRow!.rows, paymentRow!.refs, paymentRow!.matched, paymentRow!.posted].every(
        (n) => Number(n) === expected.paymentRefs.length,
      ),
      `${paymentRow!.rows} payments (${paymentRow!.posted} POSTED), ${paymentRow!.refs} distinct refs, ${paymentRow!.matched} of the file's ${expected.paymentRefs.length}`,
    );
    const [balance] = await sql<{ debit: string; credit: string; unbalanced: string }[]>`
      select coalesce(sum(debit), 0)::text as debit, coalesce(sum(credit), 0)::text as credit,
             (select count(*) from (select loan_id from journal_entries where tenant_id = ${tenant}
                group by loan_id having sum(debit) <> sum(credit)) u)::text as unbalanced
      from journal_entries where tenant_id = ${tenant}`;
    check(
      'trial balance zero',
      new Decimal(balance!.debit).equals(balance!.credit) &&
        balance!.unbalanced === '0' &&
        new Decimal(balance!.debit).gt(0),
      `Σ debit ${balance!.debit}, Σ credit ${balance!.credit}, ${balance!.unbalanced} loans unbalanced`,
    );
    const [clearing] = await sql<{ net: string }[]>`
      select coalesce(sum(debit) - sum(credit), 0)::text as net
      from journal_entries where tenant_id = ${tenant} and account_code = 'EXTERNAL_CLEARING'`;
    const expectedNet = expected.paymentSum.minus(expected.fundingSum);
    check(
      'cash moved once',
      new Decimal(clearing!.net).equals(expectedNet),
      `EXTERNAL_CLEARING net ${new Decimal(clearing!.net).toFixed(2)}, file Σ payments − Σ fundings ${expectedNet.toFixed(2)}`,
    );
  } finally {
    await sql.end();
  }
  const failed = checks.filter((c) => !c.pass);
  say('');
  say(
    failed.length === 0
      ? `Fault test passed: ${checks.length} checks in ${elapsed().trim()}.`
      : `Fault test FAILED: ${failed.map((c) => c.name).join(', ')}.`,
  );
  exitCode = failed.length === 0 ? 0 : 1;
} catch (err) {
  say(`Set-up failed: ${(err as Error).stack ?? err}`);
  if (cli) say(`board CLI output:\n${cli.output().slice(-3000)}`);
  if (worker) say(`worker output:\n${(worker as Started).output().slice(-3000)}`);
  exitCode = 2;
} finally {
  if (!finishing) {
    finishing = true;
    clearTimeout(timeout);
    await cleanUp();
  }
}
process.exit(exitCode);
