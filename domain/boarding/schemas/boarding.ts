/**
 * Request and response schemas of the boarding batch routes (docs/processes.md P3). The upload's
 * body is NDJSON, read as a stream by its operation (not validated here); its query takes an optional `fileName`.
 * The error list takes `limit` 1–1000 (default 100) and `offset`.
 */
import * as v from 'valibot';
import { integerId, offsetParam, text } from '../../validation/fields';
import { boardingBatchStatuses, boardingKinds } from '../batch';

export const boardingBatchIdParam = v.strictObject({ batchId: integerId('batchId') });

/** `POST /v1/boarding/batches` query: the uploaded file's name, for the summary and the batch (≤ 255 characters). */
export const uploadBoardingBatchQuery = v.strictObject({
  fileName: v.optional(text(255)),
});

const errorLimitMessage = 'limit must be an integer from 1 to 1000.';

/** `GET /v1/boarding/batches/{batchId}/errors` query: `limit` 1–1000 (default 100), `offset`. */
export const boardingErrorsQuery = v.strictObject({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]{1,5}$/, errorLimitMessage),
      v.transform(Number),
      v.minValue(1, errorLimitMessage),
      v.maxValue(1000, errorLimitMessage),
    ),
    '100',
  ),
  offset: offsetParam,
});

/** `POST /v1/boarding/batches` answer (202). */
export const stagedBoardingBatchResponse = v.object({
  batchId: v.number(),
  status: v.literal('STAGED'),
  records: v.pipe(v.number(), v.description('Lines staged (blank lines are skipped, not staged).')),
});

const kindCount = v.object({ total: v.number(), boarded: v.number(), failed: v.number() });

/** A batch as `GET /v1/boarding/batches/{batchId}` and the control routes answer it (domain `BoardingBatchView`). */
export const boardingBatchResponse = v.object({
  batchId: v.number(),
  status: v.picklist(boardingBatchStatuses),
  records: v.number(),
  malformed: v.pipe(v.number(), v.description('Lines that were not JSON objects of the line shape.')),
  counts: v.pipe(
    v.object(
      Object.fromEntries(boardingKinds.map((k) => [k, kindCount])) as Record<string, typeof kindCount>,
    ),
    v.description('Per kind: lines in the batch, boarded, failed.'),
  ),
  startedAt: v.nullable(v.pipe(v.string(), v.description('ISO 8601 instant (UTC).'))),
  completedAt: v.nullable(v.pipe(v.string(), v.description('ISO 8601 instant (UTC).'))),
  etaSeconds: v.nullable(v.pipe(v.number(), v.description('Seconds left at the current rate.'))),
});

const shapeAError = v.object({
  developerMessage: v.string(),
  httpStatusCode: v.string(),
  defaultUserMessage: v.string(),
  userMessageGlobalisationCode: v.string(),
  errors: v.array(
    v.object({
      parameterName: v.string(),
      value: v.unknown(),
      developerMessage: v.string(),
      defaultUserMessage: v.string(),
      userMessageGlobalisationCode: v.string(),
      args: v.array(v.unknown()),
    }),
  ),
});

/** One page of a batch's FAILED lines in line order. */
export const boardingErrorsResponse = v.object({
  items: v.array(
    v.object({
      line: v.pipe(v.number(), v.description('1-based line number in the uploaded file.')),
      kind: v.nullable(v.string()),
      sourceRef: v.nullable(v.string()),
      error: v.pipe(shapeAError, v.description('The error in Shape A.')),
    }),
  ),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});
