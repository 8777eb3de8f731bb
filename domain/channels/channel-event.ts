/**
 * The channel-event process as plain data (docs/processes.md P2 inbound channel events): the input
 * and result of `channelEventWorkflow` and its start description, which the recording operation
 * stores as a start intent in the same transaction as the event (docs/processes.md P0).
 */
import { channelEventWorkflowId, taskQueues } from '../ids';
import type { WorkflowStartSpec } from '../workflow-start';

export interface ChannelEventWorkflowInput {
  tenantId: string;
  gatewayCode: string;
  /** The gateway's event id. */
  eventId: string;
  eventType: string;
}

export interface ChannelEventWorkflowResult {
  /** PROCESSED when its handling ran, IGNORED for a type that needs nothing. */
  status: 'PROCESSED' | 'IGNORED';
  /** What processing did (`{optOut, consentIds}`, `{interactionId}`, `{deliveryStatus}`). */
  outcome: Record<string, unknown>;
}

/** Start of `channelEventWorkflow`: id `channel-event/<tenant>/<gatewayCode>/<eventId>`, queue `servicing`. */
export function channelEventStartSpec(
  input: ChannelEventWorkflowInput,
): WorkflowStartSpec<ChannelEventWorkflowInput> {
  return {
    workflowType: 'channelEventWorkflow',
    workflowId: channelEventWorkflowId(input.tenantId, input.gatewayCode, input.eventId),
    taskQueue: taskQueues.servicing,
    input,
    tenantId: input.tenantId,
    searchAttributes: {},
    staticSummary: `Channel event ${input.eventType} ${input.eventId} from gateway ${input.gatewayCode}`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}
