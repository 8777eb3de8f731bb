/**
 * Applies a recorded contact-consent update when its process reaches it (docs/processes.md P4 "Contact-consent
 * updates"): `applyContactConsentUpdate` changes the contact point's consent, or marks the update SUPERSEDED when a
 * newer instruction exists, in one tenant transaction (docs/conventions.md §5), idempotent.
 */
import { and, eq } from 'drizzle-orm';
import { findCustomerByRef } from '../../db/queries/customers/customers';
import { contactConsentUpdates } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { ContactConsentUpdateOutcome } from '../../domain/servicing/contact-consent';
import type { Deps } from '../deps';
import { settle } from './contact-consent-settlement';

/**
 * Applies the SCHEDULED update `updateId` now that its `effectiveAt` has come (the step of
 * `contactConsentUpdateWorkflow`): COMPLETED when applied, SUPERSEDED when a newer instruction for the same contact
 * point and permission was applied first (domain/servicing/contact-consent.ts). Idempotent: an update already
 * COMPLETED or SUPERSEDED answers its status and changes nothing. A case closed meanwhile does not stop it (the
 * customer's instruction was accepted while it was open); its effect is still recorded on that case.
 * Errors: 404 when the update is not the tenant's.
 */
export function applyContactConsentUpdate(deps: Deps) {
  return async (input: { tenantId: string; updateId: number }): Promise<ContactConsentUpdateOutcome> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [peek] = await tx
        .select({ customerRef: contactConsentUpdates.customerRef })
        .from(contactConsentUpdates)
        .where(
          and(
            eq(contactConsentUpdates.tenantId, input.tenantId),
            eq(contactConsentUpdates.id, input.updateId),
          ),
        );
      if (!peek) throw notFound('Contact-consent update', input.updateId);
      // Lock order as at recording: the customer row first, then the update's own row.
      await findCustomerByRef(tx, input.tenantId, peek.customerRef, { lock: 'update' });
      const [row] = await tx
        .select()
        .from(contactConsentUpdates)
        .where(
          and(
            eq(contactConsentUpdates.tenantId, input.tenantId),
            eq(contactConsentUpdates.id, input.updateId),
          ),
        )
        .for('update');
      if (!row) throw notFound('Contact-consent update', input.updateId);
      if (row.status !== 'SCHEDULED') return { updateId: row.id, status: row.status };
      return { updateId: row.id, status: await settle(tx, row, deps.clock()) };
    });
}
