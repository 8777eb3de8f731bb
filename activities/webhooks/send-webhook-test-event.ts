import { randomUUID } from 'node:crypto';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { lockSubscription } from './records';

export interface SendWebhookTestEventInput extends OperationContext {
  subscriptionId: number;
}

/**
 * Queues a signed, non-business `webhook.test` event for one subscription (docs/integrating.md "Webhooks";
 * docs/processes.md P2): an outbox row with `targetSubscriptionId`, which the relay delivers to that
 * subscription only, whatever its event types. Idempotent by `requestKey` (a retry returns the
 * same `eventId`); without one every call is a new test event. Errors: 404 when absent or another
 * tenant's; 409 `error.msg.webhook.subscription.invalid.state.transition` unless ACTIVE.
 */
export function sendWebhookTestEvent(deps: Deps) {
  return async (input: SendWebhookTestEventInput): Promise<{ eventId: string }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const subscription = await lockSubscription(tx, input.tenantId, input.subscriptionId);
      if (subscription.status !== 'ACTIVE') {
        throw new DomainError(
          'error.msg.webhook.subscription.invalid.state.transition',
          `Webhook subscription ${input.subscriptionId} is ${subscription.status}; only an ACTIVE subscription receives test events.`,
        );
      }
      const occurrence = input.requestKey ?? randomUUID();
      const { eventId } = await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'webhook.test',
        subjectId: subscription.id,
        data: {
          subscriptionId: subscription.id,
          message: 'This is a test event; it carries no business data.',
        },
        occurredAt: deps.clock(),
        dedupeKey: `webhook-subscription/${subscription.id}/test/${occurrence}`,
        targetSubscriptionId: subscription.id,
      });
      return { eventId };
    });
}
