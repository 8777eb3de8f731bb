/** domain/webhooks/signature.ts and retry-schedule.ts (docs/design.md §5 Webhooks). */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attemptDelaysMs,
  isGoneStatus,
  isSuccessStatus,
  maxDeliveryAttempts,
  nextAttemptDelayMs,
  parseRetryAfterMs,
  retryDelayMs,
  shouldDisableForFailures,
} from '../../domain/webhooks/retry-schedule';
import { signatureHeaderValue, signPayload } from '../../domain/webhooks/signature';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = '{"eventId":"evt_1","eventType":"payment.posted","data":{"amount":"12.50"}}';

describe('signature', () => {
  it('is hex HMAC-SHA256 over "<timestamp>.<raw body>" (checked with node:crypto)', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signPayload(secret, 1_700_000_000, body)).toBe(expected);
    expect(signatureHeaderValue([secret], 1_700_000_000, body)).toBe(`v1=${expected}`);
  });

  it('has a fixed vector', () => {
    expect(signPayload('key', 0, 'x')).toBe(createHmac('sha256', 'key').update('0.x').digest('hex'));
    expect(signPayload('key', 0, 'x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lists one v1 entry per secret, in the given (newest-first) order', () => {
    const header = signatureHeaderValue(['new', 'old'], 42, body);
    const [first, second] = header.split(',');
    expect(first).toBe(`v1=${createHmac('sha256', 'new').update(`42.${body}`).digest('hex')}`);
    expect(second).toBe(`v1=${createHmac('sha256', 'old').update(`42.${body}`).digest('hex')}`);
  });

  it('changes with the body, the timestamp and non-ASCII bytes', () => {
    expect(signPayload(secret, 1, body)).not.toBe(signPayload(secret, 2, body));
    expect(signPayload(secret, 1, body)).not.toBe(signPayload(secret, 1, `${body} `));
    const unicode = '{"name":"Zoë €"}';
    expect(signPayload(secret, 1, unicode)).toBe(
      createHmac('sha256', secret)
        .update(Buffer.from(`1.${unicode}`, 'utf8'))
        .digest('hex'),
    );
  });

  it('refuses no secret and a bad timestamp', () => {
    expect(() => signatureHeaderValue([], 1, body)).toThrow();
    expect(() => signPayload(secret, 1.5, body)).toThrow();
    expect(() => signPayload(secret, -1, body)).toThrow();
  });
});

describe('retry schedule', () => {
  it('has the ten attempts of docs/design.md §5', () => {
    expect(maxDeliveryAttempts).toBe(10);
    expect(attemptDelaysMs.map((ms) => ms / 1000)).toEqual([
      0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400,
    ]);
  });

  it('applies ±20% jitter from the given random', () => {
    expect(retryDelayMs(1, 0.99)).toBe(0);
    expect(retryDelayMs(2, 0)).toBe(4000);
    expect(retryDelayMs(2, 0.5)).toBe(5000);
    expect(retryDelayMs(10, 0)).toBe(0.8 * 86_400_000);
    expect(retryDelayMs(10, 0.999999)).toBeLessThanOrEqual(1.2 * 86_400_000);
    expect(retryDelayMs(10, 0.999999)).toBeGreaterThan(1.19 * 86_400_000);
    for (let attempt = 2; attempt <= 10; attempt += 1) {
      for (const random of [0, 0.25, 0.5, 0.75, 0.9999]) {
        const delay = retryDelayMs(attempt, random);
        const base = attemptDelaysMs[attempt - 1]!;
        expect(delay).toBeGreaterThanOrEqual(base * 0.8);
        expect(delay).toBeLessThanOrEqual(base * 1.2);
      }
    }
  });

  it('rejects attempts outside 1..10 and randoms outside [0,1)', () => {
    expect(() => retryDelayMs(0, 0.5)).toThrow();
    expect(() => retryDelayMs(11, 0.5)).toThrow();
    expect(() => retryDelayMs(2, 1)).toThrow();
    expect(() => retryDelayMs(2, -0.1)).toThrow();
  });

  it('parses Retry-After as seconds or an HTTP date relative to now', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:10:00 GMT', now)).toBe(600_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs(null, now)).toBeNull();
    expect(parseRetryAfterMs('', now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs('-5', now)).toBeNull();
    expect(parseRetryAfterMs('1.5', now)).toBeNull();
  });

  it('lets a later Retry-After win, capped at 24 h, never shortening the schedule', () => {
    expect(nextAttemptDelayMs(2, 0.5, null)).toBe(5000);
    expect(nextAttemptDelayMs(2, 0.5, 60_000)).toBe(60_000);
    expect(nextAttemptDelayMs(3, 0.5, 1000)).toBe(300_000);
    expect(nextAttemptDelayMs(2, 0.5, 10 * 86_400_000)).toBe(86_400_000);
  });

  it('disables after five days of continuous failure', () => {
    const day = 86_400_000;
    expect(shouldDisableForFailures(null, 10 * day)).toBe(false);
    expect(shouldDisableForFailures(0, 5 * day - 1)).toBe(false);
    expect(shouldDisableForFailures(0, 5 * day)).toBe(true);
  });

  it('classifies statuses', () => {
    expect(isSuccessStatus(200)).toBe(true);
    expect(isSuccessStatus(299)).toBe(true);
    expect(isSuccessStatus(300)).toBe(false);
    expect(isSuccessStatus(null)).toBe(false);
    expect(isGoneStatus(410)).toBe(true);
    expect(isGoneStatus(404)).toBe(false);
  });
});
