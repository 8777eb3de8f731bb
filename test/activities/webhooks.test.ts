/**
 * Webhook subscription operations on the real PostgreSQL (docs/processes.md P2; docs/design.md §5
 * Webhooks): a create retried with the same request key leaves one subscription and one secret;
 * the secret is stored only encrypted (and bound to its row); rotation keeps the previous secret
 * for the overlap only, never more than two valid; `loadSigningSecrets` answers what signs at an
 * instant; deactivation cancels pending deliveries in the same transaction.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptIdentifier, encryptIdentifier } from '../../activities/customers/identifier-crypto';
import { decryptSigningSecret, loadSigningSecrets } from '../../activities/webhooks/secrets';
import { outboxEvents, webhookDeliveries, webhookSecrets, webhookSubscriptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, expectDomainError, newRequestKey, newTenant } from './helpers';

let h: ActivityHarness;
let tenant: string;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'whk');
});
afterAll(async () => h?.close());

function create(requestKey: string | null = newRequestKey(), url = 'https://hooks.example.com/in') {
  return h.activities.createWebhookSubscription({
    tenantId: tenant,
    requestKey,
    url,
    eventTypes: ['payment.posted', 'funding.posted'],
    apiVersion: '2026-11-01',
    description: 'Ledger sync',
  });
}

function secretRows(subscriptionId: number) {
  return withTenantTransaction(h.db, tenant, (tx) =>
    tx
      .select()
      .from(webhookSecrets)
      .where(eq(webhookSecrets.subscriptionId, subscriptionId))
      .orderBy(webhookSecrets.secretVersion),
  );
}

function signing(subscriptionId: number, at: Date) {
  return withTenantTransaction(h.db, tenant, (tx) =>
    loadSigningSecrets(tx, h.deps.dataEncryptionKey, tenant, subscriptionId, at),
  );
}

describe('createWebhookSubscription', () => {
  it('twice with the same request key creates one subscription with one secret', async () => {
    const requestKey = newRequestKey();
    const first = await create(requestKey);
    const second = await create(requestKey);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ status: 'ACTIVE', secretVersion: 1, version: 1 });
    expect(first.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.signingSecret.slice(6), 'base64')).toHaveLength(32);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(1);
    expect(await secretRows(first.subscriptionId)).toHaveLength(1);
  });

  it('stores the secret only encrypted, bound to its tenant, subscription and version', async () => {
    const created = await create();
    const [row] = await secretRows(created.subscriptionId);
    if (!row) throw new Error('no secret row');
    expect(row.secretCiphertext).not.toContain(created.signingSecret);
    expect(row.secretCiphertext).not.toContain(created.signingSecret.slice(6, 20));
    const context = { tenantId: tenant, subscriptionId: created.subscriptionId, secretVersion: 1 };
    expect(decryptSigningSecret(h.deps.dataEncryptionKey, context, row.secretCiphertext)).toBe(
      created.signingSecret,
    );
    expect(() =>
      decryptSigningSecret(h.deps.dataEncryptionKey, { ...context, secretVersion: 2 }, row.secretCiphertext),
    ).toThrow();
    expect(() =>
      decryptSigningSecret(h.deps.dataEncryptionKey, { ...context, tenantId: 'other' }, row.secretCiphertext),
    ).toThrow();
    // The subscription row holds no secret either.
    const [subscription] = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, created.subscriptionId)),
    );
    expect(JSON.stringify(subscription)).not.toContain('whsec_');
  });

  it('refuses a destination the environment forbids and writes nothing', async () => {
    const requestKey = newRequestKey();
    const err = await expectDomainError(
      create(requestKey, 'http://169.254.169.254/latest/meta-data'),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors[0]?.parameterName).toBe('url');
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(0);
  });

  it('leaves identifier ciphertexts readable through the shared encryption helper', () => {
    const context = { tenantId: tenant, identifierType: 'SSN' };
    const stored = encryptIdentifier(h.deps.dataEncryptionKey, context, '123-45-6789');
    expect(decryptIdentifier(h.deps.dataEncryptionKey, context, stored)).toBe('123-45-6789');
    expect(() =>
      decryptIdentifier(h.deps.dataEncryptionKey, { ...context, identifierType: 'EIN' }, stored),
    ).toThrow();
  });
});

describe('rotateWebhookSubscriptionSecret', () => {
  it('keeps the previous secret for the overlap only, newest first, never more than two', async () => {
    const created = await create();
    const t0 = new Date('2030-01-01T00:00:00.000Z');
    h.now.value = t0;
    try {
      const second = await h.activities.rotateWebhookSubscriptionSecret({
        tenantId: tenant,
        subscriptionId: created.subscriptionId,
        overlapSeconds: 3600,
      });
      expect(second.secretVersion).toBe(2);
      expect(second.previousSecretExpiresAt).toBe('2030-01-01T01:00:00.000Z');
      expect(second.signingSecret).not.toBe(created.signingSecret);
      expect(await signing(created.subscriptionId, t0)).toEqual([
        { secretVersion: 2, secret: second.signingSecret },
        { secretVersion: 1, secret: created.signingSecret },
      ]);
      expect(await signing(created.subscriptionId, new Date('2030-01-01T01:00:00.000Z'))).toEqual([
        { secretVersion: 2, secret: second.signingSecret },
      ]);

      // A second rotation inside the overlap ends version 1 at once: two valid secrets at most.
      h.now.value = new Date('2030-01-01T00:10:00.000Z');
      const third = await h.activities.rotateWebhookSubscriptionSecret({
        tenantId: tenant,
        subscriptionId: created.subscriptionId,
      });
      expect(third.secretVersion).toBe(3);
      expect(third.previousSecretExpiresAt).toBe('2030-01-02T00:10:00.000Z');
      const valid = await signing(created.subscriptionId, h.now.value);
      expect(valid.map((s) => s.secretVersion)).toEqual([3, 2]);

      // 0 revokes the old secret at once.
      const fourth = await h.activities.rotateWebhookSubscriptionSecret({
        tenantId: tenant,
        subscriptionId: created.subscriptionId,
        overlapSeconds: 0,
      });
      expect(fourth.previousSecretExpiresAt).toBe('2030-01-01T00:10:00.000Z');
      expect(await signing(created.subscriptionId, h.now.value)).toEqual([
        { secretVersion: 4, secret: fourth.signingSecret },
      ]);
      expect(await secretRows(created.subscriptionId)).toHaveLength(4);
      const [subscription] = await withTenantTransaction(h.db, tenant, (tx) =>
        tx.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, created.subscriptionId)),
      );
      expect(subscription).toMatchObject({ secretVersion: 4, version: 4 });
    } finally {
      h.now.value = null;
    }
  });

  it('refuses an overlap out of 0..604800 and another tenant’s subscription', async () => {
    const created = await create();
    for (const overlapSeconds of [-1, 604_801, 1.5]) {
      const err = await expectDomainError(
        h.activities.rotateWebhookSubscriptionSecret({
          tenantId: tenant,
          subscriptionId: created.subscriptionId,
          overlapSeconds,
        }),
        'validation.msg.validation.errors.exist',
      );
      expect(err.errors[0]?.parameterName).toBe('overlapSeconds');
    }
    expect(await secretRows(created.subscriptionId)).toHaveLength(1);
    const other = await newTenant(h, 'whk-other');
    await expectDomainError(
      h.activities.rotateWebhookSubscriptionSecret({
        tenantId: other,
        subscriptionId: created.subscriptionId,
      }),
      'error.msg.resource.not.found',
    );
    expect(await signing(created.subscriptionId, new Date())).toHaveLength(1);
  });
});

describe('deactivateWebhookSubscription and sendWebhookTestEvent', () => {
  it('cancels pending and retrying deliveries with the deactivation, keeps the others', async () => {
    const created = await create();
    const states = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'] as const;
    await withTenantTransaction(h.db, tenant, (tx) =>
      tx.insert(webhookDeliveries).values(
        states.map((state, i) => ({
          tenantId: tenant,
          deliveryId: `whd_act_${created.subscriptionId}_${i}`,
          subscriptionId: created.subscriptionId,
          eventId: `evt_act_${created.subscriptionId}_${i}`,
          eventType: 'payment.posted',
          state,
          nextAttemptAt: state === 'RETRYING' || state === 'PENDING' ? new Date() : null,
        })),
      ),
    );
    const result = await h.activities.deactivateWebhookSubscription({
      tenantId: tenant,
      subscriptionId: created.subscriptionId,
    });
    expect(result).toMatchObject({ status: 'INACTIVE', version: 2 });
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.subscriptionId, created.subscriptionId))
        .orderBy(webhookDeliveries.id),
    );
    expect(rows.map((r) => r.state)).toEqual(['CANCELLED', 'CANCELLED', 'SUCCEEDED', 'FAILED']);
    expect(rows.every((r) => r.nextAttemptAt === null || r.state !== 'CANCELLED')).toBe(true);
    await expectDomainError(
      h.activities.deactivateWebhookSubscription({
        tenantId: tenant,
        subscriptionId: created.subscriptionId,
      }),
      'error.msg.webhook.subscription.invalid.state.transition',
    );
    await expectDomainError(
      h.activities.sendWebhookTestEvent({ tenantId: tenant, subscriptionId: created.subscriptionId }),
      'error.msg.webhook.subscription.invalid.state.transition',
    );
  });

  it('writes one webhook.test outbox event per request key, targeted at the subscription', async () => {
    const created = await create();
    const requestKey = newRequestKey();
    const first = await h.activities.sendWebhookTestEvent({
      tenantId: tenant,
      requestKey,
      subscriptionId: created.subscriptionId,
    });
    const second = await h.activities.sendWebhookTestEvent({
      tenantId: tenant,
      requestKey,
      subscriptionId: created.subscriptionId,
    });
    expect(second).toEqual(first);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx
        .select()
        .from(outboxEvents)
        .where(
          and(
            eq(outboxEvents.eventType, 'webhook.test'),
            eq(outboxEvents.targetSubscriptionId, created.subscriptionId),
          ),
        ),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      eventId: first.eventId,
      subjectType: 'webhook_subscription',
      subjectId: String(created.subscriptionId),
      data: { subscriptionId: created.subscriptionId, message: expect.any(String) },
    });
  });
});
