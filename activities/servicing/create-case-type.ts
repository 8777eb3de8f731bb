/**
 * Adds a case type to a tenant (docs/processes.md P4 "Case types and field definitions"; docs/servicing.md "Case types, field definitions and form entries"). New tenants start with the default case types of
 * activities/platform/ensure-tenant.ts (`ensureTenant`); this operation adds types.
 */
import { and, eq } from 'drizzle-orm';
import { caseTypes } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';

export interface CreateCaseTypeInput extends OperationContext {
  /** Upper-case code, `^[A-Z][A-Z0-9_]{0,63}$`. */
  caseTypeCode: string;
  /** 1–200 characters. */
  displayName: string;
}

export interface CaseTypeResult {
  caseTypeCode: string;
  displayName: string;
  /** ISO 8601 instant (UTC). */
  createdAt: string;
}

/**
 * Adds a case type to the tenant. Idempotent by `requestKey`: a retry returns the type the first call created.
 * Errors: 409 `error.msg.case.type.duplicate` (naming `caseTypeCode`) when the tenant already has the code.
 */
export function createCaseType(deps: Deps) {
  return async (input: CreateCaseTypeInput): Promise<CaseTypeResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [created] = await tx
        .insert(caseTypes)
        .values({
          tenantId: input.tenantId,
          code: input.caseTypeCode,
          displayName: input.displayName,
          createdAt: deps.clock(),
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing()
        .returning();
      let row = created;
      if (!row && input.requestKey) {
        // A retry of the call that created the type (same request key) answers what that call answered.
        [row] = await tx
          .select()
          .from(caseTypes)
          .where(and(eq(caseTypes.tenantId, input.tenantId), eq(caseTypes.requestKey, input.requestKey)));
      }
      if (!row) {
        const message = `caseTypeCode: case type ${input.caseTypeCode} already exists.`;
        throw new DomainError('error.msg.case.type.duplicate', message, {
          errors: [fieldError('caseTypeCode', input.caseTypeCode, message, 'error.msg.case.type.duplicate')],
        });
      }
      return { caseTypeCode: row.code, displayName: row.displayName, createdAt: row.createdAt.toISOString() };
    });
}
