/**
 * Paging and limits (docs/design.md §4 Paging, §5 Cursors, Rate limits): case effects with
 * limit and a signed cursor bound to the case, the offset-paged task list, and the per-client
 * token-bucket rate limit with its headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { authHeaders, expectShapeA, logInteraction, openCase, openPrivacyRequest, send } from './helpers';

let ctx: TestContext;
let cred: Credential;
/** A case with 61 effects: CASE_OPENED and 60 INTERACTION_LOGGED. */
let bigCase: number;
let smallCase: number;

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('page'));
  bigCase = await openCase(ctx, cred);
  for (let batch = 0; batch < 6; batch++) {
    await Promise.all(Array.from({ length: 10 }, () => logInteraction(ctx, cred, bigCase)));
  }
  smallCase = await openCase(ctx, cred);
  await logInteraction(ctx, cred, smallCase);
  await logInteraction(ctx, cred, smallCase);
});
afterAll(async () => ctx?.close());

interface Effect {
  effectId: number;
  effectType: string;
}

const effectsPath = (caseId: number, query = '') => `/v1/servicing/cases/${caseId}/effects${query}`;

describe('GET /v1/servicing/cases/{caseId}/effects', () => {
  it('rejects limit 0, 201, -1, 1.5, "abc" and an empty limit with 400 (never clamped)', async () => {
    for (const limit of ['0', '201', '-1', '1.5', 'abc', '', '1000', '99999']) {
      const res = await call(ctx, cred, 'GET', effectsPath(bigCase, `?limit=${limit}`));
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['limit']);
      expect(err.errors[0]?.value).toBe(limit);
    }
  });

  it('accepts limit 1 and 200', async () => {
    const one = await call(ctx, cred, 'GET', effectsPath(bigCase, '?limit=1'));
    expect(one.status).toBe(200);
    expect(one.body.items).toHaveLength(1);
    expect(one.body.hasMore).toBe(true);
    const max = await call(ctx, cred, 'GET', effectsPath(bigCase, '?limit=200'));
    expect(max.status).toBe(200);
    expect(max.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(max.body.items).toHaveLength(61);
  });

  it('returns 50 effects by default, in the order they happened, with a cursor to the rest', async () => {
    const res = await call(ctx, cred, 'GET', effectsPath(bigCase));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['hasMore', 'items', 'nextCursor']);
    expect(res.body.items).toHaveLength(50);
    expect(res.body.hasMore).toBe(true);
    expect(res.body.nextCursor).toEqual(expect.any(String));
    const items = res.body.items as Effect[];
    expect(items[0]?.effectType).toBe('CASE_OPENED');
    expect(items.slice(1).every((e) => e.effectType === 'INTERACTION_LOGGED')).toBe(true);
    expect(items[0]).toEqual({
      effectId: expect.any(Number),
      caseId: bigCase,
      effectType: 'CASE_OPENED',
      subjectType: 'case',
      subjectId: String(bigCase),
      detail: { caseTypeCode: 'GENERAL', customerRef: 'cus_1' },
      actorUsername: null,
      correlationId: expect.any(String),
      occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('walks every effect exactly once, in order, following nextCursor until it is null', async () => {
    const all = (await call(ctx, cred, 'GET', effectsPath(bigCase, '?limit=200'))).body.items as Effect[];
    const seen: Effect[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=7' : `?limit=7&cursor=${encodeURIComponent(cursor)}`;
      const res = await call(ctx, cred, 'GET', effectsPath(bigCase, query));
      expect(res.status).toBe(200);
      pages++;
      seen.push(...res.body.items);
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      if (res.body.hasMore) expect(res.body.items).toHaveLength(7);
      cursor = res.body.nextCursor;
    } while (cursor !== null && pages < 20);
    expect(pages).toBe(9);
    expect(seen.map((e) => e.effectId)).toEqual(all.map((e) => e.effectId));
    expect(new Set(seen.map((e) => e.effectId)).size).toBe(61);
    const ids = seen.map((e) => e.effectId);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('allows the page size to change between pages', async () => {
    const first = await call(ctx, cred, 'GET', effectsPath(bigCase, '?limit=10'));
    const rest = await call(
      ctx,
      cred,
      'GET',
      effectsPath(bigCase, `?limit=200&cursor=${encodeURIComponent(first.body.nextCursor)}`),
    );
    expect(rest.status).toBe(200);
    expect(rest.body.items).toHaveLength(51);
    expect(rest.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('ends with hasMore false and no cursor when the last page is exactly full', async () => {
    const res = await call(ctx, cred, 'GET', effectsPath(smallCase, '?limit=3'));
    expect(res.body.items).toHaveLength(3);
    expect(res.body).toMatchObject({ hasMore: false, nextCursor: null });
    const two = await call(ctx, cred, 'GET', effectsPath(smallCase, '?limit=2'));
    expect(two.body.hasMore).toBe(true);
    const last = await call(
      ctx,
      cred,
      'GET',
      effectsPath(smallCase, `?limit=2&cursor=${encodeURIComponent(two.body.nextCursor)}`),
    );
    expect(last.body.items).toHaveLength(1);
    expect(last.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('rejects a cursor of another case with 400 validation.msg.cursor.query.mismatch', async () => {
    const page = await call(ctx, cred, 'GET', effectsPath(bigCase, '?limit=5'));
    const cursor = page.body.nextCursor as string;
    const res = await call(ctx, cred, 'GET', effectsPath(smallCase, `?cursor=${encodeURIComponent(cursor)}`));
    const err = expectShapeA(res, 400, 'validation.msg.cursor.query.mismatch', ['cursor']);
    expect(err.errors[0]?.value).toBe(cursor);
    expect(res.body.defaultUserMessage).toBe('The cursor does not belong to this endpoint and query.');
  });

  it('rejects a tampered, truncated or foreign cursor with 400', async () => {
    const page = await call(ctx, cred, 'GET', effectsPath(bigCase, '?limit=5'));
    const cursor = page.body.nextCursor as string;
    const bytes = Buffer.from(cursor, 'base64url');
    const flipped = (at: number) => {
      const copy = Buffer.from(bytes);
      copy[at] = (copy[at] ?? 0) ^ 0x01;
      return copy.toString('base64url');
    };
    for (const bad of [
      flipped(0),
      flipped(20),
      flipped(bytes.length - 1),
      bytes.subarray(0, bytes.length - 1).toString('base64url'),
      cursor.slice(0, 20),
      `${cursor}.extra`,
      'garbage',
      `${cursor}AAAA`,
    ]) {
      const res = await call(ctx, cred, 'GET', effectsPath(bigCase, `?cursor=${encodeURIComponent(bad)}`));
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['cursor']);
    }
    const tooLong = await call(ctx, cred, 'GET', effectsPath(bigCase, `?cursor=${'a'.repeat(1025)}`));
    expectShapeA(tooLong, 400, 'validation.msg.validation.errors.exist', ['cursor']);
  });

  it('answers 404 for the effects of a case that does not exist', async () => {
    expectShapeA(await call(ctx, cred, 'GET', effectsPath(987654321)), 404, 'error.msg.resource.not.found');
  });
});

describe('GET /v1/servicing/tasks', () => {
  let owner: Credential;
  let caseA: number;
  let taskIds: number[];

  beforeAll(async () => {
    owner = await credentialFor(ctx, uniqueTenant('tasks'));
    taskIds = [];
    const first = await openPrivacyRequest(ctx, owner);
    caseA = first.caseId;
    taskIds.push(first.reviewTaskId);
    for (let i = 0; i < 2; i++) {
      const res = await call(ctx, owner, 'POST', '/v1/servicing/privacy-requests', {
        customerRef: 'cus_1',
        requestType: 'ACCESS',
        regime: 'GDPR',
        summary: 'Send me my data',
        caseId: caseA,
        sourceInteractionId: first.interactionId,
      });
      expect(res.status).toBe(201);
      taskIds.push(res.body.reviewTaskId);
    }
    for (let i = 0; i < 2; i++) taskIds.push((await openPrivacyRequest(ctx, owner)).reviewTaskId);
    const done = await call(ctx, owner, 'POST', `/v1/servicing/tasks/${taskIds[1]}/complete`, { note: 'ok' });
    expect(done.status).toBe(200);
  });

  it('returns {items, limit, offset, hasMore}, newest first, with the defaults 50 and 0', async () => {
    const res = await call(ctx, owner, 'GET', '/v1/servicing/tasks');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['hasMore', 'items', 'limit', 'offset']);
    expect(res.body).toMatchObject({ limit: 50, offset: 0, hasMore: false });
    expect(res.body.items.map((t: { taskId: number }) => t.taskId)).toEqual([...taskIds].reverse());
    expect(res.body.items[0]).toMatchObject({
      taskId: taskIds[4],
      resourceId: taskIds[4],
      taskType: 'PRIVACY_REVIEW',
      status: 'OPEN',
      subjectType: 'privacy_request',
    });
  });

  it('pages with limit and offset', async () => {
    const seen: number[] = [];
    for (let offset = 0; offset < 6; offset += 2) {
      const res = await call(ctx, owner, 'GET', `/v1/servicing/tasks?limit=2&offset=${offset}`);
      expect(res.body).toMatchObject({ limit: 2, offset, hasMore: offset + 2 < 5 });
      seen.push(...res.body.items.map((t: { taskId: number }) => t.taskId));
    }
    expect(seen).toEqual([...taskIds].reverse());
    const beyond = await call(ctx, owner, 'GET', '/v1/servicing/tasks?offset=100');
    expect(beyond.body).toEqual({ items: [], limit: 50, offset: 100, hasMore: false });
  });

  it('filters by caseId and by status', async () => {
    const byCase = await call(ctx, owner, 'GET', `/v1/servicing/tasks?caseId=${caseA}`);
    expect(byCase.body.items.map((t: { taskId: number }) => t.taskId)).toEqual(taskIds.slice(0, 3).reverse());
    const completed = await call(ctx, owner, 'GET', '/v1/servicing/tasks?status=COMPLETED');
    expect(completed.body.items.map((t: { taskId: number }) => t.taskId)).toEqual([taskIds[1]]);
    expect(completed.body.items[0]).toMatchObject({ status: 'COMPLETED', completionNote: 'ok' });
    const both = await call(ctx, owner, 'GET', `/v1/servicing/tasks?caseId=${caseA}&status=OPEN&limit=1`);
    expect(both.body).toMatchObject({ limit: 1, offset: 0, hasMore: true });
    expect(both.body.items.map((t: { taskId: number }) => t.taskId)).toEqual([taskIds[2]]);
  });

  it('rejects bad paging and filter values and undeclared parameters with 400', async () => {
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=abc', 'offset'],
      ['status=DONE', 'status'],
      ['caseId=abc', 'caseId'],
      ['cursor=abc', 'cursor'],
      ['page=2', 'page'],
    ] as const) {
      const res = await call(ctx, owner, 'GET', `/v1/servicing/tasks?${query}`);
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [name]);
    }
  });
});

describe('rate limit', () => {
  it('announces the policy and answers the 4th immediate request of a 3/s client with 429', async () => {
    const limited = await credentialFor(ctx, uniqueTenant('rate'), { rateLimitPerSecond: 3 });
    // Sent together, so that the bucket cannot refill (1 token per 333 ms) between them on a busy machine.
    const results = await Promise.all(
      Array.from({ length: 4 }, () => send(ctx, '/v1/servicing/tasks', { headers: authHeaders(limited) })),
    );
    const allowed = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(allowed).toHaveLength(3);
    expect(refused).toHaveLength(1);
    for (const res of allowed) expect(res.headers.get('ratelimit-policy')).toBe('"default";q=3;w=1');
    const remaining = allowed.map(
      (r) => /^"default";r=(\d+);t=[01]$/.exec(r.headers.get('ratelimit') ?? '')?.[1],
    );
    expect(remaining.sort()).toEqual(['0', '1', '2']);
    const fourth = refused[0] as (typeof results)[number];
    const err = expectShapeA(fourth, 429, 'error.msg.rate.limited', []);
    expect(err.developerMessage).toMatch(/Too many requests/);
    expect(fourth.headers.get('retry-after')).toBe('1');
    expect(fourth.headers.get('ratelimit-policy')).toBe('"default";q=3;w=1');
    expect(fourth.headers.get('ratelimit')).toBe('"default";r=0;t=1');

    // Another client of the same tenant has its own bucket.
    const other = await credentialFor(ctx, limited.tenant, { rateLimitPerSecond: 3 });
    expect((await send(ctx, '/v1/servicing/tasks', { headers: authHeaders(other) })).status).toBe(200);

    // The bucket refills at 3 per second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await send(ctx, '/v1/servicing/tasks', { headers: authHeaders(limited) })).status).toBe(200);
  });

  it('counts rejected requests too and takes the environment default without a per-client figure', async () => {
    const limited = await credentialFor(ctx, uniqueTenant('rate'), { rateLimitPerSecond: 1 });
    expectShapeA(
      await call(ctx, limited, 'GET', '/v1/servicing/cases/987654321'),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, limited, 'GET', '/v1/servicing/cases/987654321'),
      429,
      'error.msg.rate.limited',
    );

    const tenant = uniqueTenant('rate');
    const client = await ctx.platform.createClient({
      tenantId: tenant,
      environment: 'sandbox',
      scopes: ['servicing:read'],
      permissions: ['ALL'],
      rateLimitPerSecond: null,
      createTenant: true,
    });
    const issued = await ctx.platform.issueAccessToken({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      grantType: 'client_credentials',
    });
    const res = await send(ctx, '/v1/servicing/tasks', {
      headers: { authorization: `Bearer ${issued.access_token}`, 'service-tenant': tenant },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=10000;w=1');
  });

  it('does not limit or announce on the unauthenticated routes', async () => {
    const res = await send(ctx, '/healthz');
    expect(res.headers.get('ratelimit-policy')).toBeNull();
  });
});
