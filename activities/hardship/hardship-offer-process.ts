/**
 * The hardship offer after its routing (docs/processes.md P5; domain/hardship/offer-process.ts): the
 * borrower's acceptance (an operation of the route), and the steps of `hardshipOfferWorkflow` — read the offer's
 * progress, expire it when its validity timer fires, confirm the required evidence (then apply the relief) or lapse
 * it at the document deadline, and re-evaluate eligibility when its loan changes. Each is one tenant transaction
 * (docs/conventions.md §5) on the offer row locked `FOR UPDATE`, so an acceptance and an expiry, or two hints, never both win; each
 * is idempotent (a step whose status no longer holds changes nothing and answers the progress).
 *
 * The database is the arbiter of the offer's status; the workflow owns the timers and decides *when* a step runs.
 * The workflow's steps therefore never compare clocks (the timer fired: the offer expires), while the acceptance,
 * which comes from outside, refuses an offer whose `offerExpiresAt` has passed even if its timer has not yet fired.
 *
 * Every step leaves a case effect (`HARDSHIP_OFFER_ACCEPTED`, `…_EXPIRED`, `…_EVIDENCE_CONFIRMED`, `…_APPLIED`,
 * `…_LAPSED`, `…_REEVALUATED`) and an event of the catalogue (`hardship.offer.accepted|expired|applied|lapsed|
 * reevaluated`).
 */
import { and, asc, eq, gte, inArray } from 'drizzle-orm';
import {
  type HardshipOfferRow,
  type HardshipOfferView,
  hardshipOfferRow,
  hardshipOfferViewOf,
  offerApprovals,
} from '../../db/queries/hardship/hardship-offers';
import { activeGuardrails, tenantToday } from '../../db/queries/hardship/hardship-policies';
import {
  evidence,
  hardshipGuardrailVersions,
  hardshipOffers,
  hardshipPrograms,
  hardshipProgramVersions,
} from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound } from '../../domain/errors';
import type { EventData } from '../../domain/events';
import { type HardshipOfferReason, requestedReliefOf, routeHardshipOffer } from '../../domain/hardship/offer';
import {
  acceptableHardshipOfferStatuses,
  type HardshipOfferProgress,
  isOpenHardshipOfferStatus,
  type LoanChangedHint,
  noEvidenceRequired,
  openHardshipOfferStatuses,
} from '../../domain/hardship/offer-process';
import type { HardshipProgramTerms } from '../../domain/hardship/policy';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import type { Deps, OperationContext } from '../deps';
import { applyLoanRelief } from '../lending/loan-relief';
import { writeOutboxEvent } from '../platform/outbox';
import { openTask, recordEffect } from '../servicing/records';
import { completeOfferTask, gatherHardshipLoanFacts, taskOfStatus } from './hardship-offers';

const hourMs = 3_600_000;
/** The actor of the workflow's own steps in case effects and task completions. */
const processActor = 'system:hardship-offer';

/** One offer of one tenant. */
export interface HardshipOfferRef {
  tenantId: string;
  offerId: number;
}

/** The progress the workflow reads (domain `HardshipOfferProgress`). */
export function progressOf(row: HardshipOfferRow): HardshipOfferProgress {
  return {
    offerId: row.id,
    status: row.status,
    offerExpiresAtMs: row.offerExpiresAt?.getTime() ?? null,
    documentsDueAtMs: row.documentsDueAt?.getTime() ?? null,
  };
}

async function lockedOffer(tx: Tx, ref: HardshipOfferRef): Promise<HardshipOfferRow> {
  const row = await hardshipOfferRow(tx, ref.tenantId, ref.offerId, true);
  if (!row) throw notFound('Hardship offer', ref.offerId);
  return row;
}

async function termsOf(tx: Tx, offer: HardshipOfferRow): Promise<HardshipProgramTerms> {
  const [version] = await tx
    .select({ terms: hardshipProgramVersions.terms })
    .from(hardshipProgramVersions)
    .where(
      and(
        eq(hardshipProgramVersions.tenantId, offer.tenantId),
        eq(hardshipProgramVersions.programCode, offer.programCode),
        eq(hardshipProgramVersions.version, offer.programVersion),
      ),
    );
  if (!version)
    throw new Error(`hardship program version ${offer.programCode}/${offer.programVersion} vanished`);
  return version.terms;
}

function invalidTransition(offer: HardshipOfferRow, message: string): DomainError {
  const code = 'error.msg.hardship.offer.invalid.state.transition';
  const text = `offerId: hardship offer ${offer.id} is ${offer.status}; ${message}`;
  return new DomainError(code, text, { errors: [fieldError('offerId', offer.id, text, code)] });
}

/** The common fields of the offer's step events. */
function eventBase(offer: HardshipOfferRow) {
  return {
    offerId: offer.id,
    caseId: offer.caseId,
    loanId: offer.loanId,
    programCode: offer.programCode,
    programVersion: offer.programVersion,
  };
}

/** The events of the offer's steps after routing. */
type HardshipOfferStepEvent =
  | 'hardship.offer.accepted'
  | 'hardship.offer.expired'
  | 'hardship.offer.lapsed'
  | 'hardship.offer.applied'
  | 'hardship.offer.reevaluated';

/**
 * Sets `status` (and the other `changes`) on the locked offer, records the case effect `effectType` and writes
 * `eventType` with `data`, all under the dedupe key `hardship-offer/<offerId>/<step>`. Returns the updated row.
 */
async function moveOffer<T extends HardshipOfferStepEvent>(
  tx: Tx,
  offer: HardshipOfferRow,
  step: {
    changes: Partial<typeof hardshipOffers.$inferInsert>;
    effectType: string;
    detail: Record<string, unknown>;
    eventType: T;
    data: Omit<EventData<T>, keyof ReturnType<typeof eventBase>>;
    actor: string;
    correlationId: string | null | undefined;
    now: Date;
    dedupe: string;
  },
): Promise<HardshipOfferRow> {
  const [updated] = await tx
    .update(hardshipOffers)
    .set({ ...step.changes, updatedAt: step.now })
    .where(and(eq(hardshipOffers.tenantId, offer.tenantId), eq(hardshipOffers.id, offer.id)))
    .returning();
  if (!updated) throw new Error('hardship offer vanished under its lock');
  const dedupeKey = `hardship-offer/${offer.id}/${step.dedupe}`;
  await recordEffect(tx, {
    tenantId: offer.tenantId,
    caseId: offer.caseId,
    effectType: step.effectType,
    subjectType: 'HARDSHIP_OFFER',
    subjectId: offer.id,
    detail: { offerId: offer.id, ...step.detail },
    actor: step.actor,
    correlationId: step.correlationId ?? null,
    occurredAt: step.now,
    dedupeKey,
  });
  await writeOutboxEvent(tx, {
    tenantId: offer.tenantId,
    eventType: step.eventType,
    subjectId: offer.id,
    data: { ...eventBase(offer), ...step.data } as EventData<T>,
    occurredAt: step.now,
    dedupeKey,
  });
  return updated;
}

/**
 * Applies the offer's relief to its loan (activities/lending/loan-relief.ts: a new schedule version, the ledger
 * balanced) and marks it APPLIED, with effect `HARDSHIP_OFFER_APPLIED`, event `hardship.offer.applied`, and the
 * documents task (if any) completed. Errors of the relief (409 `error.msg.hardship.relief.not.applicable`, 400)
 * propagate with nothing changed.
 */
async function applyOffer(
  tx: Tx,
  offer: HardshipOfferRow,
  context: { actor: string; correlationId: string | null | undefined; now: Date; evidenceId: number | null },
): Promise<HardshipOfferRow> {
  const asOfDate = await tenantToday(tx, offer.tenantId, context.now);
  const applied = await applyLoanRelief(tx, {
    tenantId: offer.tenantId,
    loanId: offer.loanId,
    requestedRelief: requestedReliefOf(offer.requestedRelief),
    asOfDate,
    source: { kind: 'HARDSHIP_OFFER', offerId: offer.id },
    actor: context.actor,
    now: context.now,
  });
  const updated = await moveOffer(tx, offer, {
    changes: {
      status: 'APPLIED',
      appliedAt: context.now,
      appliedScheduleVersion: applied.scheduleVersion,
      appliedRelief: { ...applied },
      confirmedEvidenceId: context.evidenceId,
    },
    effectType: 'HARDSHIP_OFFER_APPLIED',
    detail: {
      scheduleVersion: applied.scheduleVersion,
      totalDueBefore: applied.totalDueBefore,
      totalDueAfter: applied.totalDueAfter,
      evidenceId: context.evidenceId,
    },
    eventType: 'hardship.offer.applied',
    data: {
      status: 'APPLIED',
      reliefType: offer.requestedRelief.reliefType,
      scheduleVersion: applied.scheduleVersion,
      installmentCountBefore: applied.installmentCountBefore,
      installmentCountAfter: applied.installmentCountAfter,
      // money in events is a decimal string with its currency (spec § Events), not the relief's minor units
      totalDueBefore: formatMinor(BigInt(applied.totalDueBefore), minorUnitDigits(applied.currency)),
      totalDueAfter: formatMinor(BigInt(applied.totalDueAfter), minorUnitDigits(applied.currency)),
      currency: applied.currency,
      journalEntryId: applied.journalEntryId,
      evidenceId: context.evidenceId,
      appliedAt: context.now.toISOString(),
    },
    actor: context.actor,
    correlationId: context.correlationId,
    now: context.now,
    dedupe: 'applied',
  });
  await completeOfferTask(
    tx,
    offer.tenantId,
    offer.id,
    'HARDSHIP_DOCUMENTS_DUE',
    context.actor,
    'APPLIED',
    context.now,
    context.correlationId,
  );
  return updated;
}

/**
 * Where offer `offerId` stands (status and timers) — the workflow's read at start and after each hint.
 * Errors: 404 when absent (a caller bug: the process is started for a stored offer).
 */
export function readHardshipOfferProgress(deps: Deps) {
  return async (ref: HardshipOfferRef): Promise<HardshipOfferProgress> =>
    withTenantTransaction(deps.db, ref.tenantId, async (tx) => {
      const row = await hardshipOfferRow(tx, ref.tenantId, ref.offerId);
      if (!row) throw notFound('Hardship offer', ref.offerId);
      return progressOf(row);
    });
}

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

/**
 * The validity timer of an OFFERED / APPROVED offer fired (workflow step): the offer becomes `EXPIRED` (effect
 * `HARDSHIP_OFFER_EXPIRED`, event `hardship.offer.expired`). Any other status (accepted meanwhile, re-evaluated)
 * is left as it is. Returns the progress. Errors: 404 when absent.
 */
export function expireHardshipOffer(deps: Deps) {
  return async (ref: HardshipOfferRef): Promise<HardshipOfferProgress> =>
    withTenantTransaction(deps.db, ref.tenantId, async (tx) => {
      const offer = await lockedOffer(tx, ref);
      if (!(acceptableHardshipOfferStatuses as readonly string[]).includes(offer.status)) {
        return progressOf(offer);
      }
      const now = deps.clock();
      const updated = await moveOffer(tx, offer, {
        changes: { status: 'EXPIRED' },
        effectType: 'HARDSHIP_OFFER_EXPIRED',
        detail: { fromStatus: offer.status, offerExpiresAt: offer.offerExpiresAt?.toISOString() ?? null },
        eventType: 'hardship.offer.expired',
        data: {
          status: 'EXPIRED',
          offerExpiresAt: offer.offerExpiresAt?.toISOString() ?? null,
          expiredAt: now.toISOString(),
        },
        actor: processActor,
        correlationId: null,
        now,
        dedupe: 'expired',
      });
      return progressOf(updated);
    });
}

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

/**
 * The offers of loan `loanId` a loan change concerns (not yet accepted: PENDING_APPROVAL, OFFERED, APPROVED), for
 * the payment-intent workflow's `loanChanged` signals. Read only.
 */
export function findOpenHardshipOffersOfLoan(deps: Deps) {
  return async (input: { tenantId: string; loanId: number }): Promise<{ offerIds: number[] }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const rows = await tx
        .select({ id: hardshipOffers.id })
        .from(hardshipOffers)
        .where(
          and(
            eq(hardshipOffers.tenantId, input.tenantId),
            eq(hardshipOffers.loanId, input.loanId),
            inArray(hardshipOffers.status, [...openHardshipOfferStatuses]),
          ),
        )
        .orderBy(asc(hardshipOffers.id));
      return { offerIds: rows.map((r) => r.id) };
    });
}
