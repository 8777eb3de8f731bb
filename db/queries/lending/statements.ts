/**
 * Read queries of loan statements (OpenAPI `GET /v1/loans/{loanId}/statements`; docs/design.md §4 Paging:
 * operational lists take limit and offset and answer `{items}`; docs/processes.md P6 "Statements"). Each runs in
 * one tenant-scoped read transaction (row-level security): another tenant's loan or statement is invisible, so the
 * functions answer null and the routes turn that into 404.
 */
import { and, desc, eq } from 'drizzle-orm';
import type { StatementFigures } from '../../../domain/lending/statements';
import type { Db } from '../../client';
import { customers, loans, statements, tenants } from '../../schema';
import { type Tx, withPlatformTransaction, withTenantTransaction } from '../../tenant-tx';

/** A statement as the API shows it and the PDF prints it. */
export interface StatementView {
  statementId: number;
  loanId: number;
  loanRef: string;
  /** ISO dates. */
  statementDate: string;
  periodStart: string;
  periodEnd: string;
  dueDate: string;
  /** Amounts as decimal strings with the currency's digits (domain/lending/statements.ts). */
  figures: StatementFigures;
  /** ISO 8601 instant (UTC) it was issued. */
  createdAt: string;
}

/** A stored `statements` row and its loan's account number → `StatementView`. */
export function statementView(row: typeof statements.$inferSelect, loanRef: string): StatementView {
  return {
    statementId: row.id,
    loanId: row.loanId,
    loanRef,
    statementDate: row.statementDate,
    periodStart: row.periodStart,
    periodEnd: row.periodEnd,
    dueDate: row.dueDate,
    figures: row.figures,
    createdAt: row.createdAt.toISOString(),
  };
}

async function loanRefOf(tx: Tx, tenantId: string, loanId: number): Promise<string | null> {
  const [row] = await tx
    .select({ accountNo: loans.accountNo })
    .from(loans)
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
  return row?.accountNo ?? null;
}

/**
 * One page of the loan's statements, newest first (statement date, then id), or null when the tenant has no loan
 * `loanId`. `limit` 1–200, `offset` ≥ 0 (checked by the route).
 */
export async function listLoanStatements(
  db: Db,
  tenantId: string,
  loanId: number,
  page: { limit: number; offset: number },
): Promise<StatementView[] | null> {
  const [loanRef, rows] = await withTenantTransaction(db, tenantId, (tx) =>
    Promise.all([
      loanRefOf(tx, tenantId, loanId),
      tx
        .select()
        .from(statements)
        .where(and(eq(statements.tenantId, tenantId), eq(statements.loanId, loanId)))
        .orderBy(desc(statements.statementDate), desc(statements.id))
        .limit(page.limit)
        .offset(page.offset),
    ]),
  );
  if (loanRef === null) return null;
  return rows.map((row) => statementView(row, loanRef));
}

/** The statement `statementId` of the loan `loanId`, or null when the tenant has no such statement of that loan. */
export async function getLoanStatement(
  db: Db,
  tenantId: string,
  loanId: number,
  statementId: number,
): Promise<StatementView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({ statement: statements, loanRef: loans.accountNo })
      .from(statements)
      .innerJoin(loans, and(eq(loans.tenantId, statements.tenantId), eq(loans.id, statements.loanId)))
      .where(
        and(eq(statements.tenantId, tenantId), eq(statements.loanId, loanId), eq(statements.id, statementId)),
      ),
  );
  return row ? statementView(row.statement, row.loanRef) : null;
}

/** Who a printed statement is from and to. */
export interface StatementParties {
  /** The tenant's display name, else its id. */
  lenderName: string;
  /** The borrower's display name (customer record). */
  borrowerName: string;
}

/**
 * The lender's and borrower's names for the PDF of a statement of `loanId`, or null when the tenant has no such
 * loan. The tenant's display name comes from the platform table (no row-level security; read by id only).
 */
export async function getStatementParties(
  db: Db,
  tenantId: string,
  loanId: number,
): Promise<StatementParties | null> {
  const [borrower] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({
        firstName: customers.firstName,
        middleName: customers.middleName,
        lastName: customers.lastName,
      })
      .from(loans)
      .innerJoin(customers, and(eq(customers.tenantId, loans.tenantId), eq(customers.id, loans.clientId)))
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId))),
  );
  if (!borrower) return null;
  const [tenant] = await withPlatformTransaction(
    db,
    (tx) => tx.select({ displayName: tenants.displayName }).from(tenants).where(eq(tenants.id, tenantId)),
    { accessMode: 'read only' },
  );
  return {
    lenderName: tenant?.displayName?.trim() || tenantId,
    borrowerName:
      [borrower.firstName, borrower.middleName, borrower.lastName]
        .map((part) => part?.trim() ?? '')
        .filter(Boolean)
        .join(' ') || 'Borrower',
  };
}
