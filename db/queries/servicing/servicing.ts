/**
 * Read queries of the servicing context. Each runs in a tenant-scoped read transaction, so
 * row-level security confines it to `tenantId` even where a filter were missing.
 */
import { and, asc, desc, eq, gt, type SQL } from 'drizzle-orm';
import type { Db } from '../../client';
import {
  caseEffects,
  cases,
  evidence,
  interactions,
  privacyRequestEvidence,
  privacyRequests,
  tasks,
} from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A case as the API shows it, or null. */
export async function getCase(db: Db, tenantId: string, caseId: number) {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(cases)
      .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId))),
  );
  if (!row) return null;
  return {
    caseId: row.id,
    resourceId: row.id,
    customerRef: row.customerRef,
    caseTypeCode: row.caseTypeCode,
    summary: row.summary,
    status: row.status,
    outcomeCode: row.outcomeCode,
    closureReason: row.closureReason,
    openedAt: row.openedAt.toISOString(),
    closedAt: iso(row.closedAt),
  };
}

/**
 * One page of a case's effects in the order they happened, keyset-paged on the effect id:
 * `afterId` is the last id of the previous page. Returns `limit + 1` rows at most so the
 * caller can tell whether more follow.
 */
export async function listCaseEffects(
  db: Db,
  tenantId: string,
  caseId: number,
  page: { afterId: number | null; limit: number },
) {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(caseEffects)
      .where(
        and(
          eq(caseEffects.tenantId, tenantId),
          eq(caseEffects.caseId, caseId),
          page.afterId === null ? undefined : gt(caseEffects.id, page.afterId),
        ),
      )
      .orderBy(asc(caseEffects.id))
      .limit(page.limit + 1),
  );
  return rows.map((row) => ({
    effectId: row.id,
    caseId: row.caseId,
    effectType: row.effectType,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    detail: row.detail,
    actorUsername: row.actorUsername,
    correlationId: row.correlationId,
    occurredAt: row.occurredAt.toISOString(),
  }));
}

function taskView(row: typeof tasks.$inferSelect) {
  return {
    taskId: row.id,
    resourceId: row.id,
    caseId: row.caseId,
    taskType: row.taskType,
    title: row.title,
    status: row.status,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    dueAt: iso(row.dueAt),
    createdAt: row.createdAt.toISOString(),
    completedAt: iso(row.completedAt),
    completedBy: row.completedBy,
    completionNote: row.completionNote,
  };
}

export async function getTask(db: Db, tenantId: string, taskId: number) {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.tenantId, tenantId), eq(tasks.id, taskId))),
  );
  return row ? taskView(row) : null;
}

/** Tasks newest first, offset-paged; returns `limit + 1` rows at most (the extra one means hasMore). */
export async function listTasks(
  db: Db,
  tenantId: string,
  filter: {
    caseId?: number | undefined;
    status?: 'OPEN' | 'COMPLETED' | 'CANCELLED' | undefined;
    limit: number;
    offset: number;
  },
) {
  const conditions: (SQL | undefined)[] = [eq(tasks.tenantId, tenantId)];
  if (filter.caseId !== undefined) conditions.push(eq(tasks.caseId, filter.caseId));
  if (filter.status !== undefined) conditions.push(eq(tasks.status, filter.status));
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(tasks)
      .where(and(...conditions))
      .orderBy(desc(tasks.id))
      .limit(filter.limit + 1)
      .offset(filter.offset),
  );
  return rows.map(taskView);
}

export async function getInteraction(db: Db, tenantId: string, interactionId: number) {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(interactions)
      .where(and(eq(interactions.tenantId, tenantId), eq(interactions.id, interactionId))),
  );
  if (!row) return null;
  return {
    interactionId: row.id,
    resourceId: row.id,
    customerRef: row.customerRef,
    caseId: row.caseId,
    channel: row.channel,
    direction: row.direction,
    summary: row.summary,
    actorUsername: row.actorUsername,
    occurredAt: row.occurredAt.toISOString(),
  };
}

export async function getEvidence(db: Db, tenantId: string, evidenceId: number) {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(evidence)
      .where(and(eq(evidence.tenantId, tenantId), eq(evidence.id, evidenceId))),
  );
  if (!row) return null;
  return {
    evidenceId: row.id,
    resourceId: row.id,
    caseId: row.caseId,
    evidenceType: row.evidenceType,
    description: row.description,
    documentId: row.documentId,
    actorUsername: row.actorUsername,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A privacy request with its attached evidence ids, or null. */
export async function getPrivacyRequest(db: Db, tenantId: string, requestId: number) {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [row] = await tx
      .select()
      .from(privacyRequests)
      .where(and(eq(privacyRequests.tenantId, tenantId), eq(privacyRequests.id, requestId)));
    if (!row) return null;
    const attached = await tx
      .select({ evidenceId: privacyRequestEvidence.evidenceId })
      .from(privacyRequestEvidence)
      .where(
        and(eq(privacyRequestEvidence.tenantId, tenantId), eq(privacyRequestEvidence.requestId, requestId)),
      )
      .orderBy(asc(privacyRequestEvidence.evidenceId));
    return {
      requestId: row.id,
      resourceId: row.id,
      customerRef: row.customerRef,
      requestType: row.requestType,
      regime: row.regime,
      summary: row.summary,
      caseId: row.caseId,
      sourceInteractionId: row.sourceInteractionId,
      status: row.status,
      receivedAt: row.receivedAt.toISOString(),
      statutoryDueAt: row.statutoryDueAtText,
      reviewTaskId: row.reviewTaskId,
      outcome: row.outcome,
      outcomeReason: row.outcomeReason,
      fulfilledAt: iso(row.fulfilledAt),
      evidenceIds: attached.map((a) => a.evidenceId),
      workflowId: row.workflowId,
    };
  });
}
