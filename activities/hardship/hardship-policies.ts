/**
 * Hardship policy administration (spec § Resources "Hardship policy overview"; docs/processes.md P5 first bullet):
 * new common-guardrails versions, programs with versions, and retirement. Each operation is one tenant
 * transaction (docs/conventions.md §5) that first takes the tenant's hardship-policy advisory lock, so versions are numbered
 * 1, 2, … without gaps and a program is checked against the guardrails that are active when it commits.
 * Programs that break the ACTIVE guardrails are refused (domain `guardrailViolations`); a stricter guardrails
 * version is accepted and shows in the overview's `portfolioValid`.
 */
import { and, eq, sql } from 'drizzle-orm';
import {
  activeGuardrails,
  type CommonGuardrailsView,
  commonGuardrailsViewOf,
  type HardshipProgramView,
  latestProgramVersion,
  programViewOf,
  tenantToday,
} from '../../db/queries/hardship/hardship-policies';
import {
  caseTypes,
  hardshipGuardrailVersions,
  hardshipPrograms,
  hardshipProgramVersions,
} from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { DomainError, fieldError, notFound, referenceNotFound } from '../../domain/errors';
import {
  guardrailViolations,
  type HardshipGuardrailSettings,
  type HardshipProgramTerms,
  programTermsProblems,
} from '../../domain/hardship/policy';
import type { Deps, OperationContext } from '../deps';

/** Serializes the tenant's hardship-policy writes until commit (transaction-scoped advisory lock). */
async function lockTenantPolicies(tx: Tx, tenantId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`hardship-policy/${tenantId}`}))`);
}

export interface SetHardshipGuardrailsInput extends OperationContext {
  guardrails: HardshipGuardrailSettings;
}

/**
 * Stores the tenant's next guardrails version (1 for the first), active from now (`activatedAt`), and returns the
 * spec's `commonGuardrails`. Programs that the new version invalidates stay as they are; the overview's
 * `portfolioValid` turns false. Idempotent by `requestKey` (a replay returns the version stored first).
 */
export function setHardshipGuardrails(deps: Deps) {
  return async (input: SetHardshipGuardrailsInput): Promise<CommonGuardrailsView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      if (input.requestKey) {
        const [replayed] = await tx
          .select()
          .from(hardshipGuardrailVersions)
          .where(
            and(
              eq(hardshipGuardrailVersions.tenantId, input.tenantId),
              eq(hardshipGuardrailVersions.requestKey, input.requestKey),
            ),
          );
        if (replayed) return commonGuardrailsViewOf(replayed);
      }
      const current = await activeGuardrails(tx, input.tenantId);
      const now = deps.clock();
      const [created] = await tx
        .insert(hardshipGuardrailVersions)
        .values({
          tenantId: input.tenantId,
          version: (current?.version ?? 0) + 1,
          guardrails: input.guardrails,
          activatedAt: now,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!created) throw new Error('hardship guardrails insert returned no row');
      return commonGuardrailsViewOf(created);
    });
}

/**
 * Refuses terms that are inconsistent (400), name a case type the tenant does not have (404 naming
 * `summary.workflow.caseType`: offers open cases of it) or break the active guardrails (409), naming each cause.
 */
async function assertTermsAllowed(tx: Tx, tenantId: string, terms: HardshipProgramTerms): Promise<void> {
  const problems = programTermsProblems(terms);
  if (problems.length > 0) {
    throw new DomainError(
      'validation.msg.validation.errors.exist',
      problems.map((p) => p.message).join(' '),
      { errors: problems.map((p) => fieldError(p.parameterName, p.value, p.message)) },
    );
  }
  const [caseType] = await tx
    .select({ code: caseTypes.code })
    .from(caseTypes)
    .where(and(eq(caseTypes.tenantId, tenantId), eq(caseTypes.code, terms.workflow.caseType)));
  if (!caseType) throw referenceNotFound('summary.workflow.caseType', terms.workflow.caseType, 'Case type');
  const guardrails = await activeGuardrails(tx, tenantId);
  if (!guardrails) throw new DomainError('error.msg.hardship.guardrails.missing');
  const violations = guardrailViolations(guardrails.guardrails, terms);
  if (violations.length > 0) {
    const code = 'error.msg.hardship.program.guardrail.violation';
    throw new DomainError(code, violations.map((v) => v.message).join(' '), {
      errors: violations.map((v) =>
        fieldError(v.parameterName, v.value, v.message, `${code}.${v.guardrail}`, [
          { guardrail: v.guardrail, guardrailVersion: guardrails.version },
        ]),
      ),
    });
  }
}

async function programRow(tx: Tx, tenantId: string, programCode: string, forUpdate: boolean) {
  const query = tx
    .select()
    .from(hardshipPrograms)
    .where(and(eq(hardshipPrograms.tenantId, tenantId), eq(hardshipPrograms.programCode, programCode)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

/** The program and its version stored under `requestKey`, when this request already ran. */
async function replayedVersion(
  tx: Tx,
  tenantId: string,
  requestKey: string | null | undefined,
): Promise<HardshipProgramView | null> {
  if (!requestKey) return null;
  const [version] = await tx
    .select()
    .from(hardshipProgramVersions)
    .where(
      and(eq(hardshipProgramVersions.tenantId, tenantId), eq(hardshipProgramVersions.requestKey, requestKey)),
    );
  if (!version) return null;
  const program = await programRow(tx, tenantId, version.programCode, false);
  return program ? programViewOf(program, version) : null;
}

export interface CreateHardshipProgramInput extends OperationContext {
  programCode: string;
  displayName: string;
  hardshipReasonCode: string;
  description: string;
  /** ISO date, first day of version 1. */
  effectiveFrom: string;
  terms: HardshipProgramTerms;
}

/**
 * Creates a program (state ACTIVE) with its version 1 in effect from `effectiveFrom`, and returns it in the
 * overview's program shape. Errors, nothing stored: 400 naming `summary.straightThroughMaximum` when above
 * `humanApprovalMaximum`; 409 `error.msg.hardship.guardrails.missing` before the tenant's first guardrails; 409
 * `error.msg.hardship.program.guardrail.violation` with one field error per broken guardrail (its code ends with
 * the guardrail's name; `args[0].guardrail` names it); 409 `error.msg.hardship.program.duplicate` naming
 * `programCode` when the tenant has it already. Idempotent by `requestKey`.
 */
export function createHardshipProgram(deps: Deps) {
  return async (input: CreateHardshipProgramInput): Promise<HardshipProgramView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      const replayed = await replayedVersion(tx, input.tenantId, input.requestKey);
      if (replayed) return replayed;
      if (await programRow(tx, input.tenantId, input.programCode, false)) {
        const message = `programCode: a hardship program ${input.programCode} already exists.`;
        throw new DomainError('error.msg.hardship.program.duplicate', message, {
          errors: [
            fieldError('programCode', input.programCode, message, 'error.msg.hardship.program.duplicate'),
          ],
        });
      }
      await assertTermsAllowed(tx, input.tenantId, input.terms);
      const now = deps.clock();
      const [program] = await tx
        .insert(hardshipPrograms)
        .values({
          tenantId: input.tenantId,
          programCode: input.programCode,
          displayName: input.displayName,
          hardshipReasonCode: input.hardshipReasonCode,
          description: input.description,
          state: 'ACTIVE',
          versionCount: 1,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      const [version] = await tx
        .insert(hardshipProgramVersions)
        .values({
          tenantId: input.tenantId,
          programCode: input.programCode,
          version: 1,
          effectiveFrom: input.effectiveFrom,
          effectiveTo: null,
          terms: input.terms,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!program || !version) throw new Error('hardship program insert returned no row');
      return programViewOf(program, version);
    });
}

export interface CreateHardshipProgramVersionInput extends OperationContext {
  programCode: string;
  /** ISO date: today or later (tenant calendar) and after the previous version's `effectiveFrom`. */
  effectiveFrom: string;
  terms: HardshipProgramTerms;
}

function invalidState(programCode: string): DomainError {
  const code = 'error.msg.hardship.program.invalid.state.transition';
  const message = `programCode: hardship program ${programCode} is RETIRED.`;
  return new DomainError(code, message, { errors: [fieldError('programCode', programCode, message, code)] });
}

/**
 * Adds the program's next version, in effect from `effectiveFrom`; the previous version's `effectiveTo` becomes
 * the day before. Returns the program with the new version. Errors, nothing stored: 404 for an unknown program
 * (or another tenant's); 409 `error.msg.hardship.program.invalid.state.transition` when RETIRED; 400 naming
 * `effectiveFrom` when before today (tenant time zone) or not after the previous version's `effectiveFrom`; the
 * term and guardrail errors of `createHardshipProgram`. Idempotent by `requestKey`.
 */
export function createHardshipProgramVersion(deps: Deps) {
  return async (input: CreateHardshipProgramVersionInput): Promise<HardshipProgramView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      const replayed = await replayedVersion(tx, input.tenantId, input.requestKey);
      if (replayed) return replayed;
      const program = await programRow(tx, input.tenantId, input.programCode, true);
      if (!program) throw notFound('Hardship program', input.programCode);
      if (program.state !== 'ACTIVE') throw invalidState(input.programCode);
      const previous = await latestProgramVersion(tx, input.tenantId, input.programCode);
      if (!previous) throw new Error(`hardship program ${input.programCode} has no version`);
      const now = deps.clock();
      const today = await tenantToday(tx, input.tenantId, now);
      if (input.effectiveFrom < today || input.effectiveFrom <= previous.effectiveFrom) {
        const message = `effectiveFrom must be today (${today}) or later and after version ${previous.version}'s effectiveFrom ${previous.effectiveFrom}.`;
        throw new DomainError('validation.msg.validation.errors.exist', message, {
          errors: [fieldError('effectiveFrom', input.effectiveFrom, message)],
        });
      }
      await assertTermsAllowed(tx, input.tenantId, input.terms);
      await tx
        .update(hardshipProgramVersions)
        .set({ effectiveTo: addDays(input.effectiveFrom, -1) })
        .where(
          and(
            eq(hardshipProgramVersions.tenantId, input.tenantId),
            eq(hardshipProgramVersions.id, previous.id),
          ),
        );
      const [version] = await tx
        .insert(hardshipProgramVersions)
        .values({
          tenantId: input.tenantId,
          programCode: input.programCode,
          version: program.versionCount + 1,
          effectiveFrom: input.effectiveFrom,
          effectiveTo: null,
          terms: input.terms,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      const [updated] = await tx
        .update(hardshipPrograms)
        .set({ versionCount: program.versionCount + 1, updatedAt: now })
        .where(
          and(
            eq(hardshipPrograms.tenantId, input.tenantId),
            eq(hardshipPrograms.programCode, input.programCode),
          ),
        )
        .returning();
      if (!version || !updated) throw new Error('hardship program version insert returned no row');
      return programViewOf(updated, version);
    });
}

export interface RetireHardshipProgramInput extends OperationContext {
  programCode: string;
  /** ISO date, last day in effect; default today (tenant time zone). */
  effectiveTo?: string | undefined;
}

/**
 * Retires the program: state RETIRED, and its latest version's `effectiveTo` set (default today, tenant time
 * zone). Returns the program with that version. A RETIRED program no longer counts for `portfolioValid`.
 * Errors, nothing changed: 404 unknown program; 409 `error.msg.hardship.program.invalid.state.transition` when
 * already RETIRED; 400 naming `effectiveTo` when before today or before the latest version's `effectiveFrom`.
 */
export function retireHardshipProgram(deps: Deps) {
  return async (input: RetireHardshipProgramInput): Promise<HardshipProgramView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      const program = await programRow(tx, input.tenantId, input.programCode, true);
      if (!program) throw notFound('Hardship program', input.programCode);
      if (program.state !== 'ACTIVE') throw invalidState(input.programCode);
      const latest = await latestProgramVersion(tx, input.tenantId, input.programCode);
      if (!latest) throw new Error(`hardship program ${input.programCode} has no version`);
      const now = deps.clock();
      const today = await tenantToday(tx, input.tenantId, now);
      const effectiveTo = input.effectiveTo ?? today;
      if (effectiveTo < today || effectiveTo < latest.effectiveFrom) {
        const message = `effectiveTo must be today (${today}) or later and not before version ${latest.version}'s effectiveFrom ${latest.effectiveFrom}.`;
        throw new DomainError('validation.msg.validation.errors.exist', message, {
          errors: [fieldError('effectiveTo', effectiveTo, message)],
        });
      }
      const [version] = await tx
        .update(hardshipProgramVersions)
        .set({ effectiveTo })
        .where(
          and(
            eq(hardshipProgramVersions.tenantId, input.tenantId),
            eq(hardshipProgramVersions.id, latest.id),
          ),
        )
        .returning();
      const [updated] = await tx
        .update(hardshipPrograms)
        .set({ state: 'RETIRED', retiredAt: now, updatedAt: now })
        .where(
          and(
            eq(hardshipPrograms.tenantId, input.tenantId),
            eq(hardshipPrograms.programCode, input.programCode),
          ),
        )
        .returning();
      if (!version || !updated) throw new Error('hardship program vanished under its lock');
      return programViewOf(updated, version);
    });
}
