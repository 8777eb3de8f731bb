import { and, eq } from 'drizzle-orm';
import { cases, documents, evidence } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { recordEffect, rowOfRequestKey } from './records';

export interface AddEvidenceInput extends OperationContext {
  caseId: number;
  evidenceType: string;
  description: string;
  documentId?: number | null;
}

/**
 * Records evidence metadata on a case and appends `EVIDENCE_ADDED` to its effects (issue 2 §6).
 * Idempotent by `requestKey`. Errors: 400 (parameterName `caseId`) when the case is not the tenant's;
 * 400 (parameterName `documentId`) when `documentId` is not a document of the tenant.
 */
export function addEvidence(deps: Deps) {
  return async (input: AddEvidenceInput): Promise<{ evidenceId: number }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [found] = await tx
        .select({ id: cases.id })
        .from(cases)
        .where(and(eq(cases.tenantId, input.tenantId), eq(cases.id, input.caseId)));
      if (!found) throw validationError('caseId', input.caseId, `Case ${input.caseId} was not found.`);
      if (input.documentId !== undefined && input.documentId !== null) {
        const [document] = await tx
          .select({ id: documents.id })
          .from(documents)
          .where(and(eq(documents.tenantId, input.tenantId), eq(documents.id, input.documentId)));
        if (!document)
          throw validationError(
            'documentId',
            input.documentId,
            `Document ${input.documentId} was not found.`,
          );
      }
      const now = deps.clock();
      const [created] = await tx
        .insert(evidence)
        .values({
          tenantId: input.tenantId,
          caseId: input.caseId,
          evidenceType: input.evidenceType,
          description: input.description,
          documentId: input.documentId ?? null,
          actorUsername: input.actor ?? null,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [evidence.tenantId, evidence.requestKey] })
        .returning({ id: evidence.id });
      if (!created) {
        const existing = await rowOfRequestKey(tx, evidence, input.tenantId, input.requestKey);
        return { evidenceId: existing.id };
      }
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        effectType: 'EVIDENCE_ADDED',
        subjectType: 'evidence',
        subjectId: created.id,
        detail: { evidenceType: input.evidenceType, documentId: input.documentId ?? null },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
        dedupeKey: `evidence/${created.id}/added`,
      });
      return { evidenceId: created.id };
    });
}
