/**
 * Records one output of an AI session (docs/servicing.md "AI sessions and their outputs"; docs/processes.md P4 "AI session
 * outputs"): the output is stored with the evidence it cites, bumps the session's version, and, when a person must
 * review it (`aiOutputReviewRequired`), opens an `AI_OUTPUT_REVIEW` task on the case. One transaction; idempotent
 * by `requestKey`.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { aiOutputCitations, aiSessionOutputs, aiSessions, evidence } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, type FieldError, fieldError } from '../../domain/errors';
import {
  type AiConfidence,
  type AiOutputType,
  aiOutputIdPrefix,
  aiOutputReviewRequired,
  aiOutputReviewTaskType,
} from '../../domain/servicing/ai-sessions';
import type { Deps, OperationContext } from '../deps';
import { mintOpaqueId } from './ai-opaque-ids';
import { assertCaseTakesRecords, openTask, recordEffect, shareCase } from './records';

/** One citation of an output: a fact and the evidence (an integer evidence id of the tenant) supporting it. */
export interface AiCitation {
  fact: string;
  evidenceId: number;
}

export interface RecordAiOutputInput extends OperationContext {
  aiSessionId: string;
  type: AiOutputType;
  content: string;
  citations: AiCitation[];
  confidence: AiConfidence;
  /** The session version named by `If-Match`, or null when the caller sent none (no check). */
  expectedVersion: number | null;
}

export interface RecordedAiOutput {
  outputId: string;
  aiSessionId: string;
  status: 'produced';
  reviewRequired: boolean;
  /** The review task opened on the session's case, or null when no review is required. */
  reviewTaskId: number | null;
  /** The session's version after this output. */
  sessionVersion: number;
}

/**
 * Records one output of an AI session (docs/processes.md P4). Under the session's row lock (`FOR UPDATE`): a
 * replay of `requestKey` returns the first output before any check; then the version named by `If-Match`
 * (`expectedVersion`) must be the session's (else 409 `error.msg.ai.session.version.conflict`); the session's
 * case must still be open (`FOR SHARE`; closed → 409 `error.msg.case.invalid.state.transition`); and every
 * `citations[i].evidenceId` must name evidence of the tenant (else 400 `validation.msg.validation.errors.exist`
 * with one field error `citations[<i>].evidenceId` per unknown id, code `validation.msg.citation.evidence.not.found`;
 * the route answers these as Shape B 422). Then the output (sequence = the session's version) and its citations
 * are stored, the session's version goes up by one, and when review is required (`aiOutputReviewRequired`) an
 * `AI_OUTPUT_REVIEW` task is opened on the case; the case gets `AI_OUTPUT_PRODUCED` (and `TASK_CREATED`) effects.
 * An absent session, or another tenant's → 404 `error.msg.resource.not.found` (the id is not echoed).
 */
export function recordAiOutput(deps: Deps) {
  return async (input: RecordAiOutputInput): Promise<RecordedAiOutput> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [session] = await tx
        .select()
        .from(aiSessions)
        .where(and(eq(aiSessions.tenantId, input.tenantId), eq(aiSessions.id, input.aiSessionId)))
        .for('update');
      if (!session) throw new DomainError('error.msg.resource.not.found', 'The AI session was not found.');
      if (input.requestKey) {
        const [replayed] = await tx
          .select()
          .from(aiSessionOutputs)
          .where(
            and(
              eq(aiSessionOutputs.tenantId, input.tenantId),
              eq(aiSessionOutputs.requestKey, input.requestKey),
            ),
          );
        if (replayed) {
          return {
            outputId: replayed.id,
            aiSessionId: replayed.sessionId,
            status: 'produced',
            reviewRequired: replayed.reviewRequired,
            reviewTaskId: replayed.reviewTaskId,
            sessionVersion: replayed.sequence + 1,
          };
        }
      }
      if (input.expectedVersion !== null && input.expectedVersion !== session.version) {
        throw new DomainError(
          'error.msg.ai.session.version.conflict',
          `If-Match names version ${input.expectedVersion} of the AI session, which is now at version ${session.version}; read it again.`,
        );
      }
      const found = await shareCase(tx, input.tenantId, session.caseId);
      if (!found) throw new Error(`case ${session.caseId} of an AI session vanished`);
      assertCaseTakesRecords(found, session.caseId, session.customerRef);
      await assertCitedEvidence(tx, input.tenantId, input.citations);

      const now = deps.clock();
      const outputId = mintOpaqueId(aiOutputIdPrefix);
      const reviewRequired = aiOutputReviewRequired(input.type, input.confidence);
      const review = reviewRequired
        ? await openTask(tx, {
            tenantId: input.tenantId,
            caseId: session.caseId,
            taskType: aiOutputReviewTaskType,
            title: `Review AI output (${input.type}, confidence ${input.confidence})`,
            subjectType: 'ai_output',
            subjectId: outputId,
            dueAt: null,
            dedupeKey: `ai-output/${outputId}/review`,
          })
        : null;
      await tx.insert(aiSessionOutputs).values({
        id: outputId,
        tenantId: input.tenantId,
        sessionId: session.id,
        sequence: session.version,
        outputType: input.type,
        content: input.content,
        confidence: input.confidence,
        status: 'produced',
        reviewRequired,
        reviewTaskId: review?.id ?? null,
        actorUsername: input.actor ?? null,
        createdAt: now,
        requestKey: input.requestKey ?? null,
      });
      if (input.citations.length > 0) {
        await tx.insert(aiOutputCitations).values(
          input.citations.map((citation, position) => ({
            tenantId: input.tenantId,
            outputId,
            position,
            fact: citation.fact,
            evidenceId: citation.evidenceId,
          })),
        );
      }
      const sessionVersion = session.version + 1;
      await tx
        .update(aiSessions)
        .set({ version: sessionVersion, updatedAt: now })
        .where(and(eq(aiSessions.tenantId, input.tenantId), eq(aiSessions.id, session.id)));
      const common = {
        tenantId: input.tenantId,
        caseId: session.caseId,
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      };
      await recordEffect(tx, {
        ...common,
        effectType: 'AI_OUTPUT_PRODUCED',
        subjectType: 'ai_output',
        subjectId: outputId,
        detail: {
          aiSessionId: session.id,
          outputId,
          type: input.type,
          confidence: input.confidence,
          reviewRequired,
          reviewTaskId: review?.id ?? null,
        },
        dedupeKey: `ai-output/${outputId}/produced`,
      });
      if (review) {
        await recordEffect(tx, {
          ...common,
          effectType: 'TASK_CREATED',
          subjectType: 'task',
          subjectId: review.id,
          detail: { taskType: aiOutputReviewTaskType, aiSessionId: session.id, outputId },
          dedupeKey: `ai-output/${outputId}/review-task`,
        });
      }
      return {
        outputId,
        aiSessionId: session.id,
        status: 'produced',
        reviewRequired,
        reviewTaskId: review?.id ?? null,
        sessionVersion,
      };
    });
}

/**
 * Throws a 400 naming each `citations[<i>].evidenceId` that is no evidence of `tenantId` (absent, or another
 * tenant's: both look the same, docs/design.md §4 "Scopes and permissions"); the rows found are held `FOR SHARE` until commit.
 */
async function assertCitedEvidence(tx: Tx, tenantId: string, citations: AiCitation[]): Promise<void> {
  if (citations.length === 0) return;
  const ids = [...new Set(citations.map((c) => c.evidenceId))];
  const rows = await tx
    .select({ id: evidence.id })
    .from(evidence)
    .where(and(eq(evidence.tenantId, tenantId), inArray(evidence.id, ids)))
    .for('share');
  const known = new Set(rows.map((r) => r.id));
  const errors: FieldError[] = [];
  for (const [index, citation] of citations.entries()) {
    if (known.has(citation.evidenceId)) continue;
    const name = `citations[${index}].evidenceId`;
    errors.push(
      // The id is not echoed: a long digit run could be an account number sent by mistake.
      fieldError(
        name,
        null,
        `${name} names no evidence of this tenant.`,
        'validation.msg.citation.evidence.not.found',
      ),
    );
  }
  if (errors.length > 0) {
    throw new DomainError(
      'validation.msg.validation.errors.exist',
      errors.map((e) => e.developerMessage).join(' '),
      { errors },
    );
  }
}
