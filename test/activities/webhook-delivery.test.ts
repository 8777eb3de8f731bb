/**
 * The webhook delivery operations on the real test PostgreSQL (docs/conventions.md §11: each write run twice):
 * `prepareWebhookAttempt`, `recordWebhookAttempt`, `cancelWebhookDelivery`, `admitWebhookAttempt`
 * (the endpoint's circuit breaker and the tenant's cap on attempts in flight), and `sendWebhook`'s
 * address rules after DNS (docs/processes.md P2 URLs) and timeouts against real local sockets.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createWebhookDeliveryActivities } from '../../activities/webhooks';
import { openSealedSecret, sealSecret } from '../../activities/webhooks/sealed-secrets';
import { sendWebhook } from '../../activities/webhooks/send-webhook';
import { webhookEndpointBreakers } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { attemptLimitsFor, attemptTimeoutMs, connectTimeoutMs } from '../../domain/webhooks/retry-schedule';
import {
  createSubscriptionFixture,
  insertDelivery,
  insertOutboxEvent,
  newSigningSecret,
  readDelivery,
  readSubscription,
  startReceiver,
} from '../support/webhooks';
import { type ActivityHarness, createHarness } from './helpers';

let h: ActivityHarness;
let ops: ReturnType<typeof createWebhookDeliveryActivities>;

beforeAll(() => {
  h = createHarness();
  ops = createWebhookDeliveryActivities(h.deps);
});
afterAll(async () => {
  await h.close();
});

async function fixture(
  secrets: { secret: string; expiresAt?: Date | null }[] = [{ secret: newSigningSecret() }],
) {
  const tenantId = `whact-${randomBytes(4).toString('hex')}`;
  const subscriptionId = await createSubscriptionFixture(h.db, h.deps.dataEncryptionKey, {
    tenantId,
    url: 'http://127.0.0.1:9/hooks',
    apiVersion: '2025-06-01',
    secrets,
  });
  const { eventId, eventType } = await insertOutboxEvent(h.db, { tenantId });
  const deliveryId = await insertDelivery(h.db, { tenantId, subscriptionId, eventId, eventType });
  return { tenantId, subscriptionId, eventId, deliveryId, secrets };
}

describe('prepareWebhookAttempt', () => {
  it('returns the URL, the envelope with the subscription apiVersion, and the valid secrets newest first', async () => {
    const old = newSigningSecret();
    const current = newSigningSecret();
    const expired = newSigningSecret();
    const f = await fixture([
      { secret: expired, expiresAt: new Date(Date.now() - 1000) },
      { secret: old, expiresAt: new Date(Date.now() + 3600_000) },
      { secret: current },
    ]);
    const prepared = await ops.prepareWebhookAttempt(f);
    if (!prepared.proceed) throw new Error('expected to proceed');
    expect(prepared.url).toBe('http://127.0.0.1:9/hooks');
    expect(JSON.parse(prepared.body)).toMatchObject({ eventId: f.eventId, apiVersion: '2025-06-01' });
    expect(prepared.signingSecrets.map((s) => s.secretVersion)).toEqual([3, 2]);
    // Sealed: the history never holds the secret itself.
    expect(JSON.stringify(prepared)).not.toContain(current.slice(6));
    expect(
      prepared.signingSecrets.map((s) =>
        openSealedSecret(h.deps.dataEncryptionKey, f.deliveryId, s.sealedSecret),
      ),
    ).toEqual([current, old]);
    expect(() =>
      openSealedSecret(h.deps.dataEncryptionKey, 'whd_other', prepared.signingSecrets[0]!.sealedSecret),
    ).toThrow();
    // The bytes are stable between calls.
    const again = await ops.prepareWebhookAttempt(f);
    expect(again.proceed && again.body).toBe(prepared.body);
  });

  it('does not proceed for a cancelled delivery', async () => {
    const f = await fixture();
    const at = new Date().toISOString();
    expect(await ops.cancelWebhookDelivery({ tenantId: f.tenantId, deliveryId: f.deliveryId, at })).toEqual({
      deliveryState: 'CANCELLED',
      wake: [],
    });
    expect(await ops.cancelWebhookDelivery({ tenantId: f.tenantId, deliveryId: f.deliveryId, at })).toEqual({
      deliveryState: 'CANCELLED',
      wake: [],
    });
    expect(await ops.prepareWebhookAttempt(f)).toEqual({
      proceed: false,
      reason: 'DELIVERY_CANCELLED',
      deliveryId: f.deliveryId,
    });
  });
});

describe('recordWebhookAttempt', () => {
  it('records each attempt once when run twice, and keeps failingSince from the first failure', async () => {
    const f = await fixture();
    const first = {
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: f.deliveryId,
      attempt: 1,
      at: '2026-03-01T00:00:00.000Z',
      responseStatus: 500,
      latencyMs: 12,
      error: 'HTTP 500',
      nextAttemptAt: '2026-03-01T00:00:05.000Z',
    };
    expect(await ops.recordWebhookAttempt(first)).toEqual({
      deliveryState: 'RETRYING',
      disabledReason: null,
      wake: [],
    });
    expect(await ops.recordWebhookAttempt(first)).toEqual({
      deliveryState: 'RETRYING',
      disabledReason: null,
      wake: [],
    });
    let read = await readDelivery(h.db, f.tenantId, f.deliveryId);
    expect(read.attempts).toHaveLength(1);
    expect(read.delivery).toMatchObject({ state: 'RETRYING', attemptCount: 1 });
    expect(read.delivery.nextAttemptAt?.toISOString()).toBe('2026-03-01T00:00:05.000Z');
    expect((await readSubscription(h.db, f.tenantId, f.subscriptionId)).failingSince?.toISOString()).toBe(
      '2026-03-01T00:00:00.000Z',
    );

    const second = { ...first, attempt: 2, at: '2026-03-01T00:00:05.000Z', responseStatus: 200, error: null };
    await ops.recordWebhookAttempt({ ...second, nextAttemptAt: null });
    await ops.recordWebhookAttempt({ ...second, nextAttemptAt: null });
    read = await readDelivery(h.db, f.tenantId, f.deliveryId);
    expect(read.attempts.map((a) => a.responseStatus)).toEqual([500, 200]);
    expect(read.delivery).toMatchObject({ state: 'SUCCEEDED', attemptCount: 2, nextAttemptAt: null });
    expect((await readSubscription(h.db, f.tenantId, f.subscriptionId)).failingSince).toBeNull();
  });

  it('a 410 disables the subscription (GONE) once', async () => {
    const f = await fixture();
    const input = {
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: f.deliveryId,
      attempt: 1,
      at: '2026-03-01T00:00:00.000Z',
      responseStatus: 410,
      latencyMs: 3,
      error: 'HTTP 410',
      nextAttemptAt: null,
    };
    expect(await ops.recordWebhookAttempt(input)).toEqual({
      deliveryState: 'FAILED',
      disabledReason: 'GONE',
      wake: [],
    });
    expect(await ops.recordWebhookAttempt(input)).toEqual({
      deliveryState: 'FAILED',
      disabledReason: null,
      wake: [],
    });
    const subscription = await readSubscription(h.db, f.tenantId, f.subscriptionId);
    expect(subscription).toMatchObject({ status: 'DISABLED', disabledReason: 'GONE', version: 2 });
  });
});

describe('sendWebhook', () => {
  it('refuses, after DNS, a name that resolves to a private or metadata address in production', async () => {
    const production = { ...h.deps, environment: 'production' as const };
    for (const address of ['10.1.2.3', '169.254.169.254', '127.0.0.1', '::1']) {
      const send = sendWebhook(production, {
        resolveHost: async () => [
          { address: '93.184.216.34', family: 4 },
          { address, family: address.includes(':') ? 6 : 4 },
        ],
      });
      const result = await send({
        url: 'https://receiver.example/hooks',
        body: '{}',
        deliveryId: 'whd_x',
        signingSecrets: [],
      });
      expect(result.responseStatus).toBeNull();
      expect(result.error).toMatch(/^blocked address: /);
    }
  });

  it('sandbox: posts to a loopback receiver, pinned to the checked address, signed, and reads Retry-After', async () => {
    const secret = newSigningSecret();
    const receiver = await startReceiver({
      secrets: () => [secret],
      answer: () => ({ status: 503, headers: { 'retry-after': '120' } }),
    });
    const port = new URL(receiver.url).port;
    // The name resolves (by our resolver) to 127.0.0.1: the connection goes there, Host keeps the name.
    const send = sendWebhook(h.deps, { resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] });
    const body = '{"eventId":"evt_1","eventType":"payment.posted","subject":{"type":"payment","id":"1"}}';
    const result = await send({
      url: `http://hooks.receiver.test:${port}/hooks`,
      body,
      deliveryId: 'whd_x',
      signingSecrets: [
        { secretVersion: 1, sealedSecret: sealSecret(h.deps.dataEncryptionKey, 'whd_x', secret) },
      ],
    });
    expect(result).toMatchObject({ responseStatus: 503, error: 'HTTP 503', retryAfterMs: 120_000 });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers.host).toBe(`hooks.receiver.test:${port}`);
    expect(receiver.received[0]!.body).toBe(body);
    expect(receiver.received[0]!.verificationError).toBeNull();
    await receiver.close();
  });

  it('a refused connection is a result, not an exception', async () => {
    const send = sendWebhook(h.deps);
    const result = await send({
      url: 'http://127.0.0.1:9/hooks',
      body: '{}',
      deliveryId: 'whd_y',
      signingSecrets: [
        { secretVersion: 1, sealedSecret: sealSecret(h.deps.dataEncryptionKey, 'whd_y', 's') },
      ],
    });
    expect(result.responseStatus).toBeNull();
    expect(result.error).toBe('connection refused');
  });
});

/** `n` more deliveries (each its own event) to the fixture's subscription. */
async function moreDeliveries(f: { tenantId: string; subscriptionId: number }, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { eventId, eventType } = await insertOutboxEvent(h.db, { tenantId: f.tenantId });
    ids.push(
      await insertDelivery(h.db, {
        tenantId: f.tenantId,
        subscriptionId: f.subscriptionId,
        eventId,
        eventType,
      }),
    );
  }
  return ids;
}

async function breakerRow(tenantId: string, subscriptionId: number) {
  const rows = await h.db.execute<{ state: string; consecutive_failures: number; open_until: string | null }>(
    sql`select state, consecutive_failures, open_until::text from webhook_endpoint_breakers
        where tenant_id = ${tenantId} and subscription_id = ${subscriptionId}`,
  );
  return rows[0] ?? null;
}

async function slotCount(tenantId: string): Promise<number> {
  const rows = await h.db.execute<{ n: string }>(
    sql`select count(*)::text as n from webhook_delivery_slots where tenant_id = ${tenantId}`,
  );
  return Number(rows[0]!.n);
}

/** The tenant's queue of deliveries waiting for admission, in order, and whether each has a wake-up pending. */
async function waiterRows(tenantId: string) {
  const rows = await h.db.execute<{ delivery_id: string; woken: boolean }>(
    sql`select delivery_id, woken_at is not null as woken from webhook_admission_waiters
        where tenant_id = ${tenantId} order by id`,
  );
  return rows.map((r) => ({ delivery_id: r.delivery_id, woken: r.woken }));
}

/** The delivery holding the breaker's timer (its waker), or null. */
async function wakerOf(tenantId: string, subscriptionId: number): Promise<string | null> {
  const rows = await h.db.execute<{ waker: string | null }>(
    sql`select waker_delivery_id as waker from webhook_endpoint_breakers
        where tenant_id = ${tenantId} and subscription_id = ${subscriptionId}`,
  );
  return rows[0]?.waker ?? null;
}

const T0 = Date.parse('2026-03-02T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Activities with the tenant cap `cap`, and the calls of a wake-aware delivery of the fixture's subscription: `ask`
 * (admission naming its workflow `wf/<deliveryId>`) and `record` (attempt 1, waking waiters).
 */
function wakeAware(f: { tenantId: string; subscriptionId: number }, cap: number) {
  const limited = createWebhookDeliveryActivities({
    ...h.deps,
    webhookLimits: { maxSubscriptionsPerTenant: 100, maxConcurrentDeliveriesPerTenant: cap },
  });
  const ask = (deliveryId: string, atMs: number) =>
    limited.admitWebhookAttempt({
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId,
      at: iso(atMs),
      refusals: 0,
      workflowId: `wf/${deliveryId}`,
    });
  const record = (deliveryId: string, atMs: number, responseStatus: number | null = 200) =>
    limited.recordWebhookAttempt({
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId,
      attempt: 1,
      at: iso(atMs),
      responseStatus,
      latencyMs: 0,
      error: responseStatus === 200 ? null : 'timeout',
      nextAttemptAt: iso(atMs + 5_000),
      wakeWaiters: true,
    });
  return { limited, ask, record };
}

describe('admitWebhookAttempt and the endpoint breaker', () => {
  it('five consecutive failures open the breaker: no attempt is admitted until its half-open time; a successful probe closes it', async () => {
    const f = await fixture();
    const deliveries = await moreDeliveries(f, 6);
    const attempt = (deliveryId: string, atMs: number, responseStatus: number | null) => ({
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId,
      attempt: 1,
      at: iso(atMs),
      responseStatus,
      latencyMs: 0,
      error: responseStatus === 200 ? null : 'timeout',
      nextAttemptAt: iso(atMs + 5_000),
    });
    for (const [i, deliveryId] of deliveries.slice(0, 5).entries()) {
      const admit = {
        tenantId: f.tenantId,
        subscriptionId: f.subscriptionId,
        deliveryId,
        at: iso(T0 + i),
        refusals: 0,
      };
      expect(await ops.admitWebhookAttempt(admit)).toEqual({ admitted: true, probe: false, unproven: true });
      await ops.recordWebhookAttempt(attempt(deliveryId, T0 + i, null));
      // Run twice (docs/conventions.md §11): the retried record counts the failure once.
      await ops.recordWebhookAttempt(attempt(deliveryId, T0 + i, null));
    }
    expect(await breakerRow(f.tenantId, f.subscriptionId)).toMatchObject({
      state: 'OPEN',
      consecutive_failures: 5,
    });
    expect(await slotCount(f.tenantId)).toBe(0);

    const waiting = deliveries[5]!;
    const refused = await ops.admitWebhookAttempt({
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: waiting,
      at: iso(T0 + 10_000),
      refusals: 0,
    });
    // Opened at T0 + 4 ms for 30 s: the wait runs to then (+ at most 10% jitter), holding no slot.
    expect(refused).toMatchObject({ admitted: false, reason: 'BREAKER_OPEN' });
    if (refused.admitted) throw new Error('unreachable');
    expect(refused.waitMs).toBeGreaterThanOrEqual(20_004);
    expect(refused.waitMs).toBeLessThanOrEqual(22_005);
    expect(await slotCount(f.tenantId)).toBe(0);
    expect((await readDelivery(h.db, f.tenantId, waiting)).delivery.nextAttemptAt?.getTime()).toBe(
      T0 + 10_000 + refused.waitMs,
    );

    // At the half-open time one delivery probes; another is told to wait for its outcome.
    const probe = {
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: waiting,
      at: iso(T0 + 30_004),
      refusals: 0,
    };
    expect(await ops.admitWebhookAttempt(probe)).toEqual({ admitted: true, probe: true, unproven: true });
    expect(await ops.admitWebhookAttempt(probe)).toEqual({ admitted: true, probe: false, unproven: true });
    expect(
      await ops.admitWebhookAttempt({ ...probe, deliveryId: deliveries[0]!, at: iso(T0 + 30_005) }),
    ).toMatchObject({ admitted: false, reason: 'BREAKER_OPEN' });
    expect(await breakerRow(f.tenantId, f.subscriptionId)).toMatchObject({ state: 'HALF_OPEN' });

    await ops.recordWebhookAttempt(attempt(waiting, T0 + 30_004, 200));
    expect(await breakerRow(f.tenantId, f.subscriptionId)).toMatchObject({
      state: 'CLOSED',
      consecutive_failures: 0,
    });
    expect(
      await ops.admitWebhookAttempt({ ...probe, deliveryId: deliveries[0]!, at: iso(T0 + 30_006) }),
    ).toEqual({ admitted: true, probe: false, unproven: false });
  });

  it('an endpoint is unproven until an attempt to it succeeds, and again once one fails', async () => {
    const f = await fixture();
    const [first, second, third] = await moreDeliveries(f, 3);
    const admit = (deliveryId: string, atMs: number) =>
      ops.admitWebhookAttempt({
        tenantId: f.tenantId,
        subscriptionId: f.subscriptionId,
        deliveryId,
        at: iso(atMs),
        refusals: 0,
      });
    const record = (deliveryId: string, atMs: number, responseStatus: number | null) =>
      ops.recordWebhookAttempt({
        tenantId: f.tenantId,
        subscriptionId: f.subscriptionId,
        deliveryId,
        attempt: 1,
        at: iso(atMs),
        responseStatus,
        latencyMs: 0,
        error: responseStatus === 200 ? null : 'timeout',
        nextAttemptAt: responseStatus === 200 ? null : iso(atMs + 5_000),
      });
    // No attempt recorded yet (no breaker row): unproven.
    expect(await admit(first!, T0)).toEqual({ admitted: true, probe: false, unproven: true });
    await record(first!, T0, 200);
    expect(await breakerRow(f.tenantId, f.subscriptionId)).toMatchObject({
      state: 'CLOSED',
      consecutive_failures: 0,
    });
    expect(await admit(second!, T0 + 1)).toEqual({ admitted: true, probe: false, unproven: false });
    await record(second!, T0 + 1, null);
    expect(await admit(third!, T0 + 2)).toEqual({ admitted: true, probe: false, unproven: true });
  });

  it('a tenant at its cap of attempts in flight: one more waits (backing off) until a slot is freed or expires', async () => {
    const limited = createWebhookDeliveryActivities({
      ...h.deps,
      webhookLimits: { maxSubscriptionsPerTenant: 100, maxConcurrentDeliveriesPerTenant: 2 },
    });
    const f = await fixture();
    const [a, b, c] = await moreDeliveries(f, 3);
    const ask = (deliveryId: string, atMs: number, refusals = 0) =>
      limited.admitWebhookAttempt({
        tenantId: f.tenantId,
        subscriptionId: f.subscriptionId,
        deliveryId,
        at: iso(atMs),
        refusals,
      });
    expect(await ask(a!, T0)).toMatchObject({ admitted: true });
    expect(await ask(b!, T0)).toMatchObject({ admitted: true });
    const first = await ask(c!, T0);
    expect(first).toMatchObject({ admitted: false, reason: 'TENANT_AT_CAPACITY' });
    const later = await ask(c!, T0, 5);
    if (first.admitted || later.admitted) throw new Error('unreachable');
    expect(first.waitMs).toBeGreaterThanOrEqual(125);
    expect(first.waitMs).toBeLessThanOrEqual(375);
    expect(later.waitMs).toBeGreaterThanOrEqual(2_500);
    expect(await slotCount(f.tenantId)).toBe(2);

    // Another tenant is not affected by this one's cap.
    const other = await fixture();
    expect(await limited.admitWebhookAttempt({ ...other, at: iso(T0), refusals: 0 })).toMatchObject({
      admitted: true,
    });

    // Recording a's outcome frees its slot.
    await limited.recordWebhookAttempt({
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: a!,
      attempt: 1,
      at: iso(T0),
      responseStatus: 200,
      latencyMs: 3,
      error: null,
      nextAttemptAt: null,
    });
    expect(await ask(c!, T0 + 1_000)).toMatchObject({ admitted: true });
    // b's slot expires 60 s after it was taken (a worker that died mid-attempt): a new delivery gets it then.
    const [d] = await moreDeliveries(f, 1);
    expect(await ask(d!, T0 + 59_000)).toMatchObject({ admitted: false });
    expect(await ask(d!, T0 + 60_001)).toMatchObject({ admitted: true });
  });

  it("never blocks on the tenant's admission lock: while another admission holds it, the answer is at once 'ask again later', holding no connection", async () => {
    const f = await fixture();
    const holder = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
    try {
      let busy: Awaited<ReturnType<typeof ops.admitWebhookAttempt>> | undefined;
      let tookMs = Number.NaN;
      await holder.begin(async (t) => {
        await t`select pg_advisory_xact_lock(hashtext(${`webhook-admission/${f.tenantId}`}))`;
        const started = Date.now();
        busy = await ops.admitWebhookAttempt({ ...f, at: iso(T0), refusals: 0 });
        tookMs = Date.now() - started;
      });
      expect(busy).toMatchObject({ admitted: false, reason: 'TENANT_AT_CAPACITY' });
      expect(tookMs).toBeLessThan(2000);
      expect(await slotCount(f.tenantId)).toBe(0);
      // Once the lock is free, the same delivery is admitted.
      expect(await ops.admitWebhookAttempt({ ...f, at: iso(T0), refusals: 1 })).toMatchObject({
        admitted: true,
      });
    } finally {
      await holder.end();
    }
  });

  it('waiting for a wake-up: a refused delivery queues (a 5–10 min safety wait); a freed slot names the oldest waiting, no more than the free slots; one refused again keeps its place', async () => {
    const f = await fixture();
    const [a, b, c, d, e] = await moreDeliveries(f, 5);
    const workflowOf = (deliveryId: string) => `wf/${deliveryId}`;
    const { limited, ask, record } = wakeAware(f, 2);
    expect(await ask(a!, T0)).toMatchObject({ admitted: true });
    expect(await ask(b!, T0)).toMatchObject({ admitted: true });
    for (const [i, waiting] of [c!, d!, e!].entries()) {
      const refused = await ask(waiting, T0 + 1 + i);
      if (refused.admitted) throw new Error(`${waiting} was admitted over the cap`);
      expect(refused.reason).toBe('TENANT_AT_CAPACITY');
      expect(refused.waitMs).toBeGreaterThanOrEqual(300_000);
      expect(refused.waitMs).toBeLessThanOrEqual(600_000);
    }
    expect(await waiterRows(f.tenantId)).toEqual([c, d, e].map((id) => ({ delivery_id: id, woken: false })));

    // a's outcome frees one slot: c, the oldest, is named (once: its wake-up is pending, d is not named for it).
    expect(await record(a!, T0 + 100)).toMatchObject({ wake: [workflowOf(c!)] });
    expect(await waiterRows(f.tenantId)).toEqual([
      { delivery_id: c, woken: true },
      { delivery_id: d, woken: false },
      { delivery_id: e, woken: false },
    ]);
    // A record run twice names no one more (c's wake-up is still pending and the slot is c's to take).
    expect(await record(a!, T0 + 100)).toMatchObject({ wake: [] });
    // c asks and is admitted: it leaves the queue.
    expect(await ask(c!, T0 + 200)).toMatchObject({ admitted: true });
    expect((await waiterRows(f.tenantId)).map((w) => w.delivery_id)).toEqual([d, e]);

    // b's outcome names d; a newcomer takes the slot first, so d is refused again and keeps its place before e.
    expect(await record(b!, T0 + 300)).toMatchObject({ wake: [workflowOf(d!)] });
    const [late] = await moreDeliveries(f, 1);
    expect(await ask(late!, T0 + 301)).toMatchObject({ admitted: true });
    expect(await ask(d!, T0 + 302)).toMatchObject({ admitted: false, reason: 'TENANT_AT_CAPACITY' });
    expect(await waiterRows(f.tenantId)).toEqual([
      { delivery_id: d, woken: false },
      { delivery_id: e, woken: false },
    ]);

    // Without a workflow id (a delivery started before the wake-up existed), a refusal is a short timed wait, not queued.
    const [old] = await moreDeliveries(f, 1);
    const timed = await limited.admitWebhookAttempt({
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: old!,
      at: iso(T0 + 303),
      refusals: 0,
    });
    if (timed.admitted) throw new Error('unreachable');
    expect(timed.waitMs).toBeLessThanOrEqual(375);
    expect((await waiterRows(f.tenantId)).map((w) => w.delivery_id)).not.toContain(old);

    expect(await record(c!, T0 + 400)).toMatchObject({ wake: [workflowOf(d!)] });
  });

  it("an open breaker: one waiting delivery keeps the breaker's timer (the waker), the others wait to be woken; a failed probe has a waiting one take the part, a successful one wakes them up to the free slots", async () => {
    const f = await fixture();
    const { ask, record } = wakeAware(f, 2);
    const deliveries = await moreDeliveries(f, 4);
    const [w1, w2, w3, w4] = deliveries;
    const openUntil = T0 + 30_000;
    await withTenantTransaction(h.db, f.tenantId, (tx) =>
      tx.insert(webhookEndpointBreakers).values({
        tenantId: f.tenantId,
        subscriptionId: f.subscriptionId,
        state: 'OPEN',
        consecutiveFailures: 5,
        openings: 1,
        openUntil: new Date(openUntil),
      }),
    );

    const first = await ask(w1!, T0);
    if (first.admitted) throw new Error('unreachable');
    // The waker: told the breaker's own wait (to its open time, + at most 10%).
    expect(first.waitMs).toBeGreaterThanOrEqual(30_000);
    expect(first.waitMs).toBeLessThanOrEqual(33_000);
    for (const waiting of [w2!, w3!, w4!]) {
      const refused = await ask(waiting, T0 + 1);
      if (refused.admitted) throw new Error('unreachable');
      expect(refused.waitMs).toBeGreaterThanOrEqual(300_000);
    }
    expect(await wakerOf(f.tenantId, f.subscriptionId)).toBe(w1);

    // At the open time the waker probes (and gives up the part); the probe fails: the breaker re-opens, and the
    // oldest waiting delivery of the endpoint is woken to take the waker's part (no slot goes to an open endpoint).
    expect(await ask(w1!, openUntil)).toEqual({ admitted: true, probe: true, unproven: true });
    expect(await wakerOf(f.tenantId, f.subscriptionId)).toBeNull();
    expect(await record(w1!, openUntil, null)).toMatchObject({ wake: [`wf/${w2}`] });
    const reopened = await ask(w2!, openUntil + 10);
    if (reopened.admitted) throw new Error('unreachable');
    expect(reopened.waitMs).toBeGreaterThanOrEqual(60_000 - 10);
    expect(reopened.waitMs).toBeLessThanOrEqual(66_000);
    expect(await wakerOf(f.tenantId, f.subscriptionId)).toBe(w2);

    // The next probe succeeds: the breaker closes and the waiting deliveries are woken, up to the 2 free slots.
    const secondOpenUntil = openUntil + 60_000;
    expect(await ask(w2!, secondOpenUntil)).toEqual({ admitted: true, probe: true, unproven: true });
    expect(await record(w2!, secondOpenUntil, 200)).toMatchObject({ wake: [`wf/${w3}`, `wf/${w4}`] });
    expect(await breakerRow(f.tenantId, f.subscriptionId)).toMatchObject({ state: 'CLOSED' });
  });

  it('cancelling a waiting delivery takes it out of the queue and gives up its waker part; cancelling a slot holder wakes the next', async () => {
    const f = await fixture();
    const [holder, waiting, next] = await moreDeliveries(f, 3);
    const { limited, ask } = wakeAware(f, 1);
    expect(await ask(holder!, T0)).toMatchObject({ admitted: true });
    expect(await ask(waiting!, T0)).toMatchObject({ admitted: false });
    expect(await ask(next!, T0)).toMatchObject({ admitted: false });
    expect(
      await limited.cancelWebhookDelivery({
        tenantId: f.tenantId,
        deliveryId: waiting!,
        at: iso(T0 + 1),
        wakeWaiters: true,
      }),
    ).toEqual({ deliveryState: 'CANCELLED', wake: [] });
    expect((await waiterRows(f.tenantId)).map((w) => w.delivery_id)).toEqual([next]);
    expect(
      await limited.cancelWebhookDelivery({
        tenantId: f.tenantId,
        deliveryId: holder!,
        at: iso(T0 + 2),
        wakeWaiters: true,
      }),
    ).toEqual({ deliveryState: 'CANCELLED', wake: [`wf/${next}`] });
  });

  it('cancelling a delivery frees its slot', async () => {
    const f = await fixture();
    await ops.admitWebhookAttempt({ ...f, at: iso(T0), refusals: 0 });
    expect(await slotCount(f.tenantId)).toBe(1);
    await ops.cancelWebhookDelivery({ tenantId: f.tenantId, deliveryId: f.deliveryId, at: iso(T0) });
    expect(await slotCount(f.tenantId)).toBe(0);
  });
});

describe('sendWebhook connect timeout', () => {
  it('an address that never accepts the connection fails after the connect timeout, not the 15 s one', async () => {
    // A listener whose process never accepts (its event loop is blocked) with a backlog of 1: once the kernel's
    // queue is full, further SYNs are dropped and a connection attempt hangs, as at a blackholed address.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>{process.stdout.write(s.address().port+'\\n');Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0);});`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const sockets: Socket[] = [];
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
        child.once('error', reject);
      });
      // Fill the accept queue until a connection no longer completes.
      for (let i = 0; i < 16; i++) {
        const socket = connect({ port, host: '127.0.0.1' });
        sockets.push(socket);
        socket.on('error', () => {});
        const connected = await new Promise<boolean>((resolve) => {
          socket.once('connect', () => resolve(true));
          setTimeout(() => resolve(false), 300);
        });
        if (!connected) break;
      }
      expect(connectTimeoutMs).toBeLessThan(attemptTimeoutMs);
      const send = sendWebhook(h.deps, { connectTimeoutMs: 700 });
      const started = performance.now();
      const result = await send({
        url: `http://127.0.0.1:${port}/hooks`,
        body: '{}',
        deliveryId: 'whd_ct',
        signingSecrets: [
          { secretVersion: 1, sealedSecret: sealSecret(h.deps.dataEncryptionKey, 'whd_ct', 's') },
        ],
      });
      const took = performance.now() - started;
      expect(result).toMatchObject({ responseStatus: null, error: 'connect timeout' });
      expect(took).toBeGreaterThanOrEqual(650);
      expect(took).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      child.kill('SIGKILL');
    }
  });

  it("an endpoint with no recent success: the attempt's own short limit (5 s) frees a connection held open, not the 15 s one", async () => {
    const held = createServer(() => {});
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    try {
      const limits = attemptLimitsFor(1, true);
      expect(limits).toEqual({ connectTimeoutMs: 2_000, timeoutMs: 5_000 });
      // From the third attempt the full limits apply, so a slow but live receiver is still reached.
      expect(attemptLimitsFor(3, true)).toEqual({ connectTimeoutMs, timeoutMs: attemptTimeoutMs });
      expect(attemptLimitsFor(1, false)).toEqual({ connectTimeoutMs, timeoutMs: attemptTimeoutMs });
      const started = Date.now();
      const result = await sendWebhook(h.deps)({
        url: `http://127.0.0.1:${(held.address() as { port: number }).port}/hooks`,
        body: '{}',
        deliveryId: 'whd_unproven',
        signingSecrets: [
          { secretVersion: 1, sealedSecret: sealSecret(h.deps.dataEncryptionKey, 'whd_unproven', 's') },
        ],
        ...limits,
      });
      expect(result).toMatchObject({ responseStatus: null, error: 'timeout' });
      expect(result.latencyMs).toBeGreaterThanOrEqual(4_900);
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      held.closeAllConnections();
      held.close();
    }
  }, 20_000);

  it('a connection that is accepted but never answered is held by the 15 s limit, not the connect timeout', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const send = sendWebhook(h.deps, { connectTimeoutMs: 200, timeoutMs: 900 });
      const result = await send({
        url: `http://127.0.0.1:${(silent.address() as { port: number }).port}/hooks`,
        body: '{}',
        deliveryId: 'whd_rt',
        signingSecrets: [
          { secretVersion: 1, sealedSecret: sealSecret(h.deps.dataEncryptionKey, 'whd_rt', 's') },
        ],
      });
      expect(result).toMatchObject({ responseStatus: null, error: 'timeout' });
      expect(result.latencyMs).toBeGreaterThanOrEqual(850);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
