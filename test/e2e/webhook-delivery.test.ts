/**
 * End to end: the stack as `npm start` runs it, a real HTTP receiver on localhost, and
 * only public routes. The integrator subscribes through `POST /v1/servicing/webhook-subscriptions`
 * (the signing secret shown once), sends a test event, closes a case (the servicing demo flow) and
 * records a loan's history (the lending demo flow). The receiver verifies every delivery with
 * `client/src/webhooks.ts` and the test checks each envelope's `data` against the event
 * catalogue (domain/events.ts): `webhook.test`, `case.transitioned`, `funding.posted` and
 * `payment.posted` arrive signed, with exactly the catalogue's payloads.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventApiVersion, eventCatalogue, isEventType } from '../../domain/events';
import { runDemoFlow } from '../../scripts/demo-flow';
import { apiRequest, requestToken } from '../../scripts/http-client';
import { runLendingDemoFlow } from '../../scripts/lending-demo-flow';
import { type ReceivedDelivery, startReceiver } from '../support/webhooks';
import { type BootedService, bootService, createClientWithAdminCli } from './boot';

let booted: BootedService | undefined;

beforeAll(async () => {
  booted = await bootService('lending-e2e-webhooks-');
}, 120_000);

afterAll(async () => {
  await booted?.stop();
}, 60_000);

function received(receiver: { received: ReceivedDelivery[] }, eventType: string): ReceivedDelivery[] {
  return receiver.received.filter((r) => r.envelope?.eventType === eventType);
}

describe('npm start delivers signed webhooks to a subscribed receiver', () => {
  it('test event, case.transitioned, funding.posted and payment.posted arrive verified, with the catalogue payloads', async () => {
    const tenant = 'e2e-hooks';
    let secret = '';
    const receiver = await startReceiver({ secrets: () => [secret], answer: () => ({ status: 204 }) });
    try {
      const credential = await createClientWithAdminCli(
        booted!,
        tenant,
        'servicing:read servicing:write lending:read lending:write',
      );
      const session = {
        baseUrl: booted!.baseUrl,
        accessToken: await requestToken(
          booted!.baseUrl,
          credential,
          'servicing:read servicing:write',
          () => {},
        ),
        tenant,
        actor: 'e2e.integrator',
      };
      const created = await apiRequest(session, 'POST', '/v1/servicing/webhook-subscriptions', {
        url: receiver.url,
        eventTypes: ['case.transitioned', 'funding.posted', 'payment.posted'],
        apiVersion: eventApiVersion,
        description: 'e2e receiver',
      });
      expect(created.status).toBe(201);
      const subscription = (await created.json()) as { subscriptionId: number; signingSecret: string };
      secret = subscription.signingSecret;
      expect(secret).toMatch(/^whsec_/);

      const test = await apiRequest(
        session,
        'POST',
        `/v1/servicing/webhook-subscriptions/${subscription.subscriptionId}/test`,
        undefined,
      );
      expect(test.status).toBe(202);
      await runDemoFlow(booted!.baseUrl, credential);
      const lending = await runLendingDemoFlow(booted!.baseUrl, credential);

      await vi.waitFor(
        () => {
          expect(received(receiver, 'webhook.test')).toHaveLength(1);
          expect(received(receiver, 'case.transitioned')).toHaveLength(1);
          expect(received(receiver, 'funding.posted')).toHaveLength(1);
          expect(received(receiver, 'payment.posted')).toHaveLength(lending.paymentIds.length);
        },
        { timeout: 60_000, interval: 200 },
      );
      for (const delivery of receiver.received) {
        expect(delivery.verificationError).toBeNull();
        const envelope = delivery.envelope!;
        expect(isEventType(envelope.eventType)).toBe(true);
        const definition = eventCatalogue[envelope.eventType as keyof typeof eventCatalogue];
        expect(v.safeParse(definition.data, envelope.data).success, JSON.stringify(envelope)).toBe(true);
        expect(envelope).toMatchObject({
          apiVersion: eventApiVersion,
          subject: { type: definition.subjectType },
          eventId: expect.stringMatching(/^evt_/),
        });
        expect(delivery.headers['service-webhook-id']).toMatch(/^whd_/);
      }
      const payments = received(receiver, 'payment.posted').map(
        (d) => d.envelope!.data as { paymentId: number },
      );
      expect(payments.map((p) => p.paymentId).sort((a, b) => a - b)).toEqual(
        [...lending.paymentIds].sort((a, b) => a - b),
      );
      // Each attempt is recorded right after the receiver answered: wait for the last ones.
      await vi.waitFor(
        async () => {
          const deliveries = await apiRequest(
            session,
            'GET',
            `/v1/servicing/webhook-subscriptions/${subscription.subscriptionId}/deliveries?pageSize=200`,
            undefined,
          );
          const page = (await deliveries.json()) as {
            data: { state: string; attempts: { responseStatus: number }[] }[];
          };
          expect(page.data).toHaveLength(receiver.received.length);
          for (const d of page.data) {
            expect(d.state).toBe('SUCCEEDED');
            expect(d.attempts.map((a) => a.responseStatus)).toEqual([204]);
          }
        },
        { timeout: 15_000, interval: 200 },
      );
      // `npm start`'s one scrape: the worker's attempt counter, the SDK's worker metrics, the API's.
      const metrics = await fetch(`${booted!.baseUrl}/metrics`);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      const succeeded =
        /^webhook_delivery_attempts_total\{outcome="succeeded",status_class="2xx"\} (\d+)/m.exec(text);
      expect(Number(succeeded?.[1])).toBeGreaterThanOrEqual(receiver.received.length);
      expect(text).toMatch(/^temporal_[a-z_]+_total\{/m);
      expect(text).toMatch(
        /^http_requests_total\{method="POST",route="\/v1\/servicing\/webhook-subscriptions",status="201"\} \d/m,
      );
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
