import { and, eq } from 'drizzle-orm';
import { customers, documentHistory, documents, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { rowOfRequestKey } from '../servicing/records';

export interface CreateDocumentInput extends OperationContext {
  /** 1–200 characters. */
  title: string;
  /** Upper-case code, e.g. `LOAN_AGREEMENT`. */
  documentType: string;
  /** A loan of the tenant, or null. */
  loanId?: number | null;
  /** A customer of the tenant, or null. */
  customerId?: number | null;
  /** Where the bytes live at the storage provider; the service keeps metadata only. */
  storageRef?: string | null;
}

export interface CreateDocumentResult {
  documentId: number;
}

/**
 * Records a document's metadata, optionally linked to a loan and a customer of the tenant (OpenAPI `POST /v1/documents`), and appends `DOCUMENT_CREATED` to its history with the actor
 * (`Service-Actor`) and the correlation id (request id), in one transaction (docs/design.md §3: history is append-only).
 * Idempotent by `requestKey`: a retry returns the document the first call recorded and writes no second item.
 * Errors: 400 `validation.msg.validation.errors.exist` (parameterName `loanId` or `customerId`) when the linked
 * loan or customer is not the tenant's.
 */
export function createDocument(deps: Deps) {
  return async (input: CreateDocumentInput): Promise<CreateDocumentResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loanId = input.loanId ?? null;
      const customerId = input.customerId ?? null;
      if (loanId !== null) {
        const [loan] = await tx
          .select({ id: loans.id })
          .from(loans)
          .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, loanId)));
        if (!loan) throw validationError('loanId', loanId, `Loan ${loanId} was not found.`);
      }
      if (customerId !== null) {
        const [customer] = await tx
          .select({ id: customers.id })
          .from(customers)
          .where(and(eq(customers.tenantId, input.tenantId), eq(customers.id, customerId)));
        if (!customer)
          throw validationError('customerId', customerId, `Customer ${customerId} was not found.`);
      }
      const now = deps.clock();
      const [created] = await tx
        .insert(documents)
        .values({
          tenantId: input.tenantId,
          title: input.title,
          documentType: input.documentType,
          loanId,
          customerId,
          storageRef: input.storageRef ?? null,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [documents.tenantId, documents.requestKey] })
        .returning({ id: documents.id });
      if (!created) {
        const existing = await rowOfRequestKey(tx, documents, input.tenantId, input.requestKey);
        return { documentId: existing.id };
      }
      await tx.insert(documentHistory).values({
        tenantId: input.tenantId,
        documentId: created.id,
        action: 'DOCUMENT_CREATED',
        detail: { title: input.title, documentType: input.documentType, loanId, customerId },
        actorUsername: input.actor ?? null,
        correlationId: input.correlationId ?? null,
        occurredAt: now,
      });
      return { documentId: created.id };
    });
}
