/**
 * Bearer authentication, tenant selection and scope/permission guards (spec § Authentication,
 * § Shared header rules; DESIGN §4 Tokens). Order: token (401) → `Service-Tenant` header (400) →
 * the token's tenant (403) → per route, scope and permission (403). Routes marked `tenantFromToken` take the
 * token's tenant and need no header. Errors go out in the route's shape (`sendError`: Shape A, or Shape B
 * where the route chose it). Tokens are found by SHA-256
 * digest through the app's token-grant cache (`deps.tokenGrants`, api/token-cache.ts; issue 13), over
 * one indexed query that also reads the client's state (`findTokenGrant`). The bound: a disabled
 * client's tokens (or a token updated or deleted) are refused by every API process as soon as the
 * `credential_changes` notification arrives (milliseconds; at once in the process that made the change),
 * and within `TOKEN_CACHE_TTL_MS` (default 5 s) of the change in the worst case; a token past its
 * `expiresAt` is refused even when cached. Tokens never reach a log.
 */
import type { Context } from 'hono';
import { credentialPrefix, type Permission, type Scope } from '../../domain/auth';
import { DomainError, fieldError } from '../../domain/errors';
import { sha256Hex } from '../../domain/hash';
import { type AppEnv, factory } from '../env';
import { bearerChallenge, sendError } from '../errors';
import { unstorableCharacter } from '../validation';

const tenantPattern = /^[a-z0-9-]{1,64}$/;

function unauthenticated(c: Context<AppEnv>, message: string): Response {
  const err = new DomainError('error.msg.not.authenticated', message);
  return sendError(c, err, { 'WWW-Authenticate': bearerChallenge(err) });
}

/** Resolves the bearer token and the tenant; sets `auth` and `tenantId`. */
export const authenticate = factory.createMiddleware(async (c, next) => {
  const header = c.req.header('authorization');
  // The scheme name is case-insensitive (RFC 7235 §2.1); the token is not.
  const match = header ? /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header) : null;
  if (!match?.[1]) return unauthenticated(c, 'A bearer token is required.');
  const token = match[1];
  const environment = c.get('deps').config.environment;
  if (!token.startsWith(credentialPrefix('at', environment))) {
    return unauthenticated(c, 'The token is malformed or belongs to another environment.');
  }
  const grant = await c.get('deps').tokenGrants.find(sha256Hex(token));
  if (!grant || grant.environment !== environment)
    return unauthenticated(c, 'The token is unknown or revoked.');
  if (grant.expiresAt.getTime() <= Date.now()) return unauthenticated(c, 'The token has expired.');

  const tenantHeaders = c.req.raw.headers.get('service-tenant');
  const tokenSelects = c.get('tenantSelection') === 'token';
  // Headers.get joins repeated headers with ", ": more than one instance never matches the pattern.
  if (
    (tenantHeaders === null && !tokenSelects) ||
    (tenantHeaders !== null && !tenantPattern.test(tenantHeaders))
  ) {
    const message =
      tenantHeaders === null
        ? 'The Service-Tenant header is required.'
        : 'Service-Tenant must appear once and be 1 to 64 lowercase letters, digits or hyphens.';
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [fieldError('header.Service-Tenant', tenantHeaders, message)],
    });
  }
  c.set('auth', {
    clientId: grant.clientId,
    tenantId: grant.tenantId,
    environment: grant.environment,
    scopes: grant.scopes,
    permissions: grant.permissions,
    rateLimitPerSecond: grant.rateLimitPerSecond,
  });
  if (tenantHeaders !== null && tenantHeaders !== grant.tenantId) {
    const err = new DomainError('error.msg.not.authorized', 'The token is not entitled to this tenant.');
    return sendError(c, err, { 'WWW-Authenticate': bearerChallenge(err) });
  }
  c.set('tenantId', grant.tenantId);
  await next();
});

/**
 * Marks the route as one whose tenant the token selects (spec § Endpoints: "no tenant header is shown" on the AI
 * session outputs call; § Authentication 1: credentials belong to one tenant): `authenticate` then takes the
 * token's tenant. `Service-Tenant` stays optional there; when sent it must be well formed (else 400, or 422 in
 * Shape B) and name the token's tenant (else 403), as on every other route: the header never selects another
 * tenant, and a caller that names one learns of the mismatch instead of writing into the token's tenant
 * unawares. Mounted before `authenticate`.
 */
export const tenantFromToken = factory.createMiddleware(async (c, next) => {
  c.set('tenantSelection', 'token');
  await next();
});

/** Requires `scope` and `permission` on the token (403 otherwise; retrying does not help). */
export function requires(scope: Scope, permission: Permission) {
  return factory.createMiddleware(async (c, next) => {
    const auth = c.get('auth');
    if (!auth.scopes.includes(scope)) {
      const err = new DomainError('error.msg.not.authorized', `The token lacks the scope ${scope}.`);
      return sendError(c, err, { 'WWW-Authenticate': bearerChallenge(err, scope) });
    }
    if (!auth.permissions.includes('ALL') && !auth.permissions.includes(permission)) {
      const err = new DomainError(
        'error.msg.not.authorized',
        `The client lacks the permission ${permission}.`,
      );
      return sendError(c, err, { 'WWW-Authenticate': bearerChallenge(err) });
    }
    await next();
  });
}

/**
 * The client id and secret of an HTTP Basic `Authorization` header (RFC 7617; RFC 6749 §2.3.1: both
 * form-urlencoded before encoding), or null when absent or unreadable.
 */
export function basicCredentials(
  header: string | undefined,
): { clientId: string; clientSecret: string } | null {
  const match = header ? /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header) : null;
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return null;
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon));
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1));
    // No client id or secret holds text PostgreSQL cannot store (issue 14): such a pair is no credential.
    if (unstorableCharacter(clientId) || unstorableCharacter(clientSecret)) return null;
    return { clientId, clientSecret };
  } catch {
    return null;
  }
}
