/**
 * Creates a tenant if absent, with the case types every new tenant starts with (admin CLI; docs/design.md §4 Tokens):
 * `ensureTenant`, and `defaultCaseTypes`.
 */

import { caseTypes, tenants } from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import type { Deps } from '../deps';

/** Case types every new tenant starts with. */
export const defaultCaseTypes = [
  { code: 'GENERAL', displayName: 'General' },
  { code: 'PRIVACY', displayName: 'Privacy request' },
  { code: 'HARDSHIP', displayName: 'Hardship assistance' },
  { code: 'COMPLAINT', displayName: 'Complaint' },
] as const;

const tenantPattern = /^[a-z0-9-]{1,64}$/;

/**
 * Creates the tenant with its default case types when missing (repeatable).
 * Errors: 400 when the id is not `^[a-z0-9-]{1,64}$`.
 */
export function ensureTenant(deps: Deps) {
  return async (input: {
    tenantId: string;
    displayName?: string;
  }): Promise<{ tenantId: string; created: boolean }> => {
    if (!tenantPattern.test(input.tenantId)) {
      throw validationError(
        'tenant',
        input.tenantId,
        'A tenant id is 1 to 64 lowercase letters, digits or hyphens.',
      );
    }
    const inserted = await withPlatformTransaction(deps.db, (tx) =>
      tx
        .insert(tenants)
        .values({ id: input.tenantId, displayName: input.displayName ?? input.tenantId })
        .onConflictDoNothing()
        .returning({ id: tenants.id }),
    );
    await withTenantTransaction(deps.db, input.tenantId, (tx) =>
      tx
        .insert(caseTypes)
        .values(defaultCaseTypes.map((t) => ({ tenantId: input.tenantId, ...t })))
        .onConflictDoNothing(),
    );
    return { tenantId: input.tenantId, created: inserted.length > 0 };
  };
}
