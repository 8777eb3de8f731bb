/**
 * Encryption of every Temporal payload at rest: a `PayloadCodec` (Temporal's data-converter step between the
 * payload converter and the wire; TypeScript SDK `@temporalio/common` `PayloadCodec`, and Temporal's "Data
 * encryption" guide) that every client and worker of the service is given (`temporalDataConverter`). Workflow and
 * activity inputs and results, signals, queries, updates, memos and failure details are stored in Temporal's history
 * only as ciphertext; the Web UI shows them decoded through the codec endpoint (workers/codec-server.ts).
 *
 * Wire form of an encrypted payload (as Temporal's encryption sample writes it):
 * - metadata `encoding` = `binary/encrypted`, `encryption-key-id` = the id of the key it was sealed with;
 * - data = IV (12 random bytes, NIST SP 800-38D §8.2.2) ‖ AES-256-GCM ciphertext ‖ 16-byte tag, of the original
 *   payload serialized as `temporal.api.common.v1.Payload` (protobuf), with the key id as additional authenticated
 *   data so that relabelling a payload with another key id fails authentication.
 *
 * Rotation: encode always uses the keyring's current key; decode uses whichever known key the metadata names, so
 * histories written under a retired key stay readable while that key is kept in the ring. A payload without the
 * `binary/encrypted` encoding passes through decode unchanged (histories recorded before encryption, replay
 * fixtures).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type DataConverter, type Payload, type PayloadCodec, ValueError } from '@temporalio/common';
import proto from '@temporalio/proto';

/** The protobuf message of a payload (a CommonJS module: its default export, as Node's ESM loader sees it). */
const PayloadMessage = proto.temporal.api.common.v1.Payload;

/** Metadata `encoding` of an encrypted payload. */
export const encryptedEncoding = 'binary/encrypted';
/** Metadata key naming the key an encrypted payload was sealed with. */
export const encryptionKeyIdMetadataKey = 'encryption-key-id';

const ivBytes = 12;
const tagBytes = 16;
const keyIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/** Keys of the codec: id → 32-byte AES-256 key, and the id new payloads are sealed with. */
export interface PayloadKeyring {
  currentKeyId: string;
  /** id → key as 64 hex characters. */
  keys: Readonly<Record<string, string>>;
}

/**
 * Checks a keyring: ids of 1–64 characters `[A-Za-z0-9._-]`, keys of exactly 64 hex characters (32 bytes), the
 * current id among them. Throws an `Error` naming the offending id (never a key) otherwise.
 */
export function checkPayloadKeyring(keyring: PayloadKeyring): void {
  const ids = Object.keys(keyring.keys);
  if (ids.length === 0) throw new Error('the payload keyring has no key');
  for (const id of ids) {
    if (!keyIdPattern.test(id))
      throw new Error(`payload key id "${id}" must be 1 to 64 of A-Z a-z 0-9 . _ -`);
    if (!/^[0-9a-f]{64}$/i.test(keyring.keys[id] ?? ''))
      throw new Error(`payload key "${id}" must be 64 hex characters (32 bytes)`);
  }
  if (!(keyring.currentKeyId in keyring.keys))
    throw new Error(`the current payload key id "${keyring.currentKeyId}" is not among the keys`);
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * AES-256-GCM `PayloadCodec` over a `PayloadKeyring` (see the module comment for the wire form).
 * `encode` seals each payload with the current key and a fresh random IV. `decode` opens `binary/encrypted`
 * payloads with the key their metadata names and returns any other payload unchanged. Decode throws a `ValueError`
 * when the key id is missing or unknown (the message names the id, never a key) or when authentication fails
 * (tampered data, metadata or tag).
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly currentKeyId: string;

  constructor(keyring: PayloadKeyring) {
    checkPayloadKeyring(keyring);
    this.keys = new Map(Object.entries(keyring.keys).map(([id, hex]) => [id, Buffer.from(hex, 'hex')]));
    this.currentKeyId = keyring.currentKeyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.currentKeyId) as Buffer;
    const keyId = utf8.encode(this.currentKeyId);
    return payloads.map((payload) => {
      const plain = PayloadMessage.encode(payload).finish();
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
      cipher.setAAD(keyId);
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return {
        metadata: {
          encoding: utf8.encode(encryptedEncoding),
          [encryptionKeyIdMetadataKey]: keyId,
        },
        data: new Uint8Array(Buffer.concat([iv, body, cipher.getAuthTag()])),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || fromUtf8.decode(encoding) !== encryptedEncoding) return payload;
      const keyIdBytes = payload.metadata?.[encryptionKeyIdMetadataKey];
      if (!keyIdBytes) throw new ValueError(`encrypted payload has no ${encryptionKeyIdMetadataKey}`);
      const keyId = fromUtf8.decode(keyIdBytes);
      const key = this.keys.get(keyId);
      if (!key)
        throw new ValueError(
          `encrypted payload names unknown key id "${keyId}" (known: ${[...this.keys.keys()].join(', ')}); add that key to TEMPORAL_PAYLOAD_KEYS`,
        );
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < ivBytes + tagBytes) throw new ValueError('encrypted payload is too short');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, ivBytes), {
        authTagLength: tagBytes,
      });
      decipher.setAAD(keyIdBytes);
      decipher.setAuthTag(data.subarray(data.length - tagBytes));
      let plain: Buffer;
      try {
        plain = Buffer.concat([
          decipher.update(data.subarray(ivBytes, data.length - tagBytes)),
          decipher.final(),
        ]);
      } catch {
        throw new ValueError(`encrypted payload failed authentication under key id "${keyId}" (AES-GCM tag)`);
      }
      return PayloadMessage.decode(plain);
    });
  }
}

/** The data converter every Temporal client and worker of the service uses: the default converters, then `codec`. */
export function temporalDataConverter(keyring: PayloadKeyring): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keyring)] };
}
