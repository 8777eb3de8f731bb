/**
 * Delinquency configuration (Apache Fineract's `m_delinquency_range`, `m_delinquency_bucket` and
 * `m_delinquency_bucket_mappings`; docs/lending.md "Delinquency configuration"): the ranges of days past due a
 * loan is classified into, and the buckets that group non-overlapping ranges for a product to name. Every table is
 * tenant-owned under row-level security; classifications and bucket names are unique per tenant.
 */
import { sql } from 'drizzle-orm';
import { bigint, check, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, identityId, tenantId, tenantIsolation, tenantKey, tenantReference } from '../columns';

/** One range of delinquent days: `minimumAgeDays` to `maximumAgeDays` inclusive (null: no upper bound). */
export const delinquencyRanges = pgTable(
  'delinquency_ranges',
  {
    id: identityId(),
    tenantId: tenantId(),
    classification: text().notNull(),
    minimumAgeDays: integer().notNull(),
    maximumAgeDays: integer(),
    /** The case type a loan entering this range opens a collections case of (docs/lending.md). */
    collectionsCaseTypeCode: text(),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    check(
      'delinquency_ranges_ages_check',
      sql`${t.minimumAgeDays} >= 0 and (${t.maximumAgeDays} is null or ${t.maximumAgeDays} >= ${t.minimumAgeDays})`,
    ),
    tenantKey('delinquency_ranges', t),
    uniqueIndex('delinquency_ranges_tenant_classification_idx').on(t.tenantId, t.classification),
    uniqueIndex('delinquency_ranges_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('delinquency_ranges'),
  ],
).enableRLS();

/** A named set of ranges that do not overlap; a loan product names one. */
export const delinquencyBuckets = pgTable(
  'delinquency_buckets',
  {
    id: identityId(),
    tenantId: tenantId(),
    name: text().notNull(),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('delinquency_buckets', t),
    uniqueIndex('delinquency_buckets_tenant_name_idx').on(t.tenantId, t.name),
    uniqueIndex('delinquency_buckets_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('delinquency_buckets'),
  ],
).enableRLS();

/** The ranges of a bucket (Fineract `m_delinquency_bucket_mappings`). */
export const delinquencyBucketRanges = pgTable(
  'delinquency_bucket_ranges',
  {
    tenantId: tenantId(),
    bucketId: bigint({ mode: 'number' }).notNull(),
    rangeId: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    tenantReference('delinquency_bucket_ranges_bucket_fk', t, t.bucketId, delinquencyBuckets),
    tenantReference('delinquency_bucket_ranges_range_fk', t, t.rangeId, delinquencyRanges),
    primaryKey({ columns: [t.tenantId, t.bucketId, t.rangeId] }),
    tenantIsolation('delinquency_bucket_ranges'),
  ],
).enableRLS();
