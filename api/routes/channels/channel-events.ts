/**
 * `POST /v1/servicing/channel-events/{gatewayCode}`: the closed, signed callback of messaging and
 * voice gateways (docs/processes.md P2, docs/design.md §5 "Inbound channel events";
 * docs/processes.md P2). No bearer token and no tenant header: the gateway code selects the tenant.
 *
 * Order (docs/design.md §5 "Inbound channel events"): read the raw bytes → check the `X-Service-Gateway-Signature` (HMAC over
 * `<t>.<raw body>`, 300 s window, any valid secret of the gateway) → parse and validate →
 * insert durably, unique per (gateway, eventId) → answer → start the processing workflow.
 * Answers: 202 `{eventId, duplicate: false}`; a duplicate 200 `{eventId, duplicate: true}`;
 * any authentication failure (unknown gateway, malformed or stale signature, wrong secret) 401
 * Shape A `error.msg.not.authenticated` without saying which part failed; an authenticated but
 * invalid body 400; a body over 64 KiB 413. Mounted before the bearer middleware (api/app.ts).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Hono } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import { gatewaySignatureHeader, verifyGatewaySignature } from '../../../domain/channels/gateway-signature';
import {
  channelEventAccepted,
  channelEventBody,
  channelEventData,
} from '../../../domain/channels/schemas/channel-events';
import { DomainError, fieldError } from '../../../domain/errors';
import { channelEventWorkflowId } from '../../../domain/ids';
import { issuesToError } from '../../../domain/validation/fields';
import type { AppEnv } from '../../env';
import { sendShapeA } from '../../errors';
import { callbackBodyLimit } from '../../middleware/callback-body-limit';
import { startAfterCommit } from '../../start-after-commit';
import { assertJsonNestingWithinLimit, assertStorableJson } from '../../validation';

const bodyBytesMax = 64 * 1024;

/** The Standard Schema issues of `value` against `schema` (what `issuesToError` reads); synchronous schemas only. */
function standardIssues(schema: v.GenericSchema, value: unknown): readonly StandardSchemaV1.Issue[] {
  const result = schema['~standard'].validate(value) as StandardSchemaV1.Result<unknown>;
  return result.issues ?? [];
}

const unauthenticated = () =>
  new DomainError('error.msg.not.authenticated', 'The channel event could not be authenticated.');

export const channelEventRoutes = new Hono<AppEnv>().post(
  '/:gatewayCode',
  describeRoute({
    tags: ['Servicing: channel events'],
    summary: 'Receive a signed channel event from a gateway',
    description:
      'Closed callback for registered messaging and voice gateways. Sign `<t>.<raw body>` with HMAC-SHA256 under the gateway secret and send `X-Service-Gateway-Signature: t=<unix seconds>,v1=<hex>` (several `v1` during a rotation); accepted within 300 s. Body `{eventId, eventType, occurredAt, data}`; handled types: `sms.inbound` `{from, text}` (an opt-out word such as STOP revokes SMS consent at once), `message.delivery_status` `{messageId, status}`, `voice.call.completed` `{customerRef, direction?, durationSeconds?, summary?, caseId?}`. The event is stored before the answer; resending the same eventId answers 200 with `duplicate: true`.',
    security: [],
    parameters: [
      {
        name: 'X-Service-Gateway-Signature',
        in: 'header',
        required: true,
        schema: { type: 'string', pattern: '^t=[0-9]+(,v1=[0-9a-f]{64})+$' },
      },
    ],
    responses: {
      202: {
        description: 'Recorded; processing follows',
        content: { 'application/json': { schema: resolver(channelEventAccepted) } },
      },
      200: {
        description: 'Already recorded (duplicate eventId)',
        content: { 'application/json': { schema: resolver(channelEventAccepted) } },
      },
      400: { $ref: '#/components/responses/ShapeAError' },
      401: { $ref: '#/components/responses/ShapeAError' },
      413: { $ref: '#/components/responses/ShapeAError' },
      503: { $ref: '#/components/responses/ShapeAError' },
    } as never,
  }),
  callbackBodyLimit(bodyBytesMax, 'A channel event body'),
  async (c) => {
    const deps = c.get('deps');
    const gatewayCode = c.req.param('gatewayCode');
    const rawBody = new Uint8Array(await c.req.arrayBuffer());
    const now = deps.clock();
    const gateway = await deps.platform.gatewaySecretsAt(gatewayCode, now);
    const verdict = gateway
      ? verifyGatewaySignature(c.req.header(gatewaySignatureHeader), rawBody, gateway.secrets, now.getTime())
      : ({ ok: false, reason: 'unknown-gateway' } as const);
    if (!verdict.ok || !gateway) {
      deps.logger.warn(
        {
          requestId: c.get('requestId'),
          gatewayCode,
          reason: verdict.ok ? 'unknown-gateway' : verdict.reason,
        },
        'channel event refused',
      );
      return sendShapeA(c, unauthenticated());
    }
    c.set('tenantId', gateway.tenantId);

    const notJson = () =>
      new DomainError('validation.msg.validation.errors.exist', 'The body is not valid UTF-8 JSON.', {
        errors: [fieldError('body', null, 'The body is not valid UTF-8 JSON.')],
      });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
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
    const envelope = v.safeParse(channelEventBody, parsed);
    if (!envelope.success) throw issuesToError('json', standardIssues(channelEventBody, parsed), parsed);
    const dataSchema = channelEventData[envelope.output.eventType];
    if (dataSchema && !v.is(dataSchema, envelope.output.data)) {
      const issues = standardIssues(dataSchema, envelope.output.data).map((issue) => ({
        ...issue,
        path: ['data', ...(issue.path ?? [])],
      }));
      throw issuesToError('json', issues, parsed);
    }
    const event = envelope.output;
    const recorded = await deps.activities.recordChannelEvent({
      tenantId: gateway.tenantId,
      gatewayCode,
      eventId: event.eventId,
      eventType: event.eventType,
      occurredAt: event.occurredAt,
      data: event.data,
    });
    if (recorded.status === 'RECEIVED') {
      // The event and its start intent are durable: should this start fail, the start-intent
      // relay in a worker starts the workflow; a gateway's retry (a duplicate) tries again too.
      const input = {
        tenantId: gateway.tenantId,
        gatewayCode,
        eventId: event.eventId,
        eventType: event.eventType,
      };
      try {
        await startAfterCommit(
          deps.startMarks,
          { workflowId: channelEventWorkflowId(gateway.tenantId, gatewayCode, event.eventId), input },
          (started) => deps.processes.channelEvents.start(started),
        );
      } catch (err) {
        deps.logger.warn(
          { err, requestId: c.get('requestId'), gatewayCode, eventId: event.eventId },
          'channel event recorded; its processing starts through the start-intent relay',
        );
      }
    }
    return c.json({ eventId: event.eventId, duplicate: recorded.duplicate }, recorded.duplicate ? 200 : 202);
  },
);
