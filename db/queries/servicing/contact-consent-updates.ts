/**
 * Read of contact-consent updates (docs/processes.md P4 "Contact-consent updates"), in a tenant-scoped read
 * transaction (row-level security confines it to `tenantId`).
 */
import { and, eq } from 'drizzle-orm';
import { permissionFieldOf } from '../../../domain/servicing/contact-consent';
import type { Db } from '../../client';
import { contactConsentUpdates } from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

/**
 * The update `updateId` recorded on case `caseId` as the API shows it, or null when the tenant has no such update on
 * that case. The permission is shown under its wire name (`canReceiveSms`, `canReceiveEmail` or `canReceiveVoice`) and
 * as `permission`; instants are ISO 8601 in UTC; the contact value is never part of it.
 */
export async function getContactConsentUpdate(db: Db, tenantId: string, caseId: number, updateId: number) {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(contactConsentUpdates)
      .where(
        and(
          eq(contactConsentUpdates.tenantId, tenantId),
          eq(contactConsentUpdates.caseId, caseId),
          eq(contactConsentUpdates.id, updateId),
        ),
      ),
  );
  if (!row) return null;
  return {
    updateId: row.id,
    resourceId: row.id,
    caseId: row.caseId,
    customerRef: row.customerRef,
    contactPointRef: row.contactPointRef,
    operation: row.operation,
    [permissionFieldOf[row.operation]]: row.permission,
    permission: row.permission,
    effectiveAt: row.effectiveAt.toISOString(),
    reason: row.reason,
    status: row.status,
    resolvedAt: row.resolvedAt ? row.resolvedAt.toISOString() : null,
    supersededBy: row.supersededBy,
    actorUsername: row.actorUsername,
    createdAt: row.createdAt.toISOString(),
  };
}
