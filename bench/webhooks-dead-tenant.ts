/**
 * `bench:fault` scenario `webhooks-dead-tenant` (docs/design.md §5 Webhooks; Svix endpoint throttling): one tenant's dead
 * receivers must not delay another tenant's webhooks, nor grow the worker's memory.
 *
 * On the fault benchmark's stack (one API process, one worker process with every queue and the relays):
 * 1. Tenant A (the live one) subscribes a loopback receiver that answers 200 at once. Baseline: A sends
 *    `POST …/{id}/test` at `ratePerSecond` for `baselineSeconds`; each event's latency is the time from the request
 *    to its arrival at the receiver.
 * 2. Tenant B (the dead one, created here) subscribes 10 times: half to a loopback receiver that accepts the
 *    connection and never answers (each attempt held for the 15 s timeout), half to a loopback port where nothing
 *    listens (connection refused). B queues `eventsPerDeadSubscription` test events on each at once (a backlog of
 *    thousands of delivery workflows), and A sends again at the same rate for `presentSeconds`.
 * 3. The worker's memory: the resident set (VmRSS, /proc) of its whole process tree (tsx and node), sampled every
 *    second from just before B's backlog to the end.
 * Checks: every event of A delivered in both phases; A's p99 with B present ≤ 2 × the baseline p99, or ≤ the
 * absolute floor (1 s: below it the difference is the relay's and the scheduler's jitter on a shared 2-core machine,
 * not queueing behind B; before the fix B pushed A's deliveries to minutes); the worker's RSS flat: its peak while
 * B is present ≤ its RSS before B + 512 MiB (the peak comes while B's 1,600 deliveries start, about 80 s at the
 * relay's pace, each running its first workflow tasks; the heaps' garbage of that is collected afterwards), and once
 * they have started (the last half of a phase of 240 s or more) no growth while they wait: the mean of that half's
 * last third ≤ the mean of its first third + 64 MiB. Prints the latencies, the RSS series summary, B's attempts and the
 * breakers' states.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { loadavg } from 'node:os';
import type postgres from 'postgres';
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { freePort } from '../db/embedded';
import { memoryOf, processTree } from '../scripts/boarding-run-support';
import { requestToken } from '../scripts/http-client';
import { loadConfig, operationDeps } from '../workers/config';

export interface DeadTenantStack {
  baseUrl: string;
  databaseUrl: string;
  dataDir: string;
  /** Tenant A's token and tenant. */
  token: string;
  tenant: string;
  sql: postgres.Sql;
  /** Pid of the worker process (its tree is measured). */
  workerPid: () => number | null;
}

export interface DeadTenantOptions {
  ratePerSecond: number;
  baselineSeconds: number;
  presentSeconds: number;
  eventsPerDeadSubscription: number;
  /** Absolute floor of the p99 check, ms. */
  floorMs: number;
}

type Check = (name: string, pass: boolean, detail: string) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function treeRssMiB(root: number): number {
  let kib = 0;
  for (const pid of processTree(root)) kib += memoryOf(pid)?.rssKiB ?? 0;
  return kib / 1024;
}

/** POSTs `body` (JSON, or none) to `route` as the tenant's client; answers the status and the parsed body. */
export async function post(baseUrl: string, token: string, tenant: string, route: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'service-tenant': tenant,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text || 'null') as Record<string, unknown> | null };
}

/** Subscribes `url` to `payment.posted` for the tenant; answers the subscription id (throws unless 201). */
export async function subscribe(
  stack: { baseUrl: string },
  token: string,
  tenant: string,
  url: string,
): Promise<number> {
  const answer = await post(stack.baseUrl, token, tenant, '/v1/servicing/webhook-subscriptions', {
    url,
    eventTypes: ['payment.posted'],
    apiVersion: '2025-01-01',
    description: 'webhooks-dead-tenant benchmark',
  });
  if (answer.status !== 201)
    throw new Error(`subscribe answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body!.subscriptionId as number;
}

/**
 * A live tenant's webhook receiver (not yet listening): answers 200 to every request and records when each event
 * (`eventId` of its JSON body) first arrives, epoch ms.
 */
export function arrivalReceiver(): { server: http.Server; arrivedAt: Map<string, number> } {
  const arrivedAt = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId?: string };
        if (event.eventId && !arrivedAt.has(event.eventId)) arrivedAt.set(event.eventId, Date.now());
      } catch {
        // not an event
      }
      response.writeHead(200).end('ok');
    });
  });
  return { server, arrivedAt };
}

export async function webhooksDeadTenant(
  stack: DeadTenantStack,
  options: DeadTenantOptions,
  check: Check,
  note: (line: string) => void,
  closers: (() => Promise<void>)[],
): Promise<void> {
  // Tenant A's receiver: records when each event arrives.
  const { server: live, arrivedAt } = arrivalReceiver();
  // Tenant B's hanging receiver: accepts, reads, never answers.
  const hangingSockets = new Set<Socket>();
  let hangingRequests = 0;
  const hanging = http.createServer(() => {
    hangingRequests += 1;
  });
  hanging.requestTimeout = 0;
  hanging.on('connection', (socket) => {
    hangingSockets.add(socket);
    socket.on('close', () => hangingSockets.delete(socket));
  });
  for (const server of [live, hanging]) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of hangingSockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
  }
  const livePort = (live.address() as { port: number }).port;
  const hangingPort = (hanging.address() as { port: number }).port;
  const refusedPort = await freePort();

  const liveSubscription = await subscribe(
    stack,
    stack.token,
    stack.tenant,
    `http://127.0.0.1:${livePort}/hooks`,
  );

  /** A sends test events at the rate for `seconds`; answers the latencies (ms) once all arrived (or 60 s after). */
  const phase = async (label: string, seconds: number) => {
    const sentAt = new Map<string, number>();
    const total = Math.round(seconds * options.ratePerSecond);
    const started = Date.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / options.ratePerSecond;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(
        (async () => {
          const at = Date.now();
          const answer = await post(
            stack.baseUrl,
            stack.token,
            stack.tenant,
            `/v1/servicing/webhook-subscriptions/${liveSubscription}/test`,
          );
          if (answer.status === 202) sentAt.set(answer.body!.eventId as string, at);
          else note(`[${label}] test event answered ${answer.status}`);
        })(),
      );
    }
    await Promise.all(inFlight);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && [...sentAt.keys()].some((id) => !arrivedAt.has(id))) await sleep(200);
    // An event that never arrived counts as infinitely late (so a p99 is never computed over survivors only).
    const latencies = [...sentAt]
      .map(([id, at]) => (arrivedAt.has(id) ? arrivedAt.get(id)! - at : Number.POSITIVE_INFINITY))
      .sort((a, b) => a - b);
    const delivered = latencies.filter(Number.isFinite).length;
    const summary = {
      sent: total,
      accepted: sentAt.size,
      delivered,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.filter(Number.isFinite).at(-1) ?? Number.NaN,
    };
    note(
      `[${label}] tenant A: ${summary.delivered}/${summary.sent} delivered; latency p50 ${summary.p50} ms, p99 ${summary.p99} ms, max ${summary.max} ms (machine load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')})`,
    );
    return summary;
  };

  note(`baseline: tenant A alone, ${options.ratePerSecond} test events/s for ${options.baselineSeconds} s`);
  const baseline = await phase('baseline', options.baselineSeconds);

  // Tenant B and its dead subscriptions.
  const config = loadConfig({ ...process.env, DATA_DIR: stack.dataDir, DATABASE_URL: stack.databaseUrl });
  const { db, close } = createDb(stack.databaseUrl, { maxConnections: 2 });
  const deadTenant = `${stack.tenant}dead`;
  const created = await createPlatformOperations(operationDeps(db, config)).createClient({
    tenantId: deadTenant,
    environment: 'sandbox',
    scopes: ['servicing:read', 'servicing:write'],
    permissions: ['ALL'],
    rateLimitPerSecond: 1_000_000,
    createTenant: true,
  });
  await close();
  const deadToken = await requestToken(
    stack.baseUrl,
    { tenant: deadTenant, clientId: created.clientId, clientSecret: created.clientSecret },
    'servicing:read servicing:write',
    () => {},
  );
  const deadSubscriptions: number[] = [];
  for (let i = 0; i < 10; i++) {
    const url =
      i % 2 === 0
        ? `http://127.0.0.1:${hangingPort}/hooks/${i}`
        : `http://127.0.0.1:${refusedPort}/hooks/${i}`;
    deadSubscriptions.push(await subscribe(stack, deadToken, deadTenant, url));
  }

  const workerPid = stack.workerPid();
  const rss: { at: number; mib: number }[] = [];
  const sampleRss = () => {
    const pid = stack.workerPid();
    if (pid !== null) rss.push({ at: Date.now(), mib: treeRssMiB(pid) });
  };
  sampleRss();
  const rssBefore = rss[0]?.mib ?? Number.NaN;
  const sampler = setInterval(sampleRss, 1000);

  const backlog = deadSubscriptions.length * options.eventsPerDeadSubscription;
  note(
    `tenant B: 10 subscriptions (5 to a receiver that never answers, 5 to a refused port), ${backlog} test events queued; worker pid ${workerPid} RSS ${rssBefore.toFixed(0)} MiB`,
  );
  const queueStarted = Date.now();
  const routes = deadSubscriptions.flatMap((id) =>
    Array.from(
      { length: options.eventsPerDeadSubscription },
      () => `/v1/servicing/webhook-subscriptions/${id}/test`,
    ),
  );
  let refusedQueues = 0;
  for (let i = 0; i < routes.length; i += 25) {
    const answers = await Promise.all(
      routes.slice(i, i + 25).map((route) => post(stack.baseUrl, deadToken, deadTenant, route)),
    );
    refusedQueues += answers.filter((a) => a.status !== 202).length;
  }
  note(
    `tenant B's backlog queued in ${((Date.now() - queueStarted) / 1000).toFixed(1)} s (${refusedQueues} refused)`,
  );

  note(
    `dead tenant present: tenant A again, ${options.ratePerSecond} test events/s for ${options.presentSeconds} s`,
  );
  const phaseStarted = Date.now();
  const present = await phase('present', options.presentSeconds);
  clearInterval(sampler);
  sampleRss();

  const [workflows] = await stack.sql<{ started: string; attempts: string; open: string; slots: string }[]>`
    select (select count(*) from webhook_deliveries where tenant_id = ${deadTenant})::text as started,
           (select count(*) from webhook_delivery_attempts where tenant_id = ${deadTenant})::text as attempts,
           (select count(*) from webhook_endpoint_breakers where tenant_id = ${deadTenant} and state <> 'CLOSED')::text as open,
           (select count(*) from webhook_delivery_slots where tenant_id = ${deadTenant})::text as slots`;
  note(
    `tenant B: ${workflows!.started} deliveries started, ${workflows!.attempts} attempts recorded (${hangingRequests} reached the silent receiver), ${workflows!.open}/10 breakers open or half-open, ${workflows!.slots} slots held now`,
  );

  note(
    `worker RSS every 10 s from before B (MiB): ${rss
      .filter((_, i) => i % 10 === 0)
      .map((s) => s.mib.toFixed(0))
      .join(' ')}`,
  );
  const during = rss.filter((s) => s.at >= phaseStarted);
  // Once B's deliveries have all started (the relay paces them over about 80 s): the last half of the phase.
  const settled = during.slice(Math.floor(during.length / 2));
  const third = Math.max(1, Math.floor(settled.length / 3));
  const mean = (xs: { mib: number }[]) => xs.reduce((sum, s) => sum + s.mib, 0) / Math.max(1, xs.length);
  const peak = Math.max(...rss.map((s) => s.mib));
  const firstThird = mean(settled.slice(0, third));
  const lastThird = mean(settled.slice(-third));
  note(
    `worker RSS (VmRSS of its process tree, every 1 s, ${rss.length} samples): before B ${rssBefore.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, last half of the phase (B's deliveries all started): first third ${firstThird.toFixed(0)} MiB, last third ${lastThird.toFixed(0)} MiB, end ${rss.at(-1)!.mib.toFixed(0)} MiB`,
  );

  check(
    'every event of the live tenant delivered',
    baseline.delivered === baseline.sent && present.delivered === present.sent,
    `baseline ${baseline.delivered}/${baseline.sent}, with the dead tenant ${present.delivered}/${present.sent}`,
  );
  const limit = Math.max(2 * baseline.p99, options.floorMs);
  check(
    "live tenant's p99 with the dead tenant present ≤ max(2 × baseline, floor)",
    present.p99 <= limit,
    `p99 ${present.p99} ms vs baseline ${baseline.p99} ms (limit ${limit} ms: 2 × ${baseline.p99} or the ${options.floorMs} ms floor)`,
  );
  check(
    'worker RSS bounded while the dead backlog starts and flat while it waits',
    peak <= rssBefore + 512 && lastThird <= firstThird + 64,
    `peak ${peak.toFixed(0)} MiB ≤ ${(rssBefore + 512).toFixed(0)} (before + 512); once started, last third ${lastThird.toFixed(0)} ≤ ${(firstThird + 64).toFixed(0)} (first third + 64)`,
  );
}
