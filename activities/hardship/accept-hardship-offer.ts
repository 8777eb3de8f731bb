/**
 * The borrower accepts a hardship offer (docs/processes.md P5): `acceptHardshipOffer`, an operation of the route. One
 * tenant transaction on the offer row locked `FOR UPDATE`; it refuses an offer whose `offerExpiresAt` has passed even
 * if its timer has not yet fired; idempotent.
 */
import { and, eq } from 'drizzle-orm';
import {
  type HardshipOfferView,
  hardshipOfferViewOf,
  offerApprovals,
} from '../../db/queries/hardship/hardship-offers';
import { hardshipGuardrailVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { acceptableHardshipOfferStatuses, noEvidenceRequired } from '../../domain/hardship/offer-process';
import type { Deps, OperationContext } from '../deps';
import { openTask } from '../servicing/records';
import {
  applyOffer,
  hourMs,
  invalidTransition,
  lockedOffer,
  moveOffer,
  processActor,
  termsOf,
} from './hardship-offer-steps';

export interface AcceptHardshipOfferInput extends OperationContext {
  offerId: number;
}

/**
 * The borrower accepts an OFFERED or APPROVED offer (docs/processes.md P5 `POST …/{offerId}/accept`), recorded with
 * the `Service-Actor` (optional: the servicer may act for the borrower) and the time:
 * - the program asks for evidence (`requiredEvidenceCode` ≠ `NONE`) → `AWAITING_DOCUMENTS` with
 *   `documentsDueAt` = now + the guardrails' `documentDeadlineHoursMaximum` (of the guardrails version the offer
 *   was made under), a `HARDSHIP_DOCUMENTS_DUE` task on the case due then, effect `HARDSHIP_OFFER_ACCEPTED`,
 *   event `hardship.offer.accepted`; the workflow confirms the evidence and applies the relief;
 * - no evidence asked (`NONE`) → accepted and applied in this transaction (`APPLIED`: a new schedule version;
 *   events `hardship.offer.accepted` and `hardship.offer.applied`).
 * Returns the offer with its decision trail. Idempotent: the same actor (or none, again) accepting an offer already
 * accepted gets the offer as it stands.
 *
 * Errors, nothing changed: 404 unknown offer (or another tenant's); 409
 * `error.msg.hardship.offer.invalid.state.transition` naming `offerId` when the offer is not OFFERED / APPROVED or
 * its `offerExpiresAt` has passed; 409 `error.msg.hardship.relief.not.applicable` when the loan's schedule can no
 * longer take the relief (applied at once only).
 */
export function acceptHardshipOffer(deps: Deps) {
  return async (input: AcceptHardshipOfferInput): Promise<HardshipOfferView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const offer = await lockedOffer(tx, input);
      const now = deps.clock();
      if (offer.acceptedAt !== null && offer.acceptedBy === (input.actor ?? null)) {
        // The same acceptance again (a retry whose answer was lost): the offer as it stands.
        return hardshipOfferViewOf(offer, await offerApprovals(tx, offer.tenantId, offer.id));
      }
      if (!(acceptableHardshipOfferStatuses as readonly string[]).includes(offer.status)) {
        throw invalidTransition(offer, 'only an OFFERED or APPROVED offer can be accepted.');
      }
      if (offer.offerExpiresAt && offer.offerExpiresAt.getTime() <= now.getTime()) {
        throw invalidTransition(
          offer,
          `it expired at ${offer.offerExpiresAt.toISOString()} and can no longer be accepted.`,
        );
      }
      const terms = await termsOf(tx, offer);
      const actor = input.actor ?? processActor;
      const needsEvidence = terms.requiredEvidenceCode !== noEvidenceRequired;
      let documentsDueAt: Date | null = null;
      if (needsEvidence) {
        const [guardrails] = await tx
          .select({ settings: hardshipGuardrailVersions.guardrails })
          .from(hardshipGuardrailVersions)
          .where(
            and(
              eq(hardshipGuardrailVersions.tenantId, offer.tenantId),
              eq(hardshipGuardrailVersions.version, offer.guardrailsVersion),
            ),
          );
        if (!guardrails) throw new Error(`guardrails version ${offer.guardrailsVersion} vanished`);
        documentsDueAt = new Date(now.getTime() + guardrails.settings.documentDeadlineHoursMaximum * hourMs);
      }
      let updated = await moveOffer(tx, offer, {
        changes: {
          status: needsEvidence ? 'AWAITING_DOCUMENTS' : offer.status, // applied below, in this transaction
          acceptedAt: now,
          acceptedBy: input.actor ?? null,
          offerExpiresAt: null,
          documentsDueAt,
        },
        effectType: 'HARDSHIP_OFFER_ACCEPTED',
        detail: { requiredEvidenceCode: needsEvidence ? terms.requiredEvidenceCode : null },
        eventType: 'hardship.offer.accepted',
        data: {
          status: needsEvidence ? 'AWAITING_DOCUMENTS' : 'APPLIED',
          acceptedBy: input.actor ?? null,
          acceptedAt: now.toISOString(),
          requiredEvidenceCode: needsEvidence ? terms.requiredEvidenceCode : null,
          documentsDueAt: documentsDueAt?.toISOString() ?? null,
        },
        actor,
        correlationId: input.correlationId,
        now,
        dedupe: 'accepted',
      });
      if (needsEvidence && documentsDueAt) {
        await openTask(tx, {
          tenantId: offer.tenantId,
          caseId: offer.caseId,
          taskType: 'HARDSHIP_DOCUMENTS_DUE',
          title: `Collect ${terms.requiredEvidenceCode} evidence for hardship offer ${offer.id}`,
          subjectType: 'HARDSHIP_OFFER',
          subjectId: offer.id,
          dueAt: documentsDueAt,
          dedupeKey: `hardship-offer/${offer.id}/HARDSHIP_DOCUMENTS_DUE`,
        });
      } else {
        updated = await applyOffer(tx, updated, {
          actor,
          correlationId: input.correlationId,
          now,
          evidenceId: null,
        });
      }
      return hardshipOfferViewOf(updated, await offerApprovals(tx, offer.tenantId, offer.id));
    });
}
