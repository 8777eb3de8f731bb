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
 * - Append-only rows (outbox events, customer history) are held in buffers and written by `flushLoanChunk` as ONE
 *   multi-row statement each, before the transaction commits; what a loan whose savepoint rolled back added is
 *   dropped (`savepointMark` / `rollbackToMark`), so a refused loan leaves no event and no history behind.
 */

import { tenantToday } from '../../db/queries/lending/delinquency';
import { readLoanChargeDefinitions } from '../../db/queries/lending/loans';
import { type ProductForLoan, readProductForLoan } from '../../db/queries/lending/products';
import { glAccounts } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { defaultChartOfAccounts } from '../../domain/lending/ledger';
import { CustomerHistoryBuffer, lockCustomers } from '../customers/records';
import { OutboxBuffer } from '../platform/outbox';

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
  outbox: OutboxBuffer;
  history: CustomerHistoryBuffer;
}

/** A position in a chunk's buffers, taken before a loan's savepoint (`savepointMark`). */
export interface LoanChunkMark {
  outbox: number;
  history: number;
}

/**
 * Opens the chunk in `tx` (the tenant's transaction, instant `now`): reads the tenant's date, locks `borrowerIds`
 * (in id order, skipping ids that are not the tenant's) and ensures the chart of accounts: three statements. Errors:
 * those of PostgreSQL (the caller's transaction fails).
 */
export async function openLoanChunk(
  tx: Tx,
  tenantId: string,
  now: Date,
  borrowerIds: readonly number[],
): Promise<LoanChunk> {
  const today = await tenantToday(tx, tenantId, now);
  const locked = await lockCustomers(tx, tenantId, borrowerIds);
  await tx
    .insert(glAccounts)
    .values(
      defaultChartOfAccounts.map((account) => ({
        tenantId,
        code: account.code,
        name: account.name,
        accountType: account.accountType,
      })),
    )
    .onConflictDoNothing({ target: [glAccounts.tenantId, glAccounts.code] });
  const products = new Map<number, Promise<ProductForLoan | null>>();
  const definitions = new Map<string, ReturnType<typeof readLoanChargeDefinitions>>();
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
    outbox: new OutboxBuffer(),
    history: new CustomerHistoryBuffer(),
  };
}

/** Where the chunk's buffers stand now; `rollbackToMark` drops what is added after it. */
export function savepointMark(chunk: LoanChunk): LoanChunkMark {
  return { outbox: chunk.outbox.mark(), history: chunk.history.mark() };
}

/** Drops what the buffers got after `mark` (its savepoint rolled back). */
export function rollbackToMark(chunk: LoanChunk, mark: LoanChunkMark): void {
  chunk.outbox.truncate(mark.outbox);
  chunk.history.truncate(mark.history);
}

/** Writes the buffered history and events (one statement each), before the chunk's transaction commits. */
export async function flushLoanChunk(tx: Tx, chunk: LoanChunk): Promise<void> {
  await chunk.history.flush(tx);
  await chunk.outbox.flush(tx);
}
