/**
 * The published description and the operational routes: `GET /v1/openapi.json` (OpenAPI 3.1,
 * generated from the routes), `GET /docs` and `GET /healthz`, none of which needs a token.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHealthMonitor } from '../../api/health-monitor';
import { pingDatabase } from '../../db/queries/platform/clients';
import { eventCatalogue, eventTypes } from '../../domain/events';
import { pingTemporal } from '../../workflows/common/client-start';
import { createTestContext, type TestContext } from '../support/context';
import { appWith, type Json, send } from './helpers';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
});
afterAll(async () => ctx?.close());

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Record<string, unknown> }[];
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, unknown> };
  description?: string;
}

const servicingOperations: [method: string, path: string, scope: string, mutation: boolean, body?: false][] =
  [
    ['post', '/v1/servicing/cases', 'servicing:write', true],
    ['get', '/v1/servicing/cases/{caseId}', 'servicing:read', false],
    ['post', '/v1/servicing/cases/{caseId}/close', 'servicing:write', true],
    ['get', '/v1/servicing/cases/{caseId}/effects', 'servicing:read', false],
    // Contact-consent updates (docs/processes.md P4).
    ['post', '/v1/servicing/cases/{caseId}/contact-consent-updates', 'servicing:write', true],
    ['get', '/v1/servicing/cases/{caseId}/contact-consent-updates/{updateId}', 'servicing:read', false],
    ['post', '/v1/servicing/interactions', 'servicing:write', true],
    ['get', '/v1/servicing/interactions/{interactionId}', 'servicing:read', false],
    ['post', '/v1/servicing/evidence', 'servicing:write', true],
    ['get', '/v1/servicing/evidence/{evidenceId}', 'servicing:read', false],
    ['get', '/v1/servicing/tasks', 'servicing:read', false],
    ['get', '/v1/servicing/tasks/{taskId}', 'servicing:read', false],
    ['post', '/v1/servicing/tasks/{taskId}/complete', 'servicing:write', true],
    ['post', '/v1/servicing/privacy-requests', 'servicing:write', true],
    ['get', '/v1/servicing/privacy-requests/{requestId}', 'servicing:read', false],
    ['post', '/v1/servicing/privacy-requests/{requestId}/fulfill', 'servicing:write', true],
    // Case types, field definitions and form entries.
    ['get', '/v1/servicing/admin/case-types', 'servicing:read', false],
    ['post', '/v1/servicing/admin/case-types', 'servicing:write', true],
    ['get', '/v1/servicing/admin/case-types/{caseTypeCode}/field-definitions', 'servicing:read', false],
    ['put', '/v1/servicing/admin/case-types/{caseTypeCode}/field-definitions', 'servicing:write', true],
    ['post', '/v1/form-entries', 'servicing:write', true],
    ['get', '/v1/form-entries', 'servicing:read', false],
    ['get', '/v1/form-entries/{entryId}', 'servicing:read', false],
    ['patch', '/v1/form-entries/{entryId}', 'servicing:write', true],
    ['get', '/v1/form-entries/{entryId}/history', 'servicing:read', false],
    // Promises to pay (docs/processes.md P4).
    ['post', '/v1/servicing/promises', 'servicing:write', true],
    ['get', '/v1/servicing/promises', 'servicing:read', false],
    ['get', '/v1/servicing/promises/{promiseId}', 'servicing:read', false],
    // Customers and portfolio search.
    ['post', '/v1/customers', 'lending:write', true],
    ['get', '/v1/customers', 'lending:read', false],
    ['get', '/v1/customers/{customerId}', 'lending:read', false],
    ['get', '/v1/customers/{customerId}/history', 'lending:read', false],
    ['post', '/v1/customers/{customerId}/identifiers', 'lending:write', true],
    ['post', '/v1/customers/{customerId}/consents', 'lending:write', true],
    ['post', '/v1/customers/{customerId}/payment-instruments', 'lending:write', true],
    [
      'post',
      '/v1/customers/{customerId}/payment-instruments/{instrumentId}/verification',
      'lending:write',
      true,
    ],
    ['post', '/v1/customers/{customerId}/restrictions', 'lending:write', true],
    ['get', '/v1/customers/{customerId}/restrictions', 'lending:read', false],
    ['post', '/v1/customers/{customerId}/restrictions/{restrictionId}/release', 'lending:write', true],
    ['get', '/v1/portfolio/search', 'lending:read', false],
    // Charges, loan products and documents (§5).
    ['put', '/v1/servicing/documents/{documentId}', 'servicing:write', true],
    ['post', '/v1/charges', 'lending:write', true],
    ['get', '/v1/charges', 'lending:read', false],
    ['get', '/v1/charges/{chargeId}', 'lending:read', false],
    ['post', '/v1/delinquency/ranges', 'lending:write', true],
    ['get', '/v1/delinquency/ranges', 'lending:read', false],
    ['get', '/v1/delinquency/ranges/{rangeId}', 'lending:read', false],
    ['post', '/v1/cob/runs', 'lending:write', true],
    ['get', '/v1/cob/runs/{runId}', 'lending:read', false],
    ['get', '/v1/cob/runs/{runId}/errors', 'lending:read', false],
    ['post', '/v1/delinquency/buckets', 'lending:write', true],
    ['get', '/v1/delinquency/buckets', 'lending:read', false],
    ['get', '/v1/delinquency/buckets/{bucketId}', 'lending:read', false],
    ['post', '/v1/loanproducts', 'lending:write', true],
    ['get', '/v1/loanproducts', 'lending:read', false],
    ['get', '/v1/loanproducts/{productId}', 'lending:read', false],
    ['post', '/v1/documents', 'lending:write', true],
    ['get', '/v1/documents/{documentId}', 'lending:read', false],
    ['get', '/v1/documents/{documentId}/history', 'lending:read', false],
    // Loans: preview, submission, approval, reads, parties.
    ['post', '/v1/loans', 'lending:write', true],
    ['get', '/v1/loans', 'lending:read', false],
    ['get', '/v1/loans/{loanId}', 'lending:read', false],
    ['post', '/v1/loans/{loanId}', 'lending:write', true],
    ['post', '/v1/loans/{loanId}/parties', 'lending:write', true],
    // Charges on an active loan (Fineract LoanChargesApiResource).
    ['post', '/v1/loans/{loanId}/charges', 'lending:write', true],
    ['get', '/v1/loans/{loanId}/charges', 'lending:read', false],
    ['post', '/v1/loans/{loanId}/delinquency-actions', 'lending:write', true],
    ['get', '/v1/loans/{loanId}/delinquency-actions', 'lending:read', false],
    ['get', '/v1/loans/{loanId}/charges/{loanChargeId}', 'lending:read', false],
    ['post', '/v1/loans/{loanId}/charges/{loanChargeId}', 'lending:write', true, false],
    // Charge-off and its undo (Fineract LoanTransactionsApiResource).
    ['post', '/v1/loans/{loanId}/transactions', 'lending:write', true],
    // A loan's money and the journal (record-external fundings and payments, summary).
    ['post', '/v1/loans/{loanId}/fundings/record-external', 'lending:write', true],
    ['get', '/v1/loans/{loanId}/fundings', 'lending:read', false],
    ['post', '/v1/loans/{loanId}/payments/record-external', 'lending:write', true],
    ['get', '/v1/loans/{loanId}/payments', 'lending:read', false],
    ['get', '/v1/loans/{loanId}/summary', 'lending:read', false],
    ['get', '/v1/journalentries', 'lending:read', false],
    // Payment intents and their sandbox simulations (§5).
    ['post', '/v1/loans/{loanId}/payments', 'lending:write', true],
    ['get', '/v1/loans/{loanId}/payments/{paymentId}', 'lending:read', false],
    ['post', '/v1/loans/{loanId}/payments/{paymentId}/cancel', 'lending:write', true],
    ['post', '/v1/sandbox/payments/{paymentId}/settle', 'lending:write', true],
    ['post', '/v1/sandbox/payments/{paymentId}/return', 'lending:write', true],
    ['post', '/v1/sandbox/payments/{paymentId}/fail', 'lending:write', true],
    // Autopay.
    ['post', '/v1/loans/{loanId}/autopay', 'lending:write', true],
    ['get', '/v1/loans/{loanId}/autopay', 'lending:read', false],
    ['post', '/v1/loans/{loanId}/autopay/cancel', 'lending:write', true],
    ['get', '/v1/loans/{loanId}/statements', 'lending:read', false],
    ['get', '/v1/loans/{loanId}/statements/{statementId}', 'lending:read', false],
    ['get', '/v1/loans/{loanId}/statements/{statementId}/pdf', 'lending:read', false],
    ['get', '/v1/loans/{loanId}/delinquency-history', 'lending:read', false],
    // Reconciliation exceptions.
    ['get', '/v1/recon-exceptions', 'lending:read', false],
    ['get', '/v1/recon-exceptions/export', 'lending:read', false],
    ['get', '/v1/recon-exceptions/{exceptionId}', 'lending:read', false],
    ['post', '/v1/recon-exceptions/{exceptionId}/resolve', 'lending:write', true],
    // Portfolio boarding (docs/processes.md P3): the upload's body is NDJSON, the controls take none.
    ['post', '/v1/boarding/batches', 'lending:write', true, false],
    ['get', '/v1/boarding/batches/{batchId}', 'lending:read', false],
    ['get', '/v1/boarding/batches/{batchId}/errors', 'lending:read', false],
    ['post', '/v1/boarding/batches/{batchId}/pause', 'lending:write', true, false],
    ['post', '/v1/boarding/batches/{batchId}/resume', 'lending:write', true, false],
    ['post', '/v1/boarding/batches/{batchId}/cancel', 'lending:write', true, false],
    // Merchant advances (docs/processes.md P6).
    ['post', '/v1/merchant-advances', 'lending:write', true],
    ['get', '/v1/merchant-advances/{advanceId}', 'lending:read', false],
    ['get', '/v1/merchant-advances/{advanceId}/reconciliation', 'lending:read', false],
    ['post', '/v1/merchant-advances/{advanceId}/reported-sales', 'lending:write', true],
    ['post', '/v1/merchant-advances/{advanceId}/remittances/record-external', 'lending:write', true],
    ['post', '/v1/merchant-advances/{advanceId}/remittances/{remittanceId}/return', 'lending:write', true],
    // Webhook subscriptions and deliveries.
    ['post', '/v1/servicing/webhook-subscriptions', 'servicing:write', true],
    ['get', '/v1/servicing/webhook-subscriptions', 'servicing:read', false],
    ['get', '/v1/servicing/webhook-subscriptions/{subscriptionId}', 'servicing:read', false],
    ['patch', '/v1/servicing/webhook-subscriptions/{subscriptionId}', 'servicing:write', true],
    ['post', '/v1/servicing/webhook-subscriptions/{subscriptionId}/rotate-secret', 'servicing:write', true],
    [
      'post',
      '/v1/servicing/webhook-subscriptions/{subscriptionId}/deactivate',
      'servicing:write',
      true,
      false,
    ],
    ['post', '/v1/servicing/webhook-subscriptions/{subscriptionId}/test', 'servicing:write', true, false],
    ['get', '/v1/servicing/webhook-subscriptions/{subscriptionId}/deliveries', 'servicing:read', false],
    // Hardship policies and programs (docs/processes.md P5).
    ['get', '/v1/servicing/admin/hardship-policies', 'servicing:read', false],
    ['put', '/v1/servicing/admin/hardship-policies/guardrails', 'servicing:write', true],
    ['post', '/v1/servicing/admin/hardship-programs', 'servicing:write', true],
    ['post', '/v1/servicing/admin/hardship-programs/{programCode}/versions', 'servicing:write', true],
    ['post', '/v1/servicing/admin/hardship-programs/{programCode}/retire', 'servicing:write', true],
    // Hardship offers (docs/processes.md P5).
    ['post', '/v1/servicing/hardship-offers', 'servicing:write', true],
    ['get', '/v1/servicing/hardship-offers/{offerId}', 'servicing:read', false],
    // Voice-provider control surface.
    [
      'post',
      '/v1/servicing/voice-provider/control/api/v1/workflow-versions/{workflowId}',
      'servicing:write',
      true,
    ],
    [
      'get',
      '/v1/servicing/voice-provider/control/api/v1/workflow-versions/{workflowId}/{version}',
      'servicing:read',
      false,
    ],
    [
      'post',
      '/v1/servicing/voice-provider/control/api/v1/workflow-versions/{workflowId}/{version}/activate',
      'servicing:write',
      true,
      false,
    ],
    ['post', '/v1/servicing/voice-dispatches', 'servicing:write', true],
    ['get', '/v1/servicing/voice-dispatches/{dispatchId}', 'servicing:read', false],
    // AI sessions: the ordinary routes.
    ['post', '/v1/servicing/ai-sessions', 'servicing:write', true],
    ['get', '/v1/servicing/ai-sessions/{aiSessionId}', 'servicing:read', false],
  ];

/** The AI session output routes: the token selects the tenant and every error is Shape B (docs/design.md §4 Errors). */
const problemOperations: [method: string, path: string, scope: string, mutation: boolean][] = [
  ['post', '/v1/servicing/ai-sessions/{aiSessionId}/outputs', 'servicing:write', true],
  ['get', '/v1/servicing/ai-sessions/{aiSessionId}/outputs', 'servicing:read', false],
  ['get', '/v1/servicing/ai-sessions/{aiSessionId}/outputs/{outputId}', 'servicing:read', false],
];

describe('GET /v1/openapi.json', () => {
  let doc: {
    webhooks: Record<string, { post: Json }>;
    openapi: string;
    info: { title: string; version: string };
    paths: Record<string, Record<string, Operation>>;
    components: {
      securitySchemes: Record<string, Json>;
      schemas: Record<string, Json>;
      responses: Record<string, Json>;
    };
  };

  beforeAll(async () => {
    const res = await send(ctx, '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.body;
  });

  it('is an OpenAPI 3.1 document served without a token', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  it('states the rules the service applies to Service-Actor, dates, amounts and currencies (found by npm run fuzz)', () => {
    const op = doc.paths['/v1/loans/{loanId}/payments/record-external']?.post as Operation;
    const actor = op.parameters?.find((p) => p.name === 'Service-Actor')?.schema as { pattern: string };
    const actorPattern = new RegExp(actor.pattern);
    expect(actorPattern.test('agent.jane@example.com (team 7)')).toBe(true);
    for (const refused of ['', ' agent', 'agent ', 'agënt', 'a'.repeat(129)])
      expect(actorPattern.test(refused)).toBe(false);
    const body = (op.requestBody?.content['application/json'] as { schema: Json } | undefined)?.schema as {
      properties: Record<string, { pattern?: string; format?: string; enum?: string[] }>;
    };
    const { effectiveDate, amount, currency } = body.properties;
    expect(effectiveDate?.format).toBe('date');
    const date = new RegExp(effectiveDate?.pattern ?? '');
    expect(['1900-01-01', '2026-02-28', '2199-12-31'].every((d) => date.test(d))).toBe(true);
    expect(['1899-12-31', '2200-01-01', '2026-13-01', '2026-1-01'].some((d) => date.test(d))).toBe(false);
    const positive = new RegExp(amount?.pattern ?? '');
    expect(['0.01', '125.00', '1'].every((a) => positive.test(a))).toBe(true);
    expect(['0', '0.00', '-1', '1e3', '01'].some((a) => positive.test(a))).toBe(false);
    expect(currency?.enum).toContain('USD');
    expect(currency?.enum).toContain('JPY');
    expect(currency?.enum).not.toContain('AAA');
  });

  it('states the limit range, the maker-checker actor, the webhook apiVersion and advance amounts (found by npm run fuzz)', () => {
    const params = (method: string, path: string) => doc.paths[path]?.[method]?.parameters ?? [];
    const limit = params('get', '/v1/servicing/admin/case-types').find((p) => p.name === 'limit')?.schema as {
      pattern: string;
      maxLength: number;
    };
    const limitPattern = new RegExp(limit.pattern);
    for (const ok of ['1', '50', '200', '0050'])
      expect(limitPattern.test(ok) && ok.length <= limit.maxLength).toBe(true);
    for (const refused of ['0', '201', '5747', '-1']) expect(limitPattern.test(refused)).toBe(false);
    for (const path of [
      '/v1/servicing/hardship-offers',
      '/v1/servicing/hardship-offers/{offerId}/approve',
      '/v1/servicing/hardship-offers/{offerId}/reject',
    ]) {
      expect(params('post', path).find((p) => p.name === 'Service-Actor')?.required, path).toBe(true);
    }
    expect(
      params('post', '/v1/servicing/hardship-offers/{offerId}/accept').find((p) => p.name === 'Service-Actor')
        ?.required,
    ).toBe(false);
    const bodyOf = (path: string) =>
      (doc.paths[path]?.post?.requestBody?.content['application/json'] as { schema: Json } | undefined)
        ?.schema as {
        properties: Record<string, { pattern?: string; format?: string }>;
      };
    expect(bodyOf('/v1/servicing/webhook-subscriptions').properties.apiVersion?.format).toBe('date');
    const remittance = new RegExp(
      bodyOf('/v1/merchant-advances/{advanceId}/remittances/record-external').properties.amount?.pattern ??
        '',
    );
    expect(remittance.test('12.50')).toBe(true);
    expect(remittance.test('0')).toBe(false);
  });

  it('marks the request body optional where the route accepts none (found by npm run fuzz)', () => {
    const required = (method: string, path: string) =>
      (doc.paths[path]?.[method]?.requestBody as { required?: boolean } | undefined)?.required;
    for (const path of [
      '/v1/loans/{loanId}/autopay/cancel',
      '/v1/servicing/webhook-subscriptions/{subscriptionId}/rotate-secret',
      '/v1/servicing/admin/hardship-programs/{programCode}/retire',
      '/v1/servicing/hardship-offers/{offerId}/accept',
    ]) {
      expect(required('post', path), path).toBe(false);
      expect(doc.paths[path]?.post?.requestBody?.content['application/json'], path).toBeDefined();
    }
    expect(required('post', '/v1/loans/{loanId}/autopay')).toBe(true);
    expect(required('post', '/v1/servicing/cases')).toBe(true);
  });

  it('describes every servicing route, the token endpoint and the health check', () => {
    for (const [method, path] of servicingOperations) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths['/oauth2/token']?.post).toBeDefined();
    expect(doc.paths['/healthz']?.get).toBeDefined();
    // Nothing undocumented, and the document does not describe itself or the docs page.
    const described = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect(described.sort()).toEqual(
      [
        ...servicingOperations.map(([m, p]) => `${m} ${p}`),
        ...problemOperations.map(([m, p]) => `${m} ${p}`),
        'post /oauth2/token',
        'get /healthz',
        'post /v1/servicing/channel-events/{gatewayCode}',
        'post /v1/servicing/voice-dispatches/{dispatchId}/events',
        'post /v1/servicing/hardship-offers/{offerId}/accept',
        'post /v1/servicing/hardship-offers/{offerId}/approve',
        'post /v1/servicing/hardship-offers/{offerId}/reject',
      ].sort(),
    );
  });

  it('describes the channel-event callback as signed, not bearer-authenticated', () => {
    const op = doc.paths['/v1/servicing/channel-events/{gatewayCode}']?.post as Operation;
    expect(op.security).toEqual([]);
    expect(op.parameters?.map((p) => [p.name, p.in, p.required])).toContainEqual([
      'X-Service-Gateway-Signature',
      'header',
      true,
    ]);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '202', '400', '401', '413', '503']);
  });

  it('describes the voice callback as authenticated by the task token header only', () => {
    const op = doc.paths['/v1/servicing/voice-dispatches/{dispatchId}/events']?.post as Operation;
    expect(op.security).toEqual([{ voiceTaskToken: [] }]);
    expect(doc.components.securitySchemes.voiceTaskToken).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Voice-Task-Token',
      description: expect.any(String),
    });
    expect(op.parameters?.map((p) => [p.name, p.in, p.required])).toContainEqual([
      'X-Service-Voice-Task-Token',
      'header',
      true,
    ]);
    expect(op.parameters?.some((p) => p.name === 'Service-Tenant')).toBe(false);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '413', '503']);
  });

  it('declares the OAuth 2.0 client-credentials and bearer security schemes', () => {
    expect(doc.components.securitySchemes.oauth2).toMatchObject({
      type: 'oauth2',
      flows: {
        clientCredentials: {
          tokenUrl: '/oauth2/token',
          scopes: expect.objectContaining({
            'servicing:read': expect.any(String),
            'servicing:write': expect.any(String),
          }),
        },
      },
    });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('gives every servicing operation its scope, the Service-Tenant header and Shape A errors', () => {
    for (const [method, path, scope, mutation, body] of servicingOperations) {
      const op = doc.paths[path]?.[method] as Operation;
      expect(op.security, `${method} ${path}`).toContainEqual({ oauth2: [scope] });
      const tenant = op.parameters?.find((p) => p.name === 'Service-Tenant');
      expect(tenant, `${method} ${path}`).toMatchObject({
        in: 'header',
        required: true,
        schema: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' },
      });
      const key = op.parameters?.find((p) => p.name === 'Idempotency-Key');
      if (mutation) {
        expect(key, `${method} ${path}`).toMatchObject({
          in: 'header',
          required: false,
          schema: { minLength: 1, maxLength: 50 },
        });
        expect(op.responses['409']).toEqual({ $ref: '#/components/responses/ShapeAError' });
        expect(op.responses['422']).toEqual({ $ref: '#/components/responses/ShapeAError' });
        if (body !== false) expect(op.requestBody?.content['application/json']).toBeDefined();
      } else {
        expect(key).toBeUndefined();
      }
      for (const status of ['400', '401', '403', '404', '429']) {
        expect(op.responses[status], `${method} ${path} ${status}`).toEqual({
          $ref: '#/components/responses/ShapeAError',
        });
      }
      expect(op.description).toMatch(/permission `[A-Z_]+`/);
    }
    expect(doc.components.schemas.ShapeA.required).toEqual([
      'developerMessage',
      'httpStatusCode',
      'defaultUserMessage',
      'userMessageGlobalisationCode',
      'errors',
    ]);
  });

  it('documents the boarding upload as an application/x-ndjson body with a 415', () => {
    const op = doc.paths['/v1/boarding/batches']?.post as Operation;
    expect(Object.keys(op.requestBody?.content ?? {})).toEqual(['application/x-ndjson']);
    expect(op.responses['202']).toBeDefined();
    expect(op.responses['415']).toEqual({ $ref: '#/components/responses/ShapeAError' });
    expect(op.description).toMatch(/permission `BOARD_PORTFOLIO`/);
  });

  it("documents the hardship offer decisions with scope actions:approve and the program's permission", () => {
    for (const action of ['approve', 'reject']) {
      const op = doc.paths[`/v1/servicing/hardship-offers/{offerId}/${action}`]?.post as Operation;
      expect(op.security, action).toContainEqual({ oauth2: ['actions:approve'] });
      expect(op.description).toMatch(
        /the permission named by the offer's program version \(`humanApprovalPermission`\)/,
      );
      expect(op.responses['403']).toEqual({ $ref: '#/components/responses/ShapeAError' });
      expect(op.responses['409']).toEqual({ $ref: '#/components/responses/ShapeAError' });
    }
  });

  it('documents the AI session output routes with Shape B (Problem) errors, an optional tenant header and If-Match', () => {
    const problem = { $ref: '#/components/responses/Problem' };
    for (const [method, path, scope, mutation] of problemOperations) {
      const op = doc.paths[path]?.[method] as Operation;
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.security).toContainEqual({ oauth2: [scope] });
      expect(op.parameters?.find((p) => p.name === 'Service-Tenant')).toMatchObject({ required: false });
      const errors = ['401', '403', '404', ...(mutation ? ['409'] : []), '422', '429', '503'];
      for (const status of errors)
        expect(op.responses[status], `${method} ${path} ${status}`).toEqual(problem);
      expect(op.responses['400']).toBeUndefined();
      expect(op.description).toMatch(/permission `[A-Z_]+`/);
    }
    const post = doc.paths['/v1/servicing/ai-sessions/{aiSessionId}/outputs']?.post as Operation;
    expect(post.parameters?.find((p) => p.name === 'If-Match')).toMatchObject({
      in: 'header',
      required: false,
    });
    expect(post.parameters?.find((p) => p.name === 'Idempotency-Key')).toBeDefined();
    expect(post.requestBody?.content['application/json']).toBeDefined();
    expect(doc.components.responses.Problem).toMatchObject({
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    const schema = doc.components.schemas.Problem;
    expect(schema.required).toEqual(['type', 'title', 'status', 'code', 'detail', 'requestId']);
    expect(schema.properties.code.enum).toEqual(
      expect.arrayContaining([
        'unauthorized',
        'forbidden',
        'version_conflict',
        'validation_error',
        'rate_limited',
      ]),
    );
    expect(schema.properties.errors.items.required).toEqual(['pointer', 'detail', 'code']);
  });

  it('documents the statement PDF as application/pdf binary and the statement list as {items}', async () => {
    const res = await ctx.app.request('/v1/openapi.json');
    const body = (await res.json()) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
      >;
    };
    const pdf = body.paths['/v1/loans/{loanId}/statements/{statementId}/pdf']?.get;
    expect(pdf?.responses['200']?.content).toEqual({
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    });
    const list = body.paths['/v1/loans/{loanId}/statements']?.get;
    expect(Object.keys(list?.responses['200']?.content ?? {})).toEqual(['application/json']);
  });

  it('documents the paging parameters of the effects and task lists', () => {
    const effects = doc.paths['/v1/servicing/cases/{caseId}/effects']?.get as Operation;
    expect(
      effects.parameters
        ?.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['cursor', 'limit']);
    const tasks = doc.paths['/v1/servicing/tasks']?.get as Operation;
    expect(
      tasks.parameters
        ?.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['caseId', 'limit', 'offset', 'status']);
  });

  it('documents the webhook subscription paging, If-Match and the 428 answer', () => {
    const list = doc.paths['/v1/servicing/webhook-subscriptions']?.get as Operation;
    expect(
      list.parameters
        ?.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['cursor', 'pageSize']);
    const deliveries = doc.paths['/v1/servicing/webhook-subscriptions/{subscriptionId}/deliveries']
      ?.get as Operation;
    expect(
      deliveries.parameters
        ?.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['cursor', 'eventType', 'pageSize', 'state']);
    const patch = doc.paths['/v1/servicing/webhook-subscriptions/{subscriptionId}']?.patch as Operation;
    expect(patch.parameters?.find((p) => p.name === 'If-Match')).toMatchObject({
      in: 'header',
      required: true,
    });
    expect(patch.responses['428']).toEqual({ $ref: '#/components/responses/ShapeAError' });
  });

  it('documents every catalogue event under OpenAPI 3.1 webhooks: envelope, data schema, delivery headers', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventTypes].sort());
    for (const eventType of eventTypes) {
      const op = doc.webhooks[eventType]?.post;
      expect(op, eventType).toBeDefined();
      expect(op.parameters.map((p: Json) => p.name)).toEqual([
        'Service-Webhook-Id',
        'Service-Webhook-Timestamp',
        'Service-Webhook-Signature',
      ]);
      for (const header of op.parameters) expect(header).toMatchObject({ in: 'header', required: true });
      const envelope = op.requestBody.content['application/json'].schema;
      expect(envelope.required).toEqual([
        'eventId',
        'eventType',
        'apiVersion',
        'occurredAt',
        'subject',
        'data',
      ]);
      expect(envelope.properties.eventType).toEqual({ const: eventType });
      expect(envelope.properties.subject.properties.type).toEqual({
        const: eventCatalogue[eventType].subjectType,
      });
      expect(envelope.properties.occurredAt).toMatchObject({ type: 'string', format: 'date-time' });
      expect(envelope.properties.data).toMatchObject({ type: 'object', additionalProperties: false });
      expect(envelope.properties.data).not.toHaveProperty('$schema');
      expect(op.responses).toHaveProperty('2XX');
      expect(op.responses).toHaveProperty('410');
    }
    // docs/integrating.md "Webhooks": payment events carry paymentId integer, loanRef, status, amount decimal string,
    // currency, effectiveDate date.
    const payment =
      doc.webhooks['payment.posted']?.post.requestBody.content['application/json'].schema.properties.data;
    expect(payment.required.sort()).toEqual(
      ['amount', 'currency', 'effectiveDate', 'loanRef', 'paymentId', 'status'].sort(),
    );
    expect(payment.properties.paymentId).toMatchObject({ type: 'integer' });
    expect(payment.properties.amount).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(payment.properties.effectiveDate).toMatchObject({ type: 'string', format: 'date' });
    const signature = doc.webhooks['payment.posted']?.post.parameters[2];
    expect(signature.description).toMatch(/v1=/);
    expect(new RegExp(signature.schema.pattern).test(`v1=${'a'.repeat(64)}, v1=${'b'.repeat(64)}`)).toBe(
      true,
    );
  });

  it('documents the contact-consent update: its body, its answer and the contact.consent.updated payload', () => {
    const op = doc.paths['/v1/servicing/cases/{caseId}/contact-consent-updates']?.post as Json;
    const body = op.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(
      [
        'canReceiveEmail',
        'canReceiveSms',
        'canReceiveVoice',
        'contactPointRef',
        'customerRef',
        'effectiveAt',
        'operation',
        'reason',
      ].sort(),
    );
    expect(body.required.sort()).toEqual(
      ['contactPointRef', 'customerRef', 'effectiveAt', 'operation', 'reason'].sort(),
    );
    expect(body.properties.operation.enum).toEqual([
      'UPDATE_SMS_PERMISSION',
      'UPDATE_EMAIL_PERMISSION',
      'UPDATE_VOICE_PERMISSION',
    ]);
    expect(op.description).toMatch(/permission `UPDATE_CONTACTCONSENT`/);
    const answer = op.responses['200'].content['application/json'].schema;
    expect(answer.required.sort()).toEqual(['customerRef', 'outcome', 'resourceId']);
    const data =
      doc.webhooks['contact.consent.updated']?.post.requestBody.content['application/json'].schema.properties
        .data;
    expect(data.required.sort()).toEqual(
      ['caseId', 'contactPointRef', 'customerRef', 'effectiveAt', 'operation', 'permission'].sort(),
    );
    expect(data.properties.permission).toMatchObject({ type: 'boolean' });
    expect(data.properties.caseId).toMatchObject({ type: 'integer' });
  });

  it('describes the token endpoint with HTTP Basic and a form body', () => {
    const token = doc.paths['/oauth2/token']?.post as Operation;
    expect(token.security).toEqual([{ basicClient: [] }]);
    expect(doc.components.securitySchemes.basicClient).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(token.requestBody?.content['application/x-www-form-urlencoded']).toBeDefined();
    expect(Object.keys(token.responses).sort()).toEqual(['200', '400', '401', '429']);
  });
});

describe('GET /docs', () => {
  it('serves an HTML reference page pointing at the document, without a token', async () => {
    const res = await send(ctx, '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
    expect(res.body).toContain('/v1/openapi.json');
    // Offline: the script is this service's copy of the package, no CDN, no default fonts.
    expect(res.body).toMatch(/<script src="\/docs\/assets\/scalar-standalone\.js\?v=[A-Za-z0-9_-]+">/);
    expect(res.body).not.toMatch(/cdn\.jsdelivr|fonts\.scalar\.com/);
    expect(res.body).toContain('"withDefaultFonts": false');
    expect(res.body).toContain('"telemetry": false');
  });

  it('serves the installed Scalar bundle with a long cache, an ETag, gzip and 304 on If-None-Match', async () => {
    const plain = await ctx.app.request('/docs/assets/scalar-standalone.js');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = plain.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const installed = readFileSync(
      createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js'),
    );
    expect(Buffer.from(await plain.arrayBuffer()).equals(installed)).toBe(true);

    const gzipped = await ctx.app.request('/docs/assets/scalar-standalone.js', {
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).equals(installed)).toBe(true);

    const cached = await ctx.app.request('/docs/assets/scalar-standalone.js', {
      headers: { 'if-none-match': etag! },
    });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    const page = await send(ctx, '/docs');
    expect(page.body).toContain(`/docs/assets/scalar-standalone.js?v=${etag!.slice(1, 13)}`);
  });
});

describe('GET /healthz', () => {
  it('answers 200 {status: "ok", dependencies: {database: "up", temporal: "up"}} without a token', async () => {
    const res = await send(ctx, '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', dependencies: { database: 'up', temporal: 'up' } });
  });

  it('answers 503 "degraded" naming the dependency that is down', async () => {
    const app = appWith(ctx, {
      health: createHealthMonitor({
        checks: { database: () => pingDatabase(ctx.db), temporal: async () => false },
      }),
    });
    const res = await app.request('/healthz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'degraded',
      dependencies: { database: 'up', temporal: 'down' },
    });
  });

  it('answers a flood of 200 requests from the status checked in the background, not per request', async () => {
    const calls = { database: 0, temporal: 0 };
    const app = appWith(ctx, {
      health: createHealthMonitor({
        intervalMs: 60_000,
        checks: {
          database: () => {
            calls.database += 1;
            return pingDatabase(ctx.db);
          },
          temporal: () => {
            calls.temporal += 1;
            return pingTemporal(ctx.client);
          },
        },
      }),
    });
    const answers = await Promise.all(Array.from({ length: 200 }, () => app.request('/healthz')));
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    expect(await answers[199]!.json()).toEqual({
      status: 'ok',
      dependencies: { database: 'up', temporal: 'up' },
    });
    expect(calls).toEqual({ database: 1, temporal: 1 });
  });
});
