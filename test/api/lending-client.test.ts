/**
 * The typed client (client/src/index.ts) against the real app served over HTTP: a
 * client-credentials token from the real token endpoint, typed calls with the tenant header it
 * adds, one token for many calls, a replay under a given Idempotency-Key served from the cache, and calls
 * over the client's own rate limit (docs/design.md §5 "Rate limits") retried after `Retry-After` until each mutation is done
 * exactly once.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLendingClient, type TokenResponseEvent } from '../../client/src';
import { createTestContext, credentialFor, type TestContext, uniqueTenant } from '../support/context';

let ctx: TestContext;
let server: ReturnType<typeof serve>;
let baseUrl: string;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await ctx?.close();
});

let refs = 0;
const customerRef = () => `cus-client-${Date.now().toString(36)}-${(refs++).toString(36)}`;

describe('createLendingClient against the service', () => {
  it('makes typed calls with one cached token and the tenant header, and replays a given key', async () => {
    const tenant = uniqueTenant('client');
    const credential = await credentialFor(ctx, tenant);
    const tokens: TokenResponseEvent[] = [];
    const lending = createLendingClient({
      baseUrl,
      clientId: credential.clientId,
      clientSecret: credential.clientSecret,
      scope: 'servicing:read servicing:write',
      tenant,
      actor: 'agent.client-test',
      onTokenResponse: (event) => tokens.push(event),
    });
    const body = { customerRef: customerRef(), caseTypeCode: 'PRIVACY', summary: 'Typed client test' };
    const opened = await lending.POST('/v1/servicing/cases', {
      body,
      params: { header: { 'Idempotency-Key': `client-test-${refs}` } },
    });
    expect(opened.response.status).toBe(201);
    expect(opened.data?.status).toBe('OPEN');
    const caseId = String(opened.data?.caseId);

    const read = await lending.GET('/v1/servicing/cases/{caseId}', { params: { path: { caseId } } });
    expect(read.response.status).toBe(200);
    expect(read.data).toMatchObject({ caseId: Number(caseId), customerRef: body.customerRef });

    // The same logical mutation again: the service answers the original result from its cache.
    const replayed = await lending.POST('/v1/servicing/cases', {
      body,
      params: { header: { 'Idempotency-Key': `client-test-${refs}` } },
    });
    expect(replayed.response.status).toBe(201);
    expect(replayed.response.headers.get('x-served-from-cache')).toBe('true');
    expect(replayed.data?.caseId).toBe(Number(caseId));

    const missing = await lending.GET('/v1/servicing/cases/{caseId}', {
      params: { path: { caseId: '999999' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({
      httpStatusCode: '404',
      userMessageGlobalisationCode: 'error.msg.resource.not.found',
    });

    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ status: 200, tokenType: 'Bearer' });
    expect(tokens[0]?.expiresIn).toBeGreaterThan(0);
  });

  it("retries calls over the client's rate limit after Retry-After: each mutation done once, each its own key", async () => {
    const tenant = uniqueTenant('client');
    const credential = await credentialFor(ctx, tenant, { rateLimitPerSecond: 1 });
    // The answers as they came off the wire, before the client's retries (a real fetch, observed).
    const wire: { status: number; key: string | null }[] = [];
    const lending = createLendingClient({
      baseUrl,
      clientId: credential.clientId,
      clientSecret: credential.clientSecret,
      scope: 'servicing:read servicing:write',
      tenant,
      fetch: async (request) => {
        const response = await fetch(request.clone());
        if (!request.url.endsWith('/oauth2/token'))
          wire.push({ status: response.status, key: request.headers.get('idempotency-key') });
        return response;
      },
    });
    const refsOf = [customerRef(), customerRef(), customerRef()];
    const answers = await Promise.all(
      refsOf.map((ref) =>
        lending.POST('/v1/servicing/cases', {
          body: { customerRef: ref, caseTypeCode: 'PRIVACY', summary: 'Rate-limited create' },
        }),
      ),
    );
    expect(answers.map((a) => a.response.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.data?.caseId)).size).toBe(3);
    expect(answers.some((a) => a.response.headers.get('x-served-from-cache') === 'true')).toBe(false);
    // At 1 request per second, some were refused 429 first and retried under the same key.
    const refused = wire.filter((w) => w.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const { key } of refused) expect(wire.some((w) => w.key === key && w.status === 201)).toBe(true);
    expect(new Set(wire.map((w) => w.key)).size).toBe(3);
    // Each case exists once per customer: no retry created a second one.
    for (const [i, ref] of refsOf.entries()) {
      const read = await lending.GET('/v1/servicing/cases/{caseId}', {
        params: { path: { caseId: String(answers[i]?.data?.caseId) } },
      });
      expect(read.data).toMatchObject({ customerRef: ref });
    }
  }, 30_000);
});
