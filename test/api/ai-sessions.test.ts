/**
 * AI sessions and their outputs (docs/servicing.md "AI sessions and their outputs", docs/design.md §5 "Error details", Shape B; docs/processes.md P4), through the app on the real database:
 * - sessions are ordinary routes (Service-Tenant, Shape A);
 * - the output routes take the tenant from the token and answer EVERY error as Shape B
 *   (`application/problem+json`), from authentication and rate limiting to validation;
 * - review rule, review task and case effects; citations to unknown or other-tenant evidence → 422 with a
 *   JSON Pointer; optional If-Match; idempotent replay; reads.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSessionOutputs, aiSessions, tasks } from '../../db/schema';
import { aiOutputIdPattern, aiSessionIdPattern } from '../../domain/servicing/ai-sessions';
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
  addEvidence,
  appWith,
  countRows,
  expectShapeA,
  newKey,
  openCase,
  send,
} from './helpers';

let ctx: TestContext;
let cred: Credential;
let other: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('ais'));
  other = await credentialFor(ctx, uniqueTenant('ais'));
});
afterAll(async () => ctx?.close());

const docsUrl = 'https://docs.test/lending';

/** Opens a case and an AI session on it as `as`; returns both ids. */
async function openSession(
  as: Credential = cred,
  customerRef = 'cus_ai',
): Promise<{ caseId: number; aiSessionId: string }> {
  const caseId = await openCase(ctx, as, { customerRef, caseTypeCode: 'GENERAL', summary: 'Call' });
  const res = await call(ctx, as, 'POST', '/v1/servicing/ai-sessions', {
    caseId,
    customerRef,
    purpose: 'Assist the agent on an inbound call',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { caseId, aiSessionId: res.body.aiSessionId };
}

/** A request to an output route as `as` WITHOUT Service-Tenant (the token selects the tenant). */
function outputs(
  as: Credential | null,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (as) headers.authorization = `Bearer ${as.token}`;
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  return send(ctx, path, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined
      ? {}
      : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
  });
}

function postOutput(
  aiSessionId: string,
  body: unknown,
  headers: Record<string, string> = {},
  as: Credential | null = cred,
): Promise<ApiResponse> {
  return outputs(as, `/v1/servicing/ai-sessions/${aiSessionId}/outputs`, { method: 'POST', body, headers });
}

const output = (overrides: Record<string, unknown> = {}) => ({
  type: 'next_action_recommendation',
  content: 'Offer a payment plan; the customer confirmed a new job starting next month.',
  citations: [] as { fact: string; evidenceId: string }[],
  confidence: 'high',
  ...overrides,
});

/**
 * Asserts a Shape B body (RFC 9457): status, `application/problem+json`, exactly the spec's fields (plus
 * `errors` on 422), `type` = `{docs_url}/errors/<code>`, and the request id of the answer.
 */
function expectProblem(res: ApiResponse, status: number, code: string, title?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const keys = [
    'type',
    'title',
    'status',
    'code',
    'detail',
    'requestId',
    ...(status === 422 ? ['errors'] : []),
  ];
  expect(Object.keys(res.body).sort()).toEqual(keys.sort());
  expect(res.body).toMatchObject({ type: `${docsUrl}/errors/${code}`, status, code });
  if (title) expect(res.body.title).toBe(title);
  expect(typeof res.body.title).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.detail.length).toBeGreaterThan(0);
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  return res.body as {
    detail: string;
    errors?: { pointer: string | null; parameter?: string; detail: string; code: string }[];
  };
}

async function effectTypes(caseId: number): Promise<string[]> {
  const res = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects?limit=200`);
  expect(res.status).toBe(200);
  return res.body.items.map((e: { effectType: string }) => e.effectType);
}

async function reviewTasks(caseId: number) {
  const res = await call(ctx, cred, 'GET', `/v1/servicing/tasks?caseId=${caseId}`);
  expect(res.status).toBe(200);
  return res.body.items.filter((t: { taskType: string }) => t.taskType === 'AI_OUTPUT_REVIEW');
}

describe('AI sessions (ordinary routes, Shape A)', () => {
  it('opens a session on an open case: 201 {aiSessionId, version 1, …}, ETag, readable, AI_SESSION_OPENED effect', async () => {
    const caseId = await openCase(ctx, cred, { customerRef: 'cus_ai' });
    const res = await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', {
      caseId,
      customerRef: 'cus_ai',
      purpose: 'Summarise the call',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      aiSessionId: expect.stringMatching(aiSessionIdPattern),
      version: 1,
      caseId,
      customerRef: 'cus_ai',
      purpose: 'Summarise the call',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.headers.get('etag')).toBe('"1"');
    const read = await call(ctx, cred, 'GET', `/v1/servicing/ai-sessions/${res.body.aiSessionId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(await effectTypes(caseId)).toContain('AI_SESSION_OPENED');
  });

  it('mints distinct letter-only ids (no digit run can trip the identifier guard)', async () => {
    const a = await openSession();
    const b = await openSession();
    expect(a.aiSessionId).not.toBe(b.aiSessionId);
    expect(a.aiSessionId).toMatch(/^ais_[A-Za-z]{24}$/);
  });

  it('replays a create under the same Idempotency-Key: one session', async () => {
    const caseId = await openCase(ctx, cred, { customerRef: 'cus_ai' });
    const key = newKey('ais');
    const body = { caseId, customerRef: 'cus_ai', purpose: 'Draft a letter' };
    const first = await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', body, {
      'idempotency-key': key,
    });
    const again = await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', body, {
      'idempotency-key': key,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countRows(ctx, cred.tenant, aiSessions, eq(aiSessions.caseId, caseId))).toBe(1);
  });

  it('refuses a case of another tenant (404), of another customer (409), a closed case (409), a bad body (400)', async () => {
    const foreignCase = await openCase(ctx, other, { customerRef: 'cus_ai' });
    const body = { caseId: foreignCase, customerRef: 'cus_ai', purpose: 'x' };
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', body),
      404,
      'error.msg.resource.not.found',
      ['caseId'],
    );
    const caseId = await openCase(ctx, cred, { customerRef: 'cus_ai' });
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', {
        ...body,
        caseId,
        customerRef: 'cus_other',
      }),
      409,
      'error.msg.case.customer.mismatch',
    );
    const closed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'RESOLVED',
      closureReason: 'done',
    });
    expect(closed.status).toBe(200);
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', { ...body, caseId }),
      409,
      'error.msg.case.invalid.state.transition',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', { caseId, customerRef: 'cus_ai' }),
      400,
      'validation.msg.validation.errors.exist',
      ['purpose'],
    );
    const guarded = expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', {
        caseId,
        customerRef: 'cus_ai',
        purpose: 'SSN 123-45-6789',
      }),
      400,
      'validation.msg.validation.errors.exist',
      ['purpose'],
    );
    expect(JSON.stringify(guarded)).not.toContain('6789');
  });

  it("needs Service-Tenant and the write permission; another tenant's session is 404", async () => {
    const { aiSessionId } = await openSession();
    const res = await send(ctx, `/v1/servicing/ai-sessions/${aiSessionId}`, {
      headers: { authorization: `Bearer ${cred.token}` },
    });
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['header.Service-Tenant']);
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/servicing/ai-sessions/${aiSessionId}`),
      404,
      'error.msg.resource.not.found',
    );
    const reader = await credentialFor(ctx, cred.tenant, { permissions: ['READ_AISESSION'] });
    expectShapeA(
      await call(ctx, reader, 'POST', '/v1/servicing/ai-sessions', {
        caseId: 1,
        customerRef: 'c',
        purpose: 'p',
      }),
      403,
      'error.msg.not.authorized',
    );
  });
});

describe('POST /v1/servicing/ai-sessions/{aiSessionId}/outputs', () => {
  it('records a high-confidence recommendation without a tenant header: 201 produced, no review, no task', async () => {
    const { caseId, aiSessionId } = await openSession();
    const evidenceId = await addEvidence(ctx, cred, caseId);
    const res = await postOutput(
      aiSessionId,
      output({ citations: [{ fact: 'New job from next month', evidenceId: String(evidenceId) }] }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      outputId: expect.stringMatching(aiOutputIdPattern),
      aiSessionId,
      status: 'produced',
      reviewRequired: false,
      reviewTaskId: null,
      sessionVersion: 2,
    });
    expect(await reviewTasks(caseId)).toEqual([]);
    expect(await effectTypes(caseId)).toContain('AI_OUTPUT_PRODUCED');
    expect(await effectTypes(caseId)).not.toContain('TASK_CREATED');
    const session = await call(ctx, cred, 'GET', `/v1/servicing/ai-sessions/${aiSessionId}`);
    expect(session.body.version).toBe(2);
    expect(session.headers.get('etag')).toBe('"2"');
  });

  it.each([
    ['low confidence', { confidence: 'low' }],
    ['medium confidence', { confidence: 'medium' }],
    [
      'a customer-facing draft, even at high confidence',
      { type: 'customer_message_draft', confidence: 'high' },
    ],
  ])(
    'requires review for %s: opens an AI_OUTPUT_REVIEW task on the case and records the effects',
    async (_label, overrides) => {
      const { caseId, aiSessionId } = await openSession();
      const res = await postOutput(aiSessionId, output(overrides));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.reviewRequired).toBe(true);
      expect(res.body.reviewTaskId).toEqual(expect.any(Number));
      const open = await reviewTasks(caseId);
      expect(open).toHaveLength(1);
      expect(open[0]).toMatchObject({
        taskId: res.body.reviewTaskId,
        caseId,
        status: 'OPEN',
        subjectType: 'ai_output',
        subjectId: res.body.outputId,
      });
      const effects = await effectTypes(caseId);
      expect(effects).toContain('AI_OUTPUT_PRODUCED');
      expect(effects).toContain('TASK_CREATED');
    },
  );

  it('answers 422 with a JSON Pointer for citations of unknown, other-tenant or non-numeric evidence; nothing stored', async () => {
    const { caseId, aiSessionId } = await openSession();
    const mine = await addEvidence(ctx, cred, caseId);
    const foreignCase = await openCase(ctx, other, { customerRef: 'cus_ai' });
    const foreign = await addEvidence(ctx, other, foreignCase);
    const res = await postOutput(
      aiSessionId,
      output({
        citations: [
          { fact: 'ok', evidenceId: String(mine) },
          { fact: 'other tenant', evidenceId: String(foreign) },
          { fact: 'unknown', evidenceId: '999999999999' },
        ],
      }),
    );
    const body = expectProblem(res, 422, 'validation_error', 'Validation Error');
    expect(body.errors?.map((e) => e.pointer)).toEqual([
      '/citations/1/evidenceId',
      '/citations/2/evidenceId',
    ]);
    for (const e of body.errors ?? []) expect(e.code).toBe('validation.msg.citation.evidence.not.found');
    expect(JSON.stringify(body)).not.toContain('999999999999');
    expect(body.detail).not.toContain(`evidence ${foreign}`);
    const malformed = expectProblem(
      await postOutput(aiSessionId, output({ citations: [{ fact: 'x', evidenceId: 'ev-1' }] })),
      422,
      'validation_error',
    );
    expect(malformed.errors?.map((e) => e.pointer)).toEqual(['/citations/0/evidenceId']);
    expect(
      await countRows(ctx, cred.tenant, aiSessionOutputs, eq(aiSessionOutputs.sessionId, aiSessionId)),
    ).toBe(0);
    expect((await call(ctx, cred, 'GET', `/v1/servicing/ai-sessions/${aiSessionId}`)).body.version).toBe(1);
  });

  it('guards free text: an identifier in content or a fact, or content too long → 422 naming it, value not echoed', async () => {
    const { caseId, aiSessionId } = await openSession();
    const evidenceId = String(await addEvidence(ctx, cred, caseId));
    const res = expectProblem(
      await postOutput(
        aiSessionId,
        output({
          content: 'Customer SSN is 123-45-6789',
          citations: [{ fact: 'card 4111 1111 1111 1111', evidenceId }],
        }),
      ),
      422,
      'validation_error',
    );
    expect(res.errors?.map((e) => e.pointer)).toEqual(['/content', '/citations/0/fact']);
    expect(JSON.stringify(res)).not.toContain('6789');
    expect(JSON.stringify(res)).not.toContain('4111');
    const long = expectProblem(
      await postOutput(aiSessionId, output({ content: 'a'.repeat(20_001) })),
      422,
      'validation_error',
    );
    expect(long.errors?.map((e) => e.pointer)).toEqual(['/content']);
  });

  it('answers 422 validation_error (Shape B) for malformed JSON, a missing or unknown field, a bad enum, a wrong content type', async () => {
    const { aiSessionId } = await openSession();
    const malformed = expectProblem(await postOutput(aiSessionId, '{"type": '), 422, 'validation_error');
    expect(malformed.errors?.map((e) => e.pointer)).toEqual(['']);
    const missing = expectProblem(
      await postOutput(aiSessionId, { type: 'call_summary', content: 'x', citations: [] }),
      422,
      'validation_error',
    );
    expect(missing.errors?.map((e) => e.pointer)).toEqual(['/confidence']);
    const unknown = expectProblem(
      await postOutput(aiSessionId, { ...output(), extra: 1, confidence: 'certain' }),
      422,
      'validation_error',
    );
    expect(unknown.errors?.map((e) => e.pointer).sort()).toEqual(['/confidence', '/extra']);
    const contentType = expectProblem(
      await postOutput(aiSessionId, JSON.stringify(output()), { 'content-type': 'text/plain' }),
      422,
      'validation_error',
    );
    expect(contentType.errors).toEqual([
      expect.objectContaining({ pointer: null, parameter: 'header.Content-Type' }),
    ]);
    const query = expectProblem(
      await outputs(cred, `/v1/servicing/ai-sessions/${aiSessionId}/outputs?x=1`, {
        method: 'POST',
        body: output(),
      }),
      422,
      'validation_error',
    );
    expect(query.errors).toEqual([expect.objectContaining({ pointer: null, parameter: 'query.x' })]);
  });

  it('answers 401 unauthorized (Shape B) without a token, with a malformed or unknown token', async () => {
    const { aiSessionId } = await openSession();
    for (const authorization of [
      undefined,
      'Bearer nope',
      'Bearer at_test_unknownunknownunknown',
      'Basic abc',
    ]) {
      const res = await postOutput(aiSessionId, output(), authorization ? { authorization } : {}, null);
      const body = expectProblem(res, 401, 'unauthorized', 'Unauthorized');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(JSON.stringify(body)).not.toContain('unknownunknown');
    }
  });

  it('answers 403 forbidden (Shape B) without the scope, without the permission, or with another tenant in Service-Tenant', async () => {
    const { aiSessionId } = await openSession();
    const readOnly = await credentialFor(ctx, cred.tenant, { scopes: ['servicing:read'] });
    expectProblem(await postOutput(aiSessionId, output(), {}, readOnly), 403, 'forbidden', 'Forbidden');
    const noPermission = await credentialFor(ctx, cred.tenant, { permissions: ['CREATE_AISESSION'] });
    expectProblem(await postOutput(aiSessionId, output(), {}, noPermission), 403, 'forbidden');
    expectProblem(
      await postOutput(aiSessionId, output(), { 'service-tenant': other.tenant }),
      403,
      'forbidden',
    );
    // The token's own tenant in the header is accepted; a malformed header is a 422.
    expect((await postOutput(aiSessionId, output(), { 'service-tenant': cred.tenant })).status).toBe(201);
    const bad = expectProblem(
      await postOutput(aiSessionId, output(), { 'service-tenant': 'Not A Tenant' }),
      422,
      'validation_error',
    );
    expect(bad.errors?.[0]).toMatchObject({ pointer: null, parameter: 'header.Service-Tenant' });
  });

  it("answers 404 not_found (Shape B) for an unknown session and for another tenant's session", async () => {
    const unknown = expectProblem(
      await postOutput('ais_doesnotexistdoesnotexist', output()),
      404,
      'not_found',
    );
    expect(unknown.detail).not.toContain('doesnotexist');
    const foreign = await openSession(other);
    expectProblem(await postOutput(foreign.aiSessionId, output()), 404, 'not_found');
    expect(
      await countRows(
        ctx,
        other.tenant,
        aiSessionOutputs,
        eq(aiSessionOutputs.sessionId, foreign.aiSessionId),
      ),
    ).toBe(0);
  });

  it('honours If-Match: the current version → 201 and +1; a stale one → 409 version_conflict (Shape B); malformed → 422', async () => {
    const { aiSessionId } = await openSession();
    const first = await postOutput(aiSessionId, output(), { 'if-match': '"1"' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.sessionVersion).toBe(2);
    const stale = expectProblem(
      await postOutput(aiSessionId, output(), { 'if-match': '"1"' }),
      409,
      'version_conflict',
      'Version Conflict',
    );
    expect(stale.detail).toContain('version 2');
    expect((await postOutput(aiSessionId, output(), { 'if-match': '"2"' })).status).toBe(201);
    expect((await postOutput(aiSessionId, output(), { 'if-match': '*' })).status).toBe(201);
    const bad = expectProblem(
      await postOutput(aiSessionId, output(), { 'if-match': 'W/"4"' }),
      422,
      'validation_error',
    );
    expect(bad.errors?.[0]).toMatchObject({ pointer: null, parameter: 'header.If-Match' });
    expect((await call(ctx, cred, 'GET', `/v1/servicing/ai-sessions/${aiSessionId}`)).body.version).toBe(4);
  });

  it('answers 409 invalid_state (Shape B) once the case is closed', async () => {
    const { caseId, aiSessionId } = await openSession();
    const closed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'RESOLVED',
      closureReason: 'done',
    });
    expect(closed.status).toBe(200);
    expectProblem(await postOutput(aiSessionId, output()), 409, 'invalid_state');
  });

  it('replays under the same Idempotency-Key (one output, one version step); another payload → 422 idempotency_key_mismatch', async () => {
    const { caseId, aiSessionId } = await openSession();
    const key = newKey('aio');
    const body = output({ confidence: 'low' });
    const first = await postOutput(aiSessionId, body, { 'idempotency-key': key });
    const again = await postOutput(aiSessionId, body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(
      await countRows(ctx, cred.tenant, aiSessionOutputs, eq(aiSessionOutputs.sessionId, aiSessionId)),
    ).toBe(1);
    expect(
      await countRows(
        ctx,
        cred.tenant,
        tasks,
        and(eq(tasks.caseId, caseId), eq(tasks.taskType, 'AI_OUTPUT_REVIEW')),
      ),
    ).toBe(1);
    expect((await call(ctx, cred, 'GET', `/v1/servicing/ai-sessions/${aiSessionId}`)).body.version).toBe(2);
    const mismatch = expectProblem(
      await postOutput(aiSessionId, output({ content: 'Something else' }), { 'idempotency-key': key }),
      422,
      'idempotency_key_mismatch',
    );
    expect(mismatch.errors).toEqual([]);
    // The operation is idempotent on its own too: the same request key straight to the operation.
    const direct = await ctx.activities.recordAiOutput({
      tenantId: cred.tenant,
      requestKey: `${cred.clientId}/${key}`,
      aiSessionId,
      type: 'next_action_recommendation',
      content: 'x',
      citations: [],
      confidence: 'low',
      expectedVersion: 1,
    });
    expect(direct.outputId).toBe(first.body.outputId);
  });

  it('answers 503 service_unavailable (Shape B) with Retry-After when PostgreSQL is unreachable, never 500', async () => {
    const { aiSessionId } = await openSession();
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const app = appWith(ctx, {
      activities: {
        recordAiOutput: async () => {
          throw down;
        },
      },
    });
    const res = await send({ ...ctx, app }, `/v1/servicing/ai-sessions/${aiSessionId}/outputs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cred.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(output()),
    });
    const body = expectProblem(res, 503, 'service_unavailable', 'Service Unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(body.detail).not.toContain('5432');
  });

  it("answers 429 rate_limited (Shape B) with Retry-After when the client's bucket is empty", async () => {
    const { aiSessionId } = await openSession();
    const slow = await credentialFor(ctx, cred.tenant, { rateLimitPerSecond: 1 });
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => outputs(slow, `/v1/servicing/ai-sessions/${aiSessionId}/outputs`)),
    );
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    const res = limited[0] as ApiResponse;
    expectProblem(res, 429, 'rate_limited', 'Rate Limited');
    expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=1;w=1');
  });
});

describe('reads of outputs (token tenant, Shape B errors)', () => {
  it('lists outputs in the order produced with limit/offset/hasMore and reads one with its citations', async () => {
    const { caseId, aiSessionId } = await openSession();
    const evidenceId = String(await addEvidence(ctx, cred, caseId));
    const ids: string[] = [];
    for (const [index, type] of [
      'call_summary',
      'next_action_recommendation',
      'hardship_assessment',
    ].entries()) {
      const res = await postOutput(
        aiSessionId,
        output({ type, content: `Output ${index}`, citations: [{ fact: `Fact ${index}`, evidenceId }] }),
      );
      expect(res.status).toBe(201);
      ids.push(res.body.outputId);
    }
    const page = await outputs(cred, `/v1/servicing/ai-sessions/${aiSessionId}/outputs?limit=2`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    expect(page.body.items.map((o: { outputId: string }) => o.outputId)).toEqual(ids.slice(0, 2));
    const rest = await outputs(cred, `/v1/servicing/ai-sessions/${aiSessionId}/outputs?limit=2&offset=2`);
    expect(rest.body).toMatchObject({ limit: 2, offset: 2, hasMore: false });
    expect(rest.body.items.map((o: { outputId: string }) => o.outputId)).toEqual(ids.slice(2));
    const one = await outputs(cred, `/v1/servicing/ai-sessions/${aiSessionId}/outputs/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      outputId: ids[0],
      aiSessionId,
      sequence: 1,
      status: 'produced',
      type: 'call_summary',
      content: 'Output 0',
      citations: [{ fact: 'Fact 0', evidenceId }],
      confidence: 'high',
      reviewRequired: false,
      reviewTaskId: null,
      createdAt: expect.any(String),
    });
  });

  it('answers every read error as Shape B: 401, 403, 404 (unknown, other tenant, other session), 422 paging', async () => {
    const { aiSessionId } = await openSession();
    const created = await postOutput(aiSessionId, output());
    const outputId = created.body.outputId as string;
    const list = `/v1/servicing/ai-sessions/${aiSessionId}/outputs`;
    expectProblem(await outputs(null, list), 401, 'unauthorized');
    const writeOnly = await credentialFor(ctx, cred.tenant, { scopes: ['servicing:write'] });
    expectProblem(await outputs(writeOnly, list), 403, 'forbidden');
    expectProblem(await outputs(other, list), 404, 'not_found');
    expectProblem(await outputs(other, `${list}/${outputId}`), 404, 'not_found');
    expectProblem(await outputs(cred, `${list}/aio_nothere`), 404, 'not_found');
    const another = await openSession();
    expectProblem(
      await outputs(cred, `/v1/servicing/ai-sessions/${another.aiSessionId}/outputs/${outputId}`),
      404,
      'not_found',
    );
    const paging = expectProblem(await outputs(cred, `${list}?limit=0&foo=1`), 422, 'validation_error');
    expect(paging.errors?.map((e) => [e.pointer, e.parameter]).sort()).toEqual(
      [
        [null, 'query.foo'],
        [null, 'query.limit'],
      ].sort(),
    );
  });

  it('answers an unknown method on the outputs route as Shape B too (405)', async () => {
    const { aiSessionId } = await openSession();
    const res = await outputs(cred, `/v1/servicing/ai-sessions/${aiSessionId}/outputs`, { method: 'DELETE' });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('leaves the other routes in Shape A', async () => {
    const res = await send(ctx, '/v1/servicing/ai-sessions', { method: 'POST' });
    expectShapeA(res, 401, 'error.msg.not.authenticated');
  });
});
