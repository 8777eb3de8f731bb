/**
 * Request and response schemas of case types, their field definitions and form entries (docs/processes.md P4;
 * docs/servicing.md "Case types, field definitions and form entries"). Request bodies are strict (an
 * unknown field is a 400). The shape of a definition is checked here (key syntax, bounded counts and lengths,
 * enumerations); the rules across fields (unique keys, ENUM options, MONEY currency) and the answers, which depend
 * on the publication, are checked by the operations with domain/servicing/form-fields.ts.
 */
import * as v from 'valibot';
import { guardedText, integerId, limitParam, offsetParam } from '../../validation/fields';
import { definitionKeyPattern, definitionLimits, fieldTypes, requiredAtStages } from '../form-fields';

const caseTypeCode = v.pipe(
  v.string(),
  v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be an upper-case case type code (A-Z, 0-9, _; at most 64).'),
);
const key = v.pipe(
  v.string(),
  v.regex(definitionKeyPattern, 'must start with a letter and hold only letters, digits or _ (at most 64).'),
);
const label = guardedText(definitionLimits.labelLength);
const id = v.pipe(
  v.number(),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

export const caseTypeCodeParam = v.strictObject({ caseTypeCode });
export const entryIdParam = v.strictObject({ entryId: integerId('entryId') });

export const listCaseTypesQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

export const createCaseTypeBody = v.strictObject({ caseTypeCode, displayName: label });

const fieldDefinition = v.strictObject({
  key,
  label,
  type: v.picklist(fieldTypes),
  requiredAt: v.picklist(requiredAtStages),
  options: v.optional(
    v.pipe(
      v.array(guardedText(definitionLimits.optionLength)),
      v.minLength(1, 'an ENUM field needs at least one option.'),
      v.maxLength(definitionLimits.options, `at most ${definitionLimits.options} options.`),
    ),
  ),
  currency: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code.'))),
});

const fieldDefinitions = v.strictObject({
  sections: v.pipe(
    v.array(
      v.strictObject({
        key,
        label,
        fields: v.pipe(
          v.array(fieldDefinition),
          v.minLength(1, 'a section needs at least one field.'),
          v.maxLength(
            definitionLimits.fieldsPerSection,
            `at most ${definitionLimits.fieldsPerSection} fields.`,
          ),
        ),
      }),
    ),
    v.maxLength(definitionLimits.sections, `at most ${definitionLimits.sections} sections.`),
  ),
});

export const publishFieldDefinitionsBody = v.strictObject({ fieldDefinitions });

/** Field key → answer; the values are validated against the publication by the operation. */
const answers = v.pipe(
  // valibot's record takes an array as an object of its indexes; an array of answers is a mistake, not `{}`.
  v.custom<Record<string, unknown>>(
    (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
    'must be an object of field key → answer.',
  ),
  v.record(v.string(), v.unknown()),
  v.check(
    (value) => Object.keys(value).length <= definitionLimits.fieldsTotal,
    `at most ${definitionLimits.fieldsTotal} answers.`,
  ),
);

export const createFormEntryBody = v.strictObject({ caseId: id, publicationId: id, answers });

export const updateFormEntryBody = v.strictObject({
  answers: v.pipe(
    answers,
    v.check((value) => Object.keys(value).length > 0, 'must name at least one field.'),
  ),
  reason: guardedText(2000),
});

export const listFormEntriesQuery = v.strictObject({
  caseId: integerId('caseId'),
  limit: limitParam,
  offset: offsetParam,
});

// Responses (for the OpenAPI document).
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const answerValue = v.union([v.string(), v.boolean()]);
export const caseTypeResponse = v.object({
  caseTypeCode: v.string(),
  displayName: v.string(),
  createdAt: timestamp,
});
export const caseTypeListResponse = v.object({
  items: v.array(caseTypeResponse),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});
const fieldDefinitionsResponse = v.object({
  sections: v.array(
    v.object({
      key: v.string(),
      label: v.string(),
      fields: v.array(
        v.object({
          key: v.string(),
          label: v.string(),
          type: v.picklist(fieldTypes),
          requiredAt: v.picklist(requiredAtStages),
          options: v.optional(v.array(v.string())),
          currency: v.optional(v.string()),
        }),
      ),
    }),
  ),
});
export const fieldDefinitionsReadResponse = v.object({
  caseTypeCode: v.string(),
  publicationId: v.nullable(v.number()),
  version: v.nullable(v.number()),
  fieldDefinitions: fieldDefinitionsResponse,
});
export const publicationResponse = v.object({
  caseTypeCode: v.string(),
  publicationId: v.number(),
  version: v.number(),
  fieldDefinitions: fieldDefinitionsResponse,
});
export const formEntryResponse = v.object({
  entryId: v.number(),
  resourceId: v.number(),
  caseId: v.number(),
  publicationId: v.number(),
  answers: v.record(v.string(), answerValue),
  createdAt: timestamp,
  updatedAt: timestamp,
});
const change = v.object({
  fieldKey: v.string(),
  operation: v.picklist(['SET', 'CLEAR']),
  before: v.nullable(answerValue),
  after: v.nullable(answerValue),
});
export const updatedFormEntryResponse = v.object({
  ...formEntryResponse.entries,
  changes: v.array(change),
});
export const formEntryListResponse = v.object({
  items: v.array(formEntryResponse),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});
export const formEntryHistoryResponse = v.object({
  items: v.array(
    v.object({
      action: v.picklist(['ANSWERS_CREATED', 'ANSWERS_UPDATED']),
      publicationId: v.number(),
      changes: v.array(change),
      reason: v.nullable(v.string()),
      actorDisplayName: v.nullable(v.string()),
      occurredAt: timestamp,
    }),
  ),
});
