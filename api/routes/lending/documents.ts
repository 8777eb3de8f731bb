/**
 * Document records (OpenAPI `POST /v1/documents`; `GET /v1/documents/{documentId}/history`). Metadata only: the bytes live with a
 * storage provider (`storageRef`). Titles change through the servicing plane (api/routes/servicing/documents.ts).
 * Mounted at `/v1/documents`.
 */
import { getDocument, listDocumentHistory } from '../../../db/queries/lending/documents';
import { notFound } from '../../../domain/errors';
import {
  createDocumentBody,
  createdDocumentResponse,
  documentHistoryResponse,
  documentIdParam,
  documentResponse,
} from '../../../domain/servicing/schemas/documents';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: documents'];

export const documentRoutes = factory
  .createApp()
  /**
   * Records a document `{title, documentType, loanId?, customerId?, storageRef?}` → 201
   * `{documentId, resourceId}`, with a `DOCUMENT_CREATED` history item (actor from `Service-Actor`,
   * correlation id = request id). A linked loan or customer unknown to the tenant → 400 naming it.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Record a document',
      scope: 'lending:write',
      permission: 'CREATE_DOCUMENT',
      mutation: true,
      responses: { 201: { description: 'Document recorded', schema: createdDocumentResponse } },
    }),
    requires('lending:write', 'CREATE_DOCUMENT'),
    noQuery(),
    ...jsonBody(createDocumentBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.createDocument({
        ...operationContext(c),
        title: body.title,
        documentType: body.documentType,
        loanId: body.loanId ?? null,
        customerId: body.customerId ?? null,
        storageRef: body.storageRef ?? null,
      });
      return c.json({ documentId: result.documentId, resourceId: result.documentId }, 201);
    },
  )
  /** A document's metadata; another tenant's → 404. */
  .get(
    '/:documentId',
    doc({
      tags,
      summary: 'Read a document',
      scope: 'lending:read',
      permission: 'READ_DOCUMENT',
      responses: { 200: { description: 'The document', schema: documentResponse } },
    }),
    requires('lending:read', 'READ_DOCUMENT'),
    pathParams(documentIdParam),
    noQuery(),
    async (c) => {
      const { documentId } = c.req.valid('param');
      const found = await getDocument(c.get('deps').db, c.get('tenantId'), documentId);
      if (!found) throw notFound('Document', documentId);
      return c.json(found, 200);
    },
  )
  /**
   * A document's history in the order it happened: 200 `{items: [{action, occurredAt, actorUsername,
   * correlationId}]}`; another tenant's document → 404.
   */
  .get(
    '/:documentId/history',
    doc({
      tags,
      summary: 'Read the history of a document',
      scope: 'lending:read',
      permission: 'READ_DOCUMENT',
      responses: { 200: { description: 'The history items', schema: documentHistoryResponse } },
    }),
    requires('lending:read', 'READ_DOCUMENT'),
    pathParams(documentIdParam),
    noQuery(),
    async (c) => {
      const { documentId } = c.req.valid('param');
      const items = await listDocumentHistory(c.get('deps').db, c.get('tenantId'), documentId);
      if (!items) throw notFound('Document', documentId);
      return c.json({ items }, 200);
    },
  );
