/**
 * Servicing cases (docs/servicing.md: close, effects; create, read).
 * Mounted at `/v1/servicing/cases`.
 */
import { getCase, listCaseEffects } from '../../../db/queries/servicing/servicing';
import { decodeCursor, encodeCursor } from '../../../domain/cursor';
import { notFound } from '../../../domain/errors';
import {
  caseIdParam,
  caseResponse,
  closeCaseBody,
  closeCaseResponse,
  createCaseBody,
  createdCaseResponse,
  effectsQuery,
  effectsResponse,
} from '../../../domain/servicing/schemas/servicing';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: cases'];
const effectsRoute = '/v1/servicing/cases/:caseId/effects';

export const caseRoutes = factory
  .createApp()
  /** Opens a case. 201 `{caseId, resourceId, status: "OPEN"}`; unknown caseTypeCode → 400. */
  .post(
    '/',
    doc({
      tags,
      summary: 'Open a case',
      scope: 'servicing:write',
      permission: 'CREATE_SERVICINGCASE',
      mutation: true,
      responses: { 201: { description: 'Case opened', schema: createdCaseResponse } },
    }),
    requires('servicing:write', 'CREATE_SERVICINGCASE'),
    noQuery(),
    ...jsonBody(createCaseBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.openCase({ ...operationContext(c), ...body });
      return c.json({ caseId: result.caseId, resourceId: result.caseId, status: result.status }, 201);
    },
  )
  /** Reads a case; another tenant's case → 404. */
  .get(
    '/:caseId',
    doc({
      tags,
      summary: 'Read a case',
      scope: 'servicing:read',
      permission: 'READ_SERVICINGCASE',
      responses: { 200: { description: 'The case', schema: caseResponse } },
    }),
    requires('servicing:read', 'READ_SERVICINGCASE'),
    pathParams(caseIdParam),
    noQuery(),
    async (c) => {
      const { caseId } = c.req.valid('param');
      const found = await getCase(c.get('deps').db, c.get('tenantId'), caseId);
      if (!found) throw notFound('Case', caseId);
      return c.json(found, 200);
    },
  )
  /** Closes an open case (docs/servicing.md "Promises to pay"); emits `case.transitioned`; closing a closed case → 409. */
  .post(
    '/:caseId/close',
    doc({
      tags,
      summary: 'Close a case',
      scope: 'servicing:write',
      permission: 'CLOSE_SERVICINGCASE',
      mutation: true,
      responses: { 200: { description: 'Case closed', schema: closeCaseResponse } },
    }),
    requires('servicing:write', 'CLOSE_SERVICINGCASE'),
    pathParams(caseIdParam),
    noQuery(),
    ...jsonBody(closeCaseBody),
    idempotent(),
    async (c) => {
      const { caseId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.closeCase({ ...operationContext(c), caseId, ...body });
      return c.json(
        { resourceId: result.caseId, changes: { status: result.status, outcomeCode: result.outcomeCode } },
        200,
      );
    },
  )
  /**
   * The case's effects in the order they happened: `limit` (1–200, default 50) and an opaque
   * `cursor` bound to this case → `{items, nextCursor, hasMore}` (docs/design.md §4 Paging, case effects).
   */
  .get(
    '/:caseId/effects',
    doc({
      tags,
      summary: 'List the effects of a case',
      scope: 'servicing:read',
      permission: 'READ_CASEEFFECT',
      responses: { 200: { description: 'One page of effects', schema: effectsResponse } },
    }),
    requires('servicing:read', 'READ_CASEEFFECT'),
    pathParams(caseIdParam),
    queryParams(effectsQuery),
    async (c) => {
      const { caseId } = c.req.valid('param');
      const { limit, cursor } = c.req.valid('query');
      const { db, config } = c.get('deps');
      const tenantId = c.get('tenantId');
      const binding = { caseId: String(caseId) };
      const afterId = cursor
        ? Number(decodeCursor(config.cursorSigningKey, c.get('tenantId'), effectsRoute, binding, cursor).id)
        : null;
      if (!(await getCase(db, tenantId, caseId))) throw notFound('Case', caseId);
      const rows = await listCaseEffects(db, tenantId, caseId, { afterId, limit });
      const hasMore = rows.length > limit;
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      const nextCursor =
        hasMore && last
          ? encodeCursor(config.cursorSigningKey, c.get('tenantId'), effectsRoute, binding, {
              sortKey: String(last.effectId),
              id: String(last.effectId),
            })
          : null;
      return c.json({ items, nextCursor, hasMore }, 200);
    },
  );
