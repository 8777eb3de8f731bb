/**
 * Opens a privacy request (docs/design.md §5 Privacy-request clocks): `openPrivacyRequest`, which the API calls; it
 * stores the request with its statutory deadlines and the start intent of `privacyRequestWorkflow`. One transaction,
 * idempotent by request key.
 */
import { and, eq } from 'drizzle-orm';
import { interactions, privacyRequests } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { computePrivacyDeadlines, type PrivacyRegime } from '../../domain/deadlines';
import { DomainError, fieldError } from '../../domain/errors';
import { privacyRequestWorkflowId } from '../../domain/ids';
import {
  type PrivacyRequestType,
  type PrivacyRequestWorkflowInput,
  privacyRequestStartSpec,
} from '../../domain/servicing/privacy-request';
import { tenantComplianceTimeZone } from '../common/tenant-time-zone';
import type { Deps, OperationContext } from '../deps';
import { recordStartIntent } from '../platform/start-intents';
import { assertCaseTakesRecords, openTask, recordEffects, rowOfRequestKey, shareCase } from './records';

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
      // The earlier request of the key, the case, the interaction and the compliance zone are independent reads:
      // issued together, they travel in one round trip (postgres.js pipelines a transaction's queries).
      const [earlier, foundCase, [foundInteraction], timeZone] = await Promise.all([
        input.requestKey
          ? tx
              .select()
              .from(privacyRequests)
              .where(
                and(
                  eq(privacyRequests.tenantId, input.tenantId),
                  eq(privacyRequests.requestKey, input.requestKey),
                ),
              )
          : Promise.resolve([]),
        shareCase(tx, input.tenantId, input.caseId),
        tx
          .select({ customerRef: interactions.customerRef })
          .from(interactions)
          .where(
            and(eq(interactions.tenantId, input.tenantId), eq(interactions.id, input.sourceInteractionId)),
          ),
        tenantComplianceTimeZone(tx, input.tenantId),
      ]);
      const [existing] = earlier;
      if (existing) return resultOf(existing);
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
      const common = {
        tenantId: input.tenantId,
        caseId: input.caseId,
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      };
      const opened = resultOf({ ...row, reviewTaskId: review.id, workflowId });
      // The row's review task and workflow id, both effects and the start intent: one round trip.
      await Promise.all([
        tx
          .update(privacyRequests)
          .set({ reviewTaskId: review.id, workflowId })
          .where(and(eq(privacyRequests.tenantId, input.tenantId), eq(privacyRequests.id, row.id))),
        recordEffects(tx, [
          {
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
          },
          {
            ...common,
            effectType: 'TASK_CREATED',
            subjectType: 'task',
            subjectId: review.id,
            detail: { taskType: 'PRIVACY_REVIEW', requestId: row.id },
            dedupeKey: `task/${review.id}/created`,
          },
        ]),
        recordStartIntent(tx, privacyRequestStartSpec(opened.workflow.input), now),
      ]);
      return opened;
    });
}
