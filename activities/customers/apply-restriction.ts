import { and, eq, or } from 'drizzle-orm';
import { loanParties, loans, restrictions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { RestrictionType } from '../../domain/customers/customer';
import { validationError } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { rowOfRequestKey } from '../servicing/records';
import { lockCustomer, recordCustomerChange } from './records';

export interface ApplyRestrictionInput extends OperationContext {
  customerId: number;
  restrictionType: RestrictionType;
  /** Why the hold applies; never an identifier or account number. */
  reason: string;
  /** Limit the hold to one loan of the customer (borrower or party); default: every loan. */
  loanId?: number | null;
  /** ISO 8601 instant at which the hold lapses by itself; after the effective time. */
  expiresAt?: string | null;
}

export interface RestrictionResult {
  restrictionId: number;
  restrictionType: RestrictionType;
  status: 'ACTIVE' | 'RELEASED' | 'EXPIRED';
  loanId: number | null;
  /** ISO 8601 instant (UTC): the commit time of the apply command. */
  effectiveAt: string;
  expiresAt: string | null;
}

/**
 * Applies a restriction (hold) to a customer (docs/lending.md "Lending core": "applies a hold; the
 * server derives the effective time"; docs/design.md §5 Holds): `effectiveAt` is `deps.clock()` in the
 * applying transaction, which holds the customer row `FOR UPDATE` so that guarded commands
 * (restrictions.ts `activeRestrictions`) serialize with it. Appends `RESTRICTION_APPLIED` to the
 * customer's history and writes the outbox event `restriction.applied`.
 *
 * Idempotent by `requestKey`: a retry returns the restriction the first call applied.
 * Errors: 400 for a `reason` that looks like an identifier or account number (not echoed), an
 * `expiresAt` not after the effective time, or a `loanId` that is not a loan of the customer;
 * 404 when the customer is not the tenant's.
 */
export function applyRestriction(deps: Deps) {
  return async (input: ApplyRestrictionInput): Promise<RestrictionResult> => {
    assertNoSensitiveData('reason', input.reason);
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime()))
      throw validationError('expiresAt', input.expiresAt, 'expiresAt must be an ISO 8601 timestamp.');
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockCustomer(tx, input.tenantId, input.customerId);
      // A retry answers with the first result even once its checks (expiry vs now) would fail.
      if (input.requestKey) {
        const [earlier] = await tx
          .select()
          .from(restrictions)
          .where(
            and(eq(restrictions.tenantId, input.tenantId), eq(restrictions.requestKey, input.requestKey)),
          );
        if (earlier) return resultOf(earlier);
      }
      const now = deps.clock();
      if (expiresAt && expiresAt.getTime() <= now.getTime())
        throw validationError(
          'expiresAt',
          input.expiresAt,
          'expiresAt must be after the effective time (now).',
        );
      const loanId = input.loanId ?? null;
      if (loanId !== null) {
        const [loan] = await tx
          .select({ id: loans.id })
          .from(loans)
          .leftJoin(
            loanParties,
            and(
              eq(loanParties.tenantId, loans.tenantId),
              eq(loanParties.loanId, loans.id),
              eq(loanParties.customerId, input.customerId),
            ),
          )
          .where(
            and(
              eq(loans.tenantId, input.tenantId),
              eq(loans.id, loanId),
              or(eq(loans.clientId, input.customerId), eq(loanParties.customerId, input.customerId)),
            ),
          )
          .limit(1);
        if (!loan)
          throw validationError(
            'loanId',
            loanId,
            `Loan ${loanId} is not a loan of customer ${input.customerId}.`,
          );
      }
      const [created] = await tx
        .insert(restrictions)
        .values({
          tenantId: input.tenantId,
          customerId: input.customerId,
          loanId,
          restrictionType: input.restrictionType,
          reason: input.reason,
          effectiveAt: now,
          expiresAt,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [restrictions.tenantId, restrictions.requestKey] })
        .returning();
      if (!created)
        return resultOf(await rowOfRequestKey(tx, restrictions, input.tenantId, input.requestKey));
      const result = resultOf(created);
      await recordCustomerChange(tx, {
        tenantId: input.tenantId,
        customerId: input.customerId,
        action: 'RESTRICTION_APPLIED',
        detail: {
          restrictionId: created.id,
          restrictionType: created.restrictionType,
          loanId,
          reason: created.reason,
          effectiveAt: result.effectiveAt,
          expiresAt: result.expiresAt,
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      });
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'restriction.applied',
        subjectId: created.id,
        data: {
          restrictionId: created.id,
          customerId: input.customerId,
          loanId,
          restrictionType: created.restrictionType,
          effectiveAt: result.effectiveAt,
          expiresAt: result.expiresAt,
        },
        occurredAt: now,
        dedupeKey: `restriction/${created.id}/applied`,
      });
      return result;
    });
  };
}

function resultOf(row: typeof restrictions.$inferSelect): RestrictionResult {
  return {
    restrictionId: row.id,
    restrictionType: row.restrictionType,
    status: row.status,
    loanId: row.loanId,
    effectiveAt: row.effectiveAt.toISOString(),
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
  };
}
