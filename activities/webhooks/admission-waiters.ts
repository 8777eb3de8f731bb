/**
 * The queue of webhook deliveries waiting for admission (`webhook_admission_waiters`; docs/design.md §5 Webhooks, Svix
 * endpoint throttling): a refused delivery waits for a wake-up signal instead of asking again on a timer, and
 * whoever frees a slot of its tenant's cap or an endpoint (`recordWebhookAttempt`, `cancelWebhookDelivery`) names
 * the oldest deliveries that may now go, for its workflow to signal. Helpers of those activities, run inside
 * their transactions, under the tenant's admission lock (so a delivery refused at the same moment a slot frees is
 * always either admitted or found here).
 */
import { and, count, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { webhookAdmissionWaiters, webhookDeliverySlots, webhookEndpointBreakers } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { wakeAnswerMs, wakeCount, wakerGraceMs } from '../../domain/webhooks/circuit-breaker';

const lockKey = (tenantId: string) => `webhook-admission/${tenantId}`;

/** Takes the tenant's admission lock for the transaction, or answers false at once when another holds it. */
export async function tryLockTenantAdmission(tx: Tx, tenantId: string): Promise<boolean> {
  const [row] = (await tx.execute(
    sql`select pg_try_advisory_xact_lock(hashtext(${lockKey(tenantId)})) as locked`,
  )) as unknown as { locked: boolean }[];
  return row?.locked === true;
}

/** Takes the tenant's admission lock for the transaction, waiting for it (held by admissions only briefly). */
export async function lockTenantAdmission(tx: Tx, tenantId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${lockKey(tenantId)}))`);
}

/**
 * The tenant's delivery attempts holding a slot at `at`: expired slots (a worker that died mid-attempt) are
 * dropped first, then the live ones counted.
 */
export async function attemptsInFlight(tx: Tx, tenantId: string, at: Date): Promise<number> {
  await tx
    .delete(webhookDeliverySlots)
    .where(and(eq(webhookDeliverySlots.tenantId, tenantId), lte(webhookDeliverySlots.expiresAt, at)));
  const [row] = await tx
    .select({ n: count() })
    .from(webhookDeliverySlots)
    .where(and(eq(webhookDeliverySlots.tenantId, tenantId), gt(webhookDeliverySlots.expiresAt, at)));
  return row?.n ?? 0;
}

/** Puts a refused delivery in its tenant's queue, or, already there, keeps its place and marks it waiting again. */
export async function enqueueWaiter(
  tx: Tx,
  waiter: {
    tenantId: string;
    deliveryId: string;
    subscriptionId: number;
    workflowId: string;
    reason: 'TENANT_AT_CAPACITY' | 'BREAKER_OPEN';
    at: Date;
  },
): Promise<void> {
  await tx
    .insert(webhookAdmissionWaiters)
    .values({ ...waiter, since: waiter.at, wokenAt: null })
    .onConflictDoUpdate({
      target: [webhookAdmissionWaiters.tenantId, webhookAdmissionWaiters.deliveryId],
      set: { reason: waiter.reason, wokenAt: null, subscriptionId: waiter.subscriptionId },
    });
}

/** Takes a delivery out of its tenant's queue (admitted or cancelled); no-op when it is not there. */
export async function dequeueWaiter(tx: Tx, tenantId: string, deliveryId: string): Promise<void> {
  await tx
    .delete(webhookAdmissionWaiters)
    .where(
      and(eq(webhookAdmissionWaiters.tenantId, tenantId), eq(webhookAdmissionWaiters.deliveryId, deliveryId)),
    );
}

/**
 * After a slot of the tenant or an endpoint freed at `at`: the workflow ids of the waiting deliveries to wake, oldest
 * first, marked woken. As many as the free slots under `cap` less the wake-ups still pending
 * (`domain/webhooks/circuit-breaker.ts` `wakeCount`), taken among those whose endpoint would now let an attempt
 * through (breaker absent or CLOSED, OPEN past its time, HALF_OPEN with its probe's lease over); and, when the
 * endpoint `subscriptionId` is not CLOSED and has no waker (the delivery holding a timer to its next change) or an
 * overdue one, its oldest waiting delivery too, which will take that part.
 */
export async function waitersToWake(
  tx: Tx,
  input: { tenantId: string; subscriptionId: number; at: Date; cap: number },
): Promise<string[]> {
  const { tenantId, at } = input;
  const inFlight = await attemptsInFlight(tx, tenantId, at);
  const answeredBy = new Date(at.getTime() - wakeAnswerMs);
  const [pending] = await tx
    .select({ n: count() })
    .from(webhookAdmissionWaiters)
    .where(
      and(eq(webhookAdmissionWaiters.tenantId, tenantId), gt(webhookAdmissionWaiters.wokenAt, answeredBy)),
    );
  const free = wakeCount(input.cap, inFlight, pending?.n ?? 0);
  const notPending = sql`(${webhookAdmissionWaiters.wokenAt} is null or ${webhookAdmissionWaiters.wokenAt} <= ${answeredBy.toISOString()}::timestamptz)`;
  const atSql = sql`${at.toISOString()}::timestamptz`;

  const chosen: { id: number; workflowId: string }[] = [];
  if (free > 0) {
    chosen.push(
      ...(await tx
        .select({ id: webhookAdmissionWaiters.id, workflowId: webhookAdmissionWaiters.workflowId })
        .from(webhookAdmissionWaiters)
        .leftJoin(
          webhookEndpointBreakers,
          and(
            eq(webhookEndpointBreakers.tenantId, webhookAdmissionWaiters.tenantId),
            eq(webhookEndpointBreakers.subscriptionId, webhookAdmissionWaiters.subscriptionId),
          ),
        )
        .where(
          and(
            eq(webhookAdmissionWaiters.tenantId, tenantId),
            notPending,
            sql`(${webhookEndpointBreakers.state} is null
              or ${webhookEndpointBreakers.state} = 'CLOSED'
              or (${webhookEndpointBreakers.state} = 'OPEN' and ${webhookEndpointBreakers.openUntil} <= ${atSql})
              or (${webhookEndpointBreakers.state} = 'HALF_OPEN' and (${webhookEndpointBreakers.probeUntil} is null or ${webhookEndpointBreakers.probeUntil} <= ${atSql})))`,
          ),
        )
        .orderBy(webhookAdmissionWaiters.id)
        .limit(free)),
    );
  }

  const [breaker] = await tx
    .select({
      state: webhookEndpointBreakers.state,
      waker: webhookEndpointBreakers.wakerDeliveryId,
      wakerUntil: webhookEndpointBreakers.wakerUntil,
    })
    .from(webhookEndpointBreakers)
    .where(
      and(
        eq(webhookEndpointBreakers.tenantId, tenantId),
        eq(webhookEndpointBreakers.subscriptionId, input.subscriptionId),
      ),
    );
  const wakerVacant =
    breaker?.waker == null ||
    (breaker.wakerUntil !== null && breaker.wakerUntil.getTime() + wakerGraceMs < at.getTime());
  if (breaker && breaker.state !== 'CLOSED' && wakerVacant) {
    const [oldest] = await tx
      .select({ id: webhookAdmissionWaiters.id, workflowId: webhookAdmissionWaiters.workflowId })
      .from(webhookAdmissionWaiters)
      .where(
        and(
          eq(webhookAdmissionWaiters.tenantId, tenantId),
          eq(webhookAdmissionWaiters.subscriptionId, input.subscriptionId),
          notPending,
        ),
      )
      .orderBy(webhookAdmissionWaiters.id)
      .limit(1);
    if (oldest && !chosen.some((c) => c.id === oldest.id)) chosen.push(oldest);
  }
  if (chosen.length === 0) return [];
  await tx
    .update(webhookAdmissionWaiters)
    .set({ wokenAt: at })
    .where(
      and(
        eq(webhookAdmissionWaiters.tenantId, tenantId),
        inArray(
          webhookAdmissionWaiters.id,
          chosen.map((c) => c.id),
        ),
      ),
    );
  return chosen.map((c) => c.workflowId);
}
