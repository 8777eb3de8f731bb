/**
 * `cancelWebhookDelivery` (docs/processes.md P2: deactivation stops pending retries): marks a
 * delivery that has not ended `CANCELLED`, with no next attempt, and frees its slot in its
 * tenant's concurrency cap (`admitWebhookAttempt`) if it holds one. Idempotent: an ended delivery
 * (`SUCCEEDED`, `FAILED`, `CANCELLED`) is left as it is. Returns the state it is in afterwards.
 * It leaves its tenant's queue of deliveries waiting for admission and gives up the part of its endpoint's waker;
 * with `wakeWaiters` (under the tenant's admission lock) it names the waiting deliveries to wake (`wake`: workflow
 * ids to signal `admissionWake`; `activities/webhooks/admission-waiters.ts`), empty otherwise.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { webhookDeliveries, webhookDeliverySlots, webhookEndpointBreakers } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { defaultWebhookLimits } from '../../domain/webhooks/limits';
import type { Deps } from '../deps';
import { dequeueWaiter, lockTenantAdmission, waitersToWake } from './admission-waiters';
import type { WebhookDeliveryState } from './record-webhook-attempt';

export interface CancelWebhookDeliveryInput {
  tenantId: string;
  deliveryId: string;
  /** ISO instant of the cancellation (workflow time). */
  at: string;
  /** Name the waiting deliveries to wake (the caller signals them). */
  wakeWaiters?: boolean;
}

export const cancelWebhookDelivery =
  (deps: Deps) =>
  async (
    input: CancelWebhookDeliveryInput,
  ): Promise<{ deliveryState: WebhookDeliveryState; wake: string[] }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.wakeWaiters) await lockTenantAdmission(tx, input.tenantId);
      const where = and(
        eq(webhookDeliveries.tenantId, input.tenantId),
        eq(webhookDeliveries.deliveryId, input.deliveryId),
      );
      await tx
        .update(webhookDeliveries)
        .set({ state: 'CANCELLED', nextAttemptAt: null, completedAt: new Date(input.at) })
        .where(and(where, inArray(webhookDeliveries.state, ['PENDING', 'RETRYING'])));
      await tx
        .delete(webhookDeliverySlots)
        .where(
          and(
            eq(webhookDeliverySlots.tenantId, input.tenantId),
            eq(webhookDeliverySlots.deliveryId, input.deliveryId),
          ),
        );
      await dequeueWaiter(tx, input.tenantId, input.deliveryId);
      await tx
        .update(webhookEndpointBreakers)
        .set({ wakerDeliveryId: null, wakerUntil: null })
        .where(
          and(
            eq(webhookEndpointBreakers.tenantId, input.tenantId),
            eq(webhookEndpointBreakers.wakerDeliveryId, input.deliveryId),
          ),
        );
      const [row] = await tx
        .select({ state: webhookDeliveries.state, subscriptionId: webhookDeliveries.subscriptionId })
        .from(webhookDeliveries)
        .where(where);
      if (!row) throw new Error(`webhook delivery ${input.deliveryId} not found`);
      const wake = input.wakeWaiters
        ? await waitersToWake(tx, {
            tenantId: input.tenantId,
            subscriptionId: row.subscriptionId,
            at: new Date(input.at),
            cap: (deps.webhookLimits ?? defaultWebhookLimits).maxConcurrentDeliveriesPerTenant,
          })
        : [];
      return { deliveryState: row.state, wake };
    });
