/**
 * The bytes of a delivery (activities/webhooks/envelope.ts; docs/integrating.md "Webhooks"): a live event is exactly the
 * spec's six members; an event portfolio boarding wrote (outbox `source` `BOARDING`) adds `source` and
 * `boardingBatchId` beside `data`, leaving `data` as its catalogue schema has it. Both match the envelope schema the
 * OpenAPI document publishes for the type (api/openapi.ts `webhooks`, checked with ajv).
 */
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { envelopeBody } from '../../activities/webhooks/envelope';
import { webhooks } from '../../api/openapi';
import type { outboxEvents } from '../../db/schema';

const row: typeof outboxEvents.$inferSelect = {
  id: 1,
  tenantId: 'acme',
  eventId: 'evt_0123456789abcdef0123456789abcdef',
  eventType: 'payment.posted',
  apiVersion: '2026-11-01',
  occurredAt: new Date('2026-01-02T03:04:05.678Z'),
  subjectType: 'payment',
  subjectId: '42',
  data: {
    paymentId: 42,
    loanRef: '000000042',
    status: 'POSTED',
    amount: '12.50',
    currency: 'USD',
    effectiveDate: '2026-01-02',
  },
  dedupeKey: 'payment/42/posted',
  targetSubscriptionId: null,
  source: null,
  boardingBatchId: null,
  publishedAt: null,
};

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const schemaOf = (eventType: string) =>
  ajv.compile(
    (webhooks as Record<string, { post: { requestBody: { content: Record<string, { schema: object }> } } }>)[
      eventType
    ]!.post.requestBody.content['application/json']!.schema,
  );

describe('delivery envelope', () => {
  it('a live event: exactly the six members of the spec', () => {
    const body = JSON.parse(envelopeBody(row, '2026-01-01'));
    expect(Object.keys(body)).toEqual([
      'eventId',
      'eventType',
      'apiVersion',
      'occurredAt',
      'subject',
      'data',
    ]);
    expect(body.apiVersion).toBe('2026-01-01');
    const validate = schemaOf('payment.posted');
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });

  it('a boarded event: source BOARDING and the batch id beside data, data unchanged', () => {
    const body = JSON.parse(envelopeBody({ ...row, source: 'BOARDING', boardingBatchId: 17 }, '2026-01-01'));
    expect(Object.keys(body)).toEqual([
      'eventId',
      'eventType',
      'apiVersion',
      'occurredAt',
      'subject',
      'data',
      'source',
      'boardingBatchId',
    ]);
    expect(body).toMatchObject({ source: 'BOARDING', boardingBatchId: 17, data: row.data });
    const validate = schemaOf('payment.posted');
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    // The published schema refuses other values.
    expect(validate({ ...body, source: 'LIVE' })).toBe(false);
  });
});
