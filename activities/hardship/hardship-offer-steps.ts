/**
 * What the steps of a hardship offer after its routing share (docs/processes.md P5; domain/hardship/offer-process.ts):
 * the offer row locked `FOR UPDATE` (`lockedOffer`), its progress (`progressOf`), its program terms, and `moveOffer` /
 * `applyOffer`, which change its status with the case effect and the catalogue event of the step in the caller's
 * transaction. The database is the arbiter of the offer's status; the workflow owns the timers and decides *when* a
 * step runs. The steps are one file each: accept-hardship-offer.ts, read-hardship-offer-progress.ts,
 * expire-hardship-offer.ts, confirm-hardship-evidence.ts, reevaluate-hardship-offer.ts,
 * find-open-hardship-offers-of-loan.ts.
 */
import { and, eq } from 'drizzle-orm';
import { type HardshipOfferRow, hardshipOfferRow } from '../../db/queries/hardship/hardship-offers';
import { tenantToday } from '../../db/queries/hardship/hardship-policies';
import { hardshipOffers, hardshipProgramVersions } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound } from '../../domain/errors';
import type { EventData } from '../../domain/events';
import { requestedReliefOf } from '../../domain/hardship/offer';
import type { HardshipOfferProgress } from '../../domain/hardship/offer-process';
import type { HardshipProgramTerms } from '../../domain/hardship/policy';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import { applyLoanRelief } from '../lending/loan-relief';
import { writeOutboxEvent } from '../platform/outbox';
import { recordEffect } from '../servicing/records';
import { completeOfferTask } from './hardship-offer-tasks';

/** One hour in milliseconds. */
export const hourMs = 3_600_000;
/** The actor of the workflow's own steps in case effects and task completions. */
export const processActor = 'system:hardship-offer';

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

/** Offer `ref`'s row locked `FOR UPDATE` in `tx`; 404 `error.msg.resource.not.found` when absent. */
export async function lockedOffer(tx: Tx, ref: HardshipOfferRef): Promise<HardshipOfferRow> {
  const row = await hardshipOfferRow(tx, ref.tenantId, ref.offerId, true);
  if (!row) throw notFound('Hardship offer', ref.offerId);
  return row;
}

/** The terms of the program version the offer was made under (stored with it, never re-read from a newer version). */
export async function termsOf(tx: Tx, offer: HardshipOfferRow): Promise<HardshipProgramTerms> {
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

/** 409 `error.msg.hardship.offer.invalid.state.transition` naming `offerId`, with the offer's status and `message`. */
export function invalidTransition(offer: HardshipOfferRow, message: string): DomainError {
  const code = 'error.msg.hardship.offer.invalid.state.transition';
  const text = `offerId: hardship offer ${offer.id} is ${offer.status}; ${message}`;
  return new DomainError(code, text, { errors: [fieldError('offerId', offer.id, text, code)] });
}

/** The common fields of the offer's step events. */
export function eventBase(offer: HardshipOfferRow) {
  return {
    offerId: offer.id,
    caseId: offer.caseId,
    loanId: offer.loanId,
    programCode: offer.programCode,
    programVersion: offer.programVersion,
  };
}

/** The events of the offer's steps after routing. */
export type HardshipOfferStepEvent =
  | 'hardship.offer.accepted'
  | 'hardship.offer.expired'
  | 'hardship.offer.lapsed'
  | 'hardship.offer.applied'
  | 'hardship.offer.reevaluated';

/**
 * Sets `status` (and the other `changes`) on the locked offer, records the case effect `effectType` and writes
 * `eventType` with `data`, all under the dedupe key `hardship-offer/<offerId>/<step>`. Returns the updated row.
 */
export async function moveOffer<T extends HardshipOfferStepEvent>(
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
export async function applyOffer(
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
      // money in events is a decimal string with its currency (docs/integrating.md "Webhooks"), not the relief's minor units
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
