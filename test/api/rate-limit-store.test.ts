/**
 * The deployment-wide rate-limit counters (db/rate-limits.ts, `rate-limiter-flexible`'s `RateLimiterDrizzle` on
 * `rate_limit_counters`): a bucket admits `perSecond` requests per one-second window, counted in PostgreSQL so that
 * stores on separate pools (separate API processes) share one count; without PostgreSQL each store counts on its own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client';
import { freePort } from '../../db/embedded';
import { createRateLimitStore, rateLimitStoreOf } from '../../db/rate-limits';

const handles: DbHandle[] = [];
afterAll(async () => {
  for (const handle of handles) await handle.close();
});

function pool(url = inject('databaseUrl')): DbHandle {
  const handle = createDb(url, { maxConnections: 2 });
  handles.push(handle);
  return handle;
}

const freshKey = () => `test:${randomUUID()}`;

describe('rate-limit store', () => {
  it('admits a burst of perSecond, then refuses with Retry-After 1 until the window ends', async () => {
    const store = createRateLimitStore(pool().db);
    const key = freshKey();
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await store.take(key, 5));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    for (const r of results.slice(0, 5)) expect([0, 1]).toContain(r.resetSeconds);
    expect(results[5]?.resetSeconds).toBe(1);
    // Another key has its own count.
    expect((await store.take(freshKey(), 5)).allowed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1050));
    const after = [];
    for (let i = 0; i < 6; i++) after.push((await store.take(key, 5)).allowed);
    expect(after).toEqual([true, true, true, true, true, false]);
  });

  it('stores on two pools (two processes) share one count: together they admit perSecond, not twice it', async () => {
    const [a, b] = [createRateLimitStore(pool().db), createRateLimitStore(pool().db)];
    const key = freshKey();
    const allowed = [];
    for (let i = 0; i < 8; i++) allowed.push((await (i % 2 === 0 ? a : b).take(key, 4)).allowed);
    expect(allowed).toEqual([true, true, true, true, false, false, false, false]);
  });

  it('one store per database handle', () => {
    const { db } = pool();
    expect(rateLimitStoreOf(db)).toBe(rateLimitStoreOf(db));
    expect(rateLimitStoreOf(db)).not.toBe(rateLimitStoreOf(pool().db));
  });

  it('counts in this process when PostgreSQL cannot be reached, rather than failing the request', async () => {
    const unreachable = pool(`postgres://nobody@127.0.0.1:${await freePort()}/none`);
    const store = createRateLimitStore(unreachable.db);
    const key = freshKey();
    const allowed = [];
    for (let i = 0; i < 4; i++) allowed.push((await store.take(key, 3)).allowed);
    expect(allowed).toEqual([true, true, true, false]);
  });
});
