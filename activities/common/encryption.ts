/**
 * Field encryption at rest (docs/design.md §3 Data rules: "stored encrypted (AES-256-GCM, key from
 * configuration)"), shared by every value the service must be able to read back: government
 * identifiers (activities/customers/identifier-crypto.ts) and webhook signing secrets
 * (activities/webhooks/secrets.ts).
 *
 * AES-256-GCM under `Deps.dataEncryptionKey` (64 hex characters = 256 bits), a random 96-bit IV
 * per value (NIST SP 800-38D §8.2.2), a 128-bit tag, stored as base64(IV ‖ ciphertext ‖ tag).
 * Each caller passes its own additional authenticated data (AAD): a context string naming the
 * kind of value, its version and the row it belongs to (e.g. `customer-identifier/v1|<tenant>|<type>`),
 * so a ciphertext copied onto another row, tenant or kind fails to decrypt. Neither values nor
 * keys are ever logged or put in an error.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ivBytes = 12;
const tagBytes = 16;

/** The 256-bit key of a 64-hex-character `dataEncryptionKey` (throws on any other form). */
export function encryptionKeyOf(dataEncryptionKey: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(dataEncryptionKey))
    throw new Error('dataEncryptionKey must be 64 hexadecimal characters');
  return Buffer.from(dataEncryptionKey, 'hex');
}

/** base64(IV ‖ ciphertext ‖ tag) of `plaintext` (UTF-8) under AES-256-GCM with `aad` bound to it. */
export function encryptField(dataEncryptionKey: string, aad: string, plaintext: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', encryptionKeyOf(dataEncryptionKey), iv, {
    authTagLength: tagBytes,
  });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

/**
 * Decrypts what `encryptField` produced under the same key and `aad`. Throws when the key, the
 * AAD or the ciphertext differ (GCM authentication) or the stored text is too short.
 */
export function decryptField(dataEncryptionKey: string, aad: string, stored: string): string {
  const bytes = Buffer.from(stored, 'base64');
  if (bytes.length < ivBytes + tagBytes) throw new Error('ciphertext is too short');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    encryptionKeyOf(dataEncryptionKey),
    bytes.subarray(0, ivBytes),
    { authTagLength: tagBytes },
  );
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  return Buffer.concat([
    decipher.update(bytes.subarray(ivBytes, bytes.length - tagBytes)),
    decipher.final(),
  ]).toString('utf8');
}
