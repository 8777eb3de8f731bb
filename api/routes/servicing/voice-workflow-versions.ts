/**
 * Voice workflow versions (docs/servicing.md "Voice-provider control surface"; docs/processes.md
 * P4 "Voice-provider control surface"). Mounted at `/v1/servicing/voice-provider/control/api/v1/workflow-versions`.
 * Every answer is the spec's snake_case version `{id, workflow_id, version, label, is_active, created_at,
 * definition}`. Versions are immutable; at most one version of a workflow is active. A version of another tenant
 * is a 404 on every route.
 */
import { getVoiceWorkflowVersion } from '../../../db/queries/servicing/voice';
import { notFound } from '../../../domain/errors';
import {
  createVoiceWorkflowVersionBody,
  voiceWorkflowVersionResponse,
  workflowIdParam,
  workflowVersionParam,
} from '../../../domain/servicing/schemas/voice';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: voice provider'];

export const voiceWorkflowVersionRoutes = factory
  .createApp()
  /**
   * Creates the next version of `workflowId` (1 for a new workflow), inactive → 201 with the version. Body
   * `{label, definition: {id, name, outbound, nodes: [{id, type, label}], edges: [{from, to, on}]}}`. 400 naming
   * the field for: a bad workflowId; `definition.id` other than the path's workflowId; node types other than
   * start, say, gather, transfer, hangup, end; duplicate node ids; not exactly one start node; an edge naming a
   * missing node, leaving a hangup/end node or entering the start node; two edges leaving one node on the same
   * outcome; a node unreachable from the start; more than 200 nodes or 1000 edges; labels and names over 200
   * characters or carrying an identifier.
   */
  .post(
    '/:workflowId',
    doc({
      tags,
      summary: 'Create a voice workflow version',
      description:
        'Stores the next version (1, 2, … per workflow, without gaps) of the call script `workflowId`, inactive. Node types: `start` (exactly one, no edge enters it), `say`, `gather`, `transfer`, `hangup`, `end` (no edge leaves `hangup` or `end`). Every edge joins existing nodes; the outcomes (`on`) leaving a node are unique; every node is reachable from the start. `definition.id` must equal `workflowId`. At most 200 nodes and 1000 edges; names and labels 1–200 characters. Versions are immutable.',
      scope: 'servicing:write',
      permission: 'CREATE_VOICEWORKFLOWVERSION',
      mutation: true,
      responses: { 201: { description: 'The new version', schema: voiceWorkflowVersionResponse } },
    }),
    requires('servicing:write', 'CREATE_VOICEWORKFLOWVERSION'),
    pathParams(workflowIdParam),
    noQuery(),
    ...jsonBody(createVoiceWorkflowVersionBody),
    idempotent(),
    async (c) => {
      const { workflowId } = c.req.valid('param');
      const body = c.req.valid('json');
      const created = await c.get('deps').activities.createVoiceWorkflowVersion({
        ...operationContext(c),
        workflowId,
        label: body.label,
        definition: body.definition,
      });
      return c.json(created, 201);
    },
  )
  /** One version in the spec's shape → 200; unknown (or another tenant's) → 404. */
  .get(
    '/:workflowId/:version',
    doc({
      tags,
      summary: 'Read a voice workflow version',
      scope: 'servicing:read',
      permission: 'READ_VOICEWORKFLOWVERSION',
      responses: { 200: { description: 'The version', schema: voiceWorkflowVersionResponse } },
    }),
    requires('servicing:read', 'READ_VOICEWORKFLOWVERSION'),
    pathParams(workflowVersionParam),
    noQuery(),
    async (c) => {
      const { workflowId, version } = c.req.valid('param');
      const found = await getVoiceWorkflowVersion(c.get('deps').db, c.get('tenantId'), workflowId, version);
      if (!found) throw notFound('Voice workflow version', `${workflowId}/${version}`);
      return c.json(found, 200);
    },
  )
  /**
   * Activates one version → 200 with it (`is_active` true); the previously active version of the workflow is
   * deactivated in the same transaction. Activating the active version changes nothing. No body. Unknown → 404.
   */
  .post(
    '/:workflowId/:version/activate',
    doc({
      tags,
      summary: 'Activate a voice workflow version',
      description:
        'Makes this version the one active version of its workflow (the previous one is deactivated at once). New voice dispatches pin the active version; dispatches already created keep theirs. No body.',
      scope: 'servicing:write',
      permission: 'ACTIVATE_VOICEWORKFLOWVERSION',
      mutation: true,
      responses: { 200: { description: 'The activated version', schema: voiceWorkflowVersionResponse } },
    }),
    requires('servicing:write', 'ACTIVATE_VOICEWORKFLOWVERSION'),
    pathParams(workflowVersionParam),
    noQuery(),
    idempotent(),
    async (c) => {
      const { workflowId, version } = c.req.valid('param');
      const activated = await c
        .get('deps')
        .activities.activateVoiceWorkflowVersion({ ...operationContext(c), workflowId, version });
      return c.json(activated, 200);
    },
  );
