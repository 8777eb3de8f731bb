/**
 * Input the edge must refuse on every route (adversarial pass): text PostgreSQL cannot store (U+0000
 * and lone UTF-16 surrogates) in any JSON body string, query parameter, path parameter or the Idempotency-Key
 * header → 400 Shape A and nothing stored; what an Idempotency-Key may hold; a known path with an unsupported
 * method → 405 with `Allow`; dates outside 1900-01-01..2199-12-31 → 400. The route walks are derived from the
 * published OpenAPI document, so a new route is covered without touching this file. Routes that document Shape B
 * errors (the AI session outputs, docs/design.md §4 Errors) answer the same refusals as Shape B: 422 `validation_error`
 * (405 `method_not_allowed`) in `application/problem+json`, naming the same inputs by JSON Pointer or parameter.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import {
  addEvidence,
  authHeaders,
  basic,
  expectShapeA,
  type Json,
  openPrivacyRequest,
  send,
  tokenRequest,
} from './helpers';
import { personalLoanBody, personalLoanProductBody } from './lending-bodies';

let ctx: TestContext;
let cred: Credential;
let openapi: Json;

const allScopes = ['servicing:read', 'servicing:write', 'lending:read', 'lending:write', 'actions:approve'];
const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('edge'), { scopes: allScopes });
  openapi = (await send(ctx, '/v1/openapi.json')).body;
});
afterAll(async () => ctx?.close());

interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: string; required?: boolean; schema?: Json }[];
  bodySchema: Json | null;
  mutation: boolean;
  /** The operation answers errors as Shape B (its 422 is the `Problem` response). */
  problem: boolean;
}

/** Every `/v1` operation of the published document. */
function operations(): Operation[] {
  const list: Operation[] = [];
  for (const [path, methods] of Object.entries<Json>(openapi.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries<Json>(methods)) {
      const parameters = op.parameters ?? [];
      list.push({
        method: method.toUpperCase(),
        path,
        parameters,
        bodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
        mutation: parameters.some((p: Json) => p.name === 'Idempotency-Key'),
        problem: op.responses?.['422']?.$ref === '#/components/responses/Problem',
      });
    }
  }
  return list;
}

/** The path with every `{param}` replaced: `bad` for `target`, `1` for the others. */
function pathWith(op: Operation, target?: string, bad = '1'): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === target ? bad : '1'));
}

function isStringSchema(schema: Json): boolean {
  if (schema?.type === 'string') return true;
  return Array.isArray(schema?.anyOf) && schema.anyOf.some(isStringSchema);
}

/**
 * A body built from a JSON schema in which every string-typed field (at any depth) holds `text`, with the
 * dotted names of those fields; fields of other types are left out.
 */
function bodyWithText(schema: Json, text: string, name = ''): { value: unknown; names: string[] } | null {
  if (isStringSchema(schema)) return { value: text, names: [name === '' ? 'body' : name] };
  const variants: Json[] = Array.isArray(schema?.anyOf) ? schema.anyOf : [schema];
  for (const variant of variants) {
    if (variant?.type === 'object' && variant.properties) {
      const value: Record<string, unknown> = {};
      const names: string[] = [];
      for (const [key, property] of Object.entries<Json>(variant.properties)) {
        const built = bodyWithText(property, text, name === '' ? key : `${name}.${key}`);
        if (built === null) continue;
        value[key] = built.value;
        names.push(...built.names);
      }
      if (names.length > 0) return { value, names };
    }
    if (variant?.type === 'array' && variant.items) {
      const built = bodyWithText(variant.items, text, `${name}[0]`);
      if (built !== null) return { value: [built.value], names: built.names };
    }
  }
  return null;
}

/** Row count of every tenant table (tables with a `tenant_id` column) for `tenant`, under its RLS. */
async function tenantRowCounts(tenant: string): Promise<Record<string, number>> {
  const tables = (await ctx.db.execute(
    sql`select table_name from information_schema.columns where column_name = 'tenant_id' and table_schema = 'public' order by table_name`,
  )) as unknown as { table_name: string }[];
  const counts: Record<string, number> = {};
  await withTenantTransaction(ctx.db, tenant, async (tx) => {
    for (const { table_name } of tables) {
      const [row] = (await tx.execute(
        sql`select count(*)::int as n from ${sql.identifier(table_name)} where tenant_id = ${tenant}`,
      )) as unknown as { n: number }[];
      counts[table_name] = row?.n ?? 0;
    }
  });
  return counts;
}

/** Sends `body` (already JSON text) as `as`. */
function sendJson(
  op: { method: string },
  path: string,
  body: string | undefined,
  headers: Record<string, string> = {},
  as: Credential = cred,
) {
  return send(ctx, path, {
    method: op.method,
    headers: authHeaders(
      as,
      body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ),
    ...(body === undefined ? {} : { body }),
  });
}

/** Asserts the 400 of the unstorable-text rule naming exactly `names`, echoing nothing. */
function expectUnstorable(res: Awaited<ReturnType<typeof send>>, names: string[]) {
  const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', names);
  for (const e of err.errors) {
    expect(e.value).toBeNull();
    expect((e as Json).userMessageGlobalisationCode).toBe('validation.msg.text.unstorable.character');
  }
  return err;
}

/**
 * Where a Shape B `errors[]` item names an input: `header.`, `path.` and `query.` inputs by `parameter`, body
 * fields (`citations[0].fact`) by RFC 6901 pointer (`/citations/0/fact`).
 */
function problemLocation(name: string): { pointer: string | null; parameter?: string } {
  if (/^(header|path|query)\./.test(name)) return { pointer: null, parameter: name };
  if (name === 'body') return { pointer: '' };
  return {
    pointer: `/${name
      .replace(/\[(\d+)\]/g, '.$1')
      .split('.')
      .join('/')}`,
  };
}

/** Asserts a Shape B 422 `validation_error` naming exactly `names` (each with `code` when given). */
function expectProblemFields(res: Awaited<ReturnType<typeof send>>, names: string[], code?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status: 422, code: 'validation_error', title: 'Validation Error' });
  expect(
    res.body.errors.map((e: Json) => ({
      pointer: e.pointer,
      ...(e.parameter ? { parameter: e.parameter } : {}),
    })),
  ).toEqual(names.map(problemLocation));
  if (code) for (const e of res.body.errors) expect(e.code).toBe(code);
  return res.body as { detail: string };
}

/** `expectUnstorable` in the operation's error shape. */
function expectUnstorableIn(op: Operation, res: Awaited<ReturnType<typeof send>>, names: string[]) {
  if (!op.problem) return expectUnstorable(res, names);
  const body = expectProblemFields(res, names, 'validation.msg.text.unstorable.character');
  expect(JSON.stringify(body)).not.toContain('\u0000');
  return body;
}

describe('text PostgreSQL cannot store', () => {
  it('the walk covers the routes of the document (bodies, query and path parameters)', () => {
    const ops = operations();
    expect(ops.filter((op) => op.bodySchema !== null).length).toBeGreaterThanOrEqual(25);
    expect(ops.filter((op) => op.parameters.some((p) => p.in === 'query')).length).toBeGreaterThanOrEqual(12);
    expect(ops.filter((op) => op.parameters.some((p) => p.in === 'path')).length).toBeGreaterThanOrEqual(30);
  });

  it.each([
    ['NUL', NUL],
    ['a lone surrogate', LONE_SURROGATE],
  ])('in every string of every JSON body → 400 naming each field, nothing stored (%s)', async (_, bad) => {
    const tenant = await credentialFor(ctx, uniqueTenant('edge-body'), { scopes: allScopes });
    const before = await tenantRowCounts(tenant.tenant);
    const failures: string[] = [];
    for (const op of operations()) {
      if (op.bodySchema === null) continue;
      const built = bodyWithText(op.bodySchema, `a${bad}b`);
      if (built === null) continue;
      const query = op.parameters
        .filter((p) => p.in === 'query' && p.required && p.schema?.enum)
        .map((p) => `${p.name}=${p.schema.enum[0]}`)
        .join('&');
      const path = pathWith(op) + (query ? `?${query}` : '');
      // JSON.stringify writes NUL as \u0000 and a lone surrogate as the escape \ud800.
      const text = JSON.stringify(built.value);
      expect(text).toContain(bad === NUL ? '\\u0000' : '\\ud800');
      const res = await sendJson(op, path, text, {}, tenant);
      try {
        expectUnstorableIn(op, res, built.names);
      } catch (e) {
        failures.push(
          `${op.method} ${op.path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)} (${e})`,
        );
      }
    }
    expect(failures).toEqual([]);
    expect(await tenantRowCounts(tenant.tenant)).toEqual(before);
  });

  it('in a JSON field name → 400', async () => {
    const res = await sendJson(
      { method: 'POST' },
      '/v1/servicing/cases',
      JSON.stringify({ customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'ok', [`x${NUL}`]: 'y' }),
    );
    expectUnstorable(res, ['body (a field name)']);
  });

  it.each([
    ['NUL', '%00'],
    ['NUL after a plus', 'a+%00'],
    ['a lone surrogate (its WTF-8 bytes)', '%ED%A0%80'],
    ['bytes that are not UTF-8', '%FF'],
  ])('in every query parameter of the document → 400 naming it (%s)', async (_, bad) => {
    const failures: string[] = [];
    let sent = 0;
    for (const op of operations()) {
      for (const param of op.parameters.filter((p) => p.in === 'query')) {
        const res = await sendJson(
          op,
          `${pathWith(op)}?${param.name}=${bad}`,
          op.bodySchema ? '{}' : undefined,
        );
        sent += 1;
        try {
          expectUnstorableIn(op, res, [op.problem ? `query.${param.name}` : param.name]);
        } catch (e) {
          failures.push(
            `${op.method} ${op.path}?${param.name}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)} (${e})`,
          );
        }
      }
    }
    expect(sent).toBeGreaterThanOrEqual(30);
    expect(failures).toEqual([]);
  });

  it.each([
    ['NUL', '%00'],
    ['NUL inside text', 'abc%00def'],
    ['a lone surrogate (its WTF-8 bytes)', '%ED%A0%80'],
  ])('in every path parameter of the document → 400 naming it (%s)', async (_, bad) => {
    const failures: string[] = [];
    for (const op of operations()) {
      for (const param of op.parameters.filter((p) => p.in === 'path')) {
        const res = await sendJson(op, pathWith(op, param.name, bad), op.bodySchema ? '{}' : undefined);
        try {
          expectUnstorableIn(op, res, [`path.${param.name}`]);
        } catch (e) {
          failures.push(
            `${op.method} ${op.path} {${param.name}}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)} (${e})`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('in the client id or secret of a token request → 401 invalid_client (RFC 6749 §5.2), not a database error', async () => {
    for (const [clientId, secret] of [
      [`cl${NUL}x`, 'secret'],
      ['clx', `sec${NUL}ret`],
    ] as const) {
      const res = await tokenRequest(ctx, { authorization: basic(clientId, secret) });
      expect(res.status, JSON.stringify(res.body)).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    }
  });

  it('GET /v1/portfolio/search?q=<NUL> → 400 (was 500)', async () => {
    const res = await send(ctx, '/v1/portfolio/search?q=ann%00', { headers: authHeaders(cred) });
    expectUnstorable(res, ['q']);
  });

  it('a privacy request fulfilled with NUL or a lone surrogate in outcomeReason → 400 at once; it stays RECEIVED and a correct fulfilment then succeeds', async () => {
    const opened = await openPrivacyRequest(ctx, cred);
    const evidenceId = await addEvidence(ctx, cred, opened.caseId);
    for (const bad of [NUL, LONE_SURROGATE]) {
      const res = await call(
        ctx,
        cred,
        'POST',
        `/v1/servicing/privacy-requests/${opened.requestId}/fulfill`,
        {
          outcome: 'FULFILLED',
          outcomeReason: `Deleted${bad}`,
          evidenceIds: [evidenceId],
        },
      );
      expectUnstorable({ ...res, headers: res.headers }, ['outcomeReason']);
    }
    const read = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${opened.requestId}`);
    expect(read.body.status).toBe('RECEIVED');
    const fulfilled = await call(
      ctx,
      cred,
      'POST',
      `/v1/servicing/privacy-requests/${opened.requestId}/fulfill`,
      {
        outcome: 'FULFILLED',
        outcomeReason: 'Deleted',
        evidenceIds: [evidenceId],
      },
    );
    expect(fulfilled.status, JSON.stringify(fulfilled.body)).toBe(200);
  });

  it('a valid customer with NUL in a name → 400, no customer stored', async () => {
    const tenant = await credentialFor(ctx, uniqueTenant('edge-cus'), { scopes: allScopes });
    const res = await call(ctx, tenant, 'POST', '/v1/customers', {
      firstName: 'Ada',
      lastName: `Love${NUL}lace`,
    });
    expectUnstorable({ ...res, headers: res.headers }, ['lastName']);
    expect((await tenantRowCounts(tenant.tenant)).customers).toBe(0);
  });
});

/** A JSON body whose arrays nest `depth` levels deep under one field: `{"x":[[…]]}` (the object counts as a level). */
function nestedBody(depth: number): string {
  return `{"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

describe('deeply nested JSON (at most 64 levels)', () => {
  it('every JSON operation answers a body nested 2,000 levels deep with 400 on body (it used to overflow the stack → 500), nothing stored', async () => {
    const tenant = await credentialFor(ctx, uniqueTenant('edge-deep'), { scopes: allScopes });
    const before = await tenantRowCounts(tenant.tenant);
    const failures: string[] = [];
    let sent = 0;
    for (const op of operations()) {
      if (op.bodySchema === null) continue;
      const query = op.parameters
        .filter((p) => p.in === 'query' && p.required && p.schema?.enum)
        .map((p) => `${p.name}=${p.schema.enum[0]}`)
        .join('&');
      const res = await sendJson(op, pathWith(op) + (query ? `?${query}` : ''), nestedBody(2000), {}, tenant);
      sent += 1;
      try {
        if (op.problem) {
          expectProblemFields(res, ['body'], 'validation.msg.json.nesting.too.deep');
        } else {
          const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['body']);
          expect((err.errors[0] as Json).userMessageGlobalisationCode).toBe(
            'validation.msg.json.nesting.too.deep',
          );
        }
      } catch (e) {
        failures.push(
          `${op.method} ${op.path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)} (${e})`,
        );
      }
    }
    expect(sent).toBeGreaterThanOrEqual(25);
    expect(failures).toEqual([]);
    expect(await tenantRowCounts(tenant.tenant)).toEqual(before);
  });

  it('65 levels is refused; 64 levels passes the limit and reaches the schema (its unknown field is named)', async () => {
    const op = { method: 'POST' };
    const deep = await sendJson(op, '/v1/servicing/cases', nestedBody(65));
    const err = expectShapeA(deep, 400, 'validation.msg.validation.errors.exist', ['body']);
    expect((err.errors[0] as Json).userMessageGlobalisationCode).toBe('validation.msg.json.nesting.too.deep');
    const atLimit = await sendJson(op, '/v1/servicing/cases', nestedBody(64));
    expect(atLimit.status).toBe(400);
    expect(JSON.stringify(atLimit.body)).not.toContain('nesting.too.deep');
    expect(JSON.stringify(atLimit.body)).toContain('"x"');
  });

  it('brackets inside strings do not count', async () => {
    const res = await sendJson(
      { method: 'POST' },
      '/v1/servicing/cases',
      JSON.stringify({ summary: '['.repeat(500), customerRef: 'cus_1', caseTypeCode: 'NOPE' }),
    );
    expect(JSON.stringify(res.body)).not.toContain('nesting.too.deep');
  });
});

describe('Idempotency-Key', () => {
  it.each([
    ['a lone surrogate, as its UTF-8 bytes read by HTTP (latin-1)', 'k-\u00ed\u00a0\u0080'],
    ['a control character', 'k-\u0001'],
    ['a non-ASCII letter', 'clé-1'],
  ])('holding %s → 400 on every mutation route, before the body is looked at', async (_, key) => {
    const tenant = await credentialFor(ctx, uniqueTenant('edge-key'), { scopes: allScopes });
    const before = await tenantRowCounts(tenant.tenant);
    const failures: string[] = [];
    let sent = 0;
    for (const op of operations().filter((o) => o.mutation)) {
      const res = await sendJson(
        op,
        pathWith(op),
        op.bodySchema ? '{}' : undefined,
        { 'idempotency-key': key },
        tenant,
      );
      sent += 1;
      try {
        if (op.problem) {
          expect(expectProblemFields(res, ['header.Idempotency-Key']).detail).toContain('printable ASCII');
          continue;
        }
        const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [
          'header.Idempotency-Key',
        ]);
        expect(err.errors[0]?.value).toBeNull();
        expect(err.developerMessage).toContain('printable ASCII');
      } catch (e) {
        failures.push(
          `${op.method} ${op.path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)} (${e})`,
        );
      }
    }
    expect(sent).toBeGreaterThanOrEqual(25);
    expect(failures).toEqual([]);
    expect(await tenantRowCounts(tenant.tenant)).toEqual(before);
  });

  it('with a comma → 400 whose message says exactly what a key may hold', async () => {
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/cases',
      { customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'ok' },
      { 'idempotency-key': 'order-1,retry-2' },
    );
    const err = expectShapeA(
      { ...res, headers: res.headers },
      400,
      'validation.msg.validation.errors.exist',
      ['header.Idempotency-Key'],
    );
    expect(err.developerMessage).toBe(
      'Idempotency-Key must be 1 to 50 printable ASCII characters (letters, digits, spaces inside, and punctuation other than a comma), sent once; a UUID is a good key. It contains a comma (or the header was sent more than once).',
    );
  });

  it('printable ASCII with spaces and punctuation other than a comma is accepted', async () => {
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/cases',
      { customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'ok' },
      { 'idempotency-key': `order 1;retry=2/"x"~${Date.now().toString(36)}` },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe('unsupported methods', () => {
  it('every documented path answers each method it does not serve with 405 (in its error shape) and an Allow header naming what it serves', async () => {
    const byPath = new Map<string, Set<string>>();
    const problemPaths = new Set(
      operations()
        .filter((op) => op.problem)
        .map((op) => op.path),
    );
    for (const op of operations()) {
      const methods = byPath.get(op.path) ?? new Set<string>();
      methods.add(op.method);
      if (op.method === 'GET') methods.add('HEAD');
      byPath.set(op.path, methods);
    }
    const failures: string[] = [];
    for (const [path, methods] of byPath) {
      const concrete = path.replace(/\{[^}]+\}/g, '1');
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (methods.has(method)) continue;
        const res = await send(ctx, concrete, { method, headers: authHeaders(cred) });
        try {
          if (problemPaths.has(path)) {
            expect(res.status).toBe(405);
            expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect(res.body).toMatchObject({ status: 405, code: 'method_not_allowed' });
          } else {
            expectShapeA(res, 405, 'error.msg.method.not.allowed', []);
          }
          expect(res.headers.get('allow')).toBe([...methods].sort().join(', '));
        } catch (e) {
          failures.push(`${method} ${path}: ${res.status} allow=${res.headers.get('allow')} (${e})`);
        }
      }
    }
    expect(byPath.size).toBeGreaterThanOrEqual(40);
    expect(failures).toEqual([]);
  });

  it('an unknown path is still 404, and an unsupported method without a token still 401', async () => {
    expectShapeA(
      await send(ctx, '/v1/nothing-here', { method: 'DELETE', headers: authHeaders(cred) }),
      404,
      'error.msg.resource.not.found',
      [],
    );
    expectShapeA(
      await send(ctx, '/v1/servicing/cases/1', { method: 'DELETE' }),
      401,
      'error.msg.not.authenticated',
    );
  });
});

describe('dates out of range (1900-01-01..2199-12-31)', () => {
  let lender: Credential;
  let borrowerId: number;
  let productId: number;

  const loanBody = (overrides: Record<string, unknown> = {}) =>
    personalLoanBody({ clientId: borrowerId, productId }, overrides);

  beforeAll(async () => {
    lender = await credentialFor(ctx, uniqueTenant('edge-date'), { scopes: allScopes });
    const customer = await call(ctx, lender, 'POST', '/v1/customers', { firstName: 'Ada', lastName: 'Date' });
    expect(customer.status, JSON.stringify(customer.body)).toBe(201);
    borrowerId = customer.body.customerId;
    const product = await call(ctx, lender, 'POST', '/v1/loanproducts', personalLoanProductBody());
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    productId = product.body.productId;
  });

  const post = (path: string, body: unknown) => call(ctx, lender, 'POST', path, body);
  const asResponse = (res: Awaited<ReturnType<typeof call>>) => ({ ...res, headers: res.headers });

  it('a loan expected to disburse on 9999-12-31 → 400, nothing stored (it used to be stored, then summary and approve answered 500)', async () => {
    const before = await tenantRowCounts(lender.tenant);
    const res = await post('/v1/loans', loanBody({ expectedDisbursementDate: '9999-12-31' }));
    const err = expectShapeA(asResponse(res), 400, 'validation.msg.validation.errors.exist', [
      'expectedDisbursementDate',
    ]);
    expect(err.developerMessage).toContain('1900-01-01 to 2199-12-31');
    expect(await tenantRowCounts(lender.tenant)).toEqual(before);
  });

  it('a preview submitted on 0000-01-01 and disbursed on 9999-12-31 → 400 naming both (was 500)', async () => {
    const res = await post(
      '/v1/loans?command=calculateLoanSchedule',
      loanBody({ submittedOnDate: '0000-01-01', expectedDisbursementDate: '9999-12-31' }),
    );
    expectShapeA(asResponse(res), 400, 'validation.msg.validation.errors.exist', [
      'expectedDisbursementDate',
      'submittedOnDate',
    ]);
  });

  it('a date in the body dateFormat is bounded after reading it; so are a first repayment date and a charge due date', async () => {
    const res = await post(
      '/v1/loans?command=calculateLoanSchedule',
      loanBody({
        dateFormat: 'dd MMMM yyyy',
        submittedOnDate: '10 March 2025',
        expectedDisbursementDate: '31 December 9999',
        repaymentsStartingFromDate: '01 January 1899',
        charges: [{ chargeId: 1, dueDate: '2200-01-01' }],
      }),
    );
    const err = expectShapeA(asResponse(res), 400, 'validation.msg.validation.errors.exist', [
      'expectedDisbursementDate',
      'repaymentsStartingFromDate',
      'charges[0].dueDate',
    ]);
    expect(err.developerMessage).toContain('read as 9999-12-31');
  });

  it('the range ends are accepted: a preview disbursed 2199-12-31; one submitted 1900-01-01', async () => {
    for (const [submittedOnDate, expectedDisbursementDate] of [
      ['2025-03-10', '2199-12-31'],
      ['1900-01-01', '1900-01-02'],
    ]) {
      const res = await post(
        '/v1/loans?command=calculateLoanSchedule',
        loanBody({ submittedOnDate, expectedDisbursementDate }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  it('approve, record-external funding and payment, and the summary asOfDate are bounded too', async () => {
    const created = await post('/v1/loans', loanBody());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const loanId = created.body.loanId ?? created.body.resourceId;
    const approve = await post(`/v1/loans/${loanId}?command=approve`, {
      approvedOnDate: '9999-12-31',
      approvedLoanAmount: '5000',
    });
    expectShapeA(asResponse(approve), 400, 'validation.msg.validation.errors.exist', ['approvedOnDate']);
    const funding = await post(`/v1/loans/${loanId}/fundings/record-external`, {
      amount: '5000',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'acct-ref-a',
      externalRecordRef: 'fund-a',
      reason: 'Boarded',
      fundingDate: '1899-12-31',
    });
    expectShapeA(asResponse(funding), 400, 'validation.msg.validation.errors.exist', ['fundingDate']);
    const payment = await post(`/v1/loans/${loanId}/payments/record-external`, {
      amount: '100',
      currency: 'USD',
      effectiveDate: '9999-12-31',
      externalRecordRef: 'pay-a',
      source: 'IMPORT',
      rationale: 'Boarded',
    });
    expectShapeA(asResponse(payment), 400, 'validation.msg.validation.errors.exist', ['effectiveDate']);
    const summary = await send(ctx, `/v1/loans/${loanId}/summary?asOfDate=9999-12-31`, {
      headers: authHeaders(lender),
    });
    expectShapeA(summary, 400, 'validation.msg.validation.errors.exist', ['asOfDate']);
  });

  it('timestamps are bounded the same way (a consent captured in 1850 → 400)', async () => {
    const res = await post(`/v1/customers/${borrowerId}/consents`, {
      consentType: 'ESIGN',
      granted: true,
      captureMethod: 'WEB_FORM',
      evidenceRef: 'doc-ESIGN-2024-001',
      capturedAt: '1850-01-01T00:00:00Z',
    });
    expectShapeA(asResponse(res), 400, 'validation.msg.validation.errors.exist', ['capturedAt']);
  });
});
