/**
 * Opaque, signed paging cursors for keyset paging (DESIGN.md §4 Paging, §5 Cursors; spec § Limits:
 * "a cursor belongs to one endpoint and one query, and a mismatching query can be rejected").
 *
 * Wire form: `<base64url(JSON payload)>.<base64url(HMAC-SHA256(key, payload))>`, payload
 * `{v: 1, r: route template, q: query hash, k: last sort key, i: last id}`.
 */
import canonicalize from 'canonicalize';
import { DomainError, fieldError } from './errors';
import { fromBase64Url, hmacSha256, sha256Hex, timingSafeEqualText, toBase64Url } from './hash';

/** Position after the last row of a page: its sort key (string form) and its id (decimal string). */
export interface CursorPosition {
  sortKey: string;
  id: string;
}

/** Query parameters that do not bind a cursor (the page size may change between pages). */
const unboundParams = new Set(['cursor', 'limit']);

/** Hash of the query parameters that a cursor is bound to (order-insensitive). */
export function queryHash(query: Record<string, string | undefined>): string {
  const bound: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && !unboundParams.has(name)) bound[name] = value;
  }
  return sha256Hex(canonicalize(bound) ?? '{}').slice(0, 32);
}

/** Encodes a signed cursor for `route` (the route template) and `query`. */
export function encodeCursor(
  signingKey: string,
  route: string,
  query: Record<string, string | undefined>,
  position: CursorPosition,
): string {
  const payload = JSON.stringify({
    v: 1,
    r: route,
    q: queryHash(query),
    k: position.sortKey,
    i: position.id,
  });
  const body = toBase64Url(new TextEncoder().encode(payload));
  return `${body}.${toBase64Url(hmacSha256(signingKey, body))}`;
}

function invalidCursor(
  cursor: string,
  message: string,
  code: 'validation.msg.validation.errors.exist' | 'validation.msg.cursor.query.mismatch',
) {
  return new DomainError(code, message, { errors: [fieldError('cursor', cursor, message, code)] });
}

/**
 * Verifies and decodes a cursor. Throws DomainError 400 `validation.msg.validation.errors.exist`
 * when it is malformed or its signature is wrong, and 400 `validation.msg.cursor.query.mismatch`
 * when it was issued for another route or query.
 */
export function decodeCursor(
  signingKey: string,
  route: string,
  query: Record<string, string | undefined>,
  cursor: string,
): CursorPosition {
  const [body, signature, ...rest] = cursor.split('.');
  if (!body || !signature || rest.length > 0)
    throw invalidCursor(cursor, 'The cursor is malformed.', 'validation.msg.validation.errors.exist');
  if (!timingSafeEqualText(signature, toBase64Url(hmacSha256(signingKey, body)))) {
    throw invalidCursor(
      cursor,
      'The cursor is not one this service issued.',
      'validation.msg.validation.errors.exist',
    );
  }
  const bytes = fromBase64Url(body);
  let payload: { v?: unknown; r?: unknown; q?: unknown; k?: unknown; i?: unknown };
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes ?? new Uint8Array()));
  } catch {
    throw invalidCursor(cursor, 'The cursor is malformed.', 'validation.msg.validation.errors.exist');
  }
  if (payload.v !== 1 || typeof payload.k !== 'string' || typeof payload.i !== 'string') {
    throw invalidCursor(cursor, 'The cursor is malformed.', 'validation.msg.validation.errors.exist');
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
