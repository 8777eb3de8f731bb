import { and, eq } from 'drizzle-orm';
import { documents, evidence } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { referenceNotFound } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { holdOpenCase, recordEffect, rowOfRequestKey } from './records';

export interface AddEvidenceInput extends OperationContext {
  caseId: number;
  evidenceType: string;
  description: string;
  documentId?: number | null;
}

/**
 * Records evidence metadata on an open case and appends `EVIDENCE_ADDED` to its effects.
 * Idempotent by `requestKey` (a replay returns the first evidence id before any check). Errors, with
 * nothing stored: 404 `error.msg.resource.not.found` naming `caseId` or `documentId` when that case or
 * document is absent or another tenant's (docs/design.md §4 "Scopes and permissions"); 409
 * `error.msg.case.invalid.state.transition` naming `caseId` when the case is closed (`holdOpenCase`).
 */
export function addEvidence(deps: Deps) {
  return async (input: AddEvidenceInput): Promise<{ evidenceId: number }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [replayed] = await tx
          .select({ id: evidence.id })
          .from(evidence)
          .where(and(eq(evidence.tenantId, input.tenantId), eq(evidence.requestKey, input.requestKey)));
        if (replayed) return { evidenceId: replayed.id };
      }
      await holdOpenCase(tx, input.tenantId, input.caseId, null);
      if (input.documentId !== undefined && input.documentId !== null) {
        const [document] = await tx
          .select({ id: documents.id })
          .from(documents)
          .where(and(eq(documents.tenantId, input.tenantId), eq(documents.id, input.documentId)));
        if (!document) throw referenceNotFound('documentId', input.documentId, 'Document');
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
