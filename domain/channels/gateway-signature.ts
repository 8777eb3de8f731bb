/**
 * The inbound channel-event signature (docs/design.md §5 "Inbound channel events"):
 * `X-Service-Gateway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(gatewaySecret, "<t>.<raw body>")>`,
 * several `v1` entries allowed while a gateway rotates its secret; accepted within 300 s of the
 * service's clock in either direction (replay window). The HMAC covers the raw request bytes, not
 * a re-serialization of the JSON. Pure: the caller passes the secrets and the current time.
 * Failure reasons are for logs only; the HTTP answer never says which part failed.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { timingSafeEqualText } from '../hash';

export const gatewaySignatureHeader = 'x-service-gateway-signature';

/** Seconds a signature's timestamp may differ from the service's clock. */
export const gatewayReplayWindowSeconds = 300;

export interface ParsedGatewaySignature {
  timestampSeconds: number;
  /** Lower-case hex digests of every `v1` entry. */
  signatures: string[];
}

/** Parses `t=<unix>,v1=<hex>[,v1=<hex>…]`; null when malformed (no `t`, no `v1`, bad digits). */
export function parseGatewaySignature(header: string | null | undefined): ParsedGatewaySignature | null {
  if (!header || header.length > 2048) return null;
  let timestampSeconds: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestampSeconds !== null || !/^[0-9]{1,12}$/.test(value)) return null;
      timestampSeconds = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return null;
      signatures.push(value.toLowerCase());
    }
    // Other schemes (v0, v2…) are ignored, so a gateway can add one before we support it.
  }
  if (timestampSeconds === null || signatures.length === 0) return null;
  return { timestampSeconds, signatures };
}

/** Hex HMAC-SHA256 of `"<timestampSeconds>." ‖ rawBody` under `secret`. */
export function gatewaySignatureOf(secret: string, timestampSeconds: number, rawBody: Uint8Array): string {
  const prefix = utf8ToBytes(`${timestampSeconds}.`);
  const message = new Uint8Array(prefix.length + rawBody.length);
  message.set(prefix, 0);
  message.set(rawBody, prefix.length);
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), message));
}

export type GatewaySignatureVerdict =
  | { ok: true }
  | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' | 'no-secret' };

/**
 * Whether `header` signs `rawBody` with one of `secrets` at a time within the replay window of
 * `nowMs`. Every (secret, v1) pair is compared in constant time.
 */
export function verifyGatewaySignature(
  header: string | null | undefined,
  rawBody: Uint8Array,
  secrets: readonly string[],
  nowMs: number,
): GatewaySignatureVerdict {
  const parsed = parseGatewaySignature(header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowMs / 1000 - parsed.timestampSeconds) > gatewayReplayWindowSeconds) {
    return { ok: false, reason: 'stale' };
  }
  if (secrets.length === 0) return { ok: false, reason: 'no-secret' };
  let matched = false;
  for (const secret of secrets) {
    const expected = gatewaySignatureOf(secret, parsed.timestampSeconds, rawBody);
    for (const candidate of parsed.signatures) matched = timingSafeEqualText(expected, candidate) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: 'mismatch' };
}
