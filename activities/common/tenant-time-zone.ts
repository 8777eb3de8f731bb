/**
 * The tenant's compliance time zone (docs/design.md §5 "Deadlines": IANA zone of the `tenants` platform table, no RLS), read
 * through the operation's own transaction: asking the pool for a second connection while holding one wedges the
 * pool under load (docs/processes.md P0 "Known defect"). A tenant without one (or unknown) gets
 * `defaultComplianceTimeZone` (domain/deadlines.ts). Used by the operations that fix dates at intake (privacy
 * requests' statutory deadline, promises' watch window).
 */
import { eq } from 'drizzle-orm';
import { tenants } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { defaultComplianceTimeZone } from '../../domain/deadlines';

/** IANA time zone name, e.g. `America/Los_Angeles`. */
export async function tenantComplianceTimeZone(tx: Tx, tenantId: string): Promise<string> {
  const [row] = await tx
    .select({ zone: tenants.complianceTimeZone })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row?.zone ?? defaultComplianceTimeZone;
}
