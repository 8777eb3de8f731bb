/**
 * Restrictions on a customer or one of its loans (docs/lending.md "Lending core": restrictions; holds and protections:
 * PAYMENT_HOLD, COLLECTIONS_HOLD, COMMUNICATION_HOLD, SCRA_MLA_PROTECTED, DISBURSEMENT_HOLD). In a file of its own
 * because it references both the customers and the lending tables, which must not import each other. Tenant-owned
 * under row-level security.
 */
import { sql } from 'drizzle-orm';
import { bigint, index, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, identityId, instant, tenantId, tenantIsolation, tenantReference } from '../columns';
import { loans } from '../lending/lending';
import { customers } from './customers';

export const restrictionType = pgEnum('restriction_type', [
  'PAYMENT_HOLD',
  'COLLECTIONS_HOLD',
  'COMMUNICATION_HOLD',
  'SCRA_MLA_PROTECTED',
  'DISBURSEMENT_HOLD',
]);
export const restrictionStatus = pgEnum('restriction_status', ['ACTIVE', 'RELEASED', 'EXPIRED']);

export const restrictions = pgTable(
  'restrictions',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerId: bigint({ mode: 'number' }).notNull(),
    /** Null: every loan of the customer. */
    loanId: bigint({ mode: 'number' }),
    restrictionType: restrictionType().notNull(),
    status: restrictionStatus().notNull().default('ACTIVE'),
    reason: text().notNull(),
    /** Commit time of the apply command (docs/design.md §5 Holds). */
    effectiveAt: instant().notNull(),
    expiresAt: instant(),
    releasedAt: instant(),
    releaseReason: text(),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantReference('restrictions_customer_fk', t, t.customerId, customers),
    tenantReference('restrictions_loan_fk', t, t.loanId, loans),
    index('restrictions_tenant_customer_effective_idx').on(t.tenantId, t.customerId, t.effectiveAt, t.id),
    index('restrictions_tenant_customer_active_idx')
      .on(t.tenantId, t.customerId, t.restrictionType)
      .where(sql`status = 'ACTIVE'`),
    uniqueIndex('restrictions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('restrictions'),
  ],
).enableRLS();
