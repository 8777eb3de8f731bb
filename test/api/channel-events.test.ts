/**
 * `POST /v1/servicing/channel-events/{gatewayCode}` through the app, on the real database and the
 * test run's Temporal dev server with the servicing worker (docs/processes.md P2; docs/design.md §5
 * "Inbound channel events"): signature, replay window, unknown gateway and rotation; the durable
 * insert and duplicates; and the processing workflow: an SMS STOP revokes SMS consent, a delivery
 * status is recorded, a completed voice call logs an interaction, an unknown type is ignored.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelEvents, consents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { channelEventWorkflowId } from '../../domain/ids';
import type { ChannelEventWorkflowResult } from '../../workflows/channels/channel-event/types';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';

let ctx: TestContext;
let cred: Credential;
let gatewayCode: string;
let gatewaySecret: string;

beforeAll(async () => {
  ctx = await createTestContext();
  const tenant = uniqueTenant('chan');
  await ctx.platform.ensureTenant({ tenantId: tenant });
  cred = await credentialFor(ctx, tenant, {
    scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'],
  });
  gatewayCode = `sms-${randomBytes(4).toString('hex')}`;
  ({ gatewaySecret } = await ctx.platform.createChannelGateway({ tenantId: tenant, code: gatewayCode }));
});
afterAll(async () => ctx?.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);

function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** Posts `body` (exact text) signed with `secrets` at `timestamp` to the gateway's callback. */
async function deliver(
  body: unknown,
  options: { code?: string; secrets?: string[]; timestamp?: number; header?: string } = {},
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const timestamp = options.timestamp ?? nowSeconds();
  const header =
    options.header ??
    [
      `t=${timestamp}`,
      ...(options.secrets ?? [gatewaySecret]).map((s) => `v1=${sign(s, timestamp, text)}`),
    ].join(',');
  const res = await ctx.app.request(`/v1/servicing/channel-events/${options.code ?? gatewayCode}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-gateway-signature': header },
    body: text,
  });
  const raw = await res.text();
  return { status: res.status, body: raw ? JSON.parse(raw) : null, headers: res.headers };
}

function envelope(eventType: string, data: Record<string, unknown>) {
  return {
    eventId: `ev_${randomBytes(6).toString('hex')}`,
    eventType,
    occurredAt: new Date().toISOString(),
    data,
  };
}

async function processed(eventId: string): Promise<ChannelEventWorkflowResult> {
  return ctx.client.workflow.getHandle(channelEventWorkflowId(cred.tenant, gatewayCode, eventId)).result();
}

async function storedEvents(eventId: string): Promise<number> {
  const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx
      .select({ n: sql<number>`count(*)::int` })
      .from(channelEvents)
      .where(and(eq(channelEvents.gatewayCode, gatewayCode), eq(channelEvents.eventId, eventId))),
  );
  return rows[0]?.n ?? 0;
}

describe('signature and replay window', () => {
  it('refuses a wrong secret, a tampered body, a stale or future timestamp, a malformed header and an unknown gateway alike, storing nothing', async () => {
    const event = envelope('message.delivery_status', { messageId: 'm-1', status: 'DELIVERED' });
    const text = JSON.stringify(event);
    const t = nowSeconds();
    const refusals = [
      await deliver(event, { secrets: [`gws_${randomBytes(32).toString('base64url')}`] }),
      await deliver(`${text} `, { header: `t=${t},v1=${sign(gatewaySecret, t, text)}` }),
      // Read the clock at each call: on a loaded machine seconds pass between the calls, and a timestamp
      // computed once would drift into the window (the service checks against its own clock, to the second).
      await deliver(event, { timestamp: nowSeconds() - 302 }),
      await deliver(event, { timestamp: nowSeconds() + 302 }),
      await deliver(event, { header: `v1=${sign(gatewaySecret, t, text)}` }),
      await deliver(event, { header: `t=${t}` }),
      await deliver(event, { code: 'no-such-gateway' }),
      await deliver(event, { code: 'Not A Code' }),
    ];
    for (const refused of refusals) {
      expectShapeA(refused, 401, 'error.msg.not.authenticated');
      // The answer never says which part failed.
      expect(refused.body.developerMessage).toBe(refusals[0]!.body.developerMessage);
    }
    expect(await storedEvents(event.eventId)).toBe(0);
    // Inside the window on both sides it is accepted.
    expect((await deliver(event, { timestamp: nowSeconds() - 290 })).status).toBe(202);
  });

  it('accepts both secrets during a rotation overlap and only the new one after a zero-overlap rotation', async () => {
    const code = `rot-${randomBytes(4).toString('hex')}`;
    const first = await ctx.platform.createChannelGateway({ tenantId: cred.tenant, code });
    const second = await ctx.platform.rotateChannelGatewaySecret({ code, overlapSeconds: 3600 });
    expect(second.gatewaySecret).not.toBe(first.gatewaySecret);
    const data = { messageId: 'm-2', status: 'SENT' };
    expect(
      (await deliver(envelope('message.delivery_status', data), { code, secrets: [first.gatewaySecret] }))
        .status,
    ).toBe(202);
    expect(
      (await deliver(envelope('message.delivery_status', data), { code, secrets: [second.gatewaySecret] }))
        .status,
    ).toBe(202);
    const third = await ctx.platform.rotateChannelGatewaySecret({ code, overlapSeconds: 0 });
    expectShapeA(
      await deliver(envelope('message.delivery_status', data), { code, secrets: [second.gatewaySecret] }),
      401,
      'error.msg.not.authenticated',
    );
    // Both signatures in one header, new first, as a gateway mid-rotation sends them.
    expect(
      (
        await deliver(envelope('message.delivery_status', data), {
          code,
          secrets: [third.gatewaySecret, first.gatewaySecret],
        })
      ).status,
    ).toBe(202);
  });
});

describe('intake', () => {
  it('stores the event before answering 202; the same eventId again → 200 duplicate, stored once', async () => {
    const event = envelope('message.delivery_status', { messageId: 'm-3', status: 'DELIVERED' });
    const first = await deliver(event);
    expect(first).toMatchObject({ status: 202, body: { eventId: event.eventId, duplicate: false } });
    expect(await storedEvents(event.eventId)).toBe(1);
    const again = await deliver(event);
    expect(again).toMatchObject({ status: 200, body: { eventId: event.eventId, duplicate: true } });
    expect(await storedEvents(event.eventId)).toBe(1);
    expect(await processed(event.eventId)).toEqual({
      status: 'PROCESSED',
      outcome: { messageId: 'm-3', deliveryStatus: 'DELIVERED' },
    });
  });

  it('an authenticated but invalid body is a 400 naming the field, storing nothing', async () => {
    const missingFrom = envelope('sms.inbound', { text: 'STOP' });
    expectShapeA(await deliver(missingFrom), 400, 'validation.msg.validation.errors.exist', ['data.from']);
    const badId = { ...envelope('sms.inbound', { from: '+14155552671', text: 'hi' }), eventId: 'has space' };
    expectShapeA(await deliver(badId), 400, 'validation.msg.validation.errors.exist', ['eventId']);
    const extra = { ...envelope('sms.inbound', { from: '+14155552671', text: 'hi' }), tenant: 'x' };
    expectShapeA(await deliver(extra), 400, 'validation.msg.validation.errors.exist', ['tenant']);
    expectShapeA(await deliver('{not json'), 400, 'validation.msg.validation.errors.exist', ['body']);
    expect(await storedEvents(missingFrom.eventId)).toBe(0);
  });

  it('a voice call whose customerRef or summary carries an identifier → 400, the value not echoed, storing nothing', async () => {
    for (const [data, field] of [
      [{ customerRef: 'SSN 536-22-8417 acct 000123456789' }, 'data.customerRef'],
      [{ customerRef: 'cus_536-22-8417' }, 'data.customerRef'],
      [{ customerRef: 'cus_voice_1', summary: 'caller read SSN 536-22-8417' }, 'data.summary'],
    ] as const) {
      const event = envelope('voice.call.completed', data);
      const res = await deliver(event);
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [field]);
      expect(err.errors[0]?.value).toBeNull();
      expect(JSON.stringify(res.body)).not.toContain('8417');
      expect(await storedEvents(event.eventId)).toBe(0);
    }
  });

  it('a signed body with NUL or a lone surrogate in any string → 400 naming the field, storing nothing', async () => {
    for (const bad of ['\u0000', '\ud800']) {
      const event = envelope('message.delivery_status', { messageId: 'm', status: `sent${bad}` });
      const res = await deliver(event);
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['data.status']);
      expect(err.errors[0]?.value).toBeNull();
      expect(await storedEvents(event.eventId)).toBe(0);
    }
    expectShapeA(
      await deliver(envelope('sms.inbound', { from: '+14155552671', text: 'hi' }), { code: 'sms%00' }),
      400,
      'validation.msg.validation.errors.exist',
      ['path.gatewayCode'],
    );
  });

  it('a signed body nested 2,000 levels deep → 400 on body before any walk of it (was a stack overflow → 500), nothing stored', async () => {
    const event = envelope('message.delivery_status', { messageId: 'm', status: 'sent' });
    const text = JSON.stringify(event).replace(
      '"status":"sent"',
      `"status":"sent","deep":${'['.repeat(2000)}${']'.repeat(2000)}`,
    );
    const res = await deliver(text);
    const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['body']);
    expect(
      (err.errors[0] as unknown as { userMessageGlobalisationCode: string }).userMessageGlobalisationCode,
    ).toBe('validation.msg.json.nesting.too.deep');
    expect(await storedEvents(event.eventId)).toBe(0);
  });

  it('a body over 64 KiB is refused with 413', async () => {
    const big = envelope('message.delivery_status', { messageId: 'm', status: 'x', pad: 'x'.repeat(70_000) });
    expectShapeA(await deliver(big), 413, 'error.msg.payload.too.large');
  });
});

describe('processing', () => {
  it('an SMS STOP revokes SMS consent on the matching phone at once; other texts change nothing', async () => {
    const created = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'Sam',
      lastName: 'Stop',
      contactPoints: [{ contactType: 'PHONE', value: '(415) 555-2671' }],
    });
    expect(created.status).toBe(201);
    const customerId = created.body.customerId as number;

    const chatter = envelope('sms.inbound', { from: '+1 415 555 2671', text: 'when is my payment due?' });
    expect((await deliver(chatter)).status).toBe(202);
    expect(await processed(chatter.eventId)).toEqual({ status: 'PROCESSED', outcome: { optOut: false } });

    const stop = envelope('sms.inbound', { from: '+14155552671', text: ' stop ' });
    expect((await deliver(stop)).status).toBe(202);
    const result = await processed(stop.eventId);
    expect(result.status).toBe('PROCESSED');
    expect(result.outcome).toMatchObject({ optOut: true, consentIds: [expect.any(Number)] });

    const read = await call(ctx, cred, 'GET', `/v1/customers/${customerId}`);
    expect(read.body.contactPoints[0]).toMatchObject({ contactType: 'PHONE', canReceiveSms: false });
    const smsConsents = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select()
        .from(consents)
        .where(and(eq(consents.customerId, customerId), eq(consents.consentType, 'SMS'))),
    );
    expect(smsConsents).toHaveLength(1);
    expect(smsConsents[0]).toMatchObject({
      granted: false,
      captureMethod: 'SMS_KEYWORD',
      evidenceRef: `channel-event/${gatewayCode}/${stop.eventId}`,
    });
    const history = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history`);
    expect(history.body.items.map((i: { action: string }) => i.action)).toContain('CONSENT_RECORDED');

    // A duplicate delivery of the STOP revokes nothing twice.
    expect((await deliver(stop)).status).toBe(200);
    const after = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select()
        .from(consents)
        .where(and(eq(consents.customerId, customerId), eq(consents.consentType, 'SMS'))),
    );
    expect(after).toHaveLength(1);
  });

  it('a completed voice call logs a VOICE interaction; an unknown type is kept and ignored', async () => {
    const call1 = envelope('voice.call.completed', {
      customerRef: 'cus_voice_1',
      direction: 'OUTBOUND',
      durationSeconds: 95,
    });
    expect((await deliver(call1)).status).toBe(202);
    const result = await processed(call1.eventId);
    expect(result.status).toBe('PROCESSED');
    const interactionId = result.outcome.interactionId as number;
    const interaction = await call(ctx, cred, 'GET', `/v1/servicing/interactions/${interactionId}`);
    expect(interaction.body).toMatchObject({
      customerRef: 'cus_voice_1',
      channel: 'VOICE',
      direction: 'OUTBOUND',
      summary: 'Voice call completed (95 s)',
    });

    const unknown = envelope('fax.received', { pages: 3 });
    expect((await deliver(unknown)).status).toBe(202);
    expect(await processed(unknown.eventId)).toEqual({
      status: 'IGNORED',
      outcome: { reason: 'event type fax.received is not handled' },
    });
  });

  it('a voice call naming a closed case or another customer’s logs the interaction without the case', async () => {
    const opened = await call(ctx, cred, 'POST', '/v1/servicing/cases', {
      customerRef: 'cus_voice_2',
      caseTypeCode: 'GENERAL',
      summary: 'Call back',
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const caseId = opened.body.caseId as number;
    const other = envelope('voice.call.completed', { customerRef: 'cus_voice_3', caseId });
    expect((await deliver(other)).status).toBe(202);
    const mismatch = await processed(other.eventId);
    expect(mismatch).toMatchObject({
      status: 'PROCESSED',
      outcome: { caseRefused: 'error.msg.case.customer.mismatch' },
    });
    const logged = await call(
      ctx,
      cred,
      'GET',
      `/v1/servicing/interactions/${mismatch.outcome.interactionId}`,
    );
    expect(logged.body).toMatchObject({ customerRef: 'cus_voice_3', caseId: null, channel: 'VOICE' });
    const closed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'RESOLVED',
      closureReason: 'Done',
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const late = envelope('voice.call.completed', { customerRef: 'cus_voice_2', caseId });
    expect((await deliver(late)).status).toBe(202);
    expect(await processed(late.eventId)).toMatchObject({
      status: 'PROCESSED',
      outcome: { caseRefused: 'error.msg.case.invalid.state.transition' },
    });
  });
});
