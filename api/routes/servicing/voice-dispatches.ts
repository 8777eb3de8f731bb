import { getVoiceDispatch } from '../../../db/queries/servicing/voice';
import { notFound } from '../../../domain/errors';
import {
  createdVoiceDispatchResponse,
  createVoiceDispatchBody,
  dispatchIdParam,
  voiceDispatchResponse,
} from '../../../domain/servicing/schemas/voice';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: voice provider'];

export const voiceDispatchRoutes = factory
  .createApp()
  /**
   * Creates a dispatch → 201 `{dispatchId, taskToken, …dispatch}`; `taskToken` appears only here (a replay with
   * the same Idempotency-Key answers it again from the key store, where it is kept encrypted). Errors: 404 naming
   * `caseId` (absent or another tenant's) or `contactPointRef` (absent, or not the case customer's); 409 naming
   * `caseId` when the case is closed; 400 naming `contactPointRef` when it is not a PHONE; 409
   * `error.msg.voice.workflow.no.active.version` naming `workflowId`.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Dispatch a voice call',
      description:
        'Asks the voice provider to call the case customer on one of their PHONE contact points with the active version of `workflowId` (pinned for this dispatch). Opens a `VOICE_DISPATCH` task on the case. The answer carries `taskToken` exactly once: the provider authenticates its callbacks with it (`X-Service-Voice-Task-Token`) while the task is OPEN, the call has not ended, and at most 24 h (`expiresAt`). No active version → 409 `error.msg.voice.workflow.no.active.version`.',
      scope: 'servicing:write',
      permission: 'CREATE_VOICEDISPATCH',
      mutation: true,
      responses: {
        201: {
          description: 'Dispatch created; the task token shown once',
          schema: createdVoiceDispatchResponse,
        },
      },
    }),
    requires('servicing:write', 'CREATE_VOICEDISPATCH'),
    noQuery(),
    ...jsonBody(createVoiceDispatchBody),
    idempotent({ sealedResponseFields: ['taskToken'] }),
    async (c) => {
      const body = c.req.valid('json');
      const { dispatch, taskToken } = await c
        .get('deps')
        .activities.createVoiceDispatch({ ...operationContext(c), ...body });
      const { dispatchId, ...rest } = dispatch;
      return c.json({ dispatchId, taskToken, ...rest }, 201, {
        'Cache-Control': 'no-store',
      });
    },
  )
  /** One dispatch → 200 (status, pinned version, outcome; never the token); unknown or another tenant's → 404. */
  .get(
    '/:dispatchId',
    doc({
      tags,
      summary: 'Read a voice dispatch',
      description:
        'Status `DISPATCHED` → `IN_PROGRESS` (first callback event) → `COMPLETED`, `FAILED` or `NO_ANSWER` (terminal callback event; the task is completed and the token stops working).',
      scope: 'servicing:read',
      permission: 'READ_VOICEDISPATCH',
      responses: { 200: { description: 'The dispatch', schema: voiceDispatchResponse } },
    }),
    requires('servicing:read', 'READ_VOICEDISPATCH'),
    pathParams(dispatchIdParam),
    noQuery(),
    async (c) => {
      const { dispatchId } = c.req.valid('param');
      const found = await getVoiceDispatch(c.get('deps').db, c.get('tenantId'), dispatchId);
      if (!found) throw notFound('Voice dispatch', dispatchId);
      return c.json(found, 200);
    },
  );
