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

describe('encodeCursor / decodeCursor', () => {
  it('round-trips a position', () => {
    const query = { status: 'OPEN', customerRef: 'cus_1' };
    const cursor = encodeCursor(key, route, query, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(key, route, query, cursor)).toEqual(position);
  });

  it('property: any position and query round-trips', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()),
        (sortKey, id, query) => {
          const cursor = encodeCursor(key, route, query, { sortKey, id });
          expect(decodeCursor(key, route, query, cursor)).toEqual({ sortKey, id });
        },
      ),
    );
  });

  it('ignores the order of query parameters and parameters without a value', () => {
    const cursor = encodeCursor(key, route, { a: '1', b: '2' }, position);
    expect(decodeCursor(key, route, { b: '2', a: '1', c: undefined }, cursor)).toEqual(position);
  });

  it('is not bound by limit or cursor parameters', () => {
    const cursor = encodeCursor(key, route, { status: 'OPEN', limit: '10' }, position);
    expect(decodeCursor(key, route, { status: 'OPEN', limit: '50', cursor }, cursor)).toEqual(position);
    expect(decodeCursor(key, route, { status: 'OPEN' }, cursor)).toEqual(position);
    expect(queryHash({ status: 'OPEN', limit: '1', cursor: 'x' })).toBe(queryHash({ status: 'OPEN' }));
  });

  it('rejects a cursor of another route with validation.msg.cursor.query.mismatch', () => {
    const cursor = encodeCursor(key, route, {}, position);
    const err = domainErrorOf(() => decodeCursor(key, '/v1/servicing/tasks', {}, cursor));
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
    const cursor = encodeCursor(key, route, { status: 'OPEN' }, position);
    for (const other of [{ status: 'CLOSED' }, {}, { status: 'OPEN', customerRef: 'cus_1' }]) {
      expect(domainErrorOf(() => decodeCursor(key, route, other, cursor)).code).toBe(
        'validation.msg.cursor.query.mismatch',
      );
    }
  });

  it('rejects a tampered signature', () => {
    const cursor = encodeCursor(key, route, {}, position);
    const [body, signature] = cursor.split('.') as [string, string];
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const err = domainErrorOf(() => decodeCursor(key, route, {}, `${body}.${flipped}`));
    expect(err.code).toBe('validation.msg.validation.errors.exist');
    expect(err.status).toBe(400);
    expect(err.errors[0]?.parameterName).toBe('cursor');
  });

  it('rejects a tampered payload that keeps the old signature', () => {
    const cursor = encodeCursor(key, route, {}, position);
    const [body, signature] = cursor.split('.') as [string, string];
    const payload = JSON.parse(new TextDecoder().decode(fromBase64Url(body) ?? new Uint8Array()));
    const forged = toBase64Url(new TextEncoder().encode(JSON.stringify({ ...payload, i: '1' })));
    expect(domainErrorOf(() => decodeCursor(key, route, {}, `${forged}.${signature}`)).code).toBe(
      'validation.msg.validation.errors.exist',
    );
  });

  it('rejects a cursor signed with another key', () => {
    const cursor = encodeCursor('another-key', route, {}, position);
    expect(domainErrorOf(() => decodeCursor(key, route, {}, cursor)).code).toBe(
      'validation.msg.validation.errors.exist',
    );
  });

  it('rejects a correctly signed payload of the wrong form', () => {
    const sign = (payload: unknown) => {
      const body = toBase64Url(new TextEncoder().encode(JSON.stringify(payload)));
      return `${body}.${toBase64Url(hmacSha256(key, body))}`;
    };
    const good = { v: 1, r: route, q: queryHash({}), k: 'x', i: '1' };
    expect(decodeCursor(key, route, {}, sign(good))).toEqual({ sortKey: 'x', id: '1' });
    for (const bad of [{ ...good, v: 2 }, { ...good, k: 5 }, { ...good, i: 1 }, { v: 1 }]) {
      expect(domainErrorOf(() => decodeCursor(key, route, {}, sign(bad))).code).toBe(
        'validation.msg.validation.errors.exist',
      );
    }
    const notJson = toBase64Url(new TextEncoder().encode('not json'));
    expect(
      domainErrorOf(() => decodeCursor(key, route, {}, `${notJson}.${toBase64Url(hmacSha256(key, notJson))}`))
        .code,
    ).toBe('validation.msg.validation.errors.exist');
  });

  it.each(['', '.', 'abc', 'a.', '.b', 'a.b.c', 'not base64!.sig'])(
    'rejects the malformed cursor %j',
    (cursor) => {
      const err = domainErrorOf(() => decodeCursor(key, route, {}, cursor));
      expect(err.code).toBe('validation.msg.validation.errors.exist');
      expect(err.errors[0]?.parameterName).toBe('cursor');
    },
  );
});

describe('queryHash', () => {
  it('differs for different bound queries and is order-insensitive', () => {
    expect(queryHash({ a: '1', b: '2' })).toBe(queryHash({ b: '2', a: '1' }));
    expect(queryHash({ a: '1' })).not.toBe(queryHash({ a: '2' }));
    expect(queryHash({ a: '1' })).not.toBe(queryHash({ b: '1' }));
    expect(queryHash({})).toMatch(/^[0-9a-f]{32}$/);
  });
});
