/**
 * The pause/resume rules of domain/lending/delinquency-actions.ts (Apache Fineract
 * `DelinquencyEffectivePauseHelperImpl` and `DelinquencyActionParseAndValidator`): a resume ends the pause it falls
 * in; the loan's business date is the day after its last closed business day, or today before its first.
 */
import { describe, expect, it } from 'vitest';
import {
  type DelinquencyActionRecord,
  delinquencyActionErrors,
  effectivePauses,
  loanBusinessDate,
  reliefPauseOf,
} from '../../domain/lending/delinquency-actions';

const pause = (startDate: string, endDate: string): DelinquencyActionRecord => ({
  action: 'PAUSE',
  startDate,
  endDate,
});
const resume = (startDate: string): DelinquencyActionRecord => ({
  action: 'RESUME',
  startDate,
  endDate: null,
});

describe('effectivePauses', () => {
  it('ends a pause at the first resume inside it and leaves other pauses whole', () => {
    expect(
      effectivePauses([
        pause('2025-03-01', '2025-03-20'),
        resume('2025-03-05'),
        pause('2025-04-01', '2025-04-10'),
      ]),
    ).toEqual([
      { startDate: '2025-03-01', endDate: '2025-03-05' },
      { startDate: '2025-04-01', endDate: '2025-04-10' },
    ]);
  });
  it('ignores a resume outside every pause', () => {
    expect(effectivePauses([pause('2025-03-01', '2025-03-20'), resume('2025-03-25')])).toEqual([
      { startDate: '2025-03-01', endDate: '2025-03-20' },
    ]);
  });
});

describe('loanBusinessDate', () => {
  it('is the day after the last closed business day, or today before the first close', () => {
    expect(loanBusinessDate('2025-02-28', '2026-01-01')).toBe('2025-03-01');
    expect(loanBusinessDate(null, '2026-01-01')).toBe('2026-01-01');
  });
});

describe('delinquencyActionErrors', () => {
  const context = { active: true, disbursedOnDate: '2025-01-01', businessDate: '2025-03-05', existing: [] };
  it('accepts a pause after the disbursement and names what a bad one breaks', () => {
    expect(
      delinquencyActionErrors({ action: 'pause', startDate: '2025-01-01', endDate: '2025-01-02' }, context),
    ).toEqual([]);
    const codes = delinquencyActionErrors(
      { action: 'pause', startDate: '2024-12-31', endDate: '2024-12-30' },
      context,
    ).map((e) => e.userMessageGlobalisationCode);
    expect(codes).toEqual([
      'loan-delinquency-action-invalid-start-date-and-end-date',
      'loan-delinquency-action-invalid-start-date',
    ]);
  });
  it('refuses everything on a loan that is not active', () => {
    const errors = delinquencyActionErrors(
      { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-10' },
      { ...context, active: false },
    );
    expect(errors.map((e) => [e.parameterName, e.userMessageGlobalisationCode])).toEqual([
      ['loanId', 'loan-delinquency-action-invalid-loan-state'],
    ]);
  });
  it('accepts a resume on the business date inside a pause, including its last day', () => {
    const existing = [pause('2025-03-01', '2025-03-05')];
    expect(
      delinquencyActionErrors({ action: 'resume', startDate: '2025-03-05' }, { ...context, existing }),
    ).toEqual([]);
  });
});

describe('reliefPauseOf', () => {
  const base = {
    reliefType: 'PAYMENT_DEFERRAL',
    asOfDate: '2025-03-15',
    disbursedOnDate: '2025-01-01',
    windowDueDates: ['2025-05-01', '2025-04-01'],
    existing: [],
  };
  it('pauses a deferral or a forbearance from the as-of date to the last due date of its window', () => {
    expect(reliefPauseOf(base)).toEqual({ startDate: '2025-03-15', endDate: '2025-05-01' });
    expect(reliefPauseOf({ ...base, reliefType: 'FORBEARANCE' })).toEqual({
      startDate: '2025-03-15',
      endDate: '2025-05-01',
    });
  });
  it('records nothing for a relief that defers nothing or an empty window', () => {
    for (const reliefType of ['RATE_REDUCTION', 'FEE_WAIVER', 'PRINCIPAL_FORGIVENESS', 'REDUCED_PAYMENT']) {
      expect(reliefPauseOf({ ...base, reliefType })).toBeNull();
    }
    expect(reliefPauseOf({ ...base, windowDueDates: [] })).toBeNull();
  });
  it('never starts before the disbursement', () => {
    expect(reliefPauseOf({ ...base, asOfDate: '2024-12-20' })).toEqual({
      startDate: '2025-01-01',
      endDate: '2025-05-01',
    });
  });
  it('is clipped so it overlaps no other pause, and is dropped when nothing is left', () => {
    expect(
      reliefPauseOf({ ...base, existing: [{ startDate: '2025-03-01', endDate: '2025-03-20' }] }),
    ).toEqual({ startDate: '2025-03-20', endDate: '2025-05-01' });
    expect(
      reliefPauseOf({ ...base, existing: [{ startDate: '2025-04-10', endDate: '2025-06-01' }] }),
    ).toEqual({ startDate: '2025-03-15', endDate: '2025-04-10' });
    expect(
      reliefPauseOf({ ...base, existing: [{ startDate: '2025-03-01', endDate: '2025-06-01' }] }),
    ).toBeNull();
  });
});
