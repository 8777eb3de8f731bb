/**
 * Paging cursors are opaque and bound to the tenant, the endpoint and the query (docs/design.md §4 Paging, §5 Cursors;
 * docs/design.md §4 Paging; a portfolio-search cursor was readable base64 holding the customer's name, and a
 * cursor of tenant A was accepted by tenant B). Another tenant's or an altered cursor → 400 Shape A.
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
import { expectShapeA } from './helpers';

let ctx: TestContext;
let a: Credential;
let b: Credential;
const lending = { scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'] };

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  a = await credentialFor(ctx, uniqueTenant('cur'), lending);
  b = await credentialFor(ctx, uniqueTenant('cur'), lending);
  for (const cred of [a, b]) {
    for (const firstName of ['Quentin', 'Quincy', 'Quinn']) {
      const res = await call(ctx, cred, 'POST', '/v1/customers', { firstName, lastName: 'Marchetti-Obi' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  }
});
afterAll(async () => ctx?.close());

const search = (cred: Credential, query: string) => call(ctx, cred, 'GET', `/v1/portfolio/search?${query}`);

describe('portfolio search cursors', () => {
  it('do not contain the customer name in any readable form', async () => {
    const first = await search(a, 'q=qu&limit=1');
    expect(first.status).toBe(200);
    const cursor: string = first.body.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const decoded = Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString('latin1');
    for (const text of [cursor, decoded, decoded.toLowerCase()]) {
      expect(text).not.toContain('quentin');
      expect(text).not.toContain('marchetti');
      expect(text).not.toContain('Quentin');
    }
    const next = await search(a, `q=qu&limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect(next.status).toBe(200);
    expect(next.body.items[0].displayName).toBe('Quincy Marchetti-Obi');
  });

  it("refuses tenant A's cursor in tenant B with 400 Shape A, even for the same query", async () => {
    const first = await search(a, 'q=qu&limit=1');
    const res = await search(b, `q=qu&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['cursor']);
  });

  it('refuses an altered cursor with 400 Shape A', async () => {
    const first = await search(a, 'q=qu&limit=1');
    const bytes = Buffer.from(first.body.nextCursor, 'base64url');
    for (const index of [0, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[index] = (altered[index] ?? 0) ^ 0x20;
      const res = await search(a, `q=qu&limit=1&cursor=${altered.toString('base64url')}`);
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['cursor']);
    }
  });

  it('still refuses a cursor of another query of the same tenant with validation.msg.cursor.query.mismatch', async () => {
    const first = await search(a, 'q=qu&limit=1');
    const res = await search(a, `q=quin&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expectShapeA(res, 400, 'validation.msg.cursor.query.mismatch', ['cursor']);
  });
});
