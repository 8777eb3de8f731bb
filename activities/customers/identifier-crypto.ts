/**
 * Encryption and keyed digests of government identifiers (DESIGN §3 Data rules; issue 3 §2).
 *
 * - Ciphertext: AES-256-GCM under `Deps.dataEncryptionKey` (64 hex characters = 256 bits), a
 *   random 96-bit IV per value (NIST SP 800-38D §8.2.2), a 128-bit tag, stored as
 *   base64(IV ‖ ciphertext ‖ tag). The additional authenticated data binds the ciphertext to its
 *   tenant and identifier type, so a ciphertext copied onto another tenant's row fails to decrypt.
 * - Digest: hex HMAC-SHA256 of the normalized value under a key derived from the same secret with
 *   HKDF-SHA256 (RFC 5869, info `customer-identifier-digest/v1`), never the encryption key itself.
 *   It backs the unique index that finds duplicates without decrypting.
 *
 * Neither the value nor the keys are ever logged or put in an error.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const ivBytes = 12;
const tagBytes = 16;
const digestKeyInfo = 'customer-identifier-digest/v1';

function encryptionKeyOf(dataEncryptionKey: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(dataEncryptionKey))
    throw new Error('dataEncryptionKey must be 64 hexadecimal characters');
  return Buffer.from(dataEncryptionKey, 'hex');
}

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

function aadOf(tenantId: string, identifierType: string): Buffer {
  return Buffer.from(`customer-identifier/v1|${tenantId}|${identifierType}`, 'utf8');
}

/** base64(IV ‖ ciphertext ‖ tag) of `plaintext` under AES-256-GCM. */
export function encryptIdentifier(
  dataEncryptionKey: string,
  context: { tenantId: string; identifierType: string },
  plaintext: string,
): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', encryptionKeyOf(dataEncryptionKey), iv, {
    authTagLength: tagBytes,
  });
  cipher.setAAD(aadOf(context.tenantId, context.identifierType));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
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
  const bytes = Buffer.from(stored, 'base64');
  if (bytes.length < ivBytes + tagBytes) throw new Error('identifier ciphertext is too short');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    encryptionKeyOf(dataEncryptionKey),
    bytes.subarray(0, ivBytes),
    { authTagLength: tagBytes },
  );
  decipher.setAAD(aadOf(context.tenantId, context.identifierType));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  return Buffer.concat([
    decipher.update(bytes.subarray(ivBytes, bytes.length - tagBytes)),
    decipher.final(),
  ]).toString('utf8');
}

/** Hex HMAC-SHA256 of `digestInput` under the derived digest key. */
export function identifierDigest(dataEncryptionKey: string, digestInput: string): string {
  return createHmac('sha256', digestKeyOf(dataEncryptionKey)).update(digestInput, 'utf8').digest('hex');
}
