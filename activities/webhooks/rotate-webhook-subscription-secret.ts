import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { webhookSecrets, webhookSubscriptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import {
  isValidOverlapSeconds,
  rotationExpiries,
  secretRotationOverlapSeconds,
} from '../../domain/secret-rotation';
import type { Deps, OperationContext } from '../deps';
import { lockSubscription } from './records';
import { encryptSigningSecret, newSigningSecret } from './secrets';

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
 * Rotates a subscription's signing secret with a bounded overlap (docs/integrating.md "Webhooks"; docs/design.md §5
 * Webhooks): a new secret (version + 1) becomes current; the previous current one stays valid
 * until now + `overlapSeconds`; any older one still valid ends now, so at most two secrets are
 * ever valid. Bumps the subscription's `version`. Errors: 400 naming `overlapSeconds` out of
 * range; 404 when absent or another tenant's.
 */
export function rotateWebhookSubscriptionSecret(deps: Deps) {
  return async (
    input: RotateWebhookSubscriptionSecretInput,
  ): Promise<RotateWebhookSubscriptionSecretResult> => {
    const overlap = input.overlapSeconds ?? secretRotationOverlapSeconds.default;
    if (!isValidOverlapSeconds(overlap)) {
      throw validationError(
        'overlapSeconds',
        overlap,
        `overlapSeconds must be an integer from 0 to ${secretRotationOverlapSeconds.max}.`,
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const subscription = await lockSubscription(tx, input.tenantId, input.subscriptionId);
      const now = deps.clock();
      const valid = await tx
        .select({ id: webhookSecrets.id, expiresAt: webhookSecrets.expiresAt })
        .from(webhookSecrets)
        .where(
          and(
            eq(webhookSecrets.tenantId, input.tenantId),
            eq(webhookSecrets.subscriptionId, subscription.id),
            or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, now)),
          ),
        )
        .orderBy(asc(webhookSecrets.secretVersion));
      const { updates, previousSecretExpiresAt } = rotationExpiries(valid, now, overlap);
      for (const update of updates)
        await tx
          .update(webhookSecrets)
          .set({ expiresAt: update.expiresAt })
          .where(eq(webhookSecrets.id, update.id));
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
      return { signingSecret, secretVersion, previousSecretExpiresAt: previousSecretExpiresAt.toISOString() };
    });
  };
}
