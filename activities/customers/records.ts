/**
 * Helpers shared by the customer operations, always called inside the caller's transaction:
 * locking the aggregate's root row, and appending to the customer's append-only history while
 * bumping the root's `updated_at` (docs/design.md §3: history is append-only; docs/design.md §4 Paging: customer
 * lists are newest-modified first).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { customerHistory, customers } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { BufferMark, OutboxBuffer } from '../platform/outbox';

/**
 * Locks the customer row `FOR UPDATE` for the rest of the transaction, serializing every change
 * of the aggregate (and any guarded command holding it `FOR SHARE`, see restrictions.ts).
 * Throws 404 `error.msg.resource.not.found` when the customer is not the tenant's.
 */
export async function lockCustomer(tx: Tx, tenantId: string, customerId: number): Promise<void> {
  const [row] = await tx
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.tenantId, tenantId), eq(customers.id, customerId)))
    .for('update');
  if (!row) throw notFound('Customer', customerId);
}

/**
 * Locks the rows of the tenant's customers `customerIds` `FOR UPDATE` in one statement, in id order, so that
 * transactions locking several customers this way never wait for each other in a cycle (portfolio boarding locks
 * the borrowers of a chunk's loans before boarding them together). Ids that are not the tenant's are skipped; answers
 * the ids locked.
 */
export async function lockCustomers(
  tx: Tx,
  tenantId: string,
  customerIds: readonly number[],
): Promise<number[]> {
  if (customerIds.length === 0) return [];
  const rows = await tx
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.tenantId, tenantId), inArray(customers.id, [...new Set(customerIds)])))
    .orderBy(asc(customers.id))
    .for('update');
  return rows.map((row) => row.id);
}

/** What a caller's transaction already holds, for an operation run inside it (`…InTx`). */
export interface CustomerTxHeld {
  /** The transaction already holds the customer's row lock (`lockCustomer`, or it inserted the row itself). */
  customerLocked?: boolean;
  /** Hold the history entries and events back in these buffers (`CustomerWriteBuffers`) instead of writing them. */
  buffers?: CustomerWriteBuffers;
}

/**
 * Where a transaction that writes many customers (a boarding chunk of customer lines) holds their history entries
 * and events, to write them as one multi-row statement each before it commits (`flushCustomerWrites`); a portfolio
 * boarding's `LoanChunk` has the same two buffers.
 */
export interface CustomerWriteBuffers {
  history: CustomerHistoryBuffer;
  outbox: OutboxBuffer;
}

/** Writes what `buffers` hold: the history entries (bumping their customers' `updated_at`), then the events. */
export async function flushCustomerWrites(tx: Tx, buffers: CustomerWriteBuffers): Promise<void> {
  await buffers.history.flush(tx);
  await buffers.outbox.flush(tx);
}

export interface CustomerChange {
  tenantId: string;
  customerId: number;
  /** e.g. CUSTOMER_CREATED, IDENTIFIER_ADDED, RESTRICTION_RELEASED. */
  action: string;
  /** What changed; never a full identifier value (masks only). */
  detail: Record<string, unknown>;
  actor?: string | null;
  correlationId?: string | null;
  occurredAt: Date;
}

/**
 * Appends one history entry and sets the customer's `updated_at` to `occurredAt`, in ONE statement (a data-modifying
 * CTE: one round trip instead of two; the row is not rewritten when `updated_at` already is `occurredAt`, e.g. for
 * the items of a customer boarded in one transaction at one instant). Call it only when the change really happened
 * in this transaction (a replay writes nothing), which is what keeps the history free of duplicates without a dedupe
 * key.
 */
export async function recordCustomerChange(
  tx: Tx,
  change: CustomerChange,
  deferTo?: CustomerHistoryBuffer,
): Promise<void> {
  if (deferTo) {
    deferTo.changes.push(change);
    return;
  }
  const occurredAt = change.occurredAt.toISOString();
  await tx.execute(sql`
    with history as (
      insert into ${customerHistory}
        (tenant_id, customer_id, action, detail, actor_username, correlation_id, occurred_at)
      values (${change.tenantId}, ${change.customerId}, ${change.action}, ${JSON.stringify(change.detail)}::jsonb,
        ${change.actor ?? null}, ${change.correlationId ?? null}, ${occurredAt}::timestamptz)
    )
    update ${customers} set updated_at = ${occurredAt}::timestamptz
    where tenant_id = ${change.tenantId} and id = ${change.customerId}
      and updated_at is distinct from ${occurredAt}::timestamptz`);
}

/**
 * History entries held back to be appended together at the end of the caller's transaction (`flush`: ONE statement
 * for any number of entries, in the order they were added, each customer's `updated_at` set to the latest
 * `occurredAt` of its entries, as `recordCustomerChange` one by one leaves it): portfolio boarding appends the history
 * of a whole chunk of loans this way (activities/lending/loan-chunk.ts). `flush` may run more than once (it writes
 * what is not written yet); `mark` and `truncate` undo what a rolled-back savepoint added or wrote.
 */
export class CustomerHistoryBuffer {
  readonly changes: CustomerChange[] = [];
  /** How many of `changes` are written. */
  private written = 0;
  /** Where the buffer stands (a position for `truncate`). */
  mark(): BufferMark {
    return { held: this.changes.length, written: this.written };
  }
  /** Back to `mark` after its savepoint rolled back (as `OutboxBuffer.truncate`). */
  truncate(mark: BufferMark): void {
    this.changes.length = mark.held;
    this.written = Math.min(this.written, mark.written);
  }
  /** Appends the entries not yet written and bumps their customers' `updated_at`, in one statement. */
  async flush(tx: Tx): Promise<void> {
    const changes = this.changes.slice(this.written);
    this.written = this.changes.length;
    if (changes.length === 0) return;
    const tenantIds = new Set(changes.map((c) => c.tenantId));
    if (tenantIds.size !== 1) throw new Error('a customer history buffer holds the entries of one tenant');
    const tenantId = changes[0]!.tenantId;
    const payload = JSON.stringify(
      changes.map((c, i) => ({
        ord: i,
        customer_id: c.customerId,
        action: c.action,
        detail: c.detail,
        actor_username: c.actor ?? null,
        correlation_id: c.correlationId ?? null,
        occurred_at: c.occurredAt.toISOString(),
      })),
    );
    await tx.execute(sql`
      with rows as (
        select * from jsonb_to_recordset(${payload}::jsonb) as r(ord int, customer_id bigint, action text,
          detail jsonb, actor_username text, correlation_id text, occurred_at timestamptz)
      ), history as (
        insert into ${customerHistory}
          (tenant_id, customer_id, action, detail, actor_username, correlation_id, occurred_at)
        select ${tenantId}, customer_id, action, detail, actor_username, correlation_id, occurred_at
          from rows order by ord
      ), latest as (
        select customer_id, max(occurred_at) as at from rows group by customer_id
      )
      update ${customers} c set updated_at = latest.at from latest
      where c.tenant_id = ${tenantId} and c.id = latest.customer_id and c.updated_at is distinct from latest.at`);
  }
}
