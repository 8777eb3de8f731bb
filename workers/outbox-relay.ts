/**
 * The outbox relay (docs/design.md §3; docs/processes.md P0): turns unpublished `outbox_events` rows into
 * webhook deliveries, in the worker process.
 *
 * One pass, in one cross-tenant transaction (`withPlatformTransaction`):
 * 1. claim up to `batchSize` unpublished rows `ORDER BY id FOR UPDATE SKIP LOCKED`, so any number
 *    of relay instances share the work without taking a row twice, at most `perTenantBatchSize` (25) of each
 *    tenant's oldest, so a tenant's burst shares every pass with the other tenants' events;
 * 2. find each row's matching ACTIVE subscriptions of its tenant: the `targetSubscriptionId` alone
 *    when set (`webhook.test`), else every one whose `eventTypes` contains the row's type — and, for an event of
 *    portfolio boarding (`source` `BOARDING`: the migrated history), only those with `includeBoardedHistory`, so
 *    no delivery (row or workflow) exists for a boarded event no subscription asked for;
 * 3. insert one `webhook_deliveries` row per (event, subscription), idempotent on its unique index;
 * 4. start one `webhookDeliveryWorkflow` per delivery (idempotent by its deterministic id), paced per tenant
 *    (domain/webhooks/start-pacing.ts: a burst starts at once, the rest with a Temporal start delay at the
 *    tenant's rate, the GCRA state locked in `webhook_start_pacing`) and never before an open endpoint breaker
 *    lets an attempt through, and, to an endpoint with no recent success (no attempt recorded, or its last one
 *    failed), no more than 1 open delivery at once, the rest 2.5 s apart up to 10 s (`unprovenEndpointDelaysMs`), so
 *    one tenant's burst or dead endpoints do not fill the queue every tenant shares, even before any breaker has
 *    seen a failure; a delayed delivery runs on the `webhooks-backlog` pool, the others on `webhooks`;
 * 5. mark the rows published. A failed start throws, the transaction rolls back, the rows stay
 *    unpublished and are retried on the next pass (a start that did happen is then a no-op).
 *
 * Woken by `LISTEN outbox_events` (trigger of migration 0006), with polling as the fallback
 * (default every 2 s); passes start at least `minPassIntervalMs` (100 ms) apart, so a stream of writes is relayed in
 * batches, not one pass per inserting statement. Lag — the age of the oldest unpublished event, in seconds — is available
 * as `relayLagSeconds()` and logged every `lagLogIntervalMs`.
 */
import type { Client } from '@temporalio/client';
import { and, asc, count, eq, gt, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db } from '../db/client';
import {
  outboxEvents,
  webhookDeliveries,
  webhookEndpointBreakers,
  webhookStartPacing,
  webhookSubscriptions,
} from '../db/schema';
import { type Tx, withPlatformTransaction } from '../db/tenant-tx';
import { taskQueues, webhookDeliveryId } from '../domain/ids';
import {
  defaultStartPacing,
  deliveryQueueFor,
  planStarts,
  type StartPacing,
  startDelayMs,
  unprovenEndpointDelaysMs,
} from '../domain/webhooks/start-pacing';
import { startWebhookDelivery } from '../workflows/webhooks/webhook-delivery/client';

/** The channel the outbox trigger notifies (migration 0006_notify_outbox_events). */
export const outboxChannel = 'outbox_events';

export interface OutboxRelayOptions {
  db: Db;
  client: Client;
  logger: Logger;
  /** Rows claimed per transaction (default 100). */
  batchSize?: number;
  /** At most this many of one tenant's rows per transaction (default 25), its oldest. */
  perTenantBatchSize?: number;
  /** Fallback poll interval in ms (default 2000). */
  pollIntervalMs?: number;
  /**
   * Least time in ms from the start of one pass to the start of the next (default 100): the first notification after
   * a quiet spell is relayed at once, and under a stream of writes the notifications of 100 ms share one pass (up
   * to `batchSize` rows a transaction) instead of one pass each — e.g. portfolio boarding, whose every loan writes
   * several events. 0: a pass per notification.
   */
  minPassIntervalMs?: number;
  /** Interval in ms of the lag log line (default 60000; 0 = never). */
  lagLogIntervalMs?: number;
  /** LISTEN for the outbox trigger's notifications (default true). */
  listen?: boolean;
  /** Overrides the `webhooks` task queue of started deliveries (tests). */
  taskQueue?: string;
  /** Relay only these tenants' events (sharding; tests). Default: every tenant. */
  tenantIds?: readonly string[];
  /** Per-tenant pacing of delivery starts (default `defaultStartPacing`: a burst of 100, then 20 a second). */
  startPacing?: StartPacing;
}

export interface OutboxRelayPassResult {
  /** Outbox rows marked published. */
  published: number;
  /** Delivery rows matched (inserted now or before). */
  deliveries: number;
  /** Workflows this pass started (0 for a delivery whose workflow already existed). */
  workflowsStarted: number;
}

export interface OutboxRelay {
  /** Runs passes until no unpublished row is left; totals of the passes. */
  drain(): Promise<OutboxRelayPassResult>;
  /** Age in seconds of the oldest unpublished event (its `occurredAt`); null when none. */
  relayLagSeconds(): Promise<number | null>;
  /** Totals since start (the lead's metrics surface these). */
  stats(): OutboxRelayPassResult & { passes: number; failures: number };
  stop(): Promise<void>;
}

/** One relay pass over at most `batchSize` rows. */
export async function relayOutboxOnce(
  options: Pick<
    OutboxRelayOptions,
    'db' | 'client' | 'batchSize' | 'perTenantBatchSize' | 'taskQueue' | 'tenantIds' | 'startPacing'
  >,
): Promise<OutboxRelayPassResult> {
  return withPlatformTransaction(options.db, async (tx) => {
    const rows = await tx
      .select({
        id: outboxEvents.id,
        tenantId: outboxEvents.tenantId,
        eventId: outboxEvents.eventId,
        eventType: outboxEvents.eventType,
        targetSubscriptionId: outboxEvents.targetSubscriptionId,
        source: outboxEvents.source,
      })
      .from(outboxEvents)
      .where(
        and(
          isNull(outboxEvents.publishedAt),
          options.tenantIds ? inArray(outboxEvents.tenantId, [...options.tenantIds]) : undefined,
          inArray(
            outboxEvents.id,
            await fairClaimCandidates(
              tx,
              options.batchSize ?? 100,
              options.perTenantBatchSize ?? 25,
              options.tenantIds,
            ),
          ),
        ),
      )
      .orderBy(asc(outboxEvents.id))
      .limit(options.batchSize ?? 100)
      .for('update', { skipLocked: true });
    if (rows.length === 0) return { published: 0, deliveries: 0, workflowsStarted: 0 };

    const tenants = [...new Set(rows.map((r) => r.tenantId))];
    const subscriptions = await tx
      .select({
        id: webhookSubscriptions.id,
        tenantId: webhookSubscriptions.tenantId,
        eventTypes: webhookSubscriptions.eventTypes,
        includeBoardedHistory: webhookSubscriptions.includeBoardedHistory,
      })
      .from(webhookSubscriptions)
      .where(and(inArray(webhookSubscriptions.tenantId, tenants), eq(webhookSubscriptions.status, 'ACTIVE')));

    const deliveries = rows.flatMap((row) =>
      subscriptions
        .filter(
          (s) =>
            s.tenantId === row.tenantId &&
            (row.targetSubscriptionId != null
              ? s.id === row.targetSubscriptionId
              : s.eventTypes.includes(row.eventType) &&
                (row.source !== 'BOARDING' || s.includeBoardedHistory)),
        )
        .map((s) => ({
          tenantId: row.tenantId,
          subscriptionId: s.id,
          eventId: row.eventId,
          eventType: row.eventType,
          deliveryId: webhookDeliveryId(row.tenantId, s.id, row.eventId),
        })),
    );
    if (deliveries.length > 0) await tx.insert(webhookDeliveries).values(deliveries).onConflictDoNothing();

    // Started before the rows are marked: a crash in between leaves them unpublished, and the
    // retry's starts are no-ops (deterministic ids).
    const delays = await plannedStartDelays(tx, deliveries, options.startPacing ?? defaultStartPacing);
    const starts = await Promise.all(
      deliveries.map((d, i) =>
        startWebhookDelivery(options.client, d, {
          // A delayed start runs on the backlog pool (tests name one queue for both).
          taskQueue:
            options.taskQueue ??
            deliveryQueueFor(delays[i] ?? 0, taskQueues.webhooks, taskQueues.webhooksBacklog),
          startDelayMs: delays[i] ?? 0,
        }),
      ),
    );
    await tx
      .update(outboxEvents)
      .set({ publishedAt: sql`now()` })
      .where(
        inArray(
          outboxEvents.id,
          rows.map((r) => r.id),
        ),
      );
    return {
      published: rows.length,
      deliveries: deliveries.length,
      workflowsStarted: starts.filter((s) => s.started).length,
    };
  });
}

/**
 * The ids a pass may claim, at most `batchSize`, taken from the tenants with unpublished events in turn: each
 * tenant's oldest `perTenant`, then each one's next `perTenant`, and so on (oldest first within a round). A tenant
 * with thousands of events waiting shares every pass with the others, and a lone tenant still fills a pass. Cost
 * grows with the tenants that have events waiting, never with the backlog: a skip scan of the partial index
 * `(tenant_id, id) where published_at is null` finds those tenants (the recursive "loose index scan"), and each
 * one's oldest `batchSize` are read from the same index.
 */
async function fairClaimCandidates(
  tx: Tx,
  batchSize: number,
  perTenant: number,
  tenantIds: readonly string[] | undefined,
): Promise<number[]> {
  const only = tenantIds ? sql`and tenant_id in ${[...tenantIds]}` : sql``;
  const rows = (await tx.execute(sql`
    with recursive pending(tenant_id) as (
      (select tenant_id from outbox_events where published_at is null ${only} order by tenant_id limit 1)
      union all
      select (
        select o.tenant_id from outbox_events o
        where o.published_at is null ${tenantIds ? sql`and o.tenant_id in ${[...tenantIds]}` : sql``}
          and o.tenant_id > pending.tenant_id
        order by o.tenant_id limit 1
      )
      from pending where pending.tenant_id is not null
    )
    select oldest.id from pending
    cross join lateral (
      select e.id, row_number() over (order by e.id) as tenant_rank from (
        select id from outbox_events
        where published_at is null and tenant_id = pending.tenant_id
        order by id limit ${batchSize}
      ) e
    ) oldest
    where pending.tenant_id is not null
    order by (oldest.tenant_rank - 1) / ${perTenant}, oldest.id
    limit ${batchSize}
  `)) as unknown as { id: string | number }[];
  return rows.map((r) => Number(r.id));
}

/**
 * The start delay in ms of each of `deliveries` (same order): per tenant, `planStarts` from the tenant's GCRA state in
 * `webhook_start_pacing` (rows created when missing and locked in tenant order, so concurrent relays neither
 * deadlock nor share a pace they did not see), raised to the `openUntil` of an open endpoint breaker
 * (`webhook_endpoint_breakers`), spread 1 s apart per delivery held by the same breaker, and to the spacing of an
 * endpoint with no recent success (no breaker row: no attempt recorded; or failures since its last success), given
 * its deliveries open before this pass (`unprovenEndpointDelaysMs`). Stores each tenant's new state in the same
 * transaction as the pass.
 */
async function plannedStartDelays(
  tx: Tx,
  deliveries: readonly { tenantId: string; subscriptionId: number; deliveryId: string }[],
  pacing: StartPacing,
): Promise<number[]> {
  if (deliveries.length === 0) return [];
  const tenants = [...new Set(deliveries.map((d) => d.tenantId))].sort();
  await tx
    .insert(webhookStartPacing)
    .values(tenants.map((tenantId) => ({ tenantId, theoreticalAt: new Date(0) })))
    .onConflictDoNothing();
  const paces = await tx
    .select()
    .from(webhookStartPacing)
    .where(inArray(webhookStartPacing.tenantId, tenants))
    .orderBy(asc(webhookStartPacing.tenantId))
    .for('update');
  const nowMs = Date.now();
  const open = await tx
    .select({
      tenantId: webhookEndpointBreakers.tenantId,
      subscriptionId: webhookEndpointBreakers.subscriptionId,
      openUntil: webhookEndpointBreakers.openUntil,
    })
    .from(webhookEndpointBreakers)
    .where(
      and(
        inArray(webhookEndpointBreakers.tenantId, tenants),
        inArray(webhookEndpointBreakers.subscriptionId, [
          ...new Set(deliveries.map((d) => d.subscriptionId)),
        ]),
        gt(webhookEndpointBreakers.openUntil, new Date(nowMs)),
      ),
    );
  const openUntilOf = new Map(open.map((b) => [`${b.tenantId}/${b.subscriptionId}`, b.openUntil!.getTime()]));
  const unprovenSpacing = await unprovenEndpointSpacing(tx, tenants, deliveries);
  const delays = new Array<number>(deliveries.length).fill(0);
  for (const pace of paces) {
    const indexes = deliveries.flatMap((d, i) => (d.tenantId === pace.tenantId ? [i] : []));
    const plan = planStarts(pace.theoreticalAt.getTime(), nowMs, indexes.length, pacing);
    const heldBy = new Map<string, number>();
    indexes.forEach((deliveryIndex, k) => {
      const d = deliveries[deliveryIndex]!;
      const key = `${d.tenantId}/${d.subscriptionId}`;
      const openUntil = openUntilOf.get(key) ?? null;
      const held = heldBy.get(key) ?? 0;
      if (openUntil !== null) heldBy.set(key, held + 1);
      delays[deliveryIndex] = Math.max(
        startDelayMs(plan.delaysMs[k] ?? 0, nowMs, openUntil, held * 1000),
        unprovenSpacing[deliveryIndex] ?? 0,
      );
    });
    if (plan.tatMs !== null && plan.tatMs !== pace.theoreticalAt.getTime()) {
      await tx
        .update(webhookStartPacing)
        .set({ theoreticalAt: new Date(plan.tatMs) })
        .where(eq(webhookStartPacing.tenantId, pace.tenantId));
    }
  }
  return delays;
}

/**
 * Each delivery's least start delay in ms (same order as `deliveries`) for its endpoint's lack of recent success: 0
 * for an endpoint whose breaker row shows no failure since its last success, else `unprovenEndpointDelaysMs` over the
 * pass's deliveries to that endpoint, given its deliveries already open (PENDING or RETRYING, this pass's excluded).
 */
async function unprovenEndpointSpacing(
  tx: Tx,
  tenants: readonly string[],
  deliveries: readonly { tenantId: string; subscriptionId: number; deliveryId: string }[],
): Promise<number[]> {
  const subscriptionIds = [...new Set(deliveries.map((d) => d.subscriptionId))];
  const proven = await tx
    .select({
      tenantId: webhookEndpointBreakers.tenantId,
      subscriptionId: webhookEndpointBreakers.subscriptionId,
    })
    .from(webhookEndpointBreakers)
    .where(
      and(
        inArray(webhookEndpointBreakers.tenantId, [...tenants]),
        inArray(webhookEndpointBreakers.subscriptionId, subscriptionIds),
        eq(webhookEndpointBreakers.consecutiveFailures, 0),
      ),
    );
  const provenKeys = new Set(proven.map((b) => `${b.tenantId}/${b.subscriptionId}`));
  const unproven = deliveries.filter((d) => !provenKeys.has(`${d.tenantId}/${d.subscriptionId}`));
  if (unproven.length === 0) return new Array<number>(deliveries.length).fill(0);
  const openRows = await tx
    .select({
      tenantId: webhookDeliveries.tenantId,
      subscriptionId: webhookDeliveries.subscriptionId,
      open: count(),
    })
    .from(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.tenantId, [...new Set(unproven.map((d) => d.tenantId))]),
        inArray(webhookDeliveries.subscriptionId, [...new Set(unproven.map((d) => d.subscriptionId))]),
        inArray(webhookDeliveries.state, ['PENDING', 'RETRYING']),
        notInArray(
          webhookDeliveries.deliveryId,
          deliveries.map((d) => d.deliveryId),
        ),
      ),
    )
    .groupBy(webhookDeliveries.tenantId, webhookDeliveries.subscriptionId);
  const openOf = new Map(openRows.map((r) => [`${r.tenantId}/${r.subscriptionId}`, Number(r.open)]));
  const byEndpoint = new Map<string, number[]>();
  deliveries.forEach((d, i) => {
    const key = `${d.tenantId}/${d.subscriptionId}`;
    if (provenKeys.has(key)) return;
    byEndpoint.set(key, [...(byEndpoint.get(key) ?? []), i]);
  });
  const spacing = new Array<number>(deliveries.length).fill(0);
  for (const [key, indexes] of byEndpoint) {
    const delays = unprovenEndpointDelaysMs(openOf.get(key) ?? 0, indexes.length);
    indexes.forEach((deliveryIndex, k) => {
      spacing[deliveryIndex] = delays[k] ?? 0;
    });
  }
  return spacing;
}

/** Age in seconds of the oldest unpublished outbox event; null when everything is published. */
export async function outboxLagSeconds(db: Db, tenantIds?: readonly string[]): Promise<number | null> {
  return withPlatformTransaction(db, async (tx) => {
    const [row] = await tx
      .select({
        lag: sql<string | null>`extract(epoch from (now() - min(${outboxEvents.occurredAt})))`,
      })
      .from(outboxEvents)
      .where(
        and(
          isNull(outboxEvents.publishedAt),
          tenantIds ? inArray(outboxEvents.tenantId, [...tenantIds]) : undefined,
        ),
      );
    return row?.lag == null ? null : Math.max(0, Number(row.lag));
  });
}

/**
 * Starts the relay: a pass at once, on every notification and every `pollIntervalMs`, at least
 * `minPassIntervalMs` apart; passes never overlap within one instance. `stop()` ends listening and polling and waits for the pass
 * in progress.
 */
export async function startOutboxRelay(options: OutboxRelayOptions): Promise<OutboxRelay> {
  const totals = { published: 0, deliveries: 0, workflowsStarted: 0, passes: 0, failures: 0 };
  let stopped = false;
  let wanted = false;
  let running: Promise<void> | null = null;
  let lastPassAt = Number.NEGATIVE_INFINITY;
  const minPassIntervalMs = options.minPassIntervalMs ?? 100;

  const drain = async (): Promise<OutboxRelayPassResult> => {
    const sum = { published: 0, deliveries: 0, workflowsStarted: 0 };
    const batchSize = options.batchSize ?? 100;
    for (;;) {
      const pass = await relayOutboxOnce(options);
      totals.passes += 1;
      sum.published += pass.published;
      sum.deliveries += pass.deliveries;
      sum.workflowsStarted += pass.workflowsStarted;
      if (pass.published < batchSize || stopped) break;
    }
    totals.published += sum.published;
    totals.deliveries += sum.deliveries;
    totals.workflowsStarted += sum.workflowsStarted;
    return sum;
  };

  const kick = () => {
    if (stopped) return;
    wanted = true;
    if (running) return;
    running = (async () => {
      while (wanted && !stopped) {
        const wait = lastPassAt + minPassIntervalMs - Date.now();
        // Notifications during the wait only set `wanted`: they are relayed by the pass after it.
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (stopped) break;
        wanted = false;
        lastPassAt = Date.now();
        try {
          const pass = await drain();
          if (pass.published > 0) options.logger.debug(pass, 'outbox relayed');
        } catch (err) {
          totals.failures += 1;
          options.logger.error({ err }, 'outbox relay pass failed; the rows are retried');
        }
      }
      running = null;
    })();
  };

  let unlisten: (() => Promise<void>) | null = null;
  if (options.listen !== false) {
    const listening = await options.db.$client.listen(outboxChannel, () => kick());
    unlisten = () => listening.unlisten();
  }
  const poll = setInterval(kick, options.pollIntervalMs ?? 2000);
  poll.unref();
  const lagLogIntervalMs = options.lagLogIntervalMs ?? 60_000;
  const lagLog =
    lagLogIntervalMs > 0
      ? setInterval(() => {
          outboxLagSeconds(options.db, options.tenantIds).then(
            (lag) => options.logger.info({ outboxRelayLagSeconds: lag, ...totals }, 'outbox relay lag'),
            (err) => options.logger.warn({ err }, 'could not read the outbox relay lag'),
          );
        }, lagLogIntervalMs)
      : null;
  lagLog?.unref();
  kick();

  return {
    drain,
    relayLagSeconds: () => outboxLagSeconds(options.db, options.tenantIds),
    stats: () => ({ ...totals }),
    async stop() {
      stopped = true;
      clearInterval(poll);
      if (lagLog) clearInterval(lagLog);
      await unlisten?.();
      await running;
    },
  };
}
