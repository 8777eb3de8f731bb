/**
 * Missed workflow starts are recovered by the one generic mechanism (docs/processes.md P0): the
 * start intent stored with the row, and the start-intent relay of the worker processes. Real
 * PostgreSQL and Temporal; the relay pass is run directly, limited to this file's tenant.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rearmStartIntent } from '../../activities/platform/start-intents';
import { createStartMarkBuffer } from '../../api/start-marks';
import { workflowStartIntents } from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import type { TaskQueue } from '../../domain/ids';
import type { WorkflowStartSpec } from '../../domain/workflow-start';
import { relayStartIntentsOnce } from '../../workers/start-intent-relay';
import { startWorkflowOf } from '../../workflows/common/client-start';
import { createPrivacyRequestClient } from '../../workflows/servicing/privacy-request/client';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { appWith, logInteraction, openCase } from './helpers';

let ctx: TestContext;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

/** Stores a privacy request the way the API does, but "crashes" before starting its workflow. */
async function openWithoutStart(cred: Credential) {
  const caseId = await openCase(ctx, cred, { caseTypeCode: 'PRIVACY', summary: 'DSR' });
  const interactionId = await logInteraction(ctx, cred, caseId);
  return ctx.activities.openPrivacyRequest({
    tenantId: cred.tenant,
    customerRef: 'cus_1',
    requestType: 'DELETION',
    regime: 'GDPR',
    summary: 'Erase me',
    caseId,
    sourceInteractionId: interactionId,
  });
}

function intentsOf(tenantId: string) {
  return withPlatformTransaction(ctx.db, (tx) =>
    tx.select().from(workflowStartIntents).where(eq(workflowStartIntents.tenantId, tenantId)),
  );
}

function relay(tenantId: string) {
  return relayStartIntentsOnce({ client: ctx.client, platform: ctx.platform, logger, graceMs: 0, tenantId });
}

async function workflowExists(workflowId: string): Promise<boolean> {
  try {
    await ctx.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

describe('start intents', () => {
  it('a request created through the API is marked started by the start-mark buffer, not by the request', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('intent-api'));
    const caseId = await openCase(ctx, cred, { caseTypeCode: 'PRIVACY', summary: 'DSR' });
    const interactionId = await logInteraction(ctx, cred, caseId);
    // A buffer that writes only when told, so the test sees the state between the request and the flush.
    const marks = createStartMarkBuffer({ platform: ctx.platform, logger, flushMs: 3_600_000 });
    const app = { ...ctx, app: appWith(ctx, { startMarks: marks }) };
    const created = await call(app, cred, 'POST', '/v1/servicing/privacy-requests', {
      customerRef: 'cus_1',
      requestType: 'ACCESS',
      regime: 'CCPA_CPRA',
      summary: 'Copy please',
      caseId,
      sourceInteractionId: interactionId,
    });
    expect(created.status).toBe(201);
    // The request wrote nothing after the start: its mark waits in the app's buffer, and the workflow runs.
    const [before] = await intentsOf(cred.tenant);
    expect(before?.startedAt).toBeNull();
    expect(await workflowExists(before!.workflowId)).toBe(true);
    expect(marks.pending()).toBe(1);
    await marks.stop();
    const [intent] = await intentsOf(cred.tenant);
    expect(intent?.startedAt).toBeInstanceOf(Date);
    expect(await relay(cred.tenant)).toBe(0);
  });

  it('an API process that stopped before its flush: the relay marks the started requests without starting them again', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('intent-lost'));
    const caseId = await openCase(ctx, cred, { caseTypeCode: 'PRIVACY', summary: 'DSR' });
    const interactionId = await logInteraction(ctx, cred, caseId);
    // An app whose noted marks are never written stands for the API process that stopped before its flush.
    const stopped = { ...ctx, app: appWith(ctx, { startMarks: { noteStarted: () => undefined } }) };
    for (const requestType of ['ACCESS', 'DELETION', 'CORRECTION']) {
      const created = await call(stopped, cred, 'POST', '/v1/servicing/privacy-requests', {
        customerRef: 'cus_1',
        requestType,
        regime: 'CCPA_CPRA',
        summary: 'Please',
        caseId,
        sourceInteractionId: interactionId,
      });
      expect(created.status).toBe(201);
    }
    const intents = await intentsOf(cred.tenant);
    expect(intents).toHaveLength(3);
    expect(intents.every((i) => i.startedAt === null)).toBe(true);
    const runIds = new Map<string, string>();
    for (const i of intents)
      runIds.set(i.workflowId, (await ctx.client.workflow.getHandle(i.workflowId).describe()).runId);
    expect(await relay(cred.tenant)).toBe(3);
    for (const i of await intentsOf(cred.tenant)) {
      expect(i.startedAt).toBeInstanceOf(Date);
      expect(i.attempts).toBe(1);
      expect((await ctx.client.workflow.getHandle(i.workflowId).describe()).runId).toBe(
        runIds.get(i.workflowId),
      );
    }
    expect(await relay(cred.tenant)).toBe(0);
  });

  it('a crash between commit and start: the relay starts the workflow, with its search attributes', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('intent-crash'));
    const opened = await openWithoutStart(cred);
    expect(await workflowExists(opened.workflow.workflowId)).toBe(false);

    expect(await relay(cred.tenant)).toBe(1);
    const description = await ctx.client.workflow.getHandle(opened.workflow.workflowId).describe();
    expect(description.type).toBe('privacyRequestWorkflow');
    expect(description.taskQueue).toBe('servicing');
    const attributes = Object.fromEntries(
      description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]),
    );
    expect(attributes).toMatchObject({
      TenantId: cred.tenant,
      CustomerRef: 'cus_1',
      CaseId: opened.workflow.input.caseId,
    });
    const [intent] = await intentsOf(cred.tenant);
    expect(intent).toMatchObject({ attempts: 1, lastError: null });
    expect(intent?.startedAt).toBeInstanceOf(Date);
    expect(await relay(cred.tenant)).toBe(0);
    const port = createPrivacyRequestClient(ctx.client);
    expect(await port.progress({ tenantId: cred.tenant, requestId: opened.requestId })).toMatchObject({
      requestId: opened.requestId,
      status: 'RECEIVED',
    });
    await expect(port.progress({ tenantId: cred.tenant, requestId: 999_999_999 })).rejects.toMatchObject({
      code: 'error.msg.resource.not.found',
    });
  });

  it('a crash between start and marking: the relay finds the workflow running and counts it started', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('intent-mark'));
    const opened = await openWithoutStart(cred);
    await createPrivacyRequestClient(ctx.client).start(opened.workflow.input);
    const runId = (await ctx.client.workflow.getHandle(opened.workflow.workflowId).describe()).runId;
    expect(await relay(cred.tenant)).toBe(1);
    expect((await ctx.client.workflow.getHandle(opened.workflow.workflowId).describe()).runId).toBe(runId);
    const [intent] = await intentsOf(cred.tenant);
    expect(intent?.startedAt).toBeInstanceOf(Date);
  });

  it('an id reused by later starts (ALLOW_DUPLICATE): the relay starts a new run only when none began since the intent was stored', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('intent-reuse'));
    // A workflow no worker polls: its runs stay as the test leaves them.
    const spec: WorkflowStartSpec = {
      workflowType: 'emptyOneActivityWorkflow',
      workflowId: `intent-reuse/${cred.tenant}`,
      taskQueue: 'start-intents-unpolled' as TaskQueue,
      input: { tenantId: cred.tenant },
      tenantId: cred.tenant,
      searchAttributes: {},
      staticSummary: 'Start-intent reuse',
      idReusePolicy: 'ALLOW_DUPLICATE',
    };
    const rearm = () =>
      withTenantTransaction(ctx.db, cred.tenant, (tx) => rearmStartIntent(tx, spec, new Date()));
    const handle = ctx.client.workflow.getHandle(spec.workflowId);
    await rearm();
    expect(await relay(cred.tenant)).toBe(1);
    const first = (await handle.describe()).runId;

    // The run ended (an enrolment cancelled), a later request re-armed the intent and stopped before its start.
    await handle.terminate('ended');
    await rearm();
    expect(await relay(cred.tenant)).toBe(1);
    const second = await handle.describe();
    expect(second.runId).not.toBe(first);
    expect(second.status.name).toBe('RUNNING');

    // Re-armed, started by the API and already ended, but never marked: the relay marks it, no third run.
    await handle.terminate('ended');
    await rearm();
    await startWorkflowOf(ctx.client, spec);
    const third = (await handle.describe()).runId;
    expect(third).not.toBe(second.runId);
    await handle.terminate('ended');
    expect(await relay(cred.tenant)).toBe(1);
    expect((await handle.describe()).runId).toBe(third);
    const [intent] = await intentsOf(cred.tenant);
    expect(intent?.startedAt).toBeInstanceOf(Date);
  });

  it('two relays at once start each missed workflow exactly once', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('intent-two'));
    const opened = [];
    for (let i = 0; i < 6; i++) opened.push(await openWithoutStart(cred));
    const [a, b] = await Promise.all([relay(cred.tenant), relay(cred.tenant)]);
    expect(a + b).toBe(6);
    const intents = await intentsOf(cred.tenant);
    expect(intents.map((i) => i.attempts)).toEqual(Array(6).fill(1));
    expect(intents.every((i) => i.startedAt !== null)).toBe(true);
    for (const o of opened) {
      const handle = ctx.client.workflow.getHandle(o.workflow.workflowId);
      expect((await handle.describe()).status.name).toBe('RUNNING');
    }
  });

  it('an unreachable Temporal leaves the intent unstarted with its error, for a later pass', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('intent-down'));
    const opened = await openWithoutStart(cred);
    const down = {
      workflow: {
        start: async () => {
          throw new Error('14 UNAVAILABLE: connection refused');
        },
      },
    } as unknown as typeof ctx.client;
    expect(
      await relayStartIntentsOnce({
        client: down,
        platform: ctx.platform,
        logger,
        graceMs: 0,
        tenantId: cred.tenant,
      }),
    ).toBe(0);
    const [intent] = await withPlatformTransaction(ctx.db, (tx) =>
      tx
        .select()
        .from(workflowStartIntents)
        .where(
          and(
            eq(workflowStartIntents.tenantId, cred.tenant),
            eq(workflowStartIntents.workflowId, opened.workflow.workflowId),
          ),
        ),
    );
    expect(intent).toMatchObject({ startedAt: null, attempts: 1 });
    expect(intent?.lastError).toContain('unavailable');
  });
});
