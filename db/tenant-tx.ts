/**
 * The one place that opens transactions (docs/conventions.md §5). Every tenant transaction switches to the
 * non-owner role `lending_app` and sets `app.tenant_id`, both transaction-local, in one round
 * trip, so the row-level security policies (db/schema/columns.ts) confine it to one tenant: a
 * query that forgets its tenant filter sees nothing of other tenants (docs/design.md §3).
 *
 * A transaction that fails with a serialization failure (SQLSTATE 40001) or a deadlock (40P01) is rolled back
 * and run again from the start, at most `transactionRetryLimit` more times, after a jittered exponential
 * backoff (docs/processes.md P0 "Failure answers"; PostgreSQL manual §13.4 "Serialization Failure Handling":
 * "retry the whole transaction from the beginning"). `fn` must therefore do nothing outside the transaction
 * that a rerun would repeat harmfully. The last error surfaces unchanged once the bound is reached.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgTransactionConfig } from 'drizzle-orm/pg-core';
import type { Db } from './client';
import { isRetryableTransactionError } from './errors';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either the pool or an open transaction; read queries take this. */
export type DbExecutor = Db | Tx;

/**
 * A write that must commit together with the first tenant transaction of the work it is attached to
 * (`withFirstWrite`), or not at all: the API's idempotency claim (api/middleware/idempotency.ts), which thereby costs
 * one statement of the operation's own transaction instead of a transaction of its own. `run` is issued right after
 * the transaction's role and tenant context and may throw to refuse the work (the transaction then rolls back and
 * the error surfaces from `withTenantTransaction`). `committed` turns true once a transaction that ran it committed;
 * later transactions of the same work do not run it again.
 */
export interface FirstWrite {
  /** The tenant whose first transaction carries the write; transactions of other tenants leave it alone. */
  tenantId: string;
  run(tx: Tx): Promise<void>;
  committed: boolean;
}

const firstWrites = new AsyncLocalStorage<FirstWrite>();
/** First writes whose transaction is open: a transaction opened meanwhile (never nested in practice) leaves them alone. */
const carried = new WeakSet<FirstWrite>();
/** First writes whose work has settled: never run after that, whatever async context still holds them. */
const settled = new WeakSet<FirstWrite>();

/**
 * Runs `work` with `write` attached: the first `withTenantTransaction` of `write.tenantId` that `work` opens (in its
 * async context) issues `write.run(tx)` as its first statement after the tenant context, and marks the write
 * committed when it commits. Resolves or rejects as `work` does; whether the write committed is `write.committed`
 * afterwards (false when `work` opened no such transaction or every one rolled back).
 */
export async function withFirstWrite<T>(write: FirstWrite, work: () => Promise<T>): Promise<T> {
  try {
    return await firstWrites.run(write, work);
  } finally {
    // Work started meanwhile that outlives it (a timer a request armed) never carries the write.
    settled.add(write);
  }
}

/**
 * Runs `fn` in one transaction scoped to `tenantId`. `config` states the isolation level
 * where the outcome depends on it (default READ COMMITTED). A pending first write (`withFirstWrite`) of the same
 * tenant runs first, pipelined with the tenant context (one round trip), and commits or rolls back with `fn`'s work.
 */
export async function withTenantTransaction<T>(
  db: Db,
  tenantId: string,
  fn: (tx: Tx) => Promise<T>,
  config?: PgTransactionConfig,
): Promise<T> {
  const pending = firstWrites.getStore();
  const first =
    pending &&
    !pending.committed &&
    pending.tenantId === tenantId &&
    !carried.has(pending) &&
    !settled.has(pending)
      ? pending
      : undefined;
  if (first) carried.add(first);
  try {
    const result = await retryingTransaction(() =>
      db.transaction(async (tx) => {
        const context = tx.execute(
          sql`select set_config('role', 'lending_app', true), set_config('app.tenant_id', ${tenantId}, true)`,
        );
        if (first) await Promise.all([context, first.run(tx)]);
        else await context;
        return fn(tx);
      }, config),
    );
    if (first) first.committed = true;
    return result;
  } finally {
    if (first) carried.delete(first);
  }
}

// The same casing as db/client.ts, so schema columns inside `query` render as their snake_case names.
const dialect = new PgDialect({ casing: 'snake_case' });

/**
 * Runs one read-only statement `query` (raw drizzle `sql`, no schema-typed builder) for `tenantId` in ONE round
 * trip to PostgreSQL: `BEGIN READ ONLY`, the same transaction-local role switch and `app.tenant_id` as
 * `withTenantTransaction`, the statement (a named prepared statement, parsed once per connection) and `COMMIT`,
 * written together on one reserved pooled connection (postgres.js pipelines statements issued in the same tick)
 * instead of four sequential round trips. The rules are unchanged: row-level security confines the statement to
 * the tenant, and if the context statement fails the transaction is aborted, so the read never runs without it
 * (PostgreSQL answers 25P02 and `COMMIT` becomes a rollback). Returns the rows as postgres.js gives them
 * (column names as written in the query). Errors: the first failing statement's error; the connection is
 * rolled back and returned to the pool either way.
 */
export async function readAsTenant<Row extends Record<string, unknown>>(
  db: Db,
  tenantId: string,
  query: SQL,
): Promise<Row[]> {
  return oneStatementAsTenant<Row>(db, tenantId, query, 'begin read only');
}

/**
 * `readAsTenant` for ONE write statement (`query`: raw `sql`, or a Drizzle builder such as `db.update(…)…`, never
 * executed itself): `BEGIN`, the tenant context, the statement and `COMMIT` in one round trip, under the same
 * row-level security as `withTenantTransaction`. For a write that is a whole transaction by itself and needs no
 * retry on serialization failure (READ COMMITTED, one statement). Returns the rows it returns (with `RETURNING`).
 * Errors: the first failing statement's error (nothing is written then).
 */
export async function writeAsTenant<Row extends Record<string, unknown>>(
  db: Db,
  tenantId: string,
  query: SQL | { getSQL(): SQL },
): Promise<Row[]> {
  return oneStatementAsTenant<Row>(db, tenantId, 'getSQL' in query ? query.getSQL() : query, 'begin');
}

async function oneStatementAsTenant<Row extends Record<string, unknown>>(
  db: Db,
  tenantId: string,
  query: SQL,
  begin: 'begin' | 'begin read only',
): Promise<Row[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const reserved = await db.$client.reserve();
  try {
    const statements = [
      reserved.unsafe(begin),
      reserved.unsafe(
        "select set_config('role', 'lending_app', true), set_config('app.tenant_id', $1, true)",
        [tenantId],
        { prepare: true },
      ),
      reserved.unsafe(text, params as never[], { prepare: true }),
      reserved.unsafe('commit'),
    ] as const;
    const [, , rows] = await Promise.all(statements);
    return rows as unknown as Row[];
  } catch (err) {
    await reserved.unsafe('rollback').catch(() => {});
    throw err;
  } finally {
    reserved.release();
  }
}

/**
 * A transaction without a tenant, as the connecting (owner) role: for platform tables (tenants,
 * clients, tokens) and the few cross-tenant sweeps that must see every tenant. Use sparingly.
 */
export async function withPlatformTransaction<T>(
  db: Db,
  fn: (tx: Tx) => Promise<T>,
  config?: PgTransactionConfig,
): Promise<T> {
  return retryingTransaction(() => db.transaction(fn, config));
}

/** How many times a transaction lost to a serialization failure or deadlock is run again (after the first run). */
export const transactionRetryLimit = 3;

/** Backoff before rerun `attempt` (1-based), milliseconds: full jitter over 10 ms · 2^(attempt−1) (AWS "Exponential Backoff And Jitter"). */
function backoffMs(attempt: number): number {
  return Math.random() * 10 * 2 ** (attempt - 1);
}

/** Runs `run` (one whole transaction) and reruns it on 40001/40P01, at most `transactionRetryLimit` times. */
async function retryingTransaction<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt > transactionRetryLimit || !isRetryableTransactionError(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    }
  }
}
