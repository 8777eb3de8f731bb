/**
 * Records a voice provider's callback event on a dispatch (docs/processes.md P4 "Voice-provider control surface").
 * A terminal event ends the call: the task is completed, the token revoked, a VOICE interaction logged on the
 * case, and the case's effects record it, all in the event's transaction.
 */
import { and, eq } from 'drizzle-orm';
import type { VoiceDispatchView } from '../../db/queries/servicing/voice';
import {
  interactions,
  tasks,
  voiceDispatchEvents,
  voiceDispatches,
  voiceTaskTokens,
  voiceWorkflowVersions,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, validationError } from '../../domain/errors';
import { terminalStatusOf, type VoiceEventType } from '../../domain/servicing/voice-workflow';
import type { Deps } from '../deps';
import { recordEffect, shareCase } from './records';

export interface RecordVoiceDispatchEventInput {
  tenantId: string;
  dispatchId: number;
  /** The provider's event id (1–128 of `A–Z a–z 0–9 . _ : -`), unique per dispatch. */
  eventId: string;
  eventType: VoiceEventType;
  /** A node of the pinned version's definition; required for `node.entered`. */
  nodeId: string | null;
  /** ISO 8601 instant with offset. */
  occurredAt: string;
  data: { durationSeconds?: number; providerCallRef?: string };
  correlationId?: string | null;
}

export interface RecordVoiceDispatchEventResult {
  eventId: string;
  /** True when the dispatch already had this eventId: nothing was written. */
  duplicate: boolean;
  /** The dispatch's status after the event. */
  status: VoiceDispatchView['status'];
}

const unauthenticated = () =>
  new DomainError('error.msg.not.authenticated', 'The voice callback could not be authenticated.');

/**
 * Records one callback event of dispatch `dispatchId` (already authenticated by its token) in one transaction,
 * under the dispatch's row lock. A repeated eventId → `duplicate: true`, nothing written. A first non-terminal
 * event moves `DISPATCHED` to `IN_PROGRESS`; `node.entered` records the node. A terminal event (`call.completed`,
 * `call.failed`, `call.no_answer`) sets the outcome status, completes the task, revokes the token, logs a VOICE
 * OUTBOUND interaction on the case (without the case when it was closed meanwhile) and appends
 * `VOICE_DISPATCH_COMPLETED`, `TASK_COMPLETED` and (case still open) `INTERACTION_LOGGED` to its effects.
 * Errors: 401 `error.msg.not.authenticated` (the same answer as a wrong token) when the dispatch is not the
 * tenant's, its task is no longer OPEN, its call has ended or its token expired; 400 naming `nodeId` when the
 * node is not in the pinned version's definition, or when `node.entered` lacks it.
 */
export function recordVoiceDispatchEvent(deps: Deps) {
  return async (input: RecordVoiceDispatchEventInput): Promise<RecordVoiceDispatchEventResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [dispatch] = await tx
        .select()
        .from(voiceDispatches)
        .where(and(eq(voiceDispatches.tenantId, input.tenantId), eq(voiceDispatches.id, input.dispatchId)))
        .for('update');
      if (!dispatch || dispatch.taskId === null) throw unauthenticated();
      const [task] = await tx
        .select({ status: tasks.status })
        .from(tasks)
        .where(and(eq(tasks.tenantId, input.tenantId), eq(tasks.id, dispatch.taskId)));
      const now = deps.clock();
      if (
        task?.status !== 'OPEN' ||
        dispatch.completedAt !== null ||
        dispatch.expiresAt.getTime() <= now.getTime()
      )
        throw unauthenticated();
      const [seen] = await tx
        .select({ id: voiceDispatchEvents.id })
        .from(voiceDispatchEvents)
        .where(
          and(
            eq(voiceDispatchEvents.tenantId, input.tenantId),
            eq(voiceDispatchEvents.dispatchId, dispatch.id),
            eq(voiceDispatchEvents.eventId, input.eventId),
          ),
        );
      if (seen) return { eventId: input.eventId, duplicate: true, status: dispatch.status };
      if (input.eventType === 'node.entered' && input.nodeId === null)
        throw validationError('nodeId', null, 'nodeId is required for a node.entered event.');
      if (input.nodeId !== null) {
        const [version] = await tx
          .select({ definition: voiceWorkflowVersions.definition })
          .from(voiceWorkflowVersions)
          .where(
            and(
              eq(voiceWorkflowVersions.tenantId, input.tenantId),
              eq(voiceWorkflowVersions.id, dispatch.workflowVersionId),
            ),
          );
        if (!version?.definition.nodes.some((node) => node.id === input.nodeId)) {
          throw validationError(
            'nodeId',
            input.nodeId,
            `nodeId: ${input.nodeId} is not a node of workflow ${dispatch.workflowId} version ${dispatch.workflowVersion}.`,
          );
        }
      }
      await tx.insert(voiceDispatchEvents).values({
        tenantId: input.tenantId,
        dispatchId: dispatch.id,
        eventId: input.eventId,
        eventType: input.eventType,
        nodeId: input.nodeId,
        occurredAt: new Date(input.occurredAt),
        data: input.data,
        receivedAt: now,
      });
      const terminal = terminalStatusOf(input.eventType);
      if (terminal === null) {
        const [updated] = await tx
          .update(voiceDispatches)
          .set({
            status: 'IN_PROGRESS',
            lastNodeId: input.eventType === 'node.entered' ? input.nodeId : dispatch.lastNodeId,
            updatedAt: now,
          })
          .where(and(eq(voiceDispatches.tenantId, input.tenantId), eq(voiceDispatches.id, dispatch.id)))
          .returning({ status: voiceDispatches.status });
        return { eventId: input.eventId, duplicate: false, status: updated?.status ?? 'IN_PROGRESS' };
      }
      const duration =
        input.data.durationSeconds === undefined ? '' : ` after ${input.data.durationSeconds} s`;
      // The call happened whatever became of the case: a case closed meanwhile does not take the interaction
      // (as servicing/records.ts `assertCaseTakesRecords` rules), which is then logged without it. FOR SHARE: a
      // concurrent close waits for this transaction.
      const held = await shareCase(tx, input.tenantId, dispatch.caseId);
      const interactionCaseId = held?.status === 'OPEN' ? dispatch.caseId : null;
      const [interaction] = await tx
        .insert(interactions)
        .values({
          tenantId: input.tenantId,
          customerRef: dispatch.customerRef,
          caseId: interactionCaseId,
          channel: 'VOICE',
          direction: 'OUTBOUND',
          summary: `Voice workflow ${dispatch.workflowId} version ${dispatch.workflowVersion}: ${input.eventType}${duration}.`,
          occurredAt: now,
          requestKey: `voice-dispatch/${dispatch.id}/interaction`,
        })
        .returning({ id: interactions.id });
      if (!interaction) throw new Error('voice interaction insert returned no row');
      await tx
        .update(voiceDispatches)
        .set({
          status: terminal,
          outcome: input.eventType,
          interactionId: interaction.id,
          lastNodeId: input.nodeId ?? dispatch.lastNodeId,
          updatedAt: now,
          completedAt: now,
        })
        .where(and(eq(voiceDispatches.tenantId, input.tenantId), eq(voiceDispatches.id, dispatch.id)));
      await tx
        .update(tasks)
        .set({
          status: 'COMPLETED',
          completedAt: now,
          completionNote: `Voice call ended: ${input.eventType}.`,
        })
        .where(and(eq(tasks.tenantId, input.tenantId), eq(tasks.id, dispatch.taskId)));
      await tx
        .update(voiceTaskTokens)
        .set({ revokedAt: now })
        .where(eq(voiceTaskTokens.dispatchId, dispatch.id));
      const common = {
        tenantId: input.tenantId,
        caseId: dispatch.caseId,
        correlationId: input.correlationId ?? null,
        occurredAt: now,
      };
      await recordEffect(tx, {
        ...common,
        effectType: 'VOICE_DISPATCH_COMPLETED',
        subjectType: 'voice_dispatch',
        subjectId: dispatch.id,
        detail: {
          dispatchId: dispatch.id,
          status: terminal,
          outcome: input.eventType,
          eventId: input.eventId,
        },
        dedupeKey: `voice-dispatch/${dispatch.id}/completed`,
      });
      await recordEffect(tx, {
        ...common,
        effectType: 'TASK_COMPLETED',
        subjectType: 'task',
        subjectId: dispatch.taskId,
        detail: { taskType: 'VOICE_DISPATCH', note: `Voice call ended: ${input.eventType}.` },
        dedupeKey: `task/${dispatch.taskId}/completed`,
      });
      if (interactionCaseId !== null) {
        await recordEffect(tx, {
          ...common,
          effectType: 'INTERACTION_LOGGED',
          subjectType: 'interaction',
          subjectId: interaction.id,
          detail: { channel: 'VOICE', direction: 'OUTBOUND' },
          dedupeKey: `interaction/${interaction.id}/logged`,
        });
      }
      return { eventId: input.eventId, duplicate: false, status: terminal };
    });
}
