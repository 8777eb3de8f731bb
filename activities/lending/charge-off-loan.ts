import { and, eq, max } from 'drizzle-orm';
import { tenantToday } from '../../db/queries/hardship/hardship-policies';
import { type LoanForMoney, lockLoanForMoney } from '../../db/queries/lending/loans';
import { fundings, loanChargeOffs, loans, payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, validationError } from '../../domain/errors';
import { chargeOffRefusal } from '../../domain/lending/charge-off';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import { parseLoanDate } from '../../domain/lending/loan-terms/dates';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { repostLoan } from './repost-loan';

/** `POST /v1/loans/{loanId}/transactions?command=charge-off`, and the close of business's automatic charge-off. */
export interface ChargeOffLoanInput extends OperationContext {
  loanId: number;
  /** ISO date, or a date in `dateFormat`/`locale` (domain/lending/loan-terms/dates.ts). */
  transactionDate: string;
  /** Why the loan is charged off (free text, guarded against identifiers). */
  reason: string;
  /** The caller's id of the charge-off transaction (unique per tenant), or null. */
  externalId?: string | null;
  /** True when the close of business charges it off (the product's chargeOffDaysPastDue); default false. */
  automatic?: boolean;
  locale?: string | null;
  dateFormat?: string | null;
}

/** The charge-off transaction recorded (money as decimal strings in the loan's currency). */
export interface ChargeOffLoanResult {
  /** The charge-off transaction's id (`loan_charge_offs.id`; the loan read's `transactions[].id` of type 27). */
  transactionId: number;
  loanId: number;
  /** ISO date of the charge-off. */
  transactionDate: string;
  amount: string;
  principalPortion: string;
  interestPortion: string;
  feeChargesPortion: string;
  penaltyChargesPortion: string;
  currency: string;
}

/**
 * Charges a loan off (Apache Fineract `LoanWritePlatformServiceJpaRepositoryImpl.chargeOff`; docs/lending.md
 * "Charge-off"), in one transaction under the loan's row lock: records a CHARGE_OFF transaction
 * (`loan_charge_offs`) of everything outstanding on the schedule — principal, interest, fees and penalties of every
 * installment (domain/lending/charge-off.ts `chargeOffPortions`, computed by the repost) — marks the loan
 * `charged_off` on `transactionDate` (it stays ACTIVE), and reposts it, which books Dr CREDIT_LOSS_EXPENSE / Cr
 * LOAN_PORTFOLIO for the principal (domain/lending/ledger.ts) and from then on posts every later payment as a
 * recovery (Dr EXTERNAL_CLEARING / Cr RECOVERY_INCOME). Event `loan.chargeoff.posted`.
 *
 * Errors (Fineract's codes, checked in its order): 404 for another tenant's (or no) loan; 400 naming `loanId`
 * `error.msg.loan.is.not.active` unless the loan is ACTIVE; 409 `error.msg.loan.is.already.charged.off`; 400 naming
 * `transactionDate` for an unreadable date, `error.msg.loan.charge.off.is.before.than.the.last.user.transaction`
 * (before the last funding or posted payment) or `error.msg.loan.transaction.cannot.be.a.future.date` (after the
 * tenant's business date); 400 naming `reason` or `externalId` for identifier-like text; 409
 * `error.msg.loan.charge.off.external.id.conflict` for an `externalId` already used.
 *
 * Idempotent by `requestKey` (conventions §5): a request whose key already charged the loan off returns that
 * charge-off transaction as it is now (even if undone since), writing nothing; the close of business passes its own
 * key per loan and day.
 */
export function chargeOffLoan(deps: Deps) {
  return async (input: ChargeOffLoanInput): Promise<ChargeOffLoanResult> => {
    assertNoSensitiveData('reason', input.reason);
    assertNoSensitiveData('externalId', input.externalId);
    const transactionDate = parseLoanDate(input.transactionDate, input.dateFormat, input.locale);
    if (transactionDate === null) {
      throw validationError(
        'transactionDate',
        input.transactionDate,
        'transactionDate must be a calendar date (YYYY-MM-DD, or in dateFormat with an English locale).',
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      if (input.requestKey) {
        const [earlier] = await tx
          .select()
          .from(loanChargeOffs)
          .where(
            and(eq(loanChargeOffs.tenantId, input.tenantId), eq(loanChargeOffs.requestKey, input.requestKey)),
          );
        if (earlier) return resultOf(earlier, loan.digitsAfterDecimal);
      }
      return chargeOffLockedLoan(tx, {
        tenantId: input.tenantId,
        loan,
        transactionDate,
        rawTransactionDate: input.transactionDate,
        reason: input.reason,
        externalId: input.externalId ?? null,
        automatic: input.automatic ?? false,
        actor: input.actor ?? null,
        requestKey: input.requestKey ?? null,
        now: deps.clock(),
      });
    });
  };
}

/** What `chargeOffLockedLoan` needs: the loan locked by the caller in `tx`, the parsed date and who and when. */
export interface ChargeOffLockedLoanInput {
  tenantId: string;
  loan: LoanForMoney;
  /** ISO date of the charge-off. */
  transactionDate: string;
  /** The date as the caller wrote it (named in a refusal). */
  rawTransactionDate: string;
  reason: string;
  externalId: string | null;
  automatic: boolean;
  actor: string | null;
  requestKey: string | null;
  /** The operation's clock reading. */
  now: Date;
  /** false from the close-of-business step, which stores the tag itself (`RepostInput.retagDelinquency`). */
  retagDelinquency?: boolean;
}

/**
 * The rules and writes of `chargeOffLoan` (its docstring) in the caller's transaction, for a loan the caller has
 * locked (`lockLoanForMoney`): also the close of business's automatic charge-off
 * (activities/lending/close-loan-business-day.ts). Throws the errors listed there, except the request-key replay
 * and the identifier checks, which are the caller's.
 */
export async function chargeOffLockedLoan(
  tx: Tx,
  input: ChargeOffLockedLoanInput,
): Promise<ChargeOffLoanResult> {
  const { loan, now, transactionDate } = input;
  const [[state], [lastFunding], [lastPayment], today] = await Promise.all([
    tx
      .select({ chargedOff: loans.chargedOff })
      .from(loans)
      .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, loan.id))),
    tx
      .select({ date: max(fundings.fundingDate) })
      .from(fundings)
      .where(and(eq(fundings.tenantId, input.tenantId), eq(fundings.loanId, loan.id))),
    tx
      .select({ date: max(payments.effectiveDate), id: max(payments.id) })
      .from(payments)
      .where(
        and(
          eq(payments.tenantId, input.tenantId),
          eq(payments.loanId, loan.id),
          eq(payments.status, 'POSTED'),
        ),
      ),
    tenantToday(tx, input.tenantId, now),
  ]);
  const dates = [lastFunding?.date ?? null, lastPayment?.date ?? null].filter((d) => d !== null);
  const lastMoneyDate = dates.length === 0 ? null : dates.reduce((a, b) => (a > b ? a : b));
  const refusal = chargeOffRefusal({
    status: loan.status,
    chargedOff: state?.chargedOff ?? false,
    transactionDate,
    lastMoneyDate,
    today,
  });
  if (refusal?.field === null) {
    throw new DomainError(refusal.code, `Loan ${loan.id} is already charged off.`);
  }
  if (refusal) {
    const message =
      refusal.code === 'error.msg.loan.is.not.active'
        ? `Loan ${loan.id} cannot be charged off: it is ${loan.status}, not ACTIVE.`
        : refusal.code === 'error.msg.loan.transaction.cannot.be.a.future.date'
          ? `The charge-off date ${transactionDate} is after the business date ${today}.`
          : `The charge-off date ${transactionDate} is before the loan's last transaction (${lastMoneyDate}).`;
    const value = refusal.field === 'loanId' ? loan.id : input.rawTransactionDate;
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [fieldError(refusal.field, value, message, refusal.code)],
    });
  }
  if (input.externalId) {
    const [taken] = await tx
      .select({ id: loanChargeOffs.id })
      .from(loanChargeOffs)
      .where(
        and(eq(loanChargeOffs.tenantId, input.tenantId), eq(loanChargeOffs.externalId, input.externalId)),
      );
    if (taken) {
      throw new DomainError(
        'error.msg.loan.charge.off.external.id.conflict',
        'This externalId already names another charge-off transaction.',
      );
    }
  }
  const zero = '0';
  const [row] = await tx
    .insert(loanChargeOffs)
    .values({
      tenantId: input.tenantId,
      loanId: loan.id,
      transactionDate,
      reason: input.reason,
      externalId: input.externalId,
      automatic: input.automatic,
      // the repost below fills the portions from the replay (repost-loan.ts)
      amount: zero,
      principalPortion: zero,
      interestPortion: zero,
      feeChargesPortion: zero,
      penaltyChargesPortion: zero,
      currencyCode: loan.currencyCode,
      lastPaymentId: lastPayment?.id ?? null,
      actorUsername: input.actor,
      requestKey: input.requestKey,
      createdAt: now,
    })
    .returning({ id: loanChargeOffs.id });
  await tx
    .update(loans)
    .set({ chargedOff: true, chargedOffOnDate: transactionDate, updatedAt: now })
    .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, loan.id)));
  await repostLoan(tx, {
    tenantId: input.tenantId,
    loan,
    now,
    ...(input.retagDelinquency === false ? { retagDelinquency: false } : {}),
  });
  const [stored] = await tx
    .select()
    .from(loanChargeOffs)
    .where(and(eq(loanChargeOffs.tenantId, input.tenantId), eq(loanChargeOffs.id, row!.id)));
  const result = resultOf(stored!, loan.digitsAfterDecimal);
  await writeOutboxEvent(tx, {
    tenantId: input.tenantId,
    eventType: 'loan.chargeoff.posted',
    subjectId: loan.id,
    data: {
      loanId: loan.id,
      loanRef: loan.accountNo,
      transactionId: result.transactionId,
      transactionDate,
      reason: input.reason,
      automatic: input.automatic,
      amount: result.amount,
      principalPortion: result.principalPortion,
      interestPortion: result.interestPortion,
      feeChargesPortion: result.feeChargesPortion,
      penaltyChargesPortion: result.penaltyChargesPortion,
      currency: loan.currencyCode,
    },
    occurredAt: now,
    dedupeKey: `loan-charge-off/${result.transactionId}/posted`,
  });
  return result;
}

/** The operation's answer from a stored charge-off row (money with the currency's `digits`). */
function resultOf(row: typeof loanChargeOffs.$inferSelect, digits: number): ChargeOffLoanResult {
  return {
    transactionId: row.id,
    loanId: row.loanId,
    transactionDate: row.transactionDate,
    amount: fixDecimalText(row.amount, digits),
    principalPortion: fixDecimalText(row.principalPortion, digits),
    interestPortion: fixDecimalText(row.interestPortion, digits),
    feeChargesPortion: fixDecimalText(row.feeChargesPortion, digits),
    penaltyChargesPortion: fixDecimalText(row.penaltyChargesPortion, digits),
    currency: row.currencyCode,
  };
}
