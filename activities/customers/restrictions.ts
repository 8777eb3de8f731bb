/**
 * The hold check that guarded commands (payment intents, autopay, fundings, collections work,
 * outreach) run inside their own transaction (docs/design.md §5 Holds: "enforced inside the same
 * transaction (row lock) as the guarded command").
 *
 * Locking: `activeRestrictions` takes the customer row `FOR SHARE`; applying or releasing a
 * restriction takes it `FOR UPDATE` (records.ts `lockCustomer`). So a guarded command and a hold
 * on the same customer serialize: a command that saw no hold commits before the hold's effective
 * time, and a command that starts after a hold was applied waits for it and sees it.
 */
import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import { restrictionInForce } from '../../db/queries/customers/restrictions';
import { customers, restrictions } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import type { RestrictionType } from '../../domain/customers/customer';
import { notFound } from '../../domain/errors';

/** A restriction in force. */
export interface ActiveRestriction {
  restrictionId: number;
  restrictionType: RestrictionType;
  /** The one loan it is limited to, or null for every loan of the customer. */
  loanId: number | null;
  reason: string;
  effectiveAt: Date;
  expiresAt: Date | null;
}

export interface ActiveRestrictionOptions {
  /** The instant to evaluate expiry at: the guarded command's `deps.clock()` (one clock, db/queries/customers/restrictions.ts). */
  at: Date;
  /** Only these types (default: every type). */
  types?: readonly RestrictionType[];
}

/**
 * The restrictions in force for `customerId` at `options.at`, oldest first (the rule of
 * db/queries/customers/restrictions.ts `restrictionInForce`). With `loanId`, those covering that loan (customer-wide ones and that loan's);
 * without it, all of the customer's. Takes the customer row `FOR SHARE` until the caller's
 * transaction ends (see the module comment); call it before the guarded write.
 *
 * Example (a payment intent): `if ((await activeRestrictions(tx, tenantId, borrowerId, loanId,
 * { at: now, types: ['PAYMENT_HOLD'] })).length) throw new DomainError(...)`.
 * Errors: 404 `error.msg.resource.not.found` when the customer is not the tenant's.
 */
export async function activeRestrictions(
  tx: Tx,
  tenantId: string,
  customerId: number,
  loanId: number | null | undefined,
  options: ActiveRestrictionOptions,
): Promise<ActiveRestriction[]> {
  const [customer] = await tx
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.tenantId, tenantId), eq(customers.id, customerId)))
    .for('share');
  if (!customer) throw notFound('Customer', customerId);
  const rows = await tx
    .select()
    .from(restrictions)
    .where(
      and(
        eq(restrictions.tenantId, tenantId),
        eq(restrictions.customerId, customerId),
        restrictionInForce(options.at),
        options.types ? inArray(restrictions.restrictionType, [...options.types]) : undefined,
        loanId === undefined || loanId === null
          ? undefined
          : or(isNull(restrictions.loanId), eq(restrictions.loanId, loanId)),
      ),
    )
    .orderBy(restrictions.effectiveAt, restrictions.id);
  return rows.map((row) => ({
    restrictionId: row.id,
    restrictionType: row.restrictionType,
    loanId: row.loanId,
    reason: row.reason,
    effectiveAt: row.effectiveAt,
    expiresAt: row.expiresAt,
  }));
}
