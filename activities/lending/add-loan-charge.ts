import { and, eq, sql } from 'drizzle-orm';
import { tenantToday } from '../../db/queries/lending/delinquency';
import { insertInstallmentRows } from '../../db/queries/lending/installments';
import {
  type LoanForMoney,
  lockLoanForMoney,
  readLoanChargeDefinitions,
} from '../../db/queries/lending/loans';
import { loanCharges, loanInstallments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound, validationError } from '../../domain/errors';
import { loanChargeDefinitionErrors, placeLoanCharge } from '../../domain/lending/loan-charges';
import { parseLoanDate } from '../../domain/lending/loan-terms/dates';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { moneyOfInput } from './loan-money';
import { repostLoan } from './repost-loan';

/** `POST /v1/loans/{loanId}/charges` as the operation takes it (Fineract's body; dates ISO or per `dateFormat`). */
export interface AddLoanChargeInput extends OperationContext {
  loanId: number;
  /** The charge definition (`POST /v1/charges`): specified due date (2), flat, active, in the loan's currency. */
  chargeId: number;
  /** Decimal string > 0 with at most the currency's digits; absent = the definition's amount. */
  amount?: string | null;
  /** ISO date, or a date in `dateFormat`/`locale` (domain/lending/loan-terms/dates.ts). */
  dueDate: string;
  /** Source-system key, unique per tenant among loan charges. */
  externalId?: string | null;
  locale?: string | null;
  dateFormat?: string | null;
}

/** The charge added (or, for a replay of the same request key, the one it added). */
export interface AddLoanChargeResult {
  loanChargeId: number;
  loanId: number;
  /** False when the request key had already added it. */
  created: boolean;
}

/**
 * Adds a specified-due-date charge to an active, closed (obligations met) or overpaid loan (Apache Fineract
 * `POST /loans/{loanId}/charges`, `LoanChargeWritePlatformServiceImpl.addLoanCharge`): a closed loan reopens (ACTIVE)
 * with the charge owed, an overpaid one pays it from its overpayment (LoanCharge.feature, "adding charge on a closed
 * loan after maturity date is creating an N+1 installment"). One transaction under the loan's row lock
 * (db/queries/lending/loans.ts `lockLoanForMoney`): the charge lands on the installment whose period holds its due
 * date, or on an additional installment after the last one (domain/lending/loan-charges.ts `placeLoanCharge`); the
 * installment's `fee_charges_due` or `penalty_charges_due` grows by it; the loan's allocation and journal are
 * re-posted in value-date order with the charge on its installment as the loan's strategy replays it
 * (domain/lending/loan-allocation.ts `chargeTimingOf`: for the whole replay under a cumulative strategy; under
 * advanced payment allocation from today, the business date it is submitted on, or from its due date when that is
 * earlier; an overpayment made before then pays it); event `loan.charge.added`. Idempotent by request key.
 *
 * Errors: 404 for another tenant's (or no) loan, and for an unknown `chargeId` (field error naming it); 400
 * naming `loanId` when the loan is neither ACTIVE, CLOSED_OBLIGATIONS_MET nor OVERPAID
 * (`error.msg.loanCharge.cannot.be.added.as.loan.is.not.active`, e.g. before its first funding), naming `chargeId` for an inactive
 * definition, one in another currency, not a specified-due-date or not a flat charge
 * (domain/lending/loan-charges.ts `loanChargeDefinitionErrors`), naming `dueDate` for an unreadable date or one
 * before the disbursement (`error.msg.loanCharge.cannot.be.added.as.specified.due.date.outside.range`), naming
 * `amount` for a malformed or over-precise amount; 409 `error.msg.loan.charge.external.id.conflict` for an
 * `externalId` already used.
 */
export function addLoanCharge(deps: Deps) {
  return async (input: AddLoanChargeInput): Promise<AddLoanChargeResult> => {
    assertNoSensitiveData('externalId', input.externalId);
    const dueDate = parseLoanDate(input.dueDate, input.dateFormat, input.locale);
    if (dueDate === null) {
      throw validationError(
        'dueDate',
        input.dueDate,
        'dueDate must be a calendar date (YYYY-MM-DD, or in dateFormat with an English locale).',
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      if (input.requestKey) {
        const [earlier] = await tx
          .select({ id: loanCharges.id, loanId: loanCharges.loanId })
          .from(loanCharges)
          .where(and(eq(loanCharges.tenantId, input.tenantId), eq(loanCharges.requestKey, input.requestKey)));
        if (earlier) return { loanChargeId: earlier.id, loanId: earlier.loanId, created: false };
      }
      const added = await addChargeToLockedLoan(tx, {
        tenantId: input.tenantId,
        loan,
        chargeId: input.chargeId,
        amount: input.amount ?? null,
        dueDate,
        externalId: input.externalId ?? null,
        actor: input.actor ?? null,
        requestKey: input.requestKey ?? null,
        now: deps.clock(),
      });
      return { loanChargeId: added.loanChargeId, loanId: loan.id, created: true };
    });
  };
}

/** What `addChargeToLockedLoan` needs: the loan locked by the caller in `tx`, the charge, who and when. */
export interface ChargeForLockedLoan {
  tenantId: string;
  loan: LoanForMoney;
  chargeId: number;
  /** Decimal string, or null for the definition's amount. */
  amount: string | null;
  /** ISO date. */
  dueDate: string;
  externalId: string | null;
  actor: string | null;
  requestKey: string | null;
  /** The operation's clock reading. */
  now: Date;
}

/** A charge as added: its row id, amount (decimal string with the currency's digits) and installment. */
export interface AddedLoanCharge {
  loanChargeId: number;
  amount: string;
  currency: string;
  installmentNumber: number;
}

/**
 * The rules and writes of `addLoanCharge` (its docstring) in the caller's transaction, for a loan the caller has
 * locked (`lockLoanForMoney`): also used when a returned payment adds the product's NSF charge. Throws the
 * errors listed there (except the request-key replay, which is the caller's).
 */
export async function addChargeToLockedLoan(tx: Tx, input: ChargeForLockedLoan): Promise<AddedLoanCharge> {
  const { loan, tenantId } = input;
  // Fineract adds a charge to an active loan, to one closed with its obligations met (it reopens: the charge's
  // installment, or an additional one after the last, owes it) and to an overpaid one (the overpayment pays it)
  if (loan.status !== 'ACTIVE' && loan.status !== 'CLOSED_OBLIGATIONS_MET' && loan.status !== 'OVERPAID') {
    const message = `This charge cannot be added as loan ${loan.id} is ${loan.status}: charges are added to an active, closed (obligations met) or overpaid loan.`;
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [
        fieldError('loanId', loan.id, message, 'error.msg.loanCharge.cannot.be.added.as.loan.is.not.active'),
      ],
    });
  }
  const definition = (await readLoanChargeDefinitions(tx, tenantId, [input.chargeId])).get(input.chargeId);
  if (!definition) throw referenceNotFound('chargeId', input.chargeId, 'Charge');
  const errors = loanChargeDefinitionErrors(definition, loan.currencyCode);
  if (errors.length > 0) {
    throw new DomainError(
      'validation.msg.validation.errors.exist',
      errors.map((e) => e.developerMessage).join(' '),
      {
        errors,
      },
    );
  }
  const money = moneyOfInput(input.amount ?? definition.amount, loan.currencyCode);
  if (loan.disbursedOnDate === null || input.dueDate < loan.disbursedOnDate) {
    const message = `This charge with specified due date cannot be added as it is not in schedule range: dueDate ${input.dueDate} is before the disbursement date ${loan.disbursedOnDate ?? '(none)'}.`;
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [
        fieldError(
          'dueDate',
          input.dueDate,
          message,
          'error.msg.loanCharge.cannot.be.added.as.specified.due.date.outside.range',
        ),
      ],
    });
  }
  if (input.externalId !== null) {
    const [taken] = await tx
      .select({ id: loanCharges.id })
      .from(loanCharges)
      .where(and(eq(loanCharges.tenantId, tenantId), eq(loanCharges.externalId, input.externalId)));
    if (taken) {
      throw new DomainError(
        'error.msg.loan.charge.external.id.conflict',
        'This externalId already belongs to another loan charge.',
      );
    }
  }

  const installments = await tx
    .select({
      installmentNumber: loanInstallments.installmentNumber,
      fromDate: loanInstallments.fromDate,
      dueDate: loanInstallments.dueDate,
      additional: loanInstallments.additional,
      // the down-payment installment: installment 1 of a loan with `enableDownPayment` (docs/lending.md "Down payments")
      downPayment: sql<boolean>`${loanInstallments.installmentNumber} = 1 and coalesce((select (l.terms ->> 'enableDownPayment') = 'true' from loans l where l.tenant_id = ${tenantId} and l.id = ${loan.id}), false)`,
    })
    .from(loanInstallments)
    .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loan.id)));
  const placement = placeLoanCharge(installments, input.dueDate);
  const column = definition.penalty ? loanInstallments.penaltyChargesDue : loanInstallments.feeChargesDue;
  if (placement.kind === 'NEW_ADDITIONAL') {
    await insertInstallmentRows(tx, [
      {
        tenantId,
        loanId: loan.id,
        installmentNumber: placement.installmentNumber,
        fromDate: placement.fromDate,
        dueDate: placement.dueDate,
        principalDue: '0',
        interestDue: '0',
        feeChargesDue: definition.penalty ? '0' : money.text,
        penaltyChargesDue: definition.penalty ? money.text : '0',
        additional: true,
      },
    ]);
  } else {
    await tx
      .update(loanInstallments)
      .set({
        [definition.penalty ? 'penaltyChargesDue' : 'feeChargesDue']: sql`${column} + ${money.text}::numeric`,
        ...(placement.kind === 'MOVE_ADDITIONAL' ? { dueDate: placement.dueDate } : {}),
      })
      .where(
        and(
          eq(loanInstallments.tenantId, tenantId),
          eq(loanInstallments.loanId, loan.id),
          eq(loanInstallments.installmentNumber, placement.installmentNumber),
        ),
      );
  }
  const [row] = await tx
    .insert(loanCharges)
    .values({
      tenantId,
      loanId: loan.id,
      chargeId: definition.chargeId,
      installmentNumber: placement.installmentNumber,
      dueDate: input.dueDate,
      amount: money.text,
      penalty: definition.penalty,
      submittedOnDate: await tenantToday(tx, tenantId, input.now),
      externalId: input.externalId,
      actorUsername: input.actor,
      requestKey: input.requestKey,
      createdAt: input.now,
    })
    .returning({ id: loanCharges.id });
  if (!row) throw new Error('loan charge insert returned no row');
  await repostLoan(tx, { tenantId, loan, now: input.now });
  await writeOutboxEvent(tx, {
    tenantId,
    eventType: 'loan.charge.added',
    subjectId: loan.id,
    data: {
      loanId: loan.id,
      loanRef: loan.accountNo,
      loanChargeId: row.id,
      chargeId: definition.chargeId,
      amount: money.text,
      currency: loan.currencyCode,
      dueDate: input.dueDate,
      chargeType: definition.penalty ? 'PENALTY' : 'FEE',
      installmentNumber: placement.installmentNumber,
    },
    occurredAt: input.now,
    dedupeKey: `loan-charge/${row.id}/added`,
  });
  return {
    loanChargeId: row.id,
    amount: money.text,
    currency: loan.currencyCode,
    installmentNumber: placement.installmentNumber,
  };
}

/** What `addOverduePenaltyToLockedLoan` needs: the loan locked by the caller, the installment and the amount. */
export interface OverduePenaltyForLockedLoan {
  tenantId: string;
  loanId: number;
  /** The product's overdue-installment charge (chargeTimeType 9). */
  chargeId: number;
  installmentNumber: number;
  /** ISO date: the installment's due date. */
  dueDate: string;
  /** Decimal string > 0 with the currency's digits. */
  amount: string;
  /** The close of business's key of this penalty (`overdue-penalty/<loanId>/<chargeId>/<installmentNumber>`). */
  requestKey: string;
  now: Date;
}

/**
 * Adds an overdue-installment penalty (Apache Fineract `ApplyChargeToOverdueLoans`: chargeTimeType 9) on a given
 * installment of a loan the caller has locked, in the caller's transaction: a `loan_charges` row (penalty, dated
 * the installment's due date) and the installment's `penalty_charges_due` grown by it. Unlike
 * `addChargeToLockedLoan` it neither places the charge by date nor re-posts: the caller re-posts once after all of
 * its penalties (repost-loan.ts) and writes their events. Idempotent by `requestKey`: answers null when that key
 * already added its penalty. Errors: PostgreSQL's, unchanged.
 */
export async function addOverduePenaltyToLockedLoan(
  tx: Tx,
  input: OverduePenaltyForLockedLoan,
): Promise<{ loanChargeId: number } | null> {
  const [row] = await tx
    .insert(loanCharges)
    .values({
      tenantId: input.tenantId,
      loanId: input.loanId,
      chargeId: input.chargeId,
      installmentNumber: input.installmentNumber,
      dueDate: input.dueDate,
      amount: input.amount,
      penalty: true,
      externalId: null,
      actorUsername: null,
      requestKey: input.requestKey,
      createdAt: input.now,
    })
    .onConflictDoNothing({ target: [loanCharges.tenantId, loanCharges.requestKey] })
    .returning({ id: loanCharges.id });
  if (!row) return null;
  await tx
    .update(loanInstallments)
    .set({ penaltyChargesDue: sql`${loanInstallments.penaltyChargesDue} + ${input.amount}::numeric` })
    .where(
      and(
        eq(loanInstallments.tenantId, input.tenantId),
        eq(loanInstallments.loanId, input.loanId),
        eq(loanInstallments.installmentNumber, input.installmentNumber),
      ),
    );
  return { loanChargeId: row.id };
}
