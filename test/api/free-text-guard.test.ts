/**
 * Free text never carries a government identifier or an account or card number (docs/lending.md "Lending core"):
 * every free-text field of the servicing plane, documents and webhook subscriptions refuses one at the edge, also
 * when written with dots, slashes or invisible characters, with a 400 naming the field, the value not echoed, and
 * nothing changed (so it never reaches PostgreSQL or a workflow's history). Ordinary amounts and dates pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cases, documents, evidence, interactions, privacyRequests, tasks } from '../../db/schema';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, openCase, openPrivacyRequest } from './helpers';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('ftg'), {
    scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'],
  });
});
afterAll(async () => ctx?.close());

/** Identifier spellings the guard used to miss, and the digits that must never come back. */
const disguised = [
  { text: 'SSN 123.45.6789 confirmed', digits: '6789' },
  { text: 'ssn 123\u200B45\u200B6789', digits: '6789' },
  { text: 'paid by 4111.1111.1111.1111', digits: '4111' },
];

/** Asserts a 400 naming only `field`, with the value withheld and none of its digits in the answer. */
function expectRefused(
  res: { status: number; body: unknown; headers: Headers },
  field: string,
  digits: string,
) {
  const err = expectShapeA(res as never, 400, 'validation.msg.validation.errors.exist', [field]);
  expect(err.errors[0]?.value).toBeNull();
  expect(JSON.stringify(res.body)).not.toContain(digits);
}

describe('servicing free text', () => {
  it('case summary', async () => {
    const before = await countRows(ctx, cred.tenant, cases);
    for (const { text, digits } of disguised) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/cases', {
        customerRef: 'cus_1',
        caseTypeCode: 'GENERAL',
        summary: text,
      });
      expectRefused(res, 'summary', digits);
    }
    expect(await countRows(ctx, cred.tenant, cases)).toBe(before);
  });

  it('case closureReason, while an ordinary amount and date pass', async () => {
    const caseId = await openCase(ctx, cred);
    for (const { text, digits } of disguised) {
      const res = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
        outcomeCode: 'PAID_IN_FULL',
        closureReason: text,
      });
      expectRefused(res, 'closureReason', digits);
    }
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`)).body.status).toBe('OPEN');
    const closed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'PAID_IN_FULL',
      closureReason: 'paid 1,234.56 on 2026-01-05',
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
  });

  it('interaction summary and evidence description', async () => {
    const caseId = await openCase(ctx, cred);
    for (const { text, digits } of disguised) {
      const interaction = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
        customerRef: 'cus_1',
        caseId,
        channel: 'PHONE',
        direction: 'INBOUND',
        summary: text,
      });
      expectRefused(interaction, 'summary', digits);
      const added = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
        caseId,
        evidenceType: 'NOTE',
        description: text,
      });
      expectRefused(added, 'description', digits);
    }
    expect(await countRows(ctx, cred.tenant, interactions)).toBe(0);
    expect(await countRows(ctx, cred.tenant, evidence)).toBe(0);
  });

  it('privacy request summary, fulfilment outcomeReason and task note', async () => {
    const { requestId, reviewTaskId, caseId, interactionId } = await openPrivacyRequest(ctx, cred);
    const requestsBefore = await countRows(ctx, cred.tenant, privacyRequests);
    for (const { text, digits } of disguised) {
      const opened = await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
        customerRef: 'cus_1',
        requestType: 'ACCESS',
        regime: 'CCPA_CPRA',
        summary: text,
        caseId,
        sourceInteractionId: interactionId,
      });
      expectRefused(opened, 'summary', digits);
      const fulfilled = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
        outcome: 'FULFILLED',
        outcomeReason: text,
        evidenceIds: [],
      });
      expectRefused(fulfilled, 'outcomeReason', digits);
      const completed = await call(ctx, cred, 'POST', `/v1/servicing/tasks/${reviewTaskId}/complete`, {
        note: text,
      });
      expectRefused(completed, 'note', digits);
    }
    expect(await countRows(ctx, cred.tenant, privacyRequests)).toBe(requestsBefore);
    const request = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${requestId}`);
    expect(request.body).toMatchObject({ status: 'RECEIVED', outcomeReason: null });
    const task = await call(ctx, cred, 'GET', `/v1/servicing/tasks/${reviewTaskId}`);
    expect(task.body).toMatchObject({ status: 'OPEN', completionNote: null });
    expect(await countRows(ctx, cred.tenant, tasks)).toBeGreaterThan(0);
  });
});

describe('documents and webhook subscriptions', () => {
  it('document title on create, and title and reason on change', async () => {
    for (const { text, digits } of disguised) {
      const created = await call(ctx, cred, 'POST', '/v1/documents', { title: text, documentType: 'LETTER' });
      expectRefused(created, 'title', digits);
    }
    expect(await countRows(ctx, cred.tenant, documents)).toBe(0);
    const ok = await call(ctx, cred, 'POST', '/v1/documents', {
      title: 'Agreement v1',
      documentType: 'LETTER',
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const documentId = ok.body.documentId ?? ok.body.resourceId;
    for (const { text, digits } of disguised) {
      const reason = await call(ctx, cred, 'PUT', `/v1/servicing/documents/${documentId}`, {
        title: 'Agreement v2',
        reason: text,
      });
      expectRefused(reason, 'reason', digits);
      const title = await call(ctx, cred, 'PUT', `/v1/servicing/documents/${documentId}`, {
        title: text,
        reason: 'Typo',
      });
      expectRefused(title, 'title', digits);
    }
    const history = await call(ctx, cred, 'GET', `/v1/documents/${documentId}/history`);
    expect(history.body.items).toHaveLength(1);
  });

  it('webhook subscription description', async () => {
    for (const { text, digits } of disguised) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/webhook-subscriptions', {
        url: 'https://hooks.example.com/lending',
        eventTypes: ['payment.posted'],
        apiVersion: '2026-11-01',
        description: text,
      });
      expectRefused(res, 'description', digits);
    }
    const list = await call(ctx, cred, 'GET', '/v1/servicing/webhook-subscriptions');
    expect(list.body.data).toEqual([]);
  });
});
