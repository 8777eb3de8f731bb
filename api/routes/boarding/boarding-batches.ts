/**
 * Portfolio boarding batches (docs/processes.md P3). Mounted at `/v1/boarding/batches`.
 *
 * The upload streams the NDJSON body into PostgreSQL through `stageBoardingBatch` (COPY, constant memory), which
 * stores the batch and the start intent of `boarding/<tenant>/<batchId>` in one transaction; the route then starts
 * the process through its client port and marks the intent started (should the API die in between, the
 * start-intent relay starts it: docs/processes.md P0). The generic `idempotent()` middleware buffers bodies, so the
 * upload keeps its `Idempotency-Key` as the batch's request key instead: a retry with the same key answers the
 * first batch without reading the body. There is no JSON body-size limit on this route (the body is never
 * buffered; a line is at most 1 MiB, a longer one is FAILED).
 *
 * Reads answer from the process's progress query while it runs and from the batch row otherwise; controls signal
 * the process (pause, resume, cancel), 409 once the batch has ended.
 */

import type { Context } from 'hono';
import {
  type BoardingBatchRecord,
  countBoardingLines,
  getBoardingBatch,
  listBoardingLineErrors,
} from '../../../db/queries/boarding/boarding-batches';
import type { BoardingBatchView } from '../../../domain/boarding/batch';
import {
  boardingBatchIdParam,
  boardingBatchResponse,
  boardingErrorsQuery,
  boardingErrorsResponse,
  stagedBoardingBatchResponse,
  uploadBoardingBatchQuery,
} from '../../../domain/boarding/schemas/boarding';
import { boardingBatchViewOf, isFinalBoardingStatus } from '../../../domain/boarding/view';
import { DomainError, fieldError, notFound } from '../../../domain/errors';
import type { AppEnv } from '../../env';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { streamChunks } from '../../streamed-body';
import { noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: portfolio boarding'];

const ndjsonContentType = /^application\/x-ndjson\s*(;.*)?$/i;

/** The line format, as the OpenAPI document shows the upload's body. */
const lineDescription =
  'NDJSON (`application/x-ndjson`, UTF-8): one record per line, `{"kind", "sourceRef", "body"}`, lines numbered from 1 (a trailing CR is stripped; blank lines are skipped but counted). `kind` is one of `charge`, `loanProduct`, `customer`, `restriction`, `loan`, `funding`, `payment`, `verification`; `sourceRef` is the source system\'s key (1–128 characters, no control characters, never an identifier or account number); `body` is the public route\'s body with source refs in place of ids (JSON Schema of a line: `domain/boarding/line.schema.json`). A line longer than 1 MiB, or not of this shape, is staged FAILED and reported by `GET …/errors`; it never fails the upload.';

/** The view of `row`: from the process's query while it may run, else from the row (module note). */
async function batchViewOf(c: Context<AppEnv>, row: BoardingBatchRecord): Promise<BoardingBatchView> {
  const { db, processes, logger } = c.get('deps');
  const tenantId = c.get('tenantId');
  let progress = null;
  if (!isFinalBoardingStatus(row.status)) {
    try {
      progress = await processes.boarding.progress({ tenantId, batchId: row.batchId });
    } catch (err) {
      // The row is the answer when the process cannot be asked (docs/processes.md P3: "from a workflow query").
      logger.warn(
        { err, batchId: row.batchId },
        'boarding progress query failed; answering from the batch row',
      );
    }
  }
  const rowCounts =
    progress !== null && progress.status !== 'STAGED'
      ? progress.counts
      : (row.counts ?? (await countBoardingLines(db, tenantId, row.batchId)));
  return boardingBatchViewOf(row, rowCounts, progress);
}

/** The tenant's batch, or 404 (unknown or another tenant's: docs/design.md §4 "Scopes and permissions"). */
async function batchOrNotFound(c: Context<AppEnv>, batchId: number): Promise<BoardingBatchRecord> {
  const row = await getBoardingBatch(c.get('deps').db, c.get('tenantId'), batchId);
  if (!row) throw notFound('Boarding batch', batchId);
  return row;
}

function invalidTransition(batchId: number, message: string): DomainError {
  const code = 'error.msg.boarding.batch.invalid.state.transition';
  return new DomainError(code, message, { errors: [fieldError('batchId', batchId, message, code)] });
}

/** A control route: `action` sent to the batch's process, answered with the batch view. */
function controlRoute(action: 'pause' | 'resume' | 'cancel', summary: string, description: string) {
  return [
    doc({
      tags,
      summary,
      description,
      scope: 'lending:write',
      permission: 'BOARD_PORTFOLIO',
      mutation: true,
      responses: { 200: { description: 'The batch after the signal', schema: boardingBatchResponse } },
    }),
    requires('lending:write', 'BOARD_PORTFOLIO'),
    pathParams(boardingBatchIdParam),
    noQuery(),
    idempotent(),
    async (c: Context<AppEnv, string, { out: { param: { batchId: number } } }>) => {
      const { batchId } = c.req.valid('param');
      const row = await batchOrNotFound(c, batchId);
      if (isFinalBoardingStatus(row.status)) {
        throw invalidTransition(
          batchId,
          `Boarding batch ${batchId} has ended (${row.status}); it cannot ${action}.`,
        );
      }
      const signalled = await c
        .get('deps')
        .processes.boarding.control({ tenantId: c.get('tenantId'), batchId }, action);
      if (!signalled) {
        throw invalidTransition(
          batchId,
          `Boarding batch ${batchId} has no running process (it has ended or not started yet); it cannot ${action}.`,
        );
      }
      return c.json(await batchViewOf(c, await batchOrNotFound(c, batchId)), 200);
    },
  ] as const;
}

export const boardingBatchRoutes = factory
  .createApp()
  /**
   * Uploads a batch: the NDJSON body (`Content-Type: application/x-ndjson`, any size) streamed into PostgreSQL →
   * 202 `{batchId, status: "STAGED", records}` and the process `boarding/<tenant>/<batchId>` started. Another
   * content type → 415 naming `header.Content-Type`; `fileName` over 255 characters → 400. Malformed lines are
   * staged FAILED (see `…/errors`), never fatal. Same `Idempotency-Key` → the first batch, nothing staged again.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Upload a boarding batch',
      description:
        "Streams the file into PostgreSQL (COPY, constant memory whatever its size), stores the batch (status `STAGED`) and starts its durable process `boarding/<tenant>/<batchId>` on the `boarding` queue, which validates every line first and then boards in the spec's order (products and charges, customers, restrictions, loans, fundings, payments, verification). Optional query `fileName` names the file in the batch and the process summary. A retry with the same `Idempotency-Key` answers the first batch (202) without staging again. Another content type → 415.",
      scope: 'lending:write',
      permission: 'BOARD_PORTFOLIO',
      mutation: true,
      requestBody: { mediaType: 'application/x-ndjson', description: lineDescription },
      errorStatuses: [415],
      responses: {
        202: { description: 'Batch staged; its process started', schema: stagedBoardingBatchResponse },
      },
    }),
    requires('lending:write', 'BOARD_PORTFOLIO'),
    queryParams(uploadBoardingBatchQuery),
    async (c) => {
      const contentType = c.req.header('content-type') ?? '';
      if (!ndjsonContentType.test(contentType)) {
        const message = 'The body must be application/x-ndjson (one JSON record per line).';
        throw new DomainError('error.msg.unsupported.media.type', message, {
          errors: [fieldError('header.Content-Type', contentType || null, message)],
        });
      }
      const { platform, startMarks, processes } = c.get('deps');
      const staged = await platform.stageBoardingBatch({
        ...operationContext(c),
        body: streamChunks(c.req.raw.body),
        fileName: c.req.valid('query').fileName ?? null,
      });
      // Also on a replay: starting is a no-op when the process runs or ran, and covers a start lost in a crash.
      await startAfterCommit(startMarks, staged.workflow, (input) => processes.boarding.start(input));
      return c.json(
        { batchId: staged.batch.batchId, status: 'STAGED' as const, records: staged.batch.records },
        202,
      );
    },
  )
  /** A batch: status, counts per kind, times and ETA (domain `BoardingBatchView`); another tenant's → 404. */
  .get(
    '/:batchId',
    doc({
      tags,
      summary: 'Read a boarding batch',
      description:
        "Status (`STAGED`, `VALIDATING`, `RUNNING`, `PAUSED`, `COMPLETED`, `COMPLETED_WITH_ERRORS`, `CANCELLED`), lines staged and malformed, counts per kind (`total`, `boarded`, `failed`), `startedAt`, `completedAt` and `etaSeconds`: from the process's progress query while it runs, else as the batch row last recorded it.",
      scope: 'lending:read',
      permission: 'READ_BOARDINGBATCH',
      responses: { 200: { description: 'The batch', schema: boardingBatchResponse } },
    }),
    requires('lending:read', 'READ_BOARDINGBATCH'),
    pathParams(boardingBatchIdParam),
    noQuery(),
    async (c) => {
      const { batchId } = c.req.valid('param');
      return c.json(await batchViewOf(c, await batchOrNotFound(c, batchId)), 200);
    },
  )
  /** The batch's FAILED lines in line order, each with its Shape A error: `limit` 1–1000 (default 100), `offset`. */
  .get(
    '/:batchId/errors',
    doc({
      tags,
      summary: "List a boarding batch's rejected lines",
      description:
        'The lines that failed (malformed at upload, invalid at validation, or rejected while boarding), in line order: `{line, kind, sourceRef, error}`, `error` in Shape A. `limit` 1–1000 (default 100), `offset`.',
      scope: 'lending:read',
      permission: 'READ_BOARDINGBATCH',
      responses: { 200: { description: 'One page of rejected lines', schema: boardingErrorsResponse } },
    }),
    requires('lending:read', 'READ_BOARDINGBATCH'),
    pathParams(boardingBatchIdParam),
    queryParams(boardingErrorsQuery),
    async (c) => {
      const { batchId } = c.req.valid('param');
      const page = c.req.valid('query');
      await batchOrNotFound(c, batchId);
      const rows = await listBoardingLineErrors(c.get('deps').db, c.get('tenantId'), batchId, page);
      return c.json(
        {
          items: rows.slice(0, page.limit),
          limit: page.limit,
          offset: page.offset,
          hasMore: rows.length > page.limit,
        },
        200,
      );
    },
  )
  /** Pauses the batch after the work in flight → 200 with the batch; an ended batch → 409. */
  .post(
    '/:batchId/pause',
    ...controlRoute(
      'pause',
      'Pause a boarding batch',
      'Signals the process to start no new work once the chunks in flight finish (status `PAUSED`). A batch that has ended (`COMPLETED`, `COMPLETED_WITH_ERRORS`, `CANCELLED`) → 409 `error.msg.boarding.batch.invalid.state.transition`.',
    ),
  )
  /** Resumes a paused batch → 200 with the batch; an ended batch → 409. */
  .post(
    '/:batchId/resume',
    ...controlRoute(
      'resume',
      'Resume a boarding batch',
      'Signals the process to go on where it paused. A batch that has ended → 409 `error.msg.boarding.batch.invalid.state.transition`.',
    ),
  )
  /** Cancels the batch after the work in flight (what was boarded stays) → 200; an ended batch → 409. */
  .post(
    '/:batchId/cancel',
    ...controlRoute(
      'cancel',
      'Cancel a boarding batch',
      'Signals the process to stop for good once the chunks in flight finish (status `CANCELLED`); what was boarded stays boarded. A batch that has ended → 409 `error.msg.boarding.batch.invalid.state.transition`.',
    ),
  );
