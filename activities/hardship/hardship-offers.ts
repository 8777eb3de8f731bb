/**
 * Hardship offers up to their decision (docs/processes.md P5 third bullet; spec § Authentication 10
 * maker-checker): creating an offer routes it (domain/hardship/offer.ts) and stores it with its case effects and
 * tasks; a PENDING_APPROVAL offer is approved or rejected by a second actor, which writes the append-only
 * approval record. Each operation is one tenant transaction (docs/conventions.md §5), idempotent.
 *
 * The loan facts the routing reads are gathered in the same transaction (`gatherHardshipLoanFacts`) unless the
 * caller gives them (`loanFacts`).
 */
import { and, asc, eq, lte, ne, sql } from 'drizzle-orm';
import {
  type HardshipOfferView,
  hardshipOfferRow,
  hardshipOfferViewOf,
  offerApprovals,
  offerTermsOf,
} from '../../db/queries/hardship/hardship-offers';
import { activeGuardrails, tenantToday } from '../../db/queries/hardship/hardship-policies';
import { tenantMakerCheckerPolicy } from '../../db/queries/tenants';
import {
  cases,
  contactPoints,
  customerAddresses,
  hardshipOfferApprovals,
  hardshipOffers,
  hardshipPrograms,
  hardshipProgramVersions,
  loanInstallments,
  loanProducts,
  loans,
  tasks,
} from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound, referenceNotFound, validationError } from '../../domain/errors';
import {
  type HardshipLoanFacts,
  type HardshipOfferDecision,
  hardshipOfferTermsHash,
  nativeLoanCapabilities,
  type RequestedRelief,
  repaymentFrequencyName,
  requestedReliefJson,
  routeHardshipOffer,
} from '../../domain/hardship/offer';
import { type HardshipOfferWorkflowInput, hardshipOfferStartSpec } from '../../domain/hardship/offer-process';
import { activeVersionOn } from '../../domain/hardship/policy';
import { makerCheckerRefusal } from '../../domain/maker-checker';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { recordStartIntent } from '../platform/start-intents';
import { assertCaseCustomerIsLoanParty } from '../servicing/case-checks';
import { assertCaseTakesRecords, openTask, recordEffect, shareCase } from '../servicing/records';

const hourMs = 3_600_000;

/** The `Service-Actor` a maker-checker step needs; 400 naming `header.Service-Actor` when absent. */
function requireActor(actor: string | null | undefined): string {
  if (!actor) {
    throw validationError(
      'header.Service-Actor',
      null,
      'header.Service-Actor is required: maker-checker records name the actor of each step.',
    );
  }
  return actor;
}

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
 * The routing facts of loan `loanId` for a request in case `caseId`, at `now` (`today` = the tenant's date):
 * - `productClass`: the product's `lmsConfig.productClass` ('' when unset: outside every non-empty list);
 * - `jurisdiction`: the borrower's first recorded address, `<countryCode>-<region>` (ISO 3166-2) when it has a
 *   region, else the country; '' without an address;
 * - `currency`: the loan's; `repaymentFrequency`: `repaymentFrequencyName` of the loan's terms (the product's
 *   when the loan's terms do not say);
 * - `nativeCapabilities`: the engine's `nativeLoanCapabilities` (every loan here is serviced natively);
 * - `installmentsSinceFirstDue`: the loan's installments due on or before today;
 * - `activeHardshipCaseCount`: the OPEN cases with an offer on this loan, the request's case counted once;
 * - `verifiedContactPresent`: the borrower has a VERIFIED contact point;
 * - `conditions`: none yet (no record of bankruptcy, litigation, … exists in the engine);
 * - `activeRestrictionTypes`: the restrictions in force at `now` on the borrower or this loan.
 */
export async function gatherHardshipLoanFacts(
  tx: Tx,
  tenantId: string,
  loanId: number,
  caseId: number,
  now: Date,
  today: string,
): Promise<HardshipLoanFacts> {
  const [loan] = await tx
    .select({
      clientId: loans.clientId,
      currency: loans.currencyCode,
      terms: loans.terms,
      lmsConfig: loanProducts.lmsConfig,
      productEvery: loanProducts.repaymentEvery,
      productFrequencyType: loanProducts.repaymentFrequencyType,
    })
    .from(loans)
    .innerJoin(
      loanProducts,
      and(eq(loanProducts.tenantId, loans.tenantId), eq(loanProducts.id, loans.productId)),
    )
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
  if (!loan) throw referenceNotFound('loanId', loanId, 'Loan');
  const [address] = await tx
    .select({ countryCode: customerAddresses.countryCode, region: customerAddresses.region })
    .from(customerAddresses)
    .where(and(eq(customerAddresses.tenantId, tenantId), eq(customerAddresses.customerId, loan.clientId)))
    .orderBy(asc(customerAddresses.id))
    .limit(1);
  const [age] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(loanInstallments)
    .where(
      and(
        eq(loanInstallments.tenantId, tenantId),
        eq(loanInstallments.loanId, loanId),
        lte(loanInstallments.dueDate, today),
      ),
    );
  const otherCases = await tx
    .selectDistinct({ caseId: hardshipOffers.caseId })
    .from(hardshipOffers)
    .innerJoin(cases, and(eq(cases.tenantId, hardshipOffers.tenantId), eq(cases.id, hardshipOffers.caseId)))
    .where(
      and(
        eq(hardshipOffers.tenantId, tenantId),
        eq(hardshipOffers.loanId, loanId),
        ne(hardshipOffers.caseId, caseId),
        eq(cases.status, 'OPEN'),
      ),
    );
  const [verified] = await tx
    .select({ id: contactPoints.id })
    .from(contactPoints)
    .where(
      and(
        eq(contactPoints.tenantId, tenantId),
        eq(contactPoints.customerId, loan.clientId),
        eq(contactPoints.verificationStatus, 'VERIFIED'),
      ),
    )
    .limit(1);
  const restrictions = await activeRestrictions(tx, tenantId, loan.clientId, loanId, { at: now });
  const terms = loan.terms as { repaymentEvery?: unknown; repaymentFrequencyType?: unknown };
  const every = typeof terms.repaymentEvery === 'number' ? terms.repaymentEvery : loan.productEvery;
  const frequencyType =
    typeof terms.repaymentFrequencyType === 'number'
      ? terms.repaymentFrequencyType
      : loan.productFrequencyType;
  return {
    productClass: typeof loan.lmsConfig.productClass === 'string' ? loan.lmsConfig.productClass : '',
    jurisdiction: address
      ? address.region
        ? `${address.countryCode}-${address.region}`
        : address.countryCode
      : '',
    currency: loan.currency,
    repaymentFrequency: repaymentFrequencyName(every, frequencyType),
    nativeCapabilities: [...nativeLoanCapabilities],
    installmentsSinceFirstDue: age?.n ?? 0,
    activeHardshipCaseCount: otherCases.length + 1,
    verifiedContactPresent: verified !== undefined,
    conditions: [],
    activeRestrictionTypes: [...new Set(restrictions.map((r) => r.restrictionType))],
  };
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

/**
 * Completes the offer's open task of `taskType` (opened with dedupe key `hardship-offer/<offerId>/<taskType>`) with
 * `note` and the case effect `TASK_COMPLETED`, as `completeTask` does; nothing when it is absent or already closed.
 */
export async function completeOfferTask(
  tx: Tx,
  tenantId: string,
  offerId: number,
  taskType: string,
  actor: string,
  note: string,
  now: Date,
  correlationId: string | null | undefined,
): Promise<void> {
  const [task] = await tx
    .update(tasks)
    .set({ status: 'COMPLETED', completedAt: now, completedBy: actor, completionNote: note })
    .where(
      and(
        eq(tasks.tenantId, tenantId),
        eq(tasks.dedupeKey, `hardship-offer/${offerId}/${taskType}`),
        eq(tasks.status, 'OPEN'),
      ),
    )
    .returning();
  if (!task || task.caseId === null) return;
  await recordEffect(tx, {
    tenantId,
    caseId: task.caseId,
    effectType: 'TASK_COMPLETED',
    subjectType: 'task',
    subjectId: task.id,
    detail: { taskType: task.taskType, note },
    actor,
    correlationId: correlationId ?? null,
    occurredAt: now,
    dedupeKey: `task/${task.id}/completed`,
  });
}

/** The task a status opens on the case, if any. */
export function taskOfStatus(status: string): { taskType: string; title: string } | null {
  switch (status) {
    case 'PENDING_APPROVAL':
      return { taskType: 'HARDSHIP_OFFER_APPROVAL', title: 'Approve or reject hardship offer' };
    case 'SPECIALIST':
      return { taskType: 'HARDSHIP_SPECIALIST_REVIEW', title: 'Specialist review of hardship request' };
    case 'REFERRED':
      return { taskType: 'HARDSHIP_OFFER_REFERRAL', title: 'Referred hardship request' };
    default:
      return null;
  }
}

/** A relief parameter error renamed under `prefix` (the wire path of the parameters); other errors unchanged. */
function prefixed(error: unknown, prefix: string): unknown {
  if (!(error instanceof DomainError)) return error;
  return new DomainError(error.code, error.message, {
    errors: error.errors.map((e) => ({ ...e, parameterName: `${prefix}${e.parameterName}` })),
  });
}

export interface DecideHardshipOfferInput extends OperationContext {
  offerId: number;
  decision: HardshipOfferDecision;
  /** The checker's OAuth client (whose token made the request) and that token's scopes. */
  clientId: string;
  scopes: readonly string[];
}

/**
 * The checker's decision on a PENDING_APPROVAL offer (spec § Authentication 10; docs/processes.md P5): the maker-checker
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
