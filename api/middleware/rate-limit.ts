/**
 * Rate limits per client and environment (production 100/s, sandbox 25/s, per-client overrides; search, export and
 * journal lists 20/s, Stripe's figures). Four policies:
 * - `default`: every bearer request (`/v1/*`), per client + environment, the client's
 *   `rateLimitPerSecond` or the environment's default (`RATE_LIMIT_PER_SECOND`);
 * - `search`: on top of `default`, portfolio search and journal-entry lists share one bucket per
 *   client + environment (`SEARCH_RATE_LIMIT_PER_SECOND`, default 20);
 * - `token`: `POST /oauth2/token`, per presented client id + environment, before the client is
 *   authenticated, so failed attempts count too (the environment's default rate);
 * - `token-source`: `POST /oauth2/token`, per source address (the TCP peer of the socket; IPv4-mapped IPv6 counted
 *   as its IPv4 address, other IPv6 addresses by their /64 prefix, RFC 4291 §2.5.4: one host commonly holds a whole
 *   /64), whatever client id is presented, so guessing unknown client ids is limited too
 *   (`tokenSourceRateLimitPerSecond`, default 10). No forwarded header is read: the service has no trusted-proxy
 *   setting, and a client-supplied `X-Forwarded-For` would let a caller pick its own bucket. Behind a proxy every
 *   caller shares the proxy's bucket (raise the limit there, or limit at the proxy). A request with no socket (an
 *   in-process `app.request`) has no source and is not limited by this policy.
 * Headers per the IETF RateLimit header fields draft (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "<policy>";q=<n>;w=1` and
 * `RateLimit: "<policy>";r=<remaining>;t=<seconds>`, one list item per policy that applied (default
 * first); an empty bucket answers 429 Shape A `error.msg.rate.limited` with `Retry-After` (seconds), or
 * Shape B `rate_limited` on a route that chose problem details (api/middleware/error-shape.ts).
 *
 * State: every bucket is a counter in PostgreSQL (db/rate-limits.ts, `rate-limiter-flexible`), shared by every API
 * process of the deployment, so the configured rate holds for the deployment whatever the number of processes. A
 * bucket admits `perSecond` requests per one-second window starting at its first request (the same rate and burst as
 * a token bucket of capacity `perSecond`; the allowance comes back whole at the window's end rather than
 * continuously). Cost: one database round trip per policy that applies to a request, none once a bucket is over its
 * limit (refused from memory until its window ends). If PostgreSQL cannot be reached, each process counts on its own.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Context } from 'hono';
import { rateLimitStoreOf } from '../../db/rate-limits';
import { DomainError } from '../../domain/errors';
import { type AppEnv, factory } from '../env';
import { sendError } from '../errors';
import { rateLimitRejectionsTotal, routeTemplateOf } from '../metrics';
import { basicCredentials } from './auth';

/**
 * Default of `tokenSourceRateLimitPerSecond`: token requests per second (and burst) from one source address. A
 * workload caches its token for most of its 3600 s lifetime (docs/integrating.md "The typed client"), so even many workloads behind
 * one address ask far less often; a guesser gets 10 attempts a second.
 */
export const defaultTokenSourceRateLimitPerSecond = 10;

/**
 * The source address of the request as the bucket key of `token-source` (module note), or null when the request came
 * through no socket. Reads `@hono/node-server`'s bindings (`c.env.incoming.socket`, as its `getConnInfo` does).
 */
export function sourceAddressOf(c: Context<AppEnv>): string | null {
  const bindings = c.env as
    | {
        incoming?: { socket?: { remoteAddress?: string } };
        server?: { incoming?: { socket?: { remoteAddress?: string } } };
      }
    | undefined;
  const address = (bindings?.server ?? bindings)?.incoming?.socket?.remoteAddress;
  return address ? sourceKeyOf(address) : null;
}

/**
 * The bucket of a peer address: IPv4 as is; IPv4-mapped IPv6 (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2) as its IPv4
 * address; other IPv6 by its /64 prefix (`2001:db8:0:1::/64`), zone id dropped.
 */
export function sourceKeyOf(address: string): string {
  const lower = address.toLowerCase().replace(/%.*$/, '');
  if (isIPv4(lower) || !isIPv6(lower)) return lower;
  const groups = ipv6Groups(lower);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = dotted
    ? `${address.slice(0, dotted.index)}${((Number(dotted[1]) << 8) | Number(dotted[2])).toString(16)}:${((Number(dotted[3]) << 8) | Number(dotted[4])).toString(16)}`
    : address;
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map((g) => Number.parseInt(g, 16));
}

/** Default of `searchRateLimitPerSecond`: search, export and journal lists 20 req/s. */
export const defaultSearchRateLimitPerSecond = 20;

/** Adds `value` as the first item of the list header `name` (outer policies come first). */
function prependListHeader(res: Response, name: string, value: string): void {
  const existing = res.headers.get(name);
  res.headers.set(name, existing ? `${value}, ${existing}` : value);
}

/**
 * A middleware limiting by `policy`: `bucketOf` names the bucket and its rate (null: not limited).
 * It takes a token before the handler, answers 429 when the bucket is empty, and adds its policy's
 * headers to whatever answer goes out.
 */
function limiter(
  policy: string,
  bucketOf: (c: Context<AppEnv>) => { key: string; perSecond: number } | null,
  extraHeaders: Record<string, string> = {},
) {
  return factory.createMiddleware(async (c, next) => {
    const bucket = bucketOf(c);
    if (!bucket) return next();
    const result = await rateLimitStoreOf(c.get('deps').db).take(bucket.key, bucket.perSecond);
    const policyHeader = `"${policy}";q=${bucket.perSecond};w=1`;
    const stateHeader = `"${policy}";r=${result.remaining};t=${result.resetSeconds}`;
    if (!result.allowed) {
      rateLimitRejectionsTotal.inc({ policy, route: routeTemplateOf(c) });
      c.res = sendError(
        c,
        new DomainError('error.msg.rate.limited', 'Too many requests; retry later.', {
          retryAfterSeconds: result.resetSeconds,
        }),
        extraHeaders,
      );
    } else {
      await next();
    }
    prependListHeader(c.res, 'RateLimit-Policy', policyHeader);
    prependListHeader(c.res, 'RateLimit', stateHeader);
    return c.res;
  });
}

/** Every bearer request, per client and environment (after `authenticate`). */
export const rateLimit = limiter('default', (c) => {
  const auth = c.get('auth');
  return {
    key: `${auth.clientId}:${auth.environment}`,
    perSecond: auth.rateLimitPerSecond ?? c.get('deps').config.rateLimitPerSecond,
  };
});

/** Portfolio search, journal-entry lists and exports: one more bucket per client (after `rateLimit`). */
export const searchRateLimit = limiter('search', (c) => {
  const auth = c.get('auth');
  return {
    key: `search:${auth.clientId}:${auth.environment}`,
    perSecond: c.get('deps').config.searchRateLimitPerSecond ?? defaultSearchRateLimitPerSecond,
  };
});

/**
 * `POST /oauth2/token`, per source address (module note), every attempt counted, readable credentials or not; mounted
 * before `tokenRateLimit`, so a source over its limit spends no client id's tokens.
 */
export const tokenSourceRateLimit = limiter(
  'token-source',
  (c) => {
    if (c.req.method !== 'POST') return null;
    const source = sourceAddressOf(c);
    if (source === null) return null;
    const { config } = c.get('deps');
    return {
      key: `token-source:${source}:${config.environment}`,
      perSecond: config.tokenSourceRateLimitPerSecond ?? defaultTokenSourceRateLimitPerSecond,
    };
  },
  { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
);

/**
 * `POST /oauth2/token`, per client id of the HTTP Basic header (authenticated or not) and
 * environment, at the environment's default rate. Without a readable Basic header the route
 * answers 401 at once, without touching the database, so nothing is limited.
 */
export const tokenRateLimit = limiter(
  'token',
  (c) => {
    if (c.req.method !== 'POST') return null;
    const credentials = basicCredentials(c.req.header('authorization'));
    if (!credentials) return null;
    const { config } = c.get('deps');
    return {
      key: `token:${credentials.clientId}:${config.environment}`,
      perSecond: config.rateLimitPerSecond,
    };
  },
  { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
);
