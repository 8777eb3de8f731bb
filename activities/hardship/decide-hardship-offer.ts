/**
 * The checker's decision on a hardship offer (docs/processes.md P5 third bullet; docs/servicing.md "Hardship offers"): `decideHardshipOffer` approves or rejects a PENDING_APPROVAL offer as a second actor and writes the
 * append-only approval record, in one tenant transaction (docs/conventions.md §5), idempotent.
 */
import { and, eq } from 'drizzle-orm';
import {
  type HardshipOfferView,
  hardshipOfferRow,
  hardshipOfferViewOf,
  offerApprovals,
  offerTermsOf,
} from '../../db/queries/hardship/hardship-offers';
import { activeGuardrails } from '../../db/queries/hardship/hardship-policies';
import { tenantMakerCheckerPolicy } from '../../db/queries/platform/tenants';
import { hardshipOfferApprovals, hardshipOffers, hardshipProgramVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound } from '../../domain/errors';
import { type HardshipOfferDecision, hardshipOfferTermsHash } from '../../domain/hardship/offer';
import { makerCheckerRefusal } from '../../domain/maker-checker';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { recordEffect } from '../servicing/records';
import { hourMs } from './hardship-offer-steps';
import { completeOfferTask } from './hardship-offer-tasks';
import { requireActor } from './maker-checker-actor';

export interface DecideHardshipOfferInput extends OperationContext {
  offerId: number;
  decision: HardshipOfferDecision;
  /** The checker's OAuth client (whose token made the request) and that token's scopes. */
  clientId: string;
  scopes: readonly string[];
}

/**
 * The checker's decision on a PENDING_APPROVAL offer (docs/servicing.md "Hardship offers"; docs/processes.md P5): the maker-checker
 * rule of the tenant's policy (domain/maker-checker.ts `makerCheckerRefusal`: by default another client and another
 * actor than the maker's, the checker's token holding `actions:approve`), then writes the approval record (checker's
 * actor and client id, the maker's actor and client id it was checked against, the policy, decision, guardrails
 * version active now as the policy version, SHA-256 of the canonical offer terms, decided at) and moves the offer to
 * APPROVED (validity timer started: `offerExpiresAt` = now + the version's `offerValidityHours`) or REJECTED; case
 * effect `HARDSHIP_OFFER_APPROVED` / `…_REJECTED`, event `hardship.offer.approved` / `hardship.offer.rejected`; the
 * offer's approval task is completed with the decision as its note.
 * The caller has checked the program's permission. Idempotent: the same actor through the same client repeating the
 * same decision gets the offer as it is. Returns the offer view with its decision trail.
 *
 * Errors, nothing changed: 400 naming `header.Service-Actor` when no actor; 404 unknown offer (or another
 * tenant's); 403 `error.msg.not.authorized` (`makerCheckerRefusal`) naming `scope` without `actions:approve`,
 * `header.Service-Actor` when the checker is the maker's actor, `header.Authorization` when the tenant's policy is
 * `distinct-client` and the checker's client is the maker's (or the maker's is unknown); 409
 * `error.msg.hardship.offer.invalid.state.transition` naming `offerId` when the offer is not PENDING_APPROVAL.
 */
export function decideHardshipOffer(deps: Deps) {
  return async (input: DecideHardshipOfferInput): Promise<HardshipOfferView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const checker = requireActor(input.actor);
      const offer = await hardshipOfferRow(tx, input.tenantId, input.offerId, true);
      if (!offer) throw notFound('Hardship offer', input.offerId);
      const trail = await offerApprovals(tx, input.tenantId, offer.id);
      const earlier = trail.find(
        (a) => a.actor === checker && a.clientId === input.clientId && a.decision === input.decision,
      );
      if (earlier) return hardshipOfferViewOf(offer, trail);
      const policy = await tenantMakerCheckerPolicy(tx, input.tenantId);
      const maker = { actor: offer.makerActor, clientId: offer.makerClientId };
      const refusal = makerCheckerRefusal(
        policy,
        maker,
        { actor: checker, clientId: input.clientId, scopes: input.scopes },
        `hardship offer ${offer.id}`,
      );
      if (refusal) throw refusal;
      if (offer.status !== 'PENDING_APPROVAL') {
        const code = 'error.msg.hardship.offer.invalid.state.transition';
        const message = `offerId: hardship offer ${offer.id} is ${offer.status}; only a PENDING_APPROVAL offer can be approved or rejected.`;
        throw new DomainError(code, message, { errors: [fieldError('offerId', offer.id, message, code)] });
      }
      const guardrails = await activeGuardrails(tx, input.tenantId);
      if (!guardrails) throw new Error('hardship offer without guardrails');
      const [version] = await tx
        .select({ terms: hardshipProgramVersions.terms })
        .from(hardshipProgramVersions)
        .where(
          and(
            eq(hardshipProgramVersions.tenantId, input.tenantId),
            eq(hardshipProgramVersions.programCode, offer.programCode),
            eq(hardshipProgramVersions.version, offer.programVersion),
          ),
        );
      if (!version)
        throw new Error(`hardship program version ${offer.programCode}/${offer.programVersion} vanished`);
      const now = deps.clock();
      const [approval] = await tx
        .insert(hardshipOfferApprovals)
        .values({
          tenantId: input.tenantId,
          offerId: offer.id,
          actor: checker,
          clientId: input.clientId,
          makerActor: maker.actor,
          makerClientId: maker.clientId,
          makerCheckerPolicy: policy,
          decision: input.decision,
          guardrailsVersion: guardrails.version,
          requestHash: hardshipOfferTermsHash(offerTermsOf(offer)),
          decidedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!approval) throw new Error('hardship offer approval insert returned no row');
      const [updated] = await tx
        .update(hardshipOffers)
        .set({
          status: input.decision,
          offerExpiresAt:
            input.decision === 'APPROVED'
              ? new Date(now.getTime() + version.terms.offerValidityHours * hourMs)
              : null,
          updatedAt: now,
        })
        .where(and(eq(hardshipOffers.tenantId, input.tenantId), eq(hardshipOffers.id, offer.id)))
        .returning();
      if (!updated) throw new Error('hardship offer vanished under its lock');
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: offer.caseId,
        effectType: `HARDSHIP_OFFER_${input.decision}`,
        subjectType: 'HARDSHIP_OFFER',
        subjectId: offer.id,
        detail: { offerId: offer.id, decision: input.decision, requestHash: approval.requestHash },
        actor: checker,
        correlationId: input.correlationId ?? null,
        occurredAt: now,
        dedupeKey: `hardship-offer/${offer.id}/decided`,
      });
      await completeOfferTask(
        tx,
        input.tenantId,
        offer.id,
        'HARDSHIP_OFFER_APPROVAL',
        checker,
        input.decision,
        now,
        input.correlationId,
      );
      const decisionData = {
        offerId: offer.id,
        caseId: offer.caseId,
        loanId: offer.loanId,
        programCode: offer.programCode,
        programVersion: offer.programVersion,
        decidedBy: checker,
        policyVersion: approval.guardrailsVersion,
        requestHash: approval.requestHash,
        decidedAt: approval.decidedAt.toISOString(),
        offerExpiresAt: updated.offerExpiresAt?.toISOString() ?? null,
      };
      if (input.decision === 'APPROVED') {
        await writeOutboxEvent(tx, {
          tenantId: input.tenantId,
          eventType: 'hardship.offer.approved',
          subjectId: offer.id,
          data: { ...decisionData, status: 'APPROVED' },
          occurredAt: now,
          dedupeKey: `hardship-offer/${offer.id}/decided`,
        });
      } else {
        await writeOutboxEvent(tx, {
          tenantId: input.tenantId,
          eventType: 'hardship.offer.rejected',
          subjectId: offer.id,
          data: { ...decisionData, status: 'REJECTED' },
          occurredAt: now,
          dedupeKey: `hardship-offer/${offer.id}/decided`,
        });
      }
      return hardshipOfferViewOf(updated, [...trail, approval]);
    });
}
