/**
 * Delinquency configuration rules (Apache Fineract `DelinquencyWritePlatformServiceImpl`; docs/lending.md
 * "Delinquency configuration"): a range covers `minimumAgeDays` to `maximumAgeDays` delinquent days inclusive
 * (null maximum: no upper bound); the ranges of one bucket may not overlap. Pure.
 */

/** A range's ages, in days. */
export interface RangeAges {
  id: number;
  minimumAgeDays: number;
  /** Null: no upper bound (the last range of a bucket). */
  maximumAgeDays: number | null;
}

/** The largest age a range accepts; ages are whole days. */
export const maximumRangeAgeDays = 100_000;

/** True when the two ranges share at least one day. */
export function rangesOverlap(a: RangeAges, b: RangeAges): boolean {
  const aMax = a.maximumAgeDays ?? Number.POSITIVE_INFINITY;
  const bMax = b.maximumAgeDays ?? Number.POSITIVE_INFINITY;
  return Math.max(a.minimumAgeDays, b.minimumAgeDays) <= Math.min(aMax, bMax);
}

/**
 * The first pair of `ranges` that overlap, sorted by `minimumAgeDays` (Fineract checks neighbours after the same
 * sort), or null when they all are disjoint.
 */
export function firstOverlap(ranges: readonly RangeAges[]): [RangeAges, RangeAges] | null {
  const sorted = [...ranges].sort((a, b) => a.minimumAgeDays - b.minimumAgeDays || a.id - b.id);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const current = sorted[i]!;
    if (rangesOverlap(previous, current)) return [previous, current];
  }
  return null;
}

/** The range of `ranges` that holds `delinquentDays`, or null (Fineract's `NO_DELINQUENCY`). */
export function rangeHolding<T extends RangeAges>(ranges: readonly T[], delinquentDays: number): T | null {
  return (
    ranges.find(
      (r) =>
        delinquentDays >= r.minimumAgeDays &&
        (r.maximumAgeDays === null || delinquentDays <= r.maximumAgeDays),
    ) ?? null
  );
}

/**
 * A product's delinquency settings (Fineract's loan product fields), copied into a loan's stored terms at creation
 * (domain/lending/loan-terms/application.ts): terms stored before these settings have none, read as
 * `defaultDelinquencySettings`.
 */
export interface DelinquencySettings {
  /** The tenant's bucket whose ranges classify the loan; null: no classification. */
  delinquencyBucketId: number | null;
  /** Days after a due date before an overdue installment counts as delinquent, ≥ 0. */
  graceOnArrearsAgeing: number;
  /** Classify overdue installments by their own days too. */
  enableInstallmentLevelDelinquency: boolean;
  /** Delinquent days (≥ 1) at which close of business charges the loan off; null: never automatically. */
  chargeOffDaysPastDue: number | null;
}

export const defaultDelinquencySettings: DelinquencySettings = {
  delinquencyBucketId: null,
  graceOnArrearsAgeing: 0,
  enableInstallmentLevelDelinquency: false,
  chargeOffDaysPastDue: null,
};

/** The largest `graceOnArrearsAgeing` and `chargeOffDaysPastDue` a product accepts, in days. */
export const maximumDelinquencyDays = 100_000;
