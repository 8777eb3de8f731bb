/**
 * Webhook signing secrets (docs/design.md §5 Webhooks: "Secrets `whsec_` + base64 of 32 random bytes,
 * shown once; rotation overlap default 24 h, max 7 days, 0 revokes at once"). HMAC signing needs
 * the secret itself, so it is stored encrypted (AES-256-GCM, activities/common/encryption.ts) with
 * AAD `webhook-secret/v1|<tenant>|<subscriptionId>|<secretVersion>`, never in clear.
 */
import { randomBytes } from 'node:crypto';
import { and, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { webhookSecrets } from '../../db/schema';
import type { DbExecutor } from '../../db/tenant-tx';
import { decryptField, encryptField } from '../common/encryption';

/** A fresh signing secret: `whsec_` + base64 of 32 random bytes (256 bits). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function aadOf(tenantId: string, subscriptionId: number, secretVersion: number): string {
  return `webhook-secret/v1|${tenantId}|${subscriptionId}|${secretVersion}`;
}

/** The stored form of `secret` for one subscription and secret version. */
export function encryptSigningSecret(
  dataEncryptionKey: string,
  context: { tenantId: string; subscriptionId: number; secretVersion: number },
  secret: string,
): string {
  return encryptField(
    dataEncryptionKey,
    aadOf(context.tenantId, context.subscriptionId, context.secretVersion),
    secret,
  );
}

/** Decrypts what `encryptSigningSecret` stored for the same context (throws on any mismatch). */
export function decryptSigningSecret(
  dataEncryptionKey: string,
  context: { tenantId: string; subscriptionId: number; secretVersion: number },
  stored: string,
): string {
  return decryptField(
    dataEncryptionKey,
    aadOf(context.tenantId, context.subscriptionId, context.secretVersion),
    stored,
  );
}

/**
 * The secrets a delivery of `subscriptionId` is signed with at instant `at`: every secret not
 * expired at `at` (`expiresAt` null or after `at`), newest first, decrypted: at most two (the
 * current one and, during a rotation overlap, the previous one). Call it inside a tenant
 * transaction (`withTenantTransaction`), so row-level security applies; an unknown or another
 * tenant's subscription yields `[]`.
 */
export async function loadSigningSecrets(
  executor: DbExecutor,
  dataEncryptionKey: string,
  tenantId: string,
  subscriptionId: number,
  at: Date,
): Promise<{ secretVersion: number; secret: string }[]> {
  const rows = await executor
    .select()
    .from(webhookSecrets)
    .where(
      and(
        eq(webhookSecrets.tenantId, tenantId),
        eq(webhookSecrets.subscriptionId, subscriptionId),
        or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, at)),
      ),
    )
    .orderBy(desc(webhookSecrets.secretVersion));
  return rows.map((row) => ({
    secretVersion: row.secretVersion,
    secret: decryptSigningSecret(
      dataEncryptionKey,
      { tenantId, subscriptionId, secretVersion: row.secretVersion },
      row.secretCiphertext,
    ),
  }));
}
