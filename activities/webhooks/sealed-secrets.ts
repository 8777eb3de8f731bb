/**
 * Signing secrets sealed for the trip through workflow history: `prepareWebhookAttempt` reads
 * them from the database and `sendWebhook` signs with them, and what passes between the two is
 * recorded in Temporal's history (visible in its UI). So they travel sealed with AES-256-GCM under
 * `Deps.dataEncryptionKey`, bound to the delivery id, and are opened only inside `sendWebhook`.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const ivBytes = 12;
const tagBytes = 16;
const keys = new Map<string, Buffer>();

/** A key of its own (HKDF-SHA256, RFC 5869), never the data-encryption key itself. */
function sealKeyOf(dataEncryptionKey: string): Buffer {
  let key = keys.get(dataEncryptionKey);
  if (!key) {
    key = Buffer.from(
      hkdfSync(
        'sha256',
        Buffer.from(dataEncryptionKey, 'hex'),
        Buffer.alloc(0),
        'webhook-secret-transit/v1',
        32,
      ),
    );
    keys.set(dataEncryptionKey, key);
  }
  return key;
}

/** base64(IV ‖ ciphertext ‖ tag) of `secret`, bound to `deliveryId`. */
export function sealSecret(dataEncryptionKey: string, deliveryId: string, secret: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', sealKeyOf(dataEncryptionKey), iv, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(deliveryId, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

/** Opens what `sealSecret` produced for the same delivery; throws otherwise. */
export function openSealedSecret(dataEncryptionKey: string, deliveryId: string, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < ivBytes + tagBytes) throw new Error('sealed secret is too short');
  const decipher = createDecipheriv('aes-256-gcm', sealKeyOf(dataEncryptionKey), bytes.subarray(0, ivBytes), {
    authTagLength: tagBytes,
  });
  decipher.setAAD(Buffer.from(deliveryId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  return Buffer.concat([
    decipher.update(bytes.subarray(ivBytes, bytes.length - tagBytes)),
    decipher.final(),
  ]).toString('utf8');
}
