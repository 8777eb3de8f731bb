/**
 * Processing of one inbound channel event (docs/processes.md P2; docs/design.md §5 "Inbound channel events").
 *
 * The callback route records the event durably (unique per gateway and event id) and answers the
 * gateway at once; this workflow then runs the event's handling as one idempotent activity,
 * retried until it succeeds: an `sms.inbound` opt-out revokes SMS consent (TCPA, 47 CFR
 * §64.1200(a)(12): honoured promptly, so no timer and no human step), a `message.delivery_status`
 * is recorded, a `voice.call.completed` logs an interaction. No clock, no messages.
 * Outcome: `{status: PROCESSED | IGNORED, outcome}` (returned, never thrown).
 * Id: `channel-event/<tenant>/<gatewayCode>/<eventId>`; queue `servicing`; search attribute TenantId.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import { dbWrite } from '../../common/activity-options';
import type { ChannelEventWorkflowInput, ChannelEventWorkflowResult } from './types';

const { processChannelEvent } = proxyActivities<Activities>(dbWrite);

export async function channelEventWorkflow(
  input: ChannelEventWorkflowInput,
): Promise<ChannelEventWorkflowResult> {
  return processChannelEvent({
    tenantId: input.tenantId,
    gatewayCode: input.gatewayCode,
    eventId: input.eventId,
  });
}
