/** Input and result of `channelEventWorkflow` (JSON-serializable; defined in domain/channels/channel-event.ts). */
export type {
  ChannelEventWorkflowInput,
  ChannelEventWorkflowResult,
} from '../../../domain/channels/channel-event';
