/**
 * Idempotency-Key on mutations (spec § Shared header rules; DESIGN §4). Mounted on each mutating
 * route after validation, so rejected requests are not stored. Replay of a completed request →
 * its original status and body with `x-served-from-cache: true`; a duplicate while the first
 * runs → 409 `idempotency.request.in.flight` with `Retry-After`; the key with another payload or
 * route → 422 `idempotency.key.payload.mismatch`; a 5xx releases the key. Without a key the
 * request runs once, unrecorded (the spec's server-generated key per attempt).
 */
import { routePath } from 'hono/route';
import { DomainError, fieldError } from '../../domain/errors';
import { requestFingerprint } from '../../domain/fingerprint';
import { factory } from '../env';
import { sendShapeA } from '../errors';

/** Response headers worth replaying. */
const replayedHeaders = ['location', 'content-type'];

/** The `Idempotency-Key` header, checked: 1 to 50 characters, one instance. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length < 1 || header.length > 50 || header.includes(',')) {
    throw new DomainError(
      'validation.msg.validation.errors.exist',
      'Idempotency-Key must be 1 to 50 characters.',
      {
        errors: [fieldError('header.Idempotency-Key', null, 'Idempotency-Key must be 1 to 50 characters.')],
      },
    );
  }
  return header;
}

/** The operation-level key that makes a retried create a no-op: `<clientId>/<Idempotency-Key>`. */
export function requestKeyOf(clientId: string, key: string | undefined): string | null {
  return key === undefined ? null : `${clientId}/${key}`;
}

export const idempotent = () =>
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
    const claim = await platform.claimIdempotencyKey({
      ...scope,
      routeTemplate,
      fingerprint: requestFingerprint({
        method: c.req.method,
        routeTemplate,
        pathParams: c.req.param(),
        body,
      }),
    });
    if (claim.kind === 'mismatch') {
      return sendShapeA(
        c,
        new DomainError(
          'idempotency.key.payload.mismatch',
          'This Idempotency-Key was already used with a different request.',
        ),
      );
    }
    if (claim.kind === 'in-flight') {
      return sendShapeA(
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
    if (claim.kind === 'replay') {
      return c.json(claim.body as object, claim.status as 200, {
        ...claim.headers,
        'x-served-from-cache': 'true',
      });
    }
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
    const text = await c.res.clone().text();
    const headers: Record<string, string> = {};
    for (const name of replayedHeaders) {
      const value = c.res.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    await platform.completeIdempotencyKey({
      ...scope,
      status: c.res.status,
      body: text ? JSON.parse(text) : null,
      headers,
    });
  });
