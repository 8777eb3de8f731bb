/**
 * Creates a voice dispatch (docs/processes.md P4 "Voice-provider control surface"; docs/design.md §5 "Inbound channel events";
 * docs/design.md §5 "Inbound channel events": `X-Service-Voice-Task-Token` is random ≥ 128-bit, minted per
 * dispatch, stored hashed, scoped to one task, expires with it).
 *
 * A dispatch asks the voice provider to call a case's customer on one of the customer's phone contact points
 * with the active version of a voice workflow. It opens a `VOICE_DISPATCH` task on the case and mints the task
 * token the provider's callback authenticates with. The token is shown once; only its SHA-256 digest is stored,
 * in the platform table `voice_task_tokens` (read by dispatch id before a tenant is known, like access tokens).
 * It works while the dispatch's task is OPEN, the call has not ended, and at most `voiceTaskTokenLifetimeHours`.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { findContactPointByRef } from '../../db/queries/customers/customers';
import { type VoiceDispatchView, voiceDispatchView } from '../../db/queries/servicing/voice';
import { voiceDispatches, voiceTaskTokens, voiceWorkflowVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound, validationError } from '../../domain/errors';
import { sha256Hex, toBase64Url } from '../../domain/hash';
import {
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
