import { and, eq } from 'drizzle-orm';
import { restrictions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { restrictionStatusAt } from '../../domain/customers/customer';
import { DomainError, notFound } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { lockCustomer, recordCustomerChange } from './records';

export interface ReleaseRestrictionInput extends OperationContext {
  customerId: number;
  restrictionId: number;
  /** Why the hold ends; never an identifier or account number. */
  reason: string;
}

export interface ReleaseRestrictionResult {
  restrictionId: number;
  status: 'RELEASED';
  /** ISO 8601 instant (UTC) of the release. */
  releasedAt: string;
}

/**
 * Releases an ACTIVE restriction (docs/design.md §5 Holds: ACTIVE → RELEASED) under the customer's row
 * lock, appends `RESTRICTION_RELEASED` to the customer's history and writes the outbox event
 * `restriction.released`.
 * Errors: 400 for a `reason` that looks like an identifier or account number (not echoed); 404
 * when the customer or the restriction is not the tenant's, or the restriction is not the
 * customer's; 409 `error.msg.restriction.invalid.state.transition` when it is already RELEASED or
 * EXPIRED.
 */
export function releaseRestriction(deps: Deps) {
  return async (input: ReleaseRestrictionInput): Promise<ReleaseRestrictionResult> => {
    assertNoSensitiveData('reason', input.reason);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockCustomer(tx, input.tenantId, input.customerId);
      const [current] = await tx
        .select()
        .from(restrictions)
        .where(
          and(
            eq(restrictions.tenantId, input.tenantId),
            eq(restrictions.id, input.restrictionId),
            eq(restrictions.customerId, input.customerId),
          ),
        )
        .for('update');
      if (!current) throw notFound('Restriction', input.restrictionId);
      const now = deps.clock();
      const status = restrictionStatusAt(current.status, current.expiresAt, now);
      if (status !== 'ACTIVE') {
        throw new DomainError(
          'error.msg.restriction.invalid.state.transition',
          `Restriction ${input.restrictionId} is already ${status}.`,
        );
      }
      await tx
        .update(restrictions)
        .set({ status: 'RELEASED', releasedAt: now, releaseReason: input.reason })
        .where(and(eq(restrictions.tenantId, input.tenantId), eq(restrictions.id, current.id)));
      const releasedAt = now.toISOString();
      await recordCustomerChange(tx, {
        tenantId: input.tenantId,
        customerId: input.customerId,
        action: 'RESTRICTION_RELEASED',
        detail: {
          restrictionId: current.id,
          restrictionType: current.restrictionType,
          loanId: current.loanId,
          reason: input.reason,
          releasedAt,
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      });
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'restriction.released',
        subjectId: current.id,
        data: {
          restrictionId: current.id,
          customerId: input.customerId,
          loanId: current.loanId,
          restrictionType: current.restrictionType,
          releasedAt,
        },
        occurredAt: now,
        dedupeKey: `restriction/${current.id}/released`,
      });
      return { restrictionId: current.id, status: 'RELEASED', releasedAt };
    });
  };
}
