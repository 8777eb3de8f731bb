/**
 * When a webhook delivery is attempted again (docs/design.md §5 Webhooks; the Standard Webhooks example
 * schedule; RFC 9110 §10.2.3 Retry-After).
 *
 * Attempts start 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the previous
 * one (10 attempts, about 3 days in all), each delay after the first scaled by a jitter of ±20%.
 * Pure: the caller passes the random number (the workflow's deterministic `Math.random()`) and
 * the current instant; nothing here reads a clock.
 */

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Delay before each attempt, in milliseconds; index 0 is the first attempt (sent at once). */
export const attemptDelaysMs: readonly number[] = [
  0,
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  14 * HOUR_MS,
  20 * HOUR_MS,
  24 * HOUR_MS,
];

/** Attempts of one delivery before it is `FAILED`. */
export const maxDeliveryAttempts = attemptDelaysMs.length;

/** Relative jitter applied to every delay: ±20%. */
export const retryJitterRatio = 0.2;

/** Longest wait a receiver's `Retry-After` can impose on one retry. */
export const retryAfterCapMs = DAY_MS;

/** Continuous failure after which the service disables a subscription (`FAILING`). */
export const disableAfterFailingMs = 5 * DAY_MS;

/** Time one HTTP attempt may take before it counts as a timeout. */
export const attemptTimeoutMs = 15 * SECOND_MS;

/**
 * Time the TCP connection of one attempt may take (within `attemptTimeoutMs`): a receiver whose
 * address drops connection attempts fails after this, not after the whole 15 s, so it holds a
 * delivery slot for a third of the time.
 */
export const connectTimeoutMs = 5 * SECOND_MS;

/**
 * Limits of an attempt to an endpoint with no recent success (no attempt recorded yet, or its last one failed: its
 * breaker row, domain/webhooks/circuit-breaker.ts), on a delivery's first `unprovenShortAttempts` attempts: the
 * connection within 2 s and the answer within 5 s (the spec's "respond … ideally within five seconds" to a
 * webhook). A receiver that holds every connection open then holds a delivery slot for 5 s, not 15 s, in the first
 * minute of a burst, before its breaker has seen five failures. From the third attempt (5 minutes on) the full
 * limits apply, so a live but slow receiver is still reached.
 */
export const unprovenConnectTimeoutMs = 2 * SECOND_MS;
export const unprovenAttemptTimeoutMs = 5 * SECOND_MS;
export const unprovenShortAttempts = 2;

/** Connect and whole-attempt limits in ms of attempt `attempt` (1-based) of a delivery, `unproven` as above. */
export function attemptLimitsFor(
  attempt: number,
  unproven: boolean,
): { connectTimeoutMs: number; timeoutMs: number } {
  return unproven && attempt <= unprovenShortAttempts
    ? { connectTimeoutMs: unprovenConnectTimeoutMs, timeoutMs: unprovenAttemptTimeoutMs }
    : { connectTimeoutMs, timeoutMs: attemptTimeoutMs };
}

/**
 * Delay in ms before attempt `nextAttempt` (2..10), jittered by `random` in [0, 1):
 * `base × (1 − 20% + 40% × random)`, rounded to whole ms. `nextAttempt` 1 → 0.
 * Throws for an attempt outside 1..10 or a random outside [0, 1).
 */
export function retryDelayMs(nextAttempt: number, random: number): number {
  if (!Number.isInteger(nextAttempt) || nextAttempt < 1 || nextAttempt > maxDeliveryAttempts)
    throw new Error(`attempt must be 1..${maxDeliveryAttempts}`);
  if (!(random >= 0 && random < 1)) throw new Error('random must be in [0, 1)');
  const base = attemptDelaysMs[nextAttempt - 1]!;
  return Math.round(base * (1 - retryJitterRatio + 2 * retryJitterRatio * random));
}

/**
 * A `Retry-After` header value as a delay in ms from `nowMs` (RFC 9110 §10.2.3): delay-seconds
 * (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`). Null when absent or unreadable;
 * a date in the past → 0. Not capped here (see `nextAttemptDelayMs`).
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  if (value == null) return null;
  const text = value.trim();
  if (text === '') return null;
  if (/^[0-9]+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * SECOND_MS : null;
  }
  // HTTP-date (IMF-fixdate and the obsolete forms Date.parse reads); must name a weekday and GMT.
  if (!/GMT$/i.test(text) && !/^[A-Za-z]{3,9}, /.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/**
 * Delay in ms before attempt `nextAttempt`: the jittered schedule delay, unless the receiver's
 * `Retry-After` (ms, from `parseRetryAfterMs`) asks for longer; a Retry-After is capped at 24 h
 * and never shortens the schedule.
 */
export function nextAttemptDelayMs(nextAttempt: number, random: number, retryAfterMs: number | null): number {
  const scheduled = retryDelayMs(nextAttempt, random);
  if (retryAfterMs == null) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterMs, retryAfterCapMs));
}

/**
 * Whether a subscription failing continuously since `failingSinceMs` is to be disabled at
 * `nowMs` (docs/design.md §5: 5 days of continuous failure). Null `failingSinceMs` → false.
 */
export function shouldDisableForFailures(failingSinceMs: number | null, nowMs: number): boolean {
  return failingSinceMs != null && nowMs - failingSinceMs >= disableAfterFailingMs;
}

/** Whether an HTTP status counts as a successful delivery (2xx). */
export function isSuccessStatus(status: number | null): boolean {
  return status != null && status >= 200 && status <= 299;
}

/** 410 Gone: the receiver asks us to stop; the subscription is disabled (`GONE`). */
export function isGoneStatus(status: number | null): boolean {
  return status === 410;
}
