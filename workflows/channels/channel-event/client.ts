/**
 * The typed port to `channelEventWorkflow` (docs/processes.md P0: the API reaches a process only
 * through its client.ts). Start options come from `channelEventStartSpec`, the spec the recording
 * operation stores as its start intent. Imports `@temporalio/client`: never part of the bundle.
 */
import type { Client } from '@temporalio/client';
import { channelEventStartSpec } from '../../../domain/channels/channel-event';
import { startWorkflowOf } from '../../common/client-start';
import type { ChannelEventWorkflowInput } from './types';

export interface ChannelEventClient {
  /** Starts the processing of a recorded event; a no-op when it runs or ran. Errors: 503 when Temporal is unreachable. */
  start(input: ChannelEventWorkflowInput): Promise<void>;
}

export function createChannelEventClient(client: Client): ChannelEventClient {
  return {
    async start(input) {
      await startWorkflowOf(client, channelEventStartSpec(input));
    },
  };
}
