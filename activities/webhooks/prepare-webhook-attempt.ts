/**
 * `prepareWebhookAttempt` (docs/processes.md P2; docs/design.md §5 Webhooks): reads, before each attempt,
 * whether the delivery may go ahead and what to send. A read-only transaction.
 *
 * - The subscription not `ACTIVE` (deactivated by the integrator, disabled by the service) or the
 *   delivery `CANCELLED` / already ended → `{proceed: false, reason}` and nothing to send.
 * - Otherwise the subscription's URL (read now, so a PATCHed URL applies to the next attempt), the
 *   envelope's exact JSON text (the workflow keeps the first one, so the bytes are stable across
 *   retries), and the signing secrets valid now, newest first, sealed for the trip through
 *   workflow history (`sealed-secrets.ts`).
 * Errors: none of its own; a missing delivery, subscription or event is a bug (retried, logged).
 */
import { and, eq } from 'drizzle-orm';
import { outboxEvents, webhookDeliveries, webhookSubscriptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';
import { envelopeBody } from './envelope';
import { sealSecret } from './sealed-secrets';
import { loadSigningSecrets } from './secrets';

export interface PrepareWebhookAttemptInput {
  tenantId: string;
  subscriptionId: number;
  /** `evt_…` of the outbox event. */
  eventId: string;
  /** `whd_…`. */
  deliveryId: string;
}

export type PrepareWebhookAttemptResult =
  | {
      proceed: true;
      url: string;
      /** The envelope's JSON text, exactly as it is to be sent. */
      body: string;
      deliveryId: string;
      /** Valid secrets, newest first, each sealed with `sealSecret` for this delivery. */
      signingSecrets: { secretVersion: number; sealedSecret: string }[];
    }
  | {
      proceed: false;
      /** `SUBSCRIPTION_INACTIVE`, `SUBSCRIPTION_DISABLED`, `DELIVERY_CANCELLED`, `DELIVERY_ENDED`, `NO_SIGNING_SECRET`. */
      reason: string;
      deliveryId: string;
    };

export const prepareWebhookAttempt =
  (deps: Deps) =>
  async (input: PrepareWebhookAttemptInput): Promise<PrepareWebhookAttemptResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [delivery] = await tx
        .select({ state: webhookDeliveries.state })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.tenantId, input.tenantId),
            eq(webhookDeliveries.deliveryId, input.deliveryId),
          ),
        );
      if (!delivery) throw new Error(`webhook delivery ${input.deliveryId} not found`);
      if (delivery.state === 'CANCELLED')
        return { proceed: false, reason: 'DELIVERY_CANCELLED', deliveryId: input.deliveryId };
      if (delivery.state === 'SUCCEEDED' || delivery.state === 'FAILED')
        return { proceed: false, reason: 'DELIVERY_ENDED', deliveryId: input.deliveryId };

      const [subscription] = await tx
        .select({
          status: webhookSubscriptions.status,
          url: webhookSubscriptions.url,
          apiVersion: webhookSubscriptions.apiVersion,
        })
        .from(webhookSubscriptions)
        .where(
          and(
            eq(webhookSubscriptions.tenantId, input.tenantId),
            eq(webhookSubscriptions.id, input.subscriptionId),
          ),
        );
      if (!subscription) throw new Error(`webhook subscription ${input.subscriptionId} not found`);
      if (subscription.status !== 'ACTIVE')
        return {
          proceed: false,
          reason: `SUBSCRIPTION_${subscription.status}`,
          deliveryId: input.deliveryId,
        };

      const [event] = await tx
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.tenantId, input.tenantId), eq(outboxEvents.eventId, input.eventId)));
      if (!event) throw new Error(`outbox event ${input.eventId} not found`);

      const secrets = await loadSigningSecrets(
        tx,
        deps.dataEncryptionKey,
        input.tenantId,
        input.subscriptionId,
        deps.clock(),
      );
      if (secrets.length === 0)
        return { proceed: false, reason: 'NO_SIGNING_SECRET', deliveryId: input.deliveryId };
      return {
        proceed: true,
        url: subscription.url,
        body: envelopeBody(event, subscription.apiVersion),
        deliveryId: input.deliveryId,
        signingSecrets: secrets.map((s) => ({
          secretVersion: s.secretVersion,
          sealedSecret: sealSecret(deps.dataEncryptionKey, input.deliveryId, s.secret),
        })),
      };
    });
