/**
 * Voice dispatches (docs/processes.md P4 "Voice-provider control surface"; spec § Authentication 6; docs/design.md §5
 * "Inbound channel events": `X-Service-Voice-Task-Token` is random ≥ 128-bit, minted per dispatch, stored hashed,
 * scoped to one task, expires with it).
 *
 * A dispatch asks the voice provider to call a case's customer on one of the customer's phone contact points
 * with the active version of a voice workflow. It opens a `VOICE_DISPATCH` task on the case and mints the task
 * token the provider's callback authenticates with. The token is shown once; only its SHA-256 digest is stored,
 * in the platform table `voice_task_tokens` (read by dispatch id before a tenant is known, like access tokens).
 * It works while the dispatch's task is OPEN, the call has not ended, and at most `voiceTaskTokenLifetimeHours`.
 * A terminal callback event ends the call: the task is completed, the token revoked, a VOICE interaction logged
 * on the case, and the case's effects record it, all in the event's transaction.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { findContactPointByRef } from '../../db/queries/customers/customers';
import { type VoiceDispatchView, voiceDispatchView } from '../../db/queries/servicing/voice';
import {
  interactions,
  tasks,
  voiceDispatchEvents,
  voiceDispatches,
  voiceTaskTokens,
  voiceWorkflowVersions,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound, validationError } from '../../domain/errors';
import { sha256Hex, timingSafeEqualText, toBase64Url } from '../../domain/hash';
import {
  terminalStatusOf,
  type VoiceEventType,
  voiceTaskTokenExpiresAt,
  voiceTaskTokenPrefix,
  voiceTaskTokenRandomBytes,
} from '../../domain/servicing/voice-workflow';
import type { Deps, OperationContext } from '../deps';
import { assertCaseTakesRecords, openTask, recordEffect, shareCase } from './records';

/** A new task token: `vtt_` + base64url of 32 random bytes (256 bits). */
function mintTaskToken(): string {
  return `${voiceTaskTokenPrefix}${toBase64Url(randomBytes(voiceTaskTokenRandomBytes))}`;
}

export interface CreateVoiceDispatchInput extends OperationContext {
  caseId: number;
  workflowId: string;
  /** `cp_…` of a PHONE contact point of the case's customer. */
  contactPointRef: string;
}

export interface CreateVoiceDispatchResult {
  dispatch: VoiceDispatchView;
  /** The task token, shown once (never stored in clear, never logged). */
  taskToken: string;
}

/**
 * Creates a dispatch pinned to the workflow's active version, opens its `VOICE_DISPATCH` task on the case (due
 * when the token expires), appends `VOICE_DISPATCH_CREATED` and `TASK_CREATED` to the case's effects and stores
 * the digest of a new task token. Idempotent by `requestKey`: a replay returns the same dispatch with a freshly
 * minted token that replaces the first (the first answer never reached the caller, or the API's key store would
 * have replayed it). Errors, nothing stored:
 * - 404 naming `caseId` when the case is absent or another tenant's; 409 `error.msg.case.invalid.state.transition`
 *   naming `caseId` when it is not OPEN;
 * - 404 naming `contactPointRef` when the tenant has no such contact point or it is not the case customer's
 *   (compared by `customerRef`); 400 naming `contactPointRef` when it is not a PHONE;
 * - 409 `error.msg.voice.workflow.no.active.version` naming `workflowId` when the workflow has no active version
 *   (or does not exist).
 */
export function createVoiceDispatch(deps: Deps) {
  return async (input: CreateVoiceDispatchInput): Promise<CreateVoiceDispatchResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const taskToken = mintTaskToken();
      const tokenDigest = sha256Hex(taskToken);
      if (input.requestKey) {
        const [replayed] = await tx
          .select()
          .from(voiceDispatches)
          .where(
            and(
              eq(voiceDispatches.tenantId, input.tenantId),
              eq(voiceDispatches.requestKey, input.requestKey),
            ),
          );
        if (replayed) {
          await tx
            .update(voiceTaskTokens)
            .set({ tokenDigest })
            .where(eq(voiceTaskTokens.dispatchId, replayed.id));
          return { dispatch: voiceDispatchView(replayed), taskToken };
        }
      }
      const found = await shareCase(tx, input.tenantId, input.caseId);
      if (!found) throw referenceNotFound('caseId', input.caseId, 'Case');
      assertCaseTakesRecords(found, input.caseId, null);
      const point = await findContactPointByRef(tx, input.tenantId, input.contactPointRef);
      if (!point || point.customerRef !== found.customerRef) {
        // The ref is not repeated: the caller knows what it sent, and it may be identifier-like (docs/design.md §5).
        const message =
          "contactPointRef: the contact point it names was not found among the case's customer's.";
        throw new DomainError('error.msg.resource.not.found', message, {
          errors: [
            fieldError('contactPointRef', input.contactPointRef, message, 'error.msg.resource.not.found'),
          ],
        });
      }
      if (point.contactType !== 'PHONE') {
        throw validationError(
          'contactPointRef',
          input.contactPointRef,
          `contactPointRef must name a PHONE contact point; this one is ${point.contactType}.`,
        );
      }
      // FOR SHARE: an activation running now waits for this dispatch, so the pinned version was active at commit.
      const [version] = await tx
        .select()
        .from(voiceWorkflowVersions)
        .where(
          and(
            eq(voiceWorkflowVersions.tenantId, input.tenantId),
            eq(voiceWorkflowVersions.workflowId, input.workflowId),
            eq(voiceWorkflowVersions.isActive, true),
          ),
        )
        .for('share');
      if (!version) {
        const message = `workflowId: voice workflow ${input.workflowId} has no active version; create and activate one first.`;
        throw new DomainError('error.msg.voice.workflow.no.active.version', message, {
          errors: [
            fieldError('workflowId', input.workflowId, message, 'error.msg.voice.workflow.no.active.version'),
          ],
        });
      }
      const now = deps.clock();
      const expiresAt = voiceTaskTokenExpiresAt(now);
      const [created] = await tx
        .insert(voiceDispatches)
        .values({
          tenantId: input.tenantId,
          caseId: input.caseId,
          workflowVersionId: version.id,
          workflowId: version.workflowId,
          workflowVersion: version.version,
          contactPointId: point.contactPointId,
          contactPointRef: point.contactPointRef,
          customerRef: point.customerRef,
          expiresAt,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!created) throw new Error('voice dispatch insert returned no row');
      const task = await openTask(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        taskType: 'VOICE_DISPATCH',
        title: `Voice call with workflow ${version.workflowId} version ${version.version}`,
        subjectType: 'voice_dispatch',
        subjectId: created.id,
        dueAt: expiresAt,
        dedupeKey: `voice-dispatch/${created.id}/task`,
      });
      const [dispatch] = await tx
        .update(voiceDispatches)
        .set({ taskId: task.id })
        .where(and(eq(voiceDispatches.tenantId, input.tenantId), eq(voiceDispatches.id, created.id)))
        .returning();
      if (!dispatch) throw new Error('voice dispatch vanished in its own transaction');
      await tx.insert(voiceTaskTokens).values({
        dispatchId: created.id,
        tenantId: input.tenantId,
        tokenDigest,
        expiresAt,
        createdAt: now,
      });
      const common = {
        tenantId: input.tenantId,
        caseId: input.caseId,
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      };
      await recordEffect(tx, {
        ...common,
        effectType: 'VOICE_DISPATCH_CREATED',
        subjectType: 'voice_dispatch',
        subjectId: created.id,
        detail: {
          dispatchId: created.id,
          workflowId: version.workflowId,
          workflowVersion: version.version,
          contactPointRef: point.contactPointRef,
          taskId: task.id,
          expiresAt: expiresAt.toISOString(),
        },
        dedupeKey: `voice-dispatch/${created.id}/created`,
      });
      await recordEffect(tx, {
        ...common,
        effectType: 'TASK_CREATED',
        subjectType: 'task',
        subjectId: task.id,
        detail: { taskType: 'VOICE_DISPATCH', dispatchId: created.id },
        dedupeKey: `task/${task.id}/created`,
      });
      return { dispatch: voiceDispatchView(dispatch), taskToken };
    });
}

/** What the callback needs before it knows the tenant: the token's tenant, digest and validity. */
export interface VoiceTaskTokenRecord {
  tenantId: string;
  tokenDigest: string;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** A SHA-256 hex digest no token has (compared against when the dispatch is unknown, so both take as long). */
const absentDigest = '0'.repeat(64);

/**
 * The tenant of dispatch `dispatchId` when `presentedToken` is its task token and still valid at `at` (not
 * expired, not revoked), else null. The digests are compared in constant time, and an unknown dispatch is
 * compared against a placeholder, so the answer takes as long and says nothing about which part failed.
 * Platform read (the tenant is not known yet). Whether the dispatch's task is still OPEN is checked by
 * `recordVoiceDispatchEvent` inside the tenant's transaction.
 */
export async function tenantOfVoiceTaskToken(
  deps: Deps,
  dispatchId: number | null,
  presentedToken: string,
  at: Date,
): Promise<string | null> {
  const [row] =
    dispatchId === null
      ? []
      : await deps.db
          .select({
            tenantId: voiceTaskTokens.tenantId,
            tokenDigest: voiceTaskTokens.tokenDigest,
            expiresAt: voiceTaskTokens.expiresAt,
            revokedAt: voiceTaskTokens.revokedAt,
          })
          .from(voiceTaskTokens)
          .where(eq(voiceTaskTokens.dispatchId, dispatchId));
  const record: VoiceTaskTokenRecord | undefined = row;
  const matches = timingSafeEqualText(sha256Hex(presentedToken), record?.tokenDigest ?? absentDigest);
  if (!record || !matches) return null;
  if (record.revokedAt !== null || record.expiresAt.getTime() <= at.getTime()) return null;
  return record.tenantId;
}

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
