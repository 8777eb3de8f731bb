import { and, eq } from 'drizzle-orm';
import {
  type NewInstallmentRow,
  replaceInstallmentRows,
  sameInstallmentRows,
} from '../../db/queries/lending/installments';
import { type LoanForMoney, lockLoanForMoney, type StoredLoanTerms } from '../../db/queries/lending/loans';
import { readProductForLoan } from '../../db/queries/lending/products';
import { loans } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, errorCodes } from '../../domain/errors';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import type { AprDisclosure } from '../../domain/lending/disclosure';
import { type ApprovalInput, resolveApproval } from '../../domain/lending/loan-terms/approval';
import { loanAprDisclosure } from '../../domain/lending/loan-terms/apr-disclosure';
import { latestCalendarDate } from '../../domain/lending/loan-terms/dates';
import { scheduleOf } from '../../domain/lending/loan-terms/schedule-input';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import { recordCustomerChange } from '../customers/records';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { loanValidationFailure } from './application';
import { type CreatedLoanInTx, installmentRowsOf } from './create-loan';
import type { LoanChunk } from './loan-chunk';

export interface ApproveLoanInput extends OperationContext, ApprovalInput {
  loanId: number;
  /** Free text kept in the borrower's history; never a government identifier or account number. */
  note?: string | null;
}

/** The disclosure as frozen on the loan: domain/lending/disclosure.ts's, stamped with the approval instant. */
export type FrozenAprDisclosure = AprDisclosure & {
  /** ISO instant (UTC) at which approval froze it (`deps.clock()`). */
  finalizedAt: string;
};

export interface ApproveLoanResult {
  loanId: number;
  clientId: number;
  accountNo: string;
  status: 'APPROVED';
  /** ISO date. */
  approvedOnDate: string;
  /** Decimal string with the currency's digits. */
  approvedPrincipal: string;
  currency: string;
  /** ISO date the schedule is built from (moved when the approval gave one). */
  expectedDisbursementDate: string;
  /** Null for a product without `lmsConfig.aprEnabled`. */
  aprDisclosure: FrozenAprDisclosure | null;
}

/**
 * Approves a submitted loan (docs/lending.md "Lending core": "loan submitted → approved: APR disclosure computed and finalized;
 * if it cannot be produced the approval fails"; OpenAPI `POST /v1/loans/{loanId}?command=approve`;
 * docs/design.md §5 APR), in one transaction under the loan's row lock (`lockLoanForMoney`):
 * 1. the loan must be SUBMITTED (else 409 `error.msg.loan.invalid.state.transition`);
 * 2. `resolveApproval`: `approvedLoanAmount` > 0, not above the principal and within the product's
 *    `minPrincipal`/`maxPrincipal` as read now (400, field code
 *    `validation.msg.loan.approvedLoanAmount.is.not.within.min.max.range`: the rule the principal is held to at
 *    creation), `approvedOnDate` from `submittedOnDate` to today, an
 *    optional new `expectedDisbursementDate` (400 naming the field);
 * 3. the schedule is generated again with the approved principal and disbursement date, and replaces the
 *    installments (nothing can be paid on a submitted loan);
 * 4. the product (read now) must be CONFIGURED, and for `lmsConfig.aprEnabled` the §1026.18 disclosure must
 *    build (`loanAprDisclosure`); otherwise 409 `error.msg.loan.apr.disclosure.unavailable` whose
 *    `developerMessage` names the reason (PRODUCT_NOT_CONFIGURED, AMOUNT_FINANCED_NOT_POSITIVE,
 *    FINANCE_CHARGE_NEGATIVE, APR_NOT_COMPUTABLE, APR_OUTSIDE_TOLERANCE, UNSUPPORTED_REPAYMENT_FREQUENCY) —
 *    the transaction rolls back and the loan stays SUBMITTED;
 * 5. the loan becomes APPROVED with `approvedPrincipal`, `approvedOnDate`, `approvedBy` = the actor and the
 *    disclosure frozen with `finalizedAt` = `deps.clock()`; `LOAN_APPROVED` goes to the borrower's history
 *    (with the note) and `loan.approved` to the outbox.
 * A second approval answers 409 (the state check), so a retried command never approves twice.
 * Errors: 404 for a loan that is not the tenant's; 400; 409 as above.
 */
export function approveLoan(deps: Deps) {
  return async (input: ApproveLoanInput): Promise<ApproveLoanResult> => {
    assertNoSensitiveData('note', input.note);
    const now = deps.clock();
    const {
      approvedLoan: _,
      approvedTerms: __,
      ...result
    } = await withTenantTransaction(deps.db, input.tenantId, (tx) => approveLoanInTx(tx, input, now));
    return result;
  };
}

/** What `approveLoanInTx` answers: `approveLoan`'s result and the loan as it now stands under its lock. */
export interface ApproveLoanInTxResult extends ApproveLoanResult {
  /** The approved loan in `lockLoanForMoney`'s shape, for a later step of the same transaction. */
  approvedLoan: LoanForMoney;
  /** Its stored terms as the approval left them. */
  approvedTerms: StoredLoanTerms;
  /** Its installment rows as the approval left them. */
  approvedInstallments: NewInstallmentRow[];
}

/**
 * `approveLoan` inside the caller's tenant transaction `tx` (the same checks, rows and events; `now` is the
 * operation's clock reading). `options.storedInstallments`: the loan's installment rows as the caller knows them
 * to be stored in this transaction (a loan just submitted by `createLoanInTx`); when the approved schedule gives
 * exactly these rows, they are kept instead of being deleted and inserted again. `options.fresh`: the loan as
 * `createLoanInTx` stored it in this transaction, which is then not read (nor locked) again; `options.chunk`: the
 * product from the boarding chunk and the history entry and event buffered in it (activities/lending/loan-chunk.ts),
 * and, with `fresh`, the loan row's update too (written with the chunk's others before it commits).
 * Answers the result and the approved loan (`ApproveLoanInTxResult`). Errors: those of `approveLoan`.
 */
export async function approveLoanInTx(
  tx: Tx,
  input: ApproveLoanInput,
  now: Date,
  options: {
    storedInstallments?: readonly NewInstallmentRow[];
    /** The loan as `createLoanInTx` stored it in this transaction (its row is not read again). */
    fresh?: NonNullable<CreatedLoanInTx['fresh']>;
    chunk?: LoanChunk;
  } = {},
): Promise<ApproveLoanInTxResult> {
  assertNoSensitiveData('note', input.note);
  const { fresh, chunk } = options;
  const loan =
    fresh && fresh.loan.id === input.loanId
      ? fresh.loan
      : await lockLoanForMoney(tx, input.tenantId, input.loanId);
  if (loan.status !== 'SUBMITTED') {
    throw new DomainError(
      'error.msg.loan.invalid.state.transition',
      `Loan ${loan.id} is ${loan.status}: only a SUBMITTED loan can be approved.`,
    );
  }
  const [row] =
    fresh && fresh.loan.id === input.loanId
      ? [{ terms: fresh.terms as unknown, submittedOnDate: fresh.submittedOnDate }]
      : await tx
          .select({ terms: loans.terms, submittedOnDate: loans.submittedOnDate })
          .from(loans)
          .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, loan.id)));
  if (!row) throw new Error(`loan ${loan.id} vanished under its row lock`);
  const terms = row.terms as unknown as StoredLoanTerms;
  // Loan terms carry the product's digits, which may be fewer than the currency's minor unit (a USD product
  // with 0 digits); the money lock renders amounts with the minor unit, so bring the principal back to them.
  const termDigits = terms.currency?.digitsAfterDecimal ?? loan.digitsAfterDecimal;
  const product = chunk
    ? await chunk.productOf(tx, loan.productId)
    : await readProductForLoan(tx, input.tenantId, loan.productId);
  if (!product) throw new Error(`product ${loan.productId} of loan ${loan.id} is missing`);

  const approval = resolveApproval(
    input,
    {
      principal: fixDecimalText(loan.principal, termDigits),
      digitsAfterDecimal: termDigits,
      submittedOnDate: row.submittedOnDate,
      expectedDisbursementDate: loan.expectedDisbursementDate,
      principalBounds: product.bounds,
    },
    latestCalendarDate(now),
  );
  if (!approval.ok) throw loanValidationFailure(approval.errors);
  const { approvedPrincipal, approvedOnDate, expectedDisbursementDate } = approval.value;
  const scheduled = scheduleOf(terms, approvedPrincipal, expectedDisbursementDate, 'approvedLoanAmount');
  if (!scheduled.ok) throw loanValidationFailure(scheduled.errors);
  const schedule = scheduled.value;

  let aprDisclosure: FrozenAprDisclosure | null = null;
  const unavailable = (reason: string, message: string) =>
    new DomainError(
      'error.msg.loan.apr.disclosure.unavailable',
      `${errorCodes['error.msg.loan.apr.disclosure.unavailable'].message} ${reason}: ${message}.`,
    );
  if (product.configurationStatus !== 'CONFIGURED') {
    throw unavailable(
      'PRODUCT_NOT_CONFIGURED',
      `loan product ${product.productId} is ${product.configurationStatus}`,
    );
  }
  if (product.lmsConfig.aprEnabled) {
    const result = loanAprDisclosure(product, terms, approvedPrincipal, expectedDisbursementDate, schedule);
    if (!result.ok) throw unavailable(result.reason, result.message);
    aprDisclosure = { ...result.disclosure, finalizedAt: now.toISOString() };
  }

  const storedTerms: StoredLoanTerms = {
    ...terms,
    disbursementFeeChargesDue: schedule.periods[0].feeChargesDue,
  };
  const installments = installmentRowsOf(input.tenantId, loan.id, schedule);
  if (!(options.storedInstallments && sameInstallmentRows(options.storedInstallments, installments)))
    await replaceInstallmentRows(tx, input.tenantId, loan.id, installments);
  const approvedColumns = {
    approvedPrincipal,
    approvedOnDate,
    expectedDisbursementDate,
    terms: storedTerms as unknown as Record<string, unknown>,
    aprDisclosure: aprDisclosure as unknown as Record<string, unknown> | null,
    approvedBy: input.actor ?? null,
    updatedAt: now,
  };
  // A chunk's new loan is not read back in its transaction: its row is updated with the chunk's others.
  if (chunk && fresh && fresh.loan.id === loan.id)
    chunk.reposts.approvals.push({ id: loan.id, ...approvedColumns });
  else
    await tx
      .update(loans)
      .set({ status: 'APPROVED', ...approvedColumns })
      .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, loan.id)));
  await recordCustomerChange(
    tx,
    {
      tenantId: input.tenantId,
      customerId: loan.clientId,
      action: 'LOAN_APPROVED',
      detail: {
        loanId: loan.id,
        accountNo: loan.accountNo,
        approvedOnDate,
        approvedPrincipal,
        currency: loan.currencyCode,
        annualPercentageRate: aprDisclosure?.annualPercentageRate ?? null,
        note: input.note ?? null,
      },
      actor: input.actor,
      correlationId: input.correlationId,
      occurredAt: now,
    },
    chunk?.history,
  );
  await writeOutboxEvent(
    tx,
    {
      tenantId: input.tenantId,
      eventType: 'loan.approved',
      subjectId: loan.id,
      data: {
        loanId: loan.id,
        loanRef: loan.accountNo,
        clientId: loan.clientId,
        status: 'APPROVED',
        approvedOnDate,
        approvedPrincipal,
        currency: loan.currencyCode,
        expectedDisbursementDate,
        annualPercentageRate: aprDisclosure?.annualPercentageRate ?? null,
      },
      occurredAt: now,
      dedupeKey: `loan/${loan.id}/approved`,
    },
    chunk?.outbox,
  );
  return {
    approvedTerms: storedTerms,
    approvedInstallments: installments,
    approvedLoan: {
      ...loan,
      status: 'APPROVED',
      approvedPrincipal: fixDecimalText(approvedPrincipal, loan.digitsAfterDecimal),
      approvedOnDate,
      expectedDisbursementDate,
      disbursementChargesDue: fixDecimalText(
        storedTerms.disbursementFeeChargesDue ?? '0',
        loan.digitsAfterDecimal,
      ),
    },
    loanId: loan.id,
    clientId: loan.clientId,
    accountNo: loan.accountNo,
    status: 'APPROVED',
    approvedOnDate,
    approvedPrincipal,
    currency: loan.currencyCode,
    expectedDisbursementDate,
    aprDisclosure,
  };
}
