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
 * Leases (`leaseSizeOf`): a bucket of `perSecond` ≥ 40 is not counted one request per round trip. A process takes
 * `floor(perSecond / 20)` points of the window at once in the same atomic statement and admits that many requests
 * from memory until they are spent or the window ends, then takes the next lease; concurrent requests of the
 * process wait for the one lease being taken rather than each taking one. The shared count still never admits more
 * than `perSecond` in a window (a lease is counted in full when taken; when fewer points are left than a lease, the
 * process gets exactly those left), so the limit holds for the deployment; what a lease leaves unspent at the end
 * of its window is not given to another process (at most a lease per process, 5% of the rate). A database round trip
 * then serves `perSecond / 20` requests (5 at the production default of 100/s); below 40/s every request is
 * counted alone, as before. `remaining` counts this process's unspent lease with the shared count's remainder.
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

  /** This process's unspent leases by `<perSecond>:<key>` (module note), dropped when their window ends. */
  const leases = new Map<string, Lease>();
  /** The lease being taken per `<perSecond>:<key>`: concurrent requests wait for it instead of taking their own. */
  const taking = new Map<string, Promise<RateLimitDecision>>();

  /** One request from `lease` if it has points in its window; null otherwise. */
  const fromLease = (leaseKey: string, now: number): RateLimitDecision | null => {
    const lease = leases.get(leaseKey);
    if (!lease) return null;
    if (now >= lease.endsAt || lease.left <= 0) {
      leases.delete(leaseKey);
      return null;
    }
    lease.left -= 1;
    return {
      allowed: true,
      remaining: lease.sharedRemaining + lease.left,
      resetSeconds: Math.ceil((lease.endsAt - now) / 1000),
    };
  };

  /** Counts `points` against the shared count; a lease of what is granted beyond this request stays in memory. */
  const takeShared = async (
    leaseKey: string,
    key: string,
    perSecond: number,
    points: number,
  ): Promise<RateLimitDecision> => {
    try {
      const res = await limiterFor(perSecond).consume(key, points);
      if (points > 1) {
        if (leases.size >= maxLeases) leases.clear();
        leases.set(leaseKey, {
          left: points - 1,
          endsAt: Date.now() + res.msBeforeNext,
          sharedRemaining: res.remainingPoints,
        });
      }
      return {
        allowed: true,
        remaining: res.remainingPoints + points - 1,
        resetSeconds: Math.ceil(res.msBeforeNext / 1000),
      };
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      // The count went over with this lease: the points that were left before it are this process's alone. (A
      // refusal from the in-memory block carries no count, consumedPoints 0: nothing is granted.)
      const counted = refusal.consumedPoints > perSecond;
      const granted = counted ? Math.min(points, perSecond - (refusal.consumedPoints - points)) : 0;
      if (points > 1 && granted >= 1) {
        if (granted > 1) {
          if (leases.size >= maxLeases) leases.clear();
          leases.set(leaseKey, {
            left: granted - 1,
            endsAt: Date.now() + refusal.msBeforeNext,
            sharedRemaining: 0,
          });
        }
        return {
          allowed: true,
          remaining: granted - 1,
          resetSeconds: Math.ceil(refusal.msBeforeNext / 1000),
        };
      }
      return {
        allowed: false,
        remaining: 0,
        resetSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)),
      };
    }
  };

  return {
    async take(key, perSecond) {
      const points = leaseSizeOf(perSecond);
      if (points === 1) return takeShared('', key, perSecond, 1);
      const leaseKey = `${perSecond}:${key}`;
      for (;;) {
        const local = fromLease(leaseKey, Date.now());
        if (local) return local;
        const pending = taking.get(leaseKey);
        if (!pending) break;
        // Another request of this process is taking a lease: use it once taken (or take the next).
        await pending.catch(() => {});
      }
      const taken = takeShared(leaseKey, key, perSecond, points).finally(() => taking.delete(leaseKey));
      taking.set(leaseKey, taken);
      return taken;
    },
  };
}

/** A process's unspent part of the points it counted at once against a bucket's window. */
interface Lease {
  /** Requests it still admits. */
  left: number;
  /** When its window ends (ms since the epoch, this process's clock). */
  endsAt: number;
  /** What the shared count had left when it was taken. */
  sharedRemaining: number;
}

/** At most this many leases are kept (one per active bucket); beyond it they are dropped (their points unspent). */
const maxLeases = 10_000;

/**
 * Points a process counts at once against a bucket of `perSecond` (module note "Leases"): `floor(perSecond / 20)`,
 * at least 1 (below 40/s every request is counted alone).
 */
export function leaseSizeOf(perSecond: number): number {
  return Math.max(1, Math.floor(perSecond / 20));
}
