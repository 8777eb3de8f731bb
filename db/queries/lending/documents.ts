/**
 * Read queries of documents and their append-only history (OpenAPI `GET /v1/documents/{documentId}/history`). Each runs in a tenant-scoped read
 * transaction, so another tenant's document reads as absent.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../client';
import { documentHistory, documents } from '../../schema';
import { withTenantTransaction } from '../../tenant-tx';

/** A document's metadata as the API shows it. */
export interface DocumentView {
  documentId: number;
  resourceId: number;
  title: string;
  documentType: string;
  loanId: number | null;
  customerId: number | null;
  storageRef: string | null;
  /** ISO 8601 instants (UTC, `Z`). */
  createdAt: string;
  updatedAt: string;
}

/** One history item (OpenAPI `GET /v1/documents/{documentId}/history`). */
export interface DocumentHistoryItem {
  /** `DOCUMENT_CREATED` or `TITLE_CHANGED`. */
  action: string;
  /** ISO 8601 instant (UTC, `Z`). */
  occurredAt: string;
  /** The `Service-Actor` of the request that caused it, or null. */
  actorUsername: string | null;
  /** The request id of the request that caused it. */
  correlationId: string | null;
}

/** The tenant's document `documentId`, or null. */
export async function getDocument(
  db: Db,
  tenantId: string,
  documentId: number,
): Promise<DocumentView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(documents)
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId))),
  );
  if (!row) return null;
  return {
    documentId: row.id,
    resourceId: row.id,
    title: row.title,
    documentType: row.documentType,
    loanId: row.loanId,
    customerId: row.customerId,
    storageRef: row.storageRef,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The history of the tenant's document `documentId` in the order it happened, or null when the tenant has no
 * such document. Unpaged, as the spec shows it (`{items}`): a document's history grows only with its own changes.
 */
export async function listDocumentHistory(
  db: Db,
  tenantId: string,
  documentId: number,
): Promise<DocumentHistoryItem[] | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [found] = await tx
      .select({ id: documents.id })
      .from(documents)
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)));
    if (!found) return null;
    const rows = await tx
      .select({
        action: documentHistory.action,
        occurredAt: documentHistory.occurredAt,
        actorUsername: documentHistory.actorUsername,
        correlationId: documentHistory.correlationId,
      })
      .from(documentHistory)
      .where(and(eq(documentHistory.tenantId, tenantId), eq(documentHistory.documentId, documentId)))
      .orderBy(asc(documentHistory.id));
    return rows.map((row) => ({
      action: row.action,
      occurredAt: row.occurredAt.toISOString(),
      actorUsername: row.actorUsername,
      correlationId: row.correlationId,
    }));
  });
}
