import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { tenantToday } from '../../db/queries/lending/delinquency';
import { insertInstallmentRows, type NewInstallmentRow } from '../../db/queries/lending/installments';
import type { LoanForMoney, StoredLoanTerms } from '../../db/queries/lending/loans';
import { loans } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { DomainError } from '../../domain/errors';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import type { LoanStatus } from '../../domain/lending/loan-status';
import type { LoanApplication } from '../../domain/lending/loan-terms/types';
import type { RepaymentPeriod, Schedule } from '../../domain/lending/schedule';
import { minorUnitDigits } from '../../domain/money';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import { recordCustomerChange } from '../customers/records';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { resolveApplicationInTx } from './application';
import type { LoanChunk } from './loan-chunk';

export interface CreateLoanInput extends OperationContext, LoanApplication {
  /**
   * True when portfolio boarding creates the loan: its close of business starts the day before it was boarded
   * (`lastClosedBusinessDate`, tenant's calendar) and it is never assessed a penalty for an installment due before
   * then (`terms.boardedOnDate`; docs/processes.md P7). Default false.
   */
  boarded?: boolean;
}

export interface CreateLoanResult {
  loanId: number;
  /** Zero-padded loan id (Fineract style, `"000000042"`); the spec's `loanRef`. */
  accountNo: string;
  clientId: number;
  /** SUBMITTED for a new loan; the current status when a retry returns an earlier one. */
  status: LoanStatus;
}

/** What `createLoanInTx` answers. */
export interface CreatedLoanInTx {
  loan: CreateLoanResult;
  /** The installment rows this call stored; null for a retry that found the loan of its request key. */
  installments: NewInstallmentRow[] | null;
  /**
   * The loan as this call stored it (null for a retry): its `lockLoanForMoney` shape, stored terms and submission
   * date, so that a step of the same transaction (the approval of a boarded loan) need not read it again.
   */
  fresh: { loan: LoanForMoney; terms: StoredLoanTerms; submittedOnDate: string } | null;
}

/** Digits of a Fineract account number (`AccountNumberGenerator` pads ids to 9). */
const accountNoDigits = 9;

/** A loan's account number from its id. */
export function accountNoOf(loanId: number): string {
  return String(loanId).padStart(accountNoDigits, '0');
}

/**
 * The installments of `schedule` as `loan_installments` rows of loan `loanId` (nothing paid). Also used by the
 * approval when it generates the schedule again.
 */
export function installmentRowsOf(tenantId: string, loanId: number, schedule: Schedule) {
  return (schedule.periods.slice(1) as RepaymentPeriod[]).map((period) => ({
    tenantId,
    loanId,
    installmentNumber: period.period,
    fromDate: period.fromDate,
    dueDate: period.dueDate,
    principalDue: period.principalDue,
    interestDue: period.interestDue,
    feeChargesDue: period.feeChargesDue,
    penaltyChargesDue: period.penaltyChargesDue,
  }));
}

/**
 * Submits a loan application (OpenAPI `POST /v1/loans`): validates it against
 * its product as the preview does (activities/lending/application.ts), then, in one transaction, stores the loan
 * SUBMITTED with its terms (`StoredLoanTerms`) and its installments (`loan_installments`, from the generated
 * schedule, inserted in batches: db/queries/lending/installments.ts), gives it the account number
 * `accountNoOf(id)`, appends `LOAN_SUBMITTED` to the borrower's history and writes the outbox event
 * `loan.submitted`.
 *
 * Idempotent by `requestKey`: a retry returns the loan the first call created (one loan, one set of
 * installments). The borrower's row is locked `FOR UPDATE` first.
 * Errors: 400 `validation.msg.validation.errors.exist` (a `clientId` or `productId` that is not the tenant's, any
 * rule of the terms, an `externalId` that looks like a government identifier or account number — not echoed);
 * 409 `error.msg.loan.external.id.conflict` when another loan of the tenant has `externalId`.
 */
export function createLoan(deps: Deps) {
  return async (input: CreateLoanInput): Promise<CreateLoanResult> => {
    assertNoSensitiveData('externalId', input.externalId);
    const now = deps.clock();
    return withTenantTransaction(
      deps.db,
      input.tenantId,
      async (tx) => (await createLoanInTx(tx, input, now)).loan,
    );
  };
}

/**
 * `createLoan` inside the caller's tenant transaction `tx` (the same checks, rows and events; `now` is the
 * operation's clock reading), for an operation that submits a loan together with other steps in one transaction
 * (activities/lending/board-loan.ts). Answers the loan and, when this call created it, the installment rows it
 * stored and the loan as stored (`CreatedLoanInTx`). With `chunk` (portfolio boarding, activities/lending/loan-chunk.ts)
 * the shared reads come from the chunk and the history entry and the event are buffered in it. Errors: those of
 * `createLoan`.
 */
export async function createLoanInTx(
  tx: Tx,
  input: CreateLoanInput,
  now: Date,
  chunk?: LoanChunk,
): Promise<CreatedLoanInTx> {
  assertNoSensitiveData('externalId', input.externalId);
  const { product, resolved } = await resolveApplicationInTx(tx, input.tenantId, input, now, {
    lockBorrower: true,
    ...(chunk ? { chunk } : {}),
  });
  const { schedule, terms } = resolved;
  const storedTerms: StoredLoanTerms = {
    ...terms,
    disbursementFeeChargesDue: schedule.periods[0].feeChargesDue,
  };
  const boardedOnDate = input.boarded ? (chunk?.today ?? (await tenantToday(tx, input.tenantId, now))) : null;
  const loanTerms = {
    ...(storedTerms as unknown as Record<string, unknown>),
    ...(boardedOnDate === null ? {} : { boardedOnDate }),
  };
  // A boarding chunk reserved the id (activities/lending/loan-chunk.ts): the account number goes in with the row.
  const reservedId = chunk?.takeLoanId();
  const insert = reservedId === undefined ? tx.insert(loans) : tx.insert(loans).overridingSystemValue();
  const [created] = await insert
    .values({
      ...(reservedId === undefined ? {} : { id: reservedId }),
      tenantId: input.tenantId,
      // with no reserved id, replaced by the id-based number below, in this transaction; unique meanwhile
      accountNo: reservedId === undefined ? `pending/${randomUUID()}` : accountNoOf(reservedId),
      clientId: resolved.clientId,
      productId: resolved.productId,
      loanType: terms.loanType,
      status: 'SUBMITTED',
      currencyCode: terms.currency.code,
      principal: resolved.principal,
      terms: loanTerms,
      lastClosedBusinessDate: boardedOnDate === null ? null : addDays(boardedOnDate, -1),
      transactionProcessingStrategyCode: terms.transactionProcessingStrategyCode,
      submittedOnDate: resolved.submittedOnDate,
      expectedDisbursementDate: resolved.expectedDisbursementDate,
      externalId: resolved.externalId,
      createdAt: now,
      updatedAt: now,
      requestKey: input.requestKey ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: loans.id });
  if (!created) return { loan: await existingLoan(tx, input), installments: null, fresh: null };

  const accountNo = accountNoOf(created.id);
  if (reservedId === undefined)
    await tx
      .update(loans)
      .set({ accountNo })
      .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, created.id)));
  const installments = installmentRowsOf(input.tenantId, created.id, schedule);
  await insertInstallmentRows(tx, installments);
  await recordCustomerChange(
    tx,
    {
      tenantId: input.tenantId,
      customerId: resolved.clientId,
      action: 'LOAN_SUBMITTED',
      detail: {
        loanId: created.id,
        accountNo,
        productId: resolved.productId,
        principal: resolved.principal,
        currency: terms.currency.code,
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
      eventType: 'loan.submitted',
      subjectId: created.id,
      data: {
        loanId: created.id,
        loanRef: accountNo,
        clientId: resolved.clientId,
        productId: resolved.productId,
        status: 'SUBMITTED',
        principal: resolved.principal,
        currency: terms.currency.code,
        submittedOnDate: resolved.submittedOnDate,
        expectedDisbursementDate: resolved.expectedDisbursementDate,
      },
      occurredAt: now,
      dedupeKey: `loan/${created.id}/submitted`,
    },
    chunk?.outbox,
  );
  const digits = minorUnitDigits(terms.currency.code);
  return {
    loan: { loanId: created.id, accountNo, clientId: resolved.clientId, status: 'SUBMITTED' },
    installments,
    fresh: {
      loan: {
        id: created.id,
        accountNo,
        clientId: resolved.clientId,
        productId: resolved.productId,
        status: 'SUBMITTED',
        currencyCode: terms.currency.code,
        principal: fixDecimalText(resolved.principal, digits),
        approvedPrincipal: null,
        transactionProcessingStrategyCode: terms.transactionProcessingStrategyCode,
        paymentAllocation: product.paymentAllocation,
        expectedDisbursementDate: resolved.expectedDisbursementDate,
        approvedOnDate: null,
        disbursedOnDate: null,
        disbursementChargesDue: fixDecimalText(storedTerms.disbursementFeeChargesDue ?? '0', digits),
        lastClosedBusinessDate: boardedOnDate === null ? null : addDays(boardedOnDate, -1),
        digitsAfterDecimal: digits,
      },
      terms: loanTerms as unknown as StoredLoanTerms,
      submittedOnDate: resolved.submittedOnDate,
    },
  };
}

/** After an insert that hit a unique index: the loan of this request key (a retry), else an externalId conflict. */
async function existingLoan(tx: Tx, input: CreateLoanInput): Promise<CreateLoanResult> {
  if (input.requestKey) {
    const [same] = await tx
      .select({ id: loans.id, accountNo: loans.accountNo, clientId: loans.clientId, status: loans.status })
      .from(loans)
      .where(and(eq(loans.tenantId, input.tenantId), eq(loans.requestKey, input.requestKey)));
    if (same)
      return { loanId: same.id, accountNo: same.accountNo, clientId: same.clientId, status: same.status };
  }
  if (input.externalId) {
    throw new DomainError(
      'error.msg.loan.external.id.conflict',
      'Another loan of this tenant already has this externalId.',
    );
  }
  throw new Error('loan insert conflicted on neither its request key nor its externalId');
}
