/**
 * Request and response schemas of delinquency ranges and buckets (Apache Fineract `DelinquencyApiResource`:
 * `POST/GET /v1/delinquency/ranges`, `POST/GET /v1/delinquency/buckets`) and of a loan's delinquency actions
 * (`POST/GET /v1/loans/{loanId}/delinquency-actions`, Fineract `LoanDelinquencyActionData`). Field names are
 * Fineract's; ages are whole days; dates are ISO calendar dates. Bodies are strict; `locale` and `dateFormat` are
 * accepted and ignored as elsewhere in the lending API.
 */
import * as v from 'valibot';
import { isoDate } from '../../validation/dates';
import { guardedText, integerId } from '../../validation/fields';
import { dateFormatField, localeField } from '../../validation/refs';
import { maximumRangeAgeDays } from '../delinquency-ranges';

const ageDays = v.pipe(
  v.number('must be an integer.'),
  v.integer('must be an integer.'),
  v.minValue(0, `must be an integer from 0 to ${maximumRangeAgeDays}.`),
  v.maxValue(maximumRangeAgeDays, `must be an integer from 0 to ${maximumRangeAgeDays}.`),
);
const id = v.pipe(
  v.number('must be a positive integer.'),
  v.integer('must be a positive integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must be a positive integer.'),
);
const caseTypeCode = v.pipe(
  v.string(),
  v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be an upper-case case type code (A-Z, 0-9, _; at most 64).'),
);

/** Path `{rangeId}`. */
export const rangeIdParam = v.strictObject({ rangeId: integerId('rangeId') });
/** Path `{bucketId}`. */
export const bucketIdParam = v.strictObject({ bucketId: integerId('bucketId') });

/** `POST /v1/delinquency/ranges`: `maximumAgeDays` null or absent for the open-ended last range. */
export const createDelinquencyRangeBody = v.strictObject({
  classification: guardedText(100),
  minimumAgeDays: ageDays,
  maximumAgeDays: v.optional(v.nullable(ageDays), null),
  collectionsCaseTypeCode: v.optional(caseTypeCode),
  locale: v.optional(localeField),
});

/** `POST /v1/delinquency/buckets`: the range ids, at least one, no repeats. */
export const createDelinquencyBucketBody = v.strictObject({
  name: guardedText(100),
  ranges: v.pipe(
    v.array(id, 'must be an array of range ids.'),
    v.minLength(1, 'must name at least one range.'),
    v.maxLength(100, 'must name at most 100 ranges.'),
    v.check((ids) => new Set(ids).size === ids.length, 'must not name a range twice.'),
  ),
});

export const createdResourceResponse = v.object({ resourceId: v.number() });

export const delinquencyRangeResponse = v.object({
  id: v.number(),
  classification: v.string(),
  minimumAgeDays: v.number(),
  maximumAgeDays: v.nullable(v.number()),
  collectionsCaseTypeCode: v.nullable(v.string()),
});
export const delinquencyRangeListResponse = v.array(delinquencyRangeResponse);

export const delinquencyBucketResponse = v.object({
  id: v.number(),
  name: v.string(),
  ranges: v.array(delinquencyRangeResponse),
});
export const delinquencyBucketListResponse = v.array(delinquencyBucketResponse);

/** `POST /v1/loans/{loanId}/delinquency-actions` (Fineract's actions, lower case as Fineract sends them). */
export const createDelinquencyActionBody = v.strictObject({
  action: v.picklist(['pause', 'resume'], 'must be pause or resume.'),
  startDate: isoDate(),
  endDate: v.optional(isoDate()),
  locale: v.optional(localeField),
  dateFormat: v.optional(dateFormatField),
});

export const delinquencyActionResponse = v.object({
  id: v.number(),
  action: v.picklist(['PAUSE', 'RESUME']),
  startDate: v.string(),
  endDate: v.nullable(v.string()),
  createdOn: v.string(),
});
export const delinquencyActionListResponse = v.array(delinquencyActionResponse);
