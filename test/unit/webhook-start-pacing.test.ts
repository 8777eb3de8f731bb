/**
 * The per-tenant pacing of webhook delivery starts (domain/webhooks/start-pacing.ts): GCRA virtual scheduling
 * (ITU-T I.371) — a burst at once, then one start per interval, the state carried between passes — and the hold of
 * an open endpoint breaker.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deliveryQueueFor,
  planStarts,
  startDelayMs,
  unprovenEndpointDelaysMs,
} from '../../domain/webhooks/start-pacing';

describe('planStarts', () => {
  it('starts a burst at once, then one per interval', () => {
    const { delaysMs, tatMs } = planStarts(null, 1_000_000, 6, { ratePerSecond: 10, burst: 3 });
    expect(delaysMs).toEqual([0, 0, 0, 100, 200, 300]);
    expect(tatMs).toBe(1_000_600);
  });

  it('carries the state: a second pass at once goes on from the first; after a quiet spell the burst is back', () => {
    const pacing = { ratePerSecond: 10, burst: 3 };
    const first = planStarts(null, 0, 6, pacing);
    const second = planStarts(first.tatMs, 0, 2, pacing);
    expect(second.delaysMs).toEqual([400, 500]);
    const quiet = planStarts(second.tatMs, 60_000, 3, pacing);
    expect(quiet.delaysMs).toEqual([0, 0, 0]);
  });

  it('with pacing off, nothing waits and the state is kept', () => {
    expect(planStarts(123, 0, 3, { ratePerSecond: 0, burst: 1 })).toEqual({
      delaysMs: [0, 0, 0],
      tatMs: 123,
    });
  });

  it('never starts more than burst + rate × t within any t seconds from a fresh state (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 400 }),
        (rate, burst, count) => {
          const { delaysMs } = planStarts(null, 0, count, { ratePerSecond: rate, burst });
          for (let i = 1; i < delaysMs.length; i++)
            expect(delaysMs[i]).toBeGreaterThanOrEqual(delaysMs[i - 1]!);
          for (const t of [0, 1000, 5000]) {
            const within = delaysMs.filter((d) => d <= t).length;
            expect(within).toBeLessThanOrEqual(burst + Math.floor((rate * t) / 1000) + 1);
          }
        },
      ),
    );
  });
});

describe('startDelayMs', () => {
  it('holds a delivery until its open breaker lets an attempt through, spread by its rank', () => {
    expect(startDelayMs(0, 1000, 31_000)).toBe(30_000);
    expect(startDelayMs(0, 1000, 31_000, 2000)).toBe(32_000);
    expect(startDelayMs(45_000, 1000, 31_000)).toBe(45_000);
    expect(startDelayMs(250, 1000, null)).toBe(250);
    expect(startDelayMs(250, 1000, 500)).toBe(250);
  });
});

describe('deliveryQueueFor', () => {
  it('sends a delayed start to the backlog pool and the others to the live one', () => {
    expect(deliveryQueueFor(0, 'webhooks', 'webhooks-backlog')).toBe('webhooks');
    expect(deliveryQueueFor(1, 'webhooks', 'webhooks-backlog')).toBe('webhooks-backlog');
    expect(deliveryQueueFor(60_000, 'webhooks', 'webhooks-backlog')).toBe('webhooks-backlog');
  });
});

describe('unprovenEndpointDelaysMs', () => {
  it('an endpoint with no recent success: one open delivery at once, the others 2.5 s apart, at most 10 s', () => {
    expect(unprovenEndpointDelaysMs(0, 6)).toEqual([0, 2_500, 5_000, 7_500, 10_000, 10_000]);
    // Already one open (started in an earlier pass): none at once.
    expect(unprovenEndpointDelaysMs(1, 2)).toEqual([2_500, 5_000]);
    expect(unprovenEndpointDelaysMs(40, 1)).toEqual([2_500]);
    expect(unprovenEndpointDelaysMs(0, 0)).toEqual([]);
  });
});
