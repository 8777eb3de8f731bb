/**
 * Reads, and when given changes, a tenant's settings (admin CLI; docs/servicing.md "Hardship offers"): `tenantSettings`.
 */

import { eq } from 'drizzle-orm';
import { tenants } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { notFound, validationError } from '../../domain/errors';
import {
  isMakerCheckerPolicy,
  type MakerCheckerPolicy,
  makerCheckerPolicies,
} from '../../domain/maker-checker';
import type { Deps } from '../deps';

/** The close-of-business day settings (docs/lending.md "Delinquency configuration"), whole days. */
export interface CloseOfBusinessDays {
  /** Days an installment is overdue before an overdue charge is assessed (Fineract `penalty-wait-period`, default 2). */
  penaltyWaitPeriodDays: number;
  /** Days before a due date that `loan.repayment.due` is sent (Fineract `days-before-repayment-is-due`, default 3). */
  dueDaysForRepaymentEvent: number;
  /** Days after a due date that `loan.repayment.overdue` is sent (Fineract `days-after-repayment-is-overdue`, default 1). */
  overdueDaysForRepaymentEvent: number;
}

/** A tenant's settings as `tenants settings` shows them. */
export interface TenantSettings extends CloseOfBusinessDays {
  tenantId: string;
  /** domain/maker-checker.ts: `distinct-client` (default) or `same-client-distinct-actor`. */
  makerCheckerPolicy: MakerCheckerPolicy;
}

/** The largest value of a close-of-business day setting. */
export const maximumCloseOfBusinessDays = 365;

const columns = {
  tenantId: tenants.id,
  makerCheckerPolicy: tenants.makerCheckerPolicy,
  penaltyWaitPeriodDays: tenants.penaltyWaitPeriodDays,
  dueDaysForRepaymentEvent: tenants.dueDaysForRepaymentEvent,
  overdueDaysForRepaymentEvent: tenants.overdueDaysForRepaymentEvent,
};

/**
 * Reads a tenant's settings and, when given, changes them first: `makerCheckerPolicy` (docs/servicing.md "Hardship offers"; the
 * policy every maker-checker decision of the tenant is taken under from the next decision on, and recorded in it) and
 * the close-of-business days `penaltyWaitPeriodDays`, `dueDaysForRepaymentEvent`, `overdueDaysForRepaymentEvent`
 * (integers 0–365, used from the next close-of-business run on). Only the fields given change.
 * Errors: 400 naming the field for an unknown policy or a day count that is not an integer from 0 to 365 (nothing
 * changes); 404 when the tenant does not exist.
 */
export function tenantSettings(deps: Deps) {
  return async (
    input: { tenantId: string; makerCheckerPolicy?: string } & Partial<CloseOfBusinessDays>,
  ): Promise<TenantSettings> => {
    const policy = input.makerCheckerPolicy;
    if (policy !== undefined && !isMakerCheckerPolicy(policy)) {
      throw validationError(
        'makerCheckerPolicy',
        policy,
        `The maker-checker policy is one of ${makerCheckerPolicies.join(', ')}.`,
      );
    }
    const changes: Partial<CloseOfBusinessDays> & { makerCheckerPolicy?: MakerCheckerPolicy } = {};
    if (policy !== undefined) changes.makerCheckerPolicy = policy;
    for (const name of [
      'penaltyWaitPeriodDays',
      'dueDaysForRepaymentEvent',
      'overdueDaysForRepaymentEvent',
    ] as const) {
      const value = input[name];
      if (value === undefined) continue;
      if (!Number.isInteger(value) || value < 0 || value > maximumCloseOfBusinessDays) {
        throw validationError(
          name,
          value,
          `${name} must be an integer from 0 to ${maximumCloseOfBusinessDays}.`,
        );
      }
      changes[name] = value;
    }
    const [row] = await withPlatformTransaction(deps.db, (tx) =>
      Object.keys(changes).length === 0
        ? tx.select(columns).from(tenants).where(eq(tenants.id, input.tenantId))
        : tx.update(tenants).set(changes).where(eq(tenants.id, input.tenantId)).returning(columns),
    );
    if (!row) throw notFound('Tenant', input.tenantId);
    return row;
  };
}
