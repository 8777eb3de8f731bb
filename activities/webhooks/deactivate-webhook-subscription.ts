import { and, eq, inArray, sql } from 'drizzle-orm';
import { type WebhookSubscriptionView, webhookSubscriptionView } from '../../db/queries/webhooks/webhooks';
import { webhookDeliveries, webhookSubscriptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { lockSubscription } from './records';

export interface DeactivateWebhookSubscriptionInput extends OperationContext {
  subscriptionId: number;
}

/**
 * Deactivates a subscription (docs/integrating.md "Webhooks": "stops new deliveries, keeps history";
 * docs/processes.md P2): status INACTIVE, and in the same transaction its PENDING and RETRYING
 * deliveries become CANCELLED (no next attempt). History and secrets are kept. Bumps `version`.
 * Errors: 404 when absent or another tenant's; 409
 * `error.msg.webhook.subscription.invalid.state.transition` when already INACTIVE.
 */
export function deactivateWebhookSubscription(deps: Deps) {
  return async (input: DeactivateWebhookSubscriptionInput): Promise<WebhookSubscriptionView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const subscription = await lockSubscription(tx, input.tenantId, input.subscriptionId);
      if (subscription.status === 'INACTIVE') {
        throw new DomainError(
          'error.msg.webhook.subscription.invalid.state.transition',
          `Webhook subscription ${input.subscriptionId} is already INACTIVE.`,
        );
      }
      const now = deps.clock();
      const [updated] = await tx
        .update(webhookSubscriptions)
        .set({ status: 'INACTIVE', version: sql`${webhookSubscriptions.version} + 1`, updatedAt: now })
        .where(eq(webhookSubscriptions.id, subscription.id))
        .returning();
      await tx
        .update(webhookDeliveries)
        .set({ state: 'CANCELLED', nextAttemptAt: null, completedAt: now })
        .where(
          and(
            eq(webhookDeliveries.tenantId, input.tenantId),
            eq(webhookDeliveries.subscriptionId, subscription.id),
            inArray(webhookDeliveries.state, ['PENDING', 'RETRYING']),
          ),
        );
      if (!updated) throw new Error(`webhook subscription ${subscription.id} vanished under its lock`);
      return webhookSubscriptionView(updated);
    });
}
