/**
 * The tenants the daily reconciliation compares (docs/processes.md P1 "Reconciliation exceptions"): a read; the
 * workflow (workflows/payments/daily-reconciliation/) compares each with `reconcileRailSettlements`.
 */
import { isNotNull } from 'drizzle-orm';
import { payments } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';

/**
 * The tenants the daily reconciliation compares: every tenant with at least one payment intent (a `payments` row
 * with a rail), sorted. A cross-tenant read (`withPlatformTransaction`, read only), one of the few sweeps that
 * must see every tenant (db/tenant-tx.ts); it returns ids only. Errors: none of its own (database errors are
 * transient and retried).
 */
export function listTenantsWithPaymentIntents(deps: Deps) {
  return async (): Promise<string[]> => {
    const rows = await withPlatformTransaction(
      deps.db,
      (tx) =>
        tx
          .selectDistinct({ tenantId: payments.tenantId })
          .from(payments)
          .where(isNotNull(payments.rail))
          .orderBy(payments.tenantId),
      { accessMode: 'read only' },
    );
    return rows.map((row) => row.tenantId);
  };
}
