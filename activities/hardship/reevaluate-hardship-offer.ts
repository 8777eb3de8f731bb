/**
 * Re-evaluates a hardship offer's eligibility when its loan changes (docs/processes.md P5):
 * `reevaluateHardshipOffer`, a step of `hardshipOfferWorkflow`. One tenant transaction on the locked offer row;
 * idempotent.
 */
import { and, eq } from 'drizzle-orm';
import { activeGuardrails, tenantToday } from '../../db/queries/hardship/hardship-policies';
import { hardshipPrograms } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { requestedReliefOf, routeHardshipOffer } from '../../domain/hardship/offer';
import {
  type HardshipOfferProgress,
  isOpenHardshipOfferStatus,
  type LoanChangedHint,
} from '../../domain/hardship/offer-process';
import type { Deps } from '../deps';
import { openTask } from '../servicing/records';
import { gatherHardshipLoanFacts } from './hardship-loan-facts';
import {
  type HardshipOfferRef,
  lockedOffer,
  moveOffer,
  processActor,
  progressOf,
  termsOf,
} from './hardship-offer-steps';
import { completeOfferTask, taskOfStatus } from './hardship-offer-tasks';

export interface ReevaluateHardshipOfferInput extends HardshipOfferRef {
  /** What changed on the loan (the `loanChanged` signal's hint). */
  change: LoanChangedHint;
}

/**
 * Re-runs eligibility of an offer not yet accepted (PENDING_APPROVAL, OFFERED, APPROVED) after a material change
 * of its loan (workflow step on `loanChanged`; docs/processes.md P5), when the tenant's active guardrails say
 * `reevaluateOnMaterialLoanDrift`: the routing of domain/hardship/offer.ts against the active guardrails, the
 * offer's program version (and the program's current state) and fresh loan facts. When the loan no longer
 * qualifies the offer becomes INELIGIBLE (or SPECIALIST, with its task) with the new reasons, its validity timer
 * stopped and its approval task completed (note = the new status): effect `HARDSHIP_OFFER_REEVALUATED`, event
 * `hardship.offer.reevaluated`. Otherwise (still eligible: the relief's size, hence its route, is unchanged)
 * nothing is written. Returns the progress. Errors: 404 when absent.
 */
export function reevaluateHardshipOffer(deps: Deps) {
  return async (input: ReevaluateHardshipOfferInput): Promise<HardshipOfferProgress> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const offer = await lockedOffer(tx, input);
      if (!isOpenHardshipOfferStatus(offer.status)) return progressOf(offer);
      const guardrails = await activeGuardrails(tx, offer.tenantId);
      if (!guardrails?.guardrails.reevaluateOnMaterialLoanDrift) return progressOf(offer);
      const [program] = await tx
        .select()
        .from(hardshipPrograms)
        .where(
          and(
            eq(hardshipPrograms.tenantId, offer.tenantId),
            eq(hardshipPrograms.programCode, offer.programCode),
          ),
        );
      if (!program) throw new Error(`hardship program ${offer.programCode} vanished`);
      const terms = await termsOf(tx, offer);
      const now = deps.clock();
      const today = await tenantToday(tx, offer.tenantId, now);
      const facts = await gatherHardshipLoanFacts(tx, offer.tenantId, offer.loanId, offer.caseId, now, today);
      const route = routeHardshipOffer(
        guardrails.guardrails,
        {
          programCode: program.programCode,
          state: program.state === 'RETIRED' ? 'RETIRED' : 'ACTIVE',
          hardshipReasonCode: program.hardshipReasonCode,
          version: offer.programVersion,
          terms,
        },
        facts,
        {
          hardshipReasonCode: offer.hardshipReasonCode,
          requestedRelief: requestedReliefOf(offer.requestedRelief),
        },
      );
      if (route.status !== 'INELIGIBLE' && route.status !== 'SPECIALIST') return progressOf(offer);
      const reasonCodes = route.reasons.map((r) => r.code);
      const updated = await moveOffer(tx, offer, {
        changes: { status: route.status, reasons: route.reasons, offerExpiresAt: null },
        effectType: 'HARDSHIP_OFFER_REEVALUATED',
        detail: {
          fromStatus: offer.status,
          status: route.status,
          reasons: reasonCodes,
          change: input.change,
        },
        eventType: 'hardship.offer.reevaluated',
        data: {
          fromStatus: offer.status,
          status: route.status,
          reasonCodes,
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
        'HARDSHIP_OFFER_APPROVAL',
        processActor,
        route.status,
        now,
        null,
      );
      const task = taskOfStatus(route.status);
      if (task) {
        await openTask(tx, {
          tenantId: offer.tenantId,
          caseId: offer.caseId,
          taskType: task.taskType,
          title: `${task.title} ${offer.id} (${offer.programCode})`,
          subjectType: 'HARDSHIP_OFFER',
          subjectId: offer.id,
          dueAt: null,
          dedupeKey: `hardship-offer/${offer.id}/${task.taskType}`,
        });
      }
      return progressOf(updated);
    });
}
