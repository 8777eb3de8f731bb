/** Tenant settings read inside an operation's transaction (the `tenants` row carries no row-level security). */
import { eq } from 'drizzle-orm';
import {
  defaultMakerCheckerPolicy,
  isMakerCheckerPolicy,
  type MakerCheckerPolicy,
} from '../../../domain/maker-checker';
import { tenants } from '../../schema';
import type { Tx } from '../../tenant-tx';

/**
 * The tenant's maker-checker policy (domain/maker-checker.ts; `tenants.maker_checker_policy`, set with
 * `npm run admin -- tenants settings --maker-checker <policy>`), `distinct-client` when the tenant has none.
 */
export async function tenantMakerCheckerPolicy(tx: Tx, tenantId: string): Promise<MakerCheckerPolicy> {
  const [row] = await tx
    .select({ policy: tenants.makerCheckerPolicy })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row && isMakerCheckerPolicy(row.policy) ? row.policy : defaultMakerCheckerPolicy;
}
