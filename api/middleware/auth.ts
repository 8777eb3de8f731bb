/**
 * Bearer authentication, tenant selection and scope/permission guards (docs/design.md §4 "Scopes and permissions",
 * docs/integrating.md "The API"; docs/design.md §4 Tokens). Order: token (401) → `Service-Tenant` header (400) →
 * the token's tenant (403) → the matched route's scope and permission (403, `authorizeRoute`, before any input is
 * validated). Routes marked `tenantFromToken` take the
 * token's tenant and need no header. Errors go out in the route's shape (`sendError`: Shape A, or Shape B
 * where the route chose it). Tokens are found by SHA-256
 * digest through the app's token-grant cache (`deps.tokenGrants`, api/token-cache.ts), over
 * one indexed query that also reads the client's state (`findTokenGrant`). The bound: a disabled
 * client's tokens (or a token updated or deleted) are refused by every API process as soon as the
 * `credential_changes` notification arrives (milliseconds; at once in the process that made the change),
 * and within `TOKEN_CACHE_TTL_MS` (default 5 s) of the change in the worst case; a token past its
 * `expiresAt` is refused even when cached. Tokens never reach a log.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { credentialPrefix, type Permission, type Scope } from '../../domain/auth';
import { DomainError, fieldError } from '../../domain/errors';
import { unstorableCharacter } from '../../domain/validation/fields';
import { type AppEnv, factory } from '../env';
import { bearerChallenge, sendError } from '../errors';

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
  // The digest the token is stored under (domain/hash.ts `sha256Hex`, the same lower-case hex SHA-256), computed by
  // Node's native hash: it runs on every bearer request, where the pure-JavaScript one cost about 1% of the CPU.
  const grant = await c.get('deps').tokenGrants.find(createHash('sha256').update(token).digest('hex'));
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
 * Marks the route as one whose tenant the token selects (docs/integrating.md "Routes, scopes and permissions": the AI session
 * output routes take the token's tenant; docs/design.md §4 Tokens: credentials belong to one tenant): `authenticate` then takes the
 * token's tenant. `Service-Tenant` stays optional there; when sent it must be well formed (else 400, or 422 in
 * Shape B) and name the token's tenant (else 403), as on every other route: the header never selects another
 * tenant, and a caller that names one learns of the mismatch instead of writing into the token's tenant
 * unawares. Mounted before `authenticate`.
 */
export const tenantFromToken = factory.createMiddleware(async (c, next) => {
  c.set('tenantSelection', 'token');
  await next();
});

/**
 * What a route demands of the token: a scope, and a permission unless the permission is named by the resource the
 * route acts on (then `null`, and the route checks it once it has read the resource, still before the body).
 */
export interface RouteAccess {
  scope: Scope;
  permission: Permission | null;
}

/** How a route's guard decides its access: fixed, or from the request line (e.g. `POST /v1/loans?command=`). */
export type AccessRule = (c: Context<AppEnv>) => RouteAccess;

/** The property a guard middleware carries its rule under, read by `authorizeRoute`. */
const accessRuleKey = Symbol.for('lending.accessRule');
/** Hono's name for the handler a sub-app's route wraps (hono/utils/constants `COMPOSED_HANDLER`). */
const composedHandlerKey = '__COMPOSED_HANDLER';

type Guarded = { [accessRuleKey]?: AccessRule; [composedHandlerKey]?: Guarded };

/** The 403 (Shape A, or the route's Shape B) when the token lacks what `access` demands; null when it holds it. */
function refusalOf(c: Context<AppEnv>, access: RouteAccess): Response | null {
  const auth = c.get('auth');
  if (!auth.scopes.includes(access.scope)) {
    const err = new DomainError('error.msg.not.authorized', `The token lacks the scope ${access.scope}.`);
    return sendError(c, err, { 'WWW-Authenticate': bearerChallenge(err, access.scope) });
  }
  if (access.permission !== null && !holdsPermission(auth.permissions, access.permission)) {
    const err = new DomainError(
      'error.msg.not.authorized',
      `The client lacks the permission ${access.permission}.`,
    );
    return sendError(c, err, { 'WWW-Authenticate': bearerChallenge(err) });
  }
  return null;
}

/** Whether a client's `permissions` (names, or `ALL`) grant `permission`. */
export function holdsPermission(permissions: readonly string[], permission: string): boolean {
  return permissions.includes('ALL') || permissions.includes(permission);
}

/**
 * A route guard deciding access by `rule` (403 when refused; retrying does not help; docs/design.md §4 "Scopes and permissions").
 * The rule is also found and applied by `authorizeRoute` before any input of the request is read, so the order of a
 * route's middleware cannot put validation (400) ahead of authorization (403).
 */
export function guard(rule: AccessRule) {
  const middleware = factory.createMiddleware(async (c, next) => {
    const refused = refusalOf(c, rule(c));
    if (refused) return refused;
    await next();
  });
  return Object.assign(middleware, { [accessRuleKey]: rule });
}

/** Requires `scope` and `permission` on the token (403 otherwise; retrying does not help). */
export function requires(scope: Scope, permission: Permission) {
  return guard(() => ({ scope, permission }));
}

/**
 * Requires `scope` only: for routes whose permission is named by the resource they act on (hardship approvals: the
 * program's `humanApprovalPermission`); the route checks that permission before it reads the body.
 */
export function requiresScope(scope: Scope) {
  return guard(() => ({ scope, permission: null }));
}

/**
 * Applies the guard rules of the matched route (`guard`, `requires`, `requiresScope`) right after authentication
 * and before any input is validated (docs/design.md §4 "Scopes and permissions": 403 when lacking scope or permission; docs/design.md §4 Errors: 400
 * is for a request understood but rejected): a token without the route's scope or permission gets 403 whatever its
 * path, query, headers or body hold. Mounted once for every bearer route (api/app.ts), ahead of `storableInput`.
 * A path no route serves passes through (404 / 405 follow).
 */
export const authorizeRoute = factory.createMiddleware(async (c, next) => {
  for (const route of matchedRoutes(c)) {
    const handler = route.handler as Guarded;
    const rule = handler[accessRuleKey] ?? handler[composedHandlerKey]?.[accessRuleKey];
    if (!rule) continue;
    const refused = refusalOf(c, rule(c));
    if (refused) return refused;
  }
  await next();
});

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
    // No client id or secret holds text PostgreSQL cannot store: such a pair is no credential.
    if (unstorableCharacter(clientId) || unstorableCharacter(clientSecret)) return null;
    return { clientId, clientSecret };
  } catch {
    return null;
  }
}
