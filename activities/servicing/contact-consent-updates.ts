/**
 * Contact-consent updates (spec § Endpoints, Servicing plane: `POST /v1/servicing/cases/{caseId}/contact-consent-updates`;
 * docs/processes.md P4 "Contact-consent updates"; timing and precedence rules: domain/servicing/contact-consent.ts).
 *
 * - `recordContactConsentUpdate` (the route's operation): checks the case, the customer and the contact point, stores
 *   the update and, when `effectiveAt` is not in the future, applies it in the same transaction (`COMPLETED`);
 *   otherwise stores it `SCHEDULED` with a `CONTACT_CONSENT_SCHEDULED` case effect and the start intent of its
 *   workflow `contact-consent-update/<tenant>/<updateId>`.
 * - `applyContactConsentUpdate` (the workflow's step when the timer fires): applies a SCHEDULED update, or marks it
 *   SUPERSEDED when a newer instruction was applied first. Idempotent: a settled update answers its status.
 *
 * Applying sets the contact point's permission (`can_receive_sms|email|voice`), appends `CONTACT_CONSENT_UPDATED` to
 * the customer's history (without the contact value), adds the case effect `CONTACT_CONSENT_UPDATED` and writes the
 * event `contact.consent.updated`, all in one transaction, under the customer row's `FOR UPDATE` lock (customer
 * aggregate rule, activities/README.md), which also serializes two updates of one contact point. Like the STOP
 * handling (activities/channels/channel-events.ts) it changes the contact point's flag; unlike it, it writes no
 * `consents` row: the update row, with its case, reason and actor, is the record.
 */
import { and, desc, eq, gt } from 'drizzle-orm';
import { findContactPointByRef, findCustomerByRef } from '../../db/queries/customers/customers';
import { consents, contactConsentUpdates, contactPoints } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound, referenceNotFound, validationError } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import {
  type ContactConsentOperation,
  type ContactConsentUpdateOutcome,
  type ContactConsentUpdateStatus,
  type ContactConsentUpdateWorkflowInput,
  contactConsentLeadDaysMax,
  contactConsentOperations,
  contactConsentTimingOf,
  contactConsentUpdateStartSpec,
  contactTypeOf,
  permissionFieldOf,
  permissionFields,
} from '../../domain/servicing/contact-consent';
import { recordCustomerChange } from '../customers/records';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { recordStartIntent } from '../platform/start-intents';
import { assertCaseTakesRecords, recordEffect, rowOfRequestKey, shareCase } from './records';

/** Longest accepted `reason` (characters), as other free-text servicing fields. */
export const contactConsentReasonLengthMax = 2000;

/** Input of `recordContactConsentUpdate`: the route's body and the case of its path. */
export interface RecordContactConsentUpdateInput extends OperationContext {
  caseId: number;
  /** The customer (`cus_…`); must be the case's customer and own the contact point. */
  customerRef: string;
  operation: string;
  /** The customer's contact point (`cp_…`). */
  contactPointRef: string;
  /** Exactly the one field of `operation` (domain `permissionFieldOf`) is given. */
  canReceiveSms?: boolean | undefined;
  canReceiveEmail?: boolean | undefined;
  canReceiveVoice?: boolean | undefined;
  /** ISO 8601 instant with a zone offset or Z; not more than 365 days ahead. */
  effectiveAt: string;
  /** Why (free text, ≤ 2000 characters, never an identifier or account number). */
  reason: string;
}

/** What `recordContactConsentUpdate` answers (the route shows `{outcome: status, customerRef, resourceId: updateId}`). */
export interface RecordContactConsentUpdateResult {
  updateId: number;
  /** COMPLETED when applied at once, SCHEDULED when it waits for `effectiveAt` (SUPERSEDED only on a late replay). */
  status: ContactConsentUpdateStatus;
  customerRef: string;
  /** The process to start after commit (also stored as a start intent); null when nothing waits. */
  workflow: { workflowId: string; input: ContactConsentUpdateWorkflowInput } | null;
  /** False when the request key named an update recorded before (nothing was written). */
  created: boolean;
}

type UpdateRow = typeof contactConsentUpdates.$inferSelect;

const workflowOf = (row: UpdateRow): RecordContactConsentUpdateResult['workflow'] =>
  row.workflowId === null
    ? null
    : {
        workflowId: row.workflowId,
        input: workflowInputOf(row),
      };

function workflowInputOf(row: UpdateRow): ContactConsentUpdateWorkflowInput {
  return {
    tenantId: row.tenantId,
    updateId: row.id,
    caseId: row.caseId,
    customerRef: row.customerRef,
    effectiveAt: row.effectiveAt.toISOString(),
    effectiveAtMs: row.effectiveAt.getTime(),
  };
}

/**
 * The permission the input sets, after checking the operation and its one permission field. Errors (400 naming the
 * field): an unknown `operation`; the operation's field missing or not a boolean; any other permission field present.
 */
function permissionOf(input: RecordContactConsentUpdateInput): {
  operation: ContactConsentOperation;
  permission: boolean;
} {
  if (!(contactConsentOperations as readonly string[]).includes(input.operation)) {
    throw validationError(
      'operation',
      input.operation,
      `operation must be one of ${contactConsentOperations.join(', ')}.`,
    );
  }
  const operation = input.operation as ContactConsentOperation;
  const field = permissionFieldOf[operation];
  for (const other of permissionFields) {
    if (other !== field && input[other] !== undefined) {
      throw validationError(other, input[other], `${other} is not allowed with ${operation}; send ${field}.`);
    }
  }
  const permission = input[field];
  if (typeof permission !== 'boolean') {
    throw validationError(field, permission ?? null, `${field} (boolean) is required with ${operation}.`);
  }
  return { operation, permission };
}

/**
 * Records a contact-consent update on an open case and applies it at once or schedules it (module comment).
 * Idempotent by `requestKey`: a retry answers the update recorded first (`created: false`), before any check.
 *
 * Errors:
 * - 400 `validation.msg.validation.errors.exist` naming `operation`, the permission field (missing, or one that does
 *   not match the operation), `effectiveAt` (not an instant with offset, or more than 365 days ahead), `reason`
 *   (empty, over 2000 characters, or identifier-looking: not echoed);
 * - 404 naming `caseId` (absent or another tenant's), `customerRef` (no such customer of the tenant),
 *   `contactPointRef` (absent, another tenant's, or another customer's);
 * - 409 `error.msg.case.customer.mismatch` (the case is another customer's), `error.msg.case.invalid.state.transition`
 *   (the case is not OPEN), `error.msg.contact.point.type.mismatch` (SMS/voice on an EMAIL point, e-mail on a PHONE one).
 */
export function recordContactConsentUpdate(deps: Deps) {
  return async (input: RecordContactConsentUpdateInput): Promise<RecordContactConsentUpdateResult> => {
    const { operation, permission } = permissionOf(input);
    const effectiveAtMs = Date.parse(input.effectiveAt);
    if (Number.isNaN(effectiveAtMs)) {
      throw validationError(
        'effectiveAt',
        input.effectiveAt,
        'effectiveAt must be an ISO 8601 timestamp with a zone offset or Z.',
      );
    }
    const reason = input.reason.trim();
    if (reason === '' || reason.length > contactConsentReasonLengthMax) {
      throw validationError(
        'reason',
        null,
        `reason must be 1 to ${contactConsentReasonLengthMax} characters.`,
      );
    }
    assertNoSensitiveData('reason', reason);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [earlier] = await tx
          .select()
          .from(contactConsentUpdates)
          .where(
            and(
              eq(contactConsentUpdates.tenantId, input.tenantId),
              eq(contactConsentUpdates.requestKey, input.requestKey),
            ),
          );
        if (earlier) {
          return {
            updateId: earlier.id,
            status: earlier.status,
            customerRef: earlier.customerRef,
            workflow: workflowOf(earlier),
            created: false,
          };
        }
      }
      const now = deps.clock();
      const timing = contactConsentTimingOf(effectiveAtMs, now.getTime());
      if (timing === 'TOO_FAR') {
        throw validationError(
          'effectiveAt',
          input.effectiveAt,
          `effectiveAt must not be more than ${contactConsentLeadDaysMax} days ahead.`,
        );
      }
      const found = await shareCase(tx, input.tenantId, input.caseId);
      if (!found) throw referenceNotFound('caseId', input.caseId, 'Case');
      assertCaseTakesRecords(found, input.caseId, input.customerRef);
      const customer = await findCustomerByRef(tx, input.tenantId, input.customerRef, { lock: 'update' });
      if (!customer) throw referenceNotFound('customerRef', input.customerRef, 'Customer');
      const point = await findContactPointByRef(tx, input.tenantId, input.contactPointRef);
      if (!point || point.customerId !== customer.customerId) {
        throw referenceNotFound('contactPointRef', input.contactPointRef, 'Contact point of the customer');
      }
      if (point.contactType !== contactTypeOf[operation]) {
        const message = `contactPointRef: ${operation} applies to ${contactTypeOf[operation]} contact points; this one is ${point.contactType}.`;
        throw new DomainError('error.msg.contact.point.type.mismatch', message, {
          errors: [
            fieldError(
              'contactPointRef',
              input.contactPointRef,
              message,
              'error.msg.contact.point.type.mismatch',
            ),
          ],
        });
      }
      const [created] = await tx
        .insert(contactConsentUpdates)
        .values({
          tenantId: input.tenantId,
          caseId: input.caseId,
          customerId: customer.customerId,
          customerRef: customer.customerRef,
          contactPointId: point.contactPointId,
          contactPointRef: point.contactPointRef,
          operation,
          permission,
          effectiveAt: new Date(effectiveAtMs),
          reason,
          status: 'SCHEDULED',
          actorUsername: input.actor ?? null,
          correlationId: input.correlationId ?? null,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [contactConsentUpdates.tenantId, contactConsentUpdates.requestKey] })
        .returning();
      if (!created) {
        // A concurrent call with the same request key committed first.
        const earlier = await rowOfRequestKey(tx, contactConsentUpdates, input.tenantId, input.requestKey);
        return {
          updateId: earlier.id,
          status: earlier.status,
          customerRef: earlier.customerRef,
          workflow: workflowOf(earlier),
          created: false,
        };
      }
      if (timing === 'IMMEDIATE') {
        const status = await settle(tx, created, now);
        return {
          updateId: created.id,
          status,
          customerRef: created.customerRef,
          workflow: null,
          created: true,
        };
      }
      const spec = contactConsentUpdateStartSpec(workflowInputOf(created));
      await tx
        .update(contactConsentUpdates)
        .set({ workflowId: spec.workflowId })
        .where(
          and(eq(contactConsentUpdates.tenantId, input.tenantId), eq(contactConsentUpdates.id, created.id)),
        );
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        effectType: 'CONTACT_CONSENT_SCHEDULED',
        subjectType: 'contact_consent_update',
        subjectId: created.id,
        detail: detailOf(created),
        actor: input.actor ?? null,
        correlationId: input.correlationId ?? null,
        occurredAt: now,
        dedupeKey: `contact-consent-update/${created.id}/scheduled`,
      });
      await recordStartIntent(tx, spec, now);
      return {
        updateId: created.id,
        status: 'SCHEDULED',
        customerRef: created.customerRef,
        workflow: { workflowId: spec.workflowId, input: spec.input },
        created: true,
      };
    });
  };
}

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

/** What history entries and effects say about an update: never the contact value itself. */
function detailOf(row: UpdateRow): Record<string, unknown> {
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
async function newerInstructionThan(tx: Tx, row: UpdateRow): Promise<string | null> {
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
async function settle(tx: Tx, row: UpdateRow, now: Date): Promise<ContactConsentUpdateStatus> {
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
