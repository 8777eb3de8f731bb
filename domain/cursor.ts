/**
 * Opaque paging cursors for keyset paging (docs/design.md §4 Paging, §5 Cursors; docs/design.md §4 Paging: "a cursor
 * belongs to one endpoint and one query, and a mismatching query can be rejected"; earlier cursors were
 * readable base64 holding the customer's name and were not bound to the tenant).
 *
 * Wire form: `base64url(IV ‖ ciphertext ‖ tag)`, AES-256-GCM (NIST SP 800-38D; `@noble/ciphers`, pure
 * JavaScript like `@noble/hashes`) of the JSON payload `{v: 2, r: route template, q: query hash, k: last
 * sort key, i: last id}`, with the additional authenticated data `paging-cursor/v2|<tenant>`. Keys come from
 * the configured cursor secret (`CURSOR_SIGNING_KEY`) by HKDF-SHA256 (RFC 5869), one for the cipher and one
 * for the IV. The IV is synthetic: the first 96 bits of HMAC-SHA256(IV key, AAD ‖ payload), so the function
 * stays pure and an IV repeats only for the very same cursor (which then repeats as a whole, revealing
 * nothing more). So a cursor reveals nothing of the rows it points after, and one that was altered, made
 * under another key, or issued to another tenant fails authentication (400 `validation.msg.validation.errors.exist`);
 * one of another route or query decrypts but is refused with 400 `validation.msg.cursor.query.mismatch`.
 */
import { gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import { DomainError, fieldError } from './errors';
import { fromBase64Url, sha256Hex, toBase64Url } from './hash';

/** Position after the last row of a page: its sort key (string form) and its id (decimal string). */
export interface CursorPosition {
  sortKey: string;
  id: string;
}

/** Query parameters that do not bind a cursor (the page size may change between pages). */
const unboundParams = new Set(['cursor', 'limit']);

const ivBytes = 12;
const tagBytes = 16;

/** Hash of the query parameters that a cursor is bound to (order-insensitive). */
export function queryHash(query: Record<string, string | undefined>): string {
  const bound: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && !unboundParams.has(name)) bound[name] = value;
  }
  return sha256Hex(canonicalize(bound) ?? '{}').slice(0, 32);
}

interface CursorKeys {
  cipher: Uint8Array;
  iv: Uint8Array;
}

const derivedKeys = new Map<string, CursorKeys>();

/** The AES-256 key and the IV key derived from the configured secret (HKDF-SHA256, cached per secret). */
function keysOf(secret: string): CursorKeys {
  let keys = derivedKeys.get(secret);
  if (!keys) {
    const salt = utf8ToBytes('lending-paging-cursor');
    keys = {
      cipher: hkdf(sha256, utf8ToBytes(secret), salt, utf8ToBytes('v2 aes-256-gcm key'), 32),
      iv: hkdf(sha256, utf8ToBytes(secret), salt, utf8ToBytes('v2 synthetic iv key'), 32),
    };
    if (derivedKeys.size > 16) derivedKeys.clear();
    derivedKeys.set(secret, keys);
  }
  return keys;
}

const aadOf = (tenantId: string): Uint8Array => utf8ToBytes(`paging-cursor/v2|${tenantId}`);

/**
 * Encodes an opaque cursor for `tenantId`, `route` (the route template) and `query` (its bound parameters),
 * positioned after `position`. `secret` is the configured cursor secret.
 */
export function encodeCursor(
  secret: string,
  tenantId: string,
  route: string,
  query: Record<string, string | undefined>,
  position: CursorPosition,
): string {
  const keys = keysOf(secret);
  const aad = aadOf(tenantId);
  const payload = utf8ToBytes(
    JSON.stringify({ v: 2, r: route, q: queryHash(query), k: position.sortKey, i: position.id }),
  );
  const iv = hmac(sha256, keys.iv, concatBytes(aad, new Uint8Array([0]), payload)).slice(0, ivBytes);
  const sealed = gcm(keys.cipher, iv, aad).encrypt(payload);
  return toBase64Url(concatBytes(iv, sealed));
}

function invalidCursor(
  cursor: string,
  message: string,
  code: 'validation.msg.validation.errors.exist' | 'validation.msg.cursor.query.mismatch',
) {
  return new DomainError(code, message, { errors: [fieldError('cursor', cursor, message, code)] });
}

/**
 * Decrypts and checks a cursor issued by `encodeCursor` for the same tenant, route and query. Throws
 * DomainError 400 `validation.msg.validation.errors.exist` when it is malformed, altered, made under another
 * secret or issued to another tenant, and 400 `validation.msg.cursor.query.mismatch` when it was issued for
 * another route or query.
 */
export function decodeCursor(
  secret: string,
  tenantId: string,
  route: string,
  query: Record<string, string | undefined>,
  cursor: string,
): CursorPosition {
  const malformed = () =>
    invalidCursor(cursor, 'The cursor is malformed.', 'validation.msg.validation.errors.exist');
  const bytes = fromBase64Url(cursor);
  if (!bytes || bytes.length < ivBytes + tagBytes + 1) throw malformed();
  const aad = aadOf(tenantId);
  let plain: Uint8Array;
  try {
    plain = gcm(keysOf(secret).cipher, bytes.slice(0, ivBytes), aad).decrypt(bytes.slice(ivBytes));
  } catch {
    throw invalidCursor(
      cursor,
      'The cursor is not one this service issued to this tenant.',
      'validation.msg.validation.errors.exist',
    );
  }
  let payload: { v?: unknown; r?: unknown; q?: unknown; k?: unknown; i?: unknown };
  try {
    payload = JSON.parse(new TextDecoder().decode(plain));
  } catch {
    throw malformed();
  }
  if (
    payload === null ||
    typeof payload !== 'object' ||
    payload.v !== 2 ||
    typeof payload.k !== 'string' ||
    typeof payload.i !== 'string'
  ) {
    throw malformed();
  }
  if (payload.r !== route || payload.q !== queryHash(query)) {
    throw invalidCursor(
      cursor,
      'The cursor was issued for another endpoint or query.',
      'validation.msg.cursor.query.mismatch',
    );
  }
  return { sortKey: payload.k, id: payload.i };
}
