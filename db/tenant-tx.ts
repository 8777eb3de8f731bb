/**
 * The one place that opens transactions (STYLE §5). Every tenant transaction switches to the
 * non-owner role `lending_app` and sets `app.tenant_id`, both transaction-local, in one round
 * trip, so the row-level security policies (db/schema/columns.ts) confine it to one tenant: a
 * query that forgets its tenant filter sees nothing of other tenants (DESIGN §3).
 */
import { sql } from 'drizzle-orm';
import type { PgTransactionConfig } from 'drizzle-orm/pg-core';
import type { Db } from './client';

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
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select set_config('role', 'lending_app', true), set_config('app.tenant_id', ${tenantId}, true)`,
    );
    return fn(tx);
  }, config);
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
  return db.transaction(fn, config);
}
