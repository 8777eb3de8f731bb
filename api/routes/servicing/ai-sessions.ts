/**
 * AI-assisted sessions and their outputs (docs/servicing.md "AI sessions and their outputs",
 * docs/design.md §5 "Error details", Shape B; docs/processes.md P4 "AI session outputs"). Mounted at `/v1/servicing/ai-sessions`.
 *
 * - `POST /` and `GET /{aiSessionId}` are ordinary routes: `Service-Tenant` required, Shape A errors.
 * - The output routes (`POST|GET /{aiSessionId}/outputs`, `GET /{aiSessionId}/outputs/{outputId}`) take the
 *   tenant from the token (no `Service-Tenant` needed; when sent it must name the token's tenant, else 403) and
 *   answer EVERY error as Shape B (RFC 9457 `application/problem+json`): both are set up before authentication by
 *   `problemErrors` and `tenantFromToken` (api/app.ts), so authentication, rate limit, idempotency and validation
 *   answer in that shape too. Validation failures are 422 `validation_error` there (never 400).
 *
 * A session of another tenant, or an id naming none, is 404 everywhere; ids are never echoed in errors.
 */

import * as v from 'valibot';
import { getAiOutput, getAiSession, listAiOutputs } from '../../../db/queries/servicing/ai-sessions';
import { DomainError, fieldError } from '../../../domain/errors';
import {
  aiOutputIdParam,
  aiOutputListResponse,
  aiOutputResponse,
  aiSessionIdParam,
  aiSessionResponse,
  createAiOutputBody,
  createAiSessionBody,
  createdAiOutputResponse,
  listAiOutputsQuery,
} from '../../../domain/servicing/schemas/ai-sessions';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, namedQueryParams, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: AI sessions'];

/** The `ETag` of a session version. */
const etagOf = (version: number) => `"${version}"`;

const sessionNotFound = () =>
  new DomainError('error.msg.resource.not.found', 'The AI session was not found.');

/**
 * The session version named by an optional `If-Match` (RFC 9110 §13.1.1): absent or `*` → null (no check);
 * one strong entity tag `"<digits>"` → its number; anything else → 400 naming `header.If-Match` (422 in Shape B).
 */
function optionalVersionOf(header: string | undefined): number | null {
  if (header === undefined || header.trim() === '*') return null;
  const match = /^"([1-9][0-9]{0,9})"$/.exec(header.trim());
  if (!match?.[1]) {
    const message = 'If-Match must be one ETag of this AI session, e.g. "3" (the version you last read).';
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [fieldError('header.If-Match', null, message)],
    });
  }
  return Number(match[1]);
}

export const aiSessionRoutes = factory
  .createApp()
  /**
   * Opens an AI session on an open case for the case's customer → 201 `{aiSessionId, version, caseId,
   * customerRef, purpose, createdAt, updatedAt}` with `ETag: "<version>"`. Shape A errors: 400 bad field; 404 the
   * case is absent or another tenant's; 409 the case is closed or another customer's.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Open an AI session',
      description:
        "A session on an open case of this tenant, for that case's customer (`customerRef` must be the case's). Its `version` (also the `ETag`) goes up by one with every output; send it as `If-Match` with an output to detect concurrent writers.",
      scope: 'servicing:write',
      permission: 'CREATE_AISESSION',
      mutation: true,
      responses: { 201: { description: 'Session opened', schema: aiSessionResponse } },
    }),
    requires('servicing:write', 'CREATE_AISESSION'),
    noQuery(),
    ...jsonBody(createAiSessionBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const session = await c.get('deps').activities.openAiSession({ ...operationContext(c), ...body });
      return c.json(session, 201, {
        ETag: etagOf(session.version),
        Location: `/v1/servicing/ai-sessions/${session.aiSessionId}`,
      });
    },
  )
  /** Reads a session → 200 with `ETag: "<version>"`; absent or another tenant's → 404 (Shape A). */
  .get(
    '/:aiSessionId',
    doc({
      tags,
      summary: 'Read an AI session',
      scope: 'servicing:read',
      permission: 'READ_AISESSION',
      responses: { 200: { description: 'The session', schema: aiSessionResponse } },
    }),
    requires('servicing:read', 'READ_AISESSION'),
    pathParams(aiSessionIdParam),
    noQuery(),
    async (c) => {
      const { aiSessionId } = c.req.valid('param');
      const found = await getAiSession(c.get('deps').db, c.get('tenantId'), aiSessionId);
      if (!found) throw sessionNotFound();
      return c.json(found, 200, { ETag: etagOf(found.version) });
    },
  )
  /**
   * Records an output of the session (spec route) → 201 `{outputId, aiSessionId, status: "produced",
   * reviewRequired, reviewTaskId, sessionVersion}`. The token selects the tenant. Shape B errors: 401, 403, 404
   * (session absent or another tenant's), 409 `version_conflict` (stale `If-Match`), 409 `invalid_state` (the
   * case was closed), 422 `validation_error` (a bad field, unknown evidence `/citations/<i>/evidenceId`,
   * malformed JSON), 429, 503.
   */
  .post(
    '/:aiSessionId/outputs',
    doc({
      tags,
      summary: 'Record an AI session output',
      description:
        "No `Service-Tenant` needed: the token's tenant is used. `type`: `next_action_recommendation`, `call_summary`, `customer_message_draft` or `hardship_assessment`; `confidence`: `high`, `medium` or `low`. `citations[].evidenceId` must name evidence of the tenant (else 422 pointing at `/citations/<i>/evidenceId`). `reviewRequired` is true when `confidence` is not `high` or the type drafts a customer-facing message (`customer_message_draft`); such an output opens an `AI_OUTPUT_REVIEW` task on the session's case. Every accepted output adds one to the session's version; with `If-Match` naming another version → 409 `version_conflict`.",
      scope: 'servicing:write',
      permission: 'CREATE_AISESSIONOUTPUT',
      mutation: true,
      ifMatch: 'optional',
      errors: 'problem',
      tenantFromToken: true,
      responses: { 201: { description: 'Output recorded', schema: createdAiOutputResponse } },
    }),
    requires('servicing:write', 'CREATE_AISESSIONOUTPUT'),
    pathParams(aiSessionIdParam),
    namedQueryParams(v.strictObject({})),
    ...jsonBody(createAiOutputBody),
    idempotent(),
    async (c) => {
      const { aiSessionId } = c.req.valid('param');
      const body = c.req.valid('json');
      const expectedVersion = optionalVersionOf(c.req.header('if-match'));
      const result = await c.get('deps').activities.recordAiOutput({
        ...operationContext(c),
        aiSessionId,
        type: body.type,
        content: body.content,
        citations: body.citations,
        confidence: body.confidence,
        expectedVersion,
      });
      return c.json(result, 201, {
        Location: `/v1/servicing/ai-sessions/${result.aiSessionId}/outputs/${result.outputId}`,
      });
    },
  )
  /** A session's outputs in the order produced → `{items, limit, offset, hasMore}`; Shape B errors. */
  .get(
    '/:aiSessionId/outputs',
    doc({
      tags,
      summary: 'List the outputs of an AI session',
      description:
        "No `Service-Tenant` needed: the token's tenant is used. Outputs in the order they were produced.",
      scope: 'servicing:read',
      permission: 'READ_AISESSIONOUTPUT',
      errors: 'problem',
      tenantFromToken: true,
      responses: { 200: { description: 'One page of outputs', schema: aiOutputListResponse } },
    }),
    requires('servicing:read', 'READ_AISESSIONOUTPUT'),
    pathParams(aiSessionIdParam),
    namedQueryParams(listAiOutputsQuery),
    async (c) => {
      const { aiSessionId } = c.req.valid('param');
      const { limit, offset } = c.req.valid('query');
      const rows = await listAiOutputs(c.get('deps').db, c.get('tenantId'), aiSessionId, { limit, offset });
      if (rows === null) throw sessionNotFound();
      return c.json({ items: rows.slice(0, limit), limit, offset, hasMore: rows.length > limit }, 200);
    },
  )
  /** One output of a session; absent, another session's or tenant's → 404; Shape B errors. */
  .get(
    '/:aiSessionId/outputs/:outputId',
    doc({
      tags,
      summary: 'Read an AI session output',
      description: "No `Service-Tenant` needed: the token's tenant is used.",
      scope: 'servicing:read',
      permission: 'READ_AISESSIONOUTPUT',
      errors: 'problem',
      tenantFromToken: true,
      responses: { 200: { description: 'The output', schema: aiOutputResponse } },
    }),
    requires('servicing:read', 'READ_AISESSIONOUTPUT'),
    pathParams(aiOutputIdParam),
    namedQueryParams(v.strictObject({})),
    async (c) => {
      const { aiSessionId, outputId } = c.req.valid('param');
      const found = await getAiOutput(c.get('deps').db, c.get('tenantId'), aiSessionId, outputId);
      if (!found)
        throw new DomainError('error.msg.resource.not.found', 'The AI session output was not found.');
      return c.json(found, 200);
    },
  );
