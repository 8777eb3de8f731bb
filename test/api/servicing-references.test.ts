/**
 * References in servicing bodies: evidence and interactions may name only a case of the tenant that is
 * open and, for an interaction, of the same customer; evidence may name only a document of the tenant. Anything
 * else is refused with nothing stored (docs/design.md §4 "Scopes and permissions": another tenant's resource → 404; docs/design.md §5: a
 * conflict with the current state → 409).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseEffects, evidence, interactions, privacyRequests } from '../../db/schema';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, openCase } from './helpers';

let ctx: TestContext;
let cred: Credential;
let other: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('ref'));
  other = await credentialFor(ctx, uniqueTenant('ref'));
});
afterAll(async () => ctx?.close());

async function closeCase(caseId: number): Promise<void> {
  const res = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
    outcomeCode: 'RESOLVED',
    closureReason: 'Done',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('evidence references', () => {
  it("refuses another tenant's document and a document that does not exist: 404 documentId, nothing stored", async () => {
    const caseId = await openCase(ctx, cred);
    const { documentId: foreign } = await ctx.activities.createDocument({
      tenantId: other.tenant,
      title: 'Their letter',
      documentType: 'LETTER',
    });
    for (const documentId of [foreign, 987654321]) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
        caseId,
        evidenceType: 'LETTER',
        description: 'Letter on file',
        documentId,
      });
      const err = expectShapeA(res, 404, 'error.msg.resource.not.found', ['documentId']);
      expect(err.errors[0]?.value).toBe(documentId);
    }
    expect(await countRows(ctx, cred.tenant, evidence)).toBe(0);
  });

  it("refuses another tenant's case and a case that does not exist: 404 caseId, nothing stored", async () => {
    const foreignCase = await openCase(ctx, other);
    for (const caseId of [foreignCase, 987654321]) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
        caseId,
        evidenceType: 'NOTE',
        description: 'x',
      });
      expectShapeA(res, 404, 'error.msg.resource.not.found', ['caseId']);
    }
    expect(await countRows(ctx, cred.tenant, evidence)).toBe(0);
    expect(await countRows(ctx, other.tenant, evidence)).toBe(0);
  });

  it('refuses evidence on a closed case: 409 error.msg.case.invalid.state.transition, nothing stored', async () => {
    const caseId = await openCase(ctx, cred);
    await closeCase(caseId);
    const effectsBefore = await countRows(ctx, cred.tenant, caseEffects);
    const res = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
      caseId,
      evidenceType: 'NOTE',
      description: 'late',
    });
    expectShapeA(res, 409, 'error.msg.case.invalid.state.transition', ['caseId']);
    expect(await countRows(ctx, cred.tenant, evidence)).toBe(0);
    expect(await countRows(ctx, cred.tenant, caseEffects)).toBe(effectsBefore);
  });
});

describe('interaction references', () => {
  const body = (caseId: number, customerRef = 'cus_1') => ({
    customerRef,
    caseId,
    channel: 'PHONE',
    direction: 'INBOUND',
    summary: 'Called in',
  });

  it("refuses another customer's case: 409 error.msg.case.customer.mismatch, nothing stored", async () => {
    const caseId = await openCase(ctx, cred, { customerRef: 'cus_a' });
    const res = await call(ctx, cred, 'POST', '/v1/servicing/interactions', body(caseId, 'cus_b'));
    expectShapeA(res, 409, 'error.msg.case.customer.mismatch', ['caseId']);
    expect(await countRows(ctx, cred.tenant, interactions)).toBe(0);
    const same = await call(ctx, cred, 'POST', '/v1/servicing/interactions', body(caseId, 'cus_a'));
    expect(same.status, JSON.stringify(same.body)).toBe(201);
  });

  it('refuses a closed case (409) and a case of another tenant or none (404), nothing stored', async () => {
    const before = await countRows(ctx, cred.tenant, interactions);
    const closed = await openCase(ctx, cred);
    await closeCase(closed);
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/interactions', body(closed)),
      409,
      'error.msg.case.invalid.state.transition',
      ['caseId'],
    );
    const foreignCase = await openCase(ctx, other);
    for (const caseId of [foreignCase, 987654321]) {
      expectShapeA(
        await call(ctx, cred, 'POST', '/v1/servicing/interactions', body(caseId)),
        404,
        'error.msg.resource.not.found',
        ['caseId'],
      );
    }
    expect(await countRows(ctx, cred.tenant, interactions)).toBe(before);
    expect(await countRows(ctx, other.tenant, interactions)).toBe(0);
  });

  it('still records an interaction without a case, and one on an open case of the same customer', async () => {
    const caseId = await openCase(ctx, cred, { customerRef: 'cus_z' });
    for (const payload of [{ ...body(caseId, 'cus_z') }, { ...body(caseId, 'cus_q'), caseId: null }]) {
      const res = await call(ctx, cred, 'POST', '/v1/servicing/interactions', payload);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });
});

describe('privacy request references', () => {
  async function interactionOf(customerRef: string, caseId: number | null = null): Promise<number> {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
      customerRef,
      caseId,
      channel: 'EMAIL',
      direction: 'INBOUND',
      summary: 'Asked for their data',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.interactionId;
  }
  const request = (caseId: number, sourceInteractionId: number, customerRef = 'cus_p') =>
    call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
      customerRef,
      requestType: 'ACCESS',
      regime: 'CCPA_CPRA',
      summary: 'Send me my data',
      caseId,
      sourceInteractionId,
    });

  it("refuses another customer's case or interaction (409) and a closed case (409), nothing stored", async () => {
    const theirCase = await openCase(ctx, cred, { customerRef: 'cus_other', caseTypeCode: 'PRIVACY' });
    const ownCase = await openCase(ctx, cred, { customerRef: 'cus_p', caseTypeCode: 'PRIVACY' });
    const ownInteraction = await interactionOf('cus_p');
    const theirInteraction = await interactionOf('cus_other');
    expectShapeA(await request(theirCase, ownInteraction), 409, 'error.msg.case.customer.mismatch', [
      'caseId',
    ]);
    expectShapeA(await request(ownCase, theirInteraction), 409, 'error.msg.interaction.customer.mismatch', [
      'sourceInteractionId',
    ]);
    const closed = await openCase(ctx, cred, { customerRef: 'cus_p', caseTypeCode: 'PRIVACY' });
    await closeCase(closed);
    expectShapeA(await request(closed, ownInteraction), 409, 'error.msg.case.invalid.state.transition', [
      'caseId',
    ]);
    expect(await countRows(ctx, cred.tenant, privacyRequests)).toBe(0);
  });

  it("refuses a case or interaction that is absent or another tenant's: 404 naming each, nothing stored", async () => {
    const foreignCase = await openCase(ctx, other, { customerRef: 'cus_p' });
    const ownInteraction = await interactionOf('cus_p');
    expectShapeA(await request(foreignCase, ownInteraction), 404, 'error.msg.resource.not.found', ['caseId']);
    expectShapeA(await request(987654321, 987654322), 404, 'error.msg.resource.not.found', [
      'caseId',
      'sourceInteractionId',
    ]);
    expect(await countRows(ctx, cred.tenant, privacyRequests)).toBe(0);
  });
});
