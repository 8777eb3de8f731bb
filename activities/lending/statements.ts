/**
 * Statement operations (docs/design.md §5 "Statements"; docs/processes.md P6 "Statements"): which loans of
 * a tenant are due a statement on a date, and the generation of one statement. Called by the statement cycle
 * (workflows/statement-cycle/), never by a route; each is also a Temporal activity.
 */
import { and, asc, desc, eq, gt, gte, lt, lte, sql } from 'drizzle-orm';
import { getLoanSummary, type LoanSummaryView } from '../../db/queries/lending/ledger';
import { type StatementView, statementView } from '../../db/queries/lending/statements';
import {
  charges,
  fundings,
  loanInstallments,
  loanProductCharges,
  loanProducts,
  loans,
  payments,
  statements,
  tenants,
} from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { addDays, isIsoDate } from '../../domain/calendar';
import { defaultComplianceTimeZone } from '../../domain/deadlines';
import { DomainError, notFound, validationError } from '../../domain/errors';
import { minorOf } from '../../domain/lending/loan-allocation';
import {
  type AllocationLineText,
  type BalanceAt,
  defaultStatementLeadDays,
  type PeriodPayment,
  paidToInstallmentMinor,
  statementDateFor,
  statementFigures,
  statementPeriodStart,
  statementSettingsOf,
} from '../../domain/lending/statements';
import { localDate } from '../../domain/time-zone';
import { tenantComplianceTimeZone } from '../common/tenant-time-zone';
import type { Deps } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';

/** A tenant the statement cycle visits and the IANA zone its dates are in. */
export interface StatementTenant {
  tenantId: string;
  timeZone: string;
}

/**
 * The tenants with at least one product with `lmsConfig.statementEnabled`, sorted, with their compliance time zone
 * (default `America/Los_Angeles`). A cross-tenant read (`withPlatformTransaction`, read only), one of the sweeps that
 * must see every tenant (db/tenant-tx.ts); ids and zones only. Errors: none of its own.
 */
export function listStatementTenants(deps: Deps) {
  return async (): Promise<StatementTenant[]> => {
    const rows = await withPlatformTransaction(
      deps.db,
      (tx) =>
        tx
          .selectDistinct({ tenantId: loanProducts.tenantId, timeZone: tenants.complianceTimeZone })
          .from(loanProducts)
          .innerJoin(tenants, eq(tenants.id, loanProducts.tenantId))
          .where(sql`(${loanProducts.lmsConfig} ->> 'statementEnabled') = 'true'`)
          .orderBy(loanProducts.tenantId),
      { accessMode: 'read only' },
    );
    return rows.map((row) => ({
      tenantId: row.tenantId,
      timeZone: row.timeZone ?? defaultComplianceTimeZone,
    }));
  };
}

export interface ListStatementCandidatesInput {
  tenantId: string;
  /** ISO date in the tenant's time zone on which statements are issued. */
  asOf: string;
  /** Page after this loan id (0 for the first page). */
  afterLoanId?: number;
  /** Page size, 1–500 (default 100). */
  limit?: number;
}

/** A loan due a statement: its id and the due date of the installment the statement is for. */
export interface StatementCandidate {
  loanId: number;
  dueDate: string;
}

/**
 * One page (by loan id ascending, after `afterLoanId`) of the tenant's loans due a statement on `asOf`: ACTIVE
 * loans of products with `statementEnabled` with an installment due on `asOf` + the product's `statementLeadDays`
 * (default 21), paid ahead or not (the statement then shows nothing due for it: every billing cycle has its
 * statement), except the down-payment installment of a loan with `enableDownPayment` (installment 1, due at
 * disbursement and paid at checkout: there is no billing cycle before it). A paid-off or closed loan (status other than ACTIVE) gets none. A loan already
 * holding that statement is still listed (generation is idempotent). Errors: 400 for an `asOf` that is not an ISO
 * date or a `limit` outside 1–500.
 */
export function listStatementCandidates(deps: Deps) {
  return async (input: ListStatementCandidatesInput): Promise<StatementCandidate[]> => {
    if (!isIsoDate(input.asOf)) throw validationError('asOf', input.asOf, 'asOf must be an ISO date.');
    const limit = input.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw validationError('limit', limit, 'limit must be 1–500.');
    const leadDays = sql`coalesce((${loanProducts.lmsConfig} ->> 'statementLeadDays')::int, ${defaultStatementLeadDays})`;
    const rows = await withTenantTransaction(deps.db, input.tenantId, (tx) =>
      tx
        .select({ loanId: loans.id, dueDate: loanInstallments.dueDate })
        .from(loans)
        .innerJoin(
          loanProducts,
          and(eq(loanProducts.tenantId, loans.tenantId), eq(loanProducts.id, loans.productId)),
        )
        .innerJoin(
          loanInstallments,
          and(
            eq(loanInstallments.tenantId, loans.tenantId),
            eq(loanInstallments.loanId, loans.id),
            sql`${loanInstallments.dueDate} = ${input.asOf}::date + ${leadDays}`,
            // the down payment is due when the credit is extended (docs/lending.md "Down payments"): no bill
            sql`not (${loanInstallments.installmentNumber} = 1 and (${loans.terms} ->> 'enableDownPayment') = 'true')`,
          ),
        )
        .where(
          and(
            eq(loans.tenantId, input.tenantId),
            eq(loans.status, 'ACTIVE'),
            gt(loans.id, input.afterLoanId ?? 0),
            sql`(${loanProducts.lmsConfig} ->> 'statementEnabled') = 'true'`,
          ),
        )
        .orderBy(asc(loans.id))
        .limit(limit),
    );
    return rows;
  };
}

export interface GenerateStatementInput {
  tenantId: string;
  loanId: number;
  /** ISO date of the installment the statement is for. */
  dueDate: string;
}

export interface GenerateStatementResult {
  statement: StatementView;
  /** False when the statement of this loan and due date already existed (a replay). */
  created: boolean;
}

const balanceAt = (summary: LoanSummaryView): BalanceAt => {
  const minor = (amount: string) => minorOf(amount, summary.currency);
  return {
    principalMinor: minor(summary.payoff.principal),
    interestMinor: minor(summary.payoff.interest),
    feeMinor: minor(summary.payoff.fee),
    penaltyMinor: minor(summary.payoff.penalty),
    overpaymentMinor: minor(summary.balances.overpayment),
  };
};

/**
 * Generates the statement of loan `loanId` for its installment due on `dueDate` (docs/processes.md P6; figures:
 * domain/lending/statements.ts): statement date = due date − the product's `statementLeadDays`; period from the
 * day after the previous statement's period end (or the first disbursement) to the statement date; balances from
 * the loan summary (`getLoanSummary`) at the day before the period and at the statement date, so they agree with
 * `GET /v1/loans/{loanId}/summary` to the cent; the period's POSTED payments and fundings; the APR frozen at
 * approval; the product's late fee (its largest flat penalty charge). The row and the `statement.generated` event
 * are written in one transaction.
 *
 * Idempotent per (loan, due date): a statement already stored is returned as it is (`created: false`), nothing
 * written. The reads (summaries, period events) run before the write transaction: the summary is a statement of its
 * own on the pool, and holding a connection while asking for another wedges the pool (docs/processes.md P0).
 *
 * Errors: 404 `error.msg.resource.not.found` for a loan the tenant does not have, or no installment due on
 * `dueDate`; 409 `error.msg.loan.invalid.state.transition` for a loan that is not ACTIVE or whose product has no
 * statements (nothing written); 400 for a `dueDate` that is not an ISO date or whose statement date is after today
 * in the tenant's compliance time zone (a statement is never issued early).
 */
export function generateStatement(deps: Deps) {
  return async (input: GenerateStatementInput): Promise<GenerateStatementResult> => {
    const { tenantId, loanId, dueDate } = input;
    if (!isIsoDate(dueDate)) throw validationError('dueDate', dueDate, 'dueDate must be an ISO date.');
    const context = await withTenantTransaction(deps.db, tenantId, async (tx) => {
      const [loan] = await tx
        .select({ loan: loans, lmsConfig: loanProducts.lmsConfig })
        .from(loans)
        .innerJoin(
          loanProducts,
          and(eq(loanProducts.tenantId, loans.tenantId), eq(loanProducts.id, loans.productId)),
        )
        .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
      if (!loan) return null;
      const [existing] = await tx
        .select()
        .from(statements)
        .where(
          and(
            eq(statements.tenantId, tenantId),
            eq(statements.loanId, loanId),
            eq(statements.dueDate, dueDate),
          ),
        );
      const [installment] = await tx
        .select()
        .from(loanInstallments)
        .where(
          and(
            eq(loanInstallments.tenantId, tenantId),
            eq(loanInstallments.loanId, loanId),
            eq(loanInstallments.dueDate, dueDate),
          ),
        );
      const [previous] = await tx
        .select({ periodEnd: statements.periodEnd })
        .from(statements)
        .where(
          and(
            eq(statements.tenantId, tenantId),
            eq(statements.loanId, loanId),
            lt(statements.dueDate, dueDate),
          ),
        )
        .orderBy(desc(statements.dueDate))
        .limit(1);
      const [firstFunding] = await tx
        .select({ fundingDate: fundings.fundingDate })
        .from(fundings)
        .where(and(eq(fundings.tenantId, tenantId), eq(fundings.loanId, loanId)))
        .orderBy(asc(fundings.fundingDate))
        .limit(1);
      const lateFees = await tx
        .select({ amount: charges.amount })
        .from(loanProductCharges)
        .innerJoin(
          charges,
          and(eq(charges.tenantId, loanProductCharges.tenantId), eq(charges.id, loanProductCharges.chargeId)),
        )
        .where(
          and(
            eq(loanProductCharges.tenantId, tenantId),
            eq(loanProductCharges.productId, loan.loan.productId),
            eq(charges.penalty, true),
            eq(charges.active, true),
            eq(charges.chargeCalculationType, 1),
          ),
        );
      const timeZone = await tenantComplianceTimeZone(tx, tenantId);
      return { ...loan, existing, installment, previous, firstFunding, lateFees, timeZone };
    });
    if (context === null) throw notFound('Loan', loanId);
    const { loan, lmsConfig, existing, installment } = context;
    if (existing) return { statement: statementView(existing, loan.accountNo), created: false };
    if (!installment) throw notFound('Installment due on', dueDate);
    const settings = statementSettingsOf(lmsConfig);
    // `dueDate` − lead days is the statement date; the period's reads below stop there.
    if (!settings.enabled || loan.status !== 'ACTIVE' || !context.firstFunding) {
      throw new DomainError(
        'error.msg.loan.invalid.state.transition',
        `Loan ${loanId} is not an ACTIVE loan of a product with statements; no statement is generated.`,
      );
    }
    const currency = loan.currencyCode;
    const statementDate = statementDateFor(dueDate, settings.leadDays);
    const today = localDate(deps.clock().getTime(), context.timeZone);
    if (statementDate > today) {
      throw validationError(
        'dueDate',
        dueDate,
        `The statement of ${dueDate} is issued on ${statementDate}, after today (${today}, ${context.timeZone}).`,
      );
    }
    const periodStart = statementPeriodStart(
      context.previous?.periodEnd ?? null,
      context.firstFunding.fundingDate,
    );
    const at = deps.clock();
    const [before, after, periodFundings, postedPayments] = await Promise.all([
      getLoanSummary(deps.db, tenantId, loanId, addDays(periodStart, -1), at),
      getLoanSummary(deps.db, tenantId, loanId, statementDate, at),
      withTenantTransaction(deps.db, tenantId, (tx) =>
        tx
          .select()
          .from(fundings)
          .where(
            and(
              eq(fundings.tenantId, tenantId),
              eq(fundings.loanId, loanId),
              gte(fundings.fundingDate, periodStart),
              lte(fundings.fundingDate, statementDate),
            ),
          )
          .orderBy(asc(fundings.fundingDate), asc(fundings.id)),
      ),
      withTenantTransaction(deps.db, tenantId, (tx) =>
        tx
          .select()
          .from(payments)
          .where(
            and(
              eq(payments.tenantId, tenantId),
              eq(payments.loanId, loanId),
              eq(payments.status, 'POSTED'),
              lte(payments.effectiveDate, statementDate),
            ),
          )
          .orderBy(asc(payments.effectiveDate), asc(payments.id)),
      ),
    ]);
    if (!before || !after) throw notFound('Loan', loanId);
    const minor = (amount: string | undefined | null) => minorOf(amount ?? '0', currency);
    const periodPayments = postedPayments.filter((p) => p.effectiveDate >= periodStart);
    const paymentsOfPeriod: PeriodPayment[] = periodPayments.map((p) => {
      const split = (p.allocation ?? {}) as Record<string, string | undefined>;
      return {
        paymentId: p.id,
        effectiveDate: p.effectiveDate,
        amountMinor: minor(p.amount),
        principalMinor: minor(split.principal),
        interestMinor: minor(split.interest),
        feeMinor: minor(split.fee),
        penaltyMinor: minor(split.penalty),
        overpaymentMinor: minor(split.overpayment),
      };
    });
    let lateFeeMinor: bigint | null = null;
    for (const fee of context.lateFees) {
      const amount = minor(fee.amount);
      if (lateFeeMinor === null || amount > lateFeeMinor) lateFeeMinor = amount;
    }
    const apr = loan.aprDisclosure?.annualPercentageRate;
    const figures = statementFigures({
      currency,
      statementDate,
      dueDate,
      periodStart,
      previous: balanceAt(before),
      current: balanceAt(after),
      pastDueMinor: minor(after.overdue.total),
      installment: {
        installmentNumber: installment.installmentNumber,
        dueDate,
        dueMinor:
          minor(installment.principalDue) +
          minor(installment.interestDue) +
          minor(installment.feeChargesDue) +
          minor(installment.penaltyChargesDue),
        // Paid by the statement date (the payments' current allocation lines), not by now: a statement generated
        // late shows the installment as it stood on its statement date.
        settledMinor: paidToInstallmentMinor(
          postedPayments.map((p) => (p.allocation as { lines?: AllocationLineText[] } | null)?.lines ?? []),
          installment.installmentNumber,
          minor,
        ),
      },
      payments: paymentsOfPeriod,
      fundings: periodFundings.map((f) => ({
        fundingId: f.id,
        fundingDate: f.fundingDate,
        amountMinor: minor(f.amount),
      })),
      annualPercentageRate: typeof apr === 'string' ? apr : null,
      lateFeeMinor,
    });
    return withTenantTransaction(deps.db, tenantId, async (tx) => {
      const [inserted] = await tx
        .insert(statements)
        .values({
          tenantId,
          loanId,
          dueDate,
          statementDate,
          periodStart,
          periodEnd: statementDate,
          figures,
          createdAt: at,
        })
        .onConflictDoNothing({ target: [statements.tenantId, statements.loanId, statements.dueDate] })
        .returning();
      if (!inserted) {
        // Another attempt stored it between the reads and this transaction: answer the stored one.
        const [stored] = await tx
          .select()
          .from(statements)
          .where(
            and(
              eq(statements.tenantId, tenantId),
              eq(statements.loanId, loanId),
              eq(statements.dueDate, dueDate),
            ),
          );
        if (!stored)
          throw new Error(`statement of loan ${loanId} due ${dueDate}: neither inserted nor found`);
        return { statement: statementView(stored, loan.accountNo), created: false };
      }
      const statement = statementView(inserted, loan.accountNo);
      await writeOutboxEvent(tx, {
        tenantId,
        eventType: 'statement.generated',
        subjectId: statement.statementId,
        data: {
          statementId: statement.statementId,
          loanId,
          loanRef: loan.accountNo,
          statementDate,
          periodStart,
          periodEnd: statementDate,
          dueDate,
          currency,
          previousBalance: figures.previousBalance,
          newBalance: figures.newBalance,
          amountDue: figures.amountDue,
          annualPercentageRate: figures.annualPercentageRate,
          createdAt: statement.createdAt,
        },
        occurredAt: at,
        dedupeKey: `statement/${statement.statementId}/generated`,
      });
      return { statement, created: true };
    });
  };
}
