import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceKeyOf, takeToken, trackedBuckets } from '../../api/middleware/rate-limit';

/** Buckets live in a module-level map: every test uses keys of its own. */
const freshKey = () => `test:${randomUUID()}`;
const t0 = 1_800_000_000_000;

describe('takeToken (token bucket, capacity = refill rate)', () => {
  it('allows a burst of N, then refuses', () => {
    const key = freshKey();
    const results = Array.from({ length: 6 }, () => takeToken(key, 5, t0));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
  });

  it('refills in proportion to elapsed time', () => {
    const key = freshKey();
    for (let i = 0; i < 10; i++) expect(takeToken(key, 10, t0).allowed).toBe(true);
    expect(takeToken(key, 10, t0).allowed).toBe(false);
    // 10 per second: one token after 100 ms, not before.
    expect(takeToken(key, 10, t0 + 50).allowed).toBe(false);
    expect(takeToken(key, 10, t0 + 100).allowed).toBe(true);
    expect(takeToken(key, 10, t0 + 100).allowed).toBe(false);
    // A full second refills the whole bucket.
    const after = Array.from({ length: 11 }, () => takeToken(key, 10, t0 + 1100).allowed);
    expect(after.filter(Boolean)).toHaveLength(10);
  });

  it('never holds more than its capacity after a long idle time', () => {
    const key = freshKey();
    expect(takeToken(key, 3, t0).remaining).toBe(2);
    const later = t0 + 3_600_000;
    const allowed = Array.from({ length: 5 }, () => takeToken(key, 3, later).allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
  });

  it('keeps separate buckets per key', () => {
    const a = freshKey();
    const b = freshKey();
    expect(takeToken(a, 1, t0).allowed).toBe(true);
    expect(takeToken(a, 1, t0).allowed).toBe(false);
    expect(takeToken(b, 1, t0).allowed).toBe(true);
  });

  it('gives reset seconds: time to refill when allowed, at least 1 s until the next token when refused', () => {
    const key = freshKey();
    expect(takeToken(key, 5, t0)).toEqual({ allowed: true, remaining: 4, resetSeconds: 1 });
    for (let i = 0; i < 4; i++) takeToken(key, 5, t0);
    expect(takeToken(key, 5, t0)).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });

    const slow = freshKey();
    expect(takeToken(slow, 1, t0).allowed).toBe(true);
    const refused = takeToken(slow, 1, t0 + 250);
    expect(refused.allowed).toBe(false);
    expect(refused.resetSeconds).toBe(1);
  });

  it('property: a burst of exactly N; after a refusal, waiting resetSeconds is enough', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (perSecond) => {
        const key = freshKey();
        let last = takeToken(key, perSecond, t0);
        let taken = 0;
        while (last.allowed) {
          taken++;
          last = takeToken(key, perSecond, t0);
        }
        expect(taken).toBe(perSecond);
        expect(last.resetSeconds).toBeGreaterThanOrEqual(1);
        // Just short of one token's worth of time, still refused.
        expect(takeToken(key, perSecond, t0 + Math.ceil(1000 / perSecond) - 1).allowed).toBe(false);
        expect(takeToken(key, perSecond, t0 + last.resetSeconds * 1000).allowed).toBe(true);
      }),
    );
  });

  it('forgets idle (full) buckets once more than 50,000 exist, so unknown client ids cannot grow memory', () => {
    const start = t0 + 10_000_000;
    for (let i = 0; i <= 50_000; i++) takeToken(freshKey(), 5, start);
    expect(trackedBuckets()).toBeGreaterThan(50_000);
    // 1.5 s later every one of them is full again: the next take drops them (at most one sweep a second).
    const busy = freshKey();
    expect(takeToken(busy, 1, start + 1500).allowed).toBe(true);
    expect(trackedBuckets()).toBeLessThan(10);
    // The bucket in use is kept: still empty 100 ms later.
    expect(takeToken(busy, 1, start + 1600).allowed).toBe(false);
  });
});

describe('sourceKeyOf (the token-source bucket of a peer address)', () => {
  it('IPv4 as is; IPv4-mapped IPv6 in every spelling as its IPv4 address', () => {
    expect(sourceKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('0:0:0:0:0:ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('other IPv6 by its /64 prefix, zone id dropped, however written', () => {
    expect(sourceKeyOf('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(sourceKeyOf('2001:0DB8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(sourceKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceKeyOf('::1')).toBe('0:0:0:0::/64');
  });
});
