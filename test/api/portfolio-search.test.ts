/**
 * Portfolio search by name (docs/lending.md "Lending core": "search by name, email or phone; cursor-paged";  * a last name alone found nothing). A name query is a case- and accent-insensitive prefix of "first last" or of
 * "last first"; each customer is listed once, in one order across pages.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';

let ctx: TestContext;
let cred: Credential;

const people = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Ann', 'Annan'],
  ['José', 'Ñúñez'],
  ['Mara', 'Quinn'],
  ['Bob', 'Marley'],
  ['Marty', 'Marsh'],
  ['Zed', 'Marx'],
] as const;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('pfs'), { scopes: ['lending:read', 'lending:write'] });
  for (const [firstName, lastName] of people) {
    const res = await call(ctx, cred, 'POST', '/v1/customers', { firstName, lastName });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});
afterAll(async () => ctx?.close());

async function names(q: string, limit = 50): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `q=${encodeURIComponent(q)}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call(ctx, cred, 'GET', `/v1/portfolio/search?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const item of res.body.items) {
      expect(item.matchedOn).toBe('NAME');
      found.push(item.displayName);
    }
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor !== null && pages < 20);
  return found;
}

describe('GET /v1/portfolio/search by name', () => {
  it('finds a customer by the last name alone, by a prefix of it, and by "last first"', async () => {
    expect(await names('Lovelace')).toEqual(['Ada Lovelace']);
    expect(await names('hop')).toEqual(['Grace Hopper']);
    expect(await names('lovelace ada')).toEqual(['Ada Lovelace']);
    expect(await names('nunez')).toEqual(['José Ñúñez']);
  });

  it('still finds by first name and "first last", listing a customer matching both ways once', async () => {
    expect(await names('ada')).toEqual(['Ada Lovelace']);
    expect(await names('grace hop')).toEqual(['Grace Hopper']);
    expect(await names('ann')).toEqual(['Ann Annan']);
    expect(await names('annan')).toEqual(['Ann Annan']);
  });

  it('pages first-name and last-name matches in one order, each once', async () => {
    const all = await names('mar');
    expect(all).toEqual(['Mara Quinn', 'Bob Marley', 'Marty Marsh', 'Zed Marx']);
    expect(await names('mar', 1)).toEqual(all);
    expect(await names('mar', 3)).toEqual(all);
  });
});

describe('GET /v1/portfolio/search with a short q', () => {
  it('counts characters as the OpenAPI document does: one astral character is too short', async () => {
    // U+1C023 is one character (code point) but two UTF-16 units; `q` takes at least 2 characters.
    const res = await call(ctx, cred, 'GET', '/v1/portfolio/search?q=%F3%9C%80%A3');
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors?.[0]).toMatchObject({ parameterName: 'q' });
  });
});

describe('customers created before the last-name key (migration 0014)', () => {
  it('are found by last name once the backfill has run', async () => {
    const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .insert(customers)
        .values({
          tenantId: cred.tenant,
          firstName: 'Émile',
          lastName: 'Zola-Dupré',
          searchName: 'emile zola-dupre',
        })
        .returning({ searchNameLastFirst: customers.searchNameLastFirst }),
    );
    expect(row?.searchNameLastFirst).toBe('');
    expect(await names('zola')).toEqual([]);
    const migration = readFileSync(
      fileURLToPath(
        new URL('../../db/migrations/0015_backfill_customer_last_name_search.sql', import.meta.url),
      ),
      'utf8',
    );
    await withTenantTransaction(ctx.db, cred.tenant, (tx) => tx.execute(sql.raw(migration)));
    expect(await names('zola')).toEqual(['Émile Zola-Dupré']);
    expect(await names('zola-dupre emile')).toEqual(['Émile Zola-Dupré']);
  });
});
