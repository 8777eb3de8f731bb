/**
 * OpenAPI 3.1 description helpers: every route declares itself with `doc()`, which adds the
 * spec's headers, security and error responses; the document is generated from the routes and
 * their valibot schemas at `GET /v1/openapi.json` (api/app.ts).
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { describeRoute, resolver } from 'hono-openapi';
import type * as v from 'valibot';
import type { Permission, Scope } from '../domain/auth';
import { scopes } from '../domain/auth';
import { type EventType, eventCatalogue, eventTypes } from '../domain/events';
import { problemCodes } from './errors';

const errorRef = { $ref: '#/components/responses/ShapeAError' };
const problemRef = { $ref: '#/components/responses/Problem' };

export interface RouteDoc {
  tags: string[];
  summary: string;
  description?: string;
  scope: Scope;
  /**
   * The permission the route needs, or `{ resource }`: a permission the addressed resource names (e.g. a hardship
   * program's `humanApprovalPermission`), documented as such.
   */
  permission: Permission | { resource: string };
  mutation?: boolean;
  /**
   * The route takes `If-Match: "<version>"` (optimistic concurrency): `true` required (documents it and 428),
   * `'optional'` optional (no 428).
   */
  ifMatch?: boolean | 'optional';
  /**
   * `problem`: every error is Shape B (RFC 9457 `application/problem+json`, the `Problem` response: 401, 403,
   * 404, 409 on mutations, 422, 429, 503; no 400, validation is 422). Unset: Shape A.
   */
  errors?: 'problem';
  /** The token selects the tenant: `Service-Tenant` is optional and, when sent, must be the token's tenant. */
  tenantFromToken?: boolean;
  /** The operation needs `Service-Actor` (a maker-checker step names its actor): documented as required (400 without). */
  actorRequired?: boolean;
  /**
   * A request body the route reads itself rather than through a JSON validator (e.g. the NDJSON stream of a
   * boarding upload): its media type, a description and, optionally, a JSON Schema of its content.
   */
  requestBody?: { mediaType: string; description: string; schema?: object };
  /** Error statuses beyond the usual ones this route answers (Shape A), e.g. 415 for a body in another media type. */
  errorStatuses?: number[];
  /** Success status → schema of its JSON body, or `binary`: the media type of a binary body (e.g. a PDF). */
  responses: Record<number, { description: string; schema?: v.GenericSchema; binary?: string }>;
}

const headerParams = (mutation: boolean, tenantFromToken: boolean, actorRequired: boolean) => [
  tenantFromToken
    ? {
        name: 'Service-Tenant',
        in: 'header' as const,
        required: false,
        description:
          "Not needed: the token's tenant is used (credentials belong to one tenant). When sent, it must be well formed and name the token's tenant, else 403.",
        schema: { type: 'string' as const, pattern: '^[a-z0-9-]{1,64}$' },
      }
    : {
        name: 'Service-Tenant',
        in: 'header' as const,
        required: true,
        description: 'Tenant selector: 1–64 lowercase letters, digits or hyphens; exactly one instance.',
        schema: { type: 'string' as const, pattern: '^[a-z0-9-]{1,64}$' },
      },
  {
    name: 'Service-Actor',
    in: 'header' as const,
    required: actorRequired,
    description:
      'End user on whose behalf the backend acts (1–128 printable ASCII characters, no space at either end); recorded in histories. Anything else → 400.',
    schema: {
      type: 'string' as const,
      minLength: 1,
      maxLength: 128,
      pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]{0,126}[\\x21-\\x7e])?$',
    },
  },
  ...(mutation
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header' as const,
          required: false,
          description:
            '1–50 printable ASCII characters (letters, digits, spaces inside, punctuation other than a comma) naming one logical mutation, sent once. A replay returns the original result with `x-served-from-cache: true`; a duplicate in flight → 409; another payload → 422. Kept 24 h.',
          schema: {
            type: 'string' as const,
            minLength: 1,
            maxLength: 50,
            pattern: '^[\\x21-\\x2b\\x2d-\\x7e]([\\x20-\\x2b\\x2d-\\x7e]{0,48}[\\x21-\\x2b\\x2d-\\x7e])?$',
          },
        },
      ]
    : []),
];

const ifMatchParam = {
  name: 'If-Match',
  in: 'header' as const,
  required: true,
  description:
    'The `ETag` of your last read, `"<version>"` (RFC 9110 §13.1.1). Missing → 428; another version → 409.',
  schema: { type: 'string' as const, pattern: '^"[0-9]+"$' },
};

const optionalIfMatchParam = {
  ...ifMatchParam,
  required: false,
  description:
    'Optional: the version you last read, `"<version>"` (RFC 9110 §13.1.1); another version → 409 `version_conflict`. Without it the request is not conditional.',
};

/** Describes one route for the OpenAPI document. */
export function doc(route: RouteDoc) {
  const permissionText =
    typeof route.permission === 'string'
      ? `permission \`${route.permission}\``
      : `the permission named by ${route.permission.resource}`;
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    responses[status] = {
      description: r.description,
      ...(r.schema ? { content: { 'application/json': { schema: resolver(r.schema) } } } : {}),
      ...(r.binary ? { content: { [r.binary]: { schema: { type: 'string', format: 'binary' } } } } : {}),
    };
  }
  const ifMatch = route.ifMatch === 'optional' ? [optionalIfMatchParam] : route.ifMatch ? [ifMatchParam] : [];
  const parameters = [
    ...headerParams(route.mutation ?? false, route.tenantFromToken ?? false, route.actorRequired ?? false),
    ...ifMatch,
  ];
  if (route.errors === 'problem') {
    for (const status of ['401', '403', '404', ...(route.mutation ? ['409'] : []), '422', '429', '503']) {
      responses[status] ??= problemRef;
    }
    return describeRoute({
      tags: route.tags,
      summary: route.summary,
      description:
        `${route.description ?? ''}\n\nScope \`${route.scope}\`, ${permissionText}. Errors are RFC 9457 problem details (\`application/problem+json\`).`.trim(),
      security: [{ oauth2: [route.scope] }, { bearer: [] }],
      parameters,
      responses: responses as never,
    });
  }
  for (const status of [
    '400',
    '401',
    '403',
    '404',
    '429',
    ...(route.mutation ? ['409', '422'] : []),
    ...(route.ifMatch ? ['428'] : []),
    ...(route.errorStatuses ?? []).map(String),
    '503',
  ]) {
    responses[status] ??= errorRef;
  }
  return describeRoute({
    tags: route.tags,
    summary: route.summary,
    description: `${route.description ?? ''}\n\nScope \`${route.scope}\`, ${permissionText}.`.trim(),
    security: [{ oauth2: [route.scope] }, { bearer: [] }],
    parameters,
    ...(route.requestBody
      ? {
          requestBody: {
            required: true,
            description: route.requestBody.description,
            content: {
              [route.requestBody.mediaType]: {
                schema: route.requestBody.schema ?? { type: 'string', format: 'binary' },
              },
            },
          },
        }
      : {}),
    responses: responses as never,
  });
}

const shapeA = {
  type: 'object',
  required: [
    'developerMessage',
    'httpStatusCode',
    'defaultUserMessage',
    'userMessageGlobalisationCode',
    'errors',
  ],
  properties: {
    developerMessage: { type: 'string' },
    httpStatusCode: { type: 'string', description: 'The HTTP status as text.' },
    defaultUserMessage: { type: 'string' },
    userMessageGlobalisationCode: {
      type: 'string',
      examples: [
        'validation.msg.validation.errors.exist',
        'error.msg.not.authenticated',
        'idempotency.request.in.flight',
      ],
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          parameterName: {
            type: 'string',
            description: 'Dotted path, e.g. `evidenceIds[1]` or `header.Service-Tenant`.',
          },
          value: {},
          developerMessage: { type: 'string' },
          defaultUserMessage: { type: 'string' },
          userMessageGlobalisationCode: { type: 'string' },
          args: { type: 'array', items: {} },
        },
      },
    },
  },
};

/**
 * JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a valibot schema, without its `$schema`. A `check` action
 * (a rule across fields, which JSON Schema cannot state) is left out; the field's description states it.
 */
function jsonSchemaOf(schema: v.GenericSchema): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    ignoreActions: ['check'],
  }) as Record<string, unknown>;
  return rest;
}

/** The headers of every webhook delivery (docs/design.md §5 Webhooks). */
const deliveryHeaders = [
  {
    name: 'Service-Webhook-Id',
    in: 'header' as const,
    required: true,
    description: 'Delivery id (`whd_…`), stable across the retries of one event to one subscription.',
    schema: { type: 'string' as const },
  },
  {
    name: 'Service-Webhook-Timestamp',
    in: 'header' as const,
    required: true,
    description: 'Unix time (seconds) of this attempt; reject deliveries outside a 300 s replay window.',
    schema: { type: 'string' as const, pattern: '^[0-9]+$' },
  },
  {
    name: 'Service-Webhook-Signature',
    in: 'header' as const,
    required: true,
    description:
      '`v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`; during a rotation overlap two `v1=` entries, comma-separated, newest secret first. Compare in constant time.',
    schema: { type: 'string' as const, pattern: '^v1=[0-9a-f]{64}(,\\s*v1=[0-9a-f]{64})*$' },
  },
];

/** The envelope of one event type (docs/integrating.md "Webhooks") with its `data` schema from the catalogue. */
function envelopeSchemaOf(eventType: EventType): Record<string, unknown> {
  const definition = eventCatalogue[eventType];
  return {
    type: 'object',
    required: ['eventId', 'eventType', 'apiVersion', 'occurredAt', 'subject', 'data'],
    additionalProperties: false,
    properties: {
      eventId: { type: 'string', description: '`evt_…`; deduplicate on it (at-least-once delivery).' },
      eventType: { const: eventType },
      apiVersion: {
        type: 'string',
        format: 'date',
        description: "The subscription's `apiVersion` (`YYYY-MM-DD`).",
      },
      occurredAt: { type: 'string', format: 'date-time' },
      subject: {
        type: 'object',
        required: ['type', 'id'],
        additionalProperties: false,
        properties: { type: { const: definition.subjectType }, id: { type: 'string' } },
      },
      data: jsonSchemaOf(definition.data),
      source: {
        const: 'BOARDING',
        description:
          'Only on an event written by portfolio boarding (the migrated history), which only subscriptions with `includeBoardedHistory` receive; absent on live events.',
      },
      boardingBatchId: {
        type: 'integer',
        minimum: 1,
        description: 'With `source`: the boarding batch that wrote the event.',
      },
    },
  };
}

/**
 * OpenAPI 3.1 top-level `webhooks`: one operation per catalogue event (domain/events.ts), the
 * request the service sends to a subscription's URL: the envelope, its headers, and the answers
 * it understands (docs/design.md §5: 2xx = success, 410 disables the subscription, others are retried).
 */
export const webhooks = Object.fromEntries(
  eventTypes.map((eventType) => [
    eventType,
    {
      post: {
        operationId: `webhook.${eventType}`,
        summary: eventType,
        description: `${eventCatalogue[eventType].description} Subject type \`${eventCatalogue[eventType].subjectType}\`.`,
        tags: ['Webhooks'],
        parameters: deliveryHeaders,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: envelopeSchemaOf(eventType) } },
        },
        responses: {
          '2XX': { description: 'Received and durably recorded (answer within about five seconds).' },
          '410': { description: 'Gone: the service disables the subscription.' },
          default: { description: 'Any other answer or a timeout (15 s) is retried with increasing delay.' },
        },
      },
    },
  ]),
);

/** Path of the token endpoint on every API process (api/routes/oauth.ts, mounted at `/oauth2`). */
export const tokenPath = '/oauth2/token';

/**
 * The generated document with the token endpoint's public address (docs/design.md §4: `POST /oauth2/token`
 * on the same server by default, `AUTH_BASE_URL` may move it; the spec's `{auth_url}`). With
 * `authBaseUrl` (no trailing slash) the OAuth 2.0 scheme's `tokenUrl` becomes
 * `<authBaseUrl>/oauth2/token`, the token operation gets `servers: [{url: authBaseUrl}]` (OpenAPI 3.1
 * §4.8.10.1) and the description names it; without, the document is returned unchanged (`tokenUrl`
 * relative to the server). Returns a copy; `spec` is not changed.
 */
export function withTokenAddress<T extends object>(spec: T, authBaseUrl: string | undefined): T {
  if (!authBaseUrl) return spec;
  const copy = structuredClone(spec) as T & {
    info?: { description?: string };
    paths?: Record<string, Record<string, Record<string, unknown>> | undefined>;
    components?: { securitySchemes?: { oauth2?: { flows?: { clientCredentials?: { tokenUrl?: string } } } } };
  };
  const tokenUrl = `${authBaseUrl}${tokenPath}`;
  const flow = copy.components?.securitySchemes?.oauth2?.flows?.clientCredentials;
  if (flow) flow.tokenUrl = tokenUrl;
  const operation = copy.paths?.[tokenPath]?.post;
  if (operation) operation.servers = [{ url: authBaseUrl }];
  if (copy.info?.description)
    copy.info.description = copy.info.description.replace(`POST ${tokenPath}`, `POST ${tokenUrl}`);
  return copy;
}

/** Document-level fields: info, security schemes, the Shape A / Shape B error components. */
export const documentation = {
  openapi: '3.1.0',
  info: {
    title: 'Lending and Servicing API',
    version: '1.0.0',
    description:
      'Lending-management and loan-servicing interface. Every ordinary call carries `Authorization: Bearer <token>` (from `POST /oauth2/token`) and `Service-Tenant` (the AI session output routes take the tenant from the token). Errors use Shape A, except on the AI session output routes, which answer RFC 9457 problem details (Shape B); rate limits are announced in `RateLimit-Policy` / `RateLimit`.',
  },
  webhooks,
  components: {
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        description: 'OAuth 2.0 client credentials (HTTP Basic client id and secret).',
        flows: {
          clientCredentials: {
            tokenUrl: tokenPath,
            scopes: Object.fromEntries(scopes.map((s) => [s, s])),
          },
        },
      },
      basicClient: {
        type: 'http',
        scheme: 'basic',
        description: 'Client id and client secret (token endpoint only).',
      },
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'Opaque access token (`at_test_…` sandbox, `at_live_…` production).',
      },
      voiceTaskToken: {
        type: 'apiKey',
        in: 'header',
        name: 'X-Service-Voice-Task-Token',
        description:
          'Dispatch-bound voice task token (`vtt_…`, shown once by `POST /v1/servicing/voice-dispatches`); the only credential of the voice callback (docs/design.md §5 "Inbound channel events").',
      },
    },
    schemas: {
      ShapeA: shapeA,
      Problem: {
        type: 'object',
        description:
          'Shape B: RFC 9457 problem details, the error body of the AI session output routes (`application/problem+json`).',
        required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
        properties: {
          type: { type: 'string', description: '`{docs_url}/errors/<code>`.' },
          title: { type: 'string', examples: ['Validation Error'] },
          status: { type: 'integer' },
          code: { type: 'string', enum: problemCodes },
          detail: { type: 'string' },
          requestId: { type: 'string', description: 'The `X-Request-Id` of the request.' },
          errors: {
            type: 'array',
            description: '422 only: each offending input.',
            items: {
              type: 'object',
              required: ['pointer', 'detail', 'code'],
              properties: {
                pointer: {
                  type: ['string', 'null'],
                  description:
                    'RFC 6901 JSON Pointer into the request body, e.g. `/citations/0/evidenceId` (`""`: the whole body); null for an input outside the body.',
                },
                parameter: {
                  type: 'string',
                  description: 'An input outside the body: `header.<Name>`, `path.<name>` or `query.<name>`.',
                },
                detail: { type: 'string' },
                code: { type: 'string', examples: ['validation.msg.citation.evidence.not.found'] },
              },
            },
          },
        },
      },
    },
    responses: {
      ShapeAError: {
        description:
          'Error (Shape A). 400 validation, 401 not authenticated, 403 not authorized, 404 not found, 409 conflict or in flight (Retry-After), 422 idempotency key payload mismatch, 428 precondition (If-Match) required, 429 rate limited (Retry-After), 503 dependency unavailable.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ShapeA' } } },
      },
      Problem: {
        description:
          'Error (Shape B, RFC 9457). 401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 409 `version_conflict` (stale If-Match) or `request_in_flight` (Retry-After) or `invalid_state`, 422 `validation_error` (with `errors[]`) or `idempotency_key_mismatch`, 429 `rate_limited` (Retry-After), 503 `service_unavailable` (Retry-After).',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    },
  },
};
