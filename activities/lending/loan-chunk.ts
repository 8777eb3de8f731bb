/**
 * What the loans of one boarding chunk share inside its one transaction (portfolio boarding, docs/processes.md P3
 * and its speed target; docs/migrating.md "How a chunk of loans is written"): `LoanChunk`, opened once per chunk
 * transaction by `openLoanChunk` and handed to `boardLoanInTx` for each loan.
 *
 * - Reads that do not depend on the loan are made once per chunk: the tenant's calendar date (`tenantToday`), each
 *   product with its charges (`readProductForLoan`) and each set of charge definitions (`readLoanChargeDefinitions`).
 *   They are read in the chunk's transaction, so every loan sees what it would have read itself.
 * - The borrowers are locked once for the chunk (`lockCustomers`, in id order); a loan whose borrower is among them
 *   does not lock it again, and a borrower that is not the tenant's is still refused by the loan (it is not locked).
 * - The tenant's chart of accounts is ensured once, before the loans (the reposts skip it).
 * - The loans' ids are reserved together, so each loan is inserted with its account number (no second statement).
 * - The borrowers' customer-wide disbursement holds, and which of the chunk's funding and payment refs are already
 *   stored, are read once: a loan created in the chunk then neither locks its borrower for its funding's hold check
 *   nor looks up refs that are not stored (a ref taken meanwhile by another loan still conflicts at its insert and
 *   is answered as before, from the row that holds it).
 * - Append-only rows (outbox events, customer history, the fundings' reconciliation items) are held in buffers and written by `flushLoanChunk` as ONE
 *   multi-row statement each, before the transaction commits; what a loan whose savepoint rolled back added is
 *   dropped (`savepointMark` / `rollbackToMark`), so a refused loan leaves no event and no history behind.
 */

import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { restrictionInForce } from '../../db/queries/customers/restrictions';
import { insertJsonRows } from '../../db/queries/json-rows';
import {
  type CloseOfBusinessRange,
  type LoanTagContext,
  readBucketRangesForTag,
} from '../../db/queries/lending/close-of-business';
import { storedDelinquencySettingsOf, tenantToday } from '../../db/queries/lending/delinquency';
import { readLoanChargeDefinitions } from '../../db/queries/lending/loans';
import { type ProductForLoan, readProductForLoan } from '../../db/queries/lending/products';
import { fundings, payments, reconciliationItems, restrictions } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { CustomerHistoryBuffer, flushCustomerWrites, lockCustomers } from '../customers/records';
import { type BufferMark, OutboxBuffer } from '../platform/outbox';
import { ensureChartOfAccounts, type RepostDeferredWrites, writeDeferredRepostWrites } from './repost-loan';

/** The shared reads, locks and write buffers of one chunk of loans in one transaction (module note). */
export interface LoanChunk {
  tenantId: string;
  /** The tenant's calendar date (ISO) at the transaction's instant. */
  today: string;
  /** Borrowers (customer ids) locked `FOR UPDATE` by this transaction: the tenant's only. */
  lockedBorrowers: ReadonlySet<number>;
  /** The tenant's default chart of accounts exists (ensured in this transaction). */
  chartReady: true;
  /** `readProductForLoan`, read once per product in this transaction. */
  productOf(tx: Tx, productId: number): Promise<ProductForLoan | null>;
  /** `readLoanChargeDefinitions`, read once per set of charge ids in this transaction. */
  chargeDefinitionsOf(tx: Tx, chargeIds: readonly number[]): ReturnType<typeof readLoanChargeDefinitions>;
  /**
   * The borrowers' customer-wide DISBURSEMENT_HOLDs in force at the transaction's instant (ids, by customer id; a
   * borrower without one is absent). A loan created in this transaction can have no loan-level hold, and its locked
   * borrower no new one, so these are the holds its funding checks.
   */
  disbursementHolds: ReadonlyMap<number, number[]>;
  /** Of the chunk's funding and payment `externalRecordRef`s, those already stored (for any loan of the tenant). */
  storedFundingRefs: ReadonlySet<string>;
  storedPaymentRefs: ReadonlySet<string>;
  outbox: OutboxBuffer;
  history: CustomerHistoryBuffer;
  /**
   * A loan id reserved for the chunk (from the `loans` identity, one statement for the chunk), so that a loan is
   * inserted with its account number at once; undefined once they are used up (the loan then takes its id from the
   * insert and its account number in a second statement, as alone).
   */
  takeLoanId(): number | undefined;
  /** `reconciliation_items` rows of the new fundings, inserted at the flush (`ON CONFLICT DO NOTHING`). */
  reconciliation: (typeof reconciliationItems.$inferInsert)[];
  /**
   * The delinquency tag context (`readLoanTagContext`'s answer) of a loan created in this transaction with stored
   * `terms`: its settings from the terms, no tag, no delinquency action, and its bucket's ranges, read once per
   * bucket in this transaction.
   */
  tagContextOf(tx: Tx, terms: Record<string, unknown>): Promise<LoanTagContext>;
  /**
   * What the approvals and reposts of the chunk's new loans left to write (repost-loan.ts `deferWrites`: the
   * approvals' loan columns, installment states, payment allocations, journal lines, the loans' status and first
   * funding date), written by `flushLoanChunk`.
   */
  reposts: RepostDeferredWrites;
}

/** A position in a chunk's buffers, taken before a loan's savepoint (`savepointMark`). */
export interface LoanChunkMark {
  outbox: BufferMark;
  history: BufferMark;
  reconciliation: number;
  reposts: { installments: number; allocations: number; journal: number; loans: number; approvals: number };
}

/** What the chunk's loans will record, known before they board (the refs of their fundings and payments). */
export interface LoanChunkRefs {
  fundingRefs: readonly string[];
  paymentRefs: readonly string[];
  /** How many loans the chunk creates at most (loan ids reserved for them). */
  loans?: number;
}

/**
 * Opens the chunk in `tx` (the tenant's transaction, instant `now`): reads the tenant's date, locks `borrowerIds`
 * (in id order, skipping ids that are not the tenant's), ensures the chart of accounts, reads the borrowers'
 * customer-wide disbursement holds and which of `refs` are already stored, and reserves `refs.loans` loan ids:
 * seven statements at most. Errors: those of
 * PostgreSQL (the caller's transaction fails).
 */
export async function openLoanChunk(
  tx: Tx,
  tenantId: string,
  now: Date,
  borrowerIds: readonly number[],
  refs: LoanChunkRefs = { fundingRefs: [], paymentRefs: [] },
): Promise<LoanChunk> {
  const today = await tenantToday(tx, tenantId, now);
  const locked = await lockCustomers(tx, tenantId, borrowerIds);
  const holds = new Map<number, number[]>();
  if (locked.length > 0) {
    const rows = await tx
      .select({ id: restrictions.id, customerId: restrictions.customerId })
      .from(restrictions)
      .where(
        and(
          eq(restrictions.tenantId, tenantId),
          inArray(restrictions.customerId, locked),
          restrictionInForce(now),
          eq(restrictions.restrictionType, 'DISBURSEMENT_HOLD'),
          isNull(restrictions.loanId),
        ),
      )
      .orderBy(restrictions.effectiveAt, restrictions.id);
    for (const row of rows) holds.set(row.customerId, [...(holds.get(row.customerId) ?? []), row.id]);
  }
  const fundingRefs = [...new Set(refs.fundingRefs)];
  const paymentRefs = [...new Set(refs.paymentRefs)];
  const storedFundingRefs = await storedRefs(tx, fundings, tenantId, fundingRefs);
  const storedPaymentRefs = await storedRefs(tx, payments, tenantId, paymentRefs);
  await ensureChartOfAccounts(tx, tenantId);
  const reserved =
    (refs.loans ?? 0) > 0
      ? (
          await tx.execute<{ id: string }>(
            sql`select nextval(pg_get_serial_sequence('loans', 'id'))::text as id from generate_series(1, ${refs.loans}::int)`,
          )
        ).map((row) => Number(row.id))
      : [];
  const products = new Map<number, Promise<ProductForLoan | null>>();
  const definitions = new Map<string, ReturnType<typeof readLoanChargeDefinitions>>();
  const bucketRanges = new Map<number, Promise<CloseOfBusinessRange[]>>();
  return {
    tenantId,
    today,
    lockedBorrowers: new Set(locked),
    chartReady: true,
    productOf: (reader, productId) => {
      let product = products.get(productId);
      if (!product) {
        product = readProductForLoan(reader, tenantId, productId);
        products.set(productId, product);
      }
      return product;
    },
    chargeDefinitionsOf: (reader, chargeIds) => {
      const key = [...new Set(chargeIds)].sort((a, b) => a - b).join(',');
      let found = definitions.get(key);
      if (!found) {
        found = readLoanChargeDefinitions(reader, tenantId, chargeIds);
        definitions.set(key, found);
      }
      return found;
    },
    disbursementHolds: holds,
    storedFundingRefs,
    storedPaymentRefs,
    outbox: new OutboxBuffer(),
    history: new CustomerHistoryBuffer(),
    reconciliation: [],
    takeLoanId: () => reserved.shift(),
    reposts: { installments: [], allocations: [], journal: [], loans: [], approvals: [] },
    tagContextOf: async (reader, terms) => {
      const delinquency =
        terms.delinquency === undefined ? null : (terms.delinquency as Record<string, unknown> | null);
      const { delinquencyBucketId } = storedDelinquencySettingsOf(
        delinquency === null ? null : { delinquency },
      );
      let ranges: Promise<CloseOfBusinessRange[]> = Promise.resolve([]);
      if (delinquencyBucketId !== null) {
        const cached = bucketRanges.get(delinquencyBucketId);
        ranges = cached ?? readBucketRangesForTag(reader, tenantId, delinquencyBucketId);
        if (!cached) bucketRanges.set(delinquencyBucketId, ranges);
      }
      return {
        delinquency,
        delinquencyRangeId: null,
        storedClassification: null,
        ranges: await ranges,
        actions: [],
      };
    },
  };
}

/**
 * Which of `refs` are an `external_record_ref` of `table` (fundings or payments) for the tenant: one statement, an
 * index probe per ref (`cross join lateral` on the unique (tenant, external_record_ref) index). Not `ref IN (…)`:
 * while boarding fills the table faster than autovacuum analyzes it, the planner's stale distinct count makes a
 * list of a few hundred refs look like a large part of the table and it scans the table instead (30 ms a chunk
 * at 50,000 payments, growing with them), where a probe per ref is planned from the unique index alone.
 */
async function storedRefs(
  tx: Tx,
  table: typeof fundings | typeof payments,
  tenantId: string,
  refs: readonly string[],
): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const rows = await tx.execute<{ ref: string }>(sql`
    select t.external_record_ref as ref
      from jsonb_array_elements_text(${JSON.stringify(refs)}::jsonb) as r(ref)
      cross join lateral (
        select external_record_ref from ${table}
         where tenant_id = ${tenantId} and external_record_ref = r.ref
      ) t`);
  return new Set(rows.map((row) => row.ref));
}

/** Where the chunk's buffers stand now; `rollbackToMark` drops what is added after it. */
export function savepointMark(chunk: LoanChunk): LoanChunkMark {
  return {
    outbox: chunk.outbox.mark(),
    history: chunk.history.mark(),
    reconciliation: chunk.reconciliation.length,
    reposts: {
      installments: chunk.reposts.installments.length,
      allocations: chunk.reposts.allocations.length,
      journal: chunk.reposts.journal.length,
      loans: chunk.reposts.loans.length,
      approvals: chunk.reposts.approvals.length,
    },
  };
}

/** Drops what the buffers got after `mark` (its savepoint rolled back). */
export function rollbackToMark(chunk: LoanChunk, mark: LoanChunkMark): void {
  chunk.outbox.truncate(mark.outbox);
  chunk.history.truncate(mark.history);
  chunk.reconciliation.length = mark.reconciliation;
  chunk.reposts.installments.length = mark.reposts.installments;
  chunk.reposts.allocations.length = mark.reposts.allocations;
  chunk.reposts.journal.length = mark.reposts.journal;
  chunk.reposts.loans.length = mark.reposts.loans;
  chunk.reposts.approvals.length = mark.reposts.approvals;
}

/**
 * Writes the history entries and events held so far (one statement each), in the middle of a loan: before a write
 * of the transaction that appends an event or a history entry directly (a delinquency tag change), so that the
 * loan's events keep their order. A savepoint rolled back afterwards takes them back (`rollbackToMark`).
 */
export async function flushLoanChunkEvents(tx: Tx, chunk: LoanChunk): Promise<void> {
  await flushCustomerWrites(tx, chunk);
}

/**
 * Writes the buffered history, reconciliation items, reposts' writes (repost-loan.ts `writeDeferredRepostWrites`)
 * and events (one statement each), before the chunk's transaction commits.
 */
export async function flushLoanChunk(tx: Tx, chunk: LoanChunk): Promise<void> {
  await writeDeferredRepostWrites(tx, chunk.tenantId, chunk.reposts);
  await chunk.history.flush(tx);
  const items = chunk.reconciliation.splice(0);
  await insertJsonRows(tx, reconciliationItems, items, {
    onConflictDoNothing: {
      target: [reconciliationItems.tenantId, reconciliationItems.targetType, reconciliationItems.targetId],
    },
  });
  await chunk.outbox.flush(tx);
}
