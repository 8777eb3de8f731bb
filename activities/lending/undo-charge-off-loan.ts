import { and, eq, gt } from 'drizzle-orm';
import { tenantToday } from '../../db/queries/hardship/hardship-policies';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import { loanChargeOffs, loans, payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { repostLoan } from './repost-loan';

/** `POST /v1/loans/{loanId}/transactions?command=undo-charge-off`. */
export interface UndoChargeOffLoanInput extends OperationContext {
  loanId: number;
}

/** The charge-off transaction reversed (money as a decimal string in the loan's currency). */
export interface UndoChargeOffLoanResult {
  transactionId: number;
  loanId: number;
  /** ISO date of the charge-off that was undone. */
  transactionDate: string;
  amount: string;
  currency: string;
  /** ISO date of the undo: the tenant's business date. */
  reversedOnDate: string;
}

/**
 * Undoes a loan's charge-off (Apache Fineract `LoanWritePlatformServiceJpaRepositoryImpl.undoChargeOff`;
 * docs/lending.md "Charge-off"), in one transaction under the loan's row lock: the CHARGE_OFF transaction is marked
 * reversed (`loan_charge_offs.reversed`, `reversed_on_date` the tenant's business date), the loan's `charged_off`
 * flag and date cleared, and the repost appends the reversal of the charge-off's journal entry (the event left the
 * ledger's input, domain/lending/ledger.ts `diffPostings`). Event `loan.chargeoff.reversed`.
 *
 * Errors (Fineract's codes): 404 for another tenant's (or no) loan; 400 naming `loanId`
 * `error.msg.loan.is.not.active` unless the loan is ACTIVE; 409 `error.msg.loan.is.not.charged.off`; 409
 * `error.msg.loan.charge.off.is.not.the.last.user.transaction` when a payment was posted after the charge-off.
 */
export function undoChargeOffLoan(deps: Deps) {
  return async (input: UndoChargeOffLoanInput): Promise<UndoChargeOffLoanResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      if (loan.status !== 'ACTIVE') {
        const message = `Loan ${loan.id} cannot have its charge-off undone: it is ${loan.status}, not ACTIVE.`;
        throw new DomainError('validation.msg.validation.errors.exist', message, {
          errors: [fieldError('loanId', loan.id, message, 'error.msg.loan.is.not.active')],
        });
      }
      const [chargeOff] = await tx
        .select()
        .from(loanChargeOffs)
        .where(
          and(
            eq(loanChargeOffs.tenantId, input.tenantId),
            eq(loanChargeOffs.loanId, loan.id),
            eq(loanChargeOffs.reversed, false),
          ),
        );
      if (!chargeOff) {
        throw new DomainError('error.msg.loan.is.not.charged.off', `Loan ${loan.id} is not charged off.`);
      }
      const [later] = await tx
        .select({ id: payments.id })
        .from(payments)
        .where(
          and(
            eq(payments.tenantId, input.tenantId),
            eq(payments.loanId, loan.id),
            eq(payments.status, 'POSTED'),
            gt(payments.id, chargeOff.lastPaymentId ?? 0),
          ),
        )
        .limit(1);
      if (later) {
        throw new DomainError(
          'error.msg.loan.charge.off.is.not.the.last.user.transaction',
          `The charge-off of loan ${loan.id} cannot be undone: payment ${later.id} was posted after it.`,
        );
      }
      const now = deps.clock();
      const reversedOnDate = await tenantToday(tx, input.tenantId, now);
      await tx
        .update(loanChargeOffs)
        .set({ reversed: true, reversedOnDate })
        .where(and(eq(loanChargeOffs.tenantId, input.tenantId), eq(loanChargeOffs.id, chargeOff.id)));
      await tx
        .update(loans)
        .set({ chargedOff: false, chargedOffOnDate: null, updatedAt: now })
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, loan.id)));
      await repostLoan(tx, { tenantId: input.tenantId, loan, now });
      const result: UndoChargeOffLoanResult = {
        transactionId: chargeOff.id,
        loanId: loan.id,
        transactionDate: chargeOff.transactionDate,
        amount: fixDecimalText(chargeOff.amount, loan.digitsAfterDecimal),
        currency: loan.currencyCode,
        reversedOnDate,
      };
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'loan.chargeoff.reversed',
        subjectId: loan.id,
        data: { ...result, loanRef: loan.accountNo, transactionId: chargeOff.id },
        occurredAt: now,
        dedupeKey: `loan-charge-off/${chargeOff.id}/reversed`,
      });
      return result;
    });
}
