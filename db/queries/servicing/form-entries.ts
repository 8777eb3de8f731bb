/**
 * Reads of case types, their field-definition publications and form entries (docs/processes.md P4). Each runs
 * in a tenant-scoped read transaction, so row-level security confines it to `tenantId`.
 */
import { and, asc, desc, eq } from 'drizzle-orm';
import type { AnswerChange, Answers, FieldDefinitions } from '../../../domain/servicing/form-fields';
import type { Db } from '../../client';
import { cases, caseTypeFieldPublications, caseTypes, formEntries, formEntryHistory } from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

/** A form entry as the API shows it. */
export interface FormEntryView {
  entryId: number;
  resourceId: number;
  caseId: number;
  publicationId: number;
  /** Field key → answer; unanswered fields are absent. */
  answers: Answers;
  /** ISO 8601 instants (UTC). */
  createdAt: string;
  updatedAt: string;
}

/** The API view of a `form_entries` row (instants as ISO strings). */
export function formEntryView(row: typeof formEntries.$inferSelect): FormEntryView {
  return {
    entryId: row.id,
    resourceId: row.id,
    caseId: row.caseId,
    publicationId: row.publicationId,
    answers: row.answers,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Case types by code, offset-paged; returns `limit + 1` rows at most (the extra one means hasMore). */
export async function listCaseTypes(db: Db, tenantId: string, page: { limit: number; offset: number }) {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(caseTypes)
      .where(eq(caseTypes.tenantId, tenantId))
      .orderBy(asc(caseTypes.code))
      .limit(page.limit + 1)
      .offset(page.offset),
  );
  return rows.map((row) => ({
    caseTypeCode: row.code,
    displayName: row.displayName,
    createdAt: row.createdAt.toISOString(),
  }));
}

/**
 * The latest field definitions of a case type: `{caseTypeCode, publicationId, version, fieldDefinitions}`, with
 * `publicationId` and `version` null and no sections when nothing was published yet; null when the tenant has
 * no such case type.
 */
export async function getLatestFieldDefinitions(
  db: Db,
  tenantId: string,
  caseTypeCode: string,
): Promise<{
  caseTypeCode: string;
  publicationId: number | null;
  version: number | null;
  fieldDefinitions: FieldDefinitions;
} | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [caseType] = await tx
      .select({ code: caseTypes.code })
      .from(caseTypes)
      .where(and(eq(caseTypes.tenantId, tenantId), eq(caseTypes.code, caseTypeCode)));
    if (!caseType) return null;
    const [latest] = await tx
      .select()
      .from(caseTypeFieldPublications)
      .where(
        and(
          eq(caseTypeFieldPublications.tenantId, tenantId),
          eq(caseTypeFieldPublications.caseTypeCode, caseTypeCode),
        ),
      )
      .orderBy(desc(caseTypeFieldPublications.version))
      .limit(1);
    return {
      caseTypeCode,
      publicationId: latest?.id ?? null,
      version: latest?.version ?? null,
      fieldDefinitions: latest?.fieldDefinitions ?? { sections: [] },
    };
  });
}

/** A form entry of the tenant as the API shows it, or null. */
export async function getFormEntry(db: Db, tenantId: string, entryId: number): Promise<FormEntryView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(formEntries)
      .where(and(eq(formEntries.tenantId, tenantId), eq(formEntries.id, entryId))),
  );
  return row ? formEntryView(row) : null;
}

/**
 * A case's form entries newest first, offset-paged; returns `limit + 1` rows at most (the extra one means
 * hasMore), or null when the tenant has no such case.
 */
export async function listFormEntries(
  db: Db,
  tenantId: string,
  filter: { caseId: number; limit: number; offset: number },
): Promise<FormEntryView[] | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [found] = await tx
      .select({ id: cases.id })
      .from(cases)
      .where(and(eq(cases.tenantId, tenantId), eq(cases.id, filter.caseId)));
    if (!found) return null;
    const rows = await tx
      .select()
      .from(formEntries)
      .where(and(eq(formEntries.tenantId, tenantId), eq(formEntries.caseId, filter.caseId)))
      .orderBy(desc(formEntries.id))
      .limit(filter.limit + 1)
      .offset(filter.offset);
    return rows.map(formEntryView);
  });
}

/** One history item (docs/servicing.md "Case types, field definitions and form entries"). */
export interface FormEntryHistoryItem {
  /** ANSWERS_CREATED, ANSWERS_UPDATED. */
  action: string;
  publicationId: number;
  changes: AnswerChange[];
  /** The update's reason; null for ANSWERS_CREATED. */
  reason: string | null;
  /** `Service-Actor` of the request; null when none was sent. */
  actorDisplayName: string | null;
  occurredAt: string;
}

/** A form entry's history in the order it happened, or null when the tenant has no such entry. */
export async function listFormEntryHistory(
  db: Db,
  tenantId: string,
  entryId: number,
): Promise<FormEntryHistoryItem[] | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [entry] = await tx
      .select({ id: formEntries.id })
      .from(formEntries)
      .where(and(eq(formEntries.tenantId, tenantId), eq(formEntries.id, entryId)));
    if (!entry) return null;
    const rows = await tx
      .select()
      .from(formEntryHistory)
      .where(and(eq(formEntryHistory.tenantId, tenantId), eq(formEntryHistory.entryId, entryId)))
      .orderBy(asc(formEntryHistory.id));
    return rows.map((row) => ({
      action: row.action,
      publicationId: row.publicationId,
      changes: row.changes,
      reason: row.reason,
      actorDisplayName: row.actorUsername,
      occurredAt: row.occurredAt.toISOString(),
    }));
  });
}
