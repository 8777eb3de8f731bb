import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, queryHash } from '../../domain/cursor';
import { DomainError } from '../../domain/errors';
import { fromBase64Url, hmacSha256, toBase64Url } from '../../domain/hash';

const key = 'cursor-signing-key';
const route = '/v1/servicing/cases/:caseId/effects';
const position = { sortKey: '2026-03-02T18:00:00.000Z', id: '42' };

/** Runs `fn` and returns the DomainError it throws (fails the test when it throws nothing else). */
function domainErrorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

const tenant = 'tenant-a';

describe('encodeCursor / decodeCursor', () => {
  it('round-trips a position', () => {
    const query = { status: 'OPEN', customerRef: 'cus_1' };
    const cursor = encodeCursor(key, tenant, route, query, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(key, tenant, route, query, cursor)).toEqual(position);
  });

  it('property: any position, tenant and query round-trips', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()),
        (sortKey, id, tenantId, query) => {
          const cursor = encodeCursor(key, tenantId, route, query, { sortKey, id });
          expect(decodeCursor(key, tenantId, route, query, cursor)).toEqual({ sortKey, id });
        },
      ),
    );
  });

  it('is opaque: neither the sort key (a customer name) nor the id can be read from it', () => {
    const name = 'josé delacroix-fitzgerald';
    const cursor = encodeCursor(
      key,
      tenant,
      '/v1/portfolio/search',
      { q: 'jos' },
      { sortKey: name, id: '4242' },
    );
    const bytes = fromBase64Url(cursor) ?? new Uint8Array();
    const decoded = new TextDecoder('latin1').decode(bytes);
    for (const text of [cursor, decoded]) {
      expect(text).not.toContain('delacroix');
      expect(text).not.toContain('4242');
      expect(text).not.toContain('portfolio');
    }
    expect(toBase64Url(new TextEncoder().encode(name))).not.toBe(cursor);
  });

  it("rejects another tenant's cursor with 400 validation.msg.validation.errors.exist", () => {
    const cursor = encodeCursor(key, 'tenant-a', route, { status: 'OPEN' }, position);
    const err = domainErrorOf(() => decodeCursor(key, 'tenant-b', route, { status: 'OPEN' }, cursor));
    expect(err.code).toBe('validation.msg.validation.errors.exist');
    expect(err.status).toBe(400);
    expect(err.errors[0]?.parameterName).toBe('cursor');
  });

  it('ignores the order of query parameters and parameters without a value', () => {
    const cursor = encodeCursor(key, tenant, route, { a: '1', b: '2' }, position);
    expect(decodeCursor(key, tenant, route, { b: '2', a: '1', c: undefined }, cursor)).toEqual(position);
  });

  it('is not bound by limit or cursor parameters', () => {
    const cursor = encodeCursor(key, tenant, route, { status: 'OPEN', limit: '10' }, position);
    expect(decodeCursor(key, tenant, route, { status: 'OPEN', limit: '50', cursor }, cursor)).toEqual(
      position,
    );
    expect(decodeCursor(key, tenant, route, { status: 'OPEN' }, cursor)).toEqual(position);
    expect(queryHash({ status: 'OPEN', limit: '1', cursor: 'x' })).toBe(queryHash({ status: 'OPEN' }));
  });

  it('rejects a cursor of another route with validation.msg.cursor.query.mismatch', () => {
    const cursor = encodeCursor(key, tenant, route, {}, position);
    const err = domainErrorOf(() => decodeCursor(key, tenant, '/v1/servicing/tasks', {}, cursor));
    expect(err.code).toBe('validation.msg.cursor.query.mismatch');
    expect(err.status).toBe(400);
    expect(err.errors).toEqual([
      expect.objectContaining({
        parameterName: 'cursor',
        value: cursor,
        userMessageGlobalisationCode: 'validation.msg.cursor.query.mismatch',
      }),
    ]);
  });

  it('rejects a cursor of another query with validation.msg.cursor.query.mismatch', () => {
    const cursor = encodeCursor(key, tenant, route, { status: 'OPEN' }, position);
    for (const other of [{ status: 'CLOSED' }, {}, { status: 'OPEN', customerRef: 'cus_1' }]) {
      expect(domainErrorOf(() => decodeCursor(key, tenant, route, other, cursor)).code).toBe(
        'validation.msg.cursor.query.mismatch',
      );
    }
  });

  it('rejects a cursor with any one byte changed', () => {
    const cursor = encodeCursor(key, tenant, route, {}, position);
    const bytes = fromBase64Url(cursor) ?? new Uint8Array();
    for (let i = 0; i < bytes.length; i++) {
      const tampered = bytes.slice();
      tampered[i] = (tampered[i] ?? 0) ^ 0x01;
      const err = domainErrorOf(() => decodeCursor(key, tenant, route, {}, toBase64Url(tampered)));
      expect(err.code).toBe('validation.msg.validation.errors.exist');
      expect(err.status).toBe(400);
      expect(err.errors[0]?.parameterName).toBe('cursor');
    }
  });

  it('rejects a cursor made with another key', () => {
    const cursor = encodeCursor('another-key', tenant, route, {}, position);
    expect(domainErrorOf(() => decodeCursor(key, tenant, route, {}, cursor)).code).toBe(
      'validation.msg.validation.errors.exist',
    );
  });

  it('rejects the old readable, signed form', () => {
    const body = toBase64Url(
      new TextEncoder().encode(JSON.stringify({ v: 1, r: route, q: queryHash({}), k: 'x', i: '1' })),
    );
    const old = `${body}.${toBase64Url(hmacSha256(key, body))}`;
    expect(domainErrorOf(() => decodeCursor(key, tenant, route, {}, old)).code).toBe(
      'validation.msg.validation.errors.exist',
    );
  });

  it.each([
    '',
    '.',
    'abc',
    'a.',
    '.b',
    'a.b.c',
    'not base64!.sig',
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  ])('rejects the malformed cursor %j', (cursor) => {
    const err = domainErrorOf(() => decodeCursor(key, tenant, route, {}, cursor));
    expect(err.code).toBe('validation.msg.validation.errors.exist');
    expect(err.errors[0]?.parameterName).toBe('cursor');
  });
});

describe('queryHash', () => {
  it('differs for different bound queries and is order-insensitive', () => {
    expect(queryHash({ a: '1', b: '2' })).toBe(queryHash({ b: '2', a: '1' }));
    expect(queryHash({ a: '1' })).not.toBe(queryHash({ a: '2' }));
    expect(queryHash({ a: '1' })).not.toBe(queryHash({ b: '1' }));
    expect(queryHash({})).toMatch(/^[0-9a-f]{32}$/);
  });
});
