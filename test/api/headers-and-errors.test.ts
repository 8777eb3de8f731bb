/**
 * Request headers and error bodies (docs/design.md §4 Idempotency-Key, docs/design.md §4 Errors; docs/design.md §4 Actor
 * context, Errors, Logs): Service-Actor, X-Request-Id, Shape A for malformed requests, unknown
 * fields, parameters and routes, and a 500 that leaks nothing.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { appWith, authHeaders, expectShapeA, newKey, openCase, send } from './helpers';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('hdr'));
});
afterAll(async () => ctx?.close());

const validCase = { customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'Billing question' };

describe('Service-Actor', () => {
  it('is recorded as actorUsername in effects and on the records it creates', async () => {
    const actor = 'agent.jane@example.com (team 7)';
    const caseId = await openCase(ctx, cred, {}, { 'service-actor': actor });
    const interaction = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/interactions',
      { customerRef: 'cus_1', caseId, channel: 'PHONE', direction: 'OUTBOUND', summary: 'Called back' },
      { 'service-actor': 'agent-bob' },
    );
    expect(interaction.status).toBe(201);
    const closed = await call(
      ctx,
      cred,
      'POST',
      `/v1/servicing/cases/${caseId}/close`,
      { outcomeCode: 'RESOLVED', closureReason: 'Answered' },
      { 'service-actor': 'supervisor-1' },
    );
    expect(closed.status).toBe(200);

    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(
      effects.body.items.map((e: { effectType: string; actorUsername: string | null }) => [
        e.effectType,
        e.actorUsername,
      ]),
    ).toEqual([
      ['CASE_OPENED', actor],
      ['INTERACTION_LOGGED', 'agent-bob'],
      ['CASE_CLOSED', 'supervisor-1'],
    ]);
    const read = await call(ctx, cred, 'GET', `/v1/servicing/interactions/${interaction.body.interactionId}`);
    expect(read.body.actorUsername).toBe('agent-bob');
  });

  it('is optional: without it actorUsername is null', async () => {
    const caseId = await openCase(ctx, cred);
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(effects.body.items[0]).toMatchObject({ effectType: 'CASE_OPENED', actorUsername: null });
  });

  it('accepts 128 visible ASCII characters', async () => {
    const actor = 'a'.repeat(128);
    const caseId = await openCase(ctx, cred, {}, { 'service-actor': actor });
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(effects.body.items[0].actorUsername).toBe(actor);
  });

  it('rejects 129 characters, control characters and non-ASCII with 400 naming header.Service-Actor', async () => {
    for (const actor of ['a'.repeat(129), 'agent\tjane', 'agent\u0001jane', 'agent\u007fjane', 'agënt']) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', validCase, { 'service-actor': actor });
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['header.Service-Actor']);
    }
    // Nothing was created by the rejected requests.
    const tasks = await call(ctx, cred, 'GET', '/v1/servicing/tasks', undefined, {
      'service-actor': 'a'.repeat(129),
    });
    expectShapeA(tasks, 400, 'validation.msg.validation.errors.exist', ['header.Service-Actor']);
  });
});

describe('X-Request-Id', () => {
  it('echoes a sane incoming id and records it as the correlationId of effects', async () => {
    const requestId = `req-${newKey()}`;
    const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', validCase, {
      'x-request-id': requestId,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${res.body.caseId}/effects`);
    expect(effects.body.items[0].correlationId).toBe(requestId);
  });

  it('replaces an unusable id with a generated one, also on errors', async () => {
    const res = await send(ctx, '/v1/servicing/tasks', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});

describe('request bodies', () => {
  it('answers malformed JSON with a Shape A 400 on body', async () => {
    for (const body of ['{"customerRef":', '', 'not json', "{'a':1}"]) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', body, {
        'content-type': 'application/json',
      });
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['body']);
      expect(err.developerMessage).toMatch(/JSON/i);
    }
  });

  it('answers a body of another content type with 400 on header.Content-Type', async () => {
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', JSON.stringify(validCase), {
        'content-type': contentType,
      });
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['header.Content-Type']);
      expect(err.errors[0]?.value).toBe(contentType);
    }
    const none = await send(ctx, '/v1/servicing/cases', {
      method: 'POST',
      headers: authHeaders(cred),
      body: new Blob([JSON.stringify(validCase)]),
    });
    expectShapeA(none, 400, 'validation.msg.validation.errors.exist', ['header.Content-Type']);
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', validCase, {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(res.status).toBe(201);
  });

  it('names an unknown body field', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', { ...validCase, priority: 'HIGH' });
    const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['priority']);
    expect(err.developerMessage).toBe('Unknown field priority.');
  });

  it('names a missing required field as missing, not unknown', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', { customerRef: 'cus_1' });
    const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['caseTypeCode', 'summary']);
    expect(err.errors.map((e) => e.developerMessage)).toEqual([
      'caseTypeCode is required.',
      'summary is required.',
    ]);
  });

  it('names each field of the wrong type or format, with its value', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
      customerRef: '   ',
      caseId: 'one',
      channel: 'FAX',
      direction: 'SIDEWAYS',
      summary: 'x'.repeat(4001),
    });
    const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [
      'customerRef',
      'caseId',
      'channel',
      'direction',
      'summary',
    ]);
    expect(err.errors.find((e) => e.parameterName === 'channel')?.value).toBe('FAX');
    expect(err.errors.find((e) => e.parameterName === 'caseId')?.value).toBe('one');
  });

  it('rejects a JSON body that is not an object', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', body, {
        'content-type': 'application/json',
      });
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
    }
  });
});

describe('query and path parameters', () => {
  it('rejects an unknown query parameter on reads and on mutations', async () => {
    const caseId = await openCase(ctx, cred);
    for (const [method, path, body] of [
      ['GET', '/v1/servicing/tasks?sort=asc', undefined],
      ['GET', `/v1/servicing/cases/${caseId}?expand=effects`, undefined],
      ['GET', `/v1/servicing/cases/${caseId}/effects?offset=10`, undefined],
      ['POST', '/v1/servicing/cases?dryRun=true', validCase],
    ] as const) {
      const res = await call(ctx, cred, method, path, body);
      const name = new URL(path, 'http://x').searchParams.keys().next().value as string;
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [name]);
      expect(err.developerMessage).toBe(`Unknown query parameter ${name}.`);
    }
  });

  it('rejects a path id that is not a positive integer', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '01', '12345678901234567']) {
      const res = await call(ctx, cred, 'GET', `/v1/servicing/cases/${id}`);
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['caseId']);
      // 17 digits look like an account number: withheld like every identifier-like value (domain/withheld-values.ts).
      expect(err.errors[0]?.value).toBe(id === '12345678901234567' ? null : id);
      if (id === '12345678901234567') expect(JSON.stringify(res.body)).not.toContain(id);
    }
  });

  it('answers 404 for a well-formed id that does not exist', async () => {
    const res = await call(ctx, cred, 'GET', '/v1/servicing/cases/987654321');
    const err = expectShapeA(res, 404, 'error.msg.resource.not.found', []);
    expect(err.developerMessage).toBe('Case 987654321 was not found.');
  });
});

describe('unknown routes', () => {
  it('answers an unknown /v1 route with a Shape A 404 (after authentication)', async () => {
    const res = await call(ctx, cred, 'GET', '/v1/servicing/not-a-resource');
    expectShapeA(res, 404, 'error.msg.resource.not.found', []);
    const unauthenticated = await send(ctx, '/v1/servicing/not-a-resource');
    expectShapeA(unauthenticated, 401, 'error.msg.not.authenticated');
  });

  it('answers an unknown method on a known path with a Shape A 405 and Allow, a path outside /v1 with 404', async () => {
    const deleted = await call(ctx, cred, 'DELETE', '/v1/servicing/cases/1');
    expectShapeA({ ...deleted, headers: deleted.headers }, 405, 'error.msg.method.not.allowed', []);
    expect(deleted.headers.get('allow')).toBe('GET, HEAD');
    expectShapeA(await send(ctx, '/v2/servicing/cases'), 404, 'error.msg.resource.not.found', []);
    expectShapeA(await send(ctx, '/'), 404, 'error.msg.resource.not.found', []);
  });

  it('answers another method on a callback path (no bearer token, no Service-Tenant) with 405, not 400 (found by npm run fuzz)', async () => {
    for (const path of ['/v1/servicing/channel-events/gw-1', '/v1/servicing/voice-dispatches/1/events']) {
      // Schemathesis sent TRACE; the Fetch API refuses TRACE, and every other method took the same path.
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await send(ctx, path, { method });
        expectShapeA(res, 405, 'error.msg.method.not.allowed', []);
        expect(res.headers.get('allow')).toBe('POST');
      }
    }
  });
});

describe('internal errors', () => {
  it('answers an unexpected failure with a bare 500 that leaks nothing, logs it, and releases the key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const secret = 'password=hunter2 at /srv/app/db/pool.ts:42';
    const failing = appWith(ctx, {
      activities: {
        openCase: async () => {
          throw new Error(`connection refused: ${secret}`);
        },
      },
      logger: pino({ level: 'info' }, sink),
    });
    const key = newKey();
    const res = await failing.request('/v1/servicing/cases', {
      method: 'POST',
      headers: { ...authHeaders(cred), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(validCase),
    });
    const text = await res.text();
    const body = JSON.parse(text);
    expectShapeA({ status: res.status, body, headers: res.headers }, 500, 'error.msg.internal', []);
    expect(body.developerMessage).toBe('An unexpected error occurred.');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('connection refused');
    expect(text).not.toMatch(/stack|\.ts:\d+|at /);

    // The error is logged once with the request id; the token never reaches the log.
    const requestId = res.headers.get('x-request-id');
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.some((l) => l.msg === 'unhandled error' && l.requestId === requestId)).toBe(true);
    expect(logged.some((l) => l.msg === 'request' && l.status === 500 && l.tenant === cred.tenant)).toBe(
      true,
    );
    expect(lines.join('\n')).not.toContain(cred.token);

    // A 5xx releases the key: the same request on the healthy app runs and succeeds.
    const retry = await call(ctx, cred, 'POST', '/v1/servicing/cases', validCase, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('x-served-from-cache')).toBeNull();
  });
});
