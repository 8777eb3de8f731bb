/**
 * Idempotency-Key on mutations (docs/design.md §4 Idempotency-Key): replay,
 * payload and route mismatch, key format, a duplicate in flight, concurrent duplicates, rejected
 * requests not stored, keys scoped per client, and privacy requests retried after a 503.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessClients } from '../../api/processes';
import { cases, idempotencyKeys, interactions, privacyRequests } from '../../db/schema';
import { DomainError } from '../../domain/errors';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import {
  type ApiResponse,
  appWith,
  authHeaders,
  countRows,
  expectShapeA,
  gate,
  logInteraction,
  newKey,
  openCase,
} from './helpers';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('idem'));
});
afterAll(async () => ctx?.close());

const validCase = { customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'Billing question' };

function createCase(
  as: Credential,
  key: string | undefined,
  body: unknown = validCase,
  headers: Record<string, string> = {},
) {
  return call(
    ctx,
    as,
    'POST',
    '/v1/servicing/cases',
    body,
    key === undefined ? headers : { ...headers, 'idempotency-key': key },
  );
}

describe('replay', () => {
  it('returns the original status and body with x-served-from-cache: true and creates nothing new', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const key = newKey();
    const first = await createCase(owner, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('x-served-from-cache')).toBeNull();
    for (let i = 0; i < 3; i++) {
      const again = await createCase(owner, key);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('x-served-from-cache')).toBe('true');
      expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    }
    expect(await countRows(ctx, owner.tenant, cases)).toBe(1);
    const effects = await call(ctx, owner, 'GET', `/v1/servicing/cases/${first.body.caseId}/effects`);
    expect(effects.body.items).toHaveLength(1);
  });

  it('replays the original body byte for byte, even where jsonb would reorder its keys', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const key = newKey();
    const send = () =>
      ctx.app.request('/v1/servicing/cases', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.token}`,
          'service-tenant': owner.tenant,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify(validCase),
      });
    const first = await send();
    expect(first.status).toBe(201);
    const firstText = await first.text();
    // The original key order is not jsonb's (keys sorted by length, then bytes), so a jsonb
    // round trip would have changed the bytes: the test can fail.
    const keys = Object.keys(JSON.parse(firstText));
    const jsonbOrder = [...keys].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
    expect(keys).not.toEqual(jsonbOrder);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await again.text()).toBe(firstText);
  });

  it('replays a 200 of a state change (close) instead of answering 409', async () => {
    const caseId = await openCase(ctx, cred);
    const key = newKey();
    const body = { outcomeCode: 'PAID_IN_FULL', closureReason: 'Paid' };
    const first = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, body, {
      'idempotency-key': key,
    });
    expect(first).toMatchObject({ status: 200, body: { resourceId: caseId, changes: { status: 'CLOSED' } } });
    const again = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, body, {
      'idempotency-key': key,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    // Without the key, the second close is a new request and conflicts.
    const unkeyed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, body);
    expectShapeA(unkeyed, 409, 'error.msg.case.invalid.state.transition');
  });

  it('treats bodies that differ only in key order and whitespace as the same request', async () => {
    const key = newKey();
    const first = await createCase(
      cred,
      key,
      '{"customerRef":"cus_1","caseTypeCode":"GENERAL","summary":"Same"}',
    );
    const again = await createCase(
      cred,
      key,
      '{ "summary": "Same",\n  "caseTypeCode": "GENERAL", "customerRef": "cus_1" }',
    );
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
  });

  it('does not count Service-Actor in the fingerprint', async () => {
    const key = newKey();
    const first = await createCase(cred, key, validCase, { 'service-actor': 'agent-1' });
    const again = await createCase(cred, key, validCase, { 'service-actor': 'agent-2' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
  });

  it('replays a rejection by the operation itself (after request validation) as the completed result', async () => {
    const key = newKey();
    const first = await createCase(cred, key, { ...validCase, caseTypeCode: 'NO_SUCH_TYPE' });
    expectShapeA(first, 400, 'validation.msg.validation.errors.exist', ['caseTypeCode']);
    const again = await createCase(cred, key, { ...validCase, caseTypeCode: 'NO_SUCH_TYPE' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
  });
});

describe('mismatch', () => {
  it('answers the same key with another body with 422 idempotency.key.payload.mismatch', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const key = newKey();
    expect((await createCase(owner, key)).status).toBe(201);
    const other = await createCase(owner, key, { ...validCase, summary: 'Another question' });
    const err = expectShapeA(other, 422, 'idempotency.key.payload.mismatch', []);
    expect(err.developerMessage).toMatch(/different request/);
    expect(other.headers.get('x-served-from-cache')).toBeNull();
    expect(await countRows(ctx, owner.tenant, cases)).toBe(1);
  });

  it('answers the same key on another route with 422', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const key = newKey();
    const created = await createCase(owner, key);
    expect(created.status).toBe(201);
    const interaction = await call(
      ctx,
      owner,
      'POST',
      '/v1/servicing/interactions',
      {
        customerRef: 'cus_1',
        caseId: created.body.caseId,
        channel: 'SMS',
        direction: 'OUTBOUND',
        summary: 'x',
      },
      { 'idempotency-key': key },
    );
    expectShapeA(interaction, 422, 'idempotency.key.payload.mismatch', []);
    expect(await countRows(ctx, owner.tenant, interactions)).toBe(0);
  });

  it('answers the same key on the same route for another resource with 422', async () => {
    const [one, two] = [await openCase(ctx, cred), await openCase(ctx, cred)];
    const key = newKey();
    const body = { outcomeCode: 'RESOLVED', closureReason: 'Done' };
    expect(
      (await call(ctx, cred, 'POST', `/v1/servicing/cases/${one}/close`, body, { 'idempotency-key': key }))
        .status,
    ).toBe(200);
    const second = await call(ctx, cred, 'POST', `/v1/servicing/cases/${two}/close`, body, {
      'idempotency-key': key,
    });
    expectShapeA(second, 422, 'idempotency.key.payload.mismatch');
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${two}`)).body.status).toBe('OPEN');
  });
});

describe('key format', () => {
  it('accepts keys of 1 and of 50 characters', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    for (const key of ['k', 'x'.repeat(50)]) {
      const res = await createCase(owner, key);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });

  it('rejects 51 characters, an empty key and two instances with 400 naming header.Idempotency-Key', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const rejected: ApiResponse[] = [await createCase(owner, 'x'.repeat(51)), await createCase(owner, '')];
    const twice = new Headers({ ...authHeaders(owner), 'content-type': 'application/json' });
    twice.append('idempotency-key', 'one');
    twice.append('Idempotency-Key', 'two');
    const res = await ctx.app.request('/v1/servicing/cases', {
      method: 'POST',
      headers: twice,
      body: JSON.stringify(validCase),
    });
    rejected.push({ status: res.status, body: await res.json(), headers: res.headers });
    for (const r of rejected) {
      const err = expectShapeA(r, 400, 'validation.msg.validation.errors.exist', ['header.Idempotency-Key']);
      expect(err.developerMessage).toMatch(
        /^Idempotency-Key must be 1 to 50 printable ASCII characters \(letters, digits, spaces inside, and punctuation other than a comma\), sent once; a UUID is a good key\. It (has (51|0) characters|contains a comma \(or the header was sent more than once\))\.$/,
      );
    }
    expect(await countRows(ctx, owner.tenant, cases)).toBe(0);
  });
});

describe('in flight', () => {
  it('answers a duplicate of a request still running with 409 and Retry-After, then replays the result', async () => {
    const held = gate();
    let entered = () => {};
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const slow = appWith(ctx, {
      activities: {
        openCase: async (input) => {
          entered();
          await held.promise;
          return ctx.activities.openCase(input);
        },
      },
    });
    const key = newKey();
    const init = () => ({
      method: 'POST',
      headers: { ...authHeaders(cred), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(validCase),
    });
    const firstResponse = slow.request('/v1/servicing/cases', init());
    await started;

    const duplicate = await call(ctx, cred, 'POST', '/v1/servicing/cases', validCase, {
      'idempotency-key': key,
    });
    const err = expectShapeA(duplicate, 409, 'idempotency.request.in.flight', []);
    expect(err.developerMessage).toMatch(/still being processed/);
    expect(duplicate.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    // A different payload under the held key is still a mismatch, not "in flight".
    const other = await createCase(cred, key, { ...validCase, summary: 'Other' });
    expectShapeA(other, 422, 'idempotency.key.payload.mismatch');

    held.open();
    const first = await firstResponse;
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    const replay = await createCase(cred, key);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(firstBody);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
  });

  it('lets ten concurrent identical requests create exactly one case', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const key = newKey();
    const responses = await Promise.all(Array.from({ length: 10 }, () => createCase(owner, key)));
    const created = responses.filter((r) => r.status === 201);
    const inFlight = responses.filter((r) => r.status === 409);
    expect(created.length + inFlight.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.body).toEqual(created[0]?.body);
    expect(created.filter((r) => r.headers.get('x-served-from-cache') === null)).toHaveLength(1);
    for (const r of inFlight) {
      expectShapeA(r, 409, 'idempotency.request.in.flight', []);
      expect(r.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    }
    expect(await countRows(ctx, owner.tenant, cases)).toBe(1);
    const [stored] = await ctx.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, owner.tenant), eq(idempotencyKeys.key, key)));
    expect(stored).toMatchObject({ state: 'COMPLETED', responseStatus: 201, clientId: owner.clientId });
    // After the dust settles every retry is a replay of the one case.
    const later = await createCase(owner, key);
    expect(later.body).toEqual(created[0]?.body);
    expect(later.headers.get('x-served-from-cache')).toBe('true');
  });
});

describe('what is stored', () => {
  it('does not store a request rejected by validation: the key stays free for a valid request', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const key = newKey();
    const invalid = await createCase(owner, key, { ...validCase, unexpected: true });
    expectShapeA(invalid, 400, 'validation.msg.validation.errors.exist', ['unexpected']);
    const malformed = await createCase(owner, key, '{"customerRef":');
    expectShapeA(malformed, 400, 'validation.msg.validation.errors.exist', ['body']);
    const valid = await createCase(owner, key);
    expect(valid.status).toBe(201);
    expect(valid.headers.get('x-served-from-cache')).toBeNull();
    expect(await countRows(ctx, owner.tenant, cases)).toBe(1);
  });

  it('does not store a request refused for authorization', async () => {
    const tenant = uniqueTenant('idem');
    const reader = await credentialFor(ctx, tenant, { scopes: ['servicing:read'] });
    const key = newKey();
    expectShapeA(await createCase(reader, key), 403, 'error.msg.not.authorized');
    const rows = await ctx.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
    expect(rows).toHaveLength(0);
  });

  it('keeps keys per client: two clients of one tenant use the same key independently', async () => {
    const tenant = uniqueTenant('idem');
    const [one, two] = [await credentialFor(ctx, tenant), await credentialFor(ctx, tenant)];
    const key = newKey();
    const a = await createCase(one, key);
    const b = await createCase(two, key, {
      ...validCase,
      summary: 'A different body is fine for another client',
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('x-served-from-cache')).toBeNull();
    expect(b.body.caseId).not.toBe(a.body.caseId);
    const replayA = await createCase(one, key);
    expect(replayA.body).toEqual(a.body);
    const replayB = await createCase(two, key, {
      ...validCase,
      summary: 'A different body is fine for another client',
    });
    expect(replayB.body).toEqual(b.body);
    expect(await countRows(ctx, tenant, cases)).toBe(2);
  });

  it('runs each request without a key anew', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const [a, b] = [await createCase(owner, undefined), await createCase(owner, undefined)];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.caseId).not.toBe(a.body.caseId);
    expect(await countRows(ctx, owner.tenant, cases)).toBe(2);
  });
});

describe('privacy requests', () => {
  async function privacyBody(owner: Credential) {
    const caseId = await openCase(ctx, owner, { caseTypeCode: 'PRIVACY' });
    const sourceInteractionId = await logInteraction(ctx, owner, caseId);
    return {
      customerRef: 'cus_1',
      requestType: 'DELETION',
      regime: 'CCPA_CPRA',
      summary: 'Delete my data',
      caseId,
      sourceInteractionId,
    };
  }

  it('replays a received request: one request, one review task, one workflow', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const body = await privacyBody(owner);
    const key = newKey();
    const first = await call(ctx, owner, 'POST', '/v1/servicing/privacy-requests', body, {
      'idempotency-key': key,
    });
    expect(first.status).toBe(201);
    const again = await call(ctx, owner, 'POST', '/v1/servicing/privacy-requests', body, {
      'idempotency-key': key,
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    expect(await countRows(ctx, owner.tenant, privacyRequests)).toBe(1);
    const tasks = await call(ctx, owner, 'GET', '/v1/servicing/tasks');
    expect(tasks.body.items).toHaveLength(1);
  });

  it('after a 503 from Temporal, a retry with the same key returns the request stored by the first attempt', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const body = await privacyBody(owner);
    const key = newKey();
    const down = appWith(ctx, {
      privacyRequests: {
        start: async () => {
          throw new DomainError(
            'error.msg.service.unavailable',
            'The workflow service is unavailable; retry later.',
            {
              retryAfterSeconds: 5,
            },
          );
        },
      },
    });
    const failed = await down.request('/v1/servicing/privacy-requests', {
      method: 'POST',
      headers: { ...authHeaders(owner), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('5');
    const failure = (await failed.json()) as { userMessageGlobalisationCode: string };
    expect(failure.userMessageGlobalisationCode).toBe('error.msg.service.unavailable');
    const [stored] = await ctx.db
      .select()
      .from(privacyRequests)
      .where(eq(privacyRequests.tenantId, owner.tenant));
    expect(stored).toBeDefined();

    const retry = await call(ctx, owner, 'POST', '/v1/servicing/privacy-requests', body, {
      'idempotency-key': key,
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('x-served-from-cache')).toBeNull();
    expect(retry.body).toMatchObject({
      requestId: stored?.id,
      reviewTaskId: stored?.reviewTaskId,
      status: 'RECEIVED',
    });
    expect(await countRows(ctx, owner.tenant, privacyRequests)).toBe(1);
    const description = await ctx.client.workflow
      .getHandle(`privacy-request/${owner.tenant}/${retry.body.requestId}`)
      .describe();
    expect(description.status.name).toBe('RUNNING');
  });
});

describe('privacy requests: the key claimed in the operation’s transaction', () => {
  async function privacyBody(owner: Credential, caseId?: number) {
    const kase = caseId ?? (await openCase(ctx, owner, { caseTypeCode: 'PRIVACY' }));
    const sourceInteractionId = await logInteraction(ctx, owner, kase);
    return {
      customerRef: 'cus_1',
      requestType: 'DELETION',
      regime: 'CCPA_CPRA',
      summary: 'Delete my data',
      caseId: kase,
      sourceInteractionId,
    };
  }
  const post = (owner: Credential, body: unknown, key: string) =>
    call(ctx, owner, 'POST', '/v1/servicing/privacy-requests', body, { 'idempotency-key': key });
  async function keyRecord(owner: Credential, key: string) {
    const [stored] = await ctx.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, owner.tenant), eq(idempotencyKeys.key, key)));
    return stored;
  }

  it('answers a duplicate with 409 while the first awaits its workflow start (claim committed with the request), then replays', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const body = await privacyBody(owner);
    const held = gate();
    let entered = () => {};
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const slow = appWith(ctx, {
      privacyRequests: {
        start: async (input) => {
          entered();
          await held.promise;
          return createProcessClients(ctx.client).privacyRequests.start(input);
        },
      },
    });
    const key = newKey();
    const firstResponse = slow.request('/v1/servicing/privacy-requests', {
      method: 'POST',
      headers: { ...authHeaders(owner), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    await started;
    // The request's row and its claim are committed together, before the start.
    expect(await countRows(ctx, owner.tenant, privacyRequests)).toBe(1);
    expect(await keyRecord(owner, key)).toMatchObject({ state: 'IN_FLIGHT' });
    const duplicate = await post(owner, body, key);
    expectShapeA(duplicate, 409, 'idempotency.request.in.flight', []);
    expect(duplicate.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expectShapeA(
      await post(owner, { ...body, summary: 'Other' }, key),
      422,
      'idempotency.key.payload.mismatch',
    );

    held.open();
    const first = await firstResponse;
    expect(first.status).toBe(201);
    const firstText = await first.text();
    const replay = await post(owner, body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(replay.body).toEqual(JSON.parse(firstText));
    expect(await keyRecord(owner, key)).toMatchObject({ state: 'COMPLETED', responseBody: firstText });
    expect(await countRows(ctx, owner.tenant, privacyRequests)).toBe(1);
  });

  it('lets ten concurrent identical requests receive exactly one privacy request', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const body = await privacyBody(owner);
    const key = newKey();
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(owner, body, key)));
    const created = responses.filter((r) => r.status === 201);
    expect(created.length + responses.filter((r) => r.status === 409).length).toBe(10);
    expect(created.filter((r) => r.headers.get('x-served-from-cache') === null)).toHaveLength(1);
    for (const r of created) expect(r.body).toEqual(created[0]?.body);
    expect(await countRows(ctx, owner.tenant, privacyRequests)).toBe(1);
    expect(await keyRecord(owner, key)).toMatchObject({ state: 'COMPLETED', responseStatus: 201 });
  });

  it('stores the refusal of an operation that rolled back (unknown case) and replays it; nothing else is stored', async () => {
    const owner = await credentialFor(ctx, uniqueTenant('idem'));
    const body = { ...(await privacyBody(owner)), caseId: 999_999 };
    const key = newKey();
    const refused = await post(owner, body, key);
    expectShapeA(refused, 404, 'error.msg.resource.not.found', ['caseId']);
    expect(await keyRecord(owner, key)).toMatchObject({ state: 'COMPLETED', responseStatus: 404 });
    const again = await post(owner, body, key);
    expect(again.status).toBe(404);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    expect(again.body).toEqual(refused.body);
    expect(await countRows(ctx, owner.tenant, privacyRequests)).toBe(0);
  });
});
