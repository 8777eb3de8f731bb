/**
 * INTERIM (issue 6, delivery helper): reading the subscription's signing secrets for delivery.
 * The subscription helper owns secret storage (create / rotate / deactivate); when its branch is
 * merged, replace this file's bodies with its `loadSigningSecrets` and encryption, keeping the
 * exported names, so the delivery code does not change.
 *
 * Ciphertext as `customers/identifier-crypto.ts` does it: AES-256-GCM under
 * `Deps.dataEncryptionKey`, random 96-bit IV, 128-bit tag, stored as base64(IV ‖ ciphertext ‖ tag);
 * the additional authenticated data binds it to tenant, subscription and secret version.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { and, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { webhookSecrets } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';

const ivBytes = 12;
const tagBytes = 16;

export interface SigningSecretContext {
  tenantId: string;
  subscriptionId: number;
  secretVersion: number;
}

function keyOf(dataEncryptionKey: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(dataEncryptionKey))
    throw new Error('dataEncryptionKey must be 64 hexadecimal characters');
  return Buffer.from(dataEncryptionKey, 'hex');
}

function aadOf(context: SigningSecretContext): Buffer {
  return Buffer.from(
    `webhook-secret/v1|${context.tenantId}|${context.subscriptionId}|${context.secretVersion}`,
    'utf8',
  );
}

/** base64(IV ‖ ciphertext ‖ tag) of a `whsec_…` secret. */
export function encryptSigningSecret(
  dataEncryptionKey: string,
  context: SigningSecretContext,
  secret: string,
): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', keyOf(dataEncryptionKey), iv, { authTagLength: tagBytes });
  cipher.setAAD(aadOf(context));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

/** Inverse of `encryptSigningSecret`; throws when key, context or ciphertext differ. */
export function decryptSigningSecret(
  dataEncryptionKey: string,
  context: SigningSecretContext,
  stored: string,
): string {
  const bytes = Buffer.from(stored, 'base64');
  if (bytes.length < ivBytes + tagBytes) throw new Error('secret ciphertext is too short');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(dataEncryptionKey), bytes.subarray(0, ivBytes), {
    authTagLength: tagBytes,
  });
  decipher.setAAD(aadOf(context));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  return Buffer.concat([
    decipher.update(bytes.subarray(ivBytes, bytes.length - tagBytes)),
    decipher.final(),
  ]).toString('utf8');
}

/**
 * The secrets that sign a delivery at `at`: every secret of the subscription not expired at that
 * instant (`expiresAt` null or later), newest version first (DESIGN §5: new first during overlap).
 */
export async function loadSigningSecrets(
  tx: Tx,
  dataEncryptionKey: string,
  input: { tenantId: string; subscriptionId: number; at: Date },
): Promise<{ secretVersion: number; secret: string }[]> {
  const rows = await tx
    .select({
      secretVersion: webhookSecrets.secretVersion,
      secretCiphertext: webhookSecrets.secretCiphertext,
    })
    .from(webhookSecrets)
    .where(
      and(
        eq(webhookSecrets.tenantId, input.tenantId),
        eq(webhookSecrets.subscriptionId, input.subscriptionId),
        or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, input.at)),
      ),
    )
    .orderBy(desc(webhookSecrets.secretVersion));
  return rows.map((row) => ({
    secretVersion: row.secretVersion,
    secret: decryptSigningSecret(
      dataEncryptionKey,
      { tenantId: input.tenantId, subscriptionId: input.subscriptionId, secretVersion: row.secretVersion },
      row.secretCiphertext,
    ),
  }));
}
