/**
 * webhookDeliveryWorkflow on the time-skipping test server (docs/conventions.md §11) with the real delivery
 * activities on the real test PostgreSQL and a real local HTTP receiver that checks every request
 * with `verifyWebhook` (docs/design.md §5 Webhooks, docs/processes.md P2). One environment for the file,
 * tests in sequence, a unique queue and tenant per test; retries are crossed by time skipping.
 */
import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createActivities, type Deps } from '../../activities';
import { createDb } from '../../db/client';
import {
  webhookAdmissionWaiters,
  webhookDeliverySlots,
  webhookEndpointBreakers,
  webhookSecrets,
  webhookSubscriptions,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { attemptDelaysMs } from '../../domain/webhooks/retry-schedule';
import { asTemporalActivities } from '../../workers/activities';
import {
  admissionWakeSignal,
  cancelDeliverySignal,
  getDeliveryStateQuery,
} from '../../workflows/webhooks/webhook-delivery/messages';
import type { WebhookDeliveryInput } from '../../workflows/webhooks/webhook-delivery/types';
import type { webhookDeliveryWorkflow } from '../../workflows/webhooks/webhook-delivery/workflow';
import {
  type Answer,
  createSubscriptionFixture,
  insertDelivery,
  insertOutboxEvent,
  newSigningSecret,
  readDelivery,
  readSubscription,
  startReceiver,
} from '../support/webhooks';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const dataEncryptionKey = 'b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf';

let env: TestWorkflowEnvironment;
let dbHandle: ReturnType<typeof createDb>;
let deps: Deps;
let sequence = 0;

beforeAll(async () => {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // A runtime is already installed in this process.
  }
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
  });
  dbHandle = createDb(inject('databaseUrl'), { maxConnections: 6 });
  deps = {
    db: dbHandle.db,
    clock: () => new Date(),
    secretPepper: 'wh-pepper',
    dataEncryptionKey,
    environment: 'sandbox',
  };
});
afterAll(async () => {
  await env?.teardown();
  await dbHandle?.close();
});

function names() {
  sequence += 1;
  const suffix = `${randomBytes(4).toString('hex')}-${sequence}`;
  return { taskQueue: `webhooks-test-${suffix}`, tenantId: `wh-${suffix}` };
}

/** A worker on `taskQueue` with the real activities; `maxConcurrentDeliveriesPerTenant` sets the tenant cap. */
async function createWorker(
  taskQueue: string,
  options: { maxCachedWorkflows?: number; maxConcurrentDeliveriesPerTenant?: number } = {},
) {
  const { maxConcurrentDeliveriesPerTenant, ...workerOptions } = options;
  const activityDeps: Deps =
    maxConcurrentDeliveriesPerTenant === undefined
      ? deps
      : { ...deps, webhookLimits: { maxSubscriptionsPerTenant: 100, maxConcurrentDeliveriesPerTenant } };
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(createActivities(activityDeps)),
    ...workerOptions,
  });
}

/** A subscription pointing at a fresh receiver, one event and its delivery row. */
async function scenario(options: {
  tenantId: string;
  answer: (index: number, serverNowMs: number) => Answer | Promise<Answer>;
  secrets?: { secret: string; expiresAt?: Date | null }[];
  receiverSecrets?: () => string[];
  failingSince?: Date | null;
}) {
  const secrets = options.secrets ?? [{ secret: newSigningSecret() }];
  const receiver = await startReceiver({
    secrets: options.receiverSecrets ?? (() => secrets.map((s) => s.secret)),
    answer: async (_r, index) => options.answer(index, await env.currentTimeMs()),
  });
  const subscriptionId = await createSubscriptionFixture(deps.db, dataEncryptionKey, {
    tenantId: options.tenantId,
    url: receiver.url,
    secrets,
    failingSince: options.failingSince ?? null,
  });
  const { eventId, eventType } = await insertOutboxEvent(deps.db, { tenantId: options.tenantId });
  const deliveryId = await insertDelivery(deps.db, {
    tenantId: options.tenantId,
    subscriptionId,
    eventId,
    eventType,
  });
  const input: WebhookDeliveryInput = {
    tenantId: options.tenantId,
    subscriptionId,
    eventId,
    eventType,
    deliveryId,
  };
  return { receiver, subscriptionId, eventId, deliveryId, input, secrets };
}

function start(taskQueue: string, input: WebhookDeliveryInput) {
  return env.client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
    taskQueue,
    workflowId: `webhook-delivery/${input.tenantId}/${input.subscriptionId}/${input.eventId}`,
    args: [input],
  });
}

function eventually<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: 20_000, interval: 50 });
}

describe('webhookDeliveryWorkflow', () => {
  it('delivers at once to a healthy receiver, signed, with the docs/design.md §5 headers', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({ tenantId, answer: () => ({ status: 204 }) });
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    expect(result).toEqual({ state: 'SUCCEEDED', attempts: 1, reason: null });
    expect(s.receiver.received).toHaveLength(1);
    const [got] = s.receiver.received;
    expect(got!.verificationError).toBeNull();
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['service-webhook-id']).toBe(s.deliveryId);
    expect(got!.envelope).toEqual({
      eventId: s.eventId,
      eventType: 'payment.posted',
      apiVersion: '2026-01-01',
      occurredAt: '2026-01-02T03:04:05.678Z',
      subject: { type: 'payment', id: '42' },
      data: {
        paymentId: 42,
        loanRef: '000000042',
        status: 'POSTED',
        amount: '12.50',
        currency: 'USD',
        effectiveDate: '2026-01-02',
      },
    });
    const { delivery, attempts } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(delivery.state).toBe('SUCCEEDED');
    expect(delivery.attemptCount).toBe(1);
    expect(delivery.nextAttemptAt).toBeNull();
    expect(attempts.map((a) => [a.attempt, a.responseStatus, a.error])).toEqual([[1, 204, null]]);
    await s.receiver.close();
  });

  it('an endpoint with no recent success that holds the connection open holds the attempt 5 s, not 15 s; the retry gets through', async () => {
    const { taskQueue, tenantId } = names();
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const s = await scenario({
      tenantId,
      answer: async (index) => {
        if (index === 0) await hung;
        return { status: 200 };
      },
    });
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    release();
    expect(result).toEqual({ state: 'SUCCEEDED', attempts: 2, reason: null });
    const { attempts } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(attempts.map((a) => [a.attempt, a.responseStatus, a.error])).toEqual([
      [1, null, 'timeout'],
      [2, 200, null],
    ]);
    expect(attempts[0]!.latencyMs).toBeGreaterThanOrEqual(4_900);
    expect(attempts[0]!.latencyMs).toBeLessThan(8_000);
    await s.receiver.close();
  }, 60_000);

  it('a receiver failing for two days then recovering gets the event on the next scheduled attempt', async () => {
    const { taskQueue, tenantId } = names();
    const startedAt = await env.currentTimeMs();
    const recoversAt = startedAt + 2 * DAY;
    const s = await scenario({
      tenantId,
      answer: (_i, nowMs) => (nowMs < recoversAt ? { status: 503 } : { status: 200 }),
    });
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    expect(result.state).toBe('SUCCEEDED');
    const { delivery, attempts } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(delivery.state).toBe('SUCCEEDED');
    const last = attempts.at(-1)!;
    const failures = attempts.slice(0, -1);
    expect(last.responseStatus).toBe(200);
    expect(last.at.getTime()).toBeGreaterThanOrEqual(recoversAt);
    expect(failures.length).toBeGreaterThanOrEqual(7);
    for (const f of failures) {
      expect(f.responseStatus).toBe(503);
      expect(f.at.getTime()).toBeLessThan(recoversAt);
    }
    // The success came at the next planned attempt: its gap is the schedule's (±20%), no earlier.
    const gapMs = last.at.getTime() - failures.at(-1)!.at.getTime();
    const baseMs = attemptDelaysMs[attempts.length - 1]!;
    expect(gapMs).toBeGreaterThanOrEqual(baseMs * 0.8 - 1000);
    expect(gapMs).toBeLessThanOrEqual(baseMs * 1.2 + 1000);
    expect(s.receiver.received.every((r) => r.verificationError === null)).toBe(true);
    // The bytes are the same on every attempt; the delivery id too.
    expect(new Set(s.receiver.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(s.receiver.received.map((r) => r.headers['service-webhook-id'])).size).toBe(1);
    expect((await readSubscription(deps.db, tenantId, s.subscriptionId)).failingSince).toBeNull();
    await s.receiver.close();
  });

  it('ten failures → FAILED, attempts spaced by the schedule with jitter', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({ tenantId, answer: () => ({ status: 500 }) });
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    expect(result).toEqual({ state: 'FAILED', attempts: 10, reason: 'ATTEMPTS_EXHAUSTED' });
    const { delivery, attempts } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(delivery.state).toBe('FAILED');
    expect(delivery.attemptCount).toBe(10);
    expect(delivery.nextAttemptAt).toBeNull();
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let i = 1; i < attempts.length; i += 1) {
      const gapMs = attempts[i]!.at.getTime() - attempts[i - 1]!.at.getTime();
      expect(gapMs).toBeGreaterThanOrEqual(attemptDelaysMs[i]! * 0.8 - 1000);
      expect(gapMs).toBeLessThanOrEqual(attemptDelaysMs[i]! * 1.2 + 1000);
    }
    expect(attempts.every((a) => a.responseStatus === 500 && a.error === 'HTTP 500')).toBe(true);
    expect(s.receiver.received).toHaveLength(10);
    expect(s.receiver.received.every((r) => r.verificationError === null)).toBe(true);
    const subscription = await readSubscription(deps.db, tenantId, s.subscriptionId);
    expect(subscription.status).toBe('ACTIVE');
    expect(subscription.failingSince?.getTime()).toBe(attempts[0]!.at.getTime());
    await s.receiver.close();
  });

  it('410 → the subscription is DISABLED (GONE) and no retry follows', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({ tenantId, answer: () => ({ status: 410 }) });
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    expect(result).toEqual({ state: 'FAILED', attempts: 1, reason: 'GONE' });
    const subscription = await readSubscription(deps.db, tenantId, s.subscriptionId);
    expect(subscription.status).toBe('DISABLED');
    expect(subscription.disabledReason).toBe('GONE');
    expect(s.receiver.received).toHaveLength(1);
    await s.receiver.close();
  });

  it('five days of continuous failure → the subscription is DISABLED (FAILING)', async () => {
    const { taskQueue, tenantId } = names();
    const now = await env.currentTimeMs();
    const s = await scenario({
      tenantId,
      answer: () => ({ status: 500 }),
      failingSince: new Date(now - 5 * DAY + 10 * 60_000),
    });
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    // Attempts 1–3 fall inside the 5 days (0, 5 s, 5 min); attempt 4 (30 min ± 20%) is past them.
    expect(result).toEqual({ state: 'FAILED', attempts: 4, reason: 'FAILING' });
    const subscription = await readSubscription(deps.db, tenantId, s.subscriptionId);
    expect(subscription.status).toBe('DISABLED');
    expect(subscription.disabledReason).toBe('FAILING');
    await s.receiver.close();
  });

  it('honours a Retry-After longer than the schedule', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({
      tenantId,
      answer: (index) =>
        index === 0 ? { status: 429, headers: { 'retry-after': '3600' } } : { status: 200 },
    });
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    expect(result).toEqual({ state: 'SUCCEEDED', attempts: 2, reason: null });
    const { attempts } = await readDelivery(deps.db, tenantId, s.deliveryId);
    const gapMs = attempts[1]!.at.getTime() - attempts[0]!.at.getTime();
    expect(gapMs).toBeGreaterThanOrEqual(3600_000);
    expect(gapMs).toBeLessThan(3600_000 + 5_000);
    await s.receiver.close();
  });

  it('rotation overlap: both signatures (new first) while the old secret is valid, then only the new', async () => {
    const { taskQueue, tenantId } = names();
    const oldSecret = newSigningSecret();
    const newSecret = newSigningSecret();
    let subscriptionId = 0;
    const s = await scenario({
      tenantId,
      secrets: [{ secret: oldSecret, expiresAt: new Date(Date.now() + HOUR) }, { secret: newSecret }],
      receiverSecrets: () => [oldSecret],
      answer: async (index) => {
        if (index > 0) return { status: 200 };
        // The overlap ends between the two attempts.
        await withTenantTransaction(deps.db, tenantId, (tx) =>
          tx
            .update(webhookSecrets)
            .set({ expiresAt: new Date(Date.now() - 1000) })
            .where(
              and(eq(webhookSecrets.subscriptionId, subscriptionId), eq(webhookSecrets.secretVersion, 1)),
            ),
        );
        return { status: 500 };
      },
    });
    subscriptionId = s.subscriptionId;
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    expect(result.state).toBe('SUCCEEDED');
    const [first, second] = s.receiver.received;
    expect(first!.signatureCount).toBe(2);
    expect(first!.verificationError).toBeNull(); // the receiver still holding only the old secret
    const { verifyWebhook } = await import('../../client/src/webhooks');
    const firstSignatures = String(first!.headers['service-webhook-signature']).split(',');
    expect(() =>
      verifyWebhook(first!.body, { ...first!.headers, 'service-webhook-signature': firstSignatures[0] }, [
        newSecret,
      ]),
    ).not.toThrow();
    expect(second!.signatureCount).toBe(1);
    expect(second!.verificationError).toBe('signature_mismatch');
    expect(() => verifyWebhook(second!.body, second!.headers, [newSecret])).not.toThrow();
    await s.receiver.close();
  });

  it('deactivation: a subscription made INACTIVE gets no further attempt; the delivery is CANCELLED', async () => {
    const { taskQueue, tenantId } = names();
    let subscriptionId = 0;
    const s = await scenario({
      tenantId,
      answer: async () => {
        await withTenantTransaction(deps.db, tenantId, (tx) =>
          tx
            .update(webhookSubscriptions)
            .set({ status: 'INACTIVE' })
            .where(eq(webhookSubscriptions.id, subscriptionId)),
        );
        return { status: 500 };
      },
    });
    subscriptionId = s.subscriptionId;
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => (await start(taskQueue, s.input)).result());
    expect(result).toEqual({ state: 'CANCELLED', attempts: 1, reason: 'SUBSCRIPTION_INACTIVE' });
    expect(s.receiver.received).toHaveLength(1);
    const { delivery } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(delivery.state).toBe('CANCELLED');
    expect(delivery.nextAttemptAt).toBeNull();
    await s.receiver.close();
  });

  it('the cancelDelivery signal stops a pending retry at once', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({ tenantId, answer: () => ({ status: 500 }) });
    const worker = await createWorker(taskQueue);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, s.input);
      await eventually(async () =>
        expect((await handle.query(getDeliveryStateQuery)).state).toBe('RETRYING'),
      );
      await handle.signal(cancelDeliverySignal, { reason: 'SUBSCRIPTION_DEACTIVATED' });
      expect(await handle.result()).toEqual({
        state: 'CANCELLED',
        attempts: 1,
        reason: 'SUBSCRIPTION_DEACTIVATED',
      });
    });
    expect(s.receiver.received).toHaveLength(1);
    const { delivery } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(delivery.state).toBe('CANCELLED');
    await s.receiver.close();
  });

  it('survives a worker restart mid-delivery (the new worker replays and carries on)', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({ tenantId, answer: (index) => ({ status: index < 2 ? 500 : 200 }) });
    // No workflow cache on the first worker: the test server never times a sticky queue out, so
    // the next task must go to the shared queue, where the second worker replays the history.
    const first = await createWorker(taskQueue, { maxCachedWorkflows: 0 });
    const handle = await first.runUntil(async () => {
      const h = await start(taskQueue, s.input);
      await eventually(async () => expect((await h.query(getDeliveryStateQuery)).attempts).toBe(1));
      return h;
    });
    expect(first.getState()).toBe('STOPPED');
    const second = await createWorker(taskQueue);
    const result = await second.runUntil(handle.result());
    expect(result).toEqual({ state: 'SUCCEEDED', attempts: 3, reason: null });
    const { attempts } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(attempts.map((a) => a.responseStatus)).toEqual([500, 500, 200]);
    expect(s.receiver.received).toHaveLength(3);
    await s.receiver.close();
  });

  it('an open breaker: the delivery waits, calling nobody and holding no slot, until the half-open time; its success closes the breaker', async () => {
    const { taskQueue, tenantId } = names();
    let firstRequestAtMs: number | null = null;
    const s = await scenario({
      tenantId,
      answer: (_i, nowMs) => {
        firstRequestAtMs ??= nowMs;
        return { status: 200 };
      },
    });
    const openUntil = (await env.currentTimeMs()) + 10 * 60_000;
    await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx.insert(webhookEndpointBreakers).values({
        tenantId,
        subscriptionId: s.subscriptionId,
        state: 'OPEN',
        consecutiveFailures: 5,
        openings: 1,
        openUntil: new Date(openUntil),
      }),
    );
    const worker = await createWorker(taskQueue);
    const result = await worker.runUntil(async () => {
      const handle = await start(taskQueue, s.input);
      // Waiting on its timer: no request, no slot, the next attempt time shown.
      const waiting = await eventually(async () => {
        const progress = await handle.query(getDeliveryStateQuery);
        expect(progress.nextAttemptAt).not.toBeNull();
        return progress;
      });
      expect(Date.parse(waiting.nextAttemptAt!)).toBeGreaterThanOrEqual(openUntil);
      expect(s.receiver.received).toHaveLength(0);
      const slots = await withTenantTransaction(deps.db, tenantId, (tx) =>
        tx.select().from(webhookDeliverySlots).where(eq(webhookDeliverySlots.tenantId, tenantId)),
      );
      expect(slots).toHaveLength(0);
      return handle.result();
    });
    expect(result).toEqual({ state: 'SUCCEEDED', attempts: 1, reason: null });
    expect(s.receiver.received).toHaveLength(1);
    expect(firstRequestAtMs).toBeGreaterThanOrEqual(openUntil);
    const [breaker] = await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx.select().from(webhookEndpointBreakers).where(eq(webhookEndpointBreakers.tenantId, tenantId)),
    );
    expect(breaker).toMatchObject({ state: 'CLOSED', consecutiveFailures: 0 });
    await s.receiver.close();
  });

  it('a tenant at its cap: the waiting delivery is woken by the attempt that frees the slot, not by a timer', async () => {
    const { taskQueue, tenantId } = names();
    let releaseFirst: () => void = () => {};
    const firstAnswered = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const arrivedAt: Record<string, number> = {};
    const first = await scenario({
      tenantId,
      answer: async (_i, nowMs) => {
        arrivedAt.first = nowMs;
        await firstAnswered;
        return { status: 200 };
      },
    });
    const second = await scenario({
      tenantId,
      answer: (_i, nowMs) => {
        arrivedAt.second = nowMs;
        return { status: 200 };
      },
    });
    const worker = await createWorker(taskQueue, { maxConcurrentDeliveriesPerTenant: 1 });
    const results = await worker.runUntil(async () => {
      const firstHandle = await start(taskQueue, first.input);
      // The first holds the tenant's only slot while its receiver has not answered.
      await eventually(() => expect(first.receiver.received).toHaveLength(1));
      const secondHandle = await start(taskQueue, second.input);
      const waiting = await eventually(async () => {
        const progress = await secondHandle.query(getDeliveryStateQuery);
        expect(progress.nextAttemptAt).not.toBeNull();
        return progress;
      });
      // Refused, it waits for a wake-up: its own timer is only the 5–10 min safety net.
      expect(Date.parse(waiting.nextAttemptAt!) - (await env.currentTimeMs())).toBeGreaterThan(4 * 60_000);
      expect(second.receiver.received).toHaveLength(0);
      releaseFirst();
      // Watched by query, not by awaiting the results: awaiting a result lets the test server skip time, and it
      // could jump to the safety timer in the instant between the first's record and its signal.
      await eventually(async () =>
        expect((await secondHandle.query(getDeliveryStateQuery)).state).toBe('SUCCEEDED'),
      );
      const history = await secondHandle.fetchHistory();
      const types = (history.events ?? []).map((e) => e.eventType);
      // Its wait ended by the signal: the safety timer was cancelled, not fired.
      expect(types).toContain(temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
      expect(types).toContain(temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_CANCELED);
      expect(types).not.toContain(temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_FIRED);
      return Promise.all([firstHandle.result(), secondHandle.result()]);
    });
    expect(results).toEqual([
      { state: 'SUCCEEDED', attempts: 1, reason: null },
      { state: 'SUCCEEDED', attempts: 1, reason: null },
    ]);
    // Woken when the first's outcome was recorded: well before its safety timer would have fired.
    expect(arrivedAt.second! - arrivedAt.first!).toBeLessThan(60_000);
    const waiters = await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx.select().from(webhookAdmissionWaiters).where(eq(webhookAdmissionWaiters.tenantId, tenantId)),
    );
    expect(waiters).toHaveLength(0);
    await first.receiver.close();
    await second.receiver.close();
  });

  it('a tenant at its cap of attempts in flight: the delivery waits without calling until a slot frees and it is woken', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({ tenantId, answer: () => ({ status: 200 }) });
    const serverNow = await env.currentTimeMs();
    // Another delivery of the tenant holds the only slot (cap 1) for the next 10 minutes.
    await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx.insert(webhookDeliverySlots).values({
        tenantId,
        deliveryId: 'whd_other_in_flight',
        subscriptionId: s.subscriptionId,
        expiresAt: new Date(serverNow + 10 * 60_000),
      }),
    );
    const worker = await createWorker(taskQueue, { maxConcurrentDeliveriesPerTenant: 1 });
    const result = await worker.runUntil(async () => {
      const handle = await start(taskQueue, s.input);
      await eventually(async () => {
        expect((await handle.query(getDeliveryStateQuery)).nextAttemptAt).not.toBeNull();
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(s.receiver.received).toHaveLength(0);
      // The slot is freed and a wake-up sent (as `recordWebhookAttempt` names it and its delivery signals): the
      // waiting delivery asks again at once and goes. (Its safety timer's length is the admission activity's
      // answer, tested there; a fired timer's path is the breaker fixture's.)
      await withTenantTransaction(deps.db, tenantId, (tx) =>
        tx.delete(webhookDeliverySlots).where(eq(webhookDeliverySlots.deliveryId, 'whd_other_in_flight')),
      );
      await handle.signal(admissionWakeSignal);
      await eventually(async () =>
        expect((await handle.query(getDeliveryStateQuery)).state).toBe('SUCCEEDED'),
      );
      return handle.result();
    });
    expect(result).toEqual({ state: 'SUCCEEDED', attempts: 1, reason: null });
    expect(s.receiver.received).toHaveLength(1);
    await s.receiver.close();
  });

  it('production refuses an http loopback URL without sending (the attempt is recorded as blocked)', async () => {
    const { taskQueue, tenantId } = names();
    const s = await scenario({ tenantId, answer: () => ({ status: 200 }) });
    const productionDeps: Deps = { ...deps, environment: 'production' };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: asTemporalActivities(createActivities(productionDeps)),
    });
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, s.input);
      await eventually(async () => expect((await handle.query(getDeliveryStateQuery)).attempts).toBe(1));
      await handle.signal(cancelDeliverySignal, { reason: 'TEST_DONE' });
      await handle.result();
    });
    expect(s.receiver.received).toHaveLength(0);
    const { attempts } = await readDelivery(deps.db, tenantId, s.deliveryId);
    expect(attempts[0]!.responseStatus).toBeNull();
    expect(attempts[0]!.error).toMatch(/^blocked url: /);
    await s.receiver.close();
  });
});
