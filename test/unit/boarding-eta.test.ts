/** The ETA of a boarding batch (domain/boarding/batch.ts `boardingEtaSeconds`; docs/processes.md P3 `etaSeconds`). */
import { describe, expect, it } from 'vitest';
import { boardingEtaSeconds, emptyBoardingCounts } from '../../domain/boarding/batch';

describe('boardingEtaSeconds', () => {
  const counts = () => {
    const c = emptyBoardingCounts();
    c.loan = { total: 100, boarded: 30, failed: 10 };
    c.payment = { total: 1000, boarded: 0, failed: 0 };
    return c;
  };

  it('is the lines left at the rate measured since RUNNING started, rounded up', () => {
    // 40 handled, 10 of them before RUNNING: 30 lines in 3 s = 10 lines/s; 1060 left → 106 s.
    expect(boardingEtaSeconds(counts(), 10, 3_000)).toBe(106);
    // 30 lines in 7 s: 1060 × 7 / 30 = 247.33… → 248.
    expect(boardingEtaSeconds(counts(), 10, 7_000)).toBe(248);
  });

  it('is null without a rate, and zero when nothing is left', () => {
    expect(boardingEtaSeconds(counts(), 40, 3_000)).toBeNull();
    expect(boardingEtaSeconds(counts(), 10, 0)).toBeNull();
    const done = emptyBoardingCounts();
    done.loan = { total: 5, boarded: 4, failed: 1 };
    expect(boardingEtaSeconds(done, 0, 1_000)).toBe(0);
  });
});
