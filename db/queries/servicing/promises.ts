/**
 * Reads of promises to pay (docs/processes.md P4; table `promises`, db/schema/servicing/servicing.ts): the view the API
 * answers with, the list of a case's promises, the PENDING promises of a loan (whom a posted payment signals) and
 * the sum of a loan's posted payments in a promise's window. Money is returned as decimal strings with the
 * currency's digits.
 */
import { and, asc, desc, eq, gte, lte, sql } from 'drizzle-orm';
import { fixDecimalText } from '../../../domain/lending/decimal-text';
import { minorUnitDigits } from '../../../domain/money';
import type { PromiseChannel, PromiseStatus } from '../../../domain/servicing/promise';
import type { Db } from '../../client';
import { payments, promises } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** A promise as the API answers it (`GET /v1/servicing/promises/{promiseId}`). */
export interface PromiseView {
  promiseId: number;
  resourceId: number;
  caseId: number;
  loanId: number;
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
  /** ISO date. */
  promisedDate: string;
  channel: PromiseChannel;
  status: PromiseStatus;
  /** Decimal string: paid in the window at resolution; `0.00` while PENDING. */
  paidAmount: string;
  /** End of the watch (end of promisedDate + 3 grace days), ISO 8601 with the tenant zone's offset. */
  deadlineAt: string;
  /** ISO 8601 instants (UTC). */
  createdAt: string;
  resolvedAt: string | null;
  /** The follow-up task opened when the promise was not kept in full. */
  followUpTaskId: number | null;
}

export type PromiseRow = typeof promises.$inferSelect;

/** The API view of a stored promise. */
export function promiseViewOf(row: PromiseRow): PromiseView {
  const digits = minorUnitDigits(row.currencyCode);
  return {
    promiseId: row.id,
    resourceId: row.id,
    caseId: row.caseId,
    loanId: row.loanId,
    amount: fixDecimalText(row.amount, digits),
    currency: row.currencyCode,
    promisedDate: row.promisedDate,
    channel: row.channel,
    status: row.status,
    paidAmount: fixDecimalText(row.paidAmount, digits),
    deadlineAt: row.deadlineAtText,
    createdAt: row.createdAt.toISOString(),
    resolvedAt: row.resolvedAt ? row.resolvedAt.toISOString() : null,
    followUpTaskId: row.followUpTaskId,
  };
}

/** The tenant's promise `promiseId`, or null. */
export async function getPromise(db: Db, tenantId: string, promiseId: number): Promise<PromiseView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(promises)
      .where(and(eq(promises.tenantId, tenantId), eq(promises.id, promiseId))),
  );
  return row ? promiseViewOf(row) : null;
}

/**
 * The promises of a case, newest first, `limit + 1` rows from `offset` (the caller answers `hasMore`). An unknown
 * case simply has none.
 */
export async function listPromises(
  db: Db,
  tenantId: string,
  filter: { caseId: number; limit: number; offset: number },
): Promise<PromiseView[]> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(promises)
      .where(and(eq(promises.tenantId, tenantId), eq(promises.caseId, filter.caseId)))
      .orderBy(desc(promises.id))
      .limit(filter.limit + 1)
      .offset(filter.offset),
  );
  return rows.map(promiseViewOf);
}

/** Ids of the loan's PENDING promises, oldest first (partial index `promises_pending_loan_idx`). */
export async function pendingPromiseIdsOfLoan(db: Db, tenantId: string, loanId: number): Promise<number[]> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({ id: promises.id })
      .from(promises)
      .where(
        and(eq(promises.tenantId, tenantId), eq(promises.loanId, loanId), eq(promises.status, 'PENDING')),
      )
      .orderBy(asc(promises.id)),
  );
  return rows.map((r) => r.id);
}

/**
 * Sum (decimal string at 6 digits, as PostgreSQL's numeric sum) of the loan's POSTED payments value-dated from
 * `fromDate` to `toDate` inclusive. RETURNED, FAILED and in-flight payments do not count.
 */
export async function sumPostedPayments(
  tx: Tx,
  tenantId: string,
  loanId: number,
  fromDate: string,
  toDate: string,
): Promise<string> {
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${payments.amount}), 0)::numeric(19,6)::text` })
    .from(payments)
    .where(
      and(
        eq(payments.tenantId, tenantId),
        eq(payments.loanId, loanId),
        eq(payments.status, 'POSTED'),
        gte(payments.effectiveDate, fromDate),
        lte(payments.effectiveDate, toDate),
      ),
    );
  return row?.total ?? '0';
}
