/**
 * The deployment-wide rate-limit counters (db/rate-limits.ts, `rate-limiter-flexible`'s `RateLimiterDrizzle` on
 * `rate_limit_counters`): a bucket admits `perSecond` requests per one-second window, counted in PostgreSQL so that
 * stores on separate pools (separate API processes) share one count; without PostgreSQL each store counts on its own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client';
import { freePort } from '../../db/embedded';
import { createRateLimitStore, leaseSizeOf, rateLimitStoreOf } from '../../db/rate-limits';

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

  it('a bucket of 100/s is counted 5 at a time (a lease): two stores admit exactly 100 in a window between them', async () => {
    expect([leaseSizeOf(39), leaseSizeOf(40), leaseSizeOf(100), leaseSizeOf(1_000_000)]).toEqual([
      1, 2, 5, 50_000,
    ]);
    const [a, b] = [createRateLimitStore(pool().db), createRateLimitStore(pool().db)];
    const key = freshKey();
    // The first request counts a lease of 5: the shared count keeps 95, this process 4 more.
    const first = await a.take(key, 100);
    expect(first).toMatchObject({ allowed: true, remaining: 99 });
    const allowed = [first.allowed];
    for (let i = 1; i < 120; i++) allowed.push((await (i % 2 === 0 ? a : b).take(key, 100)).allowed);
    expect(allowed.filter(Boolean)).toHaveLength(100);
    expect(allowed.slice(0, 100).every(Boolean)).toBe(true);
  });

  it('concurrent requests of one process wait for the one lease being taken', async () => {
    const [a, b] = [createRateLimitStore(pool().db), createRateLimitStore(pool().db)];
    const key = freshKey();
    const burst = await Promise.all(Array.from({ length: 5 }, () => a.take(key, 100)));
    expect(burst.every((r) => r.allowed)).toBe(true);
    // One lease of 5 was counted, not five: the other store's first lease leaves 90 shared, and 4 of its own.
    expect(await b.take(key, 100)).toMatchObject({ allowed: true, remaining: 94 });
  });

  it('a lease that finds fewer points left than its size gets exactly those; no window admits more than perSecond', async () => {
    const [a, b] = [createRateLimitStore(pool().db), createRateLimitStore(pool().db)];
    const key = freshKey();
    // 61/s: leases of 3. a counts 3 (keeps 2); b takes 57 in 19 leases (60 counted), then its 58th finds 1 left.
    expect((await a.take(key, 61)).allowed).toBe(true);
    const fromB = [];
    for (let i = 0; i < 59; i++) fromB.push(await b.take(key, 61));
    expect(fromB.slice(0, 58).every((r) => r.allowed)).toBe(true);
    expect(fromB[57]?.remaining).toBe(0);
    expect(fromB[58]?.allowed).toBe(false);
    // a still admits the 2 of its lease: 61 in all, then refuses.
    const fromA = [];
    for (let i = 0; i < 3; i++) fromA.push((await a.take(key, 61)).allowed);
    expect(fromA).toEqual([true, true, false]);
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
