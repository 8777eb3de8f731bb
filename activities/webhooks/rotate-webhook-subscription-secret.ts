import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { webhookSecrets, webhookSubscriptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { lockSubscription } from './records';
import { encryptSigningSecret, newSigningSecret, webhookSecretOverlapSeconds } from './secrets';

export interface RotateWebhookSubscriptionSecretInput extends OperationContext {
  subscriptionId: number;
  /** How long the previous secret stays valid, 0 to 604800 s (default 86400); 0 revokes it at once. */
  overlapSeconds?: number | undefined;
}

export interface RotateWebhookSubscriptionSecretResult {
  /** The new `whsec_…` secret, shown in this answer only. */
  signingSecret: string;
  secretVersion: number;
  /** ISO 8601 instant after which the previous secret no longer signs (now + overlap). */
  previousSecretExpiresAt: string;
}

/**
 * Rotates a subscription's signing secret with a bounded overlap (spec § Events 2, 4; DESIGN §5
 * Webhooks): a new secret (version + 1) becomes current; the previous current one stays valid
 * until now + `overlapSeconds`; any older one still valid ends now, so at most two secrets are
 * ever valid. Bumps the subscription's `version`. Errors: 400 naming `overlapSeconds` out of
 * range; 404 when absent or another tenant's.
 */
export function rotateWebhookSubscriptionSecret(deps: Deps) {
  return async (
    input: RotateWebhookSubscriptionSecretInput,
  ): Promise<RotateWebhookSubscriptionSecretResult> => {
    const overlap = input.overlapSeconds ?? webhookSecretOverlapSeconds.default;
    if (!Number.isInteger(overlap) || overlap < 0 || overlap > webhookSecretOverlapSeconds.max) {
      throw validationError(
        'overlapSeconds',
        overlap,
        `overlapSeconds must be an integer from 0 to ${webhookSecretOverlapSeconds.max}.`,
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const subscription = await lockSubscription(tx, input.tenantId, input.subscriptionId);
      const now = deps.clock();
      const previousExpiresAt = new Date(now.getTime() + overlap * 1000);
      const valid = await tx
        .select()
        .from(webhookSecrets)
        .where(
          and(
            eq(webhookSecrets.tenantId, input.tenantId),
            eq(webhookSecrets.subscriptionId, subscription.id),
            or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, now)),
          ),
        );
      for (const secret of valid) {
        const end = secret.secretVersion === subscription.secretVersion ? previousExpiresAt : now;
        if (secret.expiresAt === null || secret.expiresAt > end) {
          await tx.update(webhookSecrets).set({ expiresAt: end }).where(eq(webhookSecrets.id, secret.id));
        }
      }
      const secretVersion = subscription.secretVersion + 1;
      const signingSecret = newSigningSecret();
      await tx.insert(webhookSecrets).values({
        tenantId: input.tenantId,
        subscriptionId: subscription.id,
        secretVersion,
        secretCiphertext: encryptSigningSecret(
          deps.dataEncryptionKey,
          { tenantId: input.tenantId, subscriptionId: subscription.id, secretVersion },
          signingSecret,
        ),
        createdAt: now,
      });
      await tx
        .update(webhookSubscriptions)
        .set({ secretVersion, version: sql`${webhookSubscriptions.version} + 1`, updatedAt: now })
        .where(eq(webhookSubscriptions.id, subscription.id));
      return { signingSecret, secretVersion, previousSecretExpiresAt: previousExpiresAt.toISOString() };
    });
  };
}
