/**
 * Token-bucket rate limit per client and environment (DESIGN §5 Rate limits: production 100/s,
 * sandbox 25/s, per-client overrides). Headers per the IETF RateLimit header fields draft:
 * `RateLimit-Policy: "default";q=<n>;w=1` and `RateLimit: "default";r=<remaining>;t=<seconds>`;
 * an empty bucket answers 429 `error.msg.rate.limited` with `Retry-After`.
 */
import { DomainError } from '../../domain/errors';
import { factory } from '../env';
import { sendShapeA } from '../errors';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const buckets = new Map<string, Bucket>();

/** Takes one token from the bucket of `key` (capacity and refill both `perSecond`). */
export function takeToken(
  key: string,
  perSecond: number,
  nowMs: number,
): { allowed: boolean; remaining: number; resetSeconds: number } {
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

export const rateLimit = factory.createMiddleware(async (c, next) => {
  const auth = c.get('auth');
  const perSecond = auth.rateLimitPerSecond ?? c.get('deps').config.rateLimitPerSecond;
  const result = takeToken(`${auth.clientId}:${auth.environment}`, perSecond, Date.now());
  const headers = {
    'RateLimit-Policy': `"default";q=${perSecond};w=1`,
    RateLimit: `"default";r=${result.remaining};t=${result.resetSeconds}`,
  };
  if (!result.allowed) {
    return sendShapeA(
      c,
      new DomainError('error.msg.rate.limited', 'Too many requests; retry later.', {
        retryAfterSeconds: result.resetSeconds,
      }),
      headers,
    );
  }
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});
