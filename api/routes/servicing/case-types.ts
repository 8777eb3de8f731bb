/**
 * Case types and their field definitions (docs/processes.md P4 "Case types and field definitions"; OpenAPI `GET /v1/servicing/admin/case-types/{caseTypeCode}/field-definitions`, docs/servicing.md "Case types, field definitions and form entries"). Mounted at `/v1/servicing/admin/case-types`.
 */
import { getLatestFieldDefinitions, listCaseTypes } from '../../../db/queries/servicing/form-entries';
import { notFound } from '../../../domain/errors';
import {
  caseTypeCodeParam,
  caseTypeListResponse,
  caseTypeResponse,
  createCaseTypeBody,
  fieldDefinitionsReadResponse,
  listCaseTypesQuery,
  publicationResponse,
  publishFieldDefinitionsBody,
} from '../../../domain/servicing/schemas/form-entries';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: case types'];

export const caseTypeRoutes = factory
  .createApp()
  /** The tenant's case types by code: `limit` (1–200, default 50), `offset` → `{items, limit, offset, hasMore}`. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List case types',
      scope: 'servicing:read',
      permission: 'READ_CASETYPE',
      responses: { 200: { description: 'One page of case types', schema: caseTypeListResponse } },
    }),
    requires('servicing:read', 'READ_CASETYPE'),
    queryParams(listCaseTypesQuery),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await listCaseTypes(c.get('deps').db, c.get('tenantId'), query);
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
  /**
   * Adds a case type `{caseTypeCode, displayName}` → 201 `{caseTypeCode, displayName, createdAt}`; a code the
   * tenant already has → 409 `error.msg.case.type.duplicate`.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a case type',
      scope: 'servicing:write',
      permission: 'CREATE_CASETYPE',
      mutation: true,
      responses: { 201: { description: 'Case type created', schema: caseTypeResponse } },
    }),
    requires('servicing:write', 'CREATE_CASETYPE'),
    noQuery(),
    ...jsonBody(createCaseTypeBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const created = await c.get('deps').activities.createCaseType({ ...operationContext(c), ...body });
      return c.json(created, 201);
    },
  )
  /**
   * The latest published field definitions of a case type → 200 `{caseTypeCode, publicationId, version,
   * fieldDefinitions: {sections: [{key, label, fields: [{key, label, type, requiredAt, options?, currency?}]}]}}`.
   * A type with nothing published yet answers `publicationId` and `version` null and no sections; an unknown
   * (or another tenant's) code → 404.
   */
  .get(
    '/:caseTypeCode/field-definitions',
    doc({
      tags,
      summary: 'Read the field definitions of a case type',
      scope: 'servicing:read',
      permission: 'READ_CASETYPE',
      responses: {
        200: { description: 'The latest field definitions', schema: fieldDefinitionsReadResponse },
      },
    }),
    requires('servicing:read', 'READ_CASETYPE'),
    pathParams(caseTypeCodeParam),
    noQuery(),
    async (c) => {
      const { caseTypeCode } = c.req.valid('param');
      const found = await getLatestFieldDefinitions(c.get('deps').db, c.get('tenantId'), caseTypeCode);
      if (!found) throw notFound('Case type', caseTypeCode);
      return c.json(found, 200);
    },
  )
  /**
   * Publishes a new version of the field definitions `{fieldDefinitions: {sections}}` → 201 `{caseTypeCode,
   * publicationId, version, fieldDefinitions}`. Field types TEXT, NUMBER, MONEY (optional `currency`), DATE,
   * BOOLEAN, ENUM (`options` required); `requiredAt` OPTIONAL, ON_CREATE, ON_CLOSE. Section keys unique, field keys
   * unique across all sections, at most 50 sections, 100 fields per section and 200 in all. Earlier versions stay
   * (append-only) and their form entries keep them. Unknown code → 404; a broken rule → 400 naming the field.
   */
  .put(
    '/:caseTypeCode/field-definitions',
    doc({
      tags,
      summary: 'Publish a new version of the field definitions of a case type',
      scope: 'servicing:write',
      permission: 'PUBLISH_CASETYPEFIELDS',
      mutation: true,
      responses: { 201: { description: 'Version published', schema: publicationResponse } },
    }),
    requires('servicing:write', 'PUBLISH_CASETYPEFIELDS'),
    pathParams(caseTypeCodeParam),
    noQuery(),
    ...jsonBody(publishFieldDefinitionsBody),
    idempotent(),
    async (c) => {
      const { caseTypeCode } = c.req.valid('param');
      const { fieldDefinitions } = c.req.valid('json');
      const published = await c
        .get('deps')
        .activities.publishFieldDefinitions({ ...operationContext(c), caseTypeCode, fieldDefinitions });
      return c.json(published, 201);
    },
  );
