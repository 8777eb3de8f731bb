/** `intArrayLiteral` (db/queries/json-rows.ts): the array literal of `= any($n::int[])`, integers only. */
import { describe, expect, it } from 'vitest';
import { intArrayLiteral } from '../../db/queries/json-rows';

describe('intArrayLiteral', () => {
  it('writes integers as a PostgreSQL array literal', () => {
    expect(intArrayLiteral([3, 1, 2])).toBe('{3,1,2}');
    expect(intArrayLiteral([])).toBe('{}');
    expect(intArrayLiteral([-7, 9_007_199_254_740_991])).toBe('{-7,9007199254740991}');
  });
  it('refuses anything but a safe integer, so nothing else can reach the SQL text', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => intArrayLiteral([1, bad])).toThrow(RangeError);
    }
  });
});
