/**
 * Token-bucket rate limits (DESIGN §5 Rate limits: per client and environment, production 100/s,
 * sandbox 25/s, per-client overrides; search, export and journal lists 20/s). Three policies:
 * - `default`: every bearer request (`/v1/*`), per client + environment, the client's
 *   `rateLimitPerSecond` or the environment's default (`RATE_LIMIT_PER_SECOND`);
 * - `search`: on top of `default`, portfolio search and journal-entry lists share one bucket per
 *   client + environment (`SEARCH_RATE_LIMIT_PER_SECOND`, default 20);
 * - `token`: `POST /oauth2/token`, per presented client id + environment, before the client is
 *   authenticated, so failed attempts count too (the environment's default rate).
 * Headers per the IETF RateLimit header fields draft: `RateLimit-Policy: "<policy>";q=<n>;w=1` and
 * `RateLimit: "<policy>";r=<remaining>;t=<seconds>`, one list item per policy that applied (default
 * first); an empty bucket answers 429 Shape A `error.msg.rate.limited` with `Retry-After` (seconds), or
 * Shape B `rate_limited` on a route that chose problem details (api/middleware/error-shape.ts).
 *
 * State: the buckets live in this process's memory (a limit applies per API process; N replicas let a
 * client through up to N times the rate). Buckets idle for a second are full and are forgotten when
 * more than `maxTrackedBuckets` exist, so unknown client ids sent to the token endpoint cannot grow
 * memory without bound.
 */
import type { Context } from 'hono';
import { DomainError } from '../../domain/errors';
import { type AppEnv, factory } from '../env';
import { sendError } from '../errors';
import { rateLimitRejectionsTotal, routeTemplateOf } from '../metrics';
import { basicCredentials } from './auth';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Above this many buckets, idle (hence full) ones are dropped, at most once a second. */
const maxTrackedBuckets = 50_000;
const buckets = new Map<string, Bucket>();
let lastSweepMs = 0;

function sweep(nowMs: number): void {
  if (buckets.size <= maxTrackedBuckets || nowMs - lastSweepMs < 1000) return;
  lastSweepMs = nowMs;
  // Capacity equals the refill per second: a bucket untouched for 1 s is full, as good as absent.
  for (const [key, bucket] of buckets) if (nowMs - bucket.updatedMs >= 1000) buckets.delete(key);
}

/** Number of buckets held (tests). */
export function trackedBuckets(): number {
  return buckets.size;
}

/** Takes one token from the bucket of `key` (capacity and refill both `perSecond`). */
export function takeToken(
  key: string,
  perSecond: number,
  nowMs: number,
): { allowed: boolean; remaining: number; resetSeconds: number } {
  sweep(nowMs);
  const bucket = buckets.get(key) ?? { tokens: perSecond, updatedMs: nowMs };
  bucket.tokens = Math.min(perSecond, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * perSecond);
  bucket.updatedMs = nowMs;
  const allowed = bucket.tokens >= 1;
  if (allowed) bucket.tokens -= 1;
  buckets.set(key, bucket);
  const missing = perSecond - bucket.tokens;
  return {
    allowed,
    remaining: Math.floor(bucket.tokens),
    resetSeconds: allowed
      ? Math.ceil(missing / perSecond)
      : Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)),
  };
}

/** Default of `searchRateLimitPerSecond` (DESIGN §5: search, export and journal lists 20 req/s). */
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
    const result = takeToken(bucket.key, bucket.perSecond, Date.now());
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
