/**
 * Hardship assistance policies (spec § Resources "Hardship policy overview"; DESIGN-processes P5 first bullet).
 *
 * - `hardship_guardrail_versions`: the tenant's common guardrails, versions 1, 2, … per tenant, append-only
 *   (custom migration); the highest version is the active one (`activated_at` = its creation).
 * - `hardship_programs`: one row per (tenant, programCode): names, state ACTIVE|RETIRED and the version counter.
 * - `hardship_program_versions`: the program's terms per version (1, 2, …), with the dates they are in effect;
 *   append-only except `effective_to` (set when a later version or the retirement ends the period).
 *
 * Writes serialize per tenant on a transaction advisory lock (activities/servicing/hardship-policies.ts), so
 * numbering is gapless and a program is checked against the guardrails active at commit.
 */
import {
  date,
  foreignKey,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { HardshipGuardrailSettings, HardshipProgramTerms } from '../../domain/servicing/hardship-policy';
import { createdAt, identityId, instant, tenantId, tenantIsolation, tenantKey } from './columns';

export const hardshipGuardrailVersions = pgTable(
  'hardship_guardrail_versions',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** 1, 2, … per tenant; the highest is active. */
    version: integer().notNull(),
    /** The guardrail settings as validated (domain/servicing/hardship-policy.ts); answers rebuild key order. */
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
