/**
 * Webhook subscriptions and their deliveries (docs/integrating.md "Webhooks": a roadmap contract;
 * docs/processes.md P2; docs/design.md §5 Webhooks). Mounted at `/v1/servicing/webhook-subscriptions`.
 * Lists use `pageSize` (1–200, default 50) and a signed `cursor` bound to the route and its
 * filters, and answer `{data, nextCursor}` (`nextCursor` null on the last page). Reads and PATCH
 * answer `ETag: "<version>"`; PATCH needs `If-Match` with it (RFC 9110 §13.1.1, RFC 6585 §3).
 * A subscription of another tenant is a 404 on every route.
 */
import {
  getWebhookSubscription,
  listWebhookDeliveries,
  listWebhookSubscriptions,
} from '../../../db/queries/webhooks/webhooks';
import { decodeCursor, encodeCursor } from '../../../domain/cursor';
import { DomainError, fieldError, notFound } from '../../../domain/errors';
import type { EventType } from '../../../domain/events';
import {
  createdSubscriptionResponse,
  createSubscriptionBody,
  deliveryListResponse,
  listDeliveriesQuery,
  listSubscriptionsQuery,
  rotateSecretBody,
  rotateSecretResponse,
  subscriptionIdParam,
  subscriptionListResponse,
  subscriptionResponse,
  testEventResponse,
  updateSubscriptionBody,
} from '../../../domain/webhooks/schemas/webhooks';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, optionalJsonBody, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: webhook subscriptions'];
const listRoute = '/v1/servicing/webhook-subscriptions';
const deliveriesRoute = '/v1/servicing/webhook-subscriptions/:subscriptionId/deliveries';

/** The `ETag` of a subscription version. */
const etagOf = (version: number) => `"${version}"`;

/**
 * The version named by `If-Match`: missing → 428 `error.msg.precondition.required`; anything but
 * one strong entity tag `"<digits>"` → 400 naming `header.If-Match`.
 */
function expectedVersionOf(header: string | undefined): number {
  if (header === undefined) {
    throw new DomainError(
      'error.msg.precondition.required',
      'Send If-Match with the ETag of your last read of this subscription, e.g. If-Match: "3".',
      { errors: [fieldError('header.If-Match', null, 'If-Match is required.')] },
    );
  }
  const match = /^"([1-9][0-9]{0,9})"$/.exec(header.trim());
  if (!match?.[1]) {
    const message = 'If-Match must be one ETag of this subscription, e.g. "3".';
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [fieldError('header.If-Match', header, message)],
    });
  }
  return Number(match[1]);
}

export const webhookSubscriptionRoutes = factory
  .createApp()
  /**
   * Creates a subscription → 201 with `signingSecret` (`whsec_…`), shown only here. 400 for a
   * bad field, including a `url` the environment's policy refuses (parameterName `url`); 409
   * `error.msg.webhook.subscription.limit.reached` when the tenant already has its maximum of
   * ACTIVE subscriptions (100 by default, `WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT`).
   * `includeBoardedHistory` (optional boolean, default false): also deliver the events portfolio
   * boarding writes (envelope `source: "BOARDING"`, `boardingBatchId`).
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a webhook subscription',
      description:
        'The answer carries `signingSecret` exactly once; later reads expose only `secretVersion` (docs/integrating.md "Webhooks"). In production the URL must be `https` and must not point at loopback, private, link-local or metadata addresses. A tenant has at most 100 ACTIVE subscriptions (a deployment setting): one more → 409 `error.msg.webhook.subscription.limit.reached`. The events portfolio boarding writes (a boarded portfolio\'s history; envelope `source: "BOARDING"` and `boardingBatchId`) are delivered only with `includeBoardedHistory: true` (default false); `boarding.batch.completed` reaches every subscription naming it.',
      scope: 'servicing:write',
      permission: 'CREATE_WEBHOOKSUBSCRIPTION',
      mutation: true,
      responses: { 201: { description: 'Subscription created', schema: createdSubscriptionResponse } },
    }),
    requires('servicing:write', 'CREATE_WEBHOOKSUBSCRIPTION'),
    noQuery(),
    ...jsonBody(createSubscriptionBody),
    idempotent({ sealedResponseFields: ['signingSecret'] }),
    async (c) => {
      const body = c.req.valid('json');
      const created = await c.get('deps').activities.createWebhookSubscription({
        ...operationContext(c),
        ...body,
        eventTypes: body.eventTypes as EventType[],
      });
      return c.json(
        {
          subscriptionId: created.subscriptionId,
          url: created.url,
          eventTypes: created.eventTypes,
          apiVersion: created.apiVersion,
          description: created.description,
          includeBoardedHistory: created.includeBoardedHistory,
          status: created.status,
          secretVersion: created.secretVersion,
          signingSecret: created.signingSecret,
          version: created.version,
          createdAt: created.createdAt,
        },
        201,
        { ETag: etagOf(created.version) },
      );
    },
  )
  /** Lists the tenant's subscriptions in creation order → `{data, nextCursor}`; never a secret. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List webhook subscriptions',
      scope: 'servicing:read',
      permission: 'READ_WEBHOOKSUBSCRIPTION',
      responses: { 200: { description: 'One page of subscriptions', schema: subscriptionListResponse } },
    }),
    requires('servicing:read', 'READ_WEBHOOKSUBSCRIPTION'),
    queryParams(listSubscriptionsQuery),
    async (c) => {
      const { pageSize, cursor } = c.req.valid('query');
      const { db, config } = c.get('deps');
      const afterId = cursor
        ? Number(decodeCursor(config.cursorSigningKey, c.get('tenantId'), listRoute, {}, cursor).id)
        : null;
      const rows = await listWebhookSubscriptions(db, c.get('tenantId'), { afterId, limit: pageSize });
      const data = rows.slice(0, pageSize);
      const last = data.at(-1);
      const nextCursor =
        rows.length > pageSize && last
          ? encodeCursor(
              config.cursorSigningKey,
              c.get('tenantId'),
              listRoute,
              {},
              {
                sortKey: String(last.subscriptionId),
                id: String(last.subscriptionId),
              },
            )
          : null;
      return c.json({ data, nextCursor }, 200);
    },
  )
  /** Reads a subscription (never its secret) with `ETag: "<version>"`. */
  .get(
    '/:subscriptionId',
    doc({
      tags,
      summary: 'Read a webhook subscription',
      description: 'Answers `ETag: "<version>"`, the value PATCH expects in `If-Match`.',
      scope: 'servicing:read',
      permission: 'READ_WEBHOOKSUBSCRIPTION',
      responses: { 200: { description: 'The subscription', schema: subscriptionResponse } },
    }),
    requires('servicing:read', 'READ_WEBHOOKSUBSCRIPTION'),
    pathParams(subscriptionIdParam),
    noQuery(),
    async (c) => {
      const { subscriptionId } = c.req.valid('param');
      const found = await getWebhookSubscription(c.get('deps').db, c.get('tenantId'), subscriptionId);
      if (!found) throw notFound('Webhook subscription', subscriptionId);
      return c.json(found, 200, { ETag: etagOf(found.version) });
    },
  )
  /**
   * Changes `url`, `eventTypes`, `description` and/or `includeBoardedHistory` under `If-Match: "<version>"`: missing → 428,
   * another version → 409 `error.msg.webhook.subscription.version.conflict`; 200 with the new ETag.
   */
  .patch(
    '/:subscriptionId',
    doc({
      tags,
      summary: 'Change a webhook subscription',
      description:
        'Optimistic concurrency: send `If-Match` with the ETag of your last read. Missing → 428 `error.msg.precondition.required`; stale → 409 `error.msg.webhook.subscription.version.conflict`.',
      scope: 'servicing:write',
      permission: 'UPDATE_WEBHOOKSUBSCRIPTION',
      mutation: true,
      ifMatch: true,
      responses: { 200: { description: 'The changed subscription', schema: subscriptionResponse } },
    }),
    requires('servicing:write', 'UPDATE_WEBHOOKSUBSCRIPTION'),
    pathParams(subscriptionIdParam),
    noQuery(),
    ...jsonBody(updateSubscriptionBody),
    async (c, next) => {
      expectedVersionOf(c.req.header('if-match'));
      await next();
    },
    idempotent(),
    async (c) => {
      const { subscriptionId } = c.req.valid('param');
      const body = c.req.valid('json');
      const updated = await c.get('deps').activities.updateWebhookSubscription({
        ...operationContext(c),
        subscriptionId,
        expectedVersion: expectedVersionOf(c.req.header('if-match')),
        url: body.url,
        eventTypes: body.eventTypes as EventType[] | undefined,
        description: body.description,
        includeBoardedHistory: body.includeBoardedHistory,
      });
      return c.json(updated, 200, { ETag: etagOf(updated.version) });
    },
  )
  /**
   * Rotates the signing secret → `{signingSecret, secretVersion, previousSecretExpiresAt}`;
   * `overlapSeconds` 0–604800 (default 86400), 0 revokes the old secret at once.
   */
  .post(
    '/:subscriptionId/rotate-secret',
    doc({
      tags,
      summary: 'Rotate the signing secret',
      description:
        'The previous secret keeps signing (a second `v1=` entry) until `previousSecretExpiresAt`; at most two secrets are valid at once. The body may be omitted (default overlap 86400 s).',
      scope: 'servicing:write',
      permission: 'ROTATE_WEBHOOKSUBSCRIPTION_SECRET',
      mutation: true,
      responses: { 200: { description: 'Secret rotated', schema: rotateSecretResponse } },
    }),
    requires('servicing:write', 'ROTATE_WEBHOOKSUBSCRIPTION_SECRET'),
    pathParams(subscriptionIdParam),
    noQuery(),
    ...optionalJsonBody(rotateSecretBody),
    idempotent({ sealedResponseFields: ['signingSecret'] }),
    async (c) => {
      const { subscriptionId } = c.req.valid('param');
      const body = c.req.valid('json');
      const rotated = await c.get('deps').activities.rotateWebhookSubscriptionSecret({
        ...operationContext(c),
        subscriptionId,
        overlapSeconds: body.overlapSeconds,
      });
      return c.json(rotated, 200);
    },
  )
  /** Deactivates → 200 with status INACTIVE; pending retries are cancelled; twice → 409. */
  .post(
    '/:subscriptionId/deactivate',
    doc({
      tags,
      summary: 'Deactivate a webhook subscription',
      description:
        'Stops new deliveries and cancels pending retries; history is kept. Already INACTIVE → 409 `error.msg.webhook.subscription.invalid.state.transition`. No body.',
      scope: 'servicing:write',
      permission: 'DEACTIVATE_WEBHOOKSUBSCRIPTION',
      mutation: true,
      responses: { 200: { description: 'The deactivated subscription', schema: subscriptionResponse } },
    }),
    requires('servicing:write', 'DEACTIVATE_WEBHOOKSUBSCRIPTION'),
    pathParams(subscriptionIdParam),
    noQuery(),
    idempotent(),
    async (c) => {
      const { subscriptionId } = c.req.valid('param');
      const result = await c.get('deps').activities.deactivateWebhookSubscription({
        ...operationContext(c),
        subscriptionId,
      });
      return c.json(result, 200, { ETag: etagOf(result.version) });
    },
  )
  /** Queues a signed `webhook.test` event for this subscription only → 202 `{eventId}`; not ACTIVE → 409. */
  .post(
    '/:subscriptionId/test',
    doc({
      tags,
      summary: 'Send a test event',
      description:
        'Queues a signed, non-business `webhook.test` event delivered to this subscription only. Not ACTIVE → 409 `error.msg.webhook.subscription.invalid.state.transition`. No body.',
      scope: 'servicing:write',
      permission: 'TEST_WEBHOOKSUBSCRIPTION',
      mutation: true,
      responses: { 202: { description: 'Test event queued', schema: testEventResponse } },
    }),
    requires('servicing:write', 'TEST_WEBHOOKSUBSCRIPTION'),
    pathParams(subscriptionIdParam),
    noQuery(),
    idempotent(),
    async (c) => {
      const { subscriptionId } = c.req.valid('param');
      const result = await c.get('deps').activities.sendWebhookTestEvent({
        ...operationContext(c),
        subscriptionId,
      });
      return c.json(result, 202);
    },
  )
  /**
   * The subscription's deliveries, newest first, with attempts, response codes, latency and retry
   * state; filters `eventType`, `state` → `{data, nextCursor}`.
   */
  .get(
    '/:subscriptionId/deliveries',
    doc({
      tags,
      summary: 'List the deliveries of a webhook subscription',
      scope: 'servicing:read',
      permission: 'READ_WEBHOOKDELIVERY',
      responses: { 200: { description: 'One page of deliveries', schema: deliveryListResponse } },
    }),
    requires('servicing:read', 'READ_WEBHOOKDELIVERY'),
    pathParams(subscriptionIdParam),
    queryParams(listDeliveriesQuery),
    async (c) => {
      const { subscriptionId } = c.req.valid('param');
      const { pageSize, cursor, eventType, state } = c.req.valid('query');
      const { db, config } = c.get('deps');
      const tenantId = c.get('tenantId');
      const binding = { subscriptionId: String(subscriptionId), eventType, state };
      const beforeId = cursor
        ? Number(
            decodeCursor(config.cursorSigningKey, c.get('tenantId'), deliveriesRoute, binding, cursor).id,
          )
        : null;
      if (!(await getWebhookSubscription(db, tenantId, subscriptionId)))
        throw notFound('Webhook subscription', subscriptionId);
      const rows = await listWebhookDeliveries(db, tenantId, subscriptionId, {
        beforeId,
        limit: pageSize,
        eventType,
        state,
      });
      const page = rows.slice(0, pageSize);
      const last = page.at(-1);
      const nextCursor =
        rows.length > pageSize && last
          ? encodeCursor(config.cursorSigningKey, c.get('tenantId'), deliveriesRoute, binding, {
              sortKey: String(last.rowId),
              id: String(last.rowId),
            })
          : null;
      return c.json({ data: page.map(({ rowId: _rowId, ...delivery }) => delivery), nextCursor }, 200);
    },
  );
