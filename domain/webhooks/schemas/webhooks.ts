/**
 * Request and response schemas of webhook subscriptions and deliveries (docs/integrating.md "Webhooks";
 * docs/processes.md P2; docs/design.md §5 Webhooks). Roadmap routes: lists take `pageSize` and `cursor`
 * and answer `{data, nextCursor}` (docs/design.md §4 Paging). Request bodies are strict: an unknown field is
 * a 400. The URL's destination policy depends on the environment and is checked by the operation.
 */
import * as v from 'valibot';
import { isCalendarDate } from '../../customers/customer';
import { eventTypes as catalogueEventTypes, subscribableEventTypes } from '../../events';
import { findSensitiveData } from '../../sensitive-data';
import { guardedText, integerId } from '../../validation/fields';
import { maxChars, minChars } from '../../validation/text-length';

export const subscriptionIdParam = v.strictObject({ subscriptionId: integerId('subscriptionId') });

/** `url` parsed (WHATWG URL), or null when it is not an absolute URL. */
function parsedUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * An absolute URL (its destination policy is the operation's). Stored and shown in clear, so its path, query and
 * fragment never carry a government identifier or account number (the host may be an IP address).
 */
const url = v.pipe(
  v.string(),
  ...minChars(1, 'must not be empty.'),
  ...maxChars(2048, 'must be at most 2048 characters.'),
  v.check(
    (text) => parsedUrl(text) !== null,
    'must be an absolute URL such as https://hooks.example.com/in.',
  ),
  v.check((text) => {
    const parsed = parsedUrl(text);
    return parsed === null || findSensitiveData(parsed.pathname + parsed.search + parsed.hash) === null;
  }, 'must not carry a government identifier or account number in its path, query or fragment.'),
);

const eventTypes = v.pipe(
  v.array(v.picklist(subscribableEventTypes, `must be one of ${subscribableEventTypes.join(', ')}.`)),
  v.minLength(1, 'must name at least one event type.'),
  v.check((types) => new Set(types).size === types.length, 'must not repeat an event type.'),
);

const apiVersion = v.pipe(
  v.string(),
  v.check(isCalendarDate, 'must be a date YYYY-MM-DD.'),
  v.description('The envelope version, a date `YYYY-MM-DD`.'),
  // The OpenAPI document states the check (found by `npm run fuzz`).
  v.metadata({ format: 'date', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' }),
);

/** Free text: no government identifier or account number. */
const description = guardedText(500);

/**
 * Also deliver the events of portfolio boarding (envelope `source: "BOARDING"`: a boarded portfolio's migrated
 * history, e.g. one `payment.posted` per historical payment). Default false: boarding does not flood receivers;
 * `boarding.batch.completed` reaches every subscription naming it either way.
 */
const includeBoardedHistory = v.pipe(
  v.boolean('must be true or false.'),
  v.description(
    'Also deliver the events portfolio boarding writes (envelope `source: "BOARDING"`, the migrated history); default false.',
  ),
);

export const createSubscriptionBody = v.strictObject({
  url,
  eventTypes,
  apiVersion,
  description,
  includeBoardedHistory: v.optional(includeBoardedHistory),
});

export const updateSubscriptionBody = v.pipe(
  v.strictObject({
    url: v.optional(url),
    eventTypes: v.optional(eventTypes),
    description: v.optional(description),
    includeBoardedHistory: v.optional(includeBoardedHistory),
  }),
  v.check(
    (body) =>
      body.url !== undefined ||
      body.eventTypes !== undefined ||
      body.description !== undefined ||
      body.includeBoardedHistory !== undefined,
    'Send at least one of url, eventTypes, description, includeBoardedHistory.',
  ),
);

export const rotateSecretBody = v.strictObject({
  overlapSeconds: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be an integer.'),
      v.minValue(0, 'must be from 0 to 604800.'),
      v.maxValue(604_800, 'must be from 0 to 604800.'),
    ),
  ),
});

/** `pageSize`: 1 to 200, default 50; out of range is an error, never clamped (docs/design.md §4 Paging). */
const pageSize = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,4}$/, 'pageSize must be an integer from 1 to 200.'),
    v.transform(Number),
    v.minValue(1, 'pageSize must be an integer from 1 to 200.'),
    v.maxValue(200, 'pageSize must be an integer from 1 to 200.'),
  ),
  '50',
);
const cursor = v.optional(v.pipe(v.string(), ...maxChars(1024, 'must be at most 1024 characters.')));

export const deliveryStates = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

export const listSubscriptionsQuery = v.strictObject({ pageSize, cursor });

export const listDeliveriesQuery = v.strictObject({
  pageSize,
  cursor,
  eventType: v.optional(v.picklist(catalogueEventTypes, `must be one of ${catalogueEventTypes.join(', ')}.`)),
  state: v.optional(v.picklist(deliveryStates)),
});

const instant = v.pipe(v.string(), v.description('ISO 8601 instant.'));

export const subscriptionResponse = v.object({
  subscriptionId: v.number(),
  url: v.string(),
  eventTypes: v.array(v.string()),
  apiVersion: v.string(),
  description: v.string(),
  includeBoardedHistory: v.boolean(),
  status: v.picklist(['ACTIVE', 'INACTIVE', 'DISABLED']),
  disabledReason: v.optional(v.string()),
  secretVersion: v.number(),
  version: v.pipe(v.number(), v.description('Optimistic-concurrency version; the ETag is `"<version>"`.')),
  createdAt: instant,
  updatedAt: instant,
});

export const createdSubscriptionResponse = v.object({
  subscriptionId: v.number(),
  url: v.string(),
  eventTypes: v.array(v.string()),
  apiVersion: v.string(),
  description: v.string(),
  includeBoardedHistory: v.boolean(),
  status: v.literal('ACTIVE'),
  secretVersion: v.literal(1),
  signingSecret: v.pipe(v.string(), v.description('`whsec_…`; shown in this answer only.')),
  version: v.number(),
  createdAt: instant,
});

export const subscriptionListResponse = v.object({
  data: v.array(subscriptionResponse),
  nextCursor: v.nullable(v.string()),
});

export const rotateSecretResponse = v.object({
  signingSecret: v.pipe(v.string(), v.description('The new `whsec_…` secret; shown in this answer only.')),
  secretVersion: v.number(),
  previousSecretExpiresAt: instant,
});

export const testEventResponse = v.object({ eventId: v.string() });

export const deliveryListResponse = v.object({
  data: v.array(
    v.object({
      deliveryId: v.string(),
      eventId: v.string(),
      eventType: v.string(),
      state: v.picklist(deliveryStates),
      attempts: v.array(
        v.object({
          attempt: v.number(),
          at: instant,
          responseStatus: v.nullable(v.number()),
          latencyMs: v.number(),
          error: v.nullable(v.string()),
        }),
      ),
      nextAttemptAt: v.nullable(instant),
    }),
  ),
  nextCursor: v.nullable(v.string()),
});
