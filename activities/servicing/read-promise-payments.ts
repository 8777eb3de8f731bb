/**
 * Reads what has been paid towards a promise to pay in its window (docs/processes.md P4 "Promises to pay"):
 * `readPromisePayments`, called by `promiseWorkflow`. Read only.
 */
import { and, eq } from 'drizzle-orm';
import { type PromiseView, sumPostedPayments } from '../../db/queries/servicing/promises';
import { promises } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import { minorUnitDigits } from '../../domain/money';
import type { Deps } from '../deps';

/** A tenant's promise to pay, by id. */
export interface PromiseRef {
  tenantId: string;
  promiseId: number;
}

/**
 * What has been paid towards a promise: the sum of its loan's POSTED payments (returned ones excluded) value-dated
 * in its window, as a decimal string with the currency's digits, and its status. Read only (the workflow decides).
 * Errors: 404 for an unknown promise.
 */
export function readPromisePayments(deps: Deps) {
  return async (input: PromiseRef): Promise<{ paidAmount: string; status: PromiseView['status'] }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [row] = await tx
        .select()
        .from(promises)
        .where(and(eq(promises.tenantId, input.tenantId), eq(promises.id, input.promiseId)));
      if (!row) throw notFound('Promise', input.promiseId);
      const total = await sumPostedPayments(
        tx,
        input.tenantId,
        row.loanId,
        row.windowStartDate,
        row.windowEndDate,
      );
      return { paidAmount: fixDecimalText(total, minorUnitDigits(row.currencyCode)), status: row.status };
    });
}
