/**
 * Delinquency pause and resume rules (Apache Fineract `DelinquencyActionParseAndValidator` and
 * `DelinquencyEffectivePauseHelperImpl`; docs/lending.md "Delinquency configuration"). Dates are ISO calendar
 * dates (compared as strings). Pure.
 *
 * A PAUSE covers `[startDate, endDate)`: it starts counting on its start and stops on its end, so a pause may start on
 * the day another ends. A RESUME on a date ends the pause active on that date there (the effective pause).
 */

import { addDays } from '../calendar';
import { type FieldError, fieldError } from '../errors';

/** A stored delinquency action. */
export interface DelinquencyActionRecord {
  action: 'PAUSE' | 'RESUME';
  startDate: string;
  /** A PAUSE's end; null for a RESUME. */
  endDate: string | null;
}

/** A pause as it takes effect: its end moved to the first resume inside it. */
export interface EffectivePause {
  startDate: string;
  endDate: string;
}

/** The pauses of `actions` with each ended by the first RESUME dated within it (Fineract's effective list). */
export function effectivePauses(actions: readonly DelinquencyActionRecord[]): EffectivePause[] {
  const resumes = actions.filter((a) => a.action === 'RESUME').map((a) => a.startDate);
  return actions
    .filter(
      (a): a is DelinquencyActionRecord & { endDate: string } => a.action === 'PAUSE' && a.endDate !== null,
    )
    .map((pause) => {
      const resume = resumes.filter((d) => d >= pause.startDate && d <= pause.endDate).sort()[0];
      return { startDate: pause.startDate, endDate: resume ?? pause.endDate };
    });
}

/**
 * The loan's business date for a delinquency action: the day after its last closed business day, or `today` (the
 * tenant's calendar date) before its first close of business.
 */
export function loanBusinessDate(lastClosedBusinessDate: string | null, today: string): string {
  return lastClosedBusinessDate === null ? today : addDays(lastClosedBusinessDate, 1);
}

/** What a new action is checked against. */
export interface DelinquencyActionContext {
  /** The loan is ACTIVE. */
  active: boolean;
  /** The disbursement date (null before disbursement). */
  disbursedOnDate: string | null;
  /** `loanBusinessDate`. */
  businessDate: string;
  existing: readonly DelinquencyActionRecord[];
}

/**
 * Every rule the new action breaks, as Shape A field errors with Fineract's codes (empty when it is acceptable):
 * - the loan must be ACTIVE (`loan-delinquency-action-invalid-loan-state`, naming `loanId`);
 * - a pause needs `endDate` (`…-pause-endDate-cannot-be-blank`) after `startDate`
 *   (`…-invalid-start-date-and-end-date`), a `startDate` not before the disbursement (`…-invalid-start-date`), and
 *   may not share a day with another effective pause (`loan-delinquency-action-overlapping`, naming `startDate`);
 * - a resume has no `endDate` (`…-resume-should-have-no-end-date`), is dated the loan's business date
 *   (`…-invalid-start-date`), is the only resume of that date (`…-resume-should-be-unique`) and falls within an
 *   effective pause (`…-resume-should-be-on-pause`, naming `startDate`).
 */
export function delinquencyActionErrors(
  action: { action: 'pause' | 'resume'; startDate: string; endDate?: string | undefined },
  context: DelinquencyActionContext,
): FieldError[] {
  if (!context.active) {
    return [
      fieldError(
        'loanId',
        null,
        'Delinquency actions can be created only for active loans.',
        'loan-delinquency-action-invalid-loan-state',
      ),
    ];
  }
  const errors: FieldError[] = [];
  const pauses = effectivePauses(context.existing);
  if (action.action === 'pause') {
    if (action.endDate === undefined) {
      errors.push(
        fieldError(
          'endDate',
          null,
          'The parameter endDate is mandatory for a pause.',
          'loan-delinquency-action-pause-endDate-cannot-be-blank',
        ),
      );
      return errors;
    }
    if (action.endDate <= action.startDate) {
      errors.push(
        fieldError(
          'endDate',
          action.endDate,
          'The end of a delinquency pause must be after its start (at least one day).',
          'loan-delinquency-action-invalid-start-date-and-end-date',
        ),
      );
    }
    if (context.disbursedOnDate !== null && action.startDate < context.disbursedOnDate) {
      errors.push(
        fieldError(
          'startDate',
          action.startDate,
          `The start of a pause must not be before the disbursement (${context.disbursedOnDate}).`,
          'loan-delinquency-action-invalid-start-date',
        ),
      );
    }
    if (
      errors.length === 0 &&
      pauses.some((p) => action.startDate < p.endDate && p.startDate < (action.endDate as string))
    ) {
      errors.push(
        fieldError(
          'startDate',
          action.startDate,
          'A delinquency pause cannot overlap another pause.',
          'loan-delinquency-action-overlapping',
        ),
      );
    }
    return errors;
  }
  if (action.endDate !== undefined) {
    errors.push(
      fieldError(
        'endDate',
        action.endDate,
        'A resume has no endDate.',
        'loan-delinquency-action-resume-should-have-no-end-date',
      ),
    );
  }
  if (action.startDate !== context.businessDate) {
    errors.push(
      fieldError(
        'startDate',
        action.startDate,
        `The start of a resume must be the loan's business date (${context.businessDate}).`,
        'loan-delinquency-action-invalid-start-date',
      ),
    );
  }
  if (errors.length > 0) return errors;
  if (context.existing.some((a) => a.action === 'RESUME' && a.startDate === action.startDate)) {
    errors.push(
      fieldError(
        'startDate',
        action.startDate,
        'There is already a resume on this date.',
        'loan-delinquency-action-resume-should-be-unique',
      ),
    );
  } else if (!pauses.some((p) => action.startDate >= p.startDate && action.startDate <= p.endDate)) {
    errors.push(
      fieldError(
        'startDate',
        action.startDate,
        'A resume can only be created during an active pause.',
        'loan-delinquency-action-resume-should-be-on-pause',
      ),
    );
  }
  return errors;
}

/**
 * The delinquency pause a hardship relief that defers installments records (docs/lending.md "Delinquency
 * actions"; docs/processes.md P5, P7): `PAYMENT_DEFERRAL` and `FORBEARANCE` move what the next installments owe to
 * later ones, so the loan's arrears stop ageing over the deferred span, from the relief's `asOfDate` (not before
 * `disbursedOnDate`) to the due date of the last installment in its window (`windowDueDates`, ISO dates; the
 * pause's end is exclusive, like every pause). The span is clipped so it overlaps no pause of `existing` (the
 * loan's effective pauses): it starts after any pause that covers its start and ends where a later one begins.
 * Answers null for another relief type, an empty window, or when nothing of the span is left.
 */
export function reliefPauseOf(input: {
  reliefType: string;
  asOfDate: string;
  disbursedOnDate: string | null;
  windowDueDates: readonly string[];
  existing: readonly EffectivePause[];
}): EffectivePause | null {
  if (input.reliefType !== 'PAYMENT_DEFERRAL' && input.reliefType !== 'FORBEARANCE') return null;
  if (input.windowDueDates.length === 0) return null;
  let startDate =
    input.disbursedOnDate !== null && input.disbursedOnDate > input.asOfDate
      ? input.disbursedOnDate
      : input.asOfDate;
  let endDate = [...input.windowDueDates].sort().at(-1) as string;
  const pauses = [...input.existing].sort((a, b) => (a.startDate < b.startDate ? -1 : 1));
  for (const pause of pauses) {
    if (pause.startDate <= startDate && pause.endDate > startDate) startDate = pause.endDate;
  }
  for (const pause of pauses) {
    if (pause.startDate > startDate && pause.startDate < endDate) endDate = pause.startDate;
  }
  return endDate > startDate ? { startDate, endDate } : null;
}
