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
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgTransactionConfig } from 'drizzle-orm/pg-core';
import type { Db } from './client';
import { isRetryableTransactionError } from './errors';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either the pool or an open transaction; read queries take this. */
export type DbExecutor = Db | Tx;

/**
 * Runs `fn` in one transaction scoped to `tenantId`. `config` states the isolation level
 * where the outcome depends on it (default READ COMMITTED).
 */
export async function withTenantTransaction<T>(
  db: Db,
  tenantId: string,
  fn: (tx: Tx) => Promise<T>,
  config?: PgTransactionConfig,
): Promise<T> {
  return retryingTransaction(() =>
    db.transaction(async (tx) => {
      await tx.execute(
        sql`select set_config('role', 'lending_app', true), set_config('app.tenant_id', ${tenantId}, true)`,
      );
      return fn(tx);
    }, config),
  );
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
  const { sql: text, params } = dialect.sqlToQuery(query);
  const reserved = await db.$client.reserve();
  try {
    const statements = [
      reserved.unsafe('begin read only'),
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
