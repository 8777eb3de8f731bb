import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('privacy'));
});
afterAll(async () => ctx?.close());

async function openCaseWithInteraction() {
  const kase = await call(ctx, cred, 'POST', '/v1/servicing/cases', {
    customerRef: 'cus_9',
    caseTypeCode: 'PRIVACY',
    summary: 'DSR',
  });
  const interaction = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
    customerRef: 'cus_9',
    caseId: kase.body.caseId,
    channel: 'EMAIL',
    direction: 'INBOUND',
    summary: 'Asked for deletion',
  });
  return { caseId: kase.body.caseId as number, interactionId: interaction.body.interactionId as number };
}

describe('privacy requests', () => {
  it('receives a request, starts its workflow, and fulfils it through the workflow', async () => {
    const { caseId, interactionId } = await openCaseWithInteraction();
    ctx.now.value = new Date('2026-03-02T18:00:00Z');
    const created = await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
      customerRef: 'cus_9',
      requestType: 'DELETION',
      regime: 'CCPA_CPRA',
      summary: 'Delete my data',
      caseId,
      sourceInteractionId: interactionId,
    });
    ctx.now.value = null;
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'RECEIVED', statutoryDueAt: '2026-04-16T23:59:59-07:00' });
    expect(created.body.resourceId).toBe(created.body.requestId);
    const requestId = created.body.requestId as number;

    const handle = ctx.client.workflow.getHandle(`privacy-request/${cred.tenant}/${requestId}`);
    const description = await handle.describe();
    expect(description.type).toBe('privacyRequestWorkflow');
    expect(description.status.name).toBe('RUNNING');

    const evidence = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
      caseId,
      evidenceType: 'DELETION_CONFIRMATION',
      description: 'Deleted from all systems',
    });
    const fulfilled = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [evidence.body.evidenceId],
    });
    expect(fulfilled).toMatchObject({
      status: 200,
      body: { resourceId: requestId, changes: { status: 'FULFILLED' } },
    });
    expect(await handle.result()).toMatchObject({ status: 'FULFILLED', wasOverdue: false });

    const again = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [evidence.body.evidenceId],
    });
    expect(again.status).toBe(409);
    expect(again.body.userMessageGlobalisationCode).toBe(
      'error.msg.privacy.request.invalid.state.transition',
    );

    const read = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${requestId}`);
    expect(read.body).toMatchObject({
      status: 'FULFILLED',
      evidenceIds: [evidence.body.evidenceId],
      reviewTaskId: created.body.reviewTaskId,
    });
    const review = await call(ctx, cred, 'GET', `/v1/servicing/tasks/${created.body.reviewTaskId}`);
    expect(review.body).toMatchObject({ taskType: 'PRIVACY_REVIEW', status: 'COMPLETED' });
  });
});
