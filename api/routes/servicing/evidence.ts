/** Evidence metadata. Mounted at `/v1/servicing/evidence`. */
import { getEvidence } from '../../../db/queries/servicing/servicing';
import { notFound } from '../../../domain/errors';
import {
  createdEvidenceResponse,
  createEvidenceBody,
  evidenceIdParam,
} from '../../../domain/servicing/schemas/servicing';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';
import { signalEvidenceAdded } from '../hardship/hardship-signals';

const tags = ['Servicing: evidence'];

export const evidenceRoutes = factory
  .createApp()
  /** Records evidence on an open case: 201 `{evidenceId, resourceId}`; a case or document not the tenant's → 404, a closed case → 409. */
  .post(
    '/',
    doc({
      tags,
      summary: 'Record evidence',
      scope: 'servicing:write',
      permission: 'CREATE_EVIDENCE',
      mutation: true,
      responses: { 201: { description: 'Evidence recorded', schema: createdEvidenceResponse } },
    }),
    requires('servicing:write', 'CREATE_EVIDENCE'),
    noQuery(),
    ...jsonBody(createEvidenceBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.addEvidence({ ...operationContext(c), ...body });
      await signalEvidenceAdded(c.get('deps'), c.get('tenantId'), body.caseId, result.evidenceId);
      return c.json({ evidenceId: result.evidenceId, resourceId: result.evidenceId }, 201);
    },
  )
  .get(
    '/:evidenceId',
    doc({
      tags,
      summary: 'Read evidence metadata',
      scope: 'servicing:read',
      permission: 'READ_EVIDENCE',
      responses: { 200: { description: 'The evidence metadata' } },
    }),
    requires('servicing:read', 'READ_EVIDENCE'),
    pathParams(evidenceIdParam),
    noQuery(),
    async (c) => {
      const { evidenceId } = c.req.valid('param');
      const found = await getEvidence(c.get('deps').db, c.get('tenantId'), evidenceId);
      if (!found) throw notFound('Evidence', evidenceId);
      return c.json(found, 200);
    },
  );
