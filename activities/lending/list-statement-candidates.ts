/**
 * Which loans of a tenant are due a statement on a date (docs/design.md §5 "Statements"; docs/processes.md P6
 * "Statements"). Called by the statement cycle (workflows/lending/statement-cycle/), never by a route; also a Temporal
 * activity.
 */
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { loanInstallments, loanProducts, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { isIsoDate } from '../../domain/calendar';
import { validationError } from '../../domain/errors';
import { defaultStatementLeadDays } from '../../domain/lending/statements';
import type { Deps } from '../deps';

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
 * disbursement and paid at checkout: there is no billing cycle before it). A paid-off or closed loan (status other
 * than ACTIVE) gets none. A loan already
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
            // (a loan whose terms predate down payments has no `enableDownPayment`: null must not drop its row)
            sql`not (${loanInstallments.installmentNumber} = 1 and coalesce((${loans.terms} ->> 'enableDownPayment') = 'true', false))`,
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
