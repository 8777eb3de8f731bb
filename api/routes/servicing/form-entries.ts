/**
 * Form entries: a case's answers to a publication of its case type's field definitions, and their history
 * (docs/processes.md P4 "Form entries"; OpenAPI `GET /v1/form-entries/{entryId}/history`,
 * docs/servicing.md "Case types, field definitions and form entries"). Mounted at `/v1/form-entries`. Answers by field type:
 * domain/servicing/form-fields.ts.
 */
import {
  getFormEntry,
  listFormEntries,
  listFormEntryHistory,
} from '../../../db/queries/servicing/form-entries';
import { notFound } from '../../../domain/errors';
import {
  createFormEntryBody,
  entryIdParam,
  formEntryHistoryResponse,
  formEntryListResponse,
  formEntryResponse,
  listFormEntriesQuery,
  updatedFormEntryResponse,
  updateFormEntryBody,
} from '../../../domain/servicing/schemas/form-entries';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: form entries'];

export const formEntryRoutes = factory
  .createApp()
  /**
   * Creates a form entry `{caseId, publicationId, answers: {fieldKey: value}}` → 201 the entry `{entryId,
   * resourceId, caseId, publicationId, answers, createdAt, updatedAt}`, with an `ANSWERS_CREATED` history item and
   * a `FORM_ENTRY_CREATED` case effect. ON_CREATE fields are required; unknown keys and bad values → 400 naming
   * `answers.<fieldKey>`; case or publication unknown → 404; case not OPEN → 409; publication of another case type
   * → 409 `error.msg.form.entry.case.type.mismatch`.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a form entry',
      scope: 'servicing:write',
      permission: 'CREATE_FORMENTRY',
      mutation: true,
      responses: { 201: { description: 'Form entry created', schema: formEntryResponse } },
    }),
    requires('servicing:write', 'CREATE_FORMENTRY'),
    noQuery(),
    ...jsonBody(createFormEntryBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const created = await c.get('deps').activities.createFormEntry({ ...operationContext(c), ...body });
      return c.json(created, 201);
    },
  )
  /** A case's form entries newest first: `caseId` (required), `limit`, `offset` → `{items, limit, offset, hasMore}`. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List the form entries of a case',
      scope: 'servicing:read',
      permission: 'READ_FORMENTRY',
      responses: { 200: { description: 'One page of form entries', schema: formEntryListResponse } },
    }),
    requires('servicing:read', 'READ_FORMENTRY'),
    queryParams(listFormEntriesQuery),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await listFormEntries(c.get('deps').db, c.get('tenantId'), query);
      if (!rows) throw notFound('Case', query.caseId);
      return c.json(
        {
          items: rows.slice(0, query.limit),
          limit: query.limit,
          offset: query.offset,
          hasMore: rows.length > query.limit,
        },
        200,
      );
    },
  )
  /** Reads a form entry; another tenant's → 404. */
  .get(
    '/:entryId',
    doc({
      tags,
      summary: 'Read a form entry',
      scope: 'servicing:read',
      permission: 'READ_FORMENTRY',
      responses: { 200: { description: 'The form entry', schema: formEntryResponse } },
    }),
    requires('servicing:read', 'READ_FORMENTRY'),
    pathParams(entryIdParam),
    noQuery(),
    async (c) => {
      const { entryId } = c.req.valid('param');
      const found = await getFormEntry(c.get('deps').db, c.get('tenantId'), entryId);
      if (!found) throw notFound('Form entry', entryId);
      return c.json(found, 200);
    },
  )
  /**
   * Changes answers `{answers: {fieldKey: value | null}, reason}` (null clears: CLEAR; otherwise SET) → 200 the
   * entry with this call's `changes` `[{fieldKey, operation, before, after}]`; appends `ANSWERS_UPDATED` and a
   * `FORM_ENTRY_UPDATED` case effect when something changed. Unknown keys, bad values or clearing an ON_CREATE
   * field → 400; case not OPEN → 409.
   */
  .patch(
    '/:entryId',
    doc({
      tags,
      summary: 'Change the answers of a form entry',
      scope: 'servicing:write',
      permission: 'UPDATE_FORMENTRY',
      mutation: true,
      responses: { 200: { description: 'Answers changed', schema: updatedFormEntryResponse } },
    }),
    requires('servicing:write', 'UPDATE_FORMENTRY'),
    pathParams(entryIdParam),
    noQuery(),
    ...jsonBody(updateFormEntryBody),
    idempotent(),
    async (c) => {
      const { entryId } = c.req.valid('param');
      const body = c.req.valid('json');
      const updated = await c
        .get('deps')
        .activities.updateFormEntry({ ...operationContext(c), entryId, ...body });
      return c.json(updated, 200);
    },
  )
  /**
   * The entry's history in the order it happened → 200 `{items: [{action, publicationId, changes: [{fieldKey,
   * operation, before, after}], reason, actorDisplayName, occurredAt}]}` (docs/servicing.md "Case types, field definitions and form entries"):
   * `ANSWERS_CREATED` first (every answer as SET from null, reason null), then one `ANSWERS_UPDATED` per change;
   * `actorDisplayName` is the request's `Service-Actor` (null without one). Another tenant's entry → 404.
   */
  .get(
    '/:entryId/history',
    doc({
      tags,
      summary: 'Read the history of a form entry',
      scope: 'servicing:read',
      permission: 'READ_FORMENTRY',
      responses: { 200: { description: 'The history items', schema: formEntryHistoryResponse } },
    }),
    requires('servicing:read', 'READ_FORMENTRY'),
    pathParams(entryIdParam),
    noQuery(),
    async (c) => {
      const { entryId } = c.req.valid('param');
      const items = await listFormEntryHistory(c.get('deps').db, c.get('tenantId'), entryId);
      if (!items) throw notFound('Form entry', entryId);
      return c.json({ items }, 200);
    },
  );
