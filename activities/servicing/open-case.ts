import { and, eq } from 'drizzle-orm';
import { cases, caseTypes } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { recordEffect, rowOfRequestKey } from './records';

export interface OpenCaseInput extends OperationContext {
  customerRef: string;
  /** One of the tenant's case types (GENERAL, PRIVACY, HARDSHIP, COMPLAINT by default). */
  caseTypeCode: string;
  summary: string;
}

export interface OpenCaseResult {
  caseId: number;
  status: 'OPEN' | 'CLOSED';
}

/**
 * Opens a servicing case and records `CASE_OPENED` in its effects.
 * Idempotent by `requestKey`: a retry returns the case the first call opened.
 * Errors: 400 `validation.msg.validation.errors.exist` (parameterName `caseTypeCode`) when the
 * tenant has no such case type.
 */
export function openCase(deps: Deps) {
  return async (input: OpenCaseInput): Promise<OpenCaseResult> =>
    withTenantTransaction(deps.db, input.tenantId, (tx) => openCaseInTx(tx, input, deps.clock()));
}

/**
 * `openCase` in the caller's tenant transaction `tx` (the same checks, rows and effect; `now` the operation's clock
 * reading): also the close of business's collections case (activities/lending/close-loan-business-day.ts).
 * Errors: those of `openCase`.
 */
export async function openCaseInTx(tx: Tx, input: OpenCaseInput, now: Date): Promise<OpenCaseResult> {
  const [caseType] = await tx
    .select({ code: caseTypes.code })
    .from(caseTypes)
    .where(and(eq(caseTypes.tenantId, input.tenantId), eq(caseTypes.code, input.caseTypeCode)));
  if (!caseType)
    throw validationError('caseTypeCode', input.caseTypeCode, `Unknown case type ${input.caseTypeCode}.`);
  const [created] = await tx
    .insert(cases)
    .values({
      tenantId: input.tenantId,
      customerRef: input.customerRef,
      caseTypeCode: input.caseTypeCode,
      summary: input.summary,
      openedAt: now,
      updatedAt: now,
      requestKey: input.requestKey ?? null,
    })
    .onConflictDoNothing({ target: [cases.tenantId, cases.requestKey] })
    .returning({ id: cases.id, status: cases.status });
  if (!created) {
    const existing = await rowOfRequestKey(tx, cases, input.tenantId, input.requestKey);
    return { caseId: existing.id, status: existing.status };
  }
  await recordEffect(tx, {
    tenantId: input.tenantId,
    caseId: created.id,
    effectType: 'CASE_OPENED',
    subjectType: 'case',
    subjectId: created.id,
    detail: { caseTypeCode: input.caseTypeCode, customerRef: input.customerRef },
    actor: input.actor,
    correlationId: input.correlationId,
    occurredAt: now,
    dedupeKey: `case/${created.id}/opened`,
  });
  return { caseId: created.id, status: created.status };
}
