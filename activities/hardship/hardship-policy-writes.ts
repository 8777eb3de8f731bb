/**
 * What the hardship-policy operations share (docs/servicing.md "Hardship policies"; docs/processes.md P5 first
 * bullet): the tenant's hardship-policy advisory lock that each of them takes first, so versions are numbered 1, 2, …
 * without gaps and a program is checked against the guardrails that are active when it commits; the check of a
 * program's terms against the ACTIVE guardrails (domain `guardrailViolations`); the program row; the version stored
 * under a `requestKey`; and the RETIRED-program error.
 */
import { and, eq, sql } from 'drizzle-orm';
import {
  activeGuardrails,
  type HardshipProgramView,
  programViewOf,
} from '../../db/queries/hardship/hardship-policies';
import { caseTypes, hardshipPrograms, hardshipProgramVersions } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound } from '../../domain/errors';
import {
  guardrailViolations,
  type HardshipProgramTerms,
  programTermsProblems,
} from '../../domain/hardship/policy';

/** Serializes the tenant's hardship-policy writes until commit (transaction-scoped advisory lock). */
export async function lockTenantPolicies(tx: Tx, tenantId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`hardship-policy/${tenantId}`}))`);
}

/**
 * Refuses terms that are inconsistent (400), name a case type the tenant does not have (404 naming
 * `summary.workflow.caseType`: offers open cases of it) or break the active guardrails (409), naming each cause.
 */
export async function assertTermsAllowed(
  tx: Tx,
  tenantId: string,
  terms: HardshipProgramTerms,
): Promise<void> {
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

export async function programRow(tx: Tx, tenantId: string, programCode: string, forUpdate: boolean) {
  const query = tx
    .select()
    .from(hardshipPrograms)
    .where(and(eq(hardshipPrograms.tenantId, tenantId), eq(hardshipPrograms.programCode, programCode)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

/** The program and its version stored under `requestKey`, when this request already ran. */
export async function replayedVersion(
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

export function invalidState(programCode: string): DomainError {
  const code = 'error.msg.hardship.program.invalid.state.transition';
  const message = `programCode: hardship program ${programCode} is RETIRED.`;
  return new DomainError(code, message, { errors: [fieldError('programCode', programCode, message, code)] });
}
