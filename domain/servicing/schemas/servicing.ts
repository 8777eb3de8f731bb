/**
 * Request and response schemas of the servicing plane (docs/servicing.md). Request bodies are strict: an unknown field is a 400. Free text (summaries, `closureReason`,
 * `description`, `note`, `outcomeReason`) is `guardedText`: a government identifier or an account or
 * card number in it is a 400 naming the field, and the value is not echoed.
 */
import * as v from 'valibot';
import { privacyRegimes } from '../../deadlines';
import { guardedText, integerId, limitParam, offsetParam } from '../../validation/fields';
import { refField } from '../../validation/refs';
import { maxChars } from '../../validation/text-length';
import { privacyOutcomes, privacyRequestTypes } from '../privacy-request';

const id = v.pipe(
  v.number(),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);
/** The customer's opaque ref (`cus_…`): a strict reference, never free text (./refs.ts). */
const customerRef = refField(128);

export const caseIdParam = v.strictObject({ caseId: integerId('caseId') });
export const taskIdParam = v.strictObject({ taskId: integerId('taskId') });
export const interactionIdParam = v.strictObject({ interactionId: integerId('interactionId') });
export const evidenceIdParam = v.strictObject({ evidenceId: integerId('evidenceId') });
export const requestIdParam = v.strictObject({ requestId: integerId('requestId') });

export const createCaseBody = v.strictObject({
  customerRef,
  caseTypeCode: v.pipe(
    v.string(),
    v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be an upper-case case type code.'),
  ),
  summary: guardedText(2000),
});

export const closeCaseBody = v.strictObject({
  outcomeCode: v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be an upper-case outcome code.')),
  closureReason: guardedText(2000),
});

export const effectsQuery = v.strictObject({
  limit: limitParam,
  cursor: v.optional(v.pipe(v.string(), ...maxChars(1024, 'must be at most 1024 characters.'))),
});

export const createInteractionBody = v.strictObject({
  customerRef,
  caseId: v.optional(v.nullable(id)),
  channel: v.picklist(['PHONE', 'SMS', 'EMAIL', 'CHAT', 'LETTER', 'VOICE']),
  direction: v.picklist(['INBOUND', 'OUTBOUND']),
  summary: guardedText(4000),
});

export const createEvidenceBody = v.strictObject({
  caseId: id,
  evidenceType: v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be an upper-case evidence type.')),
  description: guardedText(2000),
  documentId: v.optional(v.nullable(id)),
});

export const listTasksQuery = v.strictObject({
  caseId: v.optional(integerId('caseId')),
  status: v.optional(v.picklist(['OPEN', 'COMPLETED', 'CANCELLED'])),
  limit: limitParam,
  offset: offsetParam,
});

export const completeTaskBody = v.strictObject({ note: v.optional(guardedText(2000)) });

export const createPrivacyRequestBody = v.strictObject({
  customerRef,
  requestType: v.picklist(privacyRequestTypes),
  regime: v.picklist(privacyRegimes),
  summary: guardedText(2000),
  caseId: id,
  sourceInteractionId: id,
});

export const fulfilPrivacyRequestBody = v.strictObject({
  outcome: v.picklist(privacyOutcomes),
  outcomeReason: guardedText(2000),
  evidenceIds: v.pipe(v.array(id), v.maxLength(100, 'at most 100 evidence ids.')),
});

// Responses (for the OpenAPI document).
const timestamp = v.pipe(v.string(), v.isoTimestamp());
export const createdCaseResponse = v.object({
  caseId: v.number(),
  resourceId: v.number(),
  status: v.literal('OPEN'),
});
export const caseResponse = v.object({
  caseId: v.number(),
  resourceId: v.number(),
  customerRef: v.string(),
  caseTypeCode: v.string(),
  summary: v.string(),
  status: v.picklist(['OPEN', 'CLOSED']),
  outcomeCode: v.nullable(v.string()),
  closureReason: v.nullable(v.string()),
  openedAt: timestamp,
  closedAt: v.nullable(timestamp),
});
export const closeCaseResponse = v.object({
  resourceId: v.number(),
  changes: v.object({ status: v.literal('CLOSED'), outcomeCode: v.string() }),
});
export const effectsResponse = v.object({
  items: v.array(
    v.object({
      effectId: v.number(),
      caseId: v.number(),
      effectType: v.string(),
      subjectType: v.string(),
      subjectId: v.string(),
      detail: v.record(v.string(), v.unknown()),
      actorUsername: v.nullable(v.string()),
      correlationId: v.nullable(v.string()),
      occurredAt: timestamp,
    }),
  ),
  nextCursor: v.nullable(v.string()),
  hasMore: v.boolean(),
});
export const createdInteractionResponse = v.object({ interactionId: v.number(), resourceId: v.number() });
export const createdEvidenceResponse = v.object({ evidenceId: v.number(), resourceId: v.number() });
export const taskResponse = v.object({
  taskId: v.number(),
  resourceId: v.number(),
  caseId: v.nullable(v.number()),
  taskType: v.string(),
  title: v.string(),
  status: v.picklist(['OPEN', 'COMPLETED', 'CANCELLED']),
  subjectType: v.nullable(v.string()),
  subjectId: v.nullable(v.string()),
  dueAt: v.nullable(timestamp),
  createdAt: timestamp,
  completedAt: v.nullable(timestamp),
  completedBy: v.nullable(v.string()),
  completionNote: v.nullable(v.string()),
});
export const taskListResponse = v.object({
  items: v.array(taskResponse),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});
export const createdPrivacyRequestResponse = v.object({
  requestId: v.number(),
  status: v.literal('RECEIVED'),
  statutoryDueAt: v.pipe(v.string(), v.description('ISO 8601 with the compliance time zone offset')),
  reviewTaskId: v.number(),
  resourceId: v.number(),
});
export const privacyRequestResponse = v.object({
  requestId: v.number(),
  resourceId: v.number(),
  customerRef: v.string(),
  requestType: v.string(),
  regime: v.string(),
  summary: v.string(),
  caseId: v.number(),
  sourceInteractionId: v.number(),
  status: v.string(),
  receivedAt: timestamp,
  statutoryDueAt: v.string(),
  reviewTaskId: v.nullable(v.number()),
  outcome: v.nullable(v.string()),
  outcomeReason: v.nullable(v.string()),
  fulfilledAt: v.nullable(timestamp),
  evidenceIds: v.array(v.number()),
});
export const fulfilResponse = v.object({ resourceId: v.number(), changes: v.object({ status: v.string() }) });
