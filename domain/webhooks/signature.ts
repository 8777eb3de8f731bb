/**
 * Signatures of outbound webhooks (docs/design.md §5 Webhooks; Standard Webhooks).
 *
 * `Service-Webhook-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`: the key is
 * the whole `whsec_…` secret as UTF-8 text, the message the attempt's Unix-seconds timestamp, a
 * full stop and the exact body bytes sent. During a rotation overlap the header carries one `v1=`
 * entry per listed secret, comma-separated, newest first. Pure (`@noble/hashes`), so the workflow
 * sandbox, activities and tests share it; receivers verify with the client's `client/src/webhooks.ts`.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Header names of a delivery (docs/design.md §5). */
export const webhookHeaders = {
  /** The delivery id (`whd_…`), stable across the retries of one event to one subscription. */
  id: 'Service-Webhook-Id',
  /** Unix seconds of this attempt, the timestamp that is signed. */
  timestamp: 'Service-Webhook-Timestamp',
  /** `v1=<hex>` entries, comma-separated, newest secret first. */
  signature: 'Service-Webhook-Signature',
} as const;

/** The signature scheme's version tag. */
export const signatureVersion = 'v1';

/** Lower-case hex HMAC-SHA256 of `"<timestampSeconds>.<rawBody>"` under `secret` (both UTF-8). */
export function signPayload(secret: string, timestampSeconds: number, rawBody: string): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0)
    throw new Error('timestampSeconds must be a non-negative whole number of seconds');
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`${timestampSeconds}.${rawBody}`)));
}

/**
 * The `Service-Webhook-Signature` value for `secrets` (newest first, as `loadSigningSecrets`
 * returns them): `v1=<hex>` or, during an overlap, `v1=<hex new>,v1=<hex old>`.
 * Throws when `secrets` is empty (a delivery is never sent unsigned).
 */
export function signatureHeaderValue(
  secrets: readonly string[],
  timestampSeconds: number,
  rawBody: string,
): string {
  if (secrets.length === 0) throw new Error('at least one signing secret is needed');
  return secrets
    .map((secret) => `${signatureVersion}=${signPayload(secret, timestampSeconds, rawBody)}`)
    .join(',');
}
