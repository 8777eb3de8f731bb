/**
 * Authorization comes before validation on every route (docs/design.md §4 "Scopes and permissions": 403 when authenticated but lacking
 * scope or permission; docs/design.md §4 Errors: 400 is for a request understood but rejected). Walks every bearer-authenticated
 * operation of `GET /v1/openapi.json` (read from the document, so a new route is covered the day it is added) and
 * sends it with input that every validator refuses: path parameters that are no id and hold U+0000, an undocumented
 * query parameter, a malformed `Idempotency-Key`, and a JSON body with an unknown field and U+0000 in a key and a
 * value. A token without the operation's scope, and a client without its permission, must get 403 (Shape A, or
 * Shape B on the AI session output routes), never 400, 404 or 422.
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
import { basic, type Json, tokenRequest } from './helpers';

const allScopes = ['servicing:read', 'servicing:write', 'lending:read', 'lending:write', 'actions:approve'];

interface Operation {
  method: string;
  path: string;
  scope: string;
  /** The fixed permission the document names; null when a resource names it (hardship approve/reject). */
  permission: string | null;
  query: string;
}

let ctx: TestContext;
let owner: Credential;
let operations: Operation[];

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  owner = await credentialFor(ctx, uniqueTenant('authz-order'), { scopes: allScopes });
  const document = (await (await ctx.app.request('/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, { security?: Record<string, string[]>[]; description?: string }>>;
  };
  operations = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const scope = op.security?.find((s) => s.oauth2)?.oauth2?.[0];
      if (!scope) continue; // token endpoint, health, gateway- or voice-token-signed callbacks
      const permission = /Scope `[^`]+`, permission `([A-Z_]+)`/.exec(op.description ?? '')?.[1] ?? null;
      const query = path === '/v1/loans/{loanId}' && method === 'post' ? 'command=approve&' : '';
      operations.push({ method: method.toUpperCase(), path, scope, permission, query });
    }
  }
  // The schedule preview: the same route with its own scope and permission, chosen by `command`.
  operations.push({
    method: 'POST',
    path: '/v1/loans',
    scope: 'lending:read',
    permission: 'CALCULATE_LOANSCHEDULE',
    query: 'command=calculateLoanSchedule&',
  });
}, 120_000);
afterAll(async () => ctx?.close());

/** `op` with input every validator refuses (module note). */
function sendInvalid(op: Operation, cred: Credential) {
  const path = op.path.replace(/\{\w+\}/g, 'not-an-id%00');
  const mutation = op.method !== 'GET';
  const body: Json = { 'unknown\u0000Field': 'bad\u0000value', anotherUnknownField: [1, 2, 3] };
  return call(
    ctx,
    cred,
    op.method,
    `${path}?${op.query}undocumentedParameter=1`,
    mutation ? body : undefined,
    {
      'service-actor': 'agent.authz',
      ...(mutation ? { 'idempotency-key': 'not,a,key\u0001' } : {}),
      'if-match': 'not-an-etag',
    },
  );
}

/** The answer of `op` when it is not a 403 refusal in the route's error shape; null when it is. */
function wrongAnswer(op: Operation, res: { status: number; body: Json }): string | null {
  const shapeA = res.body?.userMessageGlobalisationCode === 'error.msg.not.authorized';
  const problem = res.body?.code === 'forbidden' && op.path.includes('/ai-sessions/');
  if (res.status === 403 && (shapeA || problem)) return null;
  return `${op.method} ${op.path} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
}

describe('authorization before validation, on every bearer-authenticated operation', () => {
  it('reads every operation of the document (100+)', () => {
    expect(operations.length).toBeGreaterThan(100);
  });

  it('a token without the scope of an operation, sending invalid input → 403', async () => {
    const tokens = new Map<string, Credential>();
    for (const scope of allScopes) {
      const others = allScopes.filter((s) => s !== scope).join(' ');
      const res = await tokenRequest(ctx, {
        authorization: basic(owner.clientId, owner.clientSecret),
        body: `grant_type=client_credentials&scope=${encodeURIComponent(others)}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.scope.split(' ')).not.toContain(scope);
      tokens.set(scope, { ...owner, token: res.body.access_token });
    }
    const wrong: string[] = [];
    for (const op of operations) {
      const answer = wrongAnswer(op, await sendInvalid(op, tokens.get(op.scope)!));
      if (answer) wrong.push(answer);
    }
    expect(wrong).toEqual([]);
  });

  it('a client without the permission of an operation, sending invalid input → 403', async () => {
    // Two clients with every scope: one holding only READ_TASK, one holding only READ_LOAN; each operation is sent
    // by the one that lacks its permission.
    const onlyReadTask = await credentialFor(ctx, owner.tenant, {
      scopes: allScopes,
      permissions: ['READ_TASK'],
    });
    const onlyReadLoan = await credentialFor(ctx, owner.tenant, {
      scopes: allScopes,
      permissions: ['READ_LOAN'],
    });
    const fixed = operations.filter((op) => op.permission !== null);
    expect(fixed.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const op of fixed) {
      const cred = op.permission === 'READ_TASK' ? onlyReadLoan : onlyReadTask;
      const answer = wrongAnswer(op, await sendInvalid(op, cred));
      if (answer) wrong.push(answer);
    }
    expect(wrong).toEqual([]);
  });
});
