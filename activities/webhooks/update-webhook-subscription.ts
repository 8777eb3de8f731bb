import { and, eq, sql } from 'drizzle-orm';
import {
  getWebhookSubscriptionRow,
  type WebhookSubscriptionView,
  webhookSubscriptionView,
} from '../../db/queries/webhooks/webhooks';
import { webhookSubscriptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import type { EventType } from '../../domain/events';
import type { Deps, OperationContext } from '../deps';
import { assertWebhookUrl } from './records';

export interface UpdateWebhookSubscriptionInput extends OperationContext {
  subscriptionId: number;
  /** The version the caller read (its `If-Match`). */
  expectedVersion: number;
  /** At least one of the four (checked at the edge). */
  url?: string | undefined;
  eventTypes?: EventType[] | undefined;
  description?: string | undefined;
  /** Whether the events of portfolio boarding (outbox `source` `BOARDING`) are delivered from now on. */
  includeBoardedHistory?: boolean | undefined;
}

/**
 * Changes a subscription's destination, event filter, description or `includeBoardedHistory` (whether events of
 * portfolio boarding are delivered; it applies to events relayed after the change) with optimistic concurrency
 * (docs/processes.md P2; RFC 9110 §13.1.1 If-Match): one conditional
 * `UPDATE … WHERE version = expectedVersion`, which bumps `version` and `updatedAt`.
 * Errors: 400 naming `url` for a destination the environment's policy refuses; 404 when absent or
 * another tenant's; 409 `error.msg.webhook.subscription.version.conflict` when the version differs
 * (also the loser of two concurrent updates with the same If-Match).
 */
export function updateWebhookSubscription(deps: Deps) {
  return async (input: UpdateWebhookSubscriptionInput): Promise<WebhookSubscriptionView> => {
    if (input.url !== undefined) assertWebhookUrl(deps, input.url);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const now = deps.clock();
      const [updated] = await tx
        .update(webhookSubscriptions)
        .set({
          ...(input.url === undefined ? {} : { url: input.url }),
          ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.includeBoardedHistory === undefined
            ? {}
            : { includeBoardedHistory: input.includeBoardedHistory }),
          version: sql`${webhookSubscriptions.version} + 1`,
          updatedAt: now,
        })
        .where(
          and(
            eq(webhookSubscriptions.tenantId, input.tenantId),
            eq(webhookSubscriptions.id, input.subscriptionId),
            eq(webhookSubscriptions.version, input.expectedVersion),
          ),
        )
        .returning();
      if (updated) return webhookSubscriptionView(updated);
      const current = await getWebhookSubscriptionRow(tx, input.tenantId, input.subscriptionId);
      if (!current) throw notFound('Webhook subscription', input.subscriptionId);
      throw new DomainError(
        'error.msg.webhook.subscription.version.conflict',
        `Webhook subscription ${input.subscriptionId} is at version ${current.version}, not ${input.expectedVersion}; read it again.`,
      );
    });
  };
}
