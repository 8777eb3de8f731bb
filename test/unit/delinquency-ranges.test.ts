/**
 * The delinquency range rules of domain/lending/delinquency.ts (Apache Fineract
 * `DelinquencyWritePlatformServiceImpl`: ranges of one bucket may not share a day; the range holding a number of
 * delinquent days classifies it).
 */
import { describe, expect, it } from 'vitest';
import {
  firstOverlap,
  type RangeAges,
  rangeHolding,
  rangesOverlap,
} from '../../domain/lending/delinquency-ranges';

const r = (id: number, minimumAgeDays: number, maximumAgeDays: number | null): RangeAges => ({
  id,
  minimumAgeDays,
  maximumAgeDays,
});

describe('rangesOverlap', () => {
  it.each([
    [r(1, 1, 30), r(2, 31, 60), false],
    [r(1, 1, 30), r(2, 30, 60), true],
    [r(1, 1, 90), r(2, 10, 20), true],
    [r(1, 1, 30), r(2, 31, null), false],
    [r(1, 1, 31), r(2, 31, null), true],
    [r(1, 100, null), r(2, 5, 20), false],
    [r(1, 100, null), r(2, 200, null), true],
    [r(1, 0, 0), r(2, 0, 0), true],
  ])('%o and %o overlap: %s', (a, b, expected) => {
    expect(rangesOverlap(a, b)).toBe(expected);
    expect(rangesOverlap(b, a)).toBe(expected);
  });
});

describe('firstOverlap', () => {
  it('finds none among disjoint ranges given in any order', () => {
    expect(firstOverlap([r(3, 61, null), r(1, 1, 30), r(2, 31, 60)])).toBeNull();
    expect(firstOverlap([])).toBeNull();
  });
  it('names the neighbours that overlap once sorted by minimumAgeDays', () => {
    expect(firstOverlap([r(3, 61, null), r(1, 1, 30), r(2, 25, 60)])?.map((x) => x.id)).toEqual([1, 2]);
  });
});

describe('rangeHolding', () => {
  const ranges = [r(1, 1, 30), r(2, 31, 60), r(3, 61, null)];
  it.each([
    [0, null],
    [1, 1],
    [30, 1],
    [31, 2],
    [60, 2],
    [61, 3],
    [10_000, 3],
  ])('%i delinquent days → range %s', (days, id) => {
    expect(rangeHolding(ranges, days)?.id ?? null).toBe(id);
  });
});
