/**
 * Operations of the privacy-request process (docs/design.md §5 Privacy-request clocks).
 * The API calls `openPrivacyRequest`; the workflow `privacyRequestWorkflow` calls the rest.
 * Each is one transaction and idempotent: a retried call changes nothing more.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { evidence, interactions, privacyRequestEvidence, privacyRequests, tasks } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { computePrivacyDeadlines, type PrivacyRegime } from '../../domain/deadlines';
import { DomainError, fieldError, notFound } from '../../domain/errors';
import { privacyRequestWorkflowId } from '../../domain/ids';
import {
  type FulfilPrivacyRequestArgs,
  type FulfilPrivacyRequestResult,
  isTerminalPrivacyStatus,
  type PrivacyRequestType,
  type PrivacyRequestWorkflowInput,
  privacyRequestStartSpec,
} from '../../domain/servicing/privacy-request';
import { tenantComplianceTimeZone } from '../common/tenant-time-zone';
import type { Deps, OperationContext } from '../deps';
import { recordStartIntent } from '../platform/start-intents';
import { assertCaseTakesRecords, openTask, recordEffect, rowOfRequestKey, shareCase } from './records';

const notFoundCode = 'error.msg.resource.not.found';

export interface OpenPrivacyRequestInput extends OperationContext {
  customerRef: string;
  requestType: PrivacyRequestType;
  regime: PrivacyRegime;
  summary: string;
  caseId: number;
  sourceInteractionId: number;
}

export interface OpenPrivacyRequestResult {
  requestId: number;
  status: 'RECEIVED' | string;
  /** ISO 8601 with the compliance zone's offset. */
  statutoryDueAt: string;
  reviewTaskId: number;
  /** What the workflow must be started with. */
  workflow: { workflowId: string; input: PrivacyRequestWorkflowInput };
}

type PrivacyRow = typeof privacyRequests.$inferSelect;

function workflowInputOf(row: PrivacyRow): PrivacyRequestWorkflowInput {
  return {
    tenantId: row.tenantId,
    requestId: row.id,
    caseId: row.caseId,
    customerRef: row.customerRef,
    regime: row.regime as PrivacyRegime,
    statutoryDueAt: row.statutoryDueAtText,
    dueAtMs: row.statutoryDueAt.getTime(),
    reminderAtMs: row.reminderAt.getTime(),
  };
}

function resultOf(row: PrivacyRow): OpenPrivacyRequestResult {
  return {
    requestId: row.id,
    status: row.status,
    statutoryDueAt: row.statutoryDueAtText,
    reviewTaskId: row.reviewTaskId ?? 0,
    workflow: { workflowId: row.workflowId, input: workflowInputOf(row) },
  };
}

/**
 * Receives a privacy request: computes its statutory due time in the tenant's compliance time
 * zone, stores it RECEIVED, opens a PRIVACY_REVIEW task due at that time, and appends
 * PRIVACY_REQUEST_RECEIVED and TASK_CREATED to the case's effects. Idempotent by `requestKey` (a replay
 * returns the first request before any check). Errors, nothing stored: 404 `error.msg.resource.not.found`
 * naming `caseId` and/or `sourceInteractionId` when absent or another tenant's; 409
 * `error.msg.case.customer.mismatch` (the case is another customer's), 409
 * `error.msg.case.invalid.state.transition` (the case is closed; records.ts `assertCaseTakesRecords`) and 409
 * `error.msg.interaction.customer.mismatch` (the source interaction is another customer's).
 */
export function openPrivacyRequest(deps: Deps) {
  return async (input: OpenPrivacyRequestInput): Promise<OpenPrivacyRequestResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [existing] = await tx
          .select()
          .from(privacyRequests)
          .where(
            and(
              eq(privacyRequests.tenantId, input.tenantId),
              eq(privacyRequests.requestKey, input.requestKey),
            ),
          );
        if (existing) return resultOf(existing);
      }
      const foundCase = await shareCase(tx, input.tenantId, input.caseId);
      const [foundInteraction] = await tx
        .select({ customerRef: interactions.customerRef })
        .from(interactions)
        .where(
          and(eq(interactions.tenantId, input.tenantId), eq(interactions.id, input.sourceInteractionId)),
        );
      const missing = [];
      if (!foundCase) {
        missing.push(
          fieldError('caseId', input.caseId, `caseId: Case ${input.caseId} was not found.`, notFoundCode),
        );
      }
      if (!foundInteraction) {
        missing.push(
          fieldError(
            'sourceInteractionId',
            input.sourceInteractionId,
            `sourceInteractionId: Interaction ${input.sourceInteractionId} was not found.`,
            notFoundCode,
          ),
        );
      }
      if (!foundCase || !foundInteraction) {
        throw new DomainError(notFoundCode, missing.map((e) => e.developerMessage).join(' '), {
          errors: missing,
        });
      }
      assertCaseTakesRecords(foundCase, input.caseId, input.customerRef);
      if (foundInteraction.customerRef !== input.customerRef) {
        const message = `sourceInteractionId: interaction ${input.sourceInteractionId} is another customer's than customerRef.`;
        throw new DomainError('error.msg.interaction.customer.mismatch', message, {
          errors: [
            fieldError(
              'sourceInteractionId',
              input.sourceInteractionId,
              message,
              'error.msg.interaction.customer.mismatch',
            ),
          ],
        });
      }
      const timeZone = await tenantComplianceTimeZone(tx, input.tenantId);
      const now = deps.clock();
      const deadlines = computePrivacyDeadlines({
        regime: input.regime,
        receivedAtMs: now.getTime(),
        timeZone,
      });
      const [row] = await tx
        .insert(privacyRequests)
        .values({
          tenantId: input.tenantId,
          customerRef: input.customerRef,
          requestType: input.requestType,
          regime: input.regime,
          summary: input.summary,
          caseId: input.caseId,
          sourceInteractionId: input.sourceInteractionId,
          status: 'RECEIVED',
          receivedAt: now,
          dueDate: deadlines.dueDate,
          statutoryDueAt: new Date(deadlines.dueAtMs),
          statutoryDueAtText: deadlines.statutoryDueAt,
          reminderAt: new Date(deadlines.reminderAtMs),
          timeZone,
          workflowId: '',
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [privacyRequests.tenantId, privacyRequests.requestKey] })
        .returning();
      if (!row) {
        // A concurrent call with the same request key committed first: return its request.
        return resultOf(await rowOfRequestKey(tx, privacyRequests, input.tenantId, input.requestKey));
      }
      const workflowId = privacyRequestWorkflowId(input.tenantId, row.id);
      const review = await openTask(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        taskType: 'PRIVACY_REVIEW',
        title: `Review ${input.regime} ${input.requestType} request ${row.id}`,
        subjectType: 'privacy_request',
        subjectId: row.id,
        dueAt: new Date(deadlines.dueAtMs),
        dedupeKey: `privacy-request/${row.id}/review`,
      });
      const [updated] = await tx
        .update(privacyRequests)
        .set({ reviewTaskId: review.id, workflowId })
        .where(and(eq(privacyRequests.tenantId, input.tenantId), eq(privacyRequests.id, row.id)))
        .returning();
      const common = {
        tenantId: input.tenantId,
        caseId: input.caseId,
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      };
      await recordEffect(tx, {
        ...common,
        effectType: 'PRIVACY_REQUEST_RECEIVED',
        subjectType: 'privacy_request',
        subjectId: row.id,
        detail: {
          requestId: row.id,
          requestType: input.requestType,
          regime: input.regime,
          status: 'RECEIVED',
          statutoryDueAt: deadlines.statutoryDueAt,
        },
        dedupeKey: `privacy-request/${row.id}/received`,
      });
      await recordEffect(tx, {
        ...common,
        effectType: 'TASK_CREATED',
        subjectType: 'task',
        subjectId: review.id,
        detail: { taskType: 'PRIVACY_REVIEW', requestId: row.id },
        dedupeKey: `task/${review.id}/created`,
      });
      if (!updated) throw new Error('update returned no row');
      const opened = resultOf(updated);
      await recordStartIntent(tx, privacyRequestStartSpec(opened.workflow.input), now);
      return opened;
    });
}

interface RequestRef {
  tenantId: string;
  requestId: number;
}

async function lockRequest(tx: Tx, ref: RequestRef) {
  const [row] = await tx
    .select()
    .from(privacyRequests)
    .where(and(eq(privacyRequests.tenantId, ref.tenantId), eq(privacyRequests.id, ref.requestId)))
    .for('update');
  if (!row) throw notFound('Privacy request', ref.requestId);
  return row;
}

/**
 * Notes that the request's workflow is running (first step of the workflow; repeatable). Kept for
 * the workflow's recorded histories; restarting missed starts is the start intents' job
 * (activities/platform/start-intents.ts).
 */
export function markPrivacyWorkflowStarted(deps: Deps) {
  return async (input: RequestRef): Promise<void> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await tx
        .update(privacyRequests)
        .set({ workflowStartedAt: deps.clock() })
        .where(
          and(
            eq(privacyRequests.tenantId, input.tenantId),
            eq(privacyRequests.id, input.requestId),
            isNull(privacyRequests.workflowStartedAt),
          ),
        );
    });
}

/**
 * Raises the deadline reminder (`reminderLeadDays` before due): a PRIVACY_DEADLINE_REMINDER task
 * and a PRIVACY_REQUEST_REMINDER effect. Does nothing once the request has an outcome.
 * Returns whether the reminder stands.
 */
export function raisePrivacyReminder(deps: Deps) {
  return async (input: RequestRef): Promise<{ raised: boolean }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const row = await lockRequest(tx, input);
      if (isTerminalPrivacyStatus(row.status)) return { raised: false };
      const now = deps.clock();
      const task = await openTask(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        taskType: 'PRIVACY_DEADLINE_REMINDER',
        title: `Privacy request ${row.id} is due ${row.statutoryDueAtText}`,
        subjectType: 'privacy_request',
        subjectId: row.id,
        dueAt: row.statutoryDueAt,
        dedupeKey: `privacy-request/${row.id}/reminder`,
      });
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        effectType: 'PRIVACY_REQUEST_REMINDER',
        subjectType: 'privacy_request',
        subjectId: row.id,
        detail: { requestId: row.id, statutoryDueAt: row.statutoryDueAtText, taskId: task.id },
        occurredAt: now,
        dedupeKey: `privacy-request/${row.id}/reminder`,
      });
      return { raised: true };
    });
}

/**
 * At the due time without an outcome: status OVERDUE, a PRIVACY_REQUEST_OVERDUE effect and a
 * PRIVACY_ESCALATION task. Does nothing once the request has an outcome; returns the status.
 */
export function markPrivacyRequestOverdue(deps: Deps) {
  return async (input: RequestRef): Promise<{ status: string }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const row = await lockRequest(tx, input);
      if (isTerminalPrivacyStatus(row.status) || row.status === 'OVERDUE') return { status: row.status };
      const now = deps.clock();
      await tx
        .update(privacyRequests)
        .set({ status: 'OVERDUE', updatedAt: now })
        .where(and(eq(privacyRequests.tenantId, input.tenantId), eq(privacyRequests.id, row.id)));
      const task = await openTask(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        taskType: 'PRIVACY_ESCALATION',
        title: `Privacy request ${row.id} missed its statutory due time ${row.statutoryDueAtText}`,
        subjectType: 'privacy_request',
        subjectId: row.id,
        dueAt: null,
        dedupeKey: `privacy-request/${row.id}/escalation`,
      });
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        effectType: 'PRIVACY_REQUEST_OVERDUE',
        subjectType: 'privacy_request',
        subjectId: row.id,
        detail: { requestId: row.id, fromStatus: row.status, toStatus: 'OVERDUE', escalationTaskId: task.id },
        occurredAt: now,
        dedupeKey: `privacy-request/${row.id}/overdue`,
      });
      return { status: 'OVERDUE' };
    });
}

/**
 * Records the outcome of a privacy request (spec § States: RECEIVED → FULFILLED, evidence ids
 * attached): the status, the evidence links, a PRIVACY_REQUEST_<OUTCOME> effect, and completes the
 * request's open tasks. A repeat with the same outcome and evidence returns the first result.
 * Errors: 404 unknown request; 400 (parameterName `evidenceIds[i]`) evidence not the tenant's;
 * 409 `error.msg.privacy.request.invalid.state.transition` when it already has another outcome.
 */
export function fulfilPrivacyRequest(deps: Deps) {
  return async (input: RequestRef & FulfilPrivacyRequestArgs): Promise<FulfilPrivacyRequestResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const row = await lockRequest(tx, input);
      const evidenceIds = [...new Set(input.evidenceIds)].sort((a, b) => a - b);
      if (isTerminalPrivacyStatus(row.status)) {
        const attached = await tx
          .select({ id: privacyRequestEvidence.evidenceId })
          .from(privacyRequestEvidence)
          .where(
            and(
              eq(privacyRequestEvidence.tenantId, input.tenantId),
              eq(privacyRequestEvidence.requestId, row.id),
            ),
          );
        const same =
          row.status === input.outcome &&
          attached
            .map((a) => a.id)
            .sort((a, b) => a - b)
            .join(',') === evidenceIds.join(',');
        if (same) return { requestId: row.id, status: row.status };
        throw new DomainError(
          'error.msg.privacy.request.invalid.state.transition',
          `Privacy request ${row.id} is already ${row.status}.`,
        );
      }
      if (evidenceIds.length > 0) {
        const found = await tx
          .select({ id: evidence.id })
          .from(evidence)
          .where(and(eq(evidence.tenantId, input.tenantId), inArray(evidence.id, evidenceIds)));
        const known = new Set(found.map((f) => f.id));
        const missing = input.evidenceIds
          .map((id, index) => ({ id, index }))
          .filter(({ id }) => !known.has(id));
        if (missing.length > 0) {
          throw new DomainError('validation.msg.validation.errors.exist', 'Some evidence was not found.', {
            errors: missing.map(({ id, index }) =>
              fieldError(`evidenceIds[${index}]`, id, `Evidence ${id} was not found.`),
            ),
          });
        }
        await tx
          .insert(privacyRequestEvidence)
          .values(
            evidenceIds.map((evidenceId) => ({ tenantId: input.tenantId, requestId: row.id, evidenceId })),
          )
          .onConflictDoNothing();
      }
      const now = deps.clock();
      await tx
        .update(privacyRequests)
        .set({
          status: input.outcome,
          outcome: input.outcome,
          outcomeReason: input.outcomeReason,
          fulfilledAt: now,
          updatedAt: now,
        })
        .where(and(eq(privacyRequests.tenantId, input.tenantId), eq(privacyRequests.id, row.id)));
      await tx
        .update(tasks)
        .set({
          status: 'COMPLETED',
          completedAt: now,
          completedBy: input.actor ?? null,
          completionNote: `Request ${input.outcome}`,
        })
        .where(
          and(
            eq(tasks.tenantId, input.tenantId),
            eq(tasks.subjectType, 'privacy_request'),
            eq(tasks.subjectId, String(row.id)),
            eq(tasks.status, 'OPEN'),
          ),
        );
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        effectType: `PRIVACY_REQUEST_${input.outcome}`,
        subjectType: 'privacy_request',
        subjectId: row.id,
        detail: {
          requestId: row.id,
          fromStatus: row.status,
          toStatus: input.outcome,
          outcomeReason: input.outcomeReason,
          evidenceIds,
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
        dedupeKey: `privacy-request/${row.id}/outcome`,
      });
      return { requestId: row.id, status: input.outcome };
    });
}
