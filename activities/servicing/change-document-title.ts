import { and, eq, sql } from 'drizzle-orm';
import { documentHistory, documents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';

export interface ChangeDocumentTitleInput extends OperationContext {
  documentId: number;
  /** The new title, 1–200 characters. */
  title: string;
  /** Why the title changes (kept in the history item's detail), 1–2000 characters. */
  reason: string;
}

export interface ChangeDocumentTitleResult {
  documentId: number;
  /** The title in effect after the call. */
  title: string;
}

/**
 * Changes a document's title with a reason (`PUT /v1/servicing/documents/{documentId}` of the OpenAPI document, a
 * servicing operation on the document a lending route created) and appends `TITLE_CHANGED` to its history
 * (`detail: {before, after, reason}`, with the actor and the correlation id) in the same transaction.
 * The document row is locked (`FOR UPDATE`), so concurrent changes apply one after the other.
 * Idempotent: a retry under the same `requestKey` finds the history item it wrote and returns without writing
 * again; a title equal to the current one changes nothing and writes no item.
 * Errors: 404 `error.msg.resource.not.found` when the document is not the tenant's.
 */
export function changeDocumentTitle(deps: Deps) {
  return async (input: ChangeDocumentTitleInput): Promise<ChangeDocumentTitleResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [current] = await tx
        .select({ id: documents.id, title: documents.title })
        .from(documents)
        .where(and(eq(documents.tenantId, input.tenantId), eq(documents.id, input.documentId)))
        .for('update');
      if (!current) throw notFound('Document', input.documentId);
      if (input.requestKey) {
        const [done] = await tx
          .select({ detail: documentHistory.detail })
          .from(documentHistory)
          .where(
            and(
              eq(documentHistory.tenantId, input.tenantId),
              eq(documentHistory.documentId, input.documentId),
              eq(documentHistory.action, 'TITLE_CHANGED'),
              sql`${documentHistory.detail}->>'requestKey' = ${input.requestKey}`,
            ),
          );
        if (done) return { documentId: current.id, title: String(done.detail.after) };
      }
      if (current.title === input.title) return { documentId: current.id, title: current.title };
      const now = deps.clock();
      await tx
        .update(documents)
        .set({ title: input.title, updatedAt: now })
        .where(and(eq(documents.tenantId, input.tenantId), eq(documents.id, input.documentId)));
      await tx.insert(documentHistory).values({
        tenantId: input.tenantId,
        documentId: input.documentId,
        action: 'TITLE_CHANGED',
        detail: {
          before: current.title,
          after: input.title,
          reason: input.reason,
          requestKey: input.requestKey ?? null,
        },
        actorUsername: input.actor ?? null,
        correlationId: input.correlationId ?? null,
        occurredAt: now,
      });
      return { documentId: current.id, title: input.title };
    });
}
