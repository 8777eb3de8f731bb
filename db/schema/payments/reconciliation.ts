/**
 * Reconciliation exceptions (docs/lending.md "Reconciliation exceptions"; docs/processes.md P1): a
 * money movement the service could not reconcile automatically, kept until an operator resolves it. Tenant-owned
 * under row-level security (docs/design.md §3). Not to be confused with `reconciliation_items` (payments.ts), the fundings
 * recorded as external.
 *
 * At most one exception per (tenant, exception type, target) is open (partial unique index): a recurrence moves
 * `last_seen_at` and replaces `detail` instead of adding a row. The reference to the target is polymorphic
 * (`target_type`, `target_ref`), so it carries no foreign key.
 */
import { sql } from 'drizzle-orm';
import { index, jsonb, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  type ReconciliationDetail,
  reconciliationExceptionStatuses,
  reconciliationExceptionTypes,
  reconciliationResolutions,
} from '../../../domain/payments/reconciliation-exceptions';
import { createdAt, identityId, instant, tenantId, tenantIsolation } from '../columns';

export const reconciliationExceptionType = pgEnum(
  'reconciliation_exception_type',
  reconciliationExceptionTypes,
);
export const reconciliationExceptionStatus = pgEnum(
  'reconciliation_exception_status',
  reconciliationExceptionStatuses,
);
export const reconciliationResolution = pgEnum('reconciliation_resolution', reconciliationResolutions);

export const reconciliationExceptions = pgTable(
  'reconciliation_exceptions',
  {
    id: identityId(),
    tenantId: tenantId(),
    exceptionType: reconciliationExceptionType().notNull(),
    /** What the exception is about, upper snake case, e.g. `PAYMENT_INTENT`. */
    targetType: text().notNull(),
    /** The target's reference as text, e.g. the paymentId. */
    targetRef: text().notNull(),
    status: reconciliationExceptionStatus().notNull().default('open'),
    /** What the system saw, values as strings: `providerRef` always; `reason`, `settledAmount`… as recorded. */
    detail: jsonb().notNull().$type<ReconciliationDetail>(),
    resolution: reconciliationResolution(),
    /** The operator's reason for the resolution (free text, checked for identifiers and account numbers). */
    resolutionReason: text(),
    /** `Service-Actor` of the resolving request, else its client id. */
    resolvedBy: text(),
    resolvedAt: instant(),
    createdAt: createdAt(),
    /** The last time the condition was seen; equals `created_at` until a recurrence. */
    lastSeenAt: instant().notNull(),
  },
  (t) => [
    uniqueIndex('reconciliation_exceptions_one_open_idx')
      .on(t.tenantId, t.exceptionType, t.targetType, t.targetRef)
      .where(sql`status = 'open'`),
    // Lists are newest first (id desc), the export oldest first (id asc); one index per filter.
    index('reconciliation_exceptions_tenant_id_idx').on(t.tenantId, t.id),
    index('reconciliation_exceptions_tenant_status_idx').on(t.tenantId, t.status, t.id),
    index('reconciliation_exceptions_tenant_type_idx').on(t.tenantId, t.exceptionType, t.id),
    tenantIsolation('reconciliation_exceptions'),
  ],
).enableRLS();
