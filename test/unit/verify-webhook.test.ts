/** client/src/webhooks.ts (the client's webhook verification) against what domain/webhooks/signature.ts produces (docs/design.md §5 Webhooks). */
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../client/src/webhooks';
import { signatureHeaderValue } from '../../domain/webhooks/signature';

const envelope = {
  eventId: 'evt_1',
  eventType: 'payment.posted',
  apiVersion: '2026-01-01',
  occurredAt: '2026-01-01T00:00:00.000Z',
  subject: { type: 'payment', id: '7' },
  data: { amount: '12.50' },
};
const body = JSON.stringify(envelope);
const now = 1_767_225_600_000;
const t = Math.floor(now / 1000);

function headers(secrets: string[], timestamp = t, raw = body) {
  return {
    'service-webhook-id': 'whd_1',
    'service-webhook-timestamp': String(timestamp),
    'service-webhook-signature': signatureHeaderValue(secrets, timestamp, raw),
  };
}

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
  return 'accepted';
}

describe('verifyWebhook', () => {
  it('accepts a genuine delivery and returns the envelope', () => {
    expect(verifyWebhook(body, headers(['s1']), ['s1'], { now })).toEqual(envelope);
    expect(verifyWebhook(Buffer.from(body), new Headers(headers(['s1'])), ['s1'], { now })).toEqual(envelope);
  });

  it('rejects a tampered body', () => {
    const h = headers(['s1']);
    expect(reasonOf(() => verifyWebhook(body.replace('12.50', '99.50'), h, ['s1'], { now }))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects a stale or future timestamp, and honours the tolerance', () => {
    expect(reasonOf(() => verifyWebhook(body, headers(['s1'], t - 301), ['s1'], { now }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(reasonOf(() => verifyWebhook(body, headers(['s1'], t + 301), ['s1'], { now }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(reasonOf(() => verifyWebhook(body, headers(['s1'], t - 300), ['s1'], { now }))).toBe('accepted');
    expect(
      reasonOf(() => verifyWebhook(body, headers(['s1'], t - 30), ['s1'], { now, toleranceSeconds: 10 })),
    ).toBe('timestamp_outside_tolerance');
  });

  it('rejects a re-signed timestamp (the signature covers it)', () => {
    const h = { ...headers(['s1'], t - 1000), 'service-webhook-timestamp': String(t) };
    expect(reasonOf(() => verifyWebhook(body, h, ['s1'], { now }))).toBe('signature_mismatch');
  });

  it('rejects a wrong secret', () => {
    expect(reasonOf(() => verifyWebhook(body, headers(['s1']), ['other'], { now }))).toBe(
      'signature_mismatch',
    );
  });

  it('accepts either secret during a rotation overlap', () => {
    const both = headers(['new', 'old']);
    expect(reasonOf(() => verifyWebhook(body, both, ['old'], { now }))).toBe('accepted');
    expect(reasonOf(() => verifyWebhook(body, both, ['new'], { now }))).toBe('accepted');
    // After the overlap only the new secret signs: a receiver still holding only the old one fails.
    expect(reasonOf(() => verifyWebhook(body, headers(['new']), ['old'], { now }))).toBe(
      'signature_mismatch',
    );
    expect(reasonOf(() => verifyWebhook(body, headers(['new']), ['old', 'new'], { now }))).toBe('accepted');
  });

  it('rejects missing headers, a bad timestamp, no secrets and a non-envelope body', () => {
    const h = headers(['s1']);
    const { 'service-webhook-signature': _s, ...noSignature } = h;
    expect(reasonOf(() => verifyWebhook(body, noSignature, ['s1'], { now }))).toBe('missing_header');
    expect(
      reasonOf(() => verifyWebhook(body, { ...h, 'service-webhook-timestamp': '12a' }, ['s1'], { now })),
    ).toBe('invalid_timestamp');
    expect(reasonOf(() => verifyWebhook(body, h, [], { now }))).toBe('no_secrets');
    expect(reasonOf(() => verifyWebhook('[1]', headers(['s1'], t, '[1]'), ['s1'], { now }))).toBe(
      'invalid_body',
    );
    expect(reasonOf(() => verifyWebhook('nope', headers(['s1'], t, 'nope'), ['s1'], { now }))).toBe(
      'invalid_body',
    );
  });
});
