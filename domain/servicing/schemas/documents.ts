/**
 * Request and response schemas of documents (OpenAPI `POST /v1/documents`, "document records,
 * linkable to a loan"; OpenAPI `GET /v1/documents/{documentId}/history`; `PUT /v1/servicing/documents/{documentId}`). The service keeps metadata only: the
 * bytes live with a storage provider named by `storageRef`. Request bodies are strict; `title` and `reason` are
 * `guardedText` (no government identifier or account number).
 */
import * as v from 'valibot';
import { guardedText, integerId } from '../../validation/fields';
import { locatorRef } from '../../validation/refs';

const id = v.pipe(
  v.number('must be an integer.'),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

/** Path `{documentId}`: a positive integer. */
export const documentIdParam = v.strictObject({ documentId: integerId('documentId') });

/** `POST /v1/documents` body. */
export const createDocumentBody = v.strictObject({
  title: guardedText(200),
  /** Upper-case code of the tenant's choosing, e.g. `LOAN_AGREEMENT`, `HARDSHIP_LETTER`. */
  documentType: v.pipe(
    v.string(),
    v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be an upper-case document type code such as LOAN_AGREEMENT.'),
  ),
  loanId: v.nullish(id),
  customerId: v.nullish(id),
  /** Reference of the stored bytes at the storage provider (opaque to the service). */
  storageRef: v.nullish(locatorRef(1024)),
});

/** `PUT /v1/servicing/documents/{documentId}` body: the new title and why. */
export const changeDocumentTitleBody = v.strictObject({
  title: guardedText(200),
  reason: guardedText(2000),
});

// Responses (for the OpenAPI document).
const timestamp = v.pipe(v.string(), v.isoTimestamp());
export const createdDocumentResponse = v.object({ documentId: v.number(), resourceId: v.number() });
export const documentResponse = v.object({
  documentId: v.number(),
  resourceId: v.number(),
  title: v.string(),
  documentType: v.string(),
  loanId: v.nullable(v.number()),
  customerId: v.nullable(v.number()),
  storageRef: v.nullable(v.string()),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const documentHistoryResponse = v.object({
  items: v.array(
    v.object({
      action: v.pipe(v.string(), v.description('DOCUMENT_CREATED or TITLE_CHANGED')),
      occurredAt: timestamp,
      actorUsername: v.nullable(v.string()),
      correlationId: v.nullable(v.string()),
    }),
  ),
});
export const changedDocumentTitleResponse = v.object({
  resourceId: v.number(),
  changes: v.object({ title: v.string() }),
});
