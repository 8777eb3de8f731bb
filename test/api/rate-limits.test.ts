/**
 * Rate limits beyond the per-client default (api/middleware/rate-limit.ts): the token endpoint
 * `POST /oauth2/token` is limited per presented client id and environment (failed attempts count) and per source
 * address (the socket's peer, whatever client id is presented),
 * and portfolio search and journal-entry lists share a second, lower bucket per client ("search",
 * 20 req/s by default). Both answer 429 Shape A `error.msg.rate.limited` with `Retry-After` and
 * announce their policy in `RateLimit-Policy` / `RateLimit`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfig } from '../../api/env';
import { createTestContext, credentialFor, type TestContext, uniqueTenant } from '../support/context';
import { type ApiResponse, appWith, authHeaders, basic, expectShapeA, send } from './helpers';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
});
afterAll(async () => ctx?.close());

/** `ctx` with its app replaced by one with `config` overriding the test defaults. */
function withConfig(config: Partial<ApiConfig>): TestContext {
  return { ...ctx, app: appWith(ctx, { config }) };
}

function tokenRequest(app: TestContext, clientId: string, clientSecret: string) {
  return send(app, '/oauth2/token', {
    method: 'POST',
    headers: {
      authorization: basic(clientId, clientSecret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
}

async function newClient(tenant: string, scopes = ['lending:read']) {
  return ctx.platform.createClient({
    tenantId: tenant,
    environment: 'sandbox',
    scopes,
    permissions: ['ALL'],
    createTenant: true,
  });
}

describe('POST /oauth2/token rate limit (per client id and environment)', () => {
  it('answers the 4th immediate request of one client id with 429 Shape A and Retry-After; other clients are not affected', async () => {
    const app = withConfig({ rateLimitPerSecond: 3 });
    const client = await newClient(uniqueTenant('tokrate'));
    // Sent together, so that the bucket cannot refill (1 token per 333 ms) between them.
    const results = await Promise.all(
      Array.from({ length: 4 }, () => tokenRequest(app, client.clientId, client.clientSecret)),
    );
    const issued = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(issued).toHaveLength(3);
    expect(refused).toHaveLength(1);
    for (const res of issued) expect(res.headers.get('ratelimit-policy')).toBe('"token";q=3;w=1');
    const res = refused[0] as ApiResponse;
    expectShapeA(res, 429, 'error.msg.rate.limited', []);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('ratelimit-policy')).toBe('"token";q=3;w=1');
    expect(res.headers.get('ratelimit')).toBe('"token";r=0;t=1');
    expect(res.headers.get('cache-control')).toBe('no-store');

    const other = await newClient(uniqueTenant('tokrate'));
    expect((await tokenRequest(app, other.clientId, other.clientSecret)).status).toBe(200);
  });

  it('counts failed attempts: after 3 wrong secrets the right one waits', async () => {
    const app = withConfig({ rateLimitPerSecond: 3 });
    const client = await newClient(uniqueTenant('tokrate'));
    const wrong = await Promise.all(
      Array.from({ length: 3 }, () => tokenRequest(app, client.clientId, `${client.clientSecret}x`)),
    );
    expect(wrong.map((r) => r.status)).toEqual([401, 401, 401]);
    expectShapeA(
      await tokenRequest(app, client.clientId, client.clientSecret),
      429,
      'error.msg.rate.limited',
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await tokenRequest(app, client.clientId, client.clientSecret)).status).toBe(200);
  });
});

describe('POST /oauth2/token rate limit (per source address: "token-source")', () => {
  // Buckets are counters in the run's shared database: each test uses documentation addresses (RFC 5737, RFC 3849) of
  // its own.

  /** A token request with unknown credentials, as if from the TCP peer `remoteAddress` (node-server bindings). */
  function guess(app: TestContext, remoteAddress: string, headers: Record<string, string> = {}) {
    return app.app.request(
      '/oauth2/token',
      {
        method: 'POST',
        headers: {
          authorization: basic(`cli_guess${Math.random().toString(36).slice(2)}`, 'cs_test_wrong'),
          'content-type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        body: 'grant_type=client_credentials',
      },
      { incoming: { socket: { remoteAddress } } },
    );
  }

  it('answers the 4th immediate guess of unknown client ids from one address with 429 Shape A and Retry-After; a forwarded header does not escape it; another address goes on', async () => {
    const app = withConfig({ tokenSourceRateLimitPerSecond: 3 });
    const source = '198.51.100.1';
    const results = await Promise.all(Array.from({ length: 4 }, () => guess(app, source)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([401, 401, 401, 429]);
    const refused = results.find((r) => r.status === 429) as Response;
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      httpStatusCode: '429',
      userMessageGlobalisationCode: 'error.msg.rate.limited',
    });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit-policy')).toBe('"token-source";q=3;w=1');
    expect(refused.headers.get('ratelimit')).toBe('"token-source";r=0;t=1');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    const allowed = results.find((r) => r.status === 401) as Response;
    // Both policies applied to a request that passed the source's: the source's first.
    expect(allowed.headers.get('ratelimit-policy')).toMatch(/^"token-source";q=3;w=1, "token";q=\d+;w=1$/);
    // No trusted-proxy setting: X-Forwarded-For is the caller's own text and names no other bucket.
    expect((await guess(app, source, { 'x-forwarded-for': '192.0.2.10' })).status).toBe(429);
    expect((await guess(app, '203.0.113.1')).status).toBe(401);
  });

  it('counts an IPv4-mapped IPv6 peer as its IPv4 address, and IPv6 peers by their /64', async () => {
    const app = withConfig({ tokenSourceRateLimitPerSecond: 2 });
    const source = '198.51.100.2';
    expect((await guess(app, source)).status).toBe(401);
    expect((await guess(app, `::ffff:${source}`)).status).toBe(401);
    expect((await guess(app, `::FFFF:${source}`)).status).toBe(429);
    const prefix = '2001:db8:2:1';
    expect((await guess(app, `${prefix}::1`)).status).toBe(401);
    expect((await guess(app, `${prefix}:aaaa::2`)).status).toBe(401);
    expect((await guess(app, `${prefix}:ffff:1:2:3`)).status).toBe(429);
  });

  it('a request through no socket (in-process) has no source and is not limited by it', async () => {
    const app = withConfig({ tokenSourceRateLimitPerSecond: 1 });
    const client = await newClient(uniqueTenant('toksrc'));
    const res = await tokenRequest(app, client.clientId, client.clientSecret);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).not.toContain('token-source');
  });
});

describe('search and journal-entry lists (the "search" bucket, 20 req/s by default)', () => {
  it('refuses the 4th immediate search of a client whose search limit is 3, while other reads go on', async () => {
    const app = withConfig({ searchRateLimitPerSecond: 3 });
    const cred = await credentialFor(ctx, uniqueTenant('srch'), { scopes: ['lending:read'] });
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        send(app, '/v1/portfolio/search?q=ana', { headers: authHeaders(cred) }),
      ),
    );
    const allowed = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(allowed).toHaveLength(3);
    expect(refused).toHaveLength(1);
    for (const res of allowed) {
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=10000;w=1, "search";q=3;w=1');
      expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=[01], "search";r=[0-2];t=[01]$/);
    }
    const res = refused[0] as ApiResponse;
    expectShapeA(res, 429, 'error.msg.rate.limited', []);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=10000;w=1, "search";q=3;w=1');
    expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=[01], "search";r=0;t=1$/);

    // The journal-entry list shares the bucket; other lists only carry the default policy.
    expectShapeA(
      await send(app, '/v1/journalentries', { headers: authHeaders(cred) }),
      429,
      'error.msg.rate.limited',
    );
    const customers = await send(app, '/v1/customers', { headers: authHeaders(cred) });
    expect(customers.status).toBe(200);
    expect(customers.headers.get('ratelimit-policy')).toBe('"default";q=10000;w=1');
  });

  it('limits journal-entry lists on their own too, per client', async () => {
    const app = withConfig({ searchRateLimitPerSecond: 2 });
    const cred = await credentialFor(ctx, uniqueTenant('jrnl'), { scopes: ['lending:read'] });
    const results = await Promise.all(
      Array.from({ length: 3 }, () => send(app, '/v1/journalentries', { headers: authHeaders(cred) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    const other = await credentialFor(ctx, cred.tenant, { scopes: ['lending:read'] });
    expect((await send(app, '/v1/journalentries', { headers: authHeaders(other) })).status).toBe(200);
  });
});
