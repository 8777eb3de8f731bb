/**
 * Writers of the append-only records that accompany servicing state changes, each idempotent by a
 * business `dedupeKey` (a retried write is a no-op and returns the first row): case effects and
 * tasks (outbox events: activities/platform/outbox.ts). Always called inside the caller's transaction (docs/conventions.md §5).
 */
import { and, eq, getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { caseEffects, cases, tasks } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound } from '../../domain/errors';

export interface EffectInput {
  tenantId: string;
  caseId: number;
  effectType: string;
  subjectType: string;
  subjectId: string | number;
  detail: Record<string, unknown>;
  actor?: string | null;
  correlationId?: string | null;
  occurredAt: Date;
  dedupeKey: string;
}

/** Appends one effect to a case's history (no-op when `dedupeKey` was written before). */
export async function recordEffect(tx: Tx, input: EffectInput): Promise<void> {
  await recordEffects(tx, [input]);
}

/** `recordEffect` for several effects in ONE statement (a multi-row insert; each a no-op if its `dedupeKey` exists). */
export async function recordEffects(tx: Tx, inputs: readonly EffectInput[]): Promise<void> {
  if (inputs.length === 0) return;
  await tx
    .insert(caseEffects)
    .values(
      inputs.map((input) => ({
        tenantId: input.tenantId,
        caseId: input.caseId,
        effectType: input.effectType,
        subjectType: input.subjectType,
        subjectId: String(input.subjectId),
        detail: input.detail,
        actorUsername: input.actor ?? null,
        correlationId: input.correlationId ?? null,
        occurredAt: input.occurredAt,
        dedupeKey: input.dedupeKey,
      })),
    )
    .onConflictDoNothing({ target: [caseEffects.tenantId, caseEffects.dedupeKey] });
}

export interface TaskInput {
  tenantId: string;
  caseId: number | null;
  taskType: string;
  title: string;
  subjectType: string;
  subjectId: string | number;
  dueAt: Date | null;
  dedupeKey: string;
}

/** Opens a task, or returns the one opened before under the same `dedupeKey`. */
export async function openTask(
  tx: Tx,
  input: TaskInput,
): Promise<typeof tasks.$inferSelect & { created: boolean }> {
  const [inserted] = await tx
    .insert(tasks)
    .values({
      tenantId: input.tenantId,
      caseId: input.caseId,
      taskType: input.taskType,
      title: input.title,
      subjectType: input.subjectType,
      subjectId: String(input.subjectId),
      dueAt: input.dueAt,
      dedupeKey: input.dedupeKey,
    })
    .onConflictDoNothing({ target: [tasks.tenantId, tasks.dedupeKey] })
    .returning();
  if (inserted) return { ...inserted, created: true };
  const [existing] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.tenantId, input.tenantId), eq(tasks.dedupeKey, input.dedupeKey)));
  if (!existing) throw new Error(`task ${input.dedupeKey} vanished after a conflict`);
  return { ...existing, created: false };
}

type RequestKeyedTable = PgTable & { tenantId: PgColumn; requestKey: PgColumn };

/**
 * The row that an earlier call with the same request key created, read after an insert's
 * `ON CONFLICT DO NOTHING` returned nothing (a retry, or a concurrent duplicate that committed first).
 */
export async function rowOfRequestKey<T extends RequestKeyedTable>(
  tx: Tx,
  table: T,
  tenantId: string,
  requestKey: string | null | undefined,
): Promise<T['$inferSelect']> {
  const rows = await tx
    .select()
    .from(table as PgTable)
    .where(and(eq(table.tenantId, tenantId), eq(table.requestKey, requestKey ?? '')));
  const row = rows[0] as T['$inferSelect'] | undefined;
  if (!row) throw new Error(`${getTableName(table)} row vanished after a request-key conflict`);
  return row;
}

/** What `holdOpenCase` and the privacy-request intake read of a case they are asked to reference. */
export interface CaseReference {
  customerRef: string;
  status: 'OPEN' | 'CLOSED';
}

/** The case row `caseId` of `tenantId` held `FOR SHARE` until the transaction ends, or undefined. */
export async function shareCase(
  tx: Tx,
  tenantId: string,
  caseId: number,
): Promise<CaseReference | undefined> {
  const [found] = await tx
    .select({ customerRef: cases.customerRef, status: cases.status })
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId)))
    .for('share');
  return found;
}

/**
 * Throws unless the case `found` (read by `shareCase`) may take a new record of `customerRef` (null: the record
 * has no customer of its own, e.g. evidence): 409 `error.msg.case.customer.mismatch` when it is another
 * customer's, 409 `error.msg.case.invalid.state.transition` when it is not OPEN, each naming `caseId`.
 */
export function assertCaseTakesRecords(
  found: CaseReference,
  caseId: number,
  customerRef: string | null,
): void {
  if (customerRef !== null && found.customerRef !== customerRef) {
    const message = `caseId: case ${caseId} belongs to another customer than customerRef.`;
    throw new DomainError('error.msg.case.customer.mismatch', message, {
      errors: [fieldError('caseId', caseId, message, 'error.msg.case.customer.mismatch')],
    });
  }
  if (found.status !== 'OPEN') {
    const message = `caseId: case ${caseId} is ${found.status}; nothing can be added to it.`;
    throw new DomainError('error.msg.case.invalid.state.transition', message, {
      errors: [fieldError('caseId', caseId, message, 'error.msg.case.invalid.state.transition')],
    });
  }
}

/**
 * Checks a case named by a new record (evidence, an interaction) and holds it with `FOR SHARE` until
 * the caller's transaction ends, so a concurrent close (which takes `FOR UPDATE`) waits for the
 * record or sees it. `customerRef`, when given, is the record's customer and must be the case's.
 * Errors (docs/design.md §4 "Scopes and permissions"; docs/design.md §5 rejections, RFC 9110 §15.5.10):
 * - 404 `error.msg.resource.not.found` naming `caseId` when the case is absent or another tenant's;
 * - 409 `error.msg.case.customer.mismatch` naming `caseId` when it belongs to another customer;
 * - 409 `error.msg.case.invalid.state.transition` naming `caseId` when it is not OPEN.
 */
export async function holdOpenCase(
  tx: Tx,
  tenantId: string,
  caseId: number,
  customerRef: string | null,
): Promise<void> {
  const found = await shareCase(tx, tenantId, caseId);
  if (!found) throw referenceNotFound('caseId', caseId, 'Case');
  assertCaseTakesRecords(found, caseId, customerRef);
}
