/**
 * Confirms a hardship offer's required evidence and applies its relief, or lapses it at the document deadline
 * (docs/processes.md P5): `confirmHardshipEvidence`, a step of `hardshipOfferWorkflow`. One tenant transaction on the
 * locked offer row; idempotent.
 */
import { and, asc, eq, gte } from 'drizzle-orm';
import { evidence } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError } from '../../domain/errors';
import type { HardshipOfferReason } from '../../domain/hardship/offer';
import type { HardshipOfferProgress } from '../../domain/hardship/offer-process';
import type { Deps } from '../deps';
import { recordEffect } from '../servicing/records';
import {
  applyOffer,
  type HardshipOfferRef,
  lockedOffer,
  moveOffer,
  processActor,
  progressOf,
  termsOf,
} from './hardship-offer-steps';
import { completeOfferTask } from './hardship-offer-tasks';

export interface ConfirmHardshipEvidenceInput extends HardshipOfferRef {
  /** True when the document deadline has passed: without evidence the offer lapses. */
  atDeadline: boolean;
}

/**
 * Confirms the evidence of an AWAITING_DOCUMENTS offer (workflow step, on an `evidenceAdded` hint and at the
 * document deadline): evidence on the offer's case whose `evidenceType` is the program's `requiredEvidenceCode`,
 * recorded at or after the offer's creation (the first such), is the workflow-confirmed evidence (guardrail
 * `requireWorkflowConfirmedEvidence`): effect `HARDSHIP_OFFER_EVIDENCE_CONFIRMED`, then the relief is applied
 * (`APPLIED`, as at acceptance). Without it: at the deadline the offer `LAPSED` (effect, event
 * `hardship.offer.lapsed`, the documents task completed with note LAPSED); before it nothing changes.
 * When the schedule can no longer take the relief (the loan changed since the acceptance) the offer becomes
 * `INELIGIBLE` with reason `RELIEF_NOT_APPLICABLE` (event `hardship.offer.reevaluated`) instead of failing the
 * process. Other statuses are left as they are. Returns the progress. Errors: 404 when absent.
 */
export function confirmHardshipEvidence(deps: Deps) {
  return async (input: ConfirmHardshipEvidenceInput): Promise<HardshipOfferProgress> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const offer = await lockedOffer(tx, input);
      if (offer.status !== 'AWAITING_DOCUMENTS') return progressOf(offer);
      const terms = await termsOf(tx, offer);
      const now = deps.clock();
      const [found] = await tx
        .select({ id: evidence.id })
        .from(evidence)
        .where(
          and(
            eq(evidence.tenantId, offer.tenantId),
            eq(evidence.caseId, offer.caseId),
            eq(evidence.evidenceType, terms.requiredEvidenceCode),
            gte(evidence.createdAt, offer.createdAt),
          ),
        )
        .orderBy(asc(evidence.id))
        .limit(1);
      if (!found) {
        if (!input.atDeadline) return progressOf(offer);
        const lapsed = await moveOffer(tx, offer, {
          changes: { status: 'LAPSED' },
          effectType: 'HARDSHIP_OFFER_LAPSED',
          detail: { requiredEvidenceCode: terms.requiredEvidenceCode },
          eventType: 'hardship.offer.lapsed',
          data: {
            status: 'LAPSED',
            requiredEvidenceCode: terms.requiredEvidenceCode,
            documentsDueAt: offer.documentsDueAt?.toISOString() ?? null,
            lapsedAt: now.toISOString(),
          },
          actor: processActor,
          correlationId: null,
          now,
          dedupe: 'lapsed',
        });
        await completeOfferTask(
          tx,
          offer.tenantId,
          offer.id,
          'HARDSHIP_DOCUMENTS_DUE',
          processActor,
          'LAPSED',
          now,
          null,
        );
        return progressOf(lapsed);
      }
      await recordEffect(tx, {
        tenantId: offer.tenantId,
        caseId: offer.caseId,
        effectType: 'HARDSHIP_OFFER_EVIDENCE_CONFIRMED',
        subjectType: 'HARDSHIP_OFFER',
        subjectId: offer.id,
        detail: { offerId: offer.id, evidenceId: found.id, evidenceType: terms.requiredEvidenceCode },
        actor: processActor,
        correlationId: null,
        occurredAt: now,
        dedupeKey: `hardship-offer/${offer.id}/evidence-confirmed`,
      });
      try {
        // A savepoint: a relief the schedule cannot take any more rolls back only its own writes.
        const applied = await tx.transaction((sp) =>
          applyOffer(sp, offer, {
            actor: processActor,
            correlationId: null,
            now,
            evidenceId: found.id,
          }),
        );
        return progressOf(applied);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'error.msg.hardship.relief.not.applicable') {
          throw error;
        }
        const reasons: HardshipOfferReason[] = [{ code: 'RELIEF_NOT_APPLICABLE', message: error.message }];
        const withdrawn = await moveOffer(tx, offer, {
          changes: { status: 'INELIGIBLE', reasons, confirmedEvidenceId: found.id },
          effectType: 'HARDSHIP_OFFER_REEVALUATED',
          detail: { fromStatus: offer.status, status: 'INELIGIBLE', reasons: ['RELIEF_NOT_APPLICABLE'] },
          eventType: 'hardship.offer.reevaluated',
          data: {
            fromStatus: offer.status,
            status: 'INELIGIBLE',
            reasonCodes: ['RELIEF_NOT_APPLICABLE'],
            reevaluatedAt: now.toISOString(),
          },
          actor: processActor,
          correlationId: null,
          now,
          dedupe: 'reevaluated',
        });
        await completeOfferTask(
          tx,
          offer.tenantId,
          offer.id,
          'HARDSHIP_DOCUMENTS_DUE',
          processActor,
          'INELIGIBLE',
          now,
          null,
        );
        return progressOf(withdrawn);
      }
    });
}
