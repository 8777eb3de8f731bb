/**
 * `npm run bench:fault [-- --only postgres,temporal,worker,worker-servicing,boarding,webhooks-dead-tenant-burst,webhooks-dead-tenant,cob]
 * [--quick] [--down-seconds 10]
 * [--temporal-down-seconds 30] [--keep]`
 * (docs/processes.md P0 "Failure answers", P3 fault target): the fault benchmarks. Each prints what it
 * measured and a PASS/FAIL line per check; nothing here is a vitest test (they take minutes).
 *
 * Set-up (started here, ended here by pid / process group, never by name): an embedded PostgreSQL (db/embedded.ts)
 * with its data under `.data/bench-fault-<time>/` (removed afterwards unless `--keep`) and a Temporal dev server
 * whose state is kept in a SQLite file in the same folder (so that a restart keeps the workflows), both in this
 * process and restartable on the same port with the same data; then apart, as production runs them (P0), one API
 * process (`scripts/start-api.ts`, sandbox) and one worker process (`scripts/start-worker.ts`, every queue, with
 * the start-intent and outbox relays); a tenant and an API client whose rate limit is raised to 1,000,000/s.
 *
 * - `postgres`: a steady stream of writes (`POST /v1/servicing/cases`, a fresh Idempotency-Key per logical
 *   mutation, a new one every 100 ms) and reads (`GET /v1/servicing/cases/{id}`), then PostgreSQL stopped (fast
 *   shutdown) for `--down-seconds` and started again on its data folder. A client retries a 503 with the same key
 *   after `Retry-After`, as the spec asks. Checks: every answer while down is 503 Shape A with `Retry-After` (any
 *   other status, a 500 above all, fails; each status is counted); every mutation answered 2xx exists afterwards;
 *   each logical mutation made exactly one case; its key replays the same case; the service answers 2xx again by
 *   itself (the time from the restart to the first 2xx is printed).
 * - `temporal`: the same with privacy requests (`POST /v1/servicing/privacy-requests`, which stores the request
 *   with its start intent and starts its workflow) and reads of them (PostgreSQL only), the dev server stopped and
 *   started again. Some clients give up after a 503 (every third mutation): what they left behind is for the
 *   start-intent relay (P0). Checks: 503 Shape A with `Retry-After` for creations while down, reads still 200;
 *   nothing answered 2xx is lost, nothing doubled; every stored request has its workflow afterwards (the relay
 *   started those the route could not); the workflows started before the outage complete when fulfilled after it.
 * - `worker`: the worker process SIGKILLed twice in the middle of the processes started here (how far they are at
 *   each kill is printed), a new one started each time, each process checked to have completed with its effects
 *   exactly once: payment intents (created and settled through the sandbox rail: POSTED, one `payment.posted` row,
 *   EXTERNAL_CLEARING debited once), privacy requests (fulfilled: one outcome effect, workflow completed), promises
 *   to pay (kept by a payment recorded as external: one PROMISE_KEPT effect, one `promise.kept` event), webhook
 *   deliveries (a subscription to a local receiver: every event delivered, the delivery SUCCEEDED once, one attempt
 *   record per attempt received).
 * - `worker-servicing`: the same with the other kinds of process (loans boarded on days of the month no other
 *   loan here uses): inbound channel events (a gateway made as `npm run admin -- gateways create` makes it; signed
 *   completed voice calls and SMS STOP replies, half sent just before the first kill, half while no worker runs, the
 *   first half re-sent), statement runs (one tenant run per statement date of loans boarded 13 months ago, one after
 *   the other, each awaited, as `npm run admin -- statements run --wait` does), hardship offers (each created above
 *   the straight-through maximum, approved by a second client, accepted, its evidence added half before the first
 *   kill and half while no worker runs), scheduled contact-consent updates (e-mail permission, effective 3 to 27 s
 *   after they are sent: their timers fire around the kills) and autopay enrolments (loans boarded 50 days ago,
 *   collected 15 days before the next due date, so at once; half before the first kill, half while no worker runs).
 *   The first kill waits for the offers to be accepted and a statement to be stored, the second for the new worker
 *   to store a statement with the runs unfinished. Checks: each event stored once (the re-sent ones 200 duplicate),
 *   PROCESSED, its workflow completed; one interaction and one INTERACTION_LOGGED effect per voice call; one SMS
 *   consent revocation and one CONSENT_RECORDED history row per STOP and customer with that phone; each run
 *   completed with every candidate generated or found (none skipped); one statement per loan and due date with one
 *   `statement.generated` event, its PDF served; each offer APPLIED with one HARDSHIP_RELIEF schedule version
 *   (version 2), its workflow completed with APPLIED, one event and one case effect per state (created, approved,
 *   accepted, evidence confirmed, applied); each consent update COMPLETED (permission set, one history row, one
 *   effect, one `contact.consent.updated` event, workflow completed); each enrolment one AUTOPAY intent for the
 *   installment due after enrolment, its payment-intent process started once, the autopay process still running.
 *   Not covered: the daily reconciliation (it needs rail reports that disagree with the intents).
 * - `boarding`: `scripts/boarding-fault.ts` (a worker SIGKILLed repeatedly mid-batch), run as a child process,
 *   smaller with `--quick`.
 * - `webhooks-dead-tenant-burst`: bench/webhooks-dead-tenant-burst.ts (a second tenant's fresh burst of 100 deliveries,
 *   10 subscriptions × 10 events, to a receiver that holds every connection open): the live tenant's p50 and max
 *   delivery latency in the burst's first minute against its own, alone, in the same run (about 2 minutes). Runs
 *   before `webhooks-dead-tenant` when both are selected, and deactivates its subscriptions afterwards.
 * - `webhooks-dead-tenant`: bench/webhooks-dead-tenant.ts (a second tenant whose 10 subscriptions never answer or
 *   refuse, with a backlog of 1,600 deliveries, beside a live tenant): the live tenant's p99 delivery latency
 *   against its baseline of the same run, and the worker's RSS flat (about 3 minutes; `--quick` about 2).
 * - `cob`: bench/fault-cob.ts (10,000 loans, 3,000 with `--quick`, seeded for a tenant of their own; a
 *   close-of-business run for yesterday with the worker SIGKILLed twice during it): every loan closed for the day
 *   exactly once (history rows, events, penalties, charge-offs not doubled), the trial balance zero.
 *
 * `--quick` shortens the outages (PostgreSQL 5 s, Temporal 20 s; defaults 10 s and 30 s: the Temporal client retries
 * a call for about 10 s, so a shorter outage of Temporal only delays answers) and the counts. Exit code 0 when every check passes, 1 otherwise, 2 when the
 * set-up fails.
 */
import { createHmac } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import postgres from 'postgres';
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { type EmbeddedDatabase, freePort, startEmbeddedPostgres } from '../db/embedded';
import { applyMigrations } from '../db/migrate';
import { addDays } from '../domain/calendar';
import {
  autopayWorkflowId,
  channelEventWorkflowId,
  contactConsentUpdateWorkflowId,
  hardshipOfferWorkflowId,
  paymentIntentWorkflowId,
} from '../domain/ids';
import { statementDateFor } from '../domain/lending/statements';
import { type Started, startChild, stopChild, tsxBin } from '../scripts/boarding-run-support';
import { deferralGuardrails, deferralProgramBody } from '../scripts/hardship-bodies';
import { requestToken } from '../scripts/http-client';
import { runLendingDemoFlow } from '../scripts/lending-demo-flow';
import { loadConfig, operationDeps, projectRoot } from '../workers/config';
import { temporalDataConverter } from '../workers/payload-codec';
import { type DevServer, startTemporalDevServer } from '../workers/temporal-server';
import { startTenantStatementCycle } from '../workflows/lending/statement-cycle/client';
import type { TenantStatementCycleResult } from '../workflows/lending/statement-cycle/types';
import { cobWorkerKills } from './fault-cob';
import { webhooksDeadTenant } from './webhooks-dead-tenant';
import { webhooksDeadTenantBurst } from './webhooks-dead-tenant-burst';

const scenarios = [
  'postgres',
  'temporal',
  'worker',
  'worker-servicing',
  'boarding',
  'webhooks-dead-tenant-burst',
  'webhooks-dead-tenant',
  'cob',
] as const;
type Scenario = (typeof scenarios)[number];

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'down-seconds': { type: 'string' },
    'temporal-down-seconds': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const quick = values.quick ?? false;
const selected = new Set<Scenario>(
  values.only === undefined
    ? scenarios
    : values.only.split(',').map((each) => {
        const name = each.trim().toLowerCase();
        if (!(scenarios as readonly string[]).includes(name)) {
          process.stderr.write(
            `--only takes a comma-separated list of ${scenarios.join(', ')}; got ${each}\n`,
          );
          process.exit(2);
        }
        return name as Scenario;
      }),
);
const downSeconds = values['down-seconds'] === undefined ? (quick ? 5 : 10) : Number(values['down-seconds']);
// The Temporal client retries a call for about 10 s before it gives up: a shorter outage of Temporal only delays
// the answers (they come once it is back), so its default outage is longer.
const temporalDownSeconds =
  values['temporal-down-seconds'] === undefined ? (quick ? 20 : 30) : Number(values['temporal-down-seconds']);
if (
  !Number.isFinite(downSeconds) ||
  downSeconds < 1 ||
  !Number.isFinite(temporalDownSeconds) ||
  temporalDownSeconds < 1
) {
  process.stderr.write('--down-seconds and --temporal-down-seconds must be numbers ≥ 1\n');
  process.exit(2);
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const scriptStarted = Date.now();
const elapsed = () => `${((Date.now() - scriptStarted) / 1000).toFixed(0).padStart(4)} s`;
const note = (line: string) => say(`${elapsed()}  ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const run = Date.now().toString(36);

const checks: { scenario: string; name: string; pass: boolean; detail: string }[] = [];
function check(scenario: string, name: string, pass: boolean, detail: string): void {
  checks.push({ scenario, name, pass, detail });
  say(`${pass ? 'PASS' : 'FAIL'}  [${scenario}] ${name}: ${detail}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The stack: PostgreSQL and Temporal restartable in place, the API and the worker as child processes.

const dataDir = path.join(projectRoot, '.data', `bench-fault-${run}`);
const tenant = `fault${run}`;

interface Stack {
  pgPort: number;
  temporalPort: number;
  databaseUrl: string;
  temporalAddress: string;
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  token: string;
  credential: { tenant: string; clientId: string; clientSecret: string };
  /** Superuser connection for the checks (reconnects by itself after a restart). */
  sql: postgres.Sql;
  temporalClient: () => Promise<Client>;
}

let database: EmbeddedDatabase | null = null;
let temporal: DevServer | null = null;
let api: Started | null = null;
let worker: Started | null = null;
const closers: (() => Promise<void>)[] = [];

async function startPostgres(port: number): Promise<void> {
  database = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port });
}
async function stopPostgres(): Promise<void> {
  await database?.stop();
  database = null;
}
/**
 * Only the webhook scenarios selected (`webhooks-dead-tenant`, `webhooks-dead-tenant-burst`): the dev server keeps its
 * state in memory (they never restart it, and the SQLite file's writes, not the service, would then bound how fast
 * thousands of deliveries are dispatched).
 */
const temporalInMemory = [...selected].every(
  (each) => each === 'webhooks-dead-tenant' || each === 'webhooks-dead-tenant-burst',
);
async function startTemporal(port: number): Promise<void> {
  temporal = await startTemporalDevServer({
    port,
    uiPort: null,
    namespace: 'default',
    ...(temporalInMemory ? {} : { dbFile: path.join(dataDir, 'temporal.sqlite') }),
  });
}
async function stopTemporal(): Promise<void> {
  await temporal?.stop();
  temporal = null;
}
async function startWorker(env: NodeJS.ProcessEnv): Promise<Started> {
  worker = await startChild(tsxBin, ['scripts/start-worker.ts'], {
    env,
    ready: 'Worker ready',
    timeoutMs: 180_000,
  });
  return worker;
}

/** Ends what this script started, newest first, and removes the data folder unless --keep. */
async function cleanUp(): Promise<void> {
  for (const close of closers.reverse()) await close().catch(() => {});
  for (const started of [api, worker]) if (started) await stopChild(started, 30_000);
  await stopTemporal().catch(() => {});
  await stopPostgres().catch(() => {});
  if (!values.keep) await rm(dataDir, { recursive: true, force: true });
}

let finishing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (finishing) return;
    finishing = true;
    say(`${signal}: stopping what the fault benchmarks started…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

async function startStack(): Promise<Stack> {
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const pgPort = await freePort();
  const temporalPort = await freePort();
  await startPostgres(pgPort);
  await startTemporal(temporalPort);
  const databaseUrl = database!.url;
  const temporalAddress = temporal!.address;
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
  const { db, close } = createDb(databaseUrl, { maxConnections: 2 });
  await applyMigrations(db);
  const created = await createPlatformOperations(operationDeps(db, config)).createClient({
    tenantId: tenant,
    environment: 'sandbox',
    scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
    permissions: ['ALL'],
    rateLimitPerSecond: 1_000_000,
    createTenant: true,
  });
  await close();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    SERVICE_ENVIRONMENT: 'sandbox',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '1000000',
    API_PROCESSES: '1',
  };
  await startWorker(env);
  api = await startChild(tsxBin, ['scripts/start-api.ts'], { env, ready: 'API ready', timeoutMs: 120_000 });
  const baseUrl = `http://127.0.0.1:${port}`;
  const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
  const token = await requestToken(
    baseUrl,
    credential,
    'lending:read lending:write servicing:read servicing:write',
    () => {},
  );
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  closers.push(() => sql.end({ timeout: 1 }));
  let client: Client | null = null;
  const temporalClient = async () => {
    if (!client) {
      const connection = await Connection.connect({ address: temporalAddress });
      closers.push(() => connection.close());
      // The stack's payload keys (its data folder's, workers/config.ts): its workflows' payloads are encrypted.
      client = new Client({ connection, dataConverter: temporalDataConverter(config.temporalPayloadKeys) });
    }
    return client;
  };
  note(
    `stack up: PostgreSQL :${pgPort}, Temporal :${temporalPort} (state ${temporalInMemory ? 'in memory' : `in ${path.relative(projectRoot, dataDir)}/temporal.sqlite`}), API pid ${api.pid} at ${baseUrl}, worker pid ${worker!.pid}; client rate limit raised to 1,000,000/s`,
  );
  return {
    pgPort,
    temporalPort,
    databaseUrl,
    temporalAddress,
    env,
    baseUrl,
    token,
    credential,
    sql,
    temporalClient,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP with what a client sees: status, headers, body, and whether an error body is Shape A.

interface Answer {
  /** 0 when no HTTP answer came (connection refused or reset, or no answer in 30 s). */
  status: number;
  retryAfter: string | null;
  replayed: boolean;
  body: Record<string, unknown> | null;
  at: number;
  /** With status 0: what the client saw instead of an answer (error name, its cause's code) and after how long. */
  error?: string;
}

/** `TypeError/ECONNRESET after 12 ms`: the gist of a fetch that got no HTTP answer. */
function noAnswer(err: unknown, startedAt: number): string {
  const error = err as { name?: string; cause?: { code?: string } };
  const code = error.cause?.code ? `/${error.cause.code}` : '';
  return `${error.name ?? 'Error'}${code} after ${Date.now() - startedAt} ms`;
}

async function call(
  stack: Stack,
  method: string,
  route: string,
  body?: unknown,
  key?: string,
  /** Another client's bearer token (default the stack's) and more headers (e.g. `service-actor`). */
  as: { token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const startedAt = Date.now();
  try {
    const response = await fetch(`${stack.baseUrl}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${as.token ?? stack.token}`,
        'service-tenant': tenant,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key ? { 'idempotency-key': key } : {}),
        ...as.headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = null;
    }
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      replayed: response.headers.get('x-served-from-cache') === 'true',
      body: parsed,
      at: Date.now(),
    };
  } catch (err) {
    return {
      status: 0,
      retryAfter: null,
      replayed: false,
      body: null,
      at: Date.now(),
      error: noAnswer(err, startedAt),
    };
  }
}

const isShapeA = (answer: Answer) =>
  typeof answer.body?.userMessageGlobalisationCode === 'string' &&
  answer.body.httpStatusCode === String(answer.status) &&
  typeof answer.body.developerMessage === 'string' &&
  Array.isArray(answer.body.errors);

// ---------------------------------------------------------------------------------------------------------------
// Load under an outage: logical mutations (each with its own key, retried after Retry-After) and reads.

type Phase = 'before' | 'down' | 'after';

interface Tally {
  /** `<phase> <kind> <status>` → count. */
  counts: Map<string, number>;
  /** 503s without Retry-After or without a Shape A body. */
  bad503: number;
  /** 409s other than `idempotency.request.in.flight` with Retry-After (a retry of a key whose first try is unsettled). */
  bad409: number;
  /** Every 2xx answer's kind and time (ms since epoch), for the recovery time. */
  okTimes: { kind: string; at: number }[];
}

interface Mutation {
  n: number;
  key: string;
  /** The resource id of the 2xx answer. */
  id: number | null;
  attempts: number;
  sawUnavailable: boolean;
  abandoned: boolean;
  failedWith: number | null;
}

interface LoadOptions {
  stack: Stack;
  /** One attempt of mutation `n` with `key`. */
  attempt(n: number, key: string): Promise<Answer>;
  /** The id in a 2xx answer. */
  idOf(answer: Answer): number;
  /** A read of an accepted id (null when none yet). */
  read(id: number): Promise<Answer>;
  /** Whether the client of mutation `n` gives up after a 503 (leaving the rest to the service). */
  abandons?: (n: number) => boolean;
  intervalMs: number;
  /** Prefix of the Idempotency-Keys, one per scenario (a key is scoped to the client, not the route). */
  keyPrefix: string;
}

function startLoad(options: LoadOptions) {
  let phase: Phase = 'before';
  let running = true;
  const tally: Tally = { counts: new Map(), bad503: 0, bad409: 0, okTimes: [] };
  const mutations: Mutation[] = [];
  const inFlight = new Set<Promise<void>>();
  const count = (kind: string, answer: Answer) => {
    const name = `${phase} ${kind} ${answer.status}`;
    tally.counts.set(name, (tally.counts.get(name) ?? 0) + 1);
    if (answer.error) say(`      ${phase} ${kind}: no answer (${answer.error})`);
    if (answer.status === 503 && (!answer.retryAfter || !isShapeA(answer))) tally.bad503 += 1;
    if (
      answer.status === 409 &&
      (!answer.retryAfter || answer.body?.userMessageGlobalisationCode !== 'idempotency.request.in.flight')
    )
      tally.bad409 += 1;
    if (answer.status >= 200 && answer.status < 300) tally.okTimes.push({ kind, at: answer.at });
  };
  let cancelled = false;
  const mutate = async (mutation: Mutation) => {
    while (!cancelled) {
      mutation.attempts += 1;
      const answer = await options.attempt(mutation.n, mutation.key);
      count('write', answer);
      if (answer.status >= 200 && answer.status < 300) {
        mutation.id = options.idOf(answer);
        return;
      }
      if (answer.status === 503 || answer.status === 429 || answer.status === 409 || answer.status === 0) {
        if (answer.status === 503) mutation.sawUnavailable = true;
        if (answer.status === 503 && options.abandons?.(mutation.n)) {
          mutation.abandoned = true;
          return;
        }
        const seconds = Number(answer.retryAfter ?? '1');
        await sleep((Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000);
        continue;
      }
      mutation.failedWith = answer.status;
      return;
    }
  };
  const writer = (async () => {
    while (running) {
      if (inFlight.size < 200) {
        const mutation: Mutation = {
          n: mutations.length,
          key: `${options.keyPrefix}-${run}-${mutations.length.toString(36)}`,
          id: null,
          attempts: 0,
          sawUnavailable: false,
          abandoned: false,
          failedWith: null,
        };
        mutations.push(mutation);
        const promise = mutate(mutation).finally(() => inFlight.delete(promise));
        inFlight.add(promise);
      }
      await sleep(options.intervalMs);
    }
  })();
  const readers = Array.from({ length: 2 }, async () => {
    while (running) {
      const known = mutations.filter((m) => m.id !== null);
      if (known.length > 0) {
        const answer = await options.read(known[Math.floor(Math.random() * known.length)]!.id!);
        count('read', answer);
      }
      await sleep(50);
    }
  });
  return {
    tally,
    mutations,
    setPhase(next: Phase) {
      phase = next;
    },
    /** Stops new work and waits (at most `deadlineMs`) for the mutations in flight to end. */
    async stop(deadlineMs: number): Promise<boolean> {
      running = false;
      await writer;
      await Promise.all(readers);
      const all = Promise.all([...inFlight]).then(() => true);
      const ended = await Promise.race([all, sleep(deadlineMs).then(() => false)]);
      // Clients still retrying give up now (they stay unfinished), so that nothing keeps loading later scenarios.
      cancelled = true;
      await all;
      return ended;
    },
  };
}

/** Prints the tally and checks what every outage must show; returns the first 2xx after `restartedAt` (ms). */
function checkOutage(
  scenario: string,
  tally: Tally,
  mutations: Mutation[],
  restartedAt: number,
  options: { readsNeedTheService: boolean },
): void {
  const lines = [...tally.counts.entries()].sort(([a], [b]) => a.localeCompare(b));
  say(`      answers by phase, kind and status: ${lines.map(([name, n]) => `${name}: ${n}`).join(', ')}`);
  const unexpected = lines.filter(([name]) => {
    const status = Number(name.split(' ')[2]);
    return !(status >= 200 && status < 300) && status !== 503 && status !== 409;
  });
  check(
    scenario,
    'no answer other than 2xx, 503 and 409 in flight (no 500, no dropped connection)',
    unexpected.length === 0 && tally.bad409 === 0,
    unexpected.length === 0 && tally.bad409 === 0
      ? `none (409 idempotency.request.in.flight with Retry-After: ${lines.filter(([name]) => name.endsWith(' 409')).reduce((sum, [, n]) => sum + n, 0)}, the retry of a key whose first try the outage left unsettled)`
      : `${unexpected.map(([name, n]) => `${name}: ${n}`).join(', ')}${tally.bad409 ? `; ${tally.bad409} other 409s` : ''}`,
  );
  const down503 = lines
    .filter(([name]) => name.startsWith('down write 503'))
    .reduce((sum, [, n]) => sum + n, 0);
  check(scenario, 'writes answered 503 while down', down503 > 0, `${down503} × 503`);
  check(
    scenario,
    'every 503 is Shape A with Retry-After',
    tally.bad503 === 0,
    tally.bad503 === 0 ? 'all' : `${tally.bad503} without`,
  );
  if (!options.readsNeedTheService) {
    const downReads = lines.filter(([name]) => name.startsWith('down read '));
    const notOk = downReads.filter(([name]) => name !== 'down read 200');
    check(
      scenario,
      'reads that need only PostgreSQL keep answering 200 while it is down',
      notOk.length === 0 && downReads.length > 0,
      downReads.map(([name, n]) => `${name}: ${n}`).join(', ') || 'no reads while down',
    );
  }
  const firstOk = (kind?: string) =>
    tally.okTimes
      .filter((t) => t.at >= restartedAt && (kind === undefined || t.kind === kind))
      .map((t) => t.at)
      .sort((a, b) => a - b)[0];
  const after = (at: number | undefined) =>
    at === undefined ? 'none' : `${((at - restartedAt) / 1000).toFixed(2)} s`;
  check(
    scenario,
    'the service recovers by itself',
    firstOk() !== undefined,
    firstOk() === undefined
      ? 'no 2xx after the restart'
      : `first 2xx ${after(firstOk())} after the restart (read ${after(firstOk('read'))}, write ${after(firstOk('write'))}; a write waits out its Retry-After first)`,
  );
  const retried = mutations.filter((m) => m.sawUnavailable && m.id !== null);
  const failed = mutations.filter((m) => m.failedWith !== null);
  const pending = mutations.filter((m) => m.id === null && !m.abandoned && m.failedWith === null);
  check(
    scenario,
    'mutations retried with the same key after a 503 succeed',
    failed.length === 0 && pending.length === 0 && retried.length > 0,
    `${mutations.length} mutations: ${retried.length} succeeded after a 503, ${mutations.filter((m) => m.abandoned).length} abandoned by their client, ${failed.length} failed (${summarise(failed.map((m) => m.failedWith))}), ${pending.length} unfinished`,
  );
}

/** The API and worker processes are still the ones started (an outage must not end them). */
function checkProcessesSurvived(scenario: string): void {
  const alive = (started: Started | null) =>
    started !== null && started.child.exitCode === null && started.child.signalCode === null;
  check(
    scenario,
    'the API and worker processes survived the outage',
    alive(api) && alive(worker),
    `API pid ${api?.pid} ${alive(api) ? 'running' : 'exited'}, worker pid ${worker?.pid} ${alive(worker) ? 'running' : 'exited'}`,
  );
}

/**
 * Starts the API or the worker again when an outage ended it (a FAIL already counted by checkProcessesSurvived),
 * as a supervisor would, so that the later scenarios still run; prints the end of its output first.
 */
async function reviveProcesses(stack: Stack): Promise<void> {
  const dead = (started: Started | null) =>
    started === null || started.child.exitCode !== null || started.child.signalCode !== null;
  if (dead(api)) {
    say(`      the API process ended; its last output:\n${api?.output().slice(-1500) ?? ''}`);
    api = await startChild(tsxBin, ['scripts/start-api.ts'], {
      env: stack.env,
      ready: 'API ready',
      timeoutMs: 120_000,
    });
    note(`API process started again by the benchmark (pid ${api.pid})`);
  }
  if (dead(worker)) {
    say(`      the worker process ended; its last output:\n${worker?.output().slice(-1500) ?? ''}`);
    await startWorker(stack.env);
    note(`worker process started again by the benchmark (pid ${worker!.pid})`);
  }
}

/** Re-sends every accepted mutation with its key: each must be a replay naming the same id. */
async function checkReplays(
  scenario: string,
  mutations: Mutation[],
  attempt: (n: number, key: string) => Promise<Answer>,
  idOf: (answer: Answer) => number,
): Promise<void> {
  let same = 0;
  const wrong: string[] = [];
  for (const mutation of mutations.filter((m) => m.id !== null)) {
    const answer = await attempt(mutation.n, mutation.key);
    if (answer.status >= 200 && answer.status < 300 && answer.replayed && idOf(answer) === mutation.id)
      same++;
    else if (wrong.length < 3) wrong.push(`${mutation.key}: ${answer.status} replayed=${answer.replayed}`);
  }
  const accepted = mutations.filter((m) => m.id !== null).length;
  check(
    scenario,
    'each accepted key replays its original answer',
    same === accepted,
    `${same} of ${accepted}${wrong.length ? `; ${wrong.join('; ')}` : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL stopped and restarted under load.

async function postgresOutage(stack: Stack): Promise<void> {
  const scenario = 'postgres';
  say(`\n== ${scenario}: PostgreSQL stopped for ${downSeconds} s under load`);
  const summaryOf = (n: number) => `fault case ${run} n${n.toString(36)}`;
  const attempt = (n: number, key: string) =>
    call(
      stack,
      'POST',
      '/v1/servicing/cases',
      { customerRef: 'CUST-FAULT', caseTypeCode: 'GENERAL', summary: summaryOf(n) },
      key,
    );
  const idOf = (answer: Answer) => answer.body?.caseId as number;
  const load = startLoad({
    stack,
    attempt,
    idOf,
    read: (id) => call(stack, 'GET', `/v1/servicing/cases/${id}`),
    intervalMs: 100,
    keyPrefix: 'fault-pg',
  });
  await sleep(3000);
  load.setPhase('down');
  const stopping = Date.now();
  await stopPostgres();
  note(`PostgreSQL stopped (fast shutdown) in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
  await sleep(downSeconds * 1000);
  const restarting = Date.now();
  await startPostgres(stack.pgPort);
  const restartedAt = Date.now();
  load.setPhase('after');
  note(
    `PostgreSQL started again on the same data folder and port in ${((restartedAt - restarting) / 1000).toFixed(1)} s`,
  );
  await sleep(quick ? 8000 : 15_000);
  const settled = await load.stop(90_000);
  note(`load stopped (${settled ? 'every mutation ended' : 'some mutations still in flight after 90 s'})`);
  checkOutage(scenario, load.tally, load.mutations, restartedAt, { readsNeedTheService: true });
  checkProcessesSurvived(scenario);

  const accepted = load.mutations.filter((m) => m.id !== null);
  const ids = accepted.map((m) => m.id!);
  const [found] = await stack.sql<{ n: string }[]>`
    select count(*)::text as n from cases where tenant_id = ${tenant} and id = any(${ids})`;
  check(
    scenario,
    'nothing answered 2xx is lost',
    Number(found!.n) === ids.length,
    `${found!.n} of ${ids.length} accepted cases stored`,
  );
  const [dupes] = await stack.sql<{ doubled: string; total: string }[]>`
    select count(*) filter (where n > 1)::text as doubled, coalesce(sum(n), 0)::text as total
    from (select summary, count(*) as n from cases
          where tenant_id = ${tenant} and summary like ${`fault case ${run} %`} group by summary) s`;
  check(
    scenario,
    'each logical mutation made exactly one case',
    dupes!.doubled === '0' && Number(dupes!.total) === accepted.length,
    `${dupes!.total} cases for ${accepted.length} accepted mutations, ${dupes!.doubled} made twice`,
  );
  await checkReplays(scenario, load.mutations, attempt, idOf);
}

// ---------------------------------------------------------------------------------------------------------------
// Temporal stopped and restarted under load.

interface PrivacySeed {
  caseId: number;
  interactionId: number;
}

async function seedPrivacyCases(stack: Stack, count: number): Promise<PrivacySeed[]> {
  const seeds: PrivacySeed[] = [];
  for (let i = 0; i < count; i++) {
    const kase = await call(stack, 'POST', '/v1/servicing/cases', {
      customerRef: 'CUST-FAULT',
      caseTypeCode: 'PRIVACY',
      summary: 'Fault benchmark privacy case',
    });
    if (kase.status !== 201)
      throw new Error(`seeding a case answered ${kase.status}: ${JSON.stringify(kase.body)}`);
    const interaction = await call(stack, 'POST', '/v1/servicing/interactions', {
      customerRef: 'CUST-FAULT',
      caseId: kase.body!.caseId,
      channel: 'EMAIL',
      direction: 'INBOUND',
      summary: 'Customer asked for deletion',
    });
    if (interaction.status !== 201) throw new Error(`seeding an interaction answered ${interaction.status}`);
    seeds.push({
      caseId: kase.body!.caseId as number,
      interactionId: interaction.body!.interactionId as number,
    });
  }
  return seeds;
}

function privacyAttempt(stack: Stack, seeds: PrivacySeed[], label: string) {
  return (n: number, key: string) => {
    const seed = seeds[n % seeds.length]!;
    return call(
      stack,
      'POST',
      '/v1/servicing/privacy-requests',
      {
        customerRef: 'CUST-FAULT',
        requestType: 'DELETION',
        regime: 'CCPA_CPRA',
        summary: `${label} ${run} n${n.toString(36)}`,
        caseId: seed.caseId,
        sourceInteractionId: seed.interactionId,
      },
      key,
    );
  };
}

async function workflowStatus(stack: Stack, workflowId: string): Promise<string> {
  try {
    const description = await (await stack.temporalClient()).workflow.getHandle(workflowId).describe();
    return description.status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    return `ERROR ${(err as Error).message.slice(0, 80)}`;
  }
}

async function fulfil(stack: Stack, requestId: number): Promise<Answer> {
  return call(
    stack,
    'POST',
    `/v1/servicing/privacy-requests/${requestId}/fulfill`,
    { outcome: 'FULFILLED', outcomeReason: 'Deleted everywhere', evidenceIds: [] },
    `fault-fulfil-${run}-${requestId}`,
  );
}

async function temporalOutage(stack: Stack): Promise<void> {
  const scenario = 'temporal';
  say(`\n== ${scenario}: the Temporal dev server stopped for ${temporalDownSeconds} s under load`);
  const seeds = await seedPrivacyCases(stack, 4);
  // Workflows started before the outage: they must complete after it.
  const before: number[] = [];
  for (let i = 0; i < 4; i++) {
    const answer = await privacyAttempt(stack, seeds, 'before outage')(i, `fault-before-${run}-${i}`);
    if (answer.status !== 201) throw new Error(`a request before the outage answered ${answer.status}`);
    before.push(answer.body!.requestId as number);
  }
  const attempt = privacyAttempt(stack, seeds, 'fault request');
  const idOf = (answer: Answer) => answer.body?.requestId as number;
  const load = startLoad({
    stack,
    attempt,
    idOf,
    read: (id) => call(stack, 'GET', `/v1/servicing/privacy-requests/${id}`),
    abandons: (n) => n % 3 === 0,
    intervalMs: 150,
    keyPrefix: 'fault-tp',
  });
  await sleep(3000);
  load.setPhase('down');
  await stopTemporal();
  note('Temporal dev server stopped (SIGTERM)');
  await sleep(temporalDownSeconds * 1000);
  const restarting = Date.now();
  await startTemporal(stack.temporalPort);
  const restartedAt = Date.now();
  load.setPhase('after');
  note(
    `Temporal dev server started again on the same port and state file in ${((restartedAt - restarting) / 1000).toFixed(1)} s`,
  );
  await sleep(quick ? 8000 : 15_000);
  const settled = await load.stop(90_000);
  note(`load stopped (${settled ? 'every mutation ended' : 'some mutations still in flight after 90 s'})`);
  checkOutage(scenario, load.tally, load.mutations, restartedAt, { readsNeedTheService: false });
  checkProcessesSurvived(scenario);

  const accepted = load.mutations.filter((m) => m.id !== null);
  const ids = accepted.map((m) => m.id!);
  const [found] = await stack.sql<{ n: string }[]>`
    select count(*)::text as n from privacy_requests where tenant_id = ${tenant} and id = any(${ids})`;
  check(
    scenario,
    'nothing answered 2xx is lost',
    Number(found!.n) === ids.length,
    `${found!.n} of ${ids.length} accepted requests stored`,
  );
  const [dupes] = await stack.sql<{ doubled: string; total: string }[]>`
    select count(*) filter (where n > 1)::text as doubled, coalesce(sum(n), 0)::text as total
    from (select summary, count(*) as n from privacy_requests
          where tenant_id = ${tenant} and summary like ${`fault request ${run} %`} group by summary) s`;
  check(
    scenario,
    'no logical mutation stored twice',
    dupes!.doubled === '0',
    `${dupes!.total} requests stored for ${load.mutations.length} mutations (${accepted.length} accepted, the rest abandoned after a 503), ${dupes!.doubled} twice`,
  );
  await checkReplays(scenario, load.mutations, attempt, idOf);

  // The start-intent relay (grace 30 s, every 5 s) starts what the route could not while Temporal was down.
  const rows = await stack.sql<{ id: number; workflow_id: string }[]>`
    select id, workflow_id from privacy_requests where tenant_id = ${tenant} order by id`;
  const deadline = Date.now() + 120_000;
  let missing: string[] = [];
  for (;;) {
    missing = [];
    for (const row of rows) {
      const status = await workflowStatus(stack, row.workflow_id);
      if (status === 'NOT_FOUND' || status.startsWith('ERROR')) missing.push(`${row.id} ${status}`);
    }
    if (missing.length === 0 || Date.now() > deadline) break;
    await sleep(5000);
  }
  const [intents] = await stack.sql<{ unstarted: string }[]>`
    select count(*) filter (where started_at is null)::text as unstarted
    from workflow_start_intents where tenant_id = ${tenant}`;
  check(
    scenario,
    'every stored request has its workflow (the start-intent relay started the rest)',
    missing.length === 0 && intents!.unstarted === '0',
    `${rows.length - missing.length} of ${rows.length} workflows exist ${((Date.now() - restartedAt) / 1000).toFixed(0)} s after the restart; ${intents!.unstarted} intents unstarted${missing.length ? `; missing ${missing.slice(0, 3).join(', ')}` : ''}`,
  );

  // The workflows started before the outage still run and complete once fulfilled.
  const outcomes: string[] = [];
  for (const requestId of before) {
    const answer = await fulfil(stack, requestId);
    const [row] = await stack.sql<{ workflow_id: string }[]>`
      select workflow_id from privacy_requests where tenant_id = ${tenant} and id = ${requestId}`;
    let status = '';
    for (let i = 0; i < 60; i++) {
      status = await workflowStatus(stack, row!.workflow_id);
      if (status !== 'RUNNING') break;
      await sleep(500);
    }
    outcomes.push(`${answer.status}/${status}`);
  }
  check(
    scenario,
    'workflows started before the outage complete after it',
    outcomes.every((o) => o === '200/COMPLETED'),
    `fulfil answer/workflow status: ${outcomes.join(', ')}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The worker SIGKILLed in the middle of each kind of process.

/** SIGKILLs the worker's process group, waits for it to end, starts a new worker; prints both pids. */
async function killAndReplaceWorker(stack: Stack, why: string): Promise<void> {
  const old = worker!;
  process.kill(-old.pid, 'SIGKILL');
  await old.exited;
  note(`SIGKILL of the worker (pid ${old.pid}) ${why}`);
  const started = Date.now();
  await startWorker(stack.env);
  note(`new worker (pid ${worker!.pid}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function workerKills(stack: Stack): Promise<void> {
  const scenario = 'worker';
  const count = quick ? 4 : 8;
  say(
    `\n== ${scenario}: the worker process SIGKILLed twice in the middle of payment intents, privacy requests, promises and webhook deliveries (${count} of each)`,
  );

  // Webhook deliveries: a subscription to a local receiver that counts what it is sent.
  const received = new Map<string, number>();
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId?: string };
        if (event.eventId) received.set(event.eventId, (received.get(event.eventId) ?? 0) + 1);
      } catch {
        // not an event
      }
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const receiverPort = (receiver.address() as { port: number }).port;
  const subscription = await call(stack, 'POST', '/v1/servicing/webhook-subscriptions', {
    url: `http://127.0.0.1:${receiverPort}/hooks`,
    eventTypes: ['payment.posted'],
    apiVersion: '2025-01-01',
    description: 'fault benchmark receiver',
  });
  if (subscription.status !== 201)
    throw new Error(`the subscription answered ${subscription.status}: ${JSON.stringify(subscription.body)}`);

  // Payment intents: loans to pay, each ACTIVE with its balance owed and its borrower's verified instrument.
  // One loan per promise too (one promise open per loan), on a case of the loan's customer.
  const loans: { loanId: number; instrumentId: number; customerRef: string }[] = [];
  for (let i = 0; i < count; i++) {
    const boarded = await runLendingDemoFlow(stack.baseUrl, stack.credential, () => {}, {
      historyPayments: 0,
    });
    const customer = await call(stack, 'GET', `/v1/customers/${boarded.customerId}`);
    loans.push({
      loanId: boarded.loanId,
      instrumentId: boarded.instrumentId,
      customerRef: customer.body!.customerRef as string,
    });
  }
  const promisedDate = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const promiseIds: number[] = [];
  for (const loan of loans) {
    const kase = await call(stack, 'POST', '/v1/servicing/cases', {
      customerRef: loan.customerRef,
      caseTypeCode: 'GENERAL',
      summary: 'Borrower promised to pay',
    });
    if (kase.status !== 201)
      throw new Error(`a promise case answered ${kase.status}: ${JSON.stringify(kase.body)}`);
    const promise = await call(stack, 'POST', '/v1/servicing/promises', {
      caseId: kase.body!.caseId,
      loanId: loan.loanId,
      amount: '100.00',
      currency: 'USD',
      promisedDate,
      channel: 'PHONE',
    });
    if (promise.status !== 201)
      throw new Error(`a promise answered ${promise.status}: ${JSON.stringify(promise.body)}`);
    promiseIds.push(promise.body!.promiseId as number);
  }
  const today = new Date().toISOString().slice(0, 10);
  const paymentIds: number[] = [];
  for (let i = 0; i < count; i++) {
    const loan = loans[i % loans.length]!;
    const answer = await call(
      stack,
      'POST',
      `/v1/loans/${loan.loanId}/payments`,
      {
        instrumentId: loan.instrumentId,
        amount: '1.00',
        currency: 'USD',
        rail: 'ACH',
        effectiveDate: today,
        source: 'fault',
      },
      `fault-pay-${run}-${i}`,
    );
    if (answer.status !== 201)
      throw new Error(`a payment intent answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    paymentIds.push(answer.body!.paymentId as number);
  }
  // Privacy requests to fulfil.
  const seeds = await seedPrivacyCases(stack, 2);
  const requestIds: number[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await privacyAttempt(stack, seeds, 'worker kill')(i, `fault-kill-${run}-${i}`);
    if (answer.status !== 201) throw new Error(`a privacy request answered ${answer.status}`);
    requestIds.push(answer.body!.requestId as number);
  }

  /** Payments posted, requests fulfilled and promises kept so far. */
  const finished = async () => {
    const [row] = await stack.sql<{ n: string }[]>`
      select ((select count(*) from payments where tenant_id = ${tenant} and id = any(${paymentIds}) and status = 'POSTED')
        + (select count(*) from privacy_requests where tenant_id = ${tenant} and id = any(${requestIds}) and status = 'FULFILLED')
        + (select count(*) from promises where tenant_id = ${tenant} and id = any(${promiseIds}) and status = 'KEPT'))::text as n`;
    return Number(row!.n);
  };
  /** How far the processes are (from the database): a kill before any progress or after all of it tests nothing. */
  const progress = async () => {
    const [row] = await stack.sql<{ posted: string; fulfilled: string; kept: string; delivered: string }[]>`
      select (select count(*) from payments where tenant_id = ${tenant} and id = any(${paymentIds}) and status = 'POSTED')::text as posted,
             (select count(*) from privacy_requests where tenant_id = ${tenant} and id = any(${requestIds}) and status = 'FULFILLED')::text as fulfilled,
             (select count(*) from promises where tenant_id = ${tenant} and id = any(${promiseIds}) and status = 'KEPT')::text as kept,
             (select count(*) from webhook_deliveries where tenant_id = ${tenant} and state = 'SUCCEEDED')::text as delivered`;
    return `${row!.posted}/${paymentIds.length} payments posted, ${row!.fulfilled}/${requestIds.length} privacy requests fulfilled, ${row!.kept}/${promiseIds.length} promises kept, ${row!.delivered} webhooks delivered`;
  };

  // Everything at once: settlements (each answers once its payment is posted) and fulfilments; the worker is killed
  // while they are in flight, then again a moment later.
  const settleAnswers = paymentIds.map((paymentId) =>
    callRetrying(
      stack,
      'POST',
      `/v1/sandbox/payments/${paymentId}/settle`,
      {},
      `fault-settle-${run}-${paymentId}`,
    ),
  );
  const fulfilAnswers = requestIds.map((requestId) =>
    callRetrying(
      stack,
      'POST',
      `/v1/servicing/privacy-requests/${requestId}/fulfill`,
      { outcome: 'FULFILLED', outcomeReason: 'Deleted everywhere', evidenceIds: [] },
      `fault-fulfil-${run}-${requestId}`,
    ),
  );
  // The promised payments arrive through the borrower's bank (recorded as external): each promise's process sees it
  // and marks the promise KEPT.
  const recordAnswers = loans.map((loan, i) =>
    callRetrying(
      stack,
      'POST',
      `/v1/loans/${loan.loanId}/payments/record-external`,
      {
        amount: '100.00',
        currency: 'USD',
        effectiveDate: today,
        externalRecordRef: `PTP-${run}-${i}`,
        source: 'BANK_TRANSFER',
        rationale: 'Promised payment received by bank transfer',
      },
      `fault-ptp-${run}-${i}`,
    ),
  );
  await sleep(300);
  say(`      at the first kill: ${await progress()}`);
  await killAndReplaceWorker(stack, 'with settlements, fulfilments and kept promises in flight');
  // The second kill waits until some of the processes have finished and some have not (at most 30 s).
  const total = paymentIds.length + requestIds.length + promiseIds.length;
  for (const until = Date.now() + 30_000; Date.now() < until; ) {
    const done = await finished();
    if (done > 0 && done < total) break;
    await sleep(200);
  }
  say(`      at the second kill: ${await progress()}`);
  await killAndReplaceWorker(stack, 'a second time, while they finish');
  const recorded = await Promise.all(recordAnswers);
  const settled = await Promise.all(settleAnswers);
  const fulfilled = await Promise.all(fulfilAnswers);
  say(
    `      settle answers: ${summarise(settled.map((a) => a.status))}; fulfil answers: ${summarise(fulfilled.map((a) => a.status))}; record-external answers: ${summarise(recorded.map((a) => a.status))}`,
  );

  // Payment intents: each POSTED, one posting (journal entries of one payment), one payment.posted outbox row.
  const payments = await stack.sql<{ id: number; status: string }[]>`
    select id, status from payments where tenant_id = ${tenant} and id = any(${paymentIds})`;
  const posted = payments.filter((p) => p.status === 'POSTED').length;
  const outbox = await stack.sql<{ subject: string; n: string }[]>`
    select subject_id as subject, count(*)::text as n from outbox_events
    where tenant_id = ${tenant} and event_type = 'payment.posted' group by subject_id`;
  const postedOnce = paymentIds.every((id) => outbox.find((row) => row.subject === String(id))?.n === '1');
  check(
    scenario,
    'payment intents: each posted exactly once',
    posted === paymentIds.length && postedOnce,
    `${posted} of ${paymentIds.length} POSTED; payment.posted rows per payment: ${summarise(paymentIds.map((id) => Number(outbox.find((row) => row.subject === String(id))?.n ?? 0)))}`,
  );
  const cash = await stack.sql<{ ref: string; net: string }[]>`
    select transaction_ref as ref, (sum(debit) - sum(credit))::text as net from journal_entries
    where tenant_id = ${tenant} and account_code = 'EXTERNAL_CLEARING'
      and transaction_ref = any(${paymentIds.map((id) => `payment/${id}`)}) group by transaction_ref`;
  check(
    scenario,
    'payment intents: the cash moved once (EXTERNAL_CLEARING debited 1.00 per payment)',
    cash.length === paymentIds.length && cash.every((row) => Number(row.net) === 1),
    `net per payment: ${summarise(paymentIds.map((id) => cash.find((row) => row.ref === `payment/${id}`)?.net ?? '0'))}`,
  );

  // Privacy requests: each FULFILLED once, its workflow completed. The fulfil route answers once the request is
  // FULFILLED; its process ends after that, on a worker that may have just started: it is given 60 s.
  const requests = await stack.sql<{ id: number; status: string; workflow_id: string }[]>`
    select id, status, workflow_id from privacy_requests where tenant_id = ${tenant} and id = any(${requestIds})`;
  let completed: string[] = [];
  for (const until = Date.now() + 60_000; ; ) {
    completed = await Promise.all(requests.map((row) => workflowStatus(stack, row.workflow_id)));
    if (completed.every((status) => status !== 'RUNNING') || Date.now() > until) break;
    await sleep(500);
  }
  const effects = await stack.sql<{ subject: string; n: string }[]>`
    select subject_id as subject, count(*)::text as n from case_effects
    where tenant_id = ${tenant} and effect_type = 'PRIVACY_REQUEST_FULFILLED'
      and subject_id = any(${requestIds.map(String)}) group by subject_id`;
  check(
    scenario,
    'privacy requests: each fulfilled once (one outcome effect), its process completed',
    requests.length === requestIds.length &&
      requests.every((row) => row.status === 'FULFILLED') &&
      completed.every((status) => status === 'COMPLETED') &&
      requestIds.every((id) => effects.find((row) => row.subject === String(id))?.n === '1'),
    `statuses ${summarise(requests.map((row) => row.status))}; workflows ${summarise(completed)}; outcome effects per request ${summarise(requestIds.map((id) => effects.find((row) => row.subject === String(id))?.n ?? '0'))}`,
  );

  // Promises: each KEPT once (one PROMISE_KEPT effect, one promise.kept event), its process completed.
  const keptDeadline = Date.now() + 60_000;
  let promiseRows: { id: number; status: string }[] = [];
  for (;;) {
    promiseRows = await stack.sql`
      select id, status from promises where tenant_id = ${tenant} and id = any(${promiseIds})`;
    if (promiseRows.every((row) => row.status === 'KEPT') || Date.now() > keptDeadline) break;
    await sleep(500);
  }
  const keptEffects = await stack.sql<{ subject: string; n: string }[]>`
    select subject_id as subject, count(*)::text as n from case_effects
    where tenant_id = ${tenant} and effect_type = 'PROMISE_KEPT' and subject_id = any(${promiseIds.map(String)})
    group by subject_id`;
  const keptEvents = await stack.sql<{ subject: string; n: string }[]>`
    select subject_id as subject, count(*)::text as n from outbox_events
    where tenant_id = ${tenant} and event_type = 'promise.kept' and subject_id = any(${promiseIds.map(String)})
    group by subject_id`;
  const perPromise = (rows: { subject: string; n: string }[]) =>
    promiseIds.map((id) => rows.find((row) => row.subject === String(id))?.n ?? '0');
  check(
    scenario,
    'promises: each kept once (one PROMISE_KEPT effect, one promise.kept event)',
    promiseRows.length === promiseIds.length &&
      promiseRows.every((row) => row.status === 'KEPT') &&
      perPromise(keptEffects).every((n) => n === '1') &&
      perPromise(keptEvents).every((n) => n === '1'),
    `statuses ${summarise(promiseRows.map((row) => row.status))}; effects per promise ${summarise(perPromise(keptEffects))}; events per promise ${summarise(perPromise(keptEvents))}`,
  );

  // Webhook deliveries: every payment.posted event reached the receiver; one delivery per event and
  // subscription, SUCCEEDED; one attempt record per attempt the receiver saw (at-least-once: a kill between the
  // receiver's answer and the record means one more attempt, which must be recorded too).
  const events = await stack.sql<{ event_id: string }[]>`
    select event_id from outbox_events where tenant_id = ${tenant} and event_type = 'payment.posted'
      and subject_id = any(${paymentIds.map(String)})`;
  const deadline = Date.now() + 90_000;
  let deliveries: { event_id: string; state: string; attempts: string; succeeded: string }[] = [];
  for (;;) {
    deliveries = await stack.sql`
      select d.event_id, d.state::text as state, count(a.id)::text as attempts,
             count(a.id) filter (where a.response_status between 200 and 299)::text as succeeded
      from webhook_deliveries d left join webhook_delivery_attempts a on a.delivery_id = d.delivery_id
      where d.tenant_id = ${tenant} and d.subscription_id = ${subscription.body!.subscriptionId as number}
        and d.event_id = any(${events.map((e) => e.event_id)})
      group by d.event_id, d.state`;
    const done = deliveries.filter((d) => d.state === 'SUCCEEDED').length === events.length;
    if (done || Date.now() > deadline) break;
    await sleep(1000);
  }
  const recordMatches = events.every((e) => {
    const row = deliveries.find((d) => d.event_id === e.event_id);
    return row !== undefined && Number(row.attempts) === (received.get(e.event_id) ?? 0);
  });
  check(
    scenario,
    'webhook deliveries: each event delivered, one delivery SUCCEEDED, one attempt record per attempt received',
    events.length === paymentIds.length &&
      deliveries.length === events.length &&
      deliveries.every((d) => d.state === 'SUCCEEDED' && d.succeeded === '1') &&
      recordMatches,
    `${events.length} events; delivery states ${summarise(deliveries.map((d) => d.state))}; received per event ${summarise(events.map((e) => received.get(e.event_id) ?? 0))}; attempt records per event ${summarise(deliveries.map((d) => d.attempts))}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The worker SIGKILLed in the middle of inbound channel events, statement cycles and hardship offers.

/** ISO date `months` months before today (UTC) on day `day` (1–28). */
function monthsAgoOn(months: number, day: number): string {
  const today = new Date();
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - months, day))
    .toISOString()
    .slice(0, 10);
}

/** `X-Service-Gateway-Signature` of `text` at `timestamp` (unix seconds): `t=<t>,v1=<hex HMAC-SHA256>`. */
function gatewaySignature(secret: string, timestamp: number, text: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${text}`).digest('hex')}`;
}

/** Posts a channel event signed with the gateway's secret, as a gateway does (retried on 503 or no answer). */
async function deliverChannelEvent(
  stack: Stack,
  gateway: { code: string; secret: string },
  event: { eventId: string; eventType: string; occurredAt: string; data: Record<string, unknown> },
): Promise<Answer> {
  const text = JSON.stringify(event);
  const deadline = Date.now() + 120_000;
  for (;;) {
    let answer: Answer;
    try {
      const response = await fetch(`${stack.baseUrl}/v1/servicing/channel-events/${gateway.code}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-gateway-signature': gatewaySignature(
            gateway.secret,
            Math.floor(Date.now() / 1000),
            text,
          ),
        },
        body: text,
        signal: AbortSignal.timeout(30_000),
      });
      const raw = await response.text();
      let parsed: Record<string, unknown> | null = null;
      try {
        parsed = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        parsed = null;
      }
      answer = {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        replayed: false,
        body: parsed,
        at: Date.now(),
      };
    } catch {
      answer = { status: 0, retryAfter: null, replayed: false, body: null, at: Date.now() };
    }
    if (![0, 429, 503].includes(answer.status) || Date.now() > deadline) return answer;
    await sleep(1000);
  }
}

/**
 * The `worker-servicing` scenario (module note): sets up its loans, gateway, checker client and hardship program
 * through the public API (and the platform operations `npm run admin` uses), puts every kind of process in flight,
 * SIGKILLs the worker twice (`killAndReplaceWorker`), then checks each process's effects in PostgreSQL and its
 * workflow in Temporal. Throws (a set-up failure, exit code 2) when a set-up step answers other than expected.
 */
async function workerKillsServicing(stack: Stack): Promise<void> {
  const scenario = 'worker-servicing';
  const eventCount = quick ? 4 : 8;
  const statementLoanCount = quick ? 3 : 6;
  const offerCount = quick ? 3 : 6;
  /** One per statement loan's customer (one update per contact point: none supersedes another). */
  const consentCount = statementLoanCount;
  const autopayCount = quick ? 2 : 4;
  say(
    `\n== ${scenario}: the worker process SIGKILLed twice in the middle of inbound channel events (${eventCount}), statement runs (${statementLoanCount} loans × 12 installments, one run per statement date), hardship offers (${offerCount}, each approved, accepted and applied), scheduled contact-consent updates (${consentCount}) and autopay enrolments (${autopayCount})`,
  );
  const temporalClient = await stack.temporalClient();

  // A gateway and a checker client (maker-checker of the hardship offers), made as `npm run admin` makes them.
  const config = loadConfig(stack.env);
  const { db, close } = createDb(stack.databaseUrl, { maxConnections: 1 });
  const gatewayCode = `fault-${run}`;
  let gatewaySecret: string;
  let checker: { tenant: string; clientId: string; clientSecret: string };
  try {
    const platform = createPlatformOperations(operationDeps(db, config));
    ({ gatewaySecret } = await platform.createChannelGateway({ tenantId: tenant, code: gatewayCode }));
    const created = await platform.createClient({
      tenantId: tenant,
      environment: 'sandbox',
      scopes: ['servicing:read', 'actions:approve'],
      permissions: ['APPROVE_HARDSHIPOFFER'],
      rateLimitPerSecond: 1_000_000,
    });
    checker = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
  } finally {
    await close();
  }
  const gateway = { code: gatewayCode, secret: gatewaySecret };
  const checkerToken = await requestToken(stack.baseUrl, checker, 'servicing:read actions:approve', () => {});

  // Loans, each boarded by the lending demo flow (statement-enabled product, lead 21 days), on days of the month
  // no other loan here uses, so that a statement run of these dates lists these loans only: the statement loans 13
  // months ago (every installment due, so every statement date has passed), unpaid; the hardship loans four months
  // ago with their first payment (installments ahead to defer), as the hardship demo boards them; the autopay loans
  // 50 days ago with their first payment (the second installment due in 8–12 days), as the autopay test does.
  const today = new Date().toISOString().slice(0, 10);
  const autopayDisbursement = addDays(today, -50);
  const taken = new Set([Math.min(new Date().getUTCDate(), 28), Number(autopayDisbursement.slice(8, 10))]);
  const [statementDay, hardshipDay] = [3, 6, 9, 12, 15, 18, 21, 24, 27].filter((day) => !taken.has(day)) as [
    number,
    number,
  ];
  const board = async (disbursementDate: string, historyPayments: number) => {
    const boarded = await runLendingDemoFlow(stack.baseUrl, stack.credential, () => {}, {
      disbursementDate,
      historyPayments,
    });
    const customer = await call(stack, 'GET', `/v1/customers/${boarded.customerId}`);
    const points = (customer.body!.contactPoints ?? []) as { contactType: string; contactPointRef: string }[];
    return {
      ...boarded,
      customerRef: customer.body!.customerRef as string,
      emailRef: points.find((point) => point.contactType === 'EMAIL')?.contactPointRef ?? '',
    };
  };
  const statementLoans: Awaited<ReturnType<typeof board>>[] = [];
  for (let i = 0; i < statementLoanCount; i++)
    statementLoans.push(await board(monthsAgoOn(13, statementDay), 0));
  const hardshipLoans: Awaited<ReturnType<typeof board>>[] = [];
  for (let i = 0; i < offerCount; i++) hardshipLoans.push(await board(monthsAgoOn(4, hardshipDay), 1));
  const autopayLoans: Awaited<ReturnType<typeof board>>[] = [];
  for (let i = 0; i < autopayCount; i++) autopayLoans.push(await board(autopayDisbursement, 1));
  // The installment each enrolment collects: the first due strictly after today (the enrolment date).
  const autopayInstallments = autopayLoans.map(
    (loan) =>
      (loan.schedule.periods as { period?: unknown; dueDate: string }[]).find(
        (p) => typeof p.period === 'number' && p.dueDate > today,
      )?.period as number,
  );
  const dueDates = [
    ...new Set(
      statementLoans.flatMap((loan) =>
        (loan.schedule.periods as { period?: unknown; dueDate: string }[])
          .filter((p) => typeof p.period === 'number')
          .map((p) => p.dueDate),
      ),
    ),
  ].sort();
  const asOfs = [...new Set(dueDates.map((due) => statementDateFor(due, 21)))].sort();
  const statementLoanIds = statementLoans.map((loan) => loan.loanId);
  const expectedStatements = statementLoans.flatMap((loan) =>
    (loan.schedule.periods as { period?: unknown; dueDate: string }[])
      .filter((p) => typeof p.period === 'number')
      .map((p) => ({ loanId: loan.loanId, dueDate: p.dueDate })),
  );

  // Hardship: guardrails and a deferral program (1 installment straight through, up to 3 with a second person's
  // approval; the signed statement as evidence, which the process confirms before it applies the relief).
  const guardrails = await call(
    stack,
    'PUT',
    '/v1/servicing/admin/hardship-policies/guardrails',
    deferralGuardrails,
  );
  if (guardrails.status !== 200)
    throw new Error(`the guardrails answered ${guardrails.status}: ${JSON.stringify(guardrails.body)}`);
  const programCode = 'FAULT_DEFER';
  const program = await call(
    stack,
    'POST',
    '/v1/servicing/admin/hardship-programs',
    deferralProgramBody(programCode, {
      displayName: 'Fault benchmark deferral',
      humanApprovalPermission: 'APPROVE_HARDSHIPOFFER',
    }),
  );
  if (program.status !== 201)
    throw new Error(`the hardship program answered ${program.status}: ${JSON.stringify(program.body)}`);
  const hardshipCases: number[] = [];
  for (const loan of hardshipLoans) {
    const kase = await call(stack, 'POST', '/v1/servicing/cases', {
      customerRef: loan.customerRef,
      caseTypeCode: 'HARDSHIP',
      summary: 'Lost job; asks to defer two payments',
    });
    if (kase.status !== 201)
      throw new Error(`a hardship case answered ${kase.status}: ${JSON.stringify(kase.body)}`);
    hardshipCases.push(kase.body!.caseId as number);
  }

  // Channel events: completed voice calls (each logs an interaction on a case of its customer) and SMS replies
  // STOP from the borrowers' phone (each revokes SMS consent of every customer with that phone).
  const voiceCases: number[] = [];
  for (const loan of statementLoans) {
    const kase = await call(stack, 'POST', '/v1/servicing/cases', {
      customerRef: loan.customerRef,
      caseTypeCode: 'GENERAL',
      summary: 'Calls with the borrower',
    });
    if (kase.status !== 201)
      throw new Error(`a voice case answered ${kase.status}: ${JSON.stringify(kase.body)}`);
    voiceCases.push(kase.body!.caseId as number);
  }
  const phone = '+14155552671';
  const events = Array.from({ length: eventCount }, (_, i) => {
    const loan = statementLoans[i % statementLoans.length]!;
    return i % 2 === 0
      ? {
          eventId: `call-${run}-${i.toString(36)}`,
          eventType: 'voice.call.completed',
          occurredAt: new Date().toISOString(),
          data: {
            customerRef: loan.customerRef,
            direction: 'INBOUND',
            durationSeconds: 60 + i,
            summary: 'Borrower called about the statement',
            caseId: voiceCases[i % voiceCases.length],
          },
        }
      : {
          eventId: `sms-${run}-${i.toString(36)}`,
          eventType: 'sms.inbound',
          occurredAt: new Date().toISOString(),
          data: { from: phone, text: 'STOP' },
        };
  });
  const eventKey = (eventId: string) => `channel-event/${gatewayCode}/${eventId}`;

  // Scheduled contact-consent updates: each customer of a statement loan stops e-mail on its EMAIL contact point,
  // effective a few seconds to half a minute from now (the process's durable timer fires around the kills).
  const consentLoans = statementLoans;

  /** Events processed, statements stored, offers applied, consent updates applied and autopay intents so far. */
  const counts = async () => {
    const [row] = await stack.sql<
      { processed: string; statements: string; applied: string; consents: string; autopay: string }[]
    >`
      select (select count(*) from channel_events where tenant_id = ${tenant} and gateway_code = ${gatewayCode} and status <> 'RECEIVED')::text as processed,
             (select count(*) from statements where tenant_id = ${tenant} and loan_id = any(${statementLoanIds}))::text as statements,
             (select count(*) from hardship_offers where tenant_id = ${tenant} and loan_id = any(${hardshipLoans.map((l) => l.loanId)}) and status = 'APPLIED')::text as applied,
             (select count(*) from contact_consent_updates where tenant_id = ${tenant} and id = any(${consentUpdateIds}) and status <> 'SCHEDULED')::text as consents,
             (select count(*) from payments where tenant_id = ${tenant} and loan_id = any(${autopayLoans.map((l) => l.loanId)}) and source = 'AUTOPAY')::text as autopay`;
    return {
      processed: Number(row!.processed),
      statements: Number(row!.statements),
      applied: Number(row!.applied),
      consents: Number(row!.consents),
      autopay: Number(row!.autopay),
    };
  };
  const progress = async () => {
    const now = await counts();
    return `${now.processed}/${eventCount} channel events processed, ${now.statements}/${expectedStatements.length} statements stored, ${now.applied}/${offerCount} hardship offers applied, ${now.consents}/${consentCount} consent updates applied, ${now.autopay}/${autopayCount} autopay intents created`;
  };
  const consentUpdateIds: number[] = [];
  const consentEffectiveAt: string[] = [];
  /** Schedules the consent updates (answer 200 SCHEDULED), effective 3 s to 3 + 24 s from now. */
  const scheduleConsentUpdates = async () => {
    const answers = await Promise.all(
      consentLoans.map((loan, i) => {
        const effectiveAt = new Date(
          Date.now() + 3000 + Math.round((24_000 * i) / consentCount),
        ).toISOString();
        consentEffectiveAt.push(effectiveAt);
        return callRetrying(
          stack,
          'POST',
          `/v1/servicing/cases/${voiceCases[statementLoans.indexOf(loan)]}/contact-consent-updates`,
          {
            customerRef: loan.customerRef,
            operation: 'UPDATE_EMAIL_PERMISSION',
            contactPointRef: loan.emailRef,
            canReceiveEmail: false,
            effectiveAt,
            reason: 'Customer asked to stop e-mail',
          },
          `fault-consent-${run}-${i}`,
        );
      }),
    );
    for (const answer of answers) {
      if (answer.status !== 200 || answer.body?.outcome !== 'SCHEDULED')
        throw new Error(`a consent update answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      consentUpdateIds.push(answer.body.resourceId as number);
    }
  };
  /** Enrols autopay loan `i` (ACH, installment due, collected 15 days before the due date: at once). */
  const enrolments: { enrolmentId: number | null; answer: string }[] = [];
  const enrolAutopay = async (i: number) => {
    const loan = autopayLoans[i]!;
    const answer = await callRetrying(
      stack,
      'POST',
      `/v1/loans/${loan.loanId}/autopay`,
      {
        instrumentId: loan.instrumentId,
        authorizationRef: `AUTH-fault-${run}-${i.toString(36)}`,
        rail: 'ACH',
        amountType: 'INSTALLMENT_DUE',
        daysBeforeDue: 15,
      },
      `fault-autopay-${run}-${i}`,
    );
    enrolments[i] = {
      enrolmentId: answer.status === 201 ? (answer.body!.enrolmentId as number) : null,
      answer: `${answer.status}${answer.status === 201 ? '' : ` ${JSON.stringify(answer.body).slice(0, 200)}`}`,
    };
  };

  // Everything at once: the first half of the events; the statement runs one date after the other, each awaited,
  // as an operator catches up days (`npm run admin -- statements run --wait`); each offer created (above the
  // straight-through maximum → PENDING_APPROVAL), approved by the checker, accepted, its evidence added.
  const half = Math.ceil(eventCount / 2);
  const cycles: {
    asOf: string;
    workflowId: string;
    result: TenantStatementCycleResult | null;
    error: string | null;
  }[] = [];
  const statementRuns = (async () => {
    for (const asOf of asOfs) {
      const entry = {
        asOf,
        workflowId: '',
        result: null as TenantStatementCycleResult | null,
        error: null as string | null,
      };
      cycles.push(entry);
      try {
        entry.workflowId = await startTenantStatementCycle(temporalClient, { tenantId: tenant, asOf });
        entry.result = (await temporalClient.workflow
          .getHandle(entry.workflowId)
          .result()) as TenantStatementCycleResult;
      } catch (err) {
        entry.error = (err as Error).message.slice(0, 200);
      }
    }
  })();
  const maker = { headers: { 'service-actor': 'fault.agent' } };
  // Create (PENDING_APPROVAL), approve by the checker, accept (AWAITING_DOCUMENTS): the routes' part of each offer.
  const offerChains = hardshipLoans.map(async (loan, i) => {
    const steps: string[] = [];
    const created = await callRetrying(
      stack,
      'POST',
      '/v1/servicing/hardship-offers',
      {
        caseId: hardshipCases[i],
        loanId: loan.loanId,
        programCode,
        hardshipReasonCode: 'JOB_LOSS',
        requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 2 } },
      },
      `fault-offer-${run}-${i}`,
      maker,
    );
    steps.push(`${created.status} ${created.body?.status}`);
    const offerId = created.status === 201 ? (created.body!.offerId as number) : null;
    if (offerId === null) return { offerId, steps };
    const approved = await callRetrying(
      stack,
      'POST',
      `/v1/servicing/hardship-offers/${offerId}/approve`,
      undefined,
      `fault-approve-${run}-${i}`,
      { token: checkerToken, headers: { 'service-actor': 'fault.supervisor' } },
    );
    steps.push(`${approved.status} ${approved.body?.status}`);
    const accepted = await callRetrying(
      stack,
      'POST',
      `/v1/servicing/hardship-offers/${offerId}/accept`,
      undefined,
      `fault-accept-${run}-${i}`,
      { headers: { 'service-actor': 'fault.borrower' } },
    );
    steps.push(`${accepted.status} ${accepted.body?.status}`);
    return { offerId, steps };
  });
  /** The signed statement added to the offer's case: its process confirms it and applies the relief. */
  const addEvidence = async (chain: { offerId: number | null; steps: string[] }, i: number) => {
    if (chain.offerId === null) return;
    const evidence = await callRetrying(
      stack,
      'POST',
      '/v1/servicing/evidence',
      {
        caseId: hardshipCases[i],
        evidenceType: 'HARDSHIP_STATEMENT',
        description: 'Signed hardship statement',
      },
      `fault-evidence-${run}-${i}`,
      maker,
    );
    chain.steps.push(`${evidence.status}`);
  };
  // The first kill: once every offer is accepted (its process waiting for the evidence) and the statement runs are
  // under way (a statement stored; at most 15 s), right after the first half of the channel events and of the
  // offers' evidence is sent.
  const chains = await Promise.all(offerChains);
  for (const until = Date.now() + 15_000; Date.now() < until; ) {
    if ((await counts()).statements > 0) break;
    await sleep(100);
  }
  await scheduleConsentUpdates();
  const firstDeliveries = events.slice(0, half).map((event) => deliverChannelEvent(stack, gateway, event));
  const offersHalf = Math.ceil(offerCount / 2);
  const firstEvidence = chains.slice(0, offersHalf).map((chain, i) => addEvidence(chain, i));
  const autopayHalf = Math.ceil(autopayCount / 2);
  const firstEnrolments = Array.from({ length: autopayHalf }, (_, i) => enrolAutopay(i));
  await sleep(50);
  say(`      at the first kill: ${await progress()}`);
  // The other half of the events, of the evidence and of the autopay enrolments arrives while no worker runs
  // (stored, left to the next worker), and the gateway re-sends the first half of the events (duplicates: stored
  // once).
  const replacing = killAndReplaceWorker(
    stack,
    'with channel events, statement runs, hardship offers, consent updates and autopay in flight',
  );
  await sleep(100);
  const firstAnswers = await Promise.all(firstDeliveries);
  const secondAnswers = await Promise.all(
    events.slice(half).map((event) => deliverChannelEvent(stack, gateway, event)),
  );
  await Promise.all(chains.slice(offersHalf).map((chain, i) => addEvidence(chain, offersHalf + i)));
  await Promise.all(
    Array.from({ length: autopayCount - autopayHalf }, (_, i) => enrolAutopay(autopayHalf + i)),
  );
  const repeatAnswers = await Promise.all(
    events.slice(0, half).map((event) => deliverChannelEvent(stack, gateway, event)),
  );
  await Promise.all(firstEvidence);
  await Promise.all(firstEnrolments);
  await replacing;
  // The second kill waits until the new worker has stored a statement and the statement runs are not done (at most
  // 30 s): it stops a run in the middle.
  const atRestart = (await counts()).statements;
  for (const until = Date.now() + 30_000; Date.now() < until; ) {
    const now = await counts();
    if (now.statements > atRestart && now.statements < expectedStatements.length) break;
    await sleep(100);
  }
  say(`      at the second kill: ${await progress()}`);
  await killAndReplaceWorker(stack, 'a second time, while they finish');
  await statementRuns;
  say(
    `      channel-event answers: first ${summarise(firstAnswers.map((a) => `${a.status}${a.body?.duplicate === true ? ' duplicate' : ''}`))}, while no worker ran ${summarise(secondAnswers.map((a) => `${a.status}${a.body?.duplicate === true ? ' duplicate' : ''}`))}, re-sent ${summarise(repeatAnswers.map((a) => `${a.status}${a.body?.duplicate === true ? ' duplicate' : ''}`))}; hardship steps (create, approve, accept, evidence): ${summarise(chains.map((c) => c.steps.join(' → ')))}; autopay enrolments: ${summarise(enrolments.map((e) => e.answer))}`,
  );

  // Channel events: each stored once (the re-sent ones answered 200 duplicate), PROCESSED, its workflow completed.
  const workflowOf = async (workflowId: string) => workflowStatus(stack, workflowId);
  const eventIds = events.map((e) => e.eventId);
  const eventDeadline = Date.now() + 60_000;
  let eventRows: { event_id: string; status: string }[] = [];
  for (;;) {
    eventRows = await stack.sql`
      select event_id, status from channel_events where tenant_id = ${tenant} and gateway_code = ${gatewayCode}`;
    if (
      eventRows.filter((row) => row.status !== 'RECEIVED').length === eventCount ||
      Date.now() > eventDeadline
    )
      break;
    await sleep(500);
  }
  const eventWorkflows = await Promise.all(
    eventIds.map((eventId) => workflowOf(channelEventWorkflowId(tenant, gatewayCode, eventId))),
  );
  const rowsPerEvent = eventIds.map((id) => eventRows.filter((row) => row.event_id === id).length);
  check(
    scenario,
    'channel events: each stored once (a re-sent one answered 200 duplicate), processed, its process completed',
    eventRows.length === eventCount &&
      rowsPerEvent.every((n) => n === 1) &&
      eventRows.every((row) => row.status === 'PROCESSED') &&
      eventWorkflows.every((status) => status === 'COMPLETED') &&
      [...firstAnswers, ...secondAnswers].every((a) => a.status === 202 && a.body?.duplicate === false) &&
      repeatAnswers.every((a) => a.status === 200 && a.body?.duplicate === true),
    `${eventRows.length} rows for ${eventCount} events (rows per event ${summarise(rowsPerEvent)}); statuses ${summarise(eventRows.map((row) => row.status))}; workflows ${summarise(eventWorkflows)}; re-sent answers ${summarise(repeatAnswers.map((a) => `${a.status} duplicate=${a.body?.duplicate}`))}`,
  );
  // Voice calls: one VOICE interaction per event (its request key the event's key), one INTERACTION_LOGGED effect.
  const voiceKeys = events
    .filter((e) => e.eventType === 'voice.call.completed')
    .map((e) => eventKey(e.eventId));
  const interactionRows = await stack.sql<{ key: string; interactions: string; effects: string }[]>`
    select i.request_key as key, count(distinct i.id)::text as interactions, count(e.id)::text as effects
    from interactions i left join case_effects e
      on e.tenant_id = i.tenant_id and e.effect_type = 'INTERACTION_LOGGED' and e.subject_id = i.id::text
    where i.tenant_id = ${tenant} and i.request_key = any(${voiceKeys}) group by i.request_key`;
  const perVoice = (field: 'interactions' | 'effects') =>
    voiceKeys.map((key) => interactionRows.find((row) => row.key === key)?.[field] ?? '0');
  check(
    scenario,
    'channel events: each voice call logged one interaction with one INTERACTION_LOGGED effect',
    perVoice('interactions').every((n) => n === '1') && perVoice('effects').every((n) => n === '1'),
    `${voiceKeys.length} calls; interactions per call ${summarise(perVoice('interactions'))}; effects per call ${summarise(perVoice('effects'))}`,
  );
  // SMS STOP: one SMS consent revocation and one CONSENT_RECORDED history row per customer with that phone.
  const smsKeys = events.filter((e) => e.eventType === 'sms.inbound').map((e) => eventKey(e.eventId));
  const [phoneCustomers] = await stack.sql<{ n: string }[]>`
    select count(distinct customer_id)::text as n from contact_points
    where tenant_id = ${tenant} and contact_type = 'PHONE' and normalized_value = ${phone}`;
  const consentRows = await stack.sql<{ key: string; n: string }[]>`
    select evidence_ref as key, count(*)::text as n from consents
    where tenant_id = ${tenant} and consent_type = 'SMS' and granted = false and evidence_ref = any(${smsKeys})
    group by evidence_ref`;
  const historyRows = await stack.sql<{ key: string; n: string }[]>`
    select correlation_id as key, count(*)::text as n from customer_history
    where tenant_id = ${tenant} and action = 'CONSENT_RECORDED' and correlation_id = any(${smsKeys})
    group by correlation_id`;
  const perSms = (rows: { key: string; n: string }[]) =>
    smsKeys.map((key) => rows.find((row) => row.key === key)?.n ?? '0');
  check(
    scenario,
    'channel events: each SMS STOP revoked SMS consent once per customer with that phone (one consent, one history row)',
    Number(phoneCustomers!.n) > 0 &&
      perSms(consentRows).every((n) => n === phoneCustomers!.n) &&
      perSms(historyRows).every((n) => n === phoneCustomers!.n),
    `${smsKeys.length} replies, ${phoneCustomers!.n} customers with ${phone}; consents per reply ${summarise(perSms(consentRows))}; history rows per reply ${summarise(perSms(historyRows))}`,
  );

  // Statements: each run completed; one statement per loan and due date, one statement.generated event each, its
  // PDF served.
  const cycleStatuses = await Promise.all(
    cycles.map((cycle) => (cycle.workflowId ? workflowOf(cycle.workflowId) : 'NOT_STARTED')),
  );
  const statementRows = await stack.sql<{ id: number; loan_id: number; due_date: string }[]>`
    select id::int as id, loan_id::int as loan_id, due_date::text as due_date from statements
    where tenant_id = ${tenant} and loan_id = any(${statementLoanIds})`;
  const perStatement = expectedStatements.map(
    (s) => statementRows.filter((row) => row.loan_id === s.loanId && row.due_date === s.dueDate).length,
  );
  const reported = cycles.map((cycle) =>
    cycle.result
      ? `${cycle.result.counts.generated}+${cycle.result.counts.existing}+${cycle.result.counts.skipped}`
      : `error ${cycle.error}`,
  );
  const listedPerRun = cycles.map((cycle) =>
    cycle.result ? cycle.result.counts.generated + cycle.result.counts.existing : -1,
  );
  const expectedPerRun = cycles.map(
    (cycle) => expectedStatements.filter((s) => statementDateFor(s.dueDate, 21) === cycle.asOf).length,
  );
  check(
    scenario,
    'statement runs: each completed, every candidate generated or found (none skipped)',
    cycles.length === asOfs.length &&
      cycleStatuses.every((status) => status === 'COMPLETED') &&
      cycles.every((cycle) => cycle.result?.counts.skipped === 0) &&
      listedPerRun.every((n, i) => n === expectedPerRun[i]),
    `${cycles.length} runs (${asOfs[0]} … ${asOfs.at(-1)}); workflows ${summarise(cycleStatuses)}; generated+existing+skipped per run ${summarise(reported)} (expected ${summarise(expectedPerRun)} per run)`,
  );
  const statementEvents = await stack.sql<{ subject: string; n: string }[]>`
    select subject_id as subject, count(*)::text as n from outbox_events
    where tenant_id = ${tenant} and event_type = 'statement.generated'
      and subject_id = any(${statementRows.map((row) => String(row.id))}) group by subject_id`;
  const eventsPerStatement = statementRows.map(
    (row) => statementEvents.find((e) => e.subject === String(row.id))?.n ?? '0',
  );
  check(
    scenario,
    'statements: one per loan and due date, one statement.generated event each',
    statementRows.length === expectedStatements.length &&
      perStatement.every((n) => n === 1) &&
      eventsPerStatement.every((n) => n === '1'),
    `${statementRows.length} statements for ${expectedStatements.length} (loan, due date) pairs; statements per pair ${summarise(perStatement)}; events per statement ${summarise(eventsPerStatement)}`,
  );
  const pdfs: string[] = [];
  for (const row of statementRows) {
    try {
      const response = await fetch(`${stack.baseUrl}/v1/loans/${row.loan_id}/statements/${row.id}/pdf`, {
        headers: { authorization: `Bearer ${stack.token}`, 'service-tenant': tenant },
        signal: AbortSignal.timeout(30_000),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      pdfs.push(
        `${response.status} ${response.headers.get('content-type')}${bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? ' %PDF' : ' not a PDF'}`,
      );
    } catch (err) {
      pdfs.push(`no answer: ${(err as Error).message.slice(0, 60)}`);
    }
  }
  check(
    scenario,
    'statements: each PDF served',
    pdfs.length === expectedStatements.length && pdfs.every((p) => p === '200 application/pdf %PDF'),
    `${summarise(pdfs)}`,
  );

  // Hardship offers: each APPLIED once (one HARDSHIP_RELIEF schedule version, version 2), one event per state,
  // evidence confirmed once, its process completed with APPLIED.
  const offerIds = chains.map((c) => c.offerId).filter((id): id is number => id !== null);
  const appliedDeadline = Date.now() + 60_000;
  let offerRows: { id: number; status: string }[] = [];
  for (;;) {
    offerRows =
      await stack.sql`select id, status from hardship_offers where tenant_id = ${tenant} and id = any(${offerIds})`;
    if (offerRows.every((row) => row.status === 'APPLIED') || Date.now() > appliedDeadline) break;
    await sleep(500);
  }
  const offerResults = await Promise.all(
    offerIds.map(async (offerId) => {
      const workflowId = hardshipOfferWorkflowId(tenant, offerId);
      const status = await workflowOf(workflowId);
      if (status !== 'COMPLETED') return status;
      const result = (await temporalClient.workflow.getHandle(workflowId).result()) as { status: string };
      return `COMPLETED ${result.status}`;
    }),
  );
  const versions = await stack.sql<{ loan_id: number; relief: string; latest: number }[]>`
    select loan_id::int as loan_id, count(*) filter (where source_kind = 'HARDSHIP_OFFER')::int as relief, max(version)::int as latest
    from loan_schedule_versions where tenant_id = ${tenant} and loan_id = any(${hardshipLoans.map((l) => l.loanId)})
    group by loan_id`;
  const perLoan = hardshipLoans.map((loan) => {
    const row = versions.find((v) => v.loan_id === loan.loanId);
    return row ? `${row.relief} relief, latest v${row.latest}` : 'none';
  });
  check(
    scenario,
    'hardship offers: each applied once (one new schedule version), its process completed with APPLIED',
    offerIds.length === offerCount &&
      offerRows.length === offerCount &&
      offerRows.every((row) => row.status === 'APPLIED') &&
      offerResults.every((r) => r === 'COMPLETED APPLIED') &&
      perLoan.every((p) => p === '1 relief, latest v2'),
    `${offerIds.length} of ${offerCount} offers created; statuses ${summarise(offerRows.map((row) => row.status))}; workflows ${summarise(offerResults)}; schedule versions per loan ${summarise(perLoan)}`,
  );
  const offerEvents = await stack.sql<{ subject: string; type: string; n: string }[]>`
    select subject_id as subject, event_type as type, count(*)::text as n from outbox_events
    where tenant_id = ${tenant} and event_type like 'hardship.offer.%' and subject_id = any(${offerIds.map(String)})
    group by subject_id, event_type`;
  const offerEffects = await stack.sql<{ subject: string; type: string; n: string }[]>`
    select subject_id as subject, effect_type as type, count(*)::text as n from case_effects
    where tenant_id = ${tenant} and effect_type like 'HARDSHIP_OFFER_%' and subject_id = any(${offerIds.map(String)})
    group by subject_id, effect_type`;
  const trail = (rows: { subject: string; type: string; n: string }[], offerId: number) =>
    rows
      .filter((row) => row.subject === String(offerId))
      .map((row) => `${row.type.replace(/^hardship\.offer\.|^HARDSHIP_OFFER_/, '')}×${row.n}`)
      .sort()
      .join(' ');
  const eventTrails = offerIds.map((id) => trail(offerEvents, id));
  const effectTrails = offerIds.map((id) => trail(offerEffects, id));
  check(
    scenario,
    'hardship offers: one event and one case effect per state (created, approved, accepted, evidence confirmed, applied)',
    eventTrails.every((t) => t === 'accepted×1 applied×1 approved×1 created×1') &&
      effectTrails.every((t) => t === 'ACCEPTED×1 APPLIED×1 APPROVED×1 CREATED×1 EVIDENCE_CONFIRMED×1'),
    `events per offer ${summarise(eventTrails)}; effects per offer ${summarise(effectTrails)}`,
  );
  // Contact-consent updates: each COMPLETED when its timer fired, once: the contact point's permission set, one
  // CONTACT_CONSENT_UPDATED history row, one case effect, one contact.consent.updated event, its process completed.
  const lastEffective = Math.max(...consentEffectiveAt.map((at) => Date.parse(at)));
  const consentDeadline = Math.max(Date.now(), lastEffective) + 60_000;
  let updateRows: { id: number; status: string; email: boolean | null }[] = [];
  for (;;) {
    updateRows = await stack.sql`
      select u.id::int as id, u.status, p.can_receive_email as email from contact_consent_updates u
        join contact_points p on p.tenant_id = u.tenant_id and p.id = u.contact_point_id
      where u.tenant_id = ${tenant} and u.id = any(${consentUpdateIds})`;
    if (updateRows.every((row) => row.status !== 'SCHEDULED') || Date.now() > consentDeadline) break;
    await sleep(500);
  }
  const updateWorkflows = await Promise.all(
    consentUpdateIds.map((id) => workflowOf(contactConsentUpdateWorkflowId(tenant, id))),
  );
  const updateHistory = await stack.sql<{ subject: string; n: string }[]>`
    select detail ->> 'updateId' as subject, count(*)::text as n from customer_history
    where tenant_id = ${tenant} and action = 'CONTACT_CONSENT_UPDATED'
      and detail ->> 'updateId' = any(${consentUpdateIds.map(String)}) group by detail ->> 'updateId'`;
  const updateEffects = await stack.sql<{ subject: string; n: string }[]>`
    select subject_id as subject, count(*)::text as n from case_effects
    where tenant_id = ${tenant} and effect_type = 'CONTACT_CONSENT_UPDATED'
      and subject_id = any(${consentUpdateIds.map(String)}) group by subject_id`;
  const updateEvents = await stack.sql<{ subject: string; n: string }[]>`
    select subject_id as subject, count(*)::text as n from outbox_events
    where tenant_id = ${tenant} and event_type = 'contact.consent.updated'
      and subject_id = any(${consentUpdateIds.map(String)}) group by subject_id`;
  const perUpdate = (rows: { subject: string; n: string }[]) =>
    consentUpdateIds.map((id) => rows.find((row) => row.subject === String(id))?.n ?? '0');
  check(
    scenario,
    'contact-consent updates: each applied once when its timer fired (one history row, one effect, one event), its process completed',
    updateRows.length === consentCount &&
      updateRows.every((row) => row.status === 'COMPLETED' && row.email === false) &&
      updateWorkflows.every((status) => status === 'COMPLETED') &&
      perUpdate(updateHistory).every((n) => n === '1') &&
      perUpdate(updateEffects).every((n) => n === '1') &&
      perUpdate(updateEvents).every((n) => n === '1'),
    `${updateRows.length} of ${consentCount} updates; statuses ${summarise(updateRows.map((row) => `${row.status} canReceiveEmail=${row.email}`))}; workflows ${summarise(updateWorkflows)}; history rows ${summarise(perUpdate(updateHistory))}; effects ${summarise(perUpdate(updateEffects))}; events ${summarise(perUpdate(updateEvents))} per update`,
  );

  // Autopay: each enrolment collected its installment once (one AUTOPAY intent, request key
  // autopay/<enrolmentId>/<installment>), the intent's process started once (its start intent marked started) and
  // waiting for its submission date, the autopay process running on to the next installment.
  const enrolmentIds = enrolments
    .map((e) => e?.enrolmentId ?? null)
    .filter((id): id is number => id !== null);
  const autopayDeadline = Date.now() + 60_000;
  let intents: { loan_id: number; id: number; request_key: string; status: string }[] = [];
  for (;;) {
    intents = await stack.sql`
      select loan_id::int as loan_id, id::int as id, request_key, status from payments
      where tenant_id = ${tenant} and loan_id = any(${autopayLoans.map((l) => l.loanId)}) and source = 'AUTOPAY'`;
    if (intents.length >= autopayCount || Date.now() > autopayDeadline) break;
    await sleep(500);
  }
  await sleep(2000);
  intents = await stack.sql`
    select loan_id::int as loan_id, id::int as id, request_key, status from payments
    where tenant_id = ${tenant} and loan_id = any(${autopayLoans.map((l) => l.loanId)}) and source = 'AUTOPAY'`;
  const perEnrolment = autopayLoans.map((loan, i) => {
    const mine = intents.filter((row) => row.loan_id === loan.loanId);
    const expectedKey = `autopay/${enrolments[i]?.enrolmentId}/${autopayInstallments[i]}`;
    return `${mine.length} intent${mine.length === 1 && mine[0]!.request_key === expectedKey ? '' : `s ${mine.map((row) => row.request_key).join(' ')} (expected ${expectedKey})`}`;
  });
  const intentStarts = await stack.sql<{ workflow_id: string; started: boolean }[]>`
    select workflow_id, started_at is not null as started from workflow_start_intents
    where tenant_id = ${tenant} and workflow_id = any(${intents.map((row) => paymentIntentWorkflowId(tenant, row.id))})`;
  const intentWorkflows = await Promise.all(
    intents.map((row) => workflowOf(paymentIntentWorkflowId(tenant, row.id))),
  );
  const autopayWorkflows = await Promise.all(
    autopayLoans.map((loan) => workflowOf(autopayWorkflowId(tenant, loan.loanId))),
  );
  check(
    scenario,
    'autopay: each enrolment created one intent for its installment, its process started once; the autopay process runs on',
    enrolmentIds.length === autopayCount &&
      perEnrolment.every((line) => line === '1 intent') &&
      intentStarts.length === intents.length &&
      intentStarts.every((row) => row.started) &&
      intentWorkflows.every((status) => status === 'RUNNING') &&
      autopayWorkflows.every((status) => status === 'RUNNING'),
    `${enrolmentIds.length} of ${autopayCount} enrolled; per enrolment ${summarise(perEnrolment)}; intent statuses ${summarise(intents.map((row) => row.status))}; start intents started ${summarise(intentStarts.map((row) => row.started))}; intent workflows ${summarise(intentWorkflows)}; autopay workflows ${summarise(autopayWorkflows)}`,
  );
}

/** `n×value` counts of a list, e.g. `10×200`. */
function summarise<T>(items: T[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(String(item), (counts.get(String(item)) ?? 0) + 1);
  return [...counts.entries()].map(([value, n]) => `${n}×${value}`).join(', ') || 'none';
}

/** One request retried (same key) on 503, 429, 409 in flight or no answer, for at most two minutes. */
async function callRetrying(
  stack: Stack,
  method: string,
  route: string,
  body: unknown,
  key: string,
  as: { token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const answer = await call(stack, method, route, body, key, as);
    if (![0, 409, 429, 503, 504].includes(answer.status) || Date.now() > deadline) return answer;
    const seconds = Number(answer.retryAfter ?? '1');
    await sleep((Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 5) : 1) * 1000);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Boarding: scripts/boarding-fault.ts as a child process.

async function boardingFault(): Promise<void> {
  const scenario = 'boarding';
  say(`\n== ${scenario}: scripts/boarding-fault.ts (the worker SIGKILLed repeatedly mid-batch)`);
  const args = quick ? ['--loans', '100', '--kills', '2', '--timeout-minutes', '10'] : [];
  const child = await startChild(tsxBin, ['scripts/boarding-fault.ts', ...args], {
    env: process.env,
    ready: null,
    echo: (line) => say(`      | ${line}`),
  });
  const code = await child.exited;
  check(
    scenario,
    'boarding fault test',
    code === 0,
    `exit code ${code}${quick ? ' (quick: 100 loans, 2 kills)' : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------

let exitCode = 2;
try {
  say(
    `Fault benchmarks: ${[...selected].join(', ')}${quick ? ' (--quick)' : ''}; outages: PostgreSQL ${downSeconds} s, Temporal ${temporalDownSeconds} s; ends only what it starts`,
  );
  const needsStack =
    selected.has('postgres') ||
    selected.has('temporal') ||
    selected.has('worker') ||
    selected.has('worker-servicing') ||
    selected.has('webhooks-dead-tenant') ||
    selected.has('webhooks-dead-tenant-burst') ||
    selected.has('cob');
  if (needsStack) {
    const stack = await startStack();
    if (selected.has('postgres')) {
      await postgresOutage(stack);
      await reviveProcesses(stack);
    }
    if (selected.has('temporal')) {
      await temporalOutage(stack);
      await reviveProcesses(stack);
    }
    if (selected.has('worker')) await workerKills(stack);
    if (selected.has('worker-servicing')) await workerKillsServicing(stack);
    if (selected.has('cob')) {
      const scenario = 'cob';
      const loans = quick ? 3_000 : 10_000;
      say(
        `\n== ${scenario}: a close-of-business run over ${loans} loans, the worker SIGKILLed twice during it`,
      );
      await cobWorkerKills(
        {
          baseUrl: stack.baseUrl,
          databaseUrl: stack.databaseUrl,
          dataDir,
          tenant,
          sql: stack.sql,
          killAndReplaceWorker: (why) => killAndReplaceWorker(stack, why),
        },
        { loans, timeoutMinutes: 20 },
        (name, pass, detail) => check(scenario, name, pass, detail),
        note,
      );
    }
    if (selected.has('webhooks-dead-tenant-burst')) {
      const scenario = 'webhooks-dead-tenant-burst';
      say(
        `\n== ${scenario}: a tenant's fresh burst to a receiver that holds every connection open, beside a live tenant`,
      );
      await webhooksDeadTenantBurst(
        {
          baseUrl: stack.baseUrl,
          databaseUrl: stack.databaseUrl,
          dataDir,
          token: stack.token,
          tenant,
          sql: stack.sql,
          temporalClient: stack.temporalClient,
        },
        {
          rounds: 3,
          gapSeconds: quick ? 12 : 20,
          eventsPerRound: 10,
          deadSubscriptions: 10,
          eventsPerDeadSubscription: 10,
          floorMs: 500,
        },
        (name, pass, detail) => check(scenario, name, pass, detail),
        note,
        closers,
      );
    }
    if (selected.has('webhooks-dead-tenant')) {
      const scenario = 'webhooks-dead-tenant';
      say(`\n== ${scenario}: a tenant whose webhook receivers never answer or refuse, beside a live tenant`);
      await webhooksDeadTenant(
        {
          baseUrl: stack.baseUrl,
          databaseUrl: stack.databaseUrl,
          dataDir,
          token: stack.token,
          tenant,
          sql: stack.sql,
          workerPid: () => worker?.pid ?? null,
        },
        quick
          ? {
              ratePerSecond: 2,
              baselineSeconds: 20,
              presentSeconds: 60,
              eventsPerDeadSubscription: 80,
              floorMs: 1000,
            }
          : {
              ratePerSecond: 2,
              baselineSeconds: 30,
              // Long enough that the last half (the memory check's window) begins after B's ~80 s of starts.
              presentSeconds: 270,
              eventsPerDeadSubscription: 160,
              floorMs: 1000,
            },
        (name, pass, detail) => check(scenario, name, pass, detail),
        note,
        closers,
      );
    }
  }
  if (selected.has('boarding')) await boardingFault();
  const failed = checks.filter((c) => !c.pass);
  say('');
  say(
    failed.length === 0
      ? `Fault benchmarks passed: ${checks.length} checks in ${elapsed().trim()}.`
      : `Fault benchmarks FAILED ${failed.length} of ${checks.length} checks: ${failed.map((c) => `[${c.scenario}] ${c.name}`).join('; ')}.`,
  );
  exitCode = failed.length === 0 ? 0 : 1;
} catch (err) {
  say(`Set-up failed: ${(err as Error).stack ?? err}`);
  if (api) say(`API output:\n${(api as Started).output().slice(-3000)}`);
  if (worker) say(`worker output:\n${(worker as Started).output().slice(-3000)}`);
  exitCode = 2;
} finally {
  if (!finishing) {
    finishing = true;
    await cleanUp();
  }
}
process.exit(exitCode);
