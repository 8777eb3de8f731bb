/**
 * Portfolio boarding (docs/processes.md P3). Tenant-owned, under row-level security (docs/design.md §3):
 * - `boarding_batches`: one row per upload (the batchId), its file name, line count, status as last recorded by
 *   the process, counts snapshot and times;
 * - `boarding_lines`: every staged line of a batch (`raw` as uploaded, identifier values encrypted, purged after
 *   the batch finished and its retention passed; loaded with COPY through a temporary table,
 *   since COPY FROM does not run on a table under row-level security), its parsed kind and source refs, its state
 *   (PENDING, BOARDED, FAILED, SKIPPED), its Shape A error when FAILED, and the id of what it created;
 * - `boarding_source_refs`: what a source ref boarded, per (tenant, kind, sourceRef), written in the same
 *   transaction as the resource: the idempotency of boarding across retries, crashes and re-uploads (kinds without
 *   a natural source key of their own, charges and products, rely on it; the others also carry externalId /
 *   externalRecordRef = sourceRef).
 */
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { BoardingCounts } from '../../../domain/boarding/batch';
import type { ShapeABody } from '../../../domain/errors';
import {
  createdAt,
  identityId,
  instant,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';

export const boardingBatches = pgTable(
  'boarding_batches',
  {
    /** The batchId. */
    id: identityId(),
    tenantId: tenantId(),
    /** The uploaded file's name (`?fileName=` or the CLI's), or null. */
    fileName: text(),
    /** Lines staged (lines numbered from 1; blank lines are not staged). */
    records: integer().notNull(),
    /** Lines that were not JSON objects of the line shape `{kind, sourceRef, body}`. */
    malformed: integer().notNull().default(0),
    /** domain `boardingBatchStatuses`, as last recorded by the process (the process's query is fresher). */
    status: text().notNull(),
    /** Counts per kind as last recorded by the process. */
    counts: jsonb().$type<BoardingCounts>(),
    /** SHA-256 (hex) of the uploaded bytes: a second upload of the same file is a new batch that boards nothing new. */
    contentSha256: text().notNull(),
    /** `Service-Actor` of the upload, if any. */
    createdBy: text(),
    createdAt: createdAt(),
    startedAt: instant(),
    completedAt: instant(),
    /**
     * When the raw text of the batch's lines was purged (activities/boarding/purge.ts: a finished batch, after the
     * retention period), or null while it is kept.
     */
    rawPurgedAt: instant(),
    /** `<clientId>/<Idempotency-Key>` of the upload, when sent: a retry with the same key answers this batch. */
    requestKey: text(),
  },
  (t) => [
    tenantKey('boarding_batches', t),
    uniqueIndex('boarding_batches_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('boarding_batches'),
  ],
).enableRLS();

export const boardingLines = pgTable(
  'boarding_lines',
  {
    tenantId: tenantId(),
    batchId: bigint({ mode: 'number' }).notNull(),
    /** 1-based line number in the uploaded file. */
    lineNo: integer().notNull(),
    /**
     * The line as uploaded (UTF-8 text, without its line break), identifier values encrypted
     * (activities/boarding/line-crypto.ts); null once purged, after the batch finished and its retention passed
     * (activities/boarding/purge.ts). The line's kind, refs, state and error stay.
     */
    raw: text(),
    /** Parsed at validation: the line's kind (null while unparsed or when malformed). */
    kind: text(),
    sourceRef: text(),
    /** The source ref of the loan a funding / payment belongs to, of the customer a restriction / verification / loan belongs to. */
    parentSourceRef: text(),
    /** domain `boardingLineStates`. */
    state: text().notNull().default('PENDING'),
    /** Shape A error body of a FAILED line. */
    error: jsonb().$type<ShapeABody>(),
    /** What the line created (customerId, loanId, paymentId, …), when BOARDED. */
    resourceId: bigint({ mode: 'number' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.batchId, t.lineNo] }),
    tenantReference('boarding_lines_batch_fk', t, t.batchId, boardingBatches),
    index('boarding_lines_tenant_batch_kind_idx').on(t.tenantId, t.batchId, t.kind, t.lineNo),
    index('boarding_lines_tenant_batch_parent_idx').on(t.tenantId, t.batchId, t.parentSourceRef),
    // Cross references and duplicates at validation look lines up by (kind, sourceRef) (activities/boarding).
    index('boarding_lines_tenant_batch_kind_ref_idx').on(t.tenantId, t.batchId, t.kind, t.sourceRef),
    tenantIsolation('boarding_lines'),
  ],
).enableRLS();

export const boardingSourceRefs = pgTable(
  'boarding_source_refs',
  {
    tenantId: tenantId(),
    kind: text().notNull(),
    sourceRef: text().notNull(),
    /** The id of what it boarded (chargeId, productId, customerId, restrictionId, loanId, fundingId, paymentId, …). */
    resourceId: bigint({ mode: 'number' }).notNull(),
    /** The batch that boarded it first. */
    batchId: bigint({ mode: 'number' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.kind, t.sourceRef] }),
    tenantIsolation('boarding_source_refs'),
  ],
).enableRLS();
