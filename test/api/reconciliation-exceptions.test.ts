/**
 * The reconciliation-exception routes (docs/processes.md P1 "Reconciliation exceptions"; docs/lending.md "Reconciliation exceptions", docs/design.md §4 Paging) through the app: list filters and limit/offset paging, 400 for bad filters and
 * paging, get with the spec's fields and 404 (also across tenants), the CSV and NDJSON exports (content, headers,
 * a formula-injection cell), resolve 200/409/404 with Idempotency-Key replay, and 403 without the permission.
 * Exceptions are opened by calling the operation, as the payment-intent workflow does in production.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenReconciliationExceptionInput } from '../../activities/payments/open-reconciliation-exception';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA, newKey } from './helpers';

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let counter = 0;
/** A target ref of letters and a counter (never a long digit run, which the identifier guard refuses). */
const nextRef = () => `pay-${Date.now().toString(36)}-${(counter++).toString(36)}`;

const lending = ['lending:read', 'lending:write'];

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('recon'), { scopes: lending });
  other = await credentialFor(ctx, uniqueTenant('recon'), { scopes: lending });
});
afterAll(async () => ctx?.close());

async function open(
  tenantId: string,
  overrides: Partial<OpenReconciliationExceptionInput> = {},
): Promise<{ exceptionId: number; targetRef: string }> {
  const targetRef = overrides.targetRef ?? nextRef();
  const { exception } = await ctx.activities.openReconciliationException({
    tenantId,
    exceptionType: 'SETTLED_NOT_POSTED',
    targetType: 'PAYMENT_INTENT',
    targetRef,
    detail: {
      providerRef: `sbx-${targetRef}`,
      reason: 'AMOUNT_MISMATCH',
      settledAmount: '99.50',
      currency: 'USD',
    },
    ...overrides,
  });
  return { exceptionId: exception.exceptionId, targetRef };
}

/** A raw export request (the body is CSV or NDJSON, not one JSON document). */
async function exportOf(c: Credential, query = '', accept?: string) {
  const res = await ctx.app.request(`/v1/recon-exceptions/export${query}`, {
    headers: {
      authorization: `Bearer ${c.token}`,
      'service-tenant': c.tenant,
      ...(accept ? { accept } : {}),
    },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('GET /v1/recon-exceptions', () => {
  let tenant: Credential;
  const ids: number[] = [];

  beforeAll(async () => {
    tenant = await credentialFor(ctx, uniqueTenant('recon'), { scopes: lending });
    for (let i = 0; i < 5; i++) {
      const exceptionType = i < 3 ? 'SETTLED_NOT_POSTED' : 'RETURN_NOT_REVERSED';
      ids.push((await open(tenant.tenant, { exceptionType })).exceptionId);
    }
    await ctx.activities.resolveReconciliationException({
      tenantId: tenant.tenant,
      exceptionId: ids[1] ?? 0,
      resolution: 'DISMISS',
      reason: 'Timing difference',
      actor: 'ops-anna',
    });
  });

  it('lists newest first as {items}, with limit/offset and filters', async () => {
    const all = await call(ctx, tenant, 'GET', '/v1/recon-exceptions');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(['items']);
    expect(all.body.items.map((e: { exceptionId: number }) => e.exceptionId)).toEqual([...ids].reverse());

    const page = await call(ctx, tenant, 'GET', '/v1/recon-exceptions?limit=2&offset=1');
    expect(page.body.items.map((e: { exceptionId: number }) => e.exceptionId)).toEqual([ids[3], ids[2]]);
    const last = await call(ctx, tenant, 'GET', '/v1/recon-exceptions?limit=2&offset=4');
    expect(last.body.items.map((e: { exceptionId: number }) => e.exceptionId)).toEqual([ids[0]]);

    const open = await call(ctx, tenant, 'GET', '/v1/recon-exceptions?status=open');
    expect(open.body.items.map((e: { exceptionId: number }) => e.exceptionId)).toEqual([
      ids[4],
      ids[3],
      ids[2],
      ids[0],
    ]);
    const resolved = await call(ctx, tenant, 'GET', '/v1/recon-exceptions?status=resolved');
    expect(resolved.body.items).toHaveLength(1);
    expect(resolved.body.items[0]).toMatchObject({
      exceptionId: ids[1],
      status: 'resolved',
      resolution: 'DISMISS',
    });
    const returns = await call(
      ctx,
      tenant,
      'GET',
      '/v1/recon-exceptions?exceptionType=RETURN_NOT_REVERSED&status=open&limit=200',
    );
    expect(returns.body.items.map((e: { exceptionId: number }) => e.exceptionId)).toEqual([ids[4], ids[3]]);
  });

  it('another tenant lists nothing', async () => {
    const res = await call(ctx, other, 'GET', '/v1/recon-exceptions?limit=200');
    expect(res.status).toBe(200);
    expect(res.body.items.map((e: { exceptionId: number }) => e.exceptionId)).not.toContain(ids[0]);
  });

  it('400 Shape A for unknown filter values, bad paging and unknown parameters', async () => {
    for (const [query, names] of [
      ['status=OPEN', ['status']],
      ['status=closed', ['status']],
      ['exceptionType=LOST', ['exceptionType']],
      ['limit=0', ['limit']],
      ['limit=201', ['limit']],
      ['limit=abc', ['limit']],
      ['offset=-1', ['offset']],
      ['cursor=abc', ['cursor']],
      ['targetRef=x', ['targetRef']],
    ] as const) {
      const res = await call(ctx, tenant, 'GET', `/v1/recon-exceptions?${query}`);
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [...names]);
    }
  });
});

describe('GET /v1/recon-exceptions/{exceptionId}', () => {
  it('answers the spec fields exactly while open', async () => {
    const { exceptionId, targetRef } = await open(cred.tenant);
    const res = await call(ctx, cred, 'GET', `/v1/recon-exceptions/${exceptionId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      exceptionId,
      exceptionType: 'SETTLED_NOT_POSTED',
      targetType: 'PAYMENT_INTENT',
      targetRef,
      status: 'open',
      detail: {
        providerRef: `sbx-${targetRef}`,
        reason: 'AMOUNT_MISMATCH',
        settledAmount: '99.50',
        currency: 'USD',
      },
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      lastSeenAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('404 when absent or another tenant’s; 400 for a malformed id', async () => {
    const { exceptionId } = await open(cred.tenant);
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/recon-exceptions/${exceptionId}`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/recon-exceptions/${exceptionId + 1_000_000}`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/recon-exceptions/0'),
      400,
      'validation.msg.validation.errors.exist',
      ['exceptionId'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/recon-exceptions/${exceptionId}?status=open`),
      400,
      'validation.msg.validation.errors.exist',
      ['status'],
    );
  });
});

describe('POST /v1/recon-exceptions/{exceptionId}/resolve', () => {
  it('200 with the resolved exception; a second resolution → 409; a replayed key → the first answer', async () => {
    const { exceptionId, targetRef } = await open(cred.tenant);
    const key = newKey('resolve');
    const body = { resolution: 'POST_INTENT_AMOUNT', reason: 'Provider will settle the difference' };
    const res = await call(ctx, cred, 'POST', `/v1/recon-exceptions/${exceptionId}/resolve`, body, {
      'idempotency-key': key,
      'service-actor': 'ops-anna',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      exceptionId,
      targetType: 'PAYMENT_INTENT',
      targetRef,
      status: 'resolved',
      resolution: 'POST_INTENT_AMOUNT',
      resolutionReason: 'Provider will settle the difference',
      resolvedBy: 'ops-anna',
      resolvedAt: expect.any(String),
    });

    const replay = await call(ctx, cred, 'POST', `/v1/recon-exceptions/${exceptionId}/resolve`, body, {
      'idempotency-key': key,
      'service-actor': 'ops-anna',
    });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(replay.body).toEqual(res.body);

    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/recon-exceptions/${exceptionId}/resolve`, {
        resolution: 'DISMISS',
        reason: 'again',
      }),
      409,
      'error.msg.reconciliation.exception.invalid.state.transition',
    );
    const read = await call(ctx, cred, 'GET', `/v1/recon-exceptions/${exceptionId}`);
    expect(read.body).toEqual(res.body);
  });

  it('names the client as resolver without Service-Actor', async () => {
    const { exceptionId } = await open(cred.tenant);
    const res = await call(ctx, cred, 'POST', `/v1/recon-exceptions/${exceptionId}/resolve`, {
      resolution: 'REFUND_BORROWER',
      reason: 'Refund the borrower',
    });
    expect(res.status).toBe(200);
    expect(res.body.resolvedBy).toBe(cred.clientId);
  });

  it('404 when absent or another tenant’s, and the other tenant’s exception stays open', async () => {
    const { exceptionId } = await open(cred.tenant);
    const body = { resolution: 'DISMISS', reason: 'not mine' };
    expectShapeA(
      await call(ctx, other, 'POST', `/v1/recon-exceptions/${exceptionId}/resolve`, body),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/recon-exceptions/${exceptionId + 1_000_000}/resolve`, body),
      404,
      'error.msg.resource.not.found',
    );
    expect((await call(ctx, cred, 'GET', `/v1/recon-exceptions/${exceptionId}`)).body.status).toBe('open');
  });

  it('400 for a bad body, with nothing changed; a sensitive reason is not echoed', async () => {
    const { exceptionId } = await open(cred.tenant);
    const path = `/v1/recon-exceptions/${exceptionId}/resolve`;
    for (const [body, names] of [
      [{ resolution: 'WRITE_OFF', reason: 'x' }, ['resolution']],
      [{ resolution: 'DISMISS' }, ['reason']],
      [{ resolution: 'DISMISS', reason: '   ' }, ['reason']],
      [{ resolution: 'DISMISS', reason: 'x'.repeat(2001) }, ['reason']],
      [{ resolution: 'DISMISS', reason: 'x', extra: 1 }, ['extra']],
    ] as const) {
      expectShapeA(await call(ctx, cred, 'POST', path, body), 400, 'validation.msg.validation.errors.exist', [
        ...names,
      ]);
    }
    const sensitive = await call(ctx, cred, 'POST', path, {
      resolution: 'DISMISS',
      reason: 'refund to card 4111 1111 1111 1111',
    });
    expectShapeA(sensitive, 400, 'validation.msg.validation.errors.exist', ['reason']);
    expect(JSON.stringify(sensitive.body)).not.toContain('4111 1111');
    expect((await call(ctx, cred, 'GET', `/v1/recon-exceptions/${exceptionId}`)).body.status).toBe('open');
  });
});

describe('GET /v1/recon-exceptions/export', () => {
  let tenant: Credential;
  const refs: string[] = [];
  const ids: number[] = [];

  beforeAll(async () => {
    tenant = await credentialFor(ctx, uniqueTenant('recon'), { scopes: lending });
    for (const [i, providerRef] of [
      '=HYPERLINK("http://evil.example","x")',
      'plain-ref',
      '@SUM(A1)',
    ].entries()) {
      const targetRef = nextRef();
      refs.push(targetRef);
      const { exceptionId } = await open(tenant.tenant, {
        targetRef,
        exceptionType: i === 1 ? 'UNMATCHED_SETTLEMENT' : 'SETTLED_NOT_POSTED',
        detail: { providerRef, reason: 'line one, "quoted"\nline two' },
      });
      ids.push(exceptionId);
    }
    await ctx.activities.resolveReconciliationException({
      tenantId: tenant.tenant,
      exceptionId: ids[2] ?? 0,
      resolution: 'DISMISS',
      reason: '-1 day timing difference',
      actor: 'ops-anna',
    });
  });

  it('CSV by default: RFC 4180 with a header row, oldest first, formula cells neutralized', async () => {
    const res = await exportOf(tenant);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="recon-exceptions.csv"');
    expect(res.headers.get('vary')).toBe('Accept');
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe(
      'exceptionId,exceptionType,targetType,targetRef,status,providerRef,detail,createdAt,lastSeenAt,resolution,resolutionReason,resolvedBy,resolvedAt',
    );
    expect(res.text.endsWith('\r\n')).toBe(true);
    // The first record: the providerRef starting with = is prefixed with ' and quoted (it holds quotes and commas).
    expect(res.text).toContain(
      `${ids[0]},SETTLED_NOT_POSTED,PAYMENT_INTENT,${refs[0]},open,"'=HYPERLINK(""http://evil.example"",""x"")",`,
    );
    // detail is compact JSON; its quotes are doubled and its escaped newline stays inside the field. (PostgreSQL jsonb orders keys shorter first.)
    expect(res.text).toContain(
      ',plain-ref,"{""reason"":""line one, \\""quoted\\""\\nline two"",""providerRef"":""plain-ref""}",',
    );
    expect(res.text).toContain(`${ids[2]},SETTLED_NOT_POSTED,PAYMENT_INTENT,${refs[2]},resolved,'@SUM(A1),`);
    expect(res.text).toContain(",DISMISS,'-1 day timing difference,ops-anna,");
    const order = ids.map((id) => res.text.indexOf(`\r\n${id},`));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // Header + three records (none holds a raw CRLF) + the empty string after the last CRLF.
    expect(lines).toHaveLength(5);
  });

  it('NDJSON when Accept asks for it: one exception per line, the GET shape', async () => {
    const res = await exportOf(tenant, '', 'application/x-ndjson');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="recon-exceptions.ndjson"');
    const lines = res.text.split('\n');
    expect(lines.at(-1)).toBe('');
    const items = lines.slice(0, -1).map((line) => JSON.parse(line));
    expect(items.map((e) => e.exceptionId)).toEqual(ids);
    const single = await call(ctx, tenant, 'GET', `/v1/recon-exceptions/${ids[2]}`);
    expect(items[2]).toEqual(single.body);
    expect(items[0].detail.providerRef).toBe('=HYPERLINK("http://evil.example","x")');

    // A preference by quality picks the higher one; */* and unknown types fall back to CSV.
    expect(
      (await exportOf(tenant, '', 'text/csv;q=0.5, application/x-ndjson')).headers.get('content-type'),
    ).toBe('application/x-ndjson');
    expect(
      (await exportOf(tenant, '', 'application/x-ndjson;q=0.2, text/csv')).headers.get('content-type'),
    ).toMatch(/^text\/csv/);
    expect((await exportOf(tenant, '', '*/*')).headers.get('content-type')).toMatch(/^text\/csv/);
  });

  it('applies the filters; another tenant exports only the header', async () => {
    const open = await exportOf(tenant, '?status=open', 'application/x-ndjson');
    expect(
      open.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).exceptionId),
    ).toEqual([ids[0], ids[1]]);
    const unmatched = await exportOf(tenant, '?exceptionType=UNMATCHED_SETTLEMENT', 'application/x-ndjson');
    expect(
      unmatched.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).exceptionId),
    ).toEqual([ids[1]]);
    const empty = await exportOf(other, '?exceptionType=UNMATCHED_SETTLEMENT&status=resolved');
    expect(empty.status).toBe(200);
    expect(empty.text.split('\r\n')).toHaveLength(2);
    expect((await exportOf(other, '?status=resolved', 'application/x-ndjson')).text).toBe('');
  });

  it('streams more rows than one batch', async () => {
    const big = await credentialFor(ctx, uniqueTenant('recon'), { scopes: lending });
    const count = 1203;
    await Promise.all(
      Array.from({ length: 3 }, async (_, worker) => {
        for (let i = worker; i < count; i += 3)
          await open(big.tenant, { targetRef: `bulk-${i.toString(36)}-x` });
      }),
    );
    const res = await exportOf(big, '', 'application/x-ndjson');
    const exported = res.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).exceptionId as number);
    expect(exported).toHaveLength(count);
    expect(new Set(exported).size).toBe(count);
    expect([...exported].sort((a, b) => a - b)).toEqual(exported);
  });

  it('400 for bad filters or paging parameters (the export has none)', async () => {
    for (const query of ['?status=OPEN', '?exceptionType=x', '?limit=10', '?offset=0']) {
      const res = await ctx.app.request(`/v1/recon-exceptions/export${query}`, {
        headers: { authorization: `Bearer ${tenant.token}`, 'service-tenant': tenant.tenant },
      });
      expect(res.status).toBe(400);
      expect(
        ((await res.json()) as { userMessageGlobalisationCode: string }).userMessageGlobalisationCode,
      ).toBe('validation.msg.validation.errors.exist');
    }
  });
});

describe('scopes and permissions', () => {
  it('403 without the read permission, the resolve permission or the scope', async () => {
    const { exceptionId } = await open(cred.tenant);
    const readOnly = await credentialFor(ctx, cred.tenant, {
      scopes: lending,
      permissions: ['READ_RECONEXCEPTION'],
    });
    const resolver = await credentialFor(ctx, cred.tenant, {
      scopes: ['lending:write'],
      permissions: ['RESOLVE_RECONEXCEPTION'],
    });
    const noScope = await credentialFor(ctx, cred.tenant, {
      scopes: ['servicing:read', 'servicing:write'],
      permissions: ['ALL'],
    });
    const body = { resolution: 'DISMISS', reason: 'ok' };
    expect((await call(ctx, readOnly, 'GET', `/v1/recon-exceptions/${exceptionId}`)).status).toBe(200);
    expect((await exportOf(readOnly)).status).toBe(200);
    expectShapeA(
      await call(ctx, readOnly, 'POST', `/v1/recon-exceptions/${exceptionId}/resolve`, body),
      403,
      'error.msg.not.authorized',
    );
    expectShapeA(await call(ctx, resolver, 'GET', '/v1/recon-exceptions'), 403, 'error.msg.not.authorized');
    expect((await exportOf(resolver)).status).toBe(403);
    expectShapeA(
      await call(ctx, noScope, 'GET', `/v1/recon-exceptions/${exceptionId}`),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, cred, 'GET', `/v1/recon-exceptions/${exceptionId}`)).body.status).toBe('open');
    expect(
      (await call(ctx, resolver, 'POST', `/v1/recon-exceptions/${exceptionId}/resolve`, body)).status,
    ).toBe(200);
  });
});
