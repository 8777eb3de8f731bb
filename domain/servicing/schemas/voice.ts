/**
 * Request and response schemas of the voice-provider control surface (docs/servicing.md "Voice-provider control surface"; docs/processes.md P4). Bodies are strict (an unknown field is a 400); labels and names are
 * `guardedText` (a government identifier or an account number in them is a 400, the value not echoed).
 * The structure of a definition (unique node ids, one start node, edges between existing nodes, …) is checked
 * by domain/servicing/voice-workflow.ts `definitionProblems` inside the create operation.
 */
import * as v from 'valibot';
import { isoInstant } from '../../validation/dates';
import { guardedText } from '../../validation/fields';
import {
  edgeOutcomePattern,
  nodeIdPattern,
  voiceDefinitionLimits,
  voiceDispatchStatuses,
  voiceEventTypes,
  voiceNodeTypes,
  workflowIdPattern,
} from '../voice-workflow';

const workflowIdRule = 'must be 1–64 of A–Z a–z 0–9 . _ - starting with a letter or digit.';
const workflowId = v.pipe(v.string(), v.regex(workflowIdPattern, workflowIdRule));
const nodeId = v.pipe(
  v.string(),
  v.regex(nodeIdPattern, 'must be 1–64 of A–Z a–z 0–9 _ - starting with a letter.'),
);

export const workflowIdParam = v.strictObject({ workflowId });
export const workflowVersionParam = v.strictObject({
  workflowId,
  version: v.pipe(
    v.string(),
    v.regex(/^[1-9][0-9]{0,8}$/, 'version must be a positive integer.'),
    v.transform(Number),
  ),
});

export const voiceWorkflowDefinition = v.strictObject({
  id: workflowId,
  name: guardedText(voiceDefinitionLimits.nameLengthMax),
  outbound: v.boolean(),
  nodes: v.pipe(
    v.array(
      v.strictObject({
        id: nodeId,
        type: v.picklist(voiceNodeTypes),
        label: guardedText(voiceDefinitionLimits.labelLengthMax),
      }),
    ),
    v.minLength(1, 'must hold at least one node.'),
    v.maxLength(voiceDefinitionLimits.nodesMax, `must hold at most ${voiceDefinitionLimits.nodesMax} nodes.`),
  ),
  edges: v.pipe(
    v.array(
      v.strictObject({
        from: nodeId,
        to: nodeId,
        on: v.pipe(
          v.string(),
          v.regex(edgeOutcomePattern, 'must be 1–64 of a–z 0–9 _ . - starting with a letter, e.g. next.'),
        ),
      }),
    ),
    v.maxLength(voiceDefinitionLimits.edgesMax, `must hold at most ${voiceDefinitionLimits.edgesMax} edges.`),
  ),
});

export const createVoiceWorkflowVersionBody = v.strictObject({
  label: guardedText(voiceDefinitionLimits.labelLengthMax),
  definition: voiceWorkflowDefinition,
});

/** The spec's voice workflow version (snake_case), as every version route answers it. */
export const voiceWorkflowVersionResponse = v.object({
  id: v.number(),
  workflow_id: v.string(),
  version: v.number(),
  label: v.string(),
  is_active: v.boolean(),
  created_at: v.pipe(v.string(), v.description('ISO 8601 instant')),
  definition: v.object({
    id: v.string(),
    name: v.string(),
    outbound: v.boolean(),
    nodes: v.array(v.object({ id: v.string(), type: v.string(), label: v.string() })),
    edges: v.array(v.object({ from: v.string(), to: v.string(), on: v.string() })),
  }),
});

const positiveId = v.pipe(
  v.number(),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

export const createVoiceDispatchBody = v.strictObject({
  caseId: positiveId,
  workflowId,
  contactPointRef: v.pipe(
    v.string(),
    v.regex(/^cp_[A-Za-z0-9]{1,64}$/, 'must be a contact point reference cp_….'),
  ),
});

export const dispatchIdParam = v.strictObject({
  dispatchId: v.pipe(
    v.string(),
    v.regex(/^[1-9][0-9]{0,15}$/, 'dispatchId must be a positive integer.'),
    v.transform(Number),
  ),
});

const dispatchFields = {
  dispatchId: v.number(),
  resourceId: v.number(),
  caseId: v.number(),
  taskId: v.nullable(v.number()),
  workflowId: v.string(),
  workflowVersion: v.pipe(v.number(), v.description('The version pinned at creation')),
  contactPointRef: v.string(),
  customerRef: v.string(),
  status: v.picklist(voiceDispatchStatuses),
  lastNodeId: v.nullable(v.string()),
  outcome: v.nullable(v.string()),
  interactionId: v.nullable(v.number()),
  expiresAt: v.pipe(v.string(), v.description('When the task token stops working at the latest')),
  createdAt: v.string(),
  completedAt: v.nullable(v.string()),
};

export const voiceDispatchResponse = v.object(dispatchFields);

export const createdVoiceDispatchResponse = v.object({
  ...dispatchFields,
  taskToken: v.pipe(
    v.string(),
    v.description(
      'Shown once: `vtt_` + base64url of 32 random bytes; the provider sends it as `X-Service-Voice-Task-Token`.',
    ),
  ),
});

/** The provider's callback body. */
export const voiceDispatchEventBody = v.strictObject({
  eventId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1–128 of A–Z a–z 0–9 . _ : -')),
  eventType: v.picklist(voiceEventTypes),
  nodeId: v.optional(nodeId),
  occurredAt: isoInstant(),
  data: v.optional(
    v.strictObject({
      durationSeconds: v.optional(
        v.pipe(v.number(), v.integer('must be an integer.'), v.minValue(0), v.maxValue(86_400)),
      ),
      providerCallRef: v.optional(
        v.pipe(v.string(), v.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1–128 of A–Z a–z 0–9 . _ : -')),
      ),
    }),
  ),
});

export const voiceDispatchEventAnswer = v.object({
  eventId: v.string(),
  duplicate: v.boolean(),
  status: v.picklist(voiceDispatchStatuses),
});
