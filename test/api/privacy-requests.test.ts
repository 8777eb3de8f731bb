import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessClients } from '../../api/processes';
import { DomainError } from '../../domain/errors';
import { privacyRequestWorkflowId } from '../../domain/ids';
import { fulfilRequestUpdate } from '../../workflows/servicing/privacy-request/messages';
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
    // Received in the future of the real clock, so the process's reminder and deadline timers (real time on the dev
    // server) cannot fire before the fulfilment below, however slow the machine.
    ctx.now.value = new Date('2036-03-02T18:00:00Z');
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
    expect(created.body).toMatchObject({ status: 'RECEIVED', statutoryDueAt: '2036-04-16T23:59:59-07:00' });
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

describe('a fulfilment the database can never store', () => {
  it.each([
    ['NUL', '\u0000'],
    ['a lone surrogate', '\ud800'],
  ])(
    'sent past the edge (%s): fails at once, non-retryable, no SQL values in history; the request stays open for a correct one',
    async (_, bad) => {
      const { caseId, interactionId } = await openCaseWithInteraction();
      const created = await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
        customerRef: 'cus_9',
        requestType: 'DELETION',
        regime: 'CCPA_CPRA',
        summary: 'Delete my data',
        caseId,
        sourceInteractionId: interactionId,
      });
      expect(created.status).toBe(201);
      const requestId = created.body.requestId as number;
      const handle = ctx.client.workflow.getHandle(privacyRequestWorkflowId(cred.tenant, requestId));
      const marker = `secret-reason-${requestId}`;

      // Straight to the workflow, as a caller before the edge rule could: the real activity on real PostgreSQL.
      const failed = await Promise.race([
        handle
          .executeUpdate(fulfilRequestUpdate, {
            args: [{ outcome: 'FULFILLED', outcomeReason: `${marker}${bad}`, evidenceIds: [] }],
          })
          .then(
            () => 'accepted',
            (err: unknown) => err,
          ),
        new Promise((resolve) => setTimeout(() => resolve('no answer within 20 s'), 20_000)),
      ]);
      expect(failed).toBeInstanceOf(WorkflowUpdateFailedError);
      const activityFailure = (failed as WorkflowUpdateFailedError).cause as ActivityFailure;
      expect(activityFailure).toBeInstanceOf(ActivityFailure);
      expect(activityFailure.retryState).toBe(RetryState.NON_RETRYABLE_FAILURE);
      const appFailure = activityFailure.cause as ApplicationFailure;
      expect(appFailure).toBeInstanceOf(ApplicationFailure);
      expect(appFailure.nonRetryable).toBe(true);
      expect(appFailure.type).toBe('validation.msg.validation.errors.exist');
      expect(appFailure.message).toMatch(/SQLSTATE 22/);
      const history = JSON.stringify(await handle.fetchHistory());
      expect(history).not.toContain(marker);
      expect(history).not.toContain('params:');

      // The client port maps the failure to the 400 it stands for.
      const port = createProcessClients(ctx.client).privacyRequests;
      const progress = await port.progress({ tenantId: cred.tenant, requestId });
      expect(progress.status).toBe('RECEIVED');
      const read = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${requestId}`);
      const input = {
        tenantId: cred.tenant,
        requestId,
        caseId,
        customerRef: 'cus_9',
        regime: 'CCPA_CPRA' as const,
        statutoryDueAt: read.body.statutoryDueAt,
        dueAtMs: Date.parse(read.body.statutoryDueAt),
        reminderAtMs: Date.parse(read.body.statutoryDueAt) - 10 * 86_400_000,
      };
      const viaPort = await port
        .fulfil(input, { outcome: 'FULFILLED', outcomeReason: `${marker}${bad}`, evidenceIds: [] })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(viaPort).toBeInstanceOf(DomainError);
      expect((viaPort as DomainError).status).toBe(400);

      const fulfilled = await call(ctx, cred, 'POST', `/v1/servicing/privacy-requests/${requestId}/fulfill`, {
        outcome: 'FULFILLED',
        outcomeReason: 'Deleted',
        evidenceIds: [],
      });
      expect(fulfilled.status, JSON.stringify(fulfilled.body)).toBe(200);
      expect(await handle.result()).toMatchObject({ status: 'FULFILLED' });
      const stored = await call(ctx, cred, 'GET', `/v1/servicing/privacy-requests/${requestId}`);
      expect(stored.body.status).toBe('FULFILLED');
    },
  );
});
