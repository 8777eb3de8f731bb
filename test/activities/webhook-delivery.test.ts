/**
 * The webhook delivery operations on the real test PostgreSQL (STYLE §11: each write run twice):
 * `prepareWebhookAttempt`, `recordWebhookAttempt`, `cancelWebhookDelivery`, and `sendWebhook`'s
 * address rules after DNS (DESIGN-processes P2 URLs) against a real local receiver.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliveryActivities } from '../../activities/webhooks';
import { openSealedSecret, sealSecret } from '../../activities/webhooks/sealed-secrets';
import { sendWebhook } from '../../activities/webhooks/send-webhook';
import {
  createSubscriptionFixture,
  insertDelivery,
  insertOutboxEvent,
  newSigningSecret,
  readDelivery,
  readSubscription,
  startReceiver,
} from '../support/webhooks';
import { type ActivityHarness, createHarness } from './helpers';

let h: ActivityHarness;
let ops: ReturnType<typeof createWebhookDeliveryActivities>;

beforeAll(() => {
  h = createHarness();
  ops = createWebhookDeliveryActivities(h.deps);
});
afterAll(async () => {
  await h.close();
});

async function fixture(
  secrets: { secret: string; expiresAt?: Date | null }[] = [{ secret: newSigningSecret() }],
) {
  const tenantId = `whact-${randomBytes(4).toString('hex')}`;
  const subscriptionId = await createSubscriptionFixture(h.db, h.deps.dataEncryptionKey, {
    tenantId,
    url: 'http://127.0.0.1:9/hooks',
    apiVersion: '2025-06-01',
    secrets,
  });
  const { eventId, eventType } = await insertOutboxEvent(h.db, { tenantId });
  const deliveryId = await insertDelivery(h.db, { tenantId, subscriptionId, eventId, eventType });
  return { tenantId, subscriptionId, eventId, deliveryId, secrets };
}

describe('prepareWebhookAttempt', () => {
  it('returns the URL, the envelope with the subscription apiVersion, and the valid secrets newest first', async () => {
    const old = newSigningSecret();
    const current = newSigningSecret();
    const expired = newSigningSecret();
    const f = await fixture([
      { secret: expired, expiresAt: new Date(Date.now() - 1000) },
      { secret: old, expiresAt: new Date(Date.now() + 3600_000) },
      { secret: current },
    ]);
    const prepared = await ops.prepareWebhookAttempt(f);
    if (!prepared.proceed) throw new Error('expected to proceed');
    expect(prepared.url).toBe('http://127.0.0.1:9/hooks');
    expect(JSON.parse(prepared.body)).toMatchObject({ eventId: f.eventId, apiVersion: '2025-06-01' });
    expect(prepared.signingSecrets.map((s) => s.secretVersion)).toEqual([3, 2]);
    // Sealed: the history never holds the secret itself.
    expect(JSON.stringify(prepared)).not.toContain(current.slice(6));
    expect(
      prepared.signingSecrets.map((s) =>
        openSealedSecret(h.deps.dataEncryptionKey, f.deliveryId, s.sealedSecret),
      ),
    ).toEqual([current, old]);
    expect(() =>
      openSealedSecret(h.deps.dataEncryptionKey, 'whd_other', prepared.signingSecrets[0]!.sealedSecret),
    ).toThrow();
    // The bytes are stable between calls.
    const again = await ops.prepareWebhookAttempt(f);
    expect(again.proceed && again.body).toBe(prepared.body);
  });

  it('does not proceed for a cancelled delivery', async () => {
    const f = await fixture();
    const at = new Date().toISOString();
    expect(await ops.cancelWebhookDelivery({ tenantId: f.tenantId, deliveryId: f.deliveryId, at })).toEqual({
      deliveryState: 'CANCELLED',
    });
    expect(await ops.cancelWebhookDelivery({ tenantId: f.tenantId, deliveryId: f.deliveryId, at })).toEqual({
      deliveryState: 'CANCELLED',
    });
    expect(await ops.prepareWebhookAttempt(f)).toEqual({
      proceed: false,
      reason: 'DELIVERY_CANCELLED',
      deliveryId: f.deliveryId,
    });
  });
});

describe('recordWebhookAttempt', () => {
  it('records each attempt once when run twice, and keeps failingSince from the first failure', async () => {
    const f = await fixture();
    const first = {
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: f.deliveryId,
      attempt: 1,
      at: '2026-03-01T00:00:00.000Z',
      responseStatus: 500,
      latencyMs: 12,
      error: 'HTTP 500',
      nextAttemptAt: '2026-03-01T00:00:05.000Z',
    };
    expect(await ops.recordWebhookAttempt(first)).toEqual({
      deliveryState: 'RETRYING',
      disabledReason: null,
    });
    expect(await ops.recordWebhookAttempt(first)).toEqual({
      deliveryState: 'RETRYING',
      disabledReason: null,
    });
    let read = await readDelivery(h.db, f.tenantId, f.deliveryId);
    expect(read.attempts).toHaveLength(1);
    expect(read.delivery).toMatchObject({ state: 'RETRYING', attemptCount: 1 });
    expect(read.delivery.nextAttemptAt?.toISOString()).toBe('2026-03-01T00:00:05.000Z');
    expect((await readSubscription(h.db, f.tenantId, f.subscriptionId)).failingSince?.toISOString()).toBe(
      '2026-03-01T00:00:00.000Z',
    );

    const second = { ...first, attempt: 2, at: '2026-03-01T00:00:05.000Z', responseStatus: 200, error: null };
    await ops.recordWebhookAttempt({ ...second, nextAttemptAt: null });
    await ops.recordWebhookAttempt({ ...second, nextAttemptAt: null });
    read = await readDelivery(h.db, f.tenantId, f.deliveryId);
    expect(read.attempts.map((a) => a.responseStatus)).toEqual([500, 200]);
    expect(read.delivery).toMatchObject({ state: 'SUCCEEDED', attemptCount: 2, nextAttemptAt: null });
    expect((await readSubscription(h.db, f.tenantId, f.subscriptionId)).failingSince).toBeNull();
  });

  it('a 410 disables the subscription (GONE) once', async () => {
    const f = await fixture();
    const input = {
      tenantId: f.tenantId,
      subscriptionId: f.subscriptionId,
      deliveryId: f.deliveryId,
      attempt: 1,
      at: '2026-03-01T00:00:00.000Z',
      responseStatus: 410,
      latencyMs: 3,
      error: 'HTTP 410',
      nextAttemptAt: null,
    };
    expect(await ops.recordWebhookAttempt(input)).toEqual({
      deliveryState: 'FAILED',
      disabledReason: 'GONE',
    });
    expect(await ops.recordWebhookAttempt(input)).toEqual({ deliveryState: 'FAILED', disabledReason: null });
    const subscription = await readSubscription(h.db, f.tenantId, f.subscriptionId);
    expect(subscription).toMatchObject({ status: 'DISABLED', disabledReason: 'GONE', version: 2 });
  });
});

describe('sendWebhook', () => {
  it('refuses, after DNS, a name that resolves to a private or metadata address in production', async () => {
    const production = { ...h.deps, environment: 'production' as const };
    for (const address of ['10.1.2.3', '169.254.169.254', '127.0.0.1', '::1']) {
      const send = sendWebhook(production, {
        resolveHost: async () => [
          { address: '93.184.216.34', family: 4 },
          { address, family: address.includes(':') ? 6 : 4 },
        ],
      });
      const result = await send({
        url: 'https://receiver.example/hooks',
        body: '{}',
        deliveryId: 'whd_x',
        signingSecrets: [],
      });
      expect(result.responseStatus).toBeNull();
      expect(result.error).toMatch(/^blocked address: /);
    }
  });

  it('sandbox: posts to a loopback receiver, pinned to the checked address, signed, and reads Retry-After', async () => {
    const secret = newSigningSecret();
    const receiver = await startReceiver({
      secrets: () => [secret],
      answer: () => ({ status: 503, headers: { 'retry-after': '120' } }),
    });
    const port = new URL(receiver.url).port;
    // The name resolves (by our resolver) to 127.0.0.1: the connection goes there, Host keeps the name.
    const send = sendWebhook(h.deps, { resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] });
    const body = '{"eventId":"evt_1","eventType":"payment.posted","subject":{"type":"payment","id":"1"}}';
    const result = await send({
      url: `http://hooks.receiver.test:${port}/hooks`,
      body,
      deliveryId: 'whd_x',
      signingSecrets: [
        { secretVersion: 1, sealedSecret: sealSecret(h.deps.dataEncryptionKey, 'whd_x', secret) },
      ],
    });
    expect(result).toMatchObject({ responseStatus: 503, error: 'HTTP 503', retryAfterMs: 120_000 });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers.host).toBe(`hooks.receiver.test:${port}`);
    expect(receiver.received[0]!.body).toBe(body);
    expect(receiver.received[0]!.verificationError).toBeNull();
    await receiver.close();
  });

  it('a refused connection is a result, not an exception', async () => {
    const send = sendWebhook(h.deps);
    const result = await send({
      url: 'http://127.0.0.1:9/hooks',
      body: '{}',
      deliveryId: 'whd_y',
      signingSecrets: [
        { secretVersion: 1, sealedSecret: sealSecret(h.deps.dataEncryptionKey, 'whd_y', 's') },
      ],
    });
    expect(result.responseStatus).toBeNull();
    expect(result.error).toBe('connection refused');
  });
});
