/**
 * Hardship assistance policies (docs/servicing.md "Hardship policies"; docs/processes.md P5 first bullet).
 *
 * - `hardship_guardrail_versions`: the tenant's common guardrails, versions 1, 2, … per tenant, append-only
 *   (custom migration); the highest version is the active one (`activated_at` = its creation).
 * - `hardship_programs`: one row per (tenant, programCode): names, state ACTIVE|RETIRED and the version counter.
 * - `hardship_program_versions`: the program's terms per version (1, 2, …), with the dates they are in effect;
 *   append-only except `effective_to` (set when a later version or the retirement ends the period).
 *
 * - `hardship_offers`: one row per hardship offer (docs/processes.md P5 third bullet). `offerId` is the
 *   integer identity `id` (a JSON number on the wire, like the other servicing records), scoped by tenant; its
 *   workflow id is derived (`hardship-offer/<tenant>/<offerId>`), not stored.
 * - `hardship_offer_approvals`: the maker-checker decision of an offer (docs/servicing.md "Hardship offers"), at most one per
 *   offer, append-only (custom migration 0042).
 *
 * Policy writes serialize per tenant on a transaction advisory lock (activities/hardship/hardship-policy-writes.ts), so
 * numbering is gapless and a program is checked against the guardrails active at commit.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { HardshipOfferReason, RequestedReliefJson } from '../../../domain/hardship/offer';
import type { HardshipGuardrailSettings, HardshipProgramTerms } from '../../../domain/hardship/policy';
import {
  createdAt,
  identityId,
  instant,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';
import { loans } from '../lending/lending';
import { cases, evidence } from '../servicing/servicing';

export const hardshipGuardrailVersions = pgTable(
  'hardship_guardrail_versions',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** 1, 2, … per tenant; the highest is active. */
    version: integer().notNull(),
    /** The guardrail settings as validated (domain/hardship/policy.ts); answers rebuild key order. */
    guardrails: jsonb().notNull().$type<HardshipGuardrailSettings>(),
    activatedAt: instant().notNull(),
    createdAt: createdAt(),
    /** Idempotency of the write: `<clientId>/<Idempotency-Key>` when one was sent. */
    requestKey: text(),
  },
  (t) => [
    tenantKey('hardship_guardrail_versions', t),
    uniqueIndex('hardship_guardrail_versions_tenant_version_idx').on(t.tenantId, t.version),
    uniqueIndex('hardship_guardrail_versions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('hardship_guardrail_versions'),
  ],
).enableRLS();

export const hardshipPrograms = pgTable(
  'hardship_programs',
  {
    tenantId: tenantId(),
    programCode: text().notNull(),
    displayName: text().notNull(),
    hardshipReasonCode: text().notNull(),
    description: text().notNull(),
    /** ACTIVE | RETIRED (domain `hardshipProgramStates`). */
    state: text().notNull().default('ACTIVE'),
    /** Number of versions; the next version is this plus one. */
    versionCount: integer().notNull(),
    retiredAt: instant(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.programCode] }),
    uniqueIndex('hardship_programs_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('hardship_programs'),
  ],
).enableRLS();

export const hardshipProgramVersions = pgTable(
  'hardship_program_versions',
  {
    id: identityId(),
    tenantId: tenantId(),
    programCode: text().notNull(),
    /** 1, 2, … per (tenant, programCode). */
    version: integer().notNull(),
    /** First day in effect (ISO date, tenant calendar). */
    effectiveFrom: date({ mode: 'string' }).notNull(),
    /** Last day in effect (inclusive), null while open-ended. */
    effectiveTo: date({ mode: 'string' }),
    /** The version's terms as validated (the spec's summary without the derived ruleCount). */
    terms: jsonb().notNull().$type<HardshipProgramTerms>(),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('hardship_program_versions', t),
    foreignKey({
      name: 'hardship_program_versions_program_fk',
      columns: [t.tenantId, t.programCode],
      foreignColumns: [hardshipPrograms.tenantId, hardshipPrograms.programCode],
    }),
    uniqueIndex('hardship_program_versions_tenant_program_version_idx').on(
      t.tenantId,
      t.programCode,
      t.version,
    ),
    uniqueIndex('hardship_program_versions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('hardship_program_versions'),
  ],
).enableRLS();

export const hardshipOffers = pgTable(
  'hardship_offers',
  {
    /** The offerId. */
    id: identityId(),
    tenantId: tenantId(),
    /** The hardship case the offer is worked in. */
    caseId: bigint({ mode: 'number' }).notNull(),
    loanId: bigint({ mode: 'number' }).notNull(),
    programCode: text().notNull(),
    /** The program version in effect when the offer was made (its terms decide the routing). */
    programVersion: integer().notNull(),
    /** The guardrails version active when the offer was made (the policy version of approval records). */
    guardrailsVersion: integer().notNull(),
    hardshipReasonCode: text().notNull(),
    /** The relief asked for (domain `RequestedReliefJson`: money amounts as decimal strings of minor units). */
    requestedRelief: jsonb().notNull().$type<RequestedReliefJson>(),
    /** Size of the relief in its own unit; null when INELIGIBLE or SPECIALIST (not sized for routing). */
    reliefSize: integer(),
    /** Domain `hardshipOfferStatuses`. */
    status: text().notNull(),
    /** INELIGIBLE / SPECIALIST reasons (codes and messages); empty otherwise. */
    reasons: jsonb().notNull().$type<HardshipOfferReason[]>().default(sql`'[]'::jsonb`),
    /** The maker: the `Service-Actor` that created the offer (checked against the checker's). */
    makerActor: text().notNull(),
    /** The maker's OAuth client (whose token created the offer); null for offers made before it was recorded. */
    makerClientId: text(),
    /** When an OFFERED (or approved) offer expires: creation/approval + the version's `offerValidityHours`. */
    offerExpiresAt: instant(),
    /** When the evidence of an accepted offer is due (set at acceptance); null before. */
    documentsDueAt: instant(),
    /** When the borrower's acceptance was recorded, and by whom (`Service-Actor`, may be null). */
    acceptedAt: instant(),
    acceptedBy: text(),
    /** The evidence on the case the workflow confirmed (type = the program's `requiredEvidenceCode`). */
    confirmedEvidenceId: bigint({ mode: 'number' }),
    /** When the relief was applied to the loan, and the loan's schedule version it created. */
    appliedAt: instant(),
    appliedScheduleVersion: integer(),
    /** What the relief changed (activities/lending/loan-relief.ts `AppliedLoanRelief`, amounts as strings). */
    appliedRelief: jsonb().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('hardship_offers', t),
    tenantReference('hardship_offers_case_fk', t, t.caseId, cases),
    tenantReference('hardship_offers_loan_fk', t, t.loanId, loans),
    tenantReference('hardship_offers_evidence_fk', t, t.confirmedEvidenceId, evidence),
    foreignKey({
      name: 'hardship_offers_program_fk',
      columns: [t.tenantId, t.programCode],
      foreignColumns: [hardshipPrograms.tenantId, hardshipPrograms.programCode],
    }),
    index().on(t.tenantId, t.loanId, t.id),
    index().on(t.tenantId, t.caseId, t.id),
    uniqueIndex('hardship_offers_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('hardship_offers'),
  ],
).enableRLS();

export const hardshipOfferApprovals = pgTable(
  'hardship_offer_approvals',
  {
    id: identityId(),
    tenantId: tenantId(),
    offerId: bigint({ mode: 'number' }).notNull(),
    /** The checker's `Service-Actor`, never the offer's maker. */
    actor: text().notNull(),
    /** The checker's OAuth client (whose token decided); null on records written before it was kept. */
    clientId: text(),
    /** The maker's `Service-Actor` and OAuth client, as the decision compared them (null: before they were kept). */
    makerActor: text(),
    makerClientId: text(),
    /** The tenant's maker-checker policy the decision was taken under (domain/maker-checker.ts); null: before. */
    makerCheckerPolicy: text(),
    /** Domain `hardshipOfferDecisions`: APPROVED | REJECTED. */
    decision: text().notNull(),
    /** The guardrails version the decision was taken under (the spec's "policy version"). */
    guardrailsVersion: integer().notNull(),
    /** Hex SHA-256 of the canonical offer terms (domain `hardshipOfferTermsHash`). */
    requestHash: text().notNull(),
    decidedAt: instant().notNull(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('hardship_offer_approvals', t),
    tenantReference('hardship_offer_approvals_offer_fk', t, t.offerId, hardshipOffers),
    /** One decision per offer. */
    uniqueIndex('hardship_offer_approvals_tenant_offer_idx').on(t.tenantId, t.offerId),
    uniqueIndex('hardship_offer_approvals_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('hardship_offer_approvals'),
  ],
).enableRLS();
