/**
 * The approval of a loan (Fineract `approve` command: `approvedOnDate`, `approvedLoanAmount`,
 * `expectedDisbursementDate`): the body checked against the submitted loan, and the approved principal,
 * dates and schedule. Pure: the caller passes the latest acceptable date. Field errors name the parameter.
 */

import type { FieldError } from '../../errors';
import { formatMinor, parseDecimalToMinor } from '../../money';
import { compareDecimalText } from '../decimal-text';
import { parseLoanDate } from './dates';
import { collector, inRange, moneyOf } from './field-checks';
import type { Resolution } from './types';

/** The approval command's body (Fineract `approve`: `approvedOnDate`, `approvedLoanAmount`, …). */
export interface ApprovalInput {
  /** ISO date (or per `dateFormat`). */
  approvedOnDate: string;
  /** Decimal string > 0, at most the principal applied for. */
  approvedLoanAmount: string;
  /** A new disbursement date (ISO or per `dateFormat`); absent = unchanged. */
  expectedDisbursementDate?: string | null;
  dateFormat?: string | null;
  locale?: string | null;
}

/** What the approval checks read of the loan. */
export interface LoanForApproval {
  /** Decimal string with the currency's digits. */
  principal: string;
  digitsAfterDecimal: number;
  /** ISO dates. */
  submittedOnDate: string;
  expectedDisbursementDate: string;
  /** The product's principal bounds (decimal strings, null = unbounded); absent = not checked. */
  principalBounds?: { minPrincipal: string | null; maxPrincipal: string | null };
}

/** The approval's accepted values. */
export interface ResolvedApproval {
  /** ISO date. */
  approvedOnDate: string;
  /** Decimal string with the currency's digits. */
  approvedPrincipal: string;
  /** ISO date: the given one, or the loan's. */
  expectedDisbursementDate: string;
  /** True when the schedule must be generated again (other principal or disbursement date). */
  scheduleChanged: boolean;
}

/**
 * Checks an approval (Fineract `Loan.approve`): `approvedLoanAmount` > 0, with the currency's digits, not above
 * the principal applied for (`…approvedLoanAmount.greater.than.applied.amount`), within the product's principal
 * bounds when `loan.principalBounds` is given (`…approvedLoanAmount.is.not.within.min.max.range`, the rule the
 * application's principal is held to at creation); `approvedOnDate` not before
 * `submittedOnDate` and not after `latestDate` (`latestCalendarDate(now)`); a new `expectedDisbursementDate` not
 * before `submittedOnDate`.
 */
export function resolveApproval(
  input: ApprovalInput,
  loan: LoanForApproval,
  latestDate: string,
): Resolution<ResolvedApproval> {
  const errors: FieldError[] = [];
  const fail = collector(errors);
  const digits = loan.digitsAfterDecimal;
  const amount = moneyOf(input.approvedLoanAmount, 'approvedLoanAmount', digits, fail, { positive: true });
  const principal = parseDecimalToMinor(loan.principal, digits);
  if (amount !== null && amount > principal) {
    fail(
      'approvedLoanAmount',
      input.approvedLoanAmount,
      `approvedLoanAmount must not be greater than the principal applied for (${loan.principal}).`,
      'greater.than.applied.amount',
    );
  }
  if (amount !== null && loan.principalBounds) {
    inRange(
      'approvedLoanAmount',
      input.approvedLoanAmount,
      loan.principalBounds.minPrincipal,
      loan.principalBounds.maxPrincipal,
      compareDecimalText,
      fail,
    );
  }
  const approvedOnDate = parseLoanDate(input.approvedOnDate, input.dateFormat, input.locale);
  if (approvedOnDate === null) {
    fail(
      'approvedOnDate',
      input.approvedOnDate,
      'approvedOnDate must be an ISO date (YYYY-MM-DD) or a date in dateFormat.',
      'invalid.date.format',
    );
  } else if (approvedOnDate < loan.submittedOnDate) {
    fail(
      'approvedOnDate',
      input.approvedOnDate,
      `approvedOnDate must not be before submittedOnDate (${loan.submittedOnDate}).`,
      'cannot.be.before.submittal.date',
    );
  } else if (approvedOnDate > latestDate) {
    fail(
      'approvedOnDate',
      input.approvedOnDate,
      'approvedOnDate cannot be in the future.',
      'cannot.be.a.future.date',
    );
  }
  let expectedDisbursementDate = loan.expectedDisbursementDate;
  if (input.expectedDisbursementDate !== null && input.expectedDisbursementDate !== undefined) {
    const parsed = parseLoanDate(input.expectedDisbursementDate, input.dateFormat, input.locale);
    if (parsed === null) {
      fail(
        'expectedDisbursementDate',
        input.expectedDisbursementDate,
        'expectedDisbursementDate must be an ISO date (YYYY-MM-DD) or a date in dateFormat.',
        'invalid.date.format',
      );
    } else if (parsed < loan.submittedOnDate) {
      fail(
        'expectedDisbursementDate',
        input.expectedDisbursementDate,
        `expectedDisbursementDate must not be before submittedOnDate (${loan.submittedOnDate}).`,
        'cannot.be.before.submittedOnDate',
      );
    } else {
      expectedDisbursementDate = parsed;
    }
  }
  if (errors.length > 0 || amount === null || approvedOnDate === null) return { ok: false, errors };
  return {
    ok: true,
    value: {
      approvedOnDate,
      approvedPrincipal: formatMinor(amount, digits),
      expectedDisbursementDate,
      scheduleChanged: amount !== principal || expectedDisbursementDate !== loan.expectedDisbursementDate,
    },
  };
}
