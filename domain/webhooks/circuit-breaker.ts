/**
 * The circuit breaker of a webhook endpoint (one per subscription) and the admission of a delivery
 * attempt (Svix's endpoint throttling and disabling; M. Nygard, "Release It!", Circuit Breaker;
 * docs/design.md §5 Webhooks for the retry schedule it never shortens).
 *
 * - CLOSED: attempts go ahead. `breakerFailureThreshold` consecutive failed attempts (any non-2xx
 *   answer, a timeout, a refused connection) open it.
 * - OPEN until `openUntilMs`: no attempt is sent; a delivery waits (a workflow timer, holding no
 *   activity slot and no connection) until then. The open time doubles at each re-opening:
 *   30 s, 1 min, 2 min, … capped at 1 h, so a dead endpoint is probed at least hourly and the
 *   5 days of continuous failure that disable a subscription (docs/design.md §5) still elapse.
 * - HALF_OPEN: once `openUntilMs` has passed, one attempt (the probe) is let through; the others
 *   wait for its outcome. Success closes the breaker; failure opens it again for longer. A probe
 *   whose outcome never comes (its worker died) is given up after `probeLeaseMs`.
 *
 * Pure: instants are epoch milliseconds passed in (the workflow's clock), randomness is passed in.
 */

/** Consecutive failed attempts that open a closed breaker. */
export const breakerFailureThreshold = 5;
/** Open time after the first opening, in ms. */
export const breakerBaseOpenMs = 30_000;
/** Longest open time, in ms. */
export const breakerMaxOpenMs = 3_600_000;
/** How long a half-open probe may take before another delivery may probe instead, in ms. */
export const probeLeaseMs = 60_000;
/** How long a delivery's slot in its tenant's concurrency cap is held at most, in ms (a dead worker's slot frees itself). */
export const deliverySlotLeaseMs = 60_000;
/**
 * Wait of a delivery refused a slot because its tenant is at its cap: first, and longest, in ms. It starts short
 * (a slot is held for one HTTP call, often milliseconds, so a live tenant briefly at its cap is not delayed by
 * seconds) and doubles to a minute, so that a backlog of thousands of waiting deliveries asks a few dozen times a
 * second at most instead of hundreds.
 */
export const slotWaitBaseMs = 250;
export const slotWaitMaxMs = 60_000;

export type BreakerStateName = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

/** What the database keeps per endpoint (`webhook_endpoint_breakers`). */
export interface BreakerState {
  state: BreakerStateName;
  /** Failed attempts since the last success. */
  consecutiveFailures: number;
  /** Openings since the last success (drives the doubling of the open time). */
  openings: number;
  /** OPEN: when a probe may go (epoch ms); null otherwise. */
  openUntilMs: number | null;
  /** HALF_OPEN: the delivery probing, and until when its probe is held (epoch ms). */
  probeDeliveryId: string | null;
  probeUntilMs: number | null;
}

/** A breaker that has seen nothing: closed. */
export const closedBreaker: BreakerState = {
  state: 'CLOSED',
  consecutiveFailures: 0,
  openings: 0,
  openUntilMs: null,
  probeDeliveryId: null,
  probeUntilMs: null,
};

/** Open time of the `openings`-th opening (1-based): 30 s × 2^(openings − 1), capped at 1 h. */
export function openDurationMs(openings: number): number {
  const exponent = Math.min(Math.max(openings, 1) - 1, 30);
  return Math.min(breakerBaseOpenMs * 2 ** exponent, breakerMaxOpenMs);
}

export type BreakerAdmission =
  /** Send now; `probe` when this attempt is the half-open probe. `next` is the state to store. */
  | { send: true; probe: boolean; next: BreakerState }
  /** Do not send; wait until `untilMs` (epoch ms) and ask again. */
  | { send: false; untilMs: number };

/**
 * Whether an attempt of `deliveryId` may be sent at `nowMs`. CLOSED → send. OPEN before
 * `openUntilMs` → wait until then. OPEN after it, or HALF_OPEN whose probe lease has run out →
 * this attempt becomes the probe (HALF_OPEN, held until `nowMs + probeLeaseMs`). HALF_OPEN with a
 * live probe of another delivery → wait until the probe's lease ends; the probing delivery itself
 * (a retried call) → send.
 */
export function admitThroughBreaker(
  breaker: BreakerState,
  deliveryId: string,
  nowMs: number,
): BreakerAdmission {
  if (breaker.state === 'CLOSED') return { send: true, probe: false, next: breaker };
  if (breaker.state === 'OPEN' && breaker.openUntilMs !== null && nowMs < breaker.openUntilMs)
    return { send: false, untilMs: breaker.openUntilMs };
  if (
    breaker.state === 'HALF_OPEN' &&
    breaker.probeUntilMs !== null &&
    nowMs < breaker.probeUntilMs &&
    breaker.probeDeliveryId !== deliveryId
  )
    return { send: false, untilMs: breaker.probeUntilMs };
  return {
    send: true,
    probe: true,
    next: {
      ...breaker,
      state: 'HALF_OPEN',
      openUntilMs: null,
      probeDeliveryId: deliveryId,
      probeUntilMs: nowMs + probeLeaseMs,
    },
  };
}

/**
 * The breaker after an attempt of `deliveryId` ended at `nowMs`. Success → CLOSED with the counts
 * reset. Failure: +1 consecutive failure; a CLOSED breaker reaching the threshold opens, a failed
 * probe (this delivery holds the HALF_OPEN probe, or the probe lease ran out) re-opens for twice as
 * long; an OPEN breaker, or a HALF_OPEN one whose live probe is another delivery's, only counts it.
 */
export function breakerAfterAttempt(
  breaker: BreakerState,
  deliveryId: string,
  succeeded: boolean,
  nowMs: number,
): BreakerState {
  if (succeeded) return closedBreaker;
  const consecutiveFailures = breaker.consecutiveFailures + 1;
  const open = (): BreakerState => {
    const openings = breaker.openings + 1;
    return {
      state: 'OPEN',
      consecutiveFailures,
      openings,
      openUntilMs: nowMs + openDurationMs(openings),
      probeDeliveryId: null,
      probeUntilMs: null,
    };
  };
  if (breaker.state === 'CLOSED')
    return consecutiveFailures >= breakerFailureThreshold ? open() : { ...breaker, consecutiveFailures };
  if (breaker.state === 'HALF_OPEN') {
    const probeLive = breaker.probeUntilMs !== null && nowMs < breaker.probeUntilMs;
    if (breaker.probeDeliveryId === deliveryId || !probeLive) return open();
  }
  return { ...breaker, consecutiveFailures };
}

/**
 * Wait in ms of a delivery refused a slot because its tenant already has `cap` attempts in flight,
 * after `refusals` refusals in a row (1-based): 250 ms × 2^(refusals − 1), capped at 60 s, scaled by
 * 0.5 + `random` (so waiting deliveries do not all ask again at once). `random` in [0, 1).
 */
export function slotWaitMs(refusals: number, random: number): number {
  if (!(random >= 0 && random < 1)) throw new Error('random must be in [0, 1)');
  const exponent = Math.min(Math.max(refusals, 1) - 1, 30);
  const base = Math.min(slotWaitBaseMs * 2 ** exponent, slotWaitMaxMs);
  return Math.round(base * (0.5 + random));
}

/** Whether a tenant with `inFlight` attempts holding a slot may start one more under `cap`. */
export function tenantHasSlot(inFlight: number, cap: number): boolean {
  return inFlight < cap;
}

/** While a half-open probe of another delivery is out, a waiting delivery asks again at least this often, in ms. */
export const halfOpenPollMs = 5_000;

/**
 * Wait in ms, from `nowMs`, of a delivery the breaker told to wait `untilMs`: the remaining time
 * (a live probe of another delivery: at most `halfOpenPollMs`, so a quick probe is noticed), plus
 * up to 10% of it (at most 5 s) by `random` in [0, 1), so that the deliveries waiting on one
 * endpoint do not all ask again at the same instant.
 */
export function breakerWaitMs(breaker: BreakerState, untilMs: number, nowMs: number, random: number): number {
  if (!(random >= 0 && random < 1)) throw new Error('random must be in [0, 1)');
  const until = breaker.state === 'HALF_OPEN' ? Math.min(untilMs, nowMs + halfOpenPollMs) : untilMs;
  const remaining = Math.max(0, until - nowMs);
  return remaining + Math.round(random * Math.min(5_000, remaining / 10));
}

/**
 * Wait in ms of a refused delivery that waits for a wake-up signal (`webhook_admission_waiters`) rather than a
 * timer of its own: 5 to 10 minutes by `random` in [0, 1). It is only a safety net, for a wake-up that was lost
 * (the signalling workflow's worker died between recording and signalling) or a slot that freed itself by
 * expiring; in the normal course the delivery is woken by the attempt that frees its slot or its endpoint.
 */
export const wakeWaitBaseMs = 300_000;
export function wakeWaitMs(random: number): number {
  if (!(random >= 0 && random < 1)) throw new Error('random must be in [0, 1)');
  return Math.round(wakeWaitBaseMs * (1 + random));
}

/** How long after its timer was due a breaker's waker may be late before another delivery takes its part, in ms. */
export const wakerGraceMs = 30_000;

/** The delivery that holds a timer to the breaker's next change, and when it fires (epoch ms). */
export interface BreakerWaker {
  deliveryId: string;
  untilMs: number;
}

/**
 * Whether `deliveryId`, refused by a breaker that is not CLOSED at `nowMs`, becomes (or stays) the endpoint's
 * waker: there is none, it is this delivery, or the one there is overdue by more than `wakerGraceMs` (its
 * workflow ended or lost its timer). Every other refused delivery of the endpoint waits to be woken.
 */
export function takesWakerPart(waker: BreakerWaker | null, deliveryId: string, nowMs: number): boolean {
  if (waker === null || waker.deliveryId === deliveryId) return true;
  return nowMs > waker.untilMs + wakerGraceMs;
}

/** How long a wake-up sent to a waiting delivery counts as pending (it will ask soon), in ms. */
export const wakeAnswerMs = 30_000;

/**
 * How many waiting deliveries of a tenant to wake once a slot or an endpoint freed: the free slots under `cap`
 * (`inFlight` attempts holding one), less the wake-ups already sent and not yet answered (`pendingWakes`), never
 * below 0. Waking more would only have them refused again.
 */
export function wakeCount(cap: number, inFlight: number, pendingWakes: number): number {
  return Math.max(0, cap - inFlight - pendingWakes);
}
