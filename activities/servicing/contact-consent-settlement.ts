/**
 * How a contact-consent update is settled (docs/processes.md P4 "Contact-consent updates"): `settle` applies it to
 * the contact point or marks it SUPERSEDED by a newer instruction, and `detailOf` is what its history entries and
 * effects say; shared by the operations that record and apply an update.
 */
import { and, desc, eq, gt } from 'drizzle-orm';
import { consents, contactConsentUpdates, contactPoints } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { type ContactConsentUpdateStatus, permissionFieldOf } from '../../domain/servicing/contact-consent';
import { recordCustomerChange } from '../customers/records';
import { writeOutboxEvent } from '../platform/outbox';
import { recordEffect } from './records';

type UpdateRow = typeof contactConsentUpdates.$inferSelect;

/** What history entries and effects say about an update: never the contact value itself. */
export function detailOf(row: UpdateRow): Record<string, unknown> {
  return {
    updateId: row.id,
    caseId: row.caseId,
    contactPointRef: row.contactPointRef,
    operation: row.operation,
    permission: row.permission,
    effectiveAt: row.effectiveAt.toISOString(),
    reason: row.reason,
  };
}

/**
 * The newer instruction that supersedes `row`, as `contact-consent-update/<id>` or `consent/<id>`, or null: an update
 * of the same contact point and operation recorded after it (greater id) and already COMPLETED; for SMS, an SMS
 * consent record of the customer created after it.
 */
export async function newerInstructionThan(tx: Tx, row: UpdateRow): Promise<string | null> {
  const [newer] = await tx
    .select({ id: contactConsentUpdates.id })
    .from(contactConsentUpdates)
    .where(
      and(
        eq(contactConsentUpdates.tenantId, row.tenantId),
        eq(contactConsentUpdates.contactPointId, row.contactPointId),
        eq(contactConsentUpdates.operation, row.operation),
        gt(contactConsentUpdates.id, row.id),
        eq(contactConsentUpdates.status, 'COMPLETED'),
      ),
    )
    .orderBy(desc(contactConsentUpdates.id))
    .limit(1);
  if (newer) return `contact-consent-update/${newer.id}`;
  if (row.operation !== 'UPDATE_SMS_PERMISSION') return null;
  const [consent] = await tx
    .select({ id: consents.id })
    .from(consents)
    .where(
      and(
        eq(consents.tenantId, row.tenantId),
        eq(consents.customerId, row.customerId),
        eq(consents.consentType, 'SMS'),
        gt(consents.createdAt, row.createdAt),
      ),
    )
    .orderBy(desc(consents.id))
    .limit(1);
  return consent ? `consent/${consent.id}` : null;
}

/**
 * Settles the SCHEDULED update `row` at `now` inside the caller's transaction (customer row locked): SUPERSEDED when a
 * newer instruction exists, else applied (contact point, customer history, case effect, event) and COMPLETED.
 */
export async function settle(tx: Tx, row: UpdateRow, now: Date): Promise<ContactConsentUpdateStatus> {
  const where = and(eq(contactConsentUpdates.tenantId, row.tenantId), eq(contactConsentUpdates.id, row.id));
  const newer = await newerInstructionThan(tx, row);
  if (newer !== null) {
    await tx
      .update(contactConsentUpdates)
      .set({ status: 'SUPERSEDED', resolvedAt: now, supersededBy: newer, updatedAt: now })
      .where(where);
    await recordEffect(tx, {
      tenantId: row.tenantId,
      caseId: row.caseId,
      effectType: 'CONTACT_CONSENT_SUPERSEDED',
      subjectType: 'contact_consent_update',
      subjectId: row.id,
      detail: { ...detailOf(row), supersededBy: newer },
      occurredAt: now,
      dedupeKey: `contact-consent-update/${row.id}/superseded`,
    });
    return 'SUPERSEDED';
  }
  const field = permissionFieldOf[row.operation];
  await tx
    .update(contactPoints)
    .set({ [field]: row.permission })
    .where(and(eq(contactPoints.tenantId, row.tenantId), eq(contactPoints.id, row.contactPointId)));
  await tx
    .update(contactConsentUpdates)
    .set({ status: 'COMPLETED', resolvedAt: now, updatedAt: now })
    .where(where);
  const detail = detailOf(row);
  await recordCustomerChange(tx, {
    tenantId: row.tenantId,
    customerId: row.customerId,
    action: 'CONTACT_CONSENT_UPDATED',
    detail,
    actor: row.actorUsername,
    correlationId: row.correlationId,
    occurredAt: now,
  });
  await recordEffect(tx, {
    tenantId: row.tenantId,
    caseId: row.caseId,
    effectType: 'CONTACT_CONSENT_UPDATED',
    subjectType: 'contact_consent_update',
    subjectId: row.id,
    detail,
    actor: row.actorUsername,
    correlationId: row.correlationId,
    occurredAt: now,
    dedupeKey: `contact-consent-update/${row.id}/applied`,
  });
  await writeOutboxEvent(tx, {
    tenantId: row.tenantId,
    eventType: 'contact.consent.updated',
    subjectId: row.id,
    data: {
      customerRef: row.customerRef,
      contactPointRef: row.contactPointRef,
      operation: row.operation,
      permission: row.permission,
      effectiveAt: row.effectiveAt.toISOString(),
      caseId: row.caseId,
    },
    occurredAt: now,
    dedupeKey: `contact-consent-update/${row.id}/applied`,
  });
  return 'COMPLETED';
}
