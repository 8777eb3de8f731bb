/**
 * The typed port to `channelEventWorkflow` (DESIGN-processes P0: the API reaches a process only
 * through its client.ts). Starting is idempotent: the id is deterministic, and a start of an id
 * that already ran or runs is a no-op.
 */
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { channelEventWorkflowId, taskQueues } from '../../domain/ids';
import { tenantIdKey } from '../shared/client-search-attributes';
import type { ChannelEventWorkflowInput } from './types';
import type { channelEventWorkflow } from './workflow';

/** Starts the processing of a recorded channel event; resolves once Temporal has it. */
export async function startChannelEventWorkflow(
  client: Client,
  input: ChannelEventWorkflowInput,
): Promise<void> {
  try {
    await client.workflow.start<typeof channelEventWorkflow>('channelEventWorkflow', {
      workflowId: channelEventWorkflowId(input.tenantId, input.gatewayCode, input.eventId),
      taskQueue: taskQueues.servicing,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: tenantIdKey, value: input.tenantId }],
      staticSummary: `Channel event ${input.eventType} ${input.eventId} from gateway ${input.gatewayCode}`,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}
