/**
 * Reads of hardship offers (docs/processes.md P5 third bullet): one offer with its decision trail
 * (the maker-checker approval records, docs/servicing.md "Hardship offers") and timers, as the offer read answers it.
 * The offer operations (activities/hardship/create-hardship-offer.ts, decide-hardship-offer.ts, …) use the `Tx`
 * helpers inside their transaction.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type {
  HardshipOfferReason,
  HardshipOfferTerms,
  RequestedReliefJson,
} from '../../../domain/hardship/offer';
import type { Db } from '../../client';
import { hardshipOfferApprovals, hardshipOffers, hardshipProgramVersions, loans } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** One decision of the trail. */
export interface HardshipOfferDecisionView {
  /** The checker's `Service-Actor`. */
  actor: string;
  /** The checker's OAuth client id; null on decisions recorded before it was kept. */
  clientId: string | null;
  /** The maker's `Service-Actor` and OAuth client id, as the decision compared them; null before they were kept. */
  makerActor: string | null;
  makerClientId: string | null;
  /** The tenant's maker-checker policy the decision was taken under (`distinct-client` | `same-client-distinct-actor`). */
  makerCheckerPolicy: string | null;
  decision: string;
  /** Guardrails version the decision was taken under (the spec's "policy version"). */
  policyVersion: number;
  /** Hex SHA-256 of the canonical offer terms decided on. */
  requestHash: string;
  /** ISO 8601 instant (UTC, `Z`). */
  decidedAt: string;
}

/** An offer as the offer read answers it. */
export interface HardshipOfferView {
  offerId: number;
  caseId: number;
  loanId: number;
  programCode: string;
  programVersion: number;
  guardrailsVersion: number;
  hardshipReasonCode: string;
  requestedRelief: RequestedReliefJson;
  status: string;
  /** Size of the relief in its unit; null when not sized (INELIGIBLE, SPECIALIST). */
  reliefSize: number | null;
  /** INELIGIBLE / SPECIALIST reasons; empty otherwise. */
  reasons: HardshipOfferReason[];
  /** The maker's `Service-Actor`. */
  createdBy: string;
  /** The maker's OAuth client id; null for offers made before it was recorded. */
  createdByClientId: string | null;
  /** ISO 8601 instants (UTC, `Z`) or null while not running. */
  timers: { offerExpiresAt: string | null; documentsDueAt: string | null };
  decisions: HardshipOfferDecisionView[];
  /** The borrower's acceptance (instant, `Service-Actor` or null); null before it. */
  acceptance: { acceptedAt: string; acceptedBy: string | null } | null;
  /** What applying the relief did (activities/lending/loan-relief.ts); null until APPLIED. */
  application: {
    appliedAt: string;
    scheduleVersion: number;
    evidenceId: number | null;
    installmentCountBefore: number;
    installmentCountAfter: number;
    /** Minor units (decimal strings): every installment's due amounts over all components. */
    totalDueBefore: string;
    totalDueAfter: string;
  } | null;
  /** ISO 8601 instant (UTC, `Z`). */
  createdAt: string;
}

export type HardshipOfferRow = typeof hardshipOffers.$inferSelect;
type ApprovalRow = typeof hardshipOfferApprovals.$inferSelect;

/** The terms the request hash of an approval covers (domain `hardshipOfferTermsHash`). */
export function offerTermsOf(row: HardshipOfferRow): HardshipOfferTerms {
  return {
    offerId: row.id,
    caseId: row.caseId,
    loanId: row.loanId,
    programCode: row.programCode,
    programVersion: row.programVersion,
    guardrailsVersion: row.guardrailsVersion,
    hardshipReasonCode: row.hardshipReasonCode,
    requestedRelief: row.requestedRelief,
  };
}

export function hardshipOfferViewOf(
  row: HardshipOfferRow,
  approvals: readonly ApprovalRow[],
): HardshipOfferView {
  return {
    offerId: row.id,
    caseId: row.caseId,
    loanId: row.loanId,
    programCode: row.programCode,
    programVersion: row.programVersion,
    guardrailsVersion: row.guardrailsVersion,
    hardshipReasonCode: row.hardshipReasonCode,
    requestedRelief: row.requestedRelief,
    status: row.status,
    reliefSize: row.reliefSize,
    reasons: row.reasons,
    createdBy: row.makerActor,
    createdByClientId: row.makerClientId,
    timers: {
      offerExpiresAt: row.offerExpiresAt?.toISOString() ?? null,
      documentsDueAt: row.documentsDueAt?.toISOString() ?? null,
    },
    decisions: approvals.map((a) => ({
      actor: a.actor,
      clientId: a.clientId,
      makerActor: a.makerActor,
      makerClientId: a.makerClientId,
      makerCheckerPolicy: a.makerCheckerPolicy,
      decision: a.decision,
      policyVersion: a.guardrailsVersion,
      requestHash: a.requestHash,
      decidedAt: a.decidedAt.toISOString(),
    })),
    acceptance: row.acceptedAt
      ? { acceptedAt: row.acceptedAt.toISOString(), acceptedBy: row.acceptedBy }
      : null,
    application:
      row.appliedAt && row.appliedScheduleVersion !== null
        ? {
            appliedAt: row.appliedAt.toISOString(),
            scheduleVersion: row.appliedScheduleVersion,
            evidenceId: row.confirmedEvidenceId,
            installmentCountBefore: Number(row.appliedRelief?.installmentCountBefore ?? 0),
            installmentCountAfter: Number(row.appliedRelief?.installmentCountAfter ?? 0),
            totalDueBefore: String(row.appliedRelief?.totalDueBefore ?? '0'),
            totalDueAfter: String(row.appliedRelief?.totalDueAfter ?? '0'),
          }
        : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The approval records of an offer, oldest first. */
export async function offerApprovals(tx: Tx, tenantId: string, offerId: number): Promise<ApprovalRow[]> {
  return tx
    .select()
    .from(hardshipOfferApprovals)
    .where(and(eq(hardshipOfferApprovals.tenantId, tenantId), eq(hardshipOfferApprovals.offerId, offerId)))
    .orderBy(asc(hardshipOfferApprovals.id));
}

/** The offer row (optionally locked `FOR UPDATE`), or null when absent or another tenant's. */
export async function hardshipOfferRow(
  tx: Tx,
  tenantId: string,
  offerId: number,
  forUpdate = false,
): Promise<HardshipOfferRow | null> {
  const query = tx
    .select()
    .from(hardshipOffers)
    .where(and(eq(hardshipOffers.tenantId, tenantId), eq(hardshipOffers.id, offerId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

/** The offer with its decision trail, or null when absent or another tenant's (docs/design.md §4 "Scopes and permissions"). */
export async function getHardshipOffer(
  db: Db,
  tenantId: string,
  offerId: number,
): Promise<HardshipOfferView | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const row = await hardshipOfferRow(tx, tenantId, offerId);
    return row ? hardshipOfferViewOf(row, await offerApprovals(tx, tenantId, offerId)) : null;
  });
}

/**
 * The permission a checker of offer `offerId` needs: the `humanApprovalPermission` of the program version the
 * offer was made under (docs/servicing.md "Hardship offers"), or null when the offer is absent or another tenant's.
 */
export async function hardshipOfferApprovalPermission(
  db: Db,
  tenantId: string,
  offerId: number,
): Promise<string | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [row] = await tx
      .select({ terms: hardshipProgramVersions.terms })
      .from(hardshipOffers)
      .innerJoin(
        hardshipProgramVersions,
        and(
          eq(hardshipProgramVersions.tenantId, hardshipOffers.tenantId),
          eq(hardshipProgramVersions.programCode, hardshipOffers.programCode),
          eq(hardshipProgramVersions.version, hardshipOffers.programVersion),
        ),
      )
      .where(and(eq(hardshipOffers.tenantId, tenantId), eq(hardshipOffers.id, offerId)));
    return row?.terms.humanApprovalPermission ?? null;
  });
}

/**
 * Ids of the tenant's offers on case `caseId`, loan `loanId` or the loans of borrower `borrowerId` (whichever is given) in one of `statuses`, oldest
 * first: whom the API signals after evidence is added to a case (`AWAITING_DOCUMENTS`) or after a material change
 * of a loan (PENDING_APPROVAL, OFFERED, APPROVED).
 */
export async function hardshipOfferIdsOf(
  db: Db,
  tenantId: string,
  where: { caseId: number } | { loanId: number } | { borrowerId: number },
  statuses: readonly string[],
): Promise<number[]> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const rows = await tx
      .select({ id: hardshipOffers.id })
      .from(hardshipOffers)
      .innerJoin(loans, and(eq(loans.tenantId, hardshipOffers.tenantId), eq(loans.id, hardshipOffers.loanId)))
      .where(
        and(
          eq(hardshipOffers.tenantId, tenantId),
          'caseId' in where
            ? eq(hardshipOffers.caseId, where.caseId)
            : 'loanId' in where
              ? eq(hardshipOffers.loanId, where.loanId)
              : eq(loans.clientId, where.borrowerId),
          inArray(hardshipOffers.status, [...statuses]),
        ),
      )
      .orderBy(asc(hardshipOffers.id));
    return rows.map((r) => r.id);
  });
}
