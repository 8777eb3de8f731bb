/**
 * Documents through the app on the real database (docs/lending.md "Lending core": POST /v1/documents; docs/lending.md "Lending core": GET /v1/documents/{documentId}/history; docs/servicing.md: PUT /v1/servicing/documents/{documentId};
 * OpenAPI `GET /v1/documents/{documentId}/history`): history items with the actor and the request id, links checked inside the tenant,
 * cross-tenant 404s, Idempotency-Key replays, scopes and permissions, Shape A 400s with `parameterName`.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, documentHistory, documents, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { insertBareLoanProduct } from '../activities/helpers';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, newKey } from './helpers';

const allScopes = { scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('doc'), allScopes);
  other = await credentialFor(ctx, uniqueTenant('doc-other'), allScopes);
});
afterAll(async () => ctx?.close());

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function createDocument(as: Credential, body: Record<string, unknown> = {}, headers = {}) {
  const res = await call(
    ctx,
    as,
    'POST',
    '/v1/documents',
    { title: 'Loan agreement', documentType: 'LOAN_AGREEMENT', ...body },
    headers,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

/** A customer row of `tenant`, written directly (the customers routes are another module). */
async function insertCustomer(tenant: string): Promise<number> {
  const [row] = await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .insert(customers)
      .values({ tenantId: tenant, firstName: 'Ada', lastName: 'Lovelace', searchName: 'ada lovelace' })
      .returning({ id: customers.id }),
  );
  return row!.id;
}

/** A loan row of `tenant`, written directly (loans are another module; only its existence matters here). */
async function insertLoan(tenant: string, customerId: number): Promise<number> {
  const [row] = await withTenantTransaction(ctx.db, tenant, async (tx) =>
    tx
      .insert(loans)
      .values({
        tenantId: tenant,
        accountNo: `LN-${newKey()}`,
        clientId: customerId,
        productId: await insertBareLoanProduct(tx, tenant),
        loanType: 'individual',
        currencyCode: 'USD',
        principal: '1000',
        terms: {},
        transactionProcessingStrategyCode: 'mifos-standard-strategy',
        submittedOnDate: '2024-01-01',
        expectedDisbursementDate: '2024-01-01',
      })
      .returning({ id: loans.id }),
  );
  return row!.id;
}

describe('POST /v1/documents and its history', () => {
  it('records a document: 201 {documentId, resourceId} and a DOCUMENT_CREATED item with actor and request id', async () => {
    const res = await createDocument(
      cred,
      { storageRef: 's3://docs/agreement.pdf' },
      { 'service-actor': 'clerk-7', 'x-request-id': 'req-doc-create-1' },
    );
    expect(res.body).toEqual({ documentId: expect.any(Number), resourceId: res.body.documentId });
    const history = await call(ctx, cred, 'GET', `/v1/documents/${res.body.documentId}/history`);
    expect(history.status).toBe(200);
    expect(history.body).toEqual({
      items: [
        {
          action: 'DOCUMENT_CREATED',
          occurredAt: expect.stringMatching(isoInstant),
          actorUsername: 'clerk-7',
          correlationId: 'req-doc-create-1',
        },
      ],
    });
    const read = await call(ctx, cred, 'GET', `/v1/documents/${res.body.documentId}`);
    expect(read.body).toEqual({
      documentId: res.body.documentId,
      resourceId: res.body.documentId,
      title: 'Loan agreement',
      documentType: 'LOAN_AGREEMENT',
      loanId: null,
      customerId: null,
      storageRef: 's3://docs/agreement.pdf',
      createdAt: expect.stringMatching(isoInstant),
      updatedAt: expect.stringMatching(isoInstant),
    });
  });

  it('uses the generated request id when none is sent, and null without Service-Actor', async () => {
    const res = await createDocument(cred);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const history = await call(ctx, cred, 'GET', `/v1/documents/${res.body.documentId}/history`);
    expect(history.body.items).toEqual([
      expect.objectContaining({ action: 'DOCUMENT_CREATED', actorUsername: null, correlationId: requestId }),
    ]);
  });

  it('links a loan and a customer of the tenant; another tenant’s or unknown ones → 400 naming the field', async () => {
    const customerId = await insertCustomer(cred.tenant);
    const loanId = await insertLoan(cred.tenant, customerId);
    const linked = await createDocument(cred, { loanId, customerId });
    const read = await call(ctx, cred, 'GET', `/v1/documents/${linked.body.documentId}`);
    expect(read.body).toMatchObject({ loanId, customerId });

    const foreignCustomer = await insertCustomer(other.tenant);
    const foreignLoan = await insertLoan(other.tenant, foreignCustomer);
    const before = await countRows(ctx, cred.tenant, documents);
    for (const [body, field] of [
      [{ loanId: foreignLoan }, 'loanId'],
      [{ loanId: 987_654_321 }, 'loanId'],
      [{ customerId: foreignCustomer }, 'customerId'],
      [{ customerId: 987_654_321 }, 'customerId'],
    ] as const) {
      const res = await call(ctx, cred, 'POST', '/v1/documents', {
        title: 'x',
        documentType: 'LETTER',
        ...body,
      });
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [field]);
    }
    expect(await countRows(ctx, cred.tenant, documents)).toBe(before);
  });

  it('replays a request with the same Idempotency-Key: one document, one history item', async () => {
    const key = newKey();
    const first = await createDocument(cred, { title: `Replayed ${key}` }, { 'idempotency-key': key });
    const second = await createDocument(cred, { title: `Replayed ${key}` }, { 'idempotency-key': key });
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('x-served-from-cache')).toBe('true');
    expect(await countRows(ctx, cred.tenant, documents, eq(documents.title, `Replayed ${key}`))).toBe(1);
    expect(
      await countRows(
        ctx,
        cred.tenant,
        documentHistory,
        eq(documentHistory.documentId, first.body.documentId),
      ),
    ).toBe(1);
  });

  it.each([
    ['a missing title', { title: undefined }, ['title']],
    ['a blank title', { title: '  ' }, ['title']],
    ['a lower-case document type', { documentType: 'letter' }, ['documentType']],
    ['a string loan id', { loanId: '12' }, ['loanId']],
    ['a zero customer id', { customerId: 0 }, ['customerId']],
    ['an unknown field', { fileName: 'a.pdf' }, ['fileName']],
  ])('rejects %s with 400 naming the field', async (_label, overrides, names) => {
    const res = await call(ctx, cred, 'POST', '/v1/documents', {
      title: 'Loan agreement',
      documentType: 'LOAN_AGREEMENT',
      ...overrides,
    });
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', names);
  });

  it('answers 404 for another tenant’s document and its history', async () => {
    const { documentId } = (await createDocument(cred)).body;
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/documents/${documentId}/history`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/documents/${documentId}`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/documents/987654321/history'),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/documents/x/history'),
      400,
      'validation.msg.validation.errors.exist',
      ['documentId'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/documents/${documentId}/history?limit=10`),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
  });

  it('needs lending:write + CREATE_DOCUMENT to record and lending:read + READ_DOCUMENT to read', async () => {
    const { documentId } = (await createDocument(cred)).body;
    const servicingOnly = await credentialFor(ctx, cred.tenant, {
      scopes: ['servicing:read', 'servicing:write'],
    });
    expectShapeA(
      await call(ctx, servicingOnly, 'POST', '/v1/documents', { title: 'x', documentType: 'LETTER' }),
      403,
      'error.msg.not.authorized',
    );
    expectShapeA(
      await call(ctx, servicingOnly, 'GET', `/v1/documents/${documentId}/history`),
      403,
      'error.msg.not.authorized',
    );
    const readerOnly = await credentialFor(ctx, cred.tenant, {
      ...allScopes,
      permissions: ['READ_DOCUMENT'],
    });
    expectShapeA(
      await call(ctx, readerOnly, 'POST', '/v1/documents', { title: 'x', documentType: 'LETTER' }),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, readerOnly, 'GET', `/v1/documents/${documentId}/history`)).status).toBe(200);
  });
});

describe('PUT /v1/servicing/documents/{documentId}', () => {
  it('changes the title: 200 {resourceId, changes: {title}} and a TITLE_CHANGED item', async () => {
    const { documentId } = (await createDocument(cred, { title: 'Agreement v1' })).body;
    const res = await call(
      ctx,
      cred,
      'PUT',
      `/v1/servicing/documents/${documentId}`,
      { title: '  Agreement v2  ', reason: 'Signed version uploaded' },
      { 'service-actor': 'agent-3', 'x-request-id': 'req-title-1' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ resourceId: documentId, changes: { title: 'Agreement v2' } });
    const history = await call(ctx, cred, 'GET', `/v1/documents/${documentId}/history`);
    expect(history.body.items.map((i: { action: string }) => i.action)).toEqual([
      'DOCUMENT_CREATED',
      'TITLE_CHANGED',
    ]);
    expect(history.body.items[1]).toEqual({
      action: 'TITLE_CHANGED',
      occurredAt: expect.stringMatching(isoInstant),
      actorUsername: 'agent-3',
      correlationId: 'req-title-1',
    });
    expect((await call(ctx, cred, 'GET', `/v1/documents/${documentId}`)).body.title).toBe('Agreement v2');
    const [item] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select({ detail: documentHistory.detail })
        .from(documentHistory)
        .where(eq(documentHistory.correlationId, 'req-title-1')),
    );
    expect(item?.detail).toMatchObject({
      before: 'Agreement v1',
      after: 'Agreement v2',
      reason: 'Signed version uploaded',
    });
  });

  it('replays with the same Idempotency-Key and writes one item; the same title again writes none', async () => {
    const { documentId } = (await createDocument(cred, { title: 'Letter' })).body;
    const key = newKey();
    const body = { title: 'Letter (final)', reason: 'Final' };
    const path = `/v1/servicing/documents/${documentId}`;
    const first = await call(ctx, cred, 'PUT', path, body, { 'idempotency-key': key });
    const second = await call(ctx, cred, 'PUT', path, body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('x-served-from-cache')).toBe('true');
    const unchanged = await call(ctx, cred, 'PUT', path, body);
    expect(unchanged.body).toEqual({ resourceId: documentId, changes: { title: 'Letter (final)' } });
    const items = (await call(ctx, cred, 'GET', `/v1/documents/${documentId}/history`)).body.items;
    expect(items.map((i: { action: string }) => i.action)).toEqual(['DOCUMENT_CREATED', 'TITLE_CHANGED']);
  });

  it('answers 404 for another tenant’s or an unknown document, and 400 for bad bodies', async () => {
    const { documentId } = (await createDocument(cred)).body;
    const body = { title: 'Hijacked', reason: 'x' };
    expectShapeA(
      await call(ctx, other, 'PUT', `/v1/servicing/documents/${documentId}`, body),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'PUT', '/v1/servicing/documents/987654321', body),
      404,
      'error.msg.resource.not.found',
    );
    expect((await call(ctx, cred, 'GET', `/v1/documents/${documentId}`)).body.title).toBe('Loan agreement');
    expectShapeA(
      await call(ctx, cred, 'PUT', `/v1/servicing/documents/${documentId}`, { title: 'New' }),
      400,
      'validation.msg.validation.errors.exist',
      ['reason'],
    );
    expectShapeA(
      await call(ctx, cred, 'PUT', `/v1/servicing/documents/${documentId}`, { ...body, documentType: 'X' }),
      400,
      'validation.msg.validation.errors.exist',
      ['documentType'],
    );
  });

  it('needs servicing:write and UPDATE_DOCUMENT', async () => {
    const { documentId } = (await createDocument(cred)).body;
    const body = { title: 'New', reason: 'x' };
    const lendingOnly = await credentialFor(ctx, cred.tenant, { scopes: ['lending:read', 'lending:write'] });
    expectShapeA(
      await call(ctx, lendingOnly, 'PUT', `/v1/servicing/documents/${documentId}`, body),
      403,
      'error.msg.not.authorized',
    );
    const noUpdate = await credentialFor(ctx, cred.tenant, {
      ...allScopes,
      permissions: ['CREATE_DOCUMENT', 'READ_DOCUMENT'],
    });
    expectShapeA(
      await call(ctx, noUpdate, 'PUT', `/v1/servicing/documents/${documentId}`, body),
      403,
      'error.msg.not.authorized',
    );
    const updater = await credentialFor(ctx, cred.tenant, { ...allScopes, permissions: ['UPDATE_DOCUMENT'] });
    expect((await call(ctx, updater, 'PUT', `/v1/servicing/documents/${documentId}`, body)).status).toBe(200);
  });
});
