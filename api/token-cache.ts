/**
 * The token-grant cache of one app instance: token verification is cached with its expiry, and revocation is
 * honoured within a bounded time (tokens are looked up per request through a short in-process cache). API processes
 * are stateless and many may run, so the cache only ever saves a look-up (`findTokenGrant`); what it answers is
 * bounded as follows.
 *
 * - Keyed by the token's SHA-256 digest; only grants found are kept (an unknown token is looked up every
 *   time); at most `maxEntries` (default 10,000; least recently used evicted first). The store is an `lru-cache`
 *   `LRUCache` (`max` = `maxEntries`, a per-entry `ttl`, on the `Date.now()` clock).
 * - An entry is kept at most `ttlMs` (`TOKEN_CACHE_TTL_MS`, default 5,000 ms) from the moment its
 *   look-up was sent, and never past the token's `expiresAt`: the middleware checks the expiry again.
 * - Revocation: a change to a client or token (`clients disable`, an `api_clients` or `access_tokens`
 *   row updated or deleted) drops that client's entries as soon as its `credential_changes` notification
 *   reaches this process (db/notifications.ts; migration 0016_notify_credential_changes), typically
 *   within milliseconds, and at once in the process that made the change through the same pool. Every
 *   (re-)LISTEN clears the cache (notifications may have been missed), and while the watcher cannot show
 *   its LISTEN connection alive (a heartbeat probe of 1 s answered by the pool but not heard on the channel
 *   within 3 heartbeats, or unanswered that long: db/notifications.ts) nothing is served from the cache
 *   or put in it: every request looks its token up. A stalled event loop or a busy pool is not taken for
 *   a dead LISTEN connection (db/notifications.ts): under load, that mistake sent every request to
 *   PostgreSQL for its token. Hits, misses and each time the cache stops serving are counted in
 *   `GET /metrics` (api/metrics.ts `token_cache_lookups_total`, `token_cache_stale_total`).
 * - The bound: a revoked token is refused by every process within `ttlMs` of the change's commit in the
 *   worst case (notification lost), and as soon as the notification arrives otherwise. A look-up that
 *   was under way while a change arrived is not kept.
 *
 * `ttlMs` 0 turns the cache off. Until `start()` (and after `stop()`), every token is looked up.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Db } from '../db/client';
import { type CredentialChangeWatcher, everyClient, watchCredentialChanges } from '../db/notifications';
import { findTokenGrant, type TokenGrant } from '../db/queries/platform/clients';
import { tokenCacheLookupsTotal, tokenCacheStaleTotal } from './metrics';

/** The process's `token_cache_lookups_total` series, bound once (a labelled `inc` hashes its labels on every call). */
const cacheHits = tokenCacheLookupsTotal.labels({ result: 'hit' });
const cacheMisses = tokenCacheLookupsTotal.labels({ result: 'miss' });

/** Default `TOKEN_CACHE_TTL_MS`: the worst-case delay, in milliseconds, before a revoked token is refused. */
export const defaultTokenCacheTtlMs = 5000;

/** Default bound of the number of cached grants. */
export const defaultTokenCacheMaxEntries = 10_000;

export interface TokenGrantCacheStats {
  /** Grants held now. */
  size: number;
  /** Requests answered from the cache since creation. */
  hits: number;
  /** Requests that looked their token up in PostgreSQL since creation. */
  misses: number;
  /** Whether the cache is serving (started, enabled, LISTEN connection known alive). */
  live: boolean;
  /** How many times LISTEN was (re-)established (each cleared the cache). */
  listens: number;
  /** Backend process id of the LISTEN connection (`pg_stat_activity.pid`), null when not listening. */
  listenerPid: number | null;
}

export interface TokenGrantCache {
  /**
   * The grant behind an access-token digest (hex SHA-256), or null when unknown or its client is
   * disabled (`findTokenGrant`), from the cache when it holds a current entry. The caller still checks
   * the environment and `expiresAt`.
   */
  find(tokenDigest: string): Promise<TokenGrant | null>;
  /** Starts watching credential changes (resolves once the first LISTEN succeeded or failed; never rejects). */
  start(): Promise<void>;
  /** Stops watching and empties the cache; later look-ups all go to the database. */
  stop(): Promise<void>;
  stats(): TokenGrantCacheStats;
}

export interface TokenGrantCacheOptions {
  db: Db;
  logger: Logger;
  /** Longest life of an entry in milliseconds (`TOKEN_CACHE_TTL_MS`; default 5000; 0: no cache). */
  ttlMs?: number;
  /** Most grants held (default 10,000). */
  maxEntries?: number;
  /** Heartbeat of the LISTEN connection in milliseconds (default 1000). */
  heartbeatIntervalMs?: number;
}

/** A bounded LRU of grants by token digest whose entries expire by `Date.now()` (the clock `expiresAt` is read on). */
function grantStore(maxEntries: number): LRUCache<string, TokenGrant> {
  return new LRUCache<string, TokenGrant>({
    max: maxEntries,
    // Every entry is set with its own ttl; an expired one is never returned and is dropped when read.
    ttlAutopurge: false,
    allowStale: false,
    // A TTL computed from `Date.now()` is measured on the same clock (the default is `performance.now()`).
    perf: { now: () => Date.now() },
    // Age checked against the clock on every read (the default caches the clock for 1 ms).
    ttlResolution: 0,
  });
}

/** A token-grant cache over `db`, not started. */
export function createTokenGrantCache(options: TokenGrantCacheOptions): TokenGrantCache {
  const ttlMs = options.ttlMs ?? defaultTokenCacheTtlMs;
  const maxEntries = Math.max(1, options.maxEntries ?? defaultTokenCacheMaxEntries);
  const entries = grantStore(maxEntries);
  /** Incremented on every invalidation: a look-up that saw it change is not kept. */
  let generation = 0;
  let watcher: CredentialChangeWatcher | null = null;
  let hits = 0;
  let misses = 0;
  let errorReported = false;
  /** Whether the last `find` found the cache serving: a change to not serving is counted once (`token_cache_stale_total`). */
  let wasServing = false;

  const invalidate = (clientId: string) => {
    generation += 1;
    if (clientId === everyClient) {
      entries.clear();
      return;
    }
    const dropped: string[] = [];
    for (const [digest, grant] of entries.entries()) if (grant.clientId === clientId) dropped.push(digest);
    for (const digest of dropped) entries.delete(digest);
  };

  const live = () => ttlMs > 0 && watcher !== null && watcher.isLive();

  return {
    async find(tokenDigest) {
      const serving = live();
      if (serving) {
        wasServing = true;
        // `get` marks the entry most recently used; an expired one is dropped and not returned.
        const cached = entries.get(tokenDigest);
        if (cached) {
          hits += 1;
          cacheHits.inc();
          return cached;
        }
      } else {
        if (entries.size > 0) entries.clear();
        if (wasServing) {
          wasServing = false;
          tokenCacheStaleTotal.inc();
        }
      }
      misses += 1;
      cacheMisses.inc();
      const seen = generation;
      const sentAt = Date.now();
      const grant = await findTokenGrant(options.db, tokenDigest);
      if (grant && serving && seen === generation && live()) {
        const remainingMs = Math.min(sentAt + ttlMs, grant.expiresAt.getTime()) - Date.now();
        // At capacity, `set` evicts the least recently used entry.
        if (remainingMs > 0) entries.set(tokenDigest, grant, { ttl: remainingMs });
      }
      return grant;
    },

    async start() {
      if (watcher || ttlMs <= 0) return;
      watcher = await watchCredentialChanges(
        options.db,
        {
          onChange: invalidate,
          onListen: () => {
            errorReported = false;
            invalidate(everyClient);
          },
        },
        {
          ...(options.heartbeatIntervalMs === undefined
            ? {}
            : { heartbeatIntervalMs: options.heartbeatIntervalMs }),
          onError: (err) => {
            // Once per outage: the watcher retries every heartbeat.
            if (errorReported) return;
            errorReported = true;
            options.logger.warn(
              { err },
              'credential change notifications unavailable: tokens are looked up on every request',
            );
          },
        },
      );
    },

    async stop() {
      const stopping = watcher;
      watcher = null;
      entries.clear();
      await stopping?.stop();
    },

    stats: () => ({
      size: entries.size,
      hits,
      misses,
      live: live(),
      listens: watcher?.listens() ?? 0,
      listenerPid: watcher?.listenerPid() ?? null,
    }),
  };
}
