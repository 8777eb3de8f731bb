/**
 * Records a contact-consent update on a case (OpenAPI `POST /v1/servicing/cases/{caseId}/contact-consent-updates`; docs/processes.md P4 "Contact-consent updates"):
 * `recordContactConsentUpdate` stores the instruction under the case's `FOR SHARE` in one tenant transaction
 * (docs/conventions.md §5) with the start intent of its process, idempotent by `requestKey`.
 */
import { and, eq } from 'drizzle-orm';
import { findContactPointByRef, findCustomerByRef } from '../../db/queries/customers/customers';
import { contactConsentUpdates } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound, validationError } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import {
  type ContactConsentOperation,
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
import type { Deps, OperationContext } from '../deps';
import { recordStartIntent } from '../platform/start-intents';
import { detailOf, settle } from './contact-consent-settlement';
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
      // The earlier update of the key, the case (held FOR SHARE), the customer (locked FOR UPDATE, in this order
      // as before) and the contact point are independent reads: issued together, they travel in one round trip
      // (postgres.js pipelines a transaction's queries).
      const [[earlier], found, customer, point] = await Promise.all([
        input.requestKey
          ? tx
              .select()
              .from(contactConsentUpdates)
              .where(
                and(
                  eq(contactConsentUpdates.tenantId, input.tenantId),
                  eq(contactConsentUpdates.requestKey, input.requestKey),
                ),
              )
          : Promise.resolve([]),
        shareCase(tx, input.tenantId, input.caseId),
        findCustomerByRef(tx, input.tenantId, input.customerRef, { lock: 'update' }),
        findContactPointByRef(tx, input.tenantId, input.contactPointRef),
      ]);
      if (earlier) {
        return {
          updateId: earlier.id,
          status: earlier.status,
          customerRef: earlier.customerRef,
          workflow: workflowOf(earlier),
          created: false,
        };
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
      if (!found) throw referenceNotFound('caseId', input.caseId, 'Case');
      assertCaseTakesRecords(found, input.caseId, input.customerRef);
      if (!customer) throw referenceNotFound('customerRef', input.customerRef, 'Customer');
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
      // The update's workflow id, its effect and the start intent: one round trip.
      await Promise.all([
        tx
          .update(contactConsentUpdates)
          .set({ workflowId: spec.workflowId })
          .where(
            and(eq(contactConsentUpdates.tenantId, input.tenantId), eq(contactConsentUpdates.id, created.id)),
          ),
        recordEffect(tx, {
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
        }),
        recordStartIntent(tx, spec, now),
      ]);
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
