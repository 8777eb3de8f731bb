/**
 * `admitWebhookAttempt` (docs/design.md §5 Webhooks; Svix endpoint throttling; domain/webhooks/circuit-breaker.ts):
 * decides, before an attempt of a delivery is sent, whether it may go now. One transaction,
 * serialized per tenant (a transaction advisory lock, taken with `pg_try_advisory_xact_lock`: when another
 * admission of the tenant holds it, the answer is at once TENANT_AT_CAPACITY with its wait, never a blocked
 * connection), so many workers share one view.
 *
 * - The endpoint's breaker (`webhook_endpoint_breakers`, absent = CLOSED) is OPEN, or HALF_OPEN
 *   with another delivery's probe out → `{admitted: false, reason: 'BREAKER_OPEN', waitMs}`.
 * - The tenant already has `maxConcurrentDeliveriesPerTenant` attempts in flight (unexpired rows of
 *   `webhook_delivery_slots`) → `{admitted: false, reason: 'TENANT_AT_CAPACITY', waitMs}` (250 ms,
 *   doubling with `refusals` up to 60 s, jittered).
 * - Otherwise a slot is taken for this delivery (expires after 60 s; `recordWebhookAttempt` or
 *   `cancelWebhookDelivery` frees it) and, when the breaker was open and its time is over, this
 *   attempt becomes its probe → `{admitted: true, probe, unproven}`; `unproven` when the endpoint has no recent
 *   success (no breaker row: no attempt recorded yet; or failures since its last success), for the workflow to give
 *   the attempt the short limits of `attemptLimitsFor` (domain/webhooks/retry-schedule.ts).
 * A refused delivery's `nextAttemptAt` is moved to when it will ask again. A retried call for a
 * delivery that already holds a slot is admitted again. Instants come from the workflow (`at`).
 *
 * A caller that names its workflow (`workflowId`: the workflow handles the `admissionWake` signal) waits for a
 * wake-up rather than asking again on a timer: a refused delivery joins its tenant's queue
 * (`activities/webhooks/admission-waiters.ts`, keeping its place when refused again) and is told to wait 5 to 10
 * minutes (`wakeWaitMs`, a safety net), except the one delivery per endpoint that holds a timer to its open
 * breaker's next change (the endpoint's waker, `takesWakerPart`: told the breaker's wait). An admitted delivery
 * leaves the queue. Without `workflowId` (deliveries started before the wake-up existed), refusals wait on timers
 * as before. When the tenant's lock is busy the answer is a short timed wait either way (not queued).
 * Errors: none of its own (a database failure is retried by the workflow's activity policy).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { webhookDeliveries, webhookDeliverySlots, webhookEndpointBreakers } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import {
  admitThroughBreaker,
  type BreakerState,
  type BreakerStateName,
  breakerWaitMs,
  closedBreaker,
  deliverySlotLeaseMs,
  slotWaitMs,
  takesWakerPart,
  tenantHasSlot,
  wakeWaitMs,
} from '../../domain/webhooks/circuit-breaker';
import { defaultWebhookLimits } from '../../domain/webhooks/limits';
import type { Deps } from '../deps';
import { attemptsInFlight, dequeueWaiter, enqueueWaiter, tryLockTenantAdmission } from './admission-waiters';

export interface AdmitWebhookAttemptInput {
  tenantId: string;
  subscriptionId: number;
  /** `whd_…`. */
  deliveryId: string;
  /** ISO instant of the request (workflow time). */
  at: string;
  /** Refusals for lack of a tenant slot this delivery has had in a row (0 on the first ask). */
  refusals: number;
  /** The delivery's workflow id when it waits for a wake-up signal once refused (see above); absent: timed waits. */
  workflowId?: string;
}

export type AdmitWebhookAttemptResult =
  | {
      admitted: true;
      probe: boolean;
      /** The endpoint has no recent success (see above); absent in answers recorded before it existed. */
      unproven?: boolean;
    }
  | {
      admitted: false;
      reason: 'BREAKER_OPEN' | 'TENANT_AT_CAPACITY';
      /** Wait before asking again, in ms. */
      waitMs: number;
    };

/**
 * A breaker as stored: its state, its waker (the delivery holding a timer to its next change; see above), and whether
 * a row exists (`recorded`: some attempt of the endpoint was recorded).
 */
export type StoredBreaker = BreakerState & {
  wakerDeliveryId: string | null;
  wakerUntilMs: number | null;
  recorded: boolean;
};

/** Whether an endpoint has no recent success: no attempt recorded yet, or failures since its last success. */
export function endpointUnproven(breaker: StoredBreaker): boolean {
  return !breaker.recorded || breaker.consecutiveFailures > 0;
}

/** The breaker row of a subscription, locked `FOR UPDATE`; a CLOSED breaker with no waker when there is none. */
export async function lockBreaker(tx: Tx, tenantId: string, subscriptionId: number): Promise<StoredBreaker> {
  const [row] = await tx
    .select()
    .from(webhookEndpointBreakers)
    .where(
      and(
        eq(webhookEndpointBreakers.tenantId, tenantId),
        eq(webhookEndpointBreakers.subscriptionId, subscriptionId),
      ),
    )
    .for('update');
  if (!row) return { ...closedBreaker, wakerDeliveryId: null, wakerUntilMs: null, recorded: false };
  return {
    state: row.state as BreakerStateName,
    consecutiveFailures: row.consecutiveFailures,
    openings: row.openings,
    openUntilMs: row.openUntil?.getTime() ?? null,
    probeDeliveryId: row.probeDeliveryId,
    probeUntilMs: row.probeUntil?.getTime() ?? null,
    wakerDeliveryId: row.wakerDeliveryId,
    wakerUntilMs: row.wakerUntil?.getTime() ?? null,
    recorded: true,
  };
}

/** Stores `breaker` for the subscription (insert or update). */
export async function storeBreaker(
  tx: Tx,
  tenantId: string,
  subscriptionId: number,
  breaker: BreakerState,
  at: Date,
): Promise<void> {
  const values = {
    state: breaker.state,
    consecutiveFailures: breaker.consecutiveFailures,
    openings: breaker.openings,
    openUntil: breaker.openUntilMs === null ? null : new Date(breaker.openUntilMs),
    probeDeliveryId: breaker.probeDeliveryId,
    probeUntil: breaker.probeUntilMs === null ? null : new Date(breaker.probeUntilMs),
    updatedAt: at,
  };
  await tx
    .insert(webhookEndpointBreakers)
    .values({ tenantId, subscriptionId, ...values })
    .onConflictDoUpdate({
      target: [webhookEndpointBreakers.tenantId, webhookEndpointBreakers.subscriptionId],
      set: values,
    });
}

export const admitWebhookAttempt =
  (deps: Deps) =>
  async (input: AdmitWebhookAttemptInput): Promise<AdmitWebhookAttemptResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const at = new Date(input.at);
      const nowMs = at.getTime();
      const cap = (deps.webhookLimits ?? defaultWebhookLimits).maxConcurrentDeliveriesPerTenant;
      // Never wait for the tenant's lock: under a backlog of thousands of one tenant's deliveries, waiting here
      // held a pooled connection and a worker activity slot per waiter, and every tenant's deliveries then waited
      // for those. Another admission of the tenant in progress means the tenant is busy: ask again later.
      if (!(await tryLockTenantAdmission(tx, input.tenantId))) {
        return {
          admitted: false,
          reason: 'TENANT_AT_CAPACITY',
          waitMs: slotWaitMs(input.refusals + 1, Math.random()),
        };
      }

      const slotOf = and(
        eq(webhookDeliverySlots.tenantId, input.tenantId),
        eq(webhookDeliverySlots.deliveryId, input.deliveryId),
      );
      const expiresAt = new Date(nowMs + deliverySlotLeaseMs);
      const [held] = await tx.select().from(webhookDeliverySlots).where(slotOf);
      if (held) {
        // A retried call: the slot is this delivery's already.
        await tx.update(webhookDeliverySlots).set({ expiresAt }).where(slotOf);
        const stored = await lockBreaker(tx, input.tenantId, input.subscriptionId);
        return { admitted: true, probe: false, unproven: endpointUnproven(stored) };
      }

      const breaker = await lockBreaker(tx, input.tenantId, input.subscriptionId);
      const verdict = admitThroughBreaker(breaker, input.deliveryId, nowMs);
      const breakerWhere = and(
        eq(webhookEndpointBreakers.tenantId, input.tenantId),
        eq(webhookEndpointBreakers.subscriptionId, input.subscriptionId),
      );
      const refuse = async (reason: 'BREAKER_OPEN' | 'TENANT_AT_CAPACITY', timedWaitMs: number) => {
        let waitMs = timedWaitMs;
        if (input.workflowId !== undefined) {
          await enqueueWaiter(tx, {
            tenantId: input.tenantId,
            deliveryId: input.deliveryId,
            subscriptionId: input.subscriptionId,
            workflowId: input.workflowId,
            reason,
            at,
          });
          const waker =
            breaker.wakerDeliveryId === null
              ? null
              : { deliveryId: breaker.wakerDeliveryId, untilMs: breaker.wakerUntilMs ?? 0 };
          if (reason === 'BREAKER_OPEN' && takesWakerPart(waker, input.deliveryId, nowMs)) {
            await tx
              .update(webhookEndpointBreakers)
              .set({ wakerDeliveryId: input.deliveryId, wakerUntil: new Date(nowMs + timedWaitMs) })
              .where(breakerWhere);
          } else {
            waitMs = wakeWaitMs(Math.random());
          }
        }
        await tx
          .update(webhookDeliveries)
          .set({ nextAttemptAt: new Date(nowMs + waitMs) })
          .where(
            and(
              eq(webhookDeliveries.tenantId, input.tenantId),
              eq(webhookDeliveries.deliveryId, input.deliveryId),
              inArray(webhookDeliveries.state, ['PENDING', 'RETRYING']),
            ),
          );
        return { admitted: false as const, reason, waitMs };
      };
      if (!verdict.send)
        return refuse('BREAKER_OPEN', breakerWaitMs(breaker, verdict.untilMs, nowMs, Math.random()));

      if (!tenantHasSlot(await attemptsInFlight(tx, input.tenantId, at), cap))
        return refuse('TENANT_AT_CAPACITY', slotWaitMs(input.refusals + 1, Math.random()));

      await tx.insert(webhookDeliverySlots).values({
        tenantId: input.tenantId,
        deliveryId: input.deliveryId,
        subscriptionId: input.subscriptionId,
        expiresAt,
      });
      await dequeueWaiter(tx, input.tenantId, input.deliveryId);
      if (verdict.probe) await storeBreaker(tx, input.tenantId, input.subscriptionId, verdict.next, at);
      // The endpoint's waker that goes itself (as the probe, or the breaker closed meanwhile) gives the part up.
      if (breaker.wakerDeliveryId === input.deliveryId)
        await tx
          .update(webhookEndpointBreakers)
          .set({ wakerDeliveryId: null, wakerUntil: null })
          .where(breakerWhere);
      return { admitted: true, probe: verdict.probe, unproven: endpointUnproven(breaker) };
    });
