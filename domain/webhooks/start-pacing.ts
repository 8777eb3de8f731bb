/**
 * Pacing of the starts of one tenant's webhook deliveries (docs/design.md §5 Webhooks; Svix's per-application delivery
 * throttling): a tenant whose events arrive in a burst (thousands at once: a batch job, a test loop, a boarded
 * history) must not fill the delivery queue ahead of every other tenant's events. The outbox relay plans each
 * delivery's start with the generic cell rate algorithm (GCRA, ITU-T I.371 "virtual scheduling"): up to `burst`
 * deliveries of a tenant start at once, the rest are spread at `ratePerSecond`, each started with a Temporal start
 * delay, which costs the cluster a timer and no task until it fires. A delivery to an endpoint whose circuit
 * breaker is open is not started before the breaker's `openUntil` (domain/webhooks/circuit-breaker.ts).
 * Pure: instants are milliseconds since the epoch, passed in.
 */

/** A tenant's pacing: deliveries that start at once, then starts per second. */
export interface StartPacing {
  /** Starts per second once the burst is spent; 0 turns pacing off. */
  ratePerSecond: number;
  /** Deliveries that may start at once (≥ 1). */
  burst: number;
}

/** 20 starts a second after a burst of 100: far above a live tenant's flow, far below a backlog of thousands. */
export const defaultStartPacing: StartPacing = { ratePerSecond: 20, burst: 100 };

/**
 * Plans `count` starts of one tenant at `nowMs`, given its theoretical arrival time `tatMs` (GCRA state: when the
 * next start would be due at the paced rate; null for a tenant never seen). Answers each start's delay in ms (0 =
 * now; non-decreasing) and the new theoretical arrival time to store. With pacing off, every delay is 0 and the
 * state is left as it was.
 */
export function planStarts(
  tatMs: number | null,
  nowMs: number,
  count: number,
  pacing: StartPacing,
): { delaysMs: number[]; tatMs: number | null } {
  if (pacing.ratePerSecond <= 0 || count === 0) return { delaysMs: new Array(count).fill(0), tatMs };
  const intervalMs = 1000 / pacing.ratePerSecond;
  const toleranceMs = (Math.max(1, pacing.burst) - 1) * intervalMs;
  let tat = Math.max(tatMs ?? nowMs, nowMs);
  const delaysMs: number[] = [];
  for (let i = 0; i < count; i++) {
    delaysMs.push(Math.max(0, Math.ceil(tat - toleranceMs - nowMs)));
    tat += intervalMs;
  }
  return { delaysMs, tatMs: tat };
}

/**
 * The start delay of a delivery: its paced delay, but never before its endpoint's open breaker lets an attempt
 * through (`openUntilMs` null when the breaker is closed), plus `spreadMs` so that the deliveries held by one
 * breaker do not all wake in the same instant.
 */
export function startDelayMs(
  pacedDelayMs: number,
  nowMs: number,
  openUntilMs: number | null,
  spreadMs = 0,
): number {
  const breakerDelay = openUntilMs !== null && openUntilMs > nowMs ? openUntilMs - nowMs + spreadMs : 0;
  return Math.max(pacedDelayMs, breakerDelay);
}

/**
 * Deliveries to one endpoint with no recent success (no attempt recorded yet, or its last one failed) that may be
 * open (started, not ended) at once before the relay delays further starts, the spacing in ms of those it delays,
 * and the longest such delay: a fresh burst to endpoints nobody has seen answer (10 new subscriptions × 10 events)
 * starts one delivery per endpoint at once and the others 2.5 s, 5 s, 7.5 s and at most 10 s later, on the backlog
 * pool, instead of a hundred at once on the live pool every tenant shares; a new receiver that does answer has all
 * of a pass's events within 10 s. An endpoint that answers 2xx is proven, and its next deliveries start by the
 * tenant's pace alone.
 */
export const unprovenEndpointOpenDeliveries = 1;
export const unprovenEndpointSpacingMs = 2_500;
export const unprovenEndpointMaxDelayMs = 10_000;

/**
 * Start delays in ms of `count` new deliveries (in order) to one endpoint with no recent success that already has
 * `openBefore` open deliveries: the first `unprovenEndpointOpenDeliveries − openBefore` (none below 0) at once,
 * each further one `unprovenEndpointSpacingMs` after the previous, at most `unprovenEndpointMaxDelayMs`.
 */
export function unprovenEndpointDelaysMs(openBefore: number, count: number): number[] {
  const free = Math.max(0, unprovenEndpointOpenDeliveries - openBefore);
  return Array.from({ length: count }, (_, i) =>
    i < free ? 0 : Math.min((i - free + 1) * unprovenEndpointSpacingMs, unprovenEndpointMaxDelayMs),
  );
}

/**
 * The task queue of a delivery the relay starts: `backlogQueue` when its start is delayed (its tenant is past its
 * burst, or its endpoint's breaker is open), else `liveQueue`. Two pools: the tasks of one tenant's backlog of
 * thousands never queue ahead of the other tenants' live deliveries.
 */
export function deliveryQueueFor(startDelayMs: number, liveQueue: string, backlogQueue: string): string {
  return startDelayMs > 0 ? backlogQueue : liveQueue;
}
