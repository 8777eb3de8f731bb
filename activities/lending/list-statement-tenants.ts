/**
 * The tenants the statement cycle visits (docs/design.md §5 "Statements"; docs/processes.md P6 "Statements").
 * Called by the statement cycle (workflows/lending/statement-cycle/), never by a route; also a Temporal activity.
 */
import { eq, sql } from 'drizzle-orm';
import { loanProducts, tenants } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { defaultComplianceTimeZone } from '../../domain/deadlines';
import type { Deps } from '../deps';

/** A tenant the statement cycle visits and the IANA zone its dates are in. */
export interface StatementTenant {
  tenantId: string;
  timeZone: string;
}

/**
 * The tenants with at least one product with `lmsConfig.statementEnabled`, sorted, with their compliance time zone
 * (default `America/Los_Angeles`). A cross-tenant read (`withPlatformTransaction`, read only), one of the sweeps that
 * must see every tenant (db/tenant-tx.ts); ids and zones only. Errors: none of its own.
 */
export function listStatementTenants(deps: Deps) {
  return async (): Promise<StatementTenant[]> => {
    const rows = await withPlatformTransaction(
      deps.db,
      (tx) =>
        tx
          .selectDistinct({ tenantId: loanProducts.tenantId, timeZone: tenants.complianceTimeZone })
          .from(loanProducts)
          .innerJoin(tenants, eq(tenants.id, loanProducts.tenantId))
          .where(sql`(${loanProducts.lmsConfig} ->> 'statementEnabled') = 'true'`)
          .orderBy(loanProducts.tenantId),
      { accessMode: 'read only' },
    );
    return rows.map((row) => ({
      tenantId: row.tenantId,
      timeZone: row.timeZone ?? defaultComplianceTimeZone,
    }));
  };
}
