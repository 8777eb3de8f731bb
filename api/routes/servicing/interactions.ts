/** Interactions. Mounted at `/v1/servicing/interactions`. */
import { getInteraction } from '../../../db/queries/servicing/servicing';
import { notFound } from '../../../domain/errors';
import {
  createdInteractionResponse,
  createInteractionBody,
  interactionIdParam,
} from '../../../domain/servicing/schemas/servicing';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: interactions'];

export const interactionRoutes = factory
  .createApp()
  /** Records a contact: 201 `{interactionId, resourceId}`; a caseId of no case of the tenant → 404; a closed case or one of another customer → 409. */
  .post(
    '/',
    doc({
      tags,
      summary: 'Record an interaction',
      scope: 'servicing:write',
      permission: 'CREATE_INTERACTION',
      mutation: true,
      responses: { 201: { description: 'Interaction recorded', schema: createdInteractionResponse } },
    }),
    requires('servicing:write', 'CREATE_INTERACTION'),
    noQuery(),
    ...jsonBody(createInteractionBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.logInteraction({ ...operationContext(c), ...body });
      return c.json({ interactionId: result.interactionId, resourceId: result.interactionId }, 201);
    },
  )
  .get(
    '/:interactionId',
    doc({
      tags,
      summary: 'Read an interaction',
      scope: 'servicing:read',
      permission: 'READ_INTERACTION',
      responses: { 200: { description: 'The interaction' } },
    }),
    requires('servicing:read', 'READ_INTERACTION'),
    pathParams(interactionIdParam),
    noQuery(),
    async (c) => {
      const { interactionId } = c.req.valid('param');
      const found = await getInteraction(c.get('deps').db, c.get('tenantId'), interactionId);
      if (!found) throw notFound('Interaction', interactionId);
      return c.json(found, 200);
    },
  );
