/**
 * The one place that opens transactions (STYLE §5). Every tenant transaction switches to the
 * non-owner role `lending_app` and sets `app.tenant_id`, both transaction-local, in one round
 * trip, so the row-level security policies (db/schema/columns.ts) confine it to one tenant: a
 * query that forgets its tenant filter sees nothing of other tenants (DESIGN §3).
 *
 * A transaction that fails with a serialization failure (SQLSTATE 40001) or a deadlock (40P01) is rolled back
 * and run again from the start, at most `transactionRetryLimit` more times, after a jittered exponential
 * backoff (DESIGN-processes P0 "Failure answers"; PostgreSQL manual §13.4 "Serialization Failure Handling":
 * "retry the whole transaction from the beginning"). `fn` must therefore do nothing outside the transaction
 * that a rerun would repeat harmfully. The last error surfaces unchanged once the bound is reached.
 */
import { sql } from 'drizzle-orm';
import type { PgTransactionConfig } from 'drizzle-orm/pg-core';
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
