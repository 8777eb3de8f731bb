/**
 * Encryption and keyed digests of government identifiers (docs/design.md §3 Data rules).
 *
 * - Ciphertext: AES-256-GCM through activities/common/encryption.ts (random 96-bit IV, 128-bit
 *   tag, base64(IV ‖ ciphertext ‖ tag)). The additional authenticated data binds the ciphertext to its
 *   tenant and identifier type, so a ciphertext copied onto another tenant's row fails to decrypt.
 * - Digest: hex HMAC-SHA256 of the normalized value under a key derived from the same secret with
 *   HKDF-SHA256 (RFC 5869, info `customer-identifier-digest/v1`), never the encryption key itself.
 *   It backs the unique index that finds duplicates without decrypting.
 *
 * Neither the value nor the keys are ever logged or put in an error.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { decryptField, encryptField, encryptionKeyOf } from '../common/encryption';

const digestKeyInfo = 'customer-identifier-digest/v1';

const digestKeys = new Map<string, Buffer>();

function digestKeyOf(dataEncryptionKey: string): Buffer {
  let key = digestKeys.get(dataEncryptionKey);
  if (!key) {
    key = Buffer.from(
      hkdfSync('sha256', encryptionKeyOf(dataEncryptionKey), Buffer.alloc(0), digestKeyInfo, 32),
    );
    digestKeys.set(dataEncryptionKey, key);
  }
  return key;
}

/** The AAD of an identifier ciphertext: unchanged since identifiers were first encrypted, so stored values stay readable. */
function aadOf(tenantId: string, identifierType: string): string {
  return `customer-identifier/v1|${tenantId}|${identifierType}`;
}

/** base64(IV ‖ ciphertext ‖ tag) of `plaintext` under AES-256-GCM (activities/common/encryption.ts). */
export function encryptIdentifier(
  dataEncryptionKey: string,
  context: { tenantId: string; identifierType: string },
  plaintext: string,
): string {
  return encryptField(dataEncryptionKey, aadOf(context.tenantId, context.identifierType), plaintext);
}

/**
 * Decrypts what `encryptIdentifier` produced for the same tenant and type. Throws when the key,
 * the context or the ciphertext differ (GCM authentication).
 */
export function decryptIdentifier(
  dataEncryptionKey: string,
  context: { tenantId: string; identifierType: string },
  stored: string,
): string {
  return decryptField(dataEncryptionKey, aadOf(context.tenantId, context.identifierType), stored);
}

/** Hex HMAC-SHA256 of `digestInput` under the derived digest key. */
export function identifierDigest(dataEncryptionKey: string, digestInput: string): string {
  return createHmac('sha256', digestKeyOf(dataEncryptionKey)).update(digestInput, 'utf8').digest('hex');
}
