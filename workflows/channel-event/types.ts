/** Input and result of `channelEventWorkflow` (JSON-serializable). */

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
