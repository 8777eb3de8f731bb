/**
 * Request and response schemas of contact-consent updates (OpenAPI `POST /v1/servicing/cases/{caseId}/contact-consent-updates`; docs/processes.md P4). The body is strict: the spec's
 * fields `{customerRef, operation, contactPointRef, canReceiveSms, effectiveAt, reason}`, where `canReceiveSms` is
 * the permission of `UPDATE_SMS_PERMISSION`; `UPDATE_EMAIL_PERMISSION` takes `canReceiveEmail` and
 * `UPDATE_VOICE_PERMISSION` `canReceiveVoice` instead. Exactly the operation's field is required; another
 * permission field is a 400 naming it. `reason` is guarded free text (no identifiers or account numbers).
 */
import * as v from 'valibot';
import { isoInstant } from '../../validation/dates';
import { guardedText, integerId } from '../../validation/fields';
import { refField } from '../../validation/refs';
import {
  contactConsentLeadDaysMax,
  contactConsentOperations,
  contactConsentUpdateStatuses,
  type PermissionField,
  permissionFieldOf,
  permissionFields,
} from '../contact-consent';

/** Path of the read: `caseId` and `updateId`, positive integers. */
export const contactConsentUpdateParams = v.strictObject({
  caseId: integerId('caseId'),
  updateId: integerId('updateId'),
});

const permission = (description: string) =>
  v.optional(v.pipe(v.boolean('must be a boolean.'), v.description(description)));

/**
 * Body of `POST …/contact-consent-updates` (strict): every field but the permission fields is required; the
 * operation's permission field is required and the other two are refused (400 naming them).
 */
export const contactConsentUpdateBody = v.pipe(
  v.strictObject({
    customerRef: v.pipe(refField(128), v.description('The case’s customer (`cus_…`).')),
    operation: v.picklist(contactConsentOperations, `must be one of ${contactConsentOperations.join(', ')}.`),
    contactPointRef: v.pipe(refField(128), v.description('A contact point of that customer (`cp_…`).')),
    canReceiveSms: permission(
      'UPDATE_SMS_PERMISSION only (required with it): may the PHONE contact point be sent SMS.',
    ),
    canReceiveEmail: permission(
      'UPDATE_EMAIL_PERMISSION only (required with it): may the EMAIL contact point be sent e-mail.',
    ),
    canReceiveVoice: permission(
      'UPDATE_VOICE_PERMISSION only (required with it): may the PHONE contact point be called.',
    ),
    effectiveAt: v.pipe(
      isoInstant(),
      v.description(
        `When the update takes effect, ISO 8601 with a zone offset or Z: now or earlier → applied at once (COMPLETED); later (at most ${contactConsentLeadDaysMax} days ahead) → SCHEDULED.`,
      ),
    ),
    reason: guardedText(2000),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const body = dataset.value;
    const wanted = permissionFieldOf[body.operation];
    const issueAt = (key: PermissionField, message: string) =>
      addIssue({
        message,
        path: [{ type: 'object', origin: 'value', input: body, key, value: body[key] }],
      });
    for (const field of permissionFields) {
      if (field !== wanted && body[field] !== undefined) {
        issueAt(field, `is not allowed with ${body.operation}; send ${wanted}.`);
      }
    }
    if (body[wanted] === undefined) issueAt(wanted, `is required with ${body.operation}.`);
  }),
);

// Responses (for the OpenAPI document).
const timestamp = v.pipe(v.string(), v.isoTimestamp());

/** 200 answer of the POST (spec: outcome, customerRef, resourceId). */
export const contactConsentUpdateResponse = v.object({
  outcome: v.pipe(
    v.picklist(contactConsentUpdateStatuses),
    v.description('COMPLETED: applied at once; SCHEDULED: applied when effectiveAt comes.'),
  ),
  customerRef: v.string(),
  resourceId: v.pipe(v.number(), v.description('Id of the stored contact-consent update (`updateId`).')),
});

/** 200 answer of the read: the update, its permission under its wire name, and its status. */
export const contactConsentUpdateView = v.object({
  updateId: v.number(),
  resourceId: v.number(),
  caseId: v.number(),
  customerRef: v.string(),
  contactPointRef: v.string(),
  operation: v.picklist(contactConsentOperations),
  canReceiveSms: v.optional(v.boolean()),
  canReceiveEmail: v.optional(v.boolean()),
  canReceiveVoice: v.optional(v.boolean()),
  permission: v.pipe(v.boolean(), v.description('The value the operation’s permission field takes.')),
  effectiveAt: timestamp,
  reason: v.string(),
  status: v.pipe(
    v.picklist(contactConsentUpdateStatuses),
    v.description(
      'SCHEDULED until effectiveAt; then COMPLETED, or SUPERSEDED when a newer instruction for the same contact point and permission was applied first.',
    ),
  ),
  resolvedAt: v.nullable(timestamp),
  supersededBy: v.nullable(v.string()),
  actorUsername: v.nullable(v.string()),
  createdAt: timestamp,
});
