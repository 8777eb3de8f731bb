import { and, eq } from 'drizzle-orm';
import { tenantToday } from '../../db/queries/hardship/hardship-policies';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import { loanCharges } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound, validationError } from '../../domain/errors';
import { minorOf } from '../../domain/lending/loan-allocation';
import { parseLoanDate } from '../../domain/lending/loan-terms/dates';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { repostLoan } from './repost-loan';

/** `POST /v1/loans/{loanId}/charges/{loanChargeId}?command=waive`. */
export interface WaiveLoanChargeInput extends OperationContext {
  loanId: number;
  loanChargeId: number;
  /**
   * The business date of the waiver: ISO, or per `dateFormat`/`locale` (domain/lending/loan-terms/dates.ts); absent
   * or null = today in the tenant's time zone.
   */
  transactionDate?: string | null;
  locale?: string | null;
  dateFormat?: string | null;
}

/** Fineract's answer to a waiver: `{resourceId, loanId, changes: {amountWaived}}` (decimal string). */
export interface WaiveLoanChargeResult {
  loanChargeId: number;
  loanId: number;
  amountWaived: string;
  currency: string;
  /** ISO date of the waiver: its business date, or the charge's due date when earlier. */
  waivedOnDate: string;
}

/**
 * Waives what is still owed of a charge added to a loan (Apache Fineract `LoanChargesApiResource`
 * `command=waive`, `LoanWritePlatformServiceJpaRepositoryImpl.waiveLoanCharge`, transaction type WAIVE_CHARGES).
 * One transaction under the loan's row lock: the amount waived is the charge's outstanding amount now (amount −
 * paid), fixed for ever (`loan_charges.waiver_amount`), dated as Fineract dates a specified-due-date charge's waiver
 * (`LoanChargeWritePlatformServiceImpl.waiveLoanCharge`): the business date it is made on (`transactionDate`,
 * default today in the tenant's time zone), or the charge's due date when that is earlier; the repost
 * (repost-loan.ts) then keeps that amount out of every payment's reach and counts it in its installment's
 * `fee_charges_waived`/`penalty_charges_waived`, so the borrower no longer owes it (a payment back-dated before the
 * waiver does not pay it either: Fineract LoanCharge.feature, "partially waived installment fee applied correctly
 * in reverse-replay logic"). On the cash basis of this ledger a waiver posts no journal entry (income is booked
 * when paid). Event `loan.charge.waived`.
 *
 * Errors: 404 for another tenant's (or no) loan, or a loan charge not of this loan; 409
 * `error.msg.loan.charge.already.waived` (Fineract `LoanChargeCannotBeWaivedException` ALREADY_WAIVED) when it was
 * waived before; 409 `error.msg.loan.charge.already.paid` (ALREADY_PAID) when nothing of it is outstanding; 400
 * naming `loanId` with `error.msg.loan.charge.associated.loan.inactive` (LOAN_INACTIVE) unless the loan is ACTIVE;
 * 400 naming `transactionDate` for an unreadable date, one after today
 * (`error.msg.loan.charge.waive.cannot.be.a.future.date`) or one before the disbursement
 * (`error.msg.loan.charge.waive.before.disbursement`). Nothing changes on an error.
 */
export function waiveLoanCharge(deps: Deps) {
  return async (input: WaiveLoanChargeInput): Promise<WaiveLoanChargeResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const [charge] = await tx
        .select()
        .from(loanCharges)
        .where(
          and(
            eq(loanCharges.tenantId, input.tenantId),
            eq(loanCharges.loanId, loan.id),
            eq(loanCharges.id, input.loanChargeId),
          ),
        );
      if (!charge) throw notFound('Loan charge', input.loanChargeId);
      if (charge.waivedOnDate !== null) {
        throw new DomainError(
          'error.msg.loan.charge.already.waived',
          `Loan charge ${charge.id} was already waived on ${charge.waivedOnDate}.`,
        );
      }
      const currency = loan.currencyCode;
      const outstanding =
        minorOf(charge.amount, currency) -
        minorOf(charge.amountPaid, currency) -
        minorOf(charge.amountWaived, currency);
      if (outstanding <= 0n) {
        throw new DomainError(
          'error.msg.loan.charge.already.paid',
          `Loan charge ${charge.id} has nothing outstanding: it is already paid.`,
        );
      }
      if (loan.status !== 'ACTIVE') {
        const message = `Loan charge ${charge.id} cannot be waived: loan ${loan.id} is ${loan.status}, not ACTIVE.`;
        throw new DomainError('validation.msg.validation.errors.exist', message, {
          errors: [fieldError('loanId', loan.id, message, 'error.msg.loan.charge.associated.loan.inactive')],
        });
      }
      const now = deps.clock();
      const today = await tenantToday(tx, input.tenantId, now);
      const businessDate = waiverBusinessDate(input, today, loan.disbursedOnDate);
      const waivedOnDate = charge.dueDate < businessDate ? charge.dueDate : businessDate;
      const amountWaived = formatMinor(outstanding, minorUnitDigits(currency));
      await tx
        .update(loanCharges)
        .set({ waiverAmount: amountWaived, waivedOnDate })
        .where(and(eq(loanCharges.tenantId, input.tenantId), eq(loanCharges.id, charge.id)));
      await repostLoan(tx, { tenantId: input.tenantId, loan, now });
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'loan.charge.waived',
        subjectId: loan.id,
        data: {
          loanId: loan.id,
          loanRef: loan.accountNo,
          loanChargeId: charge.id,
          chargeId: charge.chargeId,
          amountWaived,
          currency,
          waivedOnDate,
        },
        occurredAt: now,
        dedupeKey: `loan-charge/${charge.id}/waived`,
      });
      return { loanChargeId: charge.id, loanId: loan.id, amountWaived, currency, waivedOnDate };
    });
}

/**
 * The business date of a waiver: `input.transactionDate` read as `parseLoanDate` reads it, or `today` (ISO) when
 * absent. 400 naming `transactionDate` when unreadable, after `today`, or before `disbursedOnDate` (ISO, or null for
 * a loan not yet funded: no lower bound).
 */
function waiverBusinessDate(
  input: WaiveLoanChargeInput,
  today: string,
  disbursedOnDate: string | null,
): string {
  if (input.transactionDate === undefined || input.transactionDate === null) return today;
  const date = parseLoanDate(input.transactionDate, input.dateFormat, input.locale);
  if (date === null) {
    throw validationError(
      'transactionDate',
      input.transactionDate,
      'transactionDate must be a calendar date (YYYY-MM-DD, or in dateFormat with an English locale).',
    );
  }
  const refuse = (message: string, code: string): never => {
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [fieldError('transactionDate', input.transactionDate, message, code)],
    });
  };
  if (date > today) {
    refuse(
      `The waiver cannot be dated ${date}, after today (${today}).`,
      'error.msg.loan.charge.waive.cannot.be.a.future.date',
    );
  }
  if (disbursedOnDate !== null && date < disbursedOnDate) {
    refuse(
      `The waiver cannot be dated ${date}, before the disbursement on ${disbursedOnDate}.`,
      'error.msg.loan.charge.waive.before.disbursement',
    );
  }
  return date;
}
