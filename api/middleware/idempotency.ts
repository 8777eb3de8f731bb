/**
 * Idempotency-Key on mutations (docs/design.md §4 Idempotency-Key). Mounted on each mutating
 * route after validation, so rejected requests are not stored. Replay of a completed request →
 * its original status and body with `x-served-from-cache: true`; a duplicate while the first
 * runs → 409 `idempotency.request.in.flight` with `Retry-After`; the key with another payload or
 * route → 422 `idempotency.key.payload.mismatch`; a 5xx releases the key. Without a key the
 * request runs once, unrecorded (the spec's server-generated key per attempt). On a route that chose problem
 * details (api/middleware/error-shape.ts) these answers are Shape B: 409 `request_in_flight`, 422
 * `idempotency_key_mismatch`.
 */
import type { Context } from 'hono';
import { routePath } from 'hono/route';
import { type ClaimOutcome, IdempotencyClaimRefused } from '../../activities/platform/idempotency';
import { DomainError, type FieldError, fieldError } from '../../domain/errors';
import { requestFingerprint } from '../../domain/fingerprint';
import { hmacSha256Hex } from '../../domain/hash';
import { findSensitiveData, sensitiveDataMessage } from '../../domain/sensitive-data';
import { type AppEnv, factory } from '../env';
import { sendError } from '../errors';
import { idempotentReplaysTotal, routeLabelOf } from '../metrics';

/** Response headers worth replaying. */
const replayedHeaders = ['location', 'content-type', 'cache-control'];

/**
 * What an `Idempotency-Key` may hold (docs/integrating.md "The API": 1 to 50 characters, one instance):
 * printable ASCII, U+0020 to U+007E, no leading or trailing space, and no comma, because a comma is how HTTP
 * joins repeated header lines (RFC 9110 §5.3), so a key with one cannot be told from a header sent twice.
 * Anything else (control characters, NUL, non-ASCII, and so the UTF-8 bytes of a lone surrogate) is refused.
 */
const idempotencyKeyPattern = /^[\x21-\x2b\x2d-\x7e](?:[\x20-\x2b\x2d-\x7e]{0,48}[\x21-\x2b\x2d-\x7e])?$/;

/** The sentence that says exactly what an Idempotency-Key may be (pattern above). */
export const idempotencyKeyRule =
  'Idempotency-Key must be 1 to 50 printable ASCII characters (letters, digits, spaces inside, and punctuation other than a comma), sent once; a UUID is a good key.';

/**
 * Why `header` is not an acceptable Idempotency-Key, as the field error to answer with (its value never echoed),
 * or null when it is acceptable or absent: the character rule above, then no government identifier or account
 * number (docs/lending.md "Lending core"; domain/sensitive-data.ts).
 */
export function idempotencyKeyError(header: string | undefined): FieldError | null {
  if (header === undefined) return null;
  if (!idempotencyKeyPattern.test(header)) {
    const problem =
      header.length === 0 || header.length > 50
        ? `It has ${header.length} characters.`
        : header.includes(',')
          ? 'It contains a comma (or the header was sent more than once).'
          : header.trim() !== header
            ? 'It starts or ends with a space.'
            : 'It contains a character outside printable ASCII.';
    return fieldError('header.Idempotency-Key', null, `${idempotencyKeyRule} ${problem}`);
  }
  const sensitive = findSensitiveData(header);
  if (sensitive !== null) {
    return fieldError(
      'header.Idempotency-Key',
      null,
      `Idempotency-Key ${sensitiveDataMessage(sensitive)} Use a random value such as a UUID.`,
    );
  }
  return null;
}

/**
 * The `Idempotency-Key` header, checked (`idempotencyKeyError`): a key that breaks the rule → 400 naming
 * `header.Idempotency-Key` with a message saying exactly what is allowed, without echoing the key.
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  const error = idempotencyKeyError(header);
  if (error !== null) {
    throw new DomainError('validation.msg.validation.errors.exist', error.developerMessage, {
      errors: [error],
    });
  }
  return header;
}

/**
 * The body as fingerprinted: each top-level field named in `fields` (a government identifier) is
 * replaced by a keyed HMAC, so the stored fingerprint cannot be brute-forced back to the value.
 */
function blinded(body: unknown, fields: readonly string[], key: string): unknown {
  if (fields.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of fields) {
    const value = copy[field];
    if (typeof value === 'string')
      copy[field] = `hmac:${hmacSha256Hex(key, `idempotency-fingerprint|${field}|${value}`)}`;
  }
  return copy;
}

/** The operation-level key that makes a retried create a no-op: `<clientId>/<Idempotency-Key>`. */
export function requestKeyOf(clientId: string, key: string | undefined): string | null {
  return key === undefined ? null : `${clientId}/${key}`;
}

/**
 * The idempotency middleware. `blindFields`: top-level body fields holding government identifiers,
 * fingerprinted through a keyed HMAC (under the configured cursor-signing secret) instead of as is.
 * `sealedResponseFields`: top-level response fields holding a secret shown once (a webhook
 * `signingSecret`), stored encrypted in the key store and decrypted for the replay.
 */
export const idempotent = (
  options: {
    blindFields?: readonly string[];
    sealedResponseFields?: readonly string[];
    /**
     * Claim the key inside the handler's first tenant transaction instead of in a transaction of its own before the
     * handler (activities/platform/idempotency.ts `claimIdempotencyKeyWith`): one statement instead of two round
     * trips, the claim committing or rolling back with the operation's rows. Only for a handler whose first
     * effect is that transaction (its operation; no Temporal call or other write before it): a duplicate then
     * waits for the first request's transaction and answers as before (409 while the first runs, the replay once
     * it is stored, 422 for another payload). An operation that fails with a 4xx stores its answer afterwards
     * (`storeUnclaimedIdempotentResponse`); a 5xx stores nothing.
     */
    claimInOperation?: boolean;
  } = {},
) =>
  factory.createMiddleware(async (c, next) => {
    const key = idempotencyKeyOf(c.req.header('idempotency-key'));
    if (key === undefined) return next();
    const { platform } = c.get('deps');
    const auth = c.get('auth');
    const routeTemplate = routePath(c, -1);
    const body = c.req.header('content-type') ? await c.req.json().catch(() => undefined) : undefined;
    const scope = {
      tenantId: c.get('tenantId'),
      environment: auth.environment,
      clientId: auth.clientId,
      key,
    };
    const request = {
      ...scope,
      routeTemplate,
      fingerprint: requestFingerprint({
        method: c.req.method,
        routeTemplate,
        pathParams: c.req.param(),
        body: blinded(body, options.blindFields ?? [], c.get('deps').config.cursorSigningKey),
      }),
    };
    if (options.claimInOperation) {
      const { committed, error } = await platform.claimIdempotencyKeyWith(request, next);
      const refused = [c.error, error].find((each) => each instanceof IdempotencyClaimRefused);
      if (refused) {
        // 409 in flight and 422 mismatch are already answered (the app's error handler); a replay is answered here.
        if (refused.outcome.kind === 'replay') c.res = replayOf(c, refused.outcome, routeTemplate);
        else if (error !== undefined) return sendError(c, refused);
        return;
      }
      if (error !== undefined) {
        if (committed) await platform.releaseIdempotencyKey(scope);
        throw error;
      }
      if (c.res.status >= 500) {
        if (committed) await platform.releaseIdempotencyKey(scope);
        return;
      }
      const response = await storedResponseOf(c.res);
      const sealedFields = options.sealedResponseFields ?? [];
      if (committed) await platform.completeIdempotencyKey({ ...scope, ...response, sealedFields });
      else await platform.storeUnclaimedIdempotentResponse({ ...request, ...response, sealedFields });
      return;
    }
    const claim = await platform.claimIdempotencyKey(request);
    if (claim.kind === 'mismatch') {
      return sendError(
        c,
        new DomainError(
          'idempotency.key.payload.mismatch',
          'This Idempotency-Key was already used with a different request.',
        ),
      );
    }
    if (claim.kind === 'in-flight') {
      return sendError(
        c,
        new DomainError(
          'idempotency.request.in.flight',
          'A request with this Idempotency-Key is still being processed.',
          {
            retryAfterSeconds: claim.retryAfterSeconds,
          },
        ),
      );
    }
    if (claim.kind === 'replay') return replayOf(c, claim, routeTemplate);
    try {
      await next();
    } catch (err) {
      await platform.releaseIdempotencyKey(scope);
      throw err;
    }
    if (c.res.status >= 500) {
      await platform.releaseIdempotencyKey(scope);
      return;
    }
    await platform.completeIdempotencyKey({
      ...scope,
      ...(await storedResponseOf(c.res)),
      sealedFields: options.sealedResponseFields ?? [],
    });
  });

/** The replay of a completed key: its stored status, text (byte for byte, never re-serialised) and headers. */
function replayOf(
  c: Context<AppEnv>,
  replay: Extract<ClaimOutcome, { kind: 'replay' }>,
  routeTemplate: string,
): Response {
  idempotentReplaysTotal.inc({ route: routeLabelOf([{ method: c.req.method, path: routeTemplate }]) });
  const headers = { ...replay.headers, 'x-served-from-cache': 'true' };
  return replay.body === null
    ? c.body(null, replay.status as 200, headers)
    : c.body(replay.body, replay.status as 200, headers);
}

/** What the key store keeps of `res`: status, text (null when empty) and the headers worth replaying. */
async function storedResponseOf(
  res: Response,
): Promise<{ status: number; body: string | null; headers: Record<string, string> }> {
  const text = await res.clone().text();
  const headers: Record<string, string> = {};
  for (const name of replayedHeaders) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: res.status, body: text === '' ? null : text, headers };
}
