/**
 * Webhook subscriptions over HTTP (docs/integrating.md "Webhooks"; docs/processes.md P2; docs/design.md §5 Webhooks):
 * every route under /v1/servicing/webhook-subscriptions with its codes, the secret shown once,
 * `pageSize` + signed `cursor` paging, If-Match optimistic concurrency, rotation bounds,
 * deactivation, the targeted test event, the deliveries view, cross-tenant 404s, strict bodies
 * and the production URL policy (SSRF refusals).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningSecrets } from '../../activities/webhooks/secrets';
import {
  idempotencyKeys,
  outboxEvents,
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookSecrets,
  webhookSubscriptions,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  testSecrets,
  uniqueTenant,
} from '../support/context';
import { type ApiResponse, countRows, expectShapeA, type Json, newKey } from './helpers';

const base = '/v1/servicing/webhook-subscriptions';

/** The stored response of an Idempotency-Key, as text. */
async function storedResponse(as: Credential, key: string): Promise<string> {
  const rows = await withTenantTransaction(ctx.db, as.tenant, (tx) =>
    tx
      .select({ body: idempotencyKeys.responseBody })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.clientId, as.clientId), eq(idempotencyKeys.key, key))),
  );
  expect(rows).toHaveLength(1);
  return rows[0]?.body ?? '';
}

let ctx: TestContext;
let cred: Credential;
let otherTenant: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('whk'));
  otherTenant = await credentialFor(ctx, uniqueTenant('whk-other'));
});
afterAll(async () => ctx?.close());

const validBody = {
  url: 'https://hooks.example.com/lending',
  eventTypes: ['payment.posted', 'case.transitioned'],
  apiVersion: '2026-11-01',
  description: 'Ledger sync',
};

async function createSubscription(
  as: Credential = cred,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Json> {
  const res = await call(ctx, as, 'POST', base, { ...validBody, ...body }, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

function subscriptionCount(as: Credential): Promise<number> {
  return countRows(ctx, as.tenant, webhookSubscriptions);
}

describe('POST /v1/servicing/webhook-subscriptions', () => {
  it('creates an ACTIVE subscription and shows its signing secret exactly once', async () => {
    const res = await call(ctx, cred, 'POST', base, validBody);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'subscriptionId',
        'url',
        'eventTypes',
        'apiVersion',
        'description',
        'includeBoardedHistory',
        'status',
        'secretVersion',
        'signingSecret',
        'version',
        'createdAt',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      ...validBody,
      includeBoardedHistory: false,
      subscriptionId: expect.any(Number),
      status: 'ACTIVE',
      secretVersion: 1,
      version: 1,
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(res.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const secret: string = res.body.signingSecret;
    const id = res.body.subscriptionId;

    const read = await call(ctx, cred, 'GET', `${base}/${id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(read.body).not.toHaveProperty('signingSecret');
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(read.body).toEqual({
      subscriptionId: id,
      ...validBody,
      includeBoardedHistory: false,
      status: 'ACTIVE',
      secretVersion: 1,
      version: 1,
      createdAt: res.body.createdAt,
      updatedAt: expect.any(String),
    });
    const list = await call(ctx, cred, 'GET', `${base}?pageSize=200`);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    // Stored only encrypted.
    const [stored] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(webhookSecrets).where(eq(webhookSecrets.subscriptionId, id)),
    );
    expect(stored?.secretCiphertext).not.toContain(secret.slice(6));
  });

  it('refuses the 101st ACTIVE subscription of a tenant with 409 limit.reached, writing nothing; a replay and a create after a deactivation still work', async () => {
    const tenant = await credentialFor(ctx, uniqueTenant('whk-cap'));
    const firstKey = newKey();
    const first = await createSubscription(tenant, {}, { 'idempotency-key': firstKey });
    for (let i = 1; i < 100; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, 100 - i) }, () =>
          createSubscription(tenant, { description: `n${i}` }),
        ),
      );
    expect(await countRows(ctx, tenant.tenant, webhookSubscriptions)).toBe(100);

    const refused = await call(ctx, tenant, 'POST', base, validBody, { 'idempotency-key': newKey() });
    const error = expectShapeA(refused, 409, 'error.msg.webhook.subscription.limit.reached');
    expect(error.developerMessage).toMatch(/100/);
    expect(await countRows(ctx, tenant.tenant, webhookSubscriptions)).toBe(100);
    expect(await countRows(ctx, tenant.tenant, webhookSecrets)).toBe(100);

    // The first create retried with its key is the same subscription, not a 101st.
    const replay = await call(ctx, tenant, 'POST', base, validBody, { 'idempotency-key': firstKey });
    expect(replay.status).toBe(201);
    expect(replay.body.subscriptionId).toBe(first.subscriptionId);

    // Only ACTIVE subscriptions count: after a deactivation there is room for one more.
    expect((await call(ctx, tenant, 'POST', `${base}/${first.subscriptionId}/deactivate`)).status).toBe(200);
    await createSubscription(tenant);
    expectShapeA(
      await call(ctx, tenant, 'POST', base, validBody),
      409,
      'error.msg.webhook.subscription.limit.reached',
    );
  });

  it('replays a create with the same Idempotency-Key: one subscription', async () => {
    const key = newKey('whk');
    const before = await subscriptionCount(cred);
    const first = await call(ctx, cred, 'POST', base, validBody, { 'idempotency-key': key });
    const second = await call(ctx, cred, 'POST', base, validBody, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('x-served-from-cache')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(second.body.signingSecret).toMatch(/^whsec_/);
    expect(await subscriptionCount(cred)).toBe(before + 1);
    // The key store keeps the answer for the replay (byte for byte, above), but only encrypted.
    const stored = await storedResponse(cred, key);
    expect(stored).toMatch(/^sealed:v1:/);
    expect(stored).not.toContain(first.body.signingSecret);
    expect(stored).not.toContain('whsec_');
    const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select()
        .from(webhookSubscriptions)
        .where(eq(webhookSubscriptions.requestKey, `${cred.clientId}/${key}`)),
    );
    expect(rows).toHaveLength(1);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['no url', { url: undefined }, 'url'],
    ['empty eventTypes', { eventTypes: [] }, 'eventTypes'],
    ['a repeated event type', { eventTypes: ['payment.posted', 'payment.posted'] }, 'eventTypes'],
    ['an unknown event type', { eventTypes: ['payment.exploded'] }, 'eventTypes[0]'],
    ['webhook.test as a filter', { eventTypes: ['webhook.test'] }, 'eventTypes[0]'],
    ['an impossible apiVersion date', { apiVersion: '2026-02-30' }, 'apiVersion'],
    ['an apiVersion that is not a date', { apiVersion: 'v1' }, 'apiVersion'],
    ['no description', { description: undefined }, 'description'],
    ['an unknown field', { secret: 'mine' }, 'secret'],
    ['a URL that is not a URL', { url: 'hooks.example.com' }, 'url'],
    ['a URL with credentials', { url: 'https://user:pw@hooks.example.com/' }, 'url'],
    ['a link-local (metadata) address', { url: 'http://169.254.169.254/latest' }, 'url'],
    ['a private address', { url: 'https://10.1.2.3/hook' }, 'url'],
  ];
  for (const [what, change, parameterName] of invalid) {
    it(`refuses ${what} with 400 naming ${parameterName}, writing nothing`, async () => {
      const before = await subscriptionCount(cred);
      const res = await call(
        ctx,
        cred,
        'POST',
        base,
        { ...validBody, ...change },
        { 'idempotency-key': newKey() },
      );
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
      expect(err.errors.map((e) => e.parameterName)).toContain(parameterName);
      expect(await subscriptionCount(cred)).toBe(before);
    });
  }

  it('allows http and loopback receivers in sandbox', async () => {
    const created = await createSubscription(cred, { url: 'http://127.0.0.1:8080/hooks' });
    expect(created.url).toBe('http://127.0.0.1:8080/hooks');
  });

  it('needs servicing:write and CREATE_WEBHOOKSUBSCRIPTION', async () => {
    const reader = await credentialFor(ctx, cred.tenant, { scopes: ['servicing:read'] });
    expectShapeA(await call(ctx, reader, 'POST', base, validBody), 403, 'error.msg.not.authorized');
    const noPermission = await credentialFor(ctx, cred.tenant, {
      permissions: ['READ_WEBHOOKSUBSCRIPTION'],
    });
    expectShapeA(await call(ctx, noPermission, 'POST', base, validBody), 403, 'error.msg.not.authorized');
    expect((await call(ctx, noPermission, 'GET', base)).status).toBe(200);
  });
});

describe('GET /v1/servicing/webhook-subscriptions (pageSize, cursor)', () => {
  let pager: Credential;
  let ids: number[];

  beforeAll(async () => {
    pager = await credentialFor(ctx, uniqueTenant('whk-page'));
    ids = [];
    for (let i = 0; i < 5; i++)
      ids.push((await createSubscription(pager, { description: `sub ${i}` })).subscriptionId);
  });

  it('pages in creation order with nextCursor, null on the last page', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?pageSize=2&cursor=${encodeURIComponent(cursor)}` : '?pageSize=2';
      const res = await call(ctx, pager, 'GET', `${base}${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'nextCursor']);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      for (const s of res.body.data) {
        expect(s).not.toHaveProperty('signingSecret');
        seen.push(s.subscriptionId);
      }
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
  });

  it('defaults to 50 and answers nextCursor null when everything fits', async () => {
    const res = await call(ctx, pager, 'GET', base);
    expect(res.body.data.map((s: Json) => s.subscriptionId)).toEqual(ids);
    expect(res.body.nextCursor).toBeNull();
  });

  it('refuses pageSize out of 1..200, unknown parameters, and tampered or foreign cursors', async () => {
    for (const pageSize of ['0', '201', 'ten', '-1', '1.5']) {
      expectShapeA(
        await call(ctx, pager, 'GET', `${base}?pageSize=${pageSize}`),
        400,
        'validation.msg.validation.errors.exist',
        ['pageSize'],
      );
    }
    expectShapeA(
      await call(ctx, pager, 'GET', `${base}?limit=2`),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
    const first = await call(ctx, pager, 'GET', `${base}?pageSize=1`);
    const cursor: string = first.body.nextCursor;
    const [body, signature] = cursor.split('.');
    const tampered = `${body}.${signature?.startsWith('A') ? 'B' : 'A'}${signature?.slice(1)}`;
    expectShapeA(
      await call(ctx, pager, 'GET', `${base}?cursor=${encodeURIComponent(tampered)}`),
      400,
      'validation.msg.validation.errors.exist',
      ['cursor'],
    );
    expectShapeA(
      await call(ctx, pager, 'GET', `${base}?cursor=garbage`),
      400,
      'validation.msg.validation.errors.exist',
      ['cursor'],
    );
    // A cursor of the deliveries route is refused here, and the other way round.
    const deliveries = await call(
      ctx,
      pager,
      'GET',
      `${base}/${ids[0]}/deliveries?cursor=${encodeURIComponent(cursor)}`,
    );
    expectShapeA(deliveries, 400, 'validation.msg.cursor.query.mismatch', ['cursor']);
  });

  it('shows no other tenant’s subscriptions', async () => {
    const res = await call(ctx, otherTenant, 'GET', `${base}?pageSize=200`);
    const theirs = new Set(res.body.data.map((s: Json) => s.subscriptionId));
    for (const id of ids) expect(theirs.has(id)).toBe(false);
  });
});

describe('PATCH /v1/servicing/webhook-subscriptions/{id} (If-Match)', () => {
  it('changes filters and destination under the current ETag and bumps the version', async () => {
    const created = await createSubscription();
    const res = await call(
      ctx,
      cred,
      'PATCH',
      `${base}/${created.subscriptionId}`,
      { eventTypes: ['funding.posted'], url: 'https://hooks.example.com/v2' },
      { 'if-match': '"1"' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body).toMatchObject({
      eventTypes: ['funding.posted'],
      url: 'https://hooks.example.com/v2',
      description: validBody.description,
      version: 2,
    });
    expect(res.body).not.toHaveProperty('signingSecret');
    const read = await call(ctx, cred, 'GET', `${base}/${created.subscriptionId}`);
    expect(read.body).toEqual(res.body);
    expect(read.headers.get('etag')).toBe('"2"');
  });

  it('includeBoardedHistory: set at creation, shown on reads, patched; a non-boolean is a 400 changing nothing', async () => {
    const created = await createSubscription(cred, { includeBoardedHistory: true });
    expect(created.includeBoardedHistory).toBe(true);
    const path = `${base}/${created.subscriptionId}`;
    expect((await call(ctx, cred, 'GET', path)).body.includeBoardedHistory).toBe(true);
    const listed = await call(ctx, cred, 'GET', `${base}?pageSize=200`);
    expect(
      listed.body.data.find((s: Json) => s.subscriptionId === created.subscriptionId)?.includeBoardedHistory,
    ).toBe(true);
    for (const bad of ['yes', 1, null]) {
      expectShapeA(
        await call(ctx, cred, 'POST', base, { ...validBody, includeBoardedHistory: bad }),
        400,
        'validation.msg.validation.errors.exist',
        ['includeBoardedHistory'],
      );
      expectShapeA(
        await call(ctx, cred, 'PATCH', path, { includeBoardedHistory: bad }, { 'if-match': '"1"' }),
        400,
        'validation.msg.validation.errors.exist',
        ['includeBoardedHistory'],
      );
    }
    expect((await call(ctx, cred, 'GET', path)).body).toMatchObject({
      includeBoardedHistory: true,
      version: 1,
    });
    const patched = await call(
      ctx,
      cred,
      'PATCH',
      path,
      { includeBoardedHistory: false },
      { 'if-match': '"1"' },
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      includeBoardedHistory: false,
      version: 2,
      eventTypes: validBody.eventTypes,
    });
    const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, created.subscriptionId)),
    );
    expect(row?.includeBoardedHistory).toBe(false);
  });

  it('answers 428 without If-Match and 409 for another version, changing nothing', async () => {
    const created = await createSubscription();
    const path = `${base}/${created.subscriptionId}`;
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { description: 'x' }),
      428,
      'error.msg.precondition.required',
      ['header.If-Match'],
    );
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { description: 'x' }, { 'if-match': '"7"' }),
      409,
      'error.msg.webhook.subscription.version.conflict',
    );
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { description: 'x' }, { 'if-match': '1' }),
      400,
      'validation.msg.validation.errors.exist',
      ['header.If-Match'],
    );
    const read = await call(ctx, cred, 'GET', path);
    expect(read.body).toMatchObject({ description: validBody.description, version: 1 });
  });

  it('lets exactly one of two concurrent PATCHes with the same If-Match win', async () => {
    const created = await createSubscription();
    const path = `${base}/${created.subscriptionId}`;
    const results = await Promise.all(
      ['first', 'second'].map((description) =>
        call(ctx, cred, 'PATCH', path, { description }, { 'if-match': '"1"' }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409) as ApiResponse;
    expectShapeA(loser, 409, 'error.msg.webhook.subscription.version.conflict');
    const winner = results.find((r) => r.status === 200) as ApiResponse;
    const read = await call(ctx, cred, 'GET', path);
    expect(read.body).toMatchObject({ version: 2, description: winner.body.description });
  });

  it('refuses an empty change, unknown fields, bad values and a forbidden URL with 400', async () => {
    const created = await createSubscription();
    const path = `${base}/${created.subscriptionId}`;
    const ifMatch = { 'if-match': '"1"' };
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, {}, ifMatch),
      400,
      'validation.msg.validation.errors.exist',
    );
    const unknown = expectShapeA(
      await call(ctx, cred, 'PATCH', path, { status: 'INACTIVE' }, ifMatch),
      400,
      'validation.msg.validation.errors.exist',
    );
    expect(unknown.errors.map((e) => e.parameterName)).toContain('status');
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { apiVersion: '2027-01-01' }, ifMatch),
      400,
      'validation.msg.validation.errors.exist',
    );
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { eventTypes: [] }, ifMatch),
      400,
      'validation.msg.validation.errors.exist',
      ['eventTypes'],
    );
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { url: 'https://192.168.1.10/' }, ifMatch),
      400,
      'validation.msg.validation.errors.exist',
      ['url'],
    );
    const read = await call(ctx, cred, 'GET', path);
    expect(read.body.version).toBe(1);
  });
});

describe('POST /v1/servicing/webhook-subscriptions/{id}/rotate-secret', () => {
  it('issues a new secret once, keeps the previous one for the overlap, and reads never show either', async () => {
    const created = await createSubscription();
    const path = `${base}/${created.subscriptionId}`;
    const key = newKey('rot');
    const started = Date.now();
    const res = await call(ctx, cred, 'POST', `${path}/rotate-secret`, {}, { 'idempotency-key': key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'previousSecretExpiresAt',
      'secretVersion',
      'signingSecret',
    ]);
    expect(res.body.secretVersion).toBe(2);
    expect(res.body.signingSecret).toMatch(/^whsec_/);
    expect(res.body.signingSecret).not.toBe(created.signingSecret);
    const expires = Date.parse(res.body.previousSecretExpiresAt);
    expect(expires - started).toBeGreaterThanOrEqual(86_400_000 - 5_000);
    expect(expires - started).toBeLessThanOrEqual(86_400_000 + 5_000);
    const replay = await call(ctx, cred, 'POST', `${path}/rotate-secret`, {}, { 'idempotency-key': key });
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(replay.body).toEqual(res.body);
    expect(await storedResponse(cred, key)).not.toContain(res.body.signingSecret.slice(6));

    const read = await call(ctx, cred, 'GET', path);
    expect(read.body).toMatchObject({ secretVersion: 2, version: 2 });
    expect(JSON.stringify(read.body)).not.toContain('whsec_');
    const valid = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      loadSigningSecrets(tx, testSecrets.dataEncryptionKey, cred.tenant, created.subscriptionId, new Date()),
    );
    expect(valid).toEqual([
      { secretVersion: 2, secret: res.body.signingSecret },
      { secretVersion: 1, secret: created.signingSecret },
    ]);
  });

  it('with overlapSeconds 0 revokes the old secret at once', async () => {
    const created = await createSubscription();
    const res = await call(ctx, cred, 'POST', `${base}/${created.subscriptionId}/rotate-secret`, {
      overlapSeconds: 0,
    });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.previousSecretExpiresAt)).toBeLessThanOrEqual(Date.now());
    const valid = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      loadSigningSecrets(tx, testSecrets.dataEncryptionKey, cred.tenant, created.subscriptionId, new Date()),
    );
    expect(valid).toEqual([{ secretVersion: 2, secret: res.body.signingSecret }]);
  });

  it('refuses overlapSeconds outside 0..604800 and unknown fields', async () => {
    const created = await createSubscription();
    const path = `${base}/${created.subscriptionId}/rotate-secret`;
    for (const overlapSeconds of [-1, 604_801, 1.5, '60']) {
      expectShapeA(
        await call(ctx, cred, 'POST', path, { overlapSeconds }),
        400,
        'validation.msg.validation.errors.exist',
        ['overlapSeconds'],
      );
    }
    expectShapeA(
      await call(ctx, cred, 'POST', path, { overlap: 10 }),
      400,
      'validation.msg.validation.errors.exist',
      ['overlap'],
    );
    const ok = await call(ctx, cred, 'POST', path, { overlapSeconds: 604_800 });
    expect(ok.status).toBe(200);
    expect(ok.body.secretVersion).toBe(2);
    // No body at all: the default overlap.
    const started = Date.now();
    const bare = await call(ctx, cred, 'POST', path);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body.secretVersion).toBe(3);
    expect(Math.abs(Date.parse(bare.body.previousSecretExpiresAt) - started - 86_400_000)).toBeLessThan(
      5_000,
    );
    // A body without a JSON content type is refused.
    const res = await ctx.app.request(path, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cred.token}`,
        'service-tenant': cred.tenant,
        'content-type': 'text/plain',
      },
      body: '{"overlapSeconds": 5}',
    });
    expect(res.status).toBe(400);
  });
});

describe('POST …/deactivate and POST …/test', () => {
  it('queues a webhook.test outbox event for that subscription only → 202 {eventId}', async () => {
    const created = await createSubscription();
    const res = await call(ctx, cred, 'POST', `${base}/${created.subscriptionId}/test`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ eventId: expect.stringMatching(/^evt_[0-9a-f]{32}$/) });
    const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(outboxEvents).where(eq(outboxEvents.eventId, res.body.eventId)),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      eventType: 'webhook.test',
      targetSubscriptionId: created.subscriptionId,
      subjectType: 'webhook_subscription',
      subjectId: String(created.subscriptionId),
      data: { subscriptionId: created.subscriptionId, message: expect.any(String) },
    });
    const again = await call(ctx, cred, 'POST', `${base}/${created.subscriptionId}/test`);
    expect(again.body.eventId).not.toBe(res.body.eventId);
  });

  it('deactivates once (INACTIVE, pending retries cancelled), then 409 for a second deactivation and a test', async () => {
    const created = await createSubscription();
    const path = `${base}/${created.subscriptionId}`;
    const deliveryId = `whd_api_${created.subscriptionId}`;
    await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.insert(webhookDeliveries).values({
        tenantId: cred.tenant,
        deliveryId,
        subscriptionId: created.subscriptionId,
        eventId: `evt_api_${created.subscriptionId}`,
        eventType: 'payment.posted',
        state: 'RETRYING',
        attemptCount: 1,
        nextAttemptAt: new Date(Date.now() + 300_000),
      }),
    );
    const res = await call(ctx, cred, 'POST', `${path}/deactivate`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      subscriptionId: created.subscriptionId,
      status: 'INACTIVE',
      version: 2,
    });
    expect(res.body).not.toHaveProperty('signingSecret');
    const deliveries = await call(ctx, cred, 'GET', `${path}/deliveries`);
    expect(deliveries.body.data).toEqual([
      expect.objectContaining({ deliveryId, state: 'CANCELLED', nextAttemptAt: null }),
    ]);
    expectShapeA(
      await call(ctx, cred, 'POST', `${path}/deactivate`),
      409,
      'error.msg.webhook.subscription.invalid.state.transition',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `${path}/test`),
      409,
      'error.msg.webhook.subscription.invalid.state.transition',
    );
    const outbox = await countRows(
      ctx,
      cred.tenant,
      outboxEvents,
      eq(outboxEvents.targetSubscriptionId, created.subscriptionId),
    );
    expect(outbox).toBe(0);
  });
});

describe('GET …/deliveries', () => {
  let subscriptionId: number;

  beforeAll(async () => {
    subscriptionId = (await createSubscription()).subscriptionId;
    const t = (s: string) => new Date(`2026-11-20T10:00:${s}.000Z`);
    await withTenantTransaction(ctx.db, cred.tenant, async (tx) => {
      await tx.insert(webhookDeliveries).values([
        {
          tenantId: cred.tenant,
          deliveryId: `whd_a_${subscriptionId}`,
          subscriptionId,
          eventId: `evt_a_${subscriptionId}`,
          eventType: 'payment.posted',
          state: 'SUCCEEDED',
          attemptCount: 2,
          nextAttemptAt: null,
          completedAt: t('06'),
        },
        {
          tenantId: cred.tenant,
          deliveryId: `whd_b_${subscriptionId}`,
          subscriptionId,
          eventId: `evt_b_${subscriptionId}`,
          eventType: 'case.transitioned',
          state: 'RETRYING',
          attemptCount: 1,
          nextAttemptAt: t('40'),
        },
        {
          tenantId: cred.tenant,
          deliveryId: `whd_c_${subscriptionId}`,
          subscriptionId,
          eventId: `evt_c_${subscriptionId}`,
          eventType: 'payment.posted',
          state: 'PENDING',
          attemptCount: 0,
          nextAttemptAt: t('50'),
        },
      ]);
      await tx.insert(webhookDeliveryAttempts).values([
        {
          tenantId: cred.tenant,
          deliveryId: `whd_a_${subscriptionId}`,
          attempt: 1,
          at: t('00'),
          responseStatus: 503,
          latencyMs: 120,
          error: 'HTTP 503',
        },
        {
          tenantId: cred.tenant,
          deliveryId: `whd_a_${subscriptionId}`,
          attempt: 2,
          at: t('05'),
          responseStatus: 200,
          latencyMs: 85,
          error: null,
        },
        {
          tenantId: cred.tenant,
          deliveryId: `whd_b_${subscriptionId}`,
          attempt: 1,
          at: t('10'),
          responseStatus: null,
          latencyMs: 15_000,
          error: 'timeout',
        },
      ]);
    });
  });

  it('lists deliveries newest first with attempts, response codes, latency and retry state', async () => {
    const res = await call(ctx, cred, 'GET', `${base}/${subscriptionId}/deliveries`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          deliveryId: `whd_c_${subscriptionId}`,
          eventId: `evt_c_${subscriptionId}`,
          eventType: 'payment.posted',
          state: 'PENDING',
          attempts: [],
          nextAttemptAt: '2026-11-20T10:00:50.000Z',
        },
        {
          deliveryId: `whd_b_${subscriptionId}`,
          eventId: `evt_b_${subscriptionId}`,
          eventType: 'case.transitioned',
          state: 'RETRYING',
          attempts: [
            {
              attempt: 1,
              at: '2026-11-20T10:00:10.000Z',
              responseStatus: null,
              latencyMs: 15000,
              error: 'timeout',
            },
          ],
          nextAttemptAt: '2026-11-20T10:00:40.000Z',
        },
        {
          deliveryId: `whd_a_${subscriptionId}`,
          eventId: `evt_a_${subscriptionId}`,
          eventType: 'payment.posted',
          state: 'SUCCEEDED',
          attempts: [
            {
              attempt: 1,
              at: '2026-11-20T10:00:00.000Z',
              responseStatus: 503,
              latencyMs: 120,
              error: 'HTTP 503',
            },
            { attempt: 2, at: '2026-11-20T10:00:05.000Z', responseStatus: 200, latencyMs: 85, error: null },
          ],
          nextAttemptAt: null,
        },
      ],
      nextCursor: null,
    });
  });

  it('filters by eventType and state and pages with a cursor bound to the filters', async () => {
    const byType = await call(
      ctx,
      cred,
      'GET',
      `${base}/${subscriptionId}/deliveries?eventType=payment.posted`,
    );
    expect(byType.body.data.map((d: Json) => d.deliveryId)).toEqual([
      `whd_c_${subscriptionId}`,
      `whd_a_${subscriptionId}`,
    ]);
    const byState = await call(ctx, cred, 'GET', `${base}/${subscriptionId}/deliveries?state=RETRYING`);
    expect(byState.body.data.map((d: Json) => d.deliveryId)).toEqual([`whd_b_${subscriptionId}`]);
    expectShapeA(
      await call(ctx, cred, 'GET', `${base}/${subscriptionId}/deliveries?state=LOST`),
      400,
      'validation.msg.validation.errors.exist',
      ['state'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `${base}/${subscriptionId}/deliveries?eventType=payment.exploded`),
      400,
      'validation.msg.validation.errors.exist',
      ['eventType'],
    );

    const first = await call(
      ctx,
      cred,
      'GET',
      `${base}/${subscriptionId}/deliveries?eventType=payment.posted&pageSize=1`,
    );
    expect(first.body.data.map((d: Json) => d.deliveryId)).toEqual([`whd_c_${subscriptionId}`]);
    const cursor = encodeURIComponent(first.body.nextCursor);
    const second = await call(
      ctx,
      cred,
      'GET',
      `${base}/${subscriptionId}/deliveries?eventType=payment.posted&pageSize=1&cursor=${cursor}`,
    );
    expect(second.body.data.map((d: Json) => d.deliveryId)).toEqual([`whd_a_${subscriptionId}`]);
    expect(second.body.nextCursor).toBeNull();
    expectShapeA(
      await call(ctx, cred, 'GET', `${base}/${subscriptionId}/deliveries?state=PENDING&cursor=${cursor}`),
      400,
      'validation.msg.cursor.query.mismatch',
      ['cursor'],
    );
  });
});

describe('another tenant', () => {
  it('gets 404 on every route of a subscription it does not own, and changes nothing', async () => {
    const created = await createSubscription();
    const path = `${base}/${created.subscriptionId}`;
    const attempts: [string, string, unknown, Record<string, string>][] = [
      ['GET', path, undefined, {}],
      ['PATCH', path, { description: 'theirs' }, { 'if-match': '"1"' }],
      ['POST', `${path}/rotate-secret`, {}, {}],
      ['POST', `${path}/deactivate`, undefined, {}],
      ['POST', `${path}/test`, undefined, {}],
      ['GET', `${path}/deliveries`, undefined, {}],
    ];
    for (const [method, url, body, headers] of attempts) {
      const res = await call(ctx, otherTenant, method, url, body, headers);
      expectShapeA(res, 404, 'error.msg.resource.not.found');
    }
    const read = await call(ctx, cred, 'GET', path);
    expect(read.body).toMatchObject({
      status: 'ACTIVE',
      version: 1,
      secretVersion: 1,
      description: validBody.description,
    });
    expect(
      await countRows(ctx, otherTenant.tenant, outboxEvents, eq(outboxEvents.eventType, 'webhook.test')),
    ).toBe(0);
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expectShapeA(await call(ctx, cred, 'GET', `${base}/999999999`), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, cred, 'GET', `${base}/abc`), 400, 'validation.msg.validation.errors.exist', [
      'subscriptionId',
    ]);
  });
});

describe('in production', () => {
  let prod: TestContext;
  let live: Credential;

  beforeAll(async () => {
    prod = await createTestContext({ worker: false, environment: 'production' });
    live = await credentialFor(prod, uniqueTenant('whk-live'));
  });
  afterAll(async () => prod?.close());

  const refused: [string, RegExp][] = [
    ['http://hooks.example.com/in', /https/],
    ['https://localhost/in', /loopback|localhost/],
    ['https://LOCALHOST./in', /loopback|localhost/],
    ['https://[::ffff:127.0.0.1]/in', /loopback/],
    ['https://[::127.0.0.1]/in', /IPv4-compatible/],
    ['https://127.0.0.1/in', /loopback/],
    ['https://[::1]/in', /loopback/],
    ['https://10.0.0.5/in', /private/],
    ['https://192.168.0.10/in', /private/],
    ['https://169.254.169.254/latest/meta-data', /linkLocal|link-local|metadata/],
    ['https://[fd00:ec2::254]/', /uniqueLocal|metadata/],
  ];
  for (const [url, reason] of refused) {
    it(`refuses ${url} with 400 naming url and the reason`, async () => {
      const res = await call(prod, live, 'POST', base, { ...validBody, url });
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['url']);
      expect(err.errors[0]?.developerMessage).toMatch(reason);
      expect(await countRows(prod, live.tenant, webhookSubscriptions)).toBe(0);
    });
  }

  it('accepts a public https URL, and refuses a PATCH to a private one', async () => {
    const res = await call(prod, live, 'POST', base, validBody);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const patched = await call(
      prod,
      live,
      'PATCH',
      `${base}/${res.body.subscriptionId}`,
      { url: 'https://172.16.0.1/in' },
      { 'if-match': '"1"' },
    );
    expectShapeA(patched, 400, 'validation.msg.validation.errors.exist', ['url']);
    const stored = await withTenantTransaction(prod.db, live.tenant, (tx) =>
      tx
        .select({ url: webhookSubscriptions.url })
        .from(webhookSubscriptions)
        .where(and(eq(webhookSubscriptions.tenantId, live.tenant))),
    );
    expect(stored).toEqual([{ url: validBody.url }]);
  });
});
