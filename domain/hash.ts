/**
 * SHA-256 and HMAC-SHA256 in pure JavaScript (`@noble/hashes`), so the same code runs in the
 * API, activities and the workflow sandbox. Strings are hashed as UTF-8.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Lower-case hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** Raw HMAC-SHA256 of a UTF-8 message under a UTF-8 key. */
export function hmacSha256(key: string, message: string): Uint8Array {
  return hmac(sha256, utf8ToBytes(key), utf8ToBytes(message));
}

/** Lower-case hex HMAC-SHA256. */
export function hmacSha256Hex(key: string, message: string): string {
  return bytesToHex(hmacSha256(key, message));
}

/** Base64url (RFC 4648 §5, no padding) of bytes. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64url; returns null when the text is not base64url. */
export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Constant-time comparison of two equal-length strings (false when lengths differ). */
export function timingSafeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
