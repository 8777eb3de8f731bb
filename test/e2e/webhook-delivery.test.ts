/**
 * End to end: the stack as `npm start` runs it relays outbox events to webhooks. A subscription
 * (written straight into the service's database until the subscription routes exist) points at a
 * real local receiver; the integrator flow closes a case, and the receiver gets the signed
 * `case.transitioned` event, verified with `receiver/verify-webhook.ts`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../db/client';
import { runDemoFlow } from '../../scripts/demo-flow';
import {
  createSubscriptionFixture,
  newSigningSecret,
  readDelivery,
  startReceiver,
} from '../support/webhooks';
import { type BootedService, bootService, createClientWithAdminCli } from './boot';

let booted: BootedService | undefined;

beforeAll(async () => {
  booted = await bootService('lending-e2e-webhooks-');
}, 120_000);

afterAll(async () => {
  await booted?.stop();
}, 60_000);

describe('npm start delivers webhooks', () => {
  it('a closed case reaches the subscribed receiver, signed', async () => {
    const tenant = 'e2e-hooks';
    const secret = newSigningSecret();
    const receiver = await startReceiver({ secrets: () => [secret], answer: () => ({ status: 204 }) });
    const keys = JSON.parse(await readFile(path.join(booted!.dataDir, 'dev-keys.json'), 'utf8')) as {
      dataEncryptionKey: string;
    };
    const database = createDb(
      `postgres://postgres:postgres@127.0.0.1:${booted!.env.EMBEDDED_POSTGRES_PORT}/lending`,
      { maxConnections: 2 },
    );
    try {
      const subscriptionId = await createSubscriptionFixture(database.db, keys.dataEncryptionKey, {
        tenantId: tenant,
        url: receiver.url,
        eventTypes: ['case.transitioned'],
        secrets: [{ secret }],
      });
      const credential = await createClientWithAdminCli(booted!, tenant, 'servicing:read servicing:write');
      await runDemoFlow(booted!.baseUrl, {
        tenant,
        clientId: credential.clientId,
        clientSecret: credential.clientSecret,
      });
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(1), {
        timeout: 30_000,
        interval: 100,
      });
      const [got] = receiver.received;
      expect(got!.verificationError).toBeNull();
      expect(got!.envelope).toMatchObject({
        eventType: 'case.transitioned',
        apiVersion: '2026-01-01',
        subject: { type: 'case' },
      });
      const deliveryId = String(got!.headers['service-webhook-id']);
      await vi.waitFor(
        async () => {
          const { delivery, attempts } = await readDelivery(database.db, tenant, deliveryId);
          expect(delivery).toMatchObject({ state: 'SUCCEEDED', subscriptionId, attemptCount: 1 });
          expect(attempts.map((a) => a.responseStatus)).toEqual([204]);
        },
        { timeout: 15_000, interval: 100 },
      );
    } finally {
      await database.close();
      await receiver.close();
    }
  });
});
