/**
 * Platform context: the request counters of the API's rate limits (api/middleware/rate-limit.ts), shared by every
 * API process of the deployment. Written by `rate-limiter-flexible`'s `RateLimiterDrizzle` (db/rate-limits.ts), whose
 * atomic upsert needs exactly these three columns. A counter belongs to a client, a token-endpoint client id or a
 * source address, read before any tenant is known (like `access_tokens`), so the table carries no tenant column and no
 * row-level security.
 */
import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from '../columns';

export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    /** `rl:<bucket key>`, e.g. `rl:search:<client id>:<environment>` (api/middleware/rate-limit.ts names the buckets). */
    key: text().primaryKey(),
    /** Requests counted in the current window (refused ones included). */
    points: integer().notNull(),
    /** End of the current one-second window; a row past it counts as absent and is reset by the next request. */
    expire: instant(),
  },
  // The library's hourly sweep deletes rows expired an hour ago.
  (t) => [index().on(t.expire)],
);
