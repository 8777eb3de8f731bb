/**
 * Records histories of `webhookDeliveryWorkflow` on the time-skipping test server into
 * test/workflows/histories/ as replay fixtures (STYLE §7), like record-workflow-history.ts does for
 * privacy requests. Run after a deliberate, versioned change:
 *   npx tsx scripts/record-webhook-delivery-history.ts
 * Activities are stand-ins that answer like the real ones; replay checks only the workflow code.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { projectRoot } from '../workers/config';
import { workflowsPath } from '../workers/servicing';
import { resolveTestServer } from '../workers/temporal-server';
import { cancelDeliverySignal, getDeliveryStateQuery } from '../workflows/webhook-delivery/messages';
import type { WebhookDeliveryInput } from '../workflows/webhook-delivery/types';
import type { webhookDeliveryWorkflow } from '../workflows/webhook-delivery/workflow';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createTimeSkipping({
  server: { executable: { type: 'existing-path', path: resolveTestServer() } },
});
const taskQueue = 'record-webhook-histories';
/** Answers per attempt of the scenario being recorded (status null = no answer). */
let answers: (number | null)[] = [];
const worker = await Worker.create({
  connection: env.nativeConnection,
  taskQueue,
  workflowsPath,
  activities: {
    prepareWebhookAttempt: async (input: { deliveryId: string }) => ({
      proceed: true,
      url: 'https://receiver.example/hooks',
      body: '{"eventId":"evt_fixture"}',
      deliveryId: input.deliveryId,
      signingSecrets: [{ secretVersion: 1, sealedSecret: 'sealed' }],
    }),
    sendWebhook: async () => {
      const status = answers.shift() ?? 500;
      return {
        responseStatus: status,
        latencyMs: 5,
        error: status !== null && status < 300 ? null : `HTTP ${status}`,
        retryAfterMs: null,
      };
    },
    recordWebhookAttempt: async (input: { responseStatus: number | null; nextAttemptAt: string | null }) => ({
      deliveryState: input.responseStatus === 200 ? 'SUCCEEDED' : input.nextAttemptAt ? 'RETRYING' : 'FAILED',
      disabledReason: null,
    }),
    cancelWebhookDelivery: async () => ({ deliveryState: 'CANCELLED' }),
  },
});

async function record(name: string, scenario: (number | null)[], cancel: boolean) {
  answers = [...scenario];
  const input: WebhookDeliveryInput = {
    tenantId: 'fixture',
    subscriptionId: 1,
    eventId: `evt_${name}`,
    eventType: 'payment.posted',
    deliveryId: `whd_${name}`,
  };
  const handle = await env.client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
    workflowId: `webhook-delivery/fixture/1/${name}`,
    taskQueue,
    args: [input],
  });
  if (cancel) {
    for (;;) {
      const state = await handle.query(getDeliveryStateQuery);
      if (state.state === 'RETRYING') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await handle.signal(cancelDeliverySignal, { reason: 'SUBSCRIPTION_DEACTIVATED' });
  }
  await handle.result();
  const file = path.join(projectRoot, 'test', 'workflows', 'histories', `webhook-delivery-${name}.json`);
  const history = proto.temporal.api.history.v1.History.toObject(
    proto.temporal.api.history.v1.History.fromObject(await handle.fetchHistory()),
    { longs: String, enums: String, bytes: String, defaults: false },
  );
  await writeFile(file, `${JSON.stringify(history, null, 1)}\n`);
  process.stdout.write(`wrote ${path.relative(projectRoot, file)}\n`);
}

try {
  await worker.runUntil(async () => {
    await record('retried-then-succeeded', [500, null, 200], false);
    await record('cancelled-while-waiting', [503], true);
  });
} finally {
  await env.teardown();
}
