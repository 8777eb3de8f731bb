/**
 * `cancelWebhookDelivery` (DESIGN-processes P2: deactivation stops pending retries): marks a
 * delivery that has not ended `CANCELLED`, with no next attempt, and frees its slot in its
 * tenant's concurrency cap (`admitWebhookAttempt`) if it holds one. Idempotent: an ended delivery
 * (`SUCCEEDED`, `FAILED`, `CANCELLED`) is left as it is. Returns the state it is in afterwards.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { webhookDeliveries, webhookDeliverySlots } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';
import type { WebhookDeliveryState } from './record-webhook-attempt';

export interface CancelWebhookDeliveryInput {
  tenantId: string;
  deliveryId: string;
  /** ISO instant of the cancellation (workflow time). */
  at: string;
}

export const cancelWebhookDelivery =
  (deps: Deps) =>
  async (input: CancelWebhookDeliveryInput): Promise<{ deliveryState: WebhookDeliveryState }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
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
      const [row] = await tx.select({ state: webhookDeliveries.state }).from(webhookDeliveries).where(where);
      if (!row) throw new Error(`webhook delivery ${input.deliveryId} not found`);
      return { deliveryState: row.state };
    });
