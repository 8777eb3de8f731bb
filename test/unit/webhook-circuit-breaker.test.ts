/**
 * The pure circuit breaker of a webhook endpoint and the tenant slot waits
 * (domain/webhooks/circuit-breaker.ts; Svix endpoint throttling; Nygard's Circuit Breaker).
 */
import { describe, expect, it } from 'vitest';
import {
  admitThroughBreaker,
  type BreakerState,
  breakerAfterAttempt,
  breakerFailureThreshold,
  breakerMaxOpenMs,
  breakerWaitMs,
  closedBreaker,
  halfOpenPollMs,
  openDurationMs,
  probeLeaseMs,
  slotWaitMs,
  takesWakerPart,
  tenantHasSlot,
  wakeCount,
  wakerGraceMs,
  wakeWaitMs,
} from '../../domain/webhooks/circuit-breaker';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);

function failTimes(breaker: BreakerState, times: number, atMs: number): BreakerState {
  let state = breaker;
  for (let i = 0; i < times; i += 1) state = breakerAfterAttempt(state, `whd_${i}`, false, atMs);
  return state;
}

describe('webhook endpoint circuit breaker', () => {
  it('stays closed below the threshold and opens at it, for 30 s', () => {
    const below = failTimes(closedBreaker, breakerFailureThreshold - 1, T0);
    expect(below.state).toBe('CLOSED');
    expect(below.consecutiveFailures).toBe(breakerFailureThreshold - 1);
    expect(admitThroughBreaker(below, 'whd_x', T0)).toMatchObject({ send: true, probe: false });

    const open = breakerAfterAttempt(below, 'whd_x', false, T0);
    expect(open).toMatchObject({ state: 'OPEN', openings: 1, openUntilMs: T0 + 30_000 });
    expect(admitThroughBreaker(open, 'whd_y', T0 + 29_999)).toEqual({ send: false, untilMs: T0 + 30_000 });
  });

  it('a success resets the count: failures must be consecutive', () => {
    const almost = failTimes(closedBreaker, breakerFailureThreshold - 1, T0);
    const reset = breakerAfterAttempt(almost, 'whd_ok', true, T0);
    expect(reset).toEqual(closedBreaker);
    expect(failTimes(reset, breakerFailureThreshold - 1, T0).state).toBe('CLOSED');
  });

  it('after the open time one delivery probes; the others wait for its outcome', () => {
    const open = failTimes(closedBreaker, breakerFailureThreshold, T0);
    const at = T0 + 30_000;
    const probe = admitThroughBreaker(open, 'whd_probe', at);
    expect(probe).toMatchObject({ send: true, probe: true });
    if (!probe.send) throw new Error('unreachable');
    expect(probe.next).toMatchObject({
      state: 'HALF_OPEN',
      probeDeliveryId: 'whd_probe',
      probeUntilMs: at + probeLeaseMs,
    });
    expect(admitThroughBreaker(probe.next, 'whd_other', at + 1)).toEqual({
      send: false,
      untilMs: at + probeLeaseMs,
    });
    // The probing delivery asking again (a retried call) is let through.
    expect(admitThroughBreaker(probe.next, 'whd_probe', at + 1)).toMatchObject({ send: true });
    // A probe whose outcome never came is given up after its lease.
    expect(admitThroughBreaker(probe.next, 'whd_other', at + probeLeaseMs)).toMatchObject({
      send: true,
      probe: true,
    });
  });

  it('a successful probe closes the breaker; a failed one re-opens it for twice as long, capped at 1 h', () => {
    const open = failTimes(closedBreaker, breakerFailureThreshold, T0);
    const probe = admitThroughBreaker(open, 'whd_probe', T0 + 30_000);
    if (!probe.send) throw new Error('unreachable');
    expect(breakerAfterAttempt(probe.next, 'whd_probe', true, T0 + 30_100)).toEqual(closedBreaker);

    const reopened = breakerAfterAttempt(probe.next, 'whd_probe', false, T0 + 30_100);
    expect(reopened).toMatchObject({ state: 'OPEN', openings: 2, openUntilMs: T0 + 30_100 + 60_000 });
    expect(openDurationMs(1)).toBe(30_000);
    expect(openDurationMs(3)).toBe(120_000);
    expect(openDurationMs(50)).toBe(breakerMaxOpenMs);
  });

  it('an attempt admitted before the breaker opened only counts when it fails late', () => {
    const open = failTimes(closedBreaker, breakerFailureThreshold, T0);
    const late = breakerAfterAttempt(open, 'whd_late', false, T0 + 1_000);
    expect(late).toMatchObject({ state: 'OPEN', openUntilMs: open.openUntilMs, openings: 1 });
    expect(late.consecutiveFailures).toBe(breakerFailureThreshold + 1);
    // Another delivery's failure while a live probe is out does not re-open it.
    const probe = admitThroughBreaker(open, 'whd_probe', T0 + 30_000);
    if (!probe.send) throw new Error('unreachable');
    expect(breakerAfterAttempt(probe.next, 'whd_late', false, T0 + 30_001).state).toBe('HALF_OPEN');
  });

  it('waits: the open time plus at most 10% (≤ 5 s) of jitter; a live probe is polled every 5 s', () => {
    const open = failTimes(closedBreaker, breakerFailureThreshold, T0);
    expect(breakerWaitMs(open, T0 + 30_000, T0, 0)).toBe(30_000);
    expect(breakerWaitMs(open, T0 + 30_000, T0, 0.999)).toBe(30_000 + Math.round(0.999 * 3_000));
    const probe = admitThroughBreaker(open, 'whd_probe', T0 + 30_000);
    if (!probe.send) throw new Error('unreachable');
    expect(breakerWaitMs(probe.next, T0 + 30_000 + probeLeaseMs, T0 + 30_000, 0)).toBe(halfOpenPollMs);
    expect(() => breakerWaitMs(open, T0, T0, 1)).toThrow(/random/);
  });
});

describe('tenant delivery slots', () => {
  it('a tenant has a slot while fewer than its cap are in flight', () => {
    expect(tenantHasSlot(2, 3)).toBe(true);
    expect(tenantHasSlot(3, 3)).toBe(false);
  });

  it('refused deliveries wait 250 ms doubling to 60 s, jittered ×0.5..1.5', () => {
    expect(slotWaitMs(1, 0.5)).toBe(250);
    expect(slotWaitMs(2, 0.5)).toBe(500);
    expect(slotWaitMs(20, 0.5)).toBe(60_000);
    expect(slotWaitMs(1, 0)).toBe(125);
    expect(slotWaitMs(20, 0.999)).toBe(Math.round(60_000 * 1.499));
    expect(() => slotWaitMs(1, -0.1)).toThrow(/random/);
  });
});

describe('waiting for a wake-up', () => {
  it('the safety wait is 5 to 10 minutes, spread by the random draw', () => {
    expect(wakeWaitMs(0)).toBe(300_000);
    expect(wakeWaitMs(0.5)).toBe(450_000);
    expect(wakeWaitMs(0.999)).toBe(Math.round(300_000 * 1.999));
    expect(() => wakeWaitMs(1)).toThrow(/random/);
  });

  it('one waker per endpoint: the first refused takes the part, keeps it, and loses it only once overdue by the grace', () => {
    const now = 1_000_000;
    expect(takesWakerPart(null, 'whd_a', now)).toBe(true);
    expect(takesWakerPart({ deliveryId: 'whd_a', untilMs: now + 30_000 }, 'whd_a', now)).toBe(true);
    expect(takesWakerPart({ deliveryId: 'whd_a', untilMs: now + 30_000 }, 'whd_b', now)).toBe(false);
    expect(takesWakerPart({ deliveryId: 'whd_a', untilMs: now - wakerGraceMs }, 'whd_b', now)).toBe(false);
    expect(takesWakerPart({ deliveryId: 'whd_a', untilMs: now - wakerGraceMs - 1 }, 'whd_b', now)).toBe(true);
  });

  it('wakes as many as there are free slots, less the wake-ups still pending, never below zero', () => {
    expect(wakeCount(5, 4, 0)).toBe(1);
    expect(wakeCount(5, 0, 0)).toBe(5);
    expect(wakeCount(5, 2, 2)).toBe(1);
    expect(wakeCount(5, 5, 0)).toBe(0);
    expect(wakeCount(5, 3, 9)).toBe(0);
    // A slot count over the cap (the cap lowered while attempts were in flight) wakes no one.
    expect(wakeCount(2, 4, 0)).toBe(0);
  });
});
