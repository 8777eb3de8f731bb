/**
 * The typed port to `webhookDeliveryWorkflow` (docs/processes.md P0): starts it with its
 * deterministic id, queue `webhooks`, the `TenantId` search attribute and a readable summary, and
 * cancels it. Never imported by the workflow, so never bundled.
 */
import type { Client } from '@temporalio/client';
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/common';
import { taskQueues, webhookDeliveryWorkflowId } from '../../../domain/ids';
import { cancelDeliverySignal } from './messages';
import type { WebhookDeliveryInput } from './types';
import type { webhookDeliveryWorkflow } from './workflow';

const tenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);

/**
 * Starts the delivery of `input.eventId` to `input.subscriptionId`. A second start of the same
 * (event, subscription), running or ended, is a no-op (`started: false`): the id is deterministic
 * and reuse is `ALLOW_DUPLICATE_FAILED_ONLY` (only a run that failed or was terminated, i.e. a bug
 * or an operator, may be started again). `taskQueue` overrides `webhooks` (tests). `startDelayMs` (> 0) starts
 * the run that many milliseconds later (Temporal start delay; the outbox relay's per-tenant pacing).
 * The tenant is the task-queue fairness key (Temporal task-queue fairness; activities inherit it):
 * with fairness on in the cluster (`matching.enableFairness`), the workflow and activity tasks of a
 * tenant with thousands of deliveries waiting are dispatched in turn with another tenant's, not
 * ahead of them. Without it the key is ignored.
 * Errors: Temporal unreachable → its error (the relay rolls back and retries).
 */
export async function startWebhookDelivery(
  client: Client,
  input: WebhookDeliveryInput,
  options: { taskQueue?: string; startDelayMs?: number } = {},
): Promise<{ workflowId: string; started: boolean }> {
  const workflowId = webhookDeliveryWorkflowId(input.tenantId, input.subscriptionId, input.eventId);
  try {
    await client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
      workflowId,
      taskQueue: options.taskQueue ?? taskQueues.webhooks,
      args: [input],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      workflowIdConflictPolicy: 'FAIL',
      typedSearchAttributes: [{ key: tenantIdKey, value: input.tenantId }],
      priority: { fairnessKey: input.tenantId.slice(0, 64) },
      // The relay's pacing (domain/webhooks/start-pacing.ts): a delayed start costs a timer, no task, until due.
      ...(options.startDelayMs && options.startDelayMs > 0 ? { startDelay: options.startDelayMs } : {}),
      staticSummary: `Webhook ${input.eventType} ${input.eventId} → subscription ${input.subscriptionId} (${input.deliveryId})`,
    });
    return { workflowId, started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, started: false };
    throw err;
  }
}

/**
 * Signals `cancelDelivery` to a running delivery, so a pending retry is not made (deactivation,
 * docs/processes.md P2). A delivery that has ended or never started → `false`.
 */
export async function cancelWebhookDeliveryWorkflow(
  client: Client,
  target: { tenantId: string; subscriptionId: number; eventId: string },
  reason: string,
): Promise<boolean> {
  const workflowId = webhookDeliveryWorkflowId(target.tenantId, target.subscriptionId, target.eventId);
  try {
    await client.workflow.getHandle(workflowId).signal(cancelDeliverySignal, { reason });
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
