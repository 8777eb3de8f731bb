/**
 * The typed client's token, idempotency and retry handling (client/src/index.ts; docs/integrating.md "The typed client";
 * docs/design.md §4 Idempotency-Key: 409 in flight; the token endpoint's 429/503) against a real local HTTP server
 * (node:http) standing in for the token endpoint and the API: what it receives is what the client sent over
 * the wire. Nothing of fetch is mocked.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createLendingClient,
  type LendingClientOptions,
  retryAfterSeconds,
  TokenRequestError,
} from '../../client/src';

interface Received {
  method: string;
  path: string;
  authorization: string | undefined;
  tenant: string | undefined;
  actor: string | undefined;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  body: string;
}

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What the stand-in server does and saw; reset before each test. */
const state = {
  tokenRequests: [] as Received[],
  apiRequests: [] as Received[],
  /** Seconds of life of each issued token. */
  expiresIn: 3600,
  /** Milliseconds the token endpoint takes to answer. */
  tokenDelayMs: 0,
  /** Status of the token endpoint (200 issues a token). */
  tokenStatus: 200,
  /** Answers of the next token requests, in order; then `tokenStatus`. */
  tokenScript: [] as Scripted[],
  /** Answers of the next API requests, in order; then 200. */
  script: [] as Scripted[],
  /** Tokens the API refuses with 401. */
  revoked: new Set<string>(),
};

let server: Server;
let baseUrl: string;

async function received(req: IncomingMessage): Promise<Received> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    authorization: header('authorization'),
    tenant: header('service-tenant'),
    actor: header('service-actor'),
    idempotencyKey: header('idempotency-key'),
    contentType: header('content-type'),
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const request = await received(req);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (request.path === '/oauth2/token') {
      state.tokenRequests.push(request);
      await new Promise((resolve) => setTimeout(resolve, state.tokenDelayMs));
      const scripted = state.tokenScript.shift();
      if (scripted) return json(scripted.status, scripted.body ?? {}, scripted.headers);
      if (state.tokenStatus !== 200) return json(state.tokenStatus, { error: 'invalid_client' });
      return json(200, {
        access_token: `token-${state.tokenRequests.length}`,
        token_type: 'Bearer',
        expires_in: state.expiresIn,
        scope: 'servicing:read servicing:write',
      });
    }
    state.apiRequests.push(request);
    const token = request.authorization?.replace(/^Bearer /, '') ?? '';
    if (state.revoked.has(token)) return json(401, { errors: [{ code: 'error.msg.not.authenticated' }] });
    const next = state.script.shift();
    if (next) return json(next.status, next.body ?? {}, next.headers);
    return json(request.method === 'POST' ? 201 : 200, { caseId: 7, resourceId: 7, status: 'OPEN' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  state.tokenRequests = [];
  state.apiRequests = [];
  state.expiresIn = 3600;
  state.tokenDelayMs = 0;
  state.tokenStatus = 200;
  state.tokenScript = [];
  state.script = [];
  state.revoked = new Set();
});

function client(options: Partial<LendingClientOptions> = {}) {
  return createLendingClient({
    baseUrl,
    clientId: 'cl_demo',
    clientSecret: 'cs_test_very_secret',
    scope: 'servicing:read servicing:write',
    tenant: 'acme',
    actor: 'agent.smith',
    ...options,
  });
}

const caseBody = { customerRef: 'cus_1', caseTypeCode: 'PRIVACY', summary: 'Delete my data' };
const readCase = (lending: ReturnType<typeof client>) =>
  lending.GET('/v1/servicing/cases/{caseId}', { params: { path: { caseId: '7' } } });

describe('createLendingClient: tokens', () => {
  it('requests a client-credentials token once (Basic auth, form body) and reuses it', async () => {
    const lending = client();
    const first = await readCase(lending);
    const second = await readCase(lending);
    expect(first.response.status).toBe(200);
    expect(second.data).toEqual({ caseId: 7, resourceId: 7, status: 'OPEN' });
    expect(state.tokenRequests).toHaveLength(1);
    const [token] = state.tokenRequests;
    expect(token?.method).toBe('POST');
    expect(token?.authorization).toBe(
      `Basic ${Buffer.from('cl_demo:cs_test_very_secret').toString('base64')}`,
    );
    expect(token?.contentType).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(token?.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'servicing:read servicing:write',
    });
    expect(state.apiRequests.map((r) => [r.path, r.authorization, r.tenant, r.actor])).toEqual([
      ['/v1/servicing/cases/7', 'Bearer token-1', 'acme', 'agent.smith'],
      ['/v1/servicing/cases/7', 'Bearer token-1', 'acme', 'agent.smith'],
    ]);
  });

  it('keeps the token while at least 10% of expires_in remains, then requests a new one', async () => {
    state.expiresIn = 100;
    const clock = { ms: 1_000_000 };
    const lending = client({ now: () => clock.ms });
    await readCase(lending);
    clock.ms += 89_000; // 11 s of 100 left
    await readCase(lending);
    expect(state.tokenRequests).toHaveLength(1);
    clock.ms += 2_000; // 9 s left: under 10%
    await readCase(lending);
    expect(state.tokenRequests).toHaveLength(2);
    expect(state.apiRequests.map((r) => r.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('serializes refreshes: concurrent calls share one token request', async () => {
    state.tokenDelayMs = 150;
    const lending = client();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => readCase(lending)));
    expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(state.tokenRequests).toHaveLength(1);
    expect(new Set(state.apiRequests.map((r) => r.authorization))).toEqual(new Set(['Bearer token-1']));
  });

  it('on 401 refreshes the token once and retries once', async () => {
    const lending = client();
    await readCase(lending);
    state.revoked.add('token-1');
    const retried = await lending.POST('/v1/servicing/cases', { body: caseBody });
    expect(retried.response.status).toBe(201);
    expect(state.tokenRequests).toHaveLength(2);
    const posts = state.apiRequests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    // The retry is the same logical mutation: same key, same body.
    expect(posts[1]?.idempotencyKey).toBe(posts[0]?.idempotencyKey);
    expect(posts[1]?.body).toBe(posts[0]?.body);
  });

  it('returns the second 401 without asking again (refresh once, then stop)', async () => {
    const lending = client();
    state.revoked = new Set(['token-1', 'token-2', 'token-3']);
    const answer = await readCase(lending);
    expect(answer.response.status).toBe(401);
    expect(answer.error).toEqual({ errors: [{ code: 'error.msg.not.authenticated' }] });
    expect(state.tokenRequests).toHaveLength(2);
    expect(state.apiRequests).toHaveLength(2);
  });

  it('rejects with TokenRequestError when the credential is refused, never naming the secret', async () => {
    state.tokenStatus = 401;
    const heard: unknown[] = [];
    const lending = client({ onTokenResponse: (event) => heard.push(event) });
    const error = await readCase(lending).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as TokenRequestError).status).toBe(401);
    expect((error as TokenRequestError).oauthError).toBe('invalid_client');
    expect(state.tokenRequests).toHaveLength(1); // a refusal is not retried
    expect(String((error as Error).message)).not.toContain('cs_test_very_secret');
    expect(JSON.stringify(heard)).not.toContain('cs_test_very_secret');
    expect(heard).toEqual([
      {
        requestBody: 'grant_type=client_credentials&scope=servicing%3Aread+servicing%3Awrite',
        status: 401,
        error: 'invalid_client',
      },
    ]);
    expect(state.apiRequests).toHaveLength(0);
  });

  it('tells onTokenResponse of each token request without the token', async () => {
    const heard: unknown[] = [];
    await readCase(client({ onTokenResponse: (event) => heard.push(event) }));
    expect(heard).toEqual([
      {
        requestBody: 'grant_type=client_credentials&scope=servicing%3Aread+servicing%3Awrite',
        status: 200,
        tokenType: 'Bearer',
        expiresIn: 3600,
        scope: 'servicing:read servicing:write',
      },
    ]);
  });
});

describe('createLendingClient: idempotency keys and retries', () => {
  it('gives each mutation its own Idempotency-Key, keeps a given one, and sends none on reads', async () => {
    const lending = client();
    await lending.POST('/v1/servicing/cases', { body: caseBody });
    await lending.POST('/v1/servicing/cases', { body: caseBody });
    await lending.POST('/v1/servicing/cases', {
      body: caseBody,
      params: { header: { 'Idempotency-Key': 'case-given-key' } },
    });
    await lending.fetch('/v1/servicing/cases/7/close', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await readCase(lending);
    const keys = state.apiRequests.map((r) => r.idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('case-given-key');
    expect(keys[3]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys.slice(0, 4)).size).toBe(4);
    expect(keys[4]).toBeUndefined();
  });

  it('retries a 429 after Retry-After seconds with the same Idempotency-Key and body', async () => {
    state.script = [{ status: 429, headers: { 'retry-after': '1' }, body: { errors: [] } }];
    const lending = client();
    const started = Date.now();
    const answer = await lending.POST('/v1/servicing/cases', { body: caseBody });
    expect(answer.response.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(state.apiRequests).toHaveLength(2);
    const [first, retry] = state.apiRequests;
    expect(retry?.idempotencyKey).toBe(first?.idempotencyKey);
    expect(JSON.parse(retry?.body ?? '')).toEqual(caseBody);
    expect(retry?.body).toBe(first?.body);
  });

  it('retries 503 too, at most maxAttempts times, then returns the last answer', async () => {
    state.script = Array.from({ length: 10 }, () => ({ status: 503, headers: { 'retry-after': '0' } }));
    const answer = await client({ maxAttempts: 3 }).POST('/v1/servicing/cases', { body: caseBody });
    expect(answer.response.status).toBe(503);
    expect(state.apiRequests).toHaveLength(3);
    expect(new Set(state.apiRequests.map((r) => r.idempotencyKey)).size).toBe(1);
  });

  it('returns a 429 whose Retry-After is longer than maxRetryAfterSeconds without waiting', async () => {
    state.script = [{ status: 429, headers: { 'retry-after': '120' } }];
    const started = Date.now();
    const answer = await client({ maxRetryAfterSeconds: 30 }).POST('/v1/servicing/cases', { body: caseBody });
    expect(answer.response.status).toBe(429);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(state.apiRequests).toHaveLength(1);
  });
});

/** Shape A body of a duplicate whose first request is still running (docs/design.md §4 Errors; api/middleware/idempotency.ts). */
const inFlightShapeA = {
  developerMessage: 'A request with this Idempotency-Key is still being processed.',
  httpStatusCode: '409',
  defaultUserMessage: 'A request with this Idempotency-Key is still being processed.',
  userMessageGlobalisationCode: 'idempotency.request.in.flight',
  errors: [],
};

describe('createLendingClient: 409 in flight', () => {
  it('retries a 409 idempotency.request.in.flight after Retry-After with the same key, then succeeds', async () => {
    state.script = [{ status: 409, headers: { 'retry-after': '1' }, body: inFlightShapeA }];
    const started = Date.now();
    const answer = await client().POST('/v1/servicing/cases', { body: caseBody });
    expect(answer.response.status).toBe(201);
    expect(answer.data).toEqual({ caseId: 7, resourceId: 7, status: 'OPEN' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(state.apiRequests).toHaveLength(2);
    const [first, retry] = state.apiRequests;
    expect(first?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry?.idempotencyKey).toBe(first?.idempotencyKey);
    expect(retry?.body).toBe(first?.body);
  });

  it('retries the Shape B form too (code request_in_flight), keeping a given key', async () => {
    state.script = [
      {
        status: 409,
        headers: { 'retry-after': '0', 'content-type': 'application/problem+json' },
        body: {
          type: 'https://docs.example/errors/request_in_flight',
          status: 409,
          code: 'request_in_flight',
        },
      },
    ];
    const answer = await client().POST('/v1/servicing/cases', {
      body: caseBody,
      params: { header: { 'Idempotency-Key': 'in-flight-given-key' } },
    });
    expect(answer.response.status).toBe(201);
    expect(state.apiRequests.map((r) => r.idempotencyKey)).toEqual([
      'in-flight-given-key',
      'in-flight-given-key',
    ]);
  });

  it('returns a 409 of any other kind untouched, without retrying', async () => {
    const conflict = {
      developerMessage: 'The case is closed.',
      httpStatusCode: '409',
      defaultUserMessage: 'The case is closed.',
      userMessageGlobalisationCode: 'error.msg.case.invalid.state.transition',
      errors: [],
    };
    state.script = [{ status: 409, headers: { 'retry-after': '0', 'x-stand-in': 'kept' }, body: conflict }];
    const answer = await client().POST('/v1/servicing/cases', { body: caseBody });
    expect(answer.response.status).toBe(409);
    expect(answer.error).toEqual(conflict);
    expect(answer.response.headers.get('x-stand-in')).toBe('kept');
    expect(state.apiRequests).toHaveLength(1);
  });

  it('makes at most maxAttempts attempts of a request that stays in flight, then returns the last 409', async () => {
    state.script = Array.from({ length: 10 }, () => ({
      status: 409,
      headers: { 'retry-after': '0' },
      body: inFlightShapeA,
    }));
    const answer = await client({ maxAttempts: 3 }).POST('/v1/servicing/cases', { body: caseBody });
    expect(answer.response.status).toBe(409);
    expect(answer.error).toEqual(inFlightShapeA);
    expect(state.apiRequests).toHaveLength(3);
    expect(new Set(state.apiRequests.map((r) => r.idempotencyKey)).size).toBe(1);
  });

  it('returns a 409 in flight whose Retry-After is over maxRetryAfterSeconds without waiting', async () => {
    state.script = [{ status: 409, headers: { 'retry-after': '120' }, body: inFlightShapeA }];
    const started = Date.now();
    const answer = await client({ maxRetryAfterSeconds: 30 }).POST('/v1/servicing/cases', { body: caseBody });
    expect(answer.response.status).toBe(409);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(state.apiRequests).toHaveLength(1);
  });
});

/** Shape A body of the token endpoint's rate limit (api/routes/oauth.ts, api/middleware/rate-limit.ts). */
const rateLimited = {
  developerMessage: 'Too many requests; retry later.',
  httpStatusCode: '429',
  defaultUserMessage: 'Too many requests.',
  userMessageGlobalisationCode: 'error.msg.rate.limited',
  errors: [],
};

describe('createLendingClient: token endpoint 429 and 503', () => {
  it('retries a token 429 after Retry-After; concurrent callers share the one token request', async () => {
    state.tokenScript = [{ status: 429, headers: { 'retry-after': '1' }, body: rateLimited }];
    const heard: { status: number }[] = [];
    const lending = client({ onTokenResponse: (event) => heard.push(event) });
    const started = Date.now();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => readCase(lending)));
    expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    // One 429 and one retry for all five callers; every call carries the token of the retry.
    expect(state.tokenRequests).toHaveLength(2);
    expect(state.tokenRequests[1]?.body).toBe(state.tokenRequests[0]?.body);
    expect(heard.map((event) => event.status)).toEqual([429, 200]);
    expect(state.apiRequests.map((r) => r.authorization)).toEqual(Array(5).fill('Bearer token-2'));
  });

  it('retries a token 503 as well', async () => {
    state.tokenScript = [{ status: 503, headers: { 'retry-after': '0' } }];
    const answer = await readCase(client());
    expect(answer.response.status).toBe(200);
    expect(state.tokenRequests).toHaveLength(2);
  });

  it('makes at most maxAttempts token requests, then rejects with the last status', async () => {
    state.tokenScript = Array.from({ length: 10 }, () => ({
      status: 429,
      headers: { 'retry-after': '0' },
      body: rateLimited,
    }));
    const lending = client({ maxAttempts: 3 });
    const errors = await Promise.all(
      [readCase(lending), readCase(lending)].map((p) => p.catch((e: unknown) => e)),
    );
    for (const error of errors) {
      expect(error).toBeInstanceOf(TokenRequestError);
      expect((error as TokenRequestError).status).toBe(429);
    }
    expect(state.tokenRequests).toHaveLength(3);
    expect(state.apiRequests).toHaveLength(0);
    // The failed request is not cached: the next call asks again.
    state.tokenScript = [];
    expect((await readCase(lending)).response.status).toBe(200);
    expect(state.tokenRequests).toHaveLength(4);
  });

  it('rejects a token 429 whose Retry-After is over maxRetryAfterSeconds without waiting', async () => {
    state.tokenScript = [{ status: 429, headers: { 'retry-after': '120' }, body: rateLimited }];
    const started = Date.now();
    const error = await readCase(client({ maxRetryAfterSeconds: 30 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as TokenRequestError).status).toBe(429);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(state.tokenRequests).toHaveLength(1);
  });
});

describe('retryAfterSeconds (RFC 9110 §10.2.3)', () => {
  it('reads delay-seconds and HTTP dates, 1 when absent, null when unreadable', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds(null, now)).toBe(1);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 10:00:12 GMT', now)).toBe(12);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeNull();
  });
});
