/**
 * Documents on the servicing plane (OpenAPI `PUT /v1/servicing/documents/{documentId}`;
 * § Document (servicing): "title is editable with a reason"). Mounted at `/v1/servicing/documents`.
 */

import {
  changeDocumentTitleBody,
  changedDocumentTitleResponse,
  documentIdParam,
} from '../../../domain/servicing/schemas/documents';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: documents'];

export const servicingDocumentRoutes = factory
  .createApp()
  /**
   * Changes a document's title `{title, reason}` → 200 `{resourceId, changes: {title}}` and appends
   * `TITLE_CHANGED` to its history; another tenant's document → 404.
   */
  .put(
    '/:documentId',
    doc({
      tags,
      summary: 'Change the title of a document',
      scope: 'servicing:write',
      permission: 'UPDATE_DOCUMENT',
      mutation: true,
      responses: { 200: { description: 'Title changed', schema: changedDocumentTitleResponse } },
    }),
    requires('servicing:write', 'UPDATE_DOCUMENT'),
    pathParams(documentIdParam),
    noQuery(),
    ...jsonBody(changeDocumentTitleBody),
    idempotent(),
    async (c) => {
      const { documentId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.changeDocumentTitle({
        ...operationContext(c),
        documentId,
        title: body.title,
        reason: body.reason,
      });
      return c.json({ resourceId: result.documentId, changes: { title: result.title } }, 200);
    },
  );
