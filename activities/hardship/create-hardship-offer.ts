/**
 * Creates a hardship offer (docs/processes.md P5 third bullet; docs/servicing.md "Hardship offers"):
 * `createHardshipOffer` routes the request (domain/hardship/offer.ts) and stores the offer with its case effects and
 * tasks in one tenant transaction (docs/conventions.md §5), idempotent. The loan facts the routing reads are
 * gathered in the same transaction (`gatherHardshipLoanFacts`) unless the caller gives them (`loanFacts`).
 */
import { and, asc, eq } from 'drizzle-orm';
import {
  type HardshipOfferView,
  hardshipOfferViewOf,
  offerApprovals,
} from '../../db/queries/hardship/hardship-offers';
import { activeGuardrails, tenantToday } from '../../db/queries/hardship/hardship-policies';
import { hardshipOffers, hardshipPrograms, hardshipProgramVersions, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, referenceNotFound } from '../../domain/errors';
import {
  type HardshipLoanFacts,
  type RequestedRelief,
  requestedReliefJson,
  routeHardshipOffer,
} from '../../domain/hardship/offer';
import { type HardshipOfferWorkflowInput, hardshipOfferStartSpec } from '../../domain/hardship/offer-process';
import { activeVersionOn } from '../../domain/hardship/policy';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { recordStartIntent } from '../platform/start-intents';
import { assertCaseCustomerIsLoanParty } from '../servicing/case-checks';
import { assertCaseTakesRecords, openTask, recordEffect, shareCase } from '../servicing/records';
import { gatherHardshipLoanFacts } from './hardship-loan-facts';
import { hourMs } from './hardship-offer-steps';
import { taskOfStatus } from './hardship-offer-tasks';
import { requireActor } from './maker-checker-actor';

export interface CreateHardshipOfferInput extends OperationContext {
  /** The maker's OAuth client (whose token made the request), recorded with the maker's actor. */
  clientId: string;
  caseId: number;
  loanId: number;
  programCode: string;
  hardshipReasonCode: string;
  requestedRelief: RequestedRelief;
  /** Facts about the loan at the time of the request; gathered from the database when absent. */
  loanFacts?: HardshipLoanFacts | undefined;
}

/**
 * Creates a hardship offer (docs/processes.md P5): routes the request against the tenant's active guardrails and
 * the program version in effect today (tenant compliance time zone), and stores it with the route as its status.
 * OFFERED starts the validity timer (`offerExpiresAt` = now + the version's `offerValidityHours`). Case effects:
 * `HARDSHIP_OFFER_CREATED` (status, reasons); a PENDING_APPROVAL offer opens the task `HARDSHIP_OFFER_APPROVAL`,
 * a SPECIALIST one `HARDSHIP_SPECIALIST_REVIEW`, a REFERRED one `HARDSHIP_OFFER_REFERRAL`, each on the case.
 * Event `hardship.offer.created`. Stores the start intent of `hardship-offer/<tenant>/<offerId>` (every status: the
 * process ends at once for a final one, so each offer has its history in the Temporal UI). Returns the offer view
 * and the process's id and input. Idempotent by `requestKey` (a replay returns the offer
 * stored first).
 *
 * Errors, nothing stored: 400 naming `header.Service-Actor` when no actor; 400 for malformed relief parameters
 * (named `requestedRelief.params.<name>`); 404 naming `caseId` / `loanId` / `programCode` when absent (or another
 * tenant's); 409 `error.msg.case.invalid.state.transition` when the case is not OPEN; 409
 * `error.msg.case.customer.mismatch` naming `caseId` when the case's customer is neither the loan's borrower nor one
 * of its parties (as for promises to pay); 409
 * `error.msg.hardship.guardrails.missing` before the tenant's first guardrails.
 */
export function createHardshipOffer(deps: Deps) {
  return async (input: CreateHardshipOfferInput): Promise<CreatedHardshipOffer> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const maker = requireActor(input.actor);
      if (input.requestKey) {
        const [replayed] = await tx
          .select()
          .from(hardshipOffers)
          .where(
            and(eq(hardshipOffers.tenantId, input.tenantId), eq(hardshipOffers.requestKey, input.requestKey)),
          );
        if (replayed)
          return createdOfferOf(
            input.tenantId,
            hardshipOfferViewOf(replayed, await offerApprovals(tx, input.tenantId, replayed.id)),
          );
      }
      const foundCase = await shareCase(tx, input.tenantId, input.caseId);
      if (!foundCase) throw referenceNotFound('caseId', input.caseId, 'Case');
      assertCaseTakesRecords(foundCase, input.caseId, null);
      const [loan] = await tx
        .select({ id: loans.id })
        .from(loans)
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, input.loanId)));
      if (!loan) throw referenceNotFound('loanId', input.loanId, 'Loan');
      await assertCaseCustomerIsLoanParty(
        tx,
        input.tenantId,
        input.loanId,
        input.caseId,
        foundCase.customerRef,
      );
      const [program] = await tx
        .select()
        .from(hardshipPrograms)
        .where(
          and(
            eq(hardshipPrograms.tenantId, input.tenantId),
            eq(hardshipPrograms.programCode, input.programCode),
          ),
        );
      if (!program) throw referenceNotFound('programCode', input.programCode, 'Hardship program');
      const guardrails = await activeGuardrails(tx, input.tenantId);
      if (!guardrails) throw new DomainError('error.msg.hardship.guardrails.missing');
      const now = deps.clock();
      const versions = await tx
        .select()
        .from(hardshipProgramVersions)
        .where(
          and(
            eq(hardshipProgramVersions.tenantId, input.tenantId),
            eq(hardshipProgramVersions.programCode, input.programCode),
          ),
        )
        .orderBy(asc(hardshipProgramVersions.version));
      const today = await tenantToday(tx, input.tenantId, now);
      const version = activeVersionOn(versions, today);
      if (!version) throw new Error(`hardship program ${input.programCode} has no version`);
      const loanFacts =
        input.loanFacts ??
        (await gatherHardshipLoanFacts(tx, input.tenantId, input.loanId, input.caseId, now, today));

      let route: ReturnType<typeof routeHardshipOffer>;
      try {
        route = routeHardshipOffer(
          guardrails.guardrails,
          {
            programCode: program.programCode,
            state: program.state === 'RETIRED' ? 'RETIRED' : 'ACTIVE',
            hardshipReasonCode: program.hardshipReasonCode,
            version: version.version,
            terms: version.terms,
          },
          loanFacts,
          { hardshipReasonCode: input.hardshipReasonCode, requestedRelief: input.requestedRelief },
        );
      } catch (error) {
        throw prefixed(error, 'requestedRelief.params.');
      }
      const [offer] = await tx
        .insert(hardshipOffers)
        .values({
          tenantId: input.tenantId,
          caseId: input.caseId,
          loanId: input.loanId,
          programCode: program.programCode,
          programVersion: version.version,
          guardrailsVersion: guardrails.version,
          hardshipReasonCode: input.hardshipReasonCode,
          requestedRelief: requestedReliefJson(input.requestedRelief),
          reliefSize: 'reliefSize' in route ? route.reliefSize : null,
          status: route.status,
          reasons: 'reasons' in route ? route.reasons : [],
          makerActor: maker,
          makerClientId: input.clientId,
          offerExpiresAt:
            route.status === 'OFFERED'
              ? new Date(now.getTime() + version.terms.offerValidityHours * hourMs)
              : null,
          documentsDueAt: null,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!offer) throw new Error('hardship offer insert returned no row');
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        effectType: 'HARDSHIP_OFFER_CREATED',
        subjectType: 'HARDSHIP_OFFER',
        subjectId: offer.id,
        detail: {
          offerId: offer.id,
          programCode: offer.programCode,
          programVersion: offer.programVersion,
          status: offer.status,
          reasons: offer.reasons.map((r) => r.code),
        },
        actor: maker,
        correlationId: input.correlationId ?? null,
        occurredAt: now,
        dedupeKey: `hardship-offer/${offer.id}/created`,
      });
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'hardship.offer.created',
        subjectId: offer.id,
        data: {
          offerId: offer.id,
          caseId: offer.caseId,
          loanId: offer.loanId,
          programCode: offer.programCode,
          programVersion: offer.programVersion,
          status: route.status,
          reliefType: input.requestedRelief.reliefType,
          reliefSize: offer.reliefSize,
          reasonCodes: offer.reasons.map((r) => r.code),
          offerExpiresAt: offer.offerExpiresAt?.toISOString() ?? null,
        },
        occurredAt: now,
        dedupeKey: `hardship-offer/${offer.id}/created`,
      });
      const task = taskOfStatus(offer.status);
      if (task) {
        await openTask(tx, {
          tenantId: input.tenantId,
          caseId: input.caseId,
          taskType: task.taskType,
          title: `${task.title} ${offer.id} (${offer.programCode})`,
          subjectType: 'HARDSHIP_OFFER',
          subjectId: offer.id,
          dueAt: null,
          dedupeKey: `hardship-offer/${offer.id}/${task.taskType}`,
        });
      }
      const created = createdOfferOf(input.tenantId, hardshipOfferViewOf(offer, []));
      await recordStartIntent(tx, hardshipOfferStartSpec(created.workflow.input), now);
      return created;
    });
}

/** A created offer and the process started for it (`hardship-offer/<tenant>/<offerId>`). */
export interface CreatedHardshipOffer {
  offer: HardshipOfferView;
  workflow: { workflowId: string; input: HardshipOfferWorkflowInput };
}

function createdOfferOf(tenantId: string, offer: HardshipOfferView): CreatedHardshipOffer {
  const input: HardshipOfferWorkflowInput = {
    tenantId,
    offerId: offer.offerId,
    caseId: offer.caseId,
    loanId: offer.loanId,
    programCode: offer.programCode,
    status: offer.status,
  };
  return { offer, workflow: { workflowId: hardshipOfferStartSpec(input).workflowId, input } };
}

/** A relief parameter error renamed under `prefix` (the wire path of the parameters); other errors unchanged. */
function prefixed(error: unknown, prefix: string): unknown {
  if (!(error instanceof DomainError)) return error;
  return new DomainError(error.code, error.message, {
    errors: error.errors.map((e) => ({ ...e, parameterName: `${prefix}${e.parameterName}` })),
  });
}
