/**
 * The counters behind the API's rate limits (api/middleware/rate-limit.ts), kept in PostgreSQL
 * (`rate_limit_counters`, migration 0056_create_rate_limit_counters) so that a limit holds for the whole deployment:
 * every API process counts a client's requests in the same row, and N processes let a client through at its
 * configured rate, not N times it.
 *
 * The counting is `rate-limiter-flexible`'s `RateLimiterDrizzle`: a fixed window of one second per bucket key, at
 * most `perSecond` requests in it, counted by one atomic `INSERT … ON CONFLICT DO UPDATE … RETURNING` (one database
 * round trip per limited request and policy). The window starts with the bucket's first request and ends one second
 * later on the clock of the API process that started it (processes are expected to share a clock to well under a
 * second, as NTP gives); the row is then reset by the next request. Rows expired for an hour are deleted by the
 * library's sweep (every 5 minutes, per process).
 *
 * Once a bucket is over its limit, this process refuses it from memory until the window ends (`inMemoryBlockOnConsumed`),
 * so a client hammering past its limit costs no further round trips. When PostgreSQL cannot be reached the counting
 * falls back to this process's memory (`insuranceLimiter`: the same window and rate per process), so an outage of the
 * database weakens the limit to one per process rather than failing the request.
 */
import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from './client';
import { rateLimitCounters } from './schema/platform/rate-limits';

/** The outcome of one request counted against a bucket. */
export interface RateLimitDecision {
  /** Whether the request is within the bucket's rate. */
  allowed: boolean;
  /** Requests the bucket still admits in its current window (0 when refused). */
  remaining: number;
  /**
   * Whole seconds until the window ends: when allowed, until the bucket is full again (0 or 1); when refused, the
   * `Retry-After` value (at least 1).
   */
  resetSeconds: number;
}

export interface RateLimitStore {
  /**
   * Counts one request against bucket `key` limited to `perSecond` requests (a positive integer) per one-second
   * window, shared by every process on the same database. Rejects only when neither PostgreSQL nor the in-memory
   * fallback answer (never expected).
   */
  take(key: string, perSecond: number): Promise<RateLimitDecision>;
}

/** Prefix of every counter's key in `rate_limit_counters`. */
const keyPrefix = 'rl';

/** The store of `db`, made once per database handle (one per process). */
const stores = new WeakMap<Db, RateLimitStore>();

/** The deployment-wide rate-limit counters on `db` (module note); the same store for the same handle. */
export function rateLimitStoreOf(db: Db): RateLimitStore {
  const existing = stores.get(db);
  if (existing) return existing;
  const store = createRateLimitStore(db);
  stores.set(db, store);
  return store;
}

/** A new store on `db` (module note); `rateLimitStoreOf` shares one per handle. */
export function createRateLimitStore(db: Db): RateLimitStore {
  // A limiter has one rate: one per rate in use (a handful: the defaults and the clients' overrides).
  const limiters = new Map<number, RateLimiterDrizzle>();
  const limiterFor = (perSecond: number): RateLimiterDrizzle => {
    let limiter = limiters.get(perSecond);
    if (!limiter) {
      limiter = new RateLimiterDrizzle({
        storeClient: db,
        schema: rateLimitCounters,
        keyPrefix,
        points: perSecond,
        duration: 1,
        // Refused once over the limit: refused from memory until the window ends, without a round trip.
        inMemoryBlockOnConsumed: perSecond + 1,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: perSecond, duration: 1 }),
        // One sweep of expired rows per store is enough: the first limiter's.
        clearExpiredByTimeout: limiters.size === 0,
      });
      limiters.set(perSecond, limiter);
    }
    return limiter;
  };

  return {
    async take(key, perSecond) {
      try {
        const res = await limiterFor(perSecond).consume(key, 1);
        return {
          allowed: true,
          remaining: res.remainingPoints,
          resetSeconds: Math.ceil(res.msBeforeNext / 1000),
        };
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        return {
          allowed: false,
          remaining: 0,
          resetSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)),
        };
      }
    },
  };
}
