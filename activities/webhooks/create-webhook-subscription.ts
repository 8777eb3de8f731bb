import { and, count, eq, sql } from 'drizzle-orm';
import { type WebhookSubscriptionView, webhookSubscriptionView } from '../../db/queries/webhooks/webhooks';
import { webhookSecrets, webhookSubscriptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError } from '../../domain/errors';
import type { EventType } from '../../domain/events';
import { defaultWebhookLimits } from '../../domain/webhooks/limits';
import type { Deps, OperationContext } from '../deps';
import { rowOfRequestKey } from '../servicing/records';
import { assertWebhookUrl } from './records';
import { decryptSigningSecret, encryptSigningSecret, newSigningSecret } from './secrets';

export interface CreateWebhookSubscriptionInput extends OperationContext {
  /** Destination URL, checked against the environment's policy (domain/webhooks/url-policy.ts). */
  url: string;
  /** Non-empty, unique catalogue types other than `webhook.test` (checked at the edge). */
  eventTypes: EventType[];
  /** `YYYY-MM-DD`: the `apiVersion` of the envelopes this subscription receives. */
  apiVersion: string;
  description: string;
  /** Also deliver the events of portfolio boarding (outbox `source` `BOARDING`); default false. */
  includeBoardedHistory?: boolean | undefined;
}

export interface CreateWebhookSubscriptionResult extends WebhookSubscriptionView {
  /** `whsec_…`: shown in this answer only (and in a replay of the same request). */
  signingSecret: string;
}

/**
 * Creates a webhook subscription (docs/integrating.md "Webhooks"; docs/processes.md P2) in status ACTIVE with
 * secret version 1: a fresh `whsec_` secret stored only encrypted in `webhook_secrets`.
 * Idempotent by `requestKey`: a retry returns the subscription the first call created, with the
 * same secret (decrypted again, as the same logical request). Errors: 400 naming `url` when the
 * URL is not an allowed destination in this deployment's environment; 409
 * `error.msg.webhook.subscription.limit.reached` when the tenant already has
 * `maxSubscriptionsPerTenant` (default 100, domain/webhooks/limits.ts) ACTIVE subscriptions
 * (creations of one tenant are serialized, so concurrent ones cannot pass it). Nothing is written
 * on an error.
 */
export function createWebhookSubscription(deps: Deps) {
  return async (input: CreateWebhookSubscriptionInput): Promise<CreateWebhookSubscriptionResult> => {
    assertWebhookUrl(deps, input.url);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const now = deps.clock();
      const limit = (deps.webhookLimits ?? defaultWebhookLimits).maxSubscriptionsPerTenant;
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtext(${`webhook-subscriptions/${input.tenantId}`}))`,
      );
      const replayed = input.requestKey
        ? await tx
            .select({ id: webhookSubscriptions.id })
            .from(webhookSubscriptions)
            .where(
              and(
                eq(webhookSubscriptions.tenantId, input.tenantId),
                eq(webhookSubscriptions.requestKey, input.requestKey),
              ),
            )
        : [];
      if (replayed.length === 0) {
        const [active] = await tx
          .select({ n: count() })
          .from(webhookSubscriptions)
          .where(
            and(eq(webhookSubscriptions.tenantId, input.tenantId), eq(webhookSubscriptions.status, 'ACTIVE')),
          );
        if ((active?.n ?? 0) >= limit)
          throw new DomainError(
            'error.msg.webhook.subscription.limit.reached',
            `The tenant has ${active?.n} active webhook subscriptions, the most allowed (${limit}); deactivate one before creating another.`,
          );
      }
      const [created] = await tx
        .insert(webhookSubscriptions)
        .values({
          tenantId: input.tenantId,
          url: input.url,
          eventTypes: input.eventTypes,
          apiVersion: input.apiVersion,
          description: input.description,
          includeBoardedHistory: input.includeBoardedHistory ?? false,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [webhookSubscriptions.tenantId, webhookSubscriptions.requestKey] })
        .returning();
      if (!created) {
        const existing = await rowOfRequestKey(tx, webhookSubscriptions, input.tenantId, input.requestKey);
        const [first] = await tx
          .select()
          .from(webhookSecrets)
          .where(and(eq(webhookSecrets.subscriptionId, existing.id), eq(webhookSecrets.secretVersion, 1)));
        if (!first) throw new Error(`webhook subscription ${existing.id} has no first secret`);
        const context = { tenantId: input.tenantId, subscriptionId: existing.id, secretVersion: 1 };
        return {
          ...webhookSubscriptionView(existing),
          signingSecret: decryptSigningSecret(deps.dataEncryptionKey, context, first.secretCiphertext),
        };
      }
      const signingSecret = newSigningSecret();
      const context = { tenantId: input.tenantId, subscriptionId: created.id, secretVersion: 1 };
      await tx.insert(webhookSecrets).values({
        tenantId: input.tenantId,
        subscriptionId: created.id,
        secretVersion: 1,
        secretCiphertext: encryptSigningSecret(deps.dataEncryptionKey, context, signingSecret),
        createdAt: now,
      });
      return { ...webhookSubscriptionView(created), signingSecret };
    });
  };
}
