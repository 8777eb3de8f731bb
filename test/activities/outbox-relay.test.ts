/**
 * The outbox relay (docs/processes.md P0) on the real test PostgreSQL and the real Temporal dev
 * server: two instances publish each event exactly once (one delivery row and one workflow per
 * (event, matching ACTIVE subscription)); LISTEN/NOTIFY wakes it without polling; a
 * `webhook.test` event reaches its target only; an event of portfolio boarding (`source` `BOARDING`) reaches only
 * subscriptions with `includeBoardedHistory`, and none at all (no delivery, no workflow) when none has it; the lag
 * is measured. Deliveries are started on a
 * queue no worker polls, so nothing is sent; they are terminated at the end.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { and, eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createDb } from '../../db/client';
import {
  outboxEvents,
  webhookDeliveries,
  webhookEndpointBreakers,
  webhookSubscriptions,
} from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { webhookDeliveryWorkflowId } from '../../domain/ids';
import { type OutboxRelay, relayOutboxOnce, startOutboxRelay } from '../../workers/outbox-relay';
import { testDataConverter } from '../support/context';
import { createSubscriptionFixture, insertOutboxEvent, newSigningSecret } from '../support/webhooks';

const dataEncryptionKey = 'c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf';
const logger = pino({ level: 'silent' });
const handles: ReturnType<typeof createDb>[] = [];
let connection: Connection;
let client: Client;
const startedWorkflowIds: string[] = [];

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, dataConverter: testDataConverter });
});
afterAll(async () => {
  await Promise.all(
    startedWorkflowIds.map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('test cleanup')
        .catch(() => {}),
    ),
  );
  await connection?.close();
  await Promise.all(handles.map((h) => h.close()));
});

function db() {
  const handle = createDb(inject('databaseUrl'), { maxConnections: 4 });
  handles.push(handle);
  return handle.db;
}

function names() {
  const suffix = randomBytes(4).toString('hex');
  return { tenantId: `relay-${suffix}`, taskQueue: `relay-test-${suffix}` };
}

async function subscription(
  database: ReturnType<typeof db>,
  tenantId: string,
  eventTypes: string[],
  status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE',
  includeBoardedHistory = false,
) {
  const id = await createSubscriptionFixture(database, dataEncryptionKey, {
    tenantId,
    url: 'https://receiver.example/hooks',
    eventTypes,
    secrets: [{ secret: newSigningSecret() }],
    includeBoardedHistory,
  });
  if (status !== 'ACTIVE')
    await withTenantTransaction(database, tenantId, (tx) =>
      tx.update(webhookSubscriptions).set({ status }).where(eq(webhookSubscriptions.id, id)),
    );
  return id;
}

async function deliveriesOf(database: ReturnType<typeof db>, tenantId: string) {
  return withTenantTransaction(database, tenantId, (tx) => tx.select().from(webhookDeliveries));
}

async function unpublished(database: ReturnType<typeof db>, tenantId: string) {
  return withTenantTransaction(database, tenantId, (tx) =>
    tx
      .select({ eventId: outboxEvents.eventId, publishedAt: outboxEvents.publishedAt })
      .from(outboxEvents)
      .where(eq(outboxEvents.tenantId, tenantId)),
  ).then((rows) => rows.filter((r) => r.publishedAt === null));
}

describe('outbox relay', () => {
  it('two instances publish every event once: one delivery and one workflow per (event, subscription)', async () => {
    const { tenantId, taskQueue } = names();
    const dbA = db();
    const dbB = db();
    const paymentsOnly = await subscription(dbA, tenantId, ['payment.posted']);
    const both = await subscription(dbA, tenantId, ['payment.posted', 'case.transitioned']);
    await subscription(dbA, tenantId, ['payment.posted'], 'INACTIVE');
    const common = {
      client,
      logger,
      taskQueue,
      tenantIds: [tenantId],
      listen: false,
      pollIntervalMs: 600_000,
      batchSize: 4,
      lagLogIntervalMs: 0,
    };
    const relays: OutboxRelay[] = [
      await startOutboxRelay({ ...common, db: dbA }),
      await startOutboxRelay({ ...common, db: dbB }),
    ];
    // Relays first, events after: both instances then race for the same rows.
    const events: { eventId: string; eventType: string }[] = [];
    for (let i = 0; i < 25; i += 1) events.push(await insertOutboxEvent(dbA, { tenantId }));
    for (let i = 0; i < 5; i += 1)
      events.push(await insertOutboxEvent(dbA, { tenantId, eventType: 'case.transitioned' }));

    try {
      await Promise.all(relays.flatMap((r) => [r.drain(), r.drain()]));
      await vi.waitFor(async () => expect(await unpublished(dbA, tenantId)).toEqual([]), { timeout: 20_000 });
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
    }
    const [a, b] = relays.map((r) => r.stats());
    // Every row was claimed by exactly one instance (FOR UPDATE SKIP LOCKED).
    expect(a!.published + b!.published).toBe(30);
    expect(a!.deliveries + b!.deliveries).toBe(55);
    expect(a!.workflowsStarted + b!.workflowsStarted).toBe(55);

    const deliveries = await deliveriesOf(dbA, tenantId);
    expect(deliveries).toHaveLength(55);
    const expected = events.flatMap((e) =>
      e.eventType === 'payment.posted'
        ? [`${paymentsOnly}/${e.eventId}`, `${both}/${e.eventId}`]
        : [`${both}/${e.eventId}`],
    );
    expect(deliveries.map((d) => `${d.subscriptionId}/${d.eventId}`).sort()).toEqual(expected.sort());
    expect(deliveries.every((d) => d.state === 'PENDING')).toBe(true);
    for (const d of deliveries) {
      const workflowId = webhookDeliveryWorkflowId(tenantId, d.subscriptionId, d.eventId);
      startedWorkflowIds.push(workflowId);
    }
    const sample = deliveries[0]!;
    const description = await client.workflow
      .getHandle(webhookDeliveryWorkflowId(tenantId, sample.subscriptionId, sample.eventId))
      .describe();
    expect(description.type).toBe('webhookDeliveryWorkflow');
    expect(description.taskQueue).toBe(taskQueue);
    expect(description.status.name).toBe('RUNNING');
    expect(
      description.typedSearchAttributes.get(
        defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD),
      ),
    ).toBe(tenantId);

    // A row relayed again (a crash after the starts, before the commit) starts nothing new.
    await withPlatformTransaction(dbA, (tx) =>
      tx
        .update(outboxEvents)
        .set({ publishedAt: null })
        .where(and(eq(outboxEvents.tenantId, tenantId), inArray(outboxEvents.eventId, [events[0]!.eventId]))),
    );
    const again = await startOutboxRelay({ ...common, db: dbA });
    await again.drain();
    await again.stop();
    expect(await unpublished(dbA, tenantId)).toEqual([]);
    expect(again.stats().published).toBe(1);
    expect(again.stats().deliveries).toBe(2);
    expect(again.stats().workflowsStarted).toBe(0);
    expect(await deliveriesOf(dbA, tenantId)).toHaveLength(55);
  });

  it('LISTEN/NOTIFY wakes the relay without waiting for the poll', async () => {
    const { tenantId, taskQueue } = names();
    const database = db();
    const subscriptionId = await subscription(database, tenantId, ['payment.posted']);
    const relay = await startOutboxRelay({
      db: database,
      client,
      logger,
      taskQueue,
      tenantIds: [tenantId],
      pollIntervalMs: 600_000,
      lagLogIntervalMs: 0,
    });
    try {
      await relay.drain();
      const insertedAt = Date.now();
      const event = await insertOutboxEvent(database, { tenantId });
      startedWorkflowIds.push(webhookDeliveryWorkflowId(tenantId, subscriptionId, event.eventId));
      await vi.waitFor(async () => expect(await unpublished(database, tenantId)).toEqual([]), {
        timeout: 5_000,
        interval: 20,
      });
      expect(Date.now() - insertedAt).toBeLessThan(5_000);
      expect(await deliveriesOf(database, tenantId)).toHaveLength(1);
    } finally {
      await relay.stop();
    }
  });

  it('a stream of notifications is relayed in passes at least minPassIntervalMs apart, every event once', async () => {
    const { tenantId, taskQueue } = names();
    const database = db();
    const subscriptionId = await subscription(database, tenantId, ['payment.posted']);
    const relay = await startOutboxRelay({
      db: database,
      client,
      logger,
      taskQueue,
      tenantIds: [tenantId],
      pollIntervalMs: 600_000,
      lagLogIntervalMs: 0,
      minPassIntervalMs: 300,
    });
    try {
      await relay.drain();
      const before = relay.stats().passes;
      const startedAt = Date.now();
      // 20 inserting statements, so 20 notifications.
      for (let i = 0; i < 20; i++) {
        const event = await insertOutboxEvent(database, { tenantId });
        startedWorkflowIds.push(webhookDeliveryWorkflowId(tenantId, subscriptionId, event.eventId));
      }
      await vi.waitFor(async () => expect(await unpublished(database, tenantId)).toEqual([]), {
        timeout: 5_000,
        interval: 20,
      });
      const elapsedMs = Date.now() - startedAt;
      const passes = relay.stats().passes - before;
      // At most one pass per 300 ms window (plus the one a window's end may start), far fewer than 20.
      expect(passes).toBeGreaterThan(0);
      expect(passes).toBeLessThanOrEqual(Math.ceil(elapsedMs / 300) + 1);
      expect(passes).toBeLessThan(20);
      expect(await deliveriesOf(database, tenantId)).toHaveLength(20);
    } finally {
      await relay.stop();
    }
  });

  it('a boarded-history event reaches only subscriptions with includeBoardedHistory; no workflow when none has it', async () => {
    const { tenantId, taskQueue } = names();
    const database = db();
    const live = await subscription(database, tenantId, ['payment.posted']);
    const history = await subscription(database, tenantId, ['payment.posted'], 'ACTIVE', true);
    const completions = await subscription(database, tenantId, ['boarding.batch.completed']);
    const boarded = [];
    for (let i = 0; i < 3; i++)
      boarded.push(await insertOutboxEvent(database, { tenantId, boardingBatchId: 9 }));
    const liveEvent = await insertOutboxEvent(database, { tenantId });
    const pass = await relayOutboxOnce({ db: database, client, taskQueue, tenantIds: [tenantId] });
    for (const e of [...boarded, liveEvent])
      startedWorkflowIds.push(webhookDeliveryWorkflowId(tenantId, history, e.eventId));
    startedWorkflowIds.push(webhookDeliveryWorkflowId(tenantId, live, liveEvent.eventId));
    // 4 events to the subscription that asked for the history, the live one alone to the other, none to the third.
    expect(pass).toEqual({ published: 4, deliveries: 5, workflowsStarted: 5 });
    const bySubscription = (await deliveriesOf(database, tenantId)).map(
      (d) => `${d.subscriptionId} ${d.eventId}`,
    );
    expect(bySubscription.sort()).toEqual(
      [
        ...[...boarded, liveEvent].map((e) => `${history} ${e.eventId}`),
        `${live} ${liveEvent.eventId}`,
      ].sort(),
    );
    expect(bySubscription.some((d) => d.startsWith(`${completions} `))).toBe(false);
    // The subscription turned off (PATCH includeBoardedHistory false): the next boarded events start nothing.
    await withTenantTransaction(database, tenantId, (tx) =>
      tx
        .update(webhookSubscriptions)
        .set({ includeBoardedHistory: false })
        .where(eq(webhookSubscriptions.id, history)),
    );
    for (let i = 0; i < 3; i++) await insertOutboxEvent(database, { tenantId, boardingBatchId: 10 });
    const quiet = await relayOutboxOnce({ db: database, client, taskQueue, tenantIds: [tenantId] });
    expect(quiet).toEqual({ published: 3, deliveries: 0, workflowsStarted: 0 });
    expect(await deliveriesOf(database, tenantId)).toHaveLength(5);
  });

  it("paces a tenant's delivery starts: a burst at once, the rest with start delays; an open breaker holds its endpoint's starts until it lets an attempt through", async () => {
    const { tenantId, taskQueue } = names();
    const database = db();
    const healthy = await subscription(database, tenantId, ['payment.posted']);
    // An endpoint that has answered (its breaker row: no failure since), so only the tenant's pace applies.
    await withPlatformTransaction(database, (tx) =>
      tx.insert(webhookEndpointBreakers).values({
        tenantId,
        subscriptionId: healthy,
        state: 'CLOSED',
        consecutiveFailures: 0,
        openings: 0,
      }),
    );
    const events = [];
    for (let i = 0; i < 5; i++) events.push(await insertOutboxEvent(database, { tenantId }));
    const before = Date.now();
    const pass = await relayOutboxOnce({
      db: database,
      client,
      taskQueue,
      tenantIds: [tenantId],
      startPacing: { ratePerSecond: 1, burst: 2 },
    });
    expect(pass).toMatchObject({ published: 5, workflowsStarted: 5 });
    // The run's execution time is its start plus the start delay (Temporal `startDelay`).
    const delaysMs = [];
    for (const e of events) {
      const id = webhookDeliveryWorkflowId(tenantId, healthy, e.eventId);
      startedWorkflowIds.push(id);
      const info = await client.workflow.getHandle(id).describe();
      delaysMs.push((info.executionTime?.getTime() ?? 0) - info.startTime.getTime());
    }
    // Events are claimed in id order: the first two at once, then one a second.
    expect(delaysMs.slice(0, 2).every((d) => d < 200)).toBe(true);
    expect(delaysMs[2]).toBeGreaterThan(700);
    expect(delaysMs[3]).toBeGreaterThan(delaysMs[2]! + 700);
    expect(delaysMs[4]).toBeGreaterThan(delaysMs[3]! + 700);
    // The tenant's pace is durable: the next pass goes on from where this one left off.
    const later = await insertOutboxEvent(database, { tenantId });
    await relayOutboxOnce({
      db: database,
      client,
      taskQueue,
      tenantIds: [tenantId],
      startPacing: { ratePerSecond: 1, burst: 2 },
    });
    const laterId = webhookDeliveryWorkflowId(tenantId, healthy, later.eventId);
    startedWorkflowIds.push(laterId);
    const laterInfo = await client.workflow.getHandle(laterId).describe();
    expect((laterInfo.executionTime?.getTime() ?? 0) - before).toBeGreaterThan(3000);

    // An endpoint whose breaker is open until 60 s from now: its deliveries start no earlier.
    const { tenantId: other } = names();
    const dead = await subscription(database, other, ['payment.posted']);
    const openUntil = new Date(Date.now() + 60_000);
    await withPlatformTransaction(database, (tx) =>
      tx.insert(webhookEndpointBreakers).values({
        tenantId: other,
        subscriptionId: dead,
        state: 'OPEN',
        consecutiveFailures: 5,
        openings: 1,
        openUntil,
      }),
    );
    const held = [
      await insertOutboxEvent(database, { tenantId: other }),
      await insertOutboxEvent(database, { tenantId: other }),
    ];
    await relayOutboxOnce({ db: database, client, taskQueue, tenantIds: [other] });
    const executionTimes = [];
    for (const e of held) {
      const id = webhookDeliveryWorkflowId(other, dead, e.eventId);
      startedWorkflowIds.push(id);
      executionTimes.push((await client.workflow.getHandle(id).describe()).executionTime?.getTime() ?? 0);
    }
    expect(executionTimes[0]).toBeGreaterThanOrEqual(openUntil.getTime() - 50);
    // Spread, so they do not all wake at once.
    expect(executionTimes[1]).toBeGreaterThanOrEqual(executionTimes[0]! + 900);
  });

  it('a fresh burst to an endpoint with no recent success: 1 delivery starts at once, the rest 2.5 s apart up to 10 s; a proven endpoint gets all at once', async () => {
    const { tenantId, taskQueue } = names();
    const database = db();
    const fresh = await subscription(database, tenantId, ['payment.posted']);
    const delaysOf = async (subscriptionId: number, events: { eventId: string }[]) => {
      const delaysMs = [];
      for (const e of events) {
        const id = webhookDeliveryWorkflowId(tenantId, subscriptionId, e.eventId);
        startedWorkflowIds.push(id);
        const info = await client.workflow.getHandle(id).describe();
        delaysMs.push((info.executionTime?.getTime() ?? 0) - info.startTime.getTime());
      }
      return delaysMs;
    };
    const burst = [];
    for (let i = 0; i < 5; i++) burst.push(await insertOutboxEvent(database, { tenantId }));
    // The tenant's own pace (a burst of 100) would start all five at once.
    await relayOutboxOnce({ db: database, client, taskQueue, tenantIds: [tenantId] });
    const delaysMs = await delaysOf(fresh, burst);
    expect(delaysMs[0]).toBeLessThan(200);
    expect(delaysMs[1]).toBeGreaterThan(2300);
    expect(delaysMs[2]).toBeGreaterThan(delaysMs[1]! + 2300);
    expect(delaysMs[3]).toBeGreaterThan(delaysMs[2]! + 2300);
    expect(delaysMs[4]).toBeGreaterThan(delaysMs[3]! + 2300);
    // Spread over at most 10 s.
    expect(delaysMs[4]).toBeLessThan(10_300);
    // Its five deliveries are still open: the next event to it waits its turn too.
    const next = await insertOutboxEvent(database, { tenantId });
    await relayOutboxOnce({ db: database, client, taskQueue, tenantIds: [tenantId] });
    expect((await delaysOf(fresh, [next]))[0]).toBeGreaterThan(2300);

    // An endpoint whose last attempt succeeded (its breaker row: no failure since) is paced by the tenant alone.
    const proven = await subscription(database, tenantId, ['payment.posted']);
    await withTenantTransaction(database, tenantId, (tx) =>
      tx.update(webhookSubscriptions).set({ status: 'INACTIVE' }).where(eq(webhookSubscriptions.id, fresh)),
    );
    await withPlatformTransaction(database, (tx) =>
      tx.insert(webhookEndpointBreakers).values({
        tenantId,
        subscriptionId: proven,
        state: 'CLOSED',
        consecutiveFailures: 0,
        openings: 0,
      }),
    );
    const live = [];
    for (let i = 0; i < 5; i++) live.push(await insertOutboxEvent(database, { tenantId }));
    await relayOutboxOnce({ db: database, client, taskQueue, tenantIds: [tenantId] });
    expect((await delaysOf(proven, live)).every((d) => d < 200)).toBe(true);
  });

  it("takes tenants in turn within a pass: another tenant's later event is claimed beside a tenant's burst; a lone tenant still fills a pass", async () => {
    const { tenantId: busy, taskQueue } = names();
    const { tenantId: quiet } = names();
    const database = db();
    const busySubscription = await subscription(database, busy, ['payment.posted']);
    const quietSubscription = await subscription(database, quiet, ['payment.posted']);
    const busyEvents = [];
    for (let i = 0; i < 30; i++) busyEvents.push(await insertOutboxEvent(database, { tenantId: busy }));
    const quietEvent = await insertOutboxEvent(database, { tenantId: quiet });
    const pass = (batchSize: number) =>
      relayOutboxOnce({
        db: database,
        client,
        taskQueue,
        tenantIds: [busy, quiet],
        batchSize,
        perTenantBatchSize: 10,
        startPacing: { ratePerSecond: 0, burst: 1 },
      });
    // FIFO would have claimed eleven of the burst; in turn, the quiet tenant's event is among them.
    expect(await pass(11)).toEqual({ published: 11, deliveries: 11, workflowsStarted: 11 });
    expect((await deliveriesOf(database, quiet)).map((d) => d.eventId)).toEqual([quietEvent.eventId]);
    expect((await deliveriesOf(database, busy)).map((d) => d.eventId).sort()).toEqual(
      busyEvents
        .slice(0, 10)
        .map((e) => e.eventId)
        .sort(),
    );
    // The busy tenant alone: a pass is filled from its next rounds.
    expect(await pass(15)).toEqual({ published: 15, deliveries: 15, workflowsStarted: 15 });
    expect(await unpublished(database, busy)).toHaveLength(5);
    for (const e of busyEvents.slice(0, 25))
      startedWorkflowIds.push(webhookDeliveryWorkflowId(busy, busySubscription, e.eventId));
    startedWorkflowIds.push(webhookDeliveryWorkflowId(quiet, quietSubscription, quietEvent.eventId));
  });

  it('a webhook.test event goes to its target subscription only; the lag is measured', async () => {
    const { tenantId, taskQueue } = names();
    const database = db();
    const other = await subscription(database, tenantId, ['webhook.test', 'payment.posted']);
    const target = await subscription(database, tenantId, ['payment.posted']);
    const event = await insertOutboxEvent(database, {
      tenantId,
      eventType: 'webhook.test',
      targetSubscriptionId: target,
    });
    const relay = await startOutboxRelay({
      db: database,
      client,
      logger,
      taskQueue,
      tenantIds: [tenantId],
      listen: false,
      pollIntervalMs: 600_000,
      lagLogIntervalMs: 0,
    });
    try {
      await vi.waitFor(async () => expect(await unpublished(database, tenantId)).toEqual([]), {
        timeout: 10_000,
      });
      expect(await relay.relayLagSeconds()).toBeNull();
      startedWorkflowIds.push(webhookDeliveryWorkflowId(tenantId, target, event.eventId));
      const deliveries = await deliveriesOf(database, tenantId);
      expect(deliveries.map((d) => d.subscriptionId)).toEqual([target]);
      expect(deliveries.some((d) => d.subscriptionId === other)).toBe(false);

      await relay.stop();
      // occurredAt of the fixture is 2026-01-02T03:04:05.678Z: the lag is its age.
      await insertOutboxEvent(database, { tenantId, eventType: 'case.transitioned' });
      const lag = await relay.relayLagSeconds();
      expect(lag).not.toBeNull();
      expect(lag!).toBeCloseTo((Date.now() - Date.parse('2026-01-02T03:04:05.678Z')) / 1000, -1);
    } finally {
      await relay.stop();
    }
  });
});
