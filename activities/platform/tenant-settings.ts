/**
 * Reads, and when given changes, a tenant's settings (admin CLI; spec § Authentication 10): `tenantSettings`.
 */

import { eq } from 'drizzle-orm';
import { tenants } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { notFound, validationError } from '../../domain/errors';
import {
  isMakerCheckerPolicy,
  type MakerCheckerPolicy,
  makerCheckerPolicies,
} from '../../domain/maker-checker';
import type { Deps } from '../deps';

/** A tenant's settings as `tenants settings` shows them. */
export interface TenantSettings {
  tenantId: string;
  /** domain/maker-checker.ts: `distinct-client` (default) or `same-client-distinct-actor`. */
  makerCheckerPolicy: MakerCheckerPolicy;
}

/**
 * Reads a tenant's settings and, when given, changes them first: `makerCheckerPolicy` (spec § Authentication 10; the
 * policy every maker-checker decision of the tenant is taken under from the next decision on, and recorded in it).
 * Errors: 400 naming `makerCheckerPolicy` for an unknown policy; 404 when the tenant does not exist.
 */
export function tenantSettings(deps: Deps) {
  return async (input: { tenantId: string; makerCheckerPolicy?: string }): Promise<TenantSettings> => {
    const policy = input.makerCheckerPolicy;
    if (policy !== undefined && !isMakerCheckerPolicy(policy)) {
      throw validationError(
        'makerCheckerPolicy',
        policy,
        `The maker-checker policy is one of ${makerCheckerPolicies.join(', ')}.`,
      );
    }
    const [row] = await withPlatformTransaction(deps.db, (tx) =>
      policy === undefined
        ? tx
            .select({ tenantId: tenants.id, makerCheckerPolicy: tenants.makerCheckerPolicy })
            .from(tenants)
            .where(eq(tenants.id, input.tenantId))
        : tx
            .update(tenants)
            .set({ makerCheckerPolicy: policy })
            .where(eq(tenants.id, input.tenantId))
            .returning({ tenantId: tenants.id, makerCheckerPolicy: tenants.makerCheckerPolicy }),
    );
    if (!row) throw notFound('Tenant', input.tenantId);
    return row;
  };
}
