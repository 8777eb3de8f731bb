/**
 * Request and response schemas of AI sessions and their outputs (docs/servicing.md "AI sessions and their outputs",
 * docs/servicing.md; docs/processes.md P4). Bodies are strict (an unknown field is rejected). Free text
 * (`purpose`, `content`, `citations[].fact`) is `guardedText`: bounded, and refused when it carries a government
 * identifier or an account or card number (the value is not echoed).
 */
import * as v from 'valibot';
import { guardedText, limitParam, offsetParam } from '../../validation/fields';
import { refField } from '../../validation/refs';
import { aiConfidences, aiOutputStatuses, aiOutputTypes } from '../ai-sessions';

/** Longest `content` of an output, in characters. */
export const aiOutputContentMaxLength = 20_000;
/** Most citations one output may carry. */
export const aiOutputCitationsMax = 50;

const id = v.pipe(
  v.number(),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

/** Path of the session routes. Any text: an id that names no session of the tenant is a 404, not a 400. */
export const aiSessionIdParam = v.strictObject({ aiSessionId: v.string() });
export const aiOutputIdParam = v.strictObject({ aiSessionId: v.string(), outputId: v.string() });

export const createAiSessionBody = v.strictObject({
  caseId: id,
  customerRef: refField(128),
  purpose: guardedText(500),
});

/** The spec's `evidenceId` is a string: the decimal text of an evidence id of the tenant. */
const evidenceIdText = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,15}$/, 'must be the id of evidence of this tenant: a positive integer as a string.'),
  v.transform(Number),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must be the id of evidence of this tenant.'),
);

export const createAiOutputBody = v.strictObject({
  type: v.picklist(aiOutputTypes, `must be one of ${aiOutputTypes.join(', ')}.`),
  content: guardedText(aiOutputContentMaxLength),
  citations: v.pipe(
    v.array(v.strictObject({ fact: guardedText(2000), evidenceId: evidenceIdText })),
    v.maxLength(aiOutputCitationsMax, `at most ${aiOutputCitationsMax} citations.`),
  ),
  confidence: v.picklist(aiConfidences, `must be one of ${aiConfidences.join(', ')}.`),
});

export const listAiOutputsQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

// Responses (for the OpenAPI document).
const timestamp = v.pipe(v.string(), v.isoTimestamp());
export const aiSessionResponse = v.object({
  aiSessionId: v.pipe(v.string(), v.description('Opaque: `ais_` and 24 letters.')),
  caseId: v.number(),
  customerRef: v.string(),
  purpose: v.string(),
  version: v.pipe(
    v.number(),
    v.description('Send as `If-Match: "<version>"` with an output; +1 per output.'),
  ),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const createdAiOutputResponse = v.object({
  outputId: v.pipe(v.string(), v.description('Opaque: `aio_` and 24 letters.')),
  aiSessionId: v.string(),
  status: v.picklist(aiOutputStatuses),
  reviewRequired: v.pipe(
    v.boolean(),
    v.description('True when confidence is not `high` or the type drafts a customer-facing message.'),
  ),
  reviewTaskId: v.pipe(
    v.nullable(v.number()),
    v.description('The `AI_OUTPUT_REVIEW` task opened on the case when review is required.'),
  ),
  sessionVersion: v.pipe(v.number(), v.description("The session's version after this output.")),
});
export const aiOutputResponse = v.object({
  outputId: v.string(),
  aiSessionId: v.string(),
  sequence: v.number(),
  status: v.picklist(aiOutputStatuses),
  type: v.picklist(aiOutputTypes),
  content: v.string(),
  citations: v.array(v.object({ fact: v.string(), evidenceId: v.string() })),
  confidence: v.picklist(aiConfidences),
  reviewRequired: v.boolean(),
  reviewTaskId: v.nullable(v.number()),
  createdAt: timestamp,
});
export const aiOutputListResponse = v.object({
  items: v.array(aiOutputResponse),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});
