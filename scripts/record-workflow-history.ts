/**
 * Records histories of `privacyRequestWorkflow` on the time-skipping test server into
 * test/workflows/histories/, as replay fixtures (STYLE §7: a change that breaks running
 * workflows must fail CI). Run after a deliberate, versioned change:
 *   npx tsx scripts/record-workflow-history.ts
 * Activities are stand-ins that answer like the real ones; replay checks only the workflow code.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { PrivacyRequestWorkflowInput } from '../domain/servicing/privacy-request';
import { projectRoot } from '../workers/config';
import { workflowsPath } from '../workers/servicing';
import { resolveTestServer } from '../workers/temporal-server';
import { fulfilRequestUpdate } from '../workflows/privacy-request/messages';
import type { privacyRequestWorkflow } from '../workflows/privacy-request/workflow';

const DAY = 86_400_000;
Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createTimeSkipping({
  server: { executable: { type: 'existing-path', path: resolveTestServer() } },
});
const taskQueue = 'record-histories';
const worker = await Worker.create({
  connection: env.nativeConnection,
  taskQueue,
  workflowsPath,
  activities: {
    markPrivacyWorkflowStarted: async () => undefined,
    raisePrivacyReminder: async () => ({ raised: true }),
    markPrivacyRequestOverdue: async () => ({ status: 'OVERDUE' }),
    fulfilPrivacyRequest: async (input: { requestId: number; outcome: string }) => ({
      requestId: input.requestId,
      status: input.outcome,
    }),
  },
});

async function record(name: string, fulfilAfterDays: number) {
  const now = Date.now();
  const input: PrivacyRequestWorkflowInput = {
    tenantId: 'fixture',
    requestId: 1,
    caseId: 1,
    customerRef: 'cus_fixture',
    regime: 'CCPA_CPRA',
    statutoryDueAt: new Date(now + 45 * DAY).toISOString(),
    dueAtMs: now + 45 * DAY,
    reminderAtMs: now + 35 * DAY,
  };
  const handle = await env.client.workflow.start<typeof privacyRequestWorkflow>('privacyRequestWorkflow', {
    workflowId: `privacy-request/fixture/${name}`,
    taskQueue,
    args: [input],
  });
  await env.sleep(fulfilAfterDays * DAY);
  await handle.executeUpdate(fulfilRequestUpdate, {
    args: [{ outcome: 'FULFILLED', outcomeReason: 'fixture', evidenceIds: [1] }],
  });
  await handle.result();
  const file = path.join(projectRoot, 'test', 'workflows', 'histories', `privacy-request-${name}.json`);
  const history = proto.temporal.api.history.v1.History.toObject(
    proto.temporal.api.history.v1.History.fromObject(await handle.fetchHistory()),
    { longs: String, enums: String, bytes: String, defaults: false },
  );
  await writeFile(file, `${JSON.stringify(history, null, 1)}\n`);
  process.stdout.write(`wrote ${path.relative(projectRoot, file)}\n`);
}

try {
  await worker.runUntil(async () => {
    await record('fulfilled-early', 5);
    await record('overdue-then-fulfilled', 50);
  });
} finally {
  await env.teardown();
}
