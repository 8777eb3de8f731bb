import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FingerprintInput, requestFingerprint } from '../../domain/fingerprint';

const base: FingerprintInput = {
  method: 'POST',
  routeTemplate: '/v1/servicing/cases/:caseId/close',
  pathParams: { caseId: '12' },
  body: { outcomeCode: 'PROMISE_KEPT', closureReason: 'Paid', tags: ['a', 'b'], nested: { x: 1, y: [1, 2] } },
};

/** The same JSON value with every object's keys in a shuffled order. */
function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, random));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries)
      Object.defineProperty(out, k, {
        value: shuffleKeys(v, random),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}

describe('requestFingerprint', () => {
  it('is 64 lower-case hex characters', () => {
    expect(requestFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order (top level and nested)', () => {
    const reordered: FingerprintInput = {
      method: 'POST',
      routeTemplate: base.routeTemplate,
      pathParams: { caseId: '12' },
      body: {
        nested: { y: [1, 2], x: 1 },
        tags: ['a', 'b'],
        closureReason: 'Paid',
        outcomeCode: 'PROMISE_KEPT',
      },
    };
    expect(requestFingerprint(reordered)).toBe(requestFingerprint(base));
  });

  it('does not depend on the case of the method', () => {
    expect(requestFingerprint({ ...base, method: 'post' })).toBe(requestFingerprint(base));
  });

  it('changes with the body, the route, the path parameters and the method', () => {
    const original = requestFingerprint(base);
    const variants: FingerprintInput[] = [
      { ...base, body: { ...(base.body as object), closureReason: 'Paid in full' } },
      { ...base, body: { ...(base.body as object), tags: ['b', 'a'] } },
      { ...base, body: { ...(base.body as object), extra: null } },
      { ...base, body: undefined },
      { ...base, routeTemplate: '/v1/servicing/cases/:caseId/reopen' },
      { ...base, pathParams: { caseId: '13' } },
      { ...base, pathParams: { caseId: '12', extra: '1' } },
      { ...base, method: 'PUT' },
    ];
    const fingerprints = variants.map(requestFingerprint);
    for (const fp of fingerprints) expect(fp).not.toBe(original);
    expect(new Set(fingerprints).size).toBe(variants.length);
  });

  it('distinguishes a number from its string form', () => {
    expect(requestFingerprint({ ...base, body: { amount: 10 } })).not.toBe(
      requestFingerprint({ ...base, body: { amount: '10' } }),
    );
  });

  it('property: invariant under shuffling the keys of any JSON body', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.infiniteStream(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })),
        (body, stream) => {
          const it = stream[Symbol.iterator]();
          const random = () => it.next().value as number;
          const a = requestFingerprint({ ...base, body });
          const b = requestFingerprint({ ...base, body: shuffleKeys(body, random) });
          expect(b).toBe(a);
        },
      ),
    );
  });

  it('property: bodies with different canonical JSON give different fingerprints', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalize(a) !== canonicalize(b));
        expect(requestFingerprint({ ...base, body: a })).not.toBe(requestFingerprint({ ...base, body: b }));
      }),
    );
  });
});
