/**
 * The voice provider's callback (docs/processes.md P4 "Voice-provider control surface"; docs/design.md §5 "Inbound channel events";
 * docs/design.md §5 "Inbound channel events"). Mounted at `/v1/servicing/voice-dispatches/{dispatchId}/events`
 * before the bearer middleware, like the channel-event callback: `POST`, authenticated only by
 * `X-Service-Voice-Task-Token` (no bearer token, no tenant header: the dispatch determines the tenant). Order: the
 * token (digest compared in constant time; unknown dispatch, wrong token, another dispatch's token, expired or
 * revoked token → one and the same 401 Shape A `error.msg.not.authenticated`) → the body (64 KiB at most → 413;
 * invalid → 400) → the event recorded in one transaction, which answers the same 401 when the dispatch's task is no
 * longer OPEN. The token never reaches a log: refusals log the request id and dispatch id only.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Hono } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError, fieldError } from '../../../domain/errors';
import { voiceDispatchEventAnswer, voiceDispatchEventBody } from '../../../domain/servicing/schemas/voice';
import { voiceTaskTokenHeader, voiceTaskTokenLengthMax } from '../../../domain/servicing/voice-workflow';
import { issuesToError } from '../../../domain/validation/fields';
import type { AppEnv } from '../../env';
import { sendShapeA } from '../../errors';
import { callbackBodyLimit } from '../../middleware/callback-body-limit';
import { assertJsonNestingWithinLimit, assertStorableJson } from '../../validation';

const tags = ['Servicing: voice provider'];

const bodyBytesMax = 64 * 1024;
const dispatchIdPattern = /^[1-9][0-9]{0,15}$/;

/** The one answer to every authentication failure of the callback: says nothing about which part failed. */
const unauthenticated = () =>
  new DomainError('error.msg.not.authenticated', 'The voice callback could not be authenticated.');

/** The Standard Schema issues of `value` against `schema` (what `issuesToError` reads); synchronous schemas only. */
function standardIssues(schema: v.GenericSchema, value: unknown): readonly StandardSchemaV1.Issue[] {
  const result = schema['~standard'].validate(value) as StandardSchemaV1.Result<unknown>;
  return result.issues ?? [];
}

export const voiceDispatchCallbackRoutes = new Hono<AppEnv>().post(
  '/',
  describeRoute({
    tags,
    summary: "Receive a voice provider's callback event",
    description:
      "Closed callback of the voice provider (docs/design.md §5, Inbound channel events): no bearer token and no tenant header; the only credential is the dispatch's task token in `X-Service-Voice-Task-Token`. Body `{eventId, eventType, nodeId?, occurredAt, data?}`: `eventId` 1–128 of `A–Z a–z 0–9 . _ : -`, unique per dispatch (a repeat answers 200 with `duplicate: true` and changes nothing); `eventType` one of `node.entered` (needs `nodeId`), `call.answered`, `call.completed`, `call.failed`, `call.no_answer`; `nodeId` a node of the pinned workflow version; `occurredAt` an ISO 8601 instant; `data` optional `{durationSeconds?, providerCallRef?}`. A terminal event (`call.completed`, `call.failed`, `call.no_answer`) ends the dispatch: its task is completed, an interaction is logged on the case, and the token stops working. A wrong, expired or ended token, or an unknown dispatch → 401 Shape A `error.msg.not.authenticated`, the same answer in every case.",
    security: [{ voiceTaskToken: [] }],
    parameters: [
      {
        name: voiceTaskTokenHeader,
        in: 'header',
        required: true,
        description: 'The task token answered once by `POST /v1/servicing/voice-dispatches` (`vtt_…`).',
        schema: { type: 'string', maxLength: voiceTaskTokenLengthMax },
      },
    ],
    responses: {
      200: {
        description: 'Recorded (or already recorded: `duplicate: true`)',
        content: { 'application/json': { schema: resolver(voiceDispatchEventAnswer) } },
      },
      400: { $ref: '#/components/responses/ShapeAError' },
      401: { $ref: '#/components/responses/ShapeAError' },
      413: { $ref: '#/components/responses/ShapeAError' },
      503: { $ref: '#/components/responses/ShapeAError' },
    } as never,
  }),
  callbackBodyLimit(bodyBytesMax, 'A voice callback body'),
  async (c) => {
    const deps = c.get('deps');
    // `{dispatchId}` is a parameter of the mount path (api/app.ts), so the sub-app's types do not know it.
    const rawDispatchId = c.req.param('dispatchId') ?? '';
    const dispatchId = dispatchIdPattern.test(rawDispatchId) ? Number(rawDispatchId) : null;
    const token = c.req.header(voiceTaskTokenHeader);
    const tenantId =
      token !== undefined && token.length > 0 && token.length <= voiceTaskTokenLengthMax
        ? await deps.platform.tenantOfVoiceTaskToken(dispatchId, token, deps.clock())
        : null;
    const refuse = () => {
      deps.logger.warn(
        { requestId: c.get('requestId'), dispatchId: dispatchId ?? null },
        'voice callback refused',
      );
      return sendShapeA(c, unauthenticated());
    };
    if (tenantId === null || dispatchId === null) return refuse();
    c.set('tenantId', tenantId);

    const notJson = () =>
      new DomainError('validation.msg.validation.errors.exist', 'The body is not valid UTF-8 JSON.', {
        errors: [fieldError('body', null, 'The body is not valid UTF-8 JSON.')],
      });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await c.req.arrayBuffer());
    } catch {
      throw notJson();
    }
    assertJsonNestingWithinLimit(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw notJson();
    }
    assertStorableJson(parsed);
    const checked = v.safeParse(voiceDispatchEventBody, parsed);
    if (!checked.success) throw issuesToError('json', standardIssues(voiceDispatchEventBody, parsed), parsed);
    const event = checked.output;
    try {
      const recorded = await deps.activities.recordVoiceDispatchEvent({
        tenantId,
        dispatchId,
        eventId: event.eventId,
        eventType: event.eventType,
        nodeId: event.nodeId ?? null,
        occurredAt: event.occurredAt,
        data: event.data ?? {},
        correlationId: c.get('requestId'),
      });
      return c.json(recorded, 200);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'error.msg.not.authenticated') return refuse();
      throw err;
    }
  },
);
