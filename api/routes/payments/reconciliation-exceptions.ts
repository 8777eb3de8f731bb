/**
 * Reconciliation exceptions (docs/lending.md "Reconciliation exceptions"; OpenAPI `GET
 * /v1/recon-exceptions`, `GET /v1/recon-exceptions/{exceptionId}`, `GET /v1/recon-exceptions/export`; docs/design.md §4 Paging;
 * docs/processes.md P1 "Reconciliation exceptions"). Mounted at `/v1/recon-exceptions`.
 *
 * Exceptions are opened by the processes (the payment-intent workflow, the daily reconciliation), never by a
 * route; operators read, export and resolve them here. Reads need scope `lending:read` and permission
 * `READ_RECONEXCEPTION`; resolving needs `lending:write` and `RESOLVE_RECONEXCEPTION`.
 */
import { accepts } from 'hono/accepts';
import {
  exportReconciliationExceptions,
  getReconciliationException,
  listReconciliationExceptions,
  type ReconciliationExceptionView,
} from '../../../db/queries/payments/reconciliation-exceptions';
import { notFound } from '../../../domain/errors';
import {
  exceptionIdParam,
  exportReconciliationExceptionsQuery,
  listReconciliationExceptionsQuery,
  reconciliationExceptionListResponse,
  reconciliationExceptionResponse,
  resolveReconciliationExceptionBody,
} from '../../../domain/payments/schemas/reconciliation-exceptions';
import { PaymentProcessEndedError } from '../../../workflows/payments/payment-intent/client';
import { csvRecord } from '../../csv';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { streamedBatches } from '../../streamed-body';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: reconciliation exceptions'];

/** Media types of the export: CSV unless `Accept` prefers NDJSON. */
const csvType = 'text/csv';
const ndjsonType = 'application/x-ndjson';

/** Columns of the CSV export, in order; `detail` is the exception's detail as compact JSON. */
export const exportColumns = [
  'exceptionId',
  'exceptionType',
  'targetType',
  'targetRef',
  'status',
  'providerRef',
  'detail',
  'createdAt',
  'lastSeenAt',
  'resolution',
  'resolutionReason',
  'resolvedBy',
  'resolvedAt',
] as const;

function csvLine(e: ReconciliationExceptionView): string {
  return csvRecord([
    e.exceptionId,
    e.exceptionType,
    e.targetType,
    e.targetRef,
    e.status,
    e.detail.providerRef,
    JSON.stringify(e.detail),
    e.createdAt,
    e.lastSeenAt,
    e.resolution,
    e.resolutionReason,
    e.resolvedBy,
    e.resolvedAt,
  ]);
}

export const reconciliationExceptionRoutes = factory
  .createApp()
  /**
   * The tenant's exceptions newest first (descending `exceptionId`, i.e. creation order): `status` (`open` |
   * `resolved`), `exceptionType`, `limit` (1–200, default 50), `offset` (≥ 0, default 0) → 200 `{items}` of
   * exceptions as `GET …/{exceptionId}` shows them; a page shorter than `limit` ends the collection (docs/design.md §4 Paging). 400 Shape A for an unknown parameter, an unknown filter value or an out-of-range `limit`/`offset`.
   */
  .get(
    '/',
    doc({
      tags,
      summary: 'List reconciliation exceptions',
      description:
        'Newest first. Filters `status` (`open`, `resolved`) and `exceptionType` (`SETTLED_NOT_POSTED`, `UNMATCHED_SETTLEMENT`, `POSTED_NOT_SETTLED`, `RETURN_NOT_REVERSED`); `limit` 1–200 (default 50) and `offset`; a page shorter than `limit` ends the collection.',
      scope: 'lending:read',
      permission: 'READ_RECONEXCEPTION',
      responses: {
        200: { description: 'One page of exceptions', schema: reconciliationExceptionListResponse },
      },
    }),
    requires('lending:read', 'READ_RECONEXCEPTION'),
    queryParams(listReconciliationExceptionsQuery),
    async (c) => {
      const query = c.req.valid('query');
      const items = await listReconciliationExceptions(c.get('deps').db, c.get('tenantId'), query);
      return c.json({ items }, 200);
    },
  )
  /**
   * Every exception matching `status` and `exceptionType` (same filters and 400s as the list, no paging), oldest
   * first, streamed in constant memory: keyset batches of 500 rows, each read only when the client has taken the
   * previous one. `text/csv; charset=utf-8; header=present` (RFC 4180, CRLF, header row `exportColumns`; cells
   * that start like a spreadsheet formula are prefixed with `'`, OWASP CSV Injection) unless `Accept` prefers
   * `application/x-ndjson`: one exception per line as `GET …/{exceptionId}` shows it. `Vary: Accept`; a
   * `Content-Disposition` names the file. An error after the first byte aborts the transfer.
   */
  .get(
    '/export',
    doc({
      tags,
      summary: 'Export reconciliation exceptions',
      description:
        "Oldest first, streamed. `text/csv` (RFC 4180 with a header row; a cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'`) by default; `application/x-ndjson` (one exception per line, the shape of GET /v1/recon-exceptions/{exceptionId}) when `Accept` prefers it. Filters as the list; no paging.",
      scope: 'lending:read',
      permission: 'READ_RECONEXCEPTION',
      responses: {
        200: {
          description: 'CSV (`text/csv`) or NDJSON (`application/x-ndjson`) of every matching exception',
        },
      },
    }),
    requires('lending:read', 'READ_RECONEXCEPTION'),
    queryParams(exportReconciliationExceptionsQuery),
    async (c) => {
      const filter = c.req.valid('query');
      const mediaType = accepts(c, { header: 'Accept', supports: [csvType, ndjsonType], default: csvType });
      const batches = exportReconciliationExceptions(c.get('deps').db, c.get('tenantId'), filter);
      // The first batch is read before answering, so a failing database still answers with a Shape A error.
      const first = await batches.next();
      const body =
        mediaType === ndjsonType
          ? streamedBatches(first, batches, '', (e) => `${JSON.stringify(e)}\n`)
          : streamedBatches(first, batches, csvRecord(exportColumns), csvLine);
      const extension = mediaType === ndjsonType ? 'ndjson' : 'csv';
      return c.body(body, 200, {
        'Content-Type': mediaType === ndjsonType ? ndjsonType : `${csvType}; charset=utf-8; header=present`,
        'Content-Disposition': `attachment; filename="recon-exceptions.${extension}"`,
        'Cache-Control': 'no-store',
        Vary: 'Accept',
      });
    },
  )
  /**
   * One exception → 200 with the spec's fields exactly (`exceptionId` integer, `exceptionType`, `targetType`,
   * `targetRef`, `status` `open`/`resolved`, `detail` with `providerRef` and other string values, `createdAt`,
   * `lastSeenAt` ISO 8601 instants in UTC), plus, once resolved, `resolution`, `resolutionReason`, `resolvedBy`
   * and `resolvedAt` (our addition). 404 when absent or another tenant's; 400 for an id that is not a positive
   * integer.
   */
  .get(
    '/:exceptionId',
    doc({
      tags,
      summary: 'Get a reconciliation exception',
      description:
        'The spec fields; once resolved also `resolution`, `resolutionReason`, `resolvedBy` and `resolvedAt`.',
      scope: 'lending:read',
      permission: 'READ_RECONEXCEPTION',
      responses: { 200: { description: 'The exception', schema: reconciliationExceptionResponse } },
    }),
    requires('lending:read', 'READ_RECONEXCEPTION'),
    pathParams(exceptionIdParam),
    noQuery(),
    async (c) => {
      const { exceptionId } = c.req.valid('param');
      const exception = await getReconciliationException(c.get('deps').db, c.get('tenantId'), exceptionId);
      if (!exception) throw notFound('Reconciliation exception', exceptionId);
      return c.json(exception, 200);
    },
  )
  /**
   * Resolves an open exception: body `{resolution: "POST_AS_SETTLED" | "POST_INTENT_AMOUNT" | "REFUND_BORROWER" |
   * "DISMISS", reason}` (`reason` 1–2000 characters, never an identifier or account number) → 200 with the
   * exception as `GET …/{exceptionId}` shows it, now `resolved`; `resolvedBy` is the `Service-Actor`, else the
   * client id. Emits `reconciliation.exception.resolved`. An open SETTLED_NOT_POSTED exception of a payment intent
   * is resolved through the payment's process, which then posts the settled amount (POST_AS_SETTLED) or the
   * intent's (POST_INTENT_AMOUNT), or ends the payment FAILED (REFUND_BORROWER, DISMISS), and the answer comes once
   * it has. 404 when absent or another tenant's; 409
   * `error.msg.reconciliation.exception.invalid.state.transition` when already resolved; Idempotency-Key replays
   * the first answer.
   */
  .post(
    '/:exceptionId/resolve',
    doc({
      tags,
      summary: 'Resolve a reconciliation exception',
      description:
        '`resolution` POST_AS_SETTLED, POST_INTENT_AMOUNT, REFUND_BORROWER or DISMISS, with a `reason`. Already resolved → 409 `error.msg.reconciliation.exception.invalid.state.transition`. Emits `reconciliation.exception.resolved`.',
      scope: 'lending:write',
      permission: 'RESOLVE_RECONEXCEPTION',
      mutation: true,
      responses: { 200: { description: 'Exception resolved', schema: reconciliationExceptionResponse } },
    }),
    requires('lending:write', 'RESOLVE_RECONEXCEPTION'),
    pathParams(exceptionIdParam),
    noQuery(),
    ...jsonBody(resolveReconciliationExceptionBody),
    idempotent(),
    async (c) => {
      const { exceptionId } = c.req.valid('param');
      const { resolution, reason } = c.req.valid('json');
      const context = operationContext(c);
      const { db, activities, processes } = c.get('deps');
      const actor = context.actor ?? c.get('auth').clientId;
      const open = await getReconciliationException(db, context.tenantId, exceptionId);
      if (!open) throw notFound('Reconciliation exception', exceptionId);
      // A settlement a payment's process waits on is resolved by that process (docs/processes.md P1): it
      // records the resolution and posts, or fails, the payment; the answer comes once it has.
      if (
        open.status === 'open' &&
        open.exceptionType === 'SETTLED_NOT_POSTED' &&
        open.targetType === 'PAYMENT_INTENT'
      ) {
        const paymentId = Number(open.targetRef);
        try {
          await processes.paymentIntents.resolveSettlement(
            { tenantId: context.tenantId, paymentId },
            { exceptionId, resolution, reason, actor },
          );
          const resolved = await getReconciliationException(db, context.tenantId, exceptionId);
          if (!resolved) throw notFound('Reconciliation exception', exceptionId);
          return c.json(resolved, 200);
        } catch (err) {
          // No process waits on it any more (it ended): the exception is resolved as a record only.
          if (!(err instanceof PaymentProcessEndedError)) throw err;
        }
      }
      const exception = await activities.resolveReconciliationException({
        ...context,
        exceptionId,
        resolution,
        reason,
        actor,
      });
      return c.json(exception, 200);
    },
  );
