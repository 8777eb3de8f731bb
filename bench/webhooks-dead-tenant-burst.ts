/**
 * `bench:fault` scenario `webhooks-dead-tenant-burst` (docs/processes.md P2 "Fair share from the first attempt"; docs/design.md §5 Webhooks):
 * a fresh burst of one tenant's deliveries to a receiver that holds every connection open must not delay another
 * tenant's webhooks in the burst's first minute, before any endpoint's breaker has seen a failure. Beside
 * `webhooks-dead-tenant` (bench/webhooks-dead-tenant.ts), which measures a backlog long after it formed.
 *
 * On the fault benchmark's stack (one API process, one worker process with every queue and the relays):
 * 1. Tenant A (the live one) subscribes a loopback receiver that answers 200 at once and sends one warm-up round of
 *    `eventsPerRound` `POST …/{id}/test` events at once (not measured). Tenant B is created, with a client of its own.
 * 2. `rounds` trials, each: A's round alone (`eventsPerRound` test events at once; an event's latency is the time
 *    from its request to its arrival); then B subscribes `deadSubscriptions` times anew (fresh endpoints: no attempt
 *    ever made to them) to a loopback receiver that accepts every TCP connection and never answers nor closes, and
 *    sends `eventsPerDeadSubscription` test events on each, all at once; as soon as they are accepted, A's round
 *    again. `gapSeconds` after B's burst, while its first attempts hang and time out, B's subscriptions of the trial
 *    are deactivated (their pending deliveries stop), so the next trial starts clean.
 * Checks: every event of A delivered; A's p50 and max over the trials' rounds during the bursts each ≤ 2 × those of
 * its rounds alone in the same run, or ≤ `floorMs` (below it the difference is the scheduler's jitter on a shared
 * 2-core machine, not queueing behind B). Prints both side by side with their ratios and, per round, where A's time
 * went: the request, the relay, the workflow up to its attempt and the attempt (from the rows), and from the
 * deliveries' histories the time waiting for workflow tasks and activities, running them, and waiting for admission.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { loadavg } from 'node:os';
import type { Client } from '@temporalio/client';
import type postgres from 'postgres';
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { requestToken } from '../scripts/http-client';
import { loadConfig, operationDeps } from '../workers/config';
import { percentileOf } from './support';
import { arrivalReceiver, post, subscribe } from './webhooks-dead-tenant';

export interface DeadTenantBurstStack {
  baseUrl: string;
  databaseUrl: string;
  dataDir: string;
  /** Tenant A's token and tenant. */
  token: string;
  tenant: string;
  sql: postgres.Sql;
  /** The stack's Temporal client (the deliveries' histories are read to say where the time went). */
  temporalClient: () => Promise<Client>;
}

export interface DeadTenantBurstOptions {
  /** Trials (each one round of A alone and one during a burst of B), and the seconds from B's burst to its deactivation. */
  rounds: number;
  gapSeconds: number;
  eventsPerRound: number;
  deadSubscriptions: number;
  eventsPerDeadSubscription: number;
  /** Absolute floor of the checks, ms. */
  floorMs: number;
}

type Check = (name: string, pass: boolean, detail: string) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile `p` (0–100) of ascending `sorted`; NaN when empty (bench/support.ts `percentileOf`). */
const percentile = (sorted: number[], p: number): number => percentileOf(sorted, p / 100);

interface PhaseSummary {
  sent: number;
  delivered: number;
  p50: number;
  max: number;
  /** p50 / max of each round, ms. */
  perRound: string[];
}

export async function webhooksDeadTenantBurst(
  stack: DeadTenantBurstStack,
  options: DeadTenantBurstOptions,
  check: Check,
  note: (line: string) => void,
  closers: (() => Promise<void>)[],
): Promise<void> {
  // Tenant A's receiver: records when each event arrives.
  const { server: live, arrivedAt } = arrivalReceiver();
  // Tenant B's receiver: accepts every connection, reads nothing, never answers nor closes.
  const held = new Set<Socket>();
  let connections = 0;
  const holding = http.createServer(() => {});
  holding.requestTimeout = 0;
  holding.headersTimeout = 0;
  holding.keepAliveTimeout = 0;
  holding.on('connection', (socket) => {
    connections += 1;
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  for (const server of [live, holding]) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of held) socket.destroy();
          server.close(() => resolve());
        }),
    );
  }
  const livePort = (live.address() as { port: number }).port;
  const holdingPort = (holding.address() as { port: number }).port;
  const liveSubscription = await subscribe(
    stack,
    stack.token,
    stack.tenant,
    `http://127.0.0.1:${livePort}/a`,
  );

  /** One round: A's events sent at once; answers each accepted event's send instant. */
  const sendRound = async (label: string): Promise<Map<string, number>> => {
    const sentAt = new Map<string, number>();
    await Promise.all(
      Array.from({ length: options.eventsPerRound }, async () => {
        const at = Date.now();
        const answer = await post(
          stack.baseUrl,
          stack.token,
          stack.tenant,
          `/v1/servicing/webhook-subscriptions/${liveSubscription}/test`,
        );
        if (answer.status === 202) sentAt.set(answer.body!.eventId as string, at);
        else note(`[${label}] test event answered ${answer.status}`);
      }),
    );
    return sentAt;
  };
  /** Waits (at most 90 s) for the rounds' events; an event that never arrived counts as infinitely late. */
  const summarize = async (label: string, rounds: Map<string, number>[]): Promise<PhaseSummary> => {
    const deadline = Date.now() + 90_000;
    const all = rounds.flatMap((round) => [...round]);
    while (Date.now() < deadline && all.some(([id]) => !arrivedAt.has(id))) await sleep(100);
    const latencyOf = ([id, at]: [string, number]) =>
      arrivedAt.has(id) ? arrivedAt.get(id)! - at : Number.POSITIVE_INFINITY;
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const latencies = sorted(all.map(latencyOf));
    const summary: PhaseSummary = {
      sent: rounds.length * options.eventsPerRound,
      delivered: latencies.filter(Number.isFinite).length,
      p50: percentile(latencies, 50),
      max: latencies.at(-1) ?? Number.NaN,
      perRound: rounds.map((round) => {
        const xs = sorted([...round].map(latencyOf));
        return `${percentile(xs, 50)}/${xs.at(-1)}`;
      }),
    };
    note(
      `[${label}] tenant A: ${summary.delivered}/${summary.sent} delivered; latency p50 ${summary.p50} ms, max ${summary.max} ms; per round p50/max ${summary.perRound.join(', ')} ms (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')})`,
    );
    // Where the time went, median of each step: the request (the event stored), the relay (its pass began), the
    // delivery's workflow up to its attempt (start, prepare, admission), the attempt (to the arrival).
    const steps = await stack.sql<
      { eventId: string; occurred: Date; relayed: Date; attempted: Date | null }[]
    >`
      select e.event_id as "eventId", e.occurred_at as occurred, d.created_at as relayed,
             (select min(a.at) from webhook_delivery_attempts a where a.delivery_id = d.delivery_id) as attempted
      from outbox_events e join webhook_deliveries d on d.event_id = e.event_id
      where e.event_id in ${stack.sql(all.map(([id]) => id))}`;
    const median = (xs: number[]) => percentile(sorted(xs), 50);
    const sentOf = new Map(all);
    note(
      `[${label}] medians: request ${median(steps.map((r) => r.occurred.getTime() - sentOf.get(r.eventId)!))} ms, relay ${median(steps.map((r) => r.relayed.getTime() - r.occurred.getTime()))} ms, workflow to its attempt ${median(steps.flatMap((r) => (r.attempted ? [r.attempted.getTime() - r.relayed.getTime()] : [])))} ms, attempt to arrival ${median(steps.flatMap((r) => (r.attempted && arrivedAt.has(r.eventId) ? [arrivedAt.get(r.eventId)! - r.attempted.getTime()] : [])))} ms`,
    );
    note(
      `[${label}] in the deliveries' histories, median per delivery: ${await historyBreakdown(all.map(([id]) => id))}`,
    );
    return summary;
  };
  /**
   * Where A's deliveries spent their time, from their Temporal histories: waiting for a workflow task or an activity
   * to be picked up (queue), running them, and waiting on admission timers or wake-ups (wait); median per delivery.
   */
  const historyBreakdown = async (eventIds: string[]): Promise<string> => {
    const client = await stack.temporalClient();
    const totals: Record<string, number[]> = {};
    for (const eventId of eventIds) {
      const workflowId = `webhook-delivery/${stack.tenant}/${liveSubscription}/${eventId}`;
      const history = await client.workflow
        .getHandle(workflowId)
        .fetchHistory()
        .catch(() => null);
      if (!history) continue;
      const at = new Map<string, { time: number; type: string }>();
      const sums: Record<string, number> = {
        'workflow-task queue': 0,
        'workflow-task run': 0,
        'activity queue': 0,
        'activity run': 0,
        wait: 0,
      };
      let firstSend = Number.NaN;
      let started = Number.NaN;
      for (const event of history.events ?? []) {
        const time =
          Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
        const id = String(event.eventId);
        if (event.workflowExecutionStartedEventAttributes) started = time;
        if (event.workflowTaskScheduledEventAttributes) at.set(id, { time, type: 'wft' });
        if (event.workflowTaskStartedEventAttributes) {
          const scheduled = at.get(String(event.workflowTaskStartedEventAttributes.scheduledEventId));
          if (scheduled) sums['workflow-task queue']! += time - scheduled.time;
          at.set(id, { time, type: 'wft' });
        }
        if (event.workflowTaskCompletedEventAttributes) {
          const began = at.get(String(event.workflowTaskCompletedEventAttributes.startedEventId));
          if (began) sums['workflow-task run']! += time - began.time;
        }
        if (event.activityTaskScheduledEventAttributes) {
          const type = event.activityTaskScheduledEventAttributes.activityType?.name ?? '';
          at.set(id, { time, type });
          if (type === 'sendWebhook' && Number.isNaN(firstSend)) firstSend = time;
        }
        if (event.activityTaskStartedEventAttributes) {
          const scheduled = at.get(String(event.activityTaskStartedEventAttributes.scheduledEventId));
          if (scheduled) sums['activity queue']! += time - scheduled.time;
          at.set(id, { time, type: scheduled?.type ?? '' });
        }
        if (event.activityTaskCompletedEventAttributes) {
          const began = at.get(String(event.activityTaskCompletedEventAttributes.startedEventId));
          if (began) sums['activity run']! += time - began.time;
        }
        if (event.timerStartedEventAttributes) at.set(id, { time, type: 'timer' });
        if (event.timerFiredEventAttributes) {
          const timer = at.get(String(event.timerFiredEventAttributes.startedEventId));
          if (timer) sums.wait! += time - timer.time;
        }
      }
      sums['start to first send'] = firstSend - started;
      for (const [key, value] of Object.entries(sums)) totals[key] = [...(totals[key] ?? []), value];
    }
    return Object.entries(totals)
      .map(
        ([key, values]) =>
          `${key} ${percentile(
            [...values].sort((a, b) => a - b),
            50,
          )} ms`,
      )
      .join(', ');
  };
  /** Tenant B, its client's token, and a subscription to the holding receiver made for each trial. */
  const config = loadConfig({ ...process.env, DATA_DIR: stack.dataDir, DATABASE_URL: stack.databaseUrl });
  const { db, close } = createDb(stack.databaseUrl, { maxConnections: 2 });
  const burstTenant = `${stack.tenant}burst`;
  const created = await createPlatformOperations(operationDeps(db, config)).createClient({
    tenantId: burstTenant,
    environment: 'sandbox',
    scopes: ['servicing:read', 'servicing:write'],
    permissions: ['ALL'],
    rateLimitPerSecond: 1_000_000,
    createTenant: true,
  });
  await close();
  const burstToken = await requestToken(
    stack.baseUrl,
    { tenant: burstTenant, clientId: created.clientId, clientSecret: created.clientSecret },
    'servicing:read servicing:write',
    () => {},
  );

  note(`warm-up: tenant A, ${options.eventsPerRound} test events at once (not measured)`);
  await summarize('warm-up', [await sendRound('warm-up')]);

  const alone: Map<string, number>[] = [];
  const during: Map<string, number>[] = [];
  for (let trial = 1; trial <= options.rounds; trial++) {
    alone.push(await sendRound(`alone ${trial}`));
    await summarize(`alone ${trial}`, [alone.at(-1)!]);
    // B's fresh endpoints: subscriptions made now, no attempt ever made to them.
    const subscriptions: number[] = [];
    for (let i = 0; i < options.deadSubscriptions; i++)
      subscriptions.push(
        await subscribe(stack, burstToken, burstTenant, `http://127.0.0.1:${holdingPort}/b/${trial}/${i}`),
      );
    const burstStarted = Date.now();
    const answers = await Promise.all(
      subscriptions.flatMap((id) =>
        Array.from({ length: options.eventsPerDeadSubscription }, () =>
          post(stack.baseUrl, burstToken, burstTenant, `/v1/servicing/webhook-subscriptions/${id}/test`),
        ),
      ),
    );
    note(
      `[burst ${trial}] tenant B: ${subscriptions.length} new subscriptions to the receiver that holds every connection, ${subscriptions.length * options.eventsPerDeadSubscription} test events sent at once (accepted in ${Date.now() - burstStarted} ms, ${answers.filter((a) => a.status !== 202).length} refused); tenant A's round at once`,
    );
    during.push(await sendRound(`burst ${trial}`));
    await summarize(`burst ${trial}`, [during.at(-1)!]);
    // Let B's first attempts hang and time out (the receiver's timeout biting), then end B's deliveries.
    const held = Math.max(0, burstStarted + options.gapSeconds * 1000 - Date.now());
    await sleep(held);
    const [b] = await stack.sql<{ attempts: string; open: string }[]>`
      select (select count(*) from webhook_delivery_attempts a join webhook_deliveries d using (delivery_id)
               where d.tenant_id = ${burstTenant} and d.subscription_id in ${stack.sql(subscriptions)})::text as attempts,
             (select count(*) from webhook_endpoint_breakers where tenant_id = ${burstTenant} and state <> 'CLOSED')::text as open`;
    note(
      `[burst ${trial}] tenant B after ${((Date.now() - burstStarted) / 1000).toFixed(0)} s: ${b!.attempts} attempts recorded, ${connections} connections reached its receiver so far, ${b!.open} breakers open or half-open; its subscriptions deactivated`,
    );
    for (const id of subscriptions)
      await post(
        stack.baseUrl,
        burstToken,
        burstTenant,
        `/v1/servicing/webhook-subscriptions/${id}/deactivate`,
      );
  }
  const baseline = await summarize('alone, every trial', alone);
  const burstPhase = await summarize('during the bursts, every trial', during);

  check(
    'every event of the live tenant delivered',
    baseline.delivered === baseline.sent && burstPhase.delivered === burstPhase.sent,
    `alone ${baseline.delivered}/${baseline.sent}, during the bursts ${burstPhase.delivered}/${burstPhase.sent}`,
  );
  const ratio = (x: number, base: number) => (base > 0 ? (x / base).toFixed(2) : 'n/a');
  note(
    `tenant A alone → during B's bursts: p50 ${baseline.p50} → ${burstPhase.p50} ms (×${ratio(burstPhase.p50, baseline.p50)}), max ${baseline.max} → ${burstPhase.max} ms (×${ratio(burstPhase.max, baseline.max)}); limit 2× (floor ${options.floorMs} ms)`,
  );
  for (const [name, base, value] of [
    ['p50', baseline.p50, burstPhase.p50],
    ['max', baseline.max, burstPhase.max],
  ] as const) {
    const limit = Math.max(2 * base, options.floorMs);
    check(
      `live tenant's ${name} during the burst ≤ max(2 × alone, floor)`,
      value <= limit,
      `${name} ${value} ms vs ${base} ms alone, ×${ratio(value, base)} (limit ${limit} ms: 2 × ${base} or the ${options.floorMs} ms floor)`,
    );
  }
}
