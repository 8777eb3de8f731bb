/**
 * Cancels a loan's autopay enrolment, ACTIVE → CANCELLED under the loan's row lock (docs/processes.md P1 Autopay):
 * `cancelAutopay`. One transaction; idempotent.
 */
import { and, eq } from 'drizzle-orm';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import {
  type AutopayEnrolmentView,
  autopayViewOf,
  currentAutopayRow,
} from '../../db/queries/payments/autopay';
import { autopayEnrolments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';

/**
 * Cancels the loan's ACTIVE enrolment (ACTIVE → CANCELLED) under the loan's lock, so no collection of it starts
 * afterwards (a collection checks the status under the same lock). Idempotent: a loan whose latest enrolment is
 * already CANCELLED answers it as it stands. Returns the enrolment and whether this call cancelled it. Errors: 404
 * when the loan is not the tenant's or never had an enrolment.
 */
export function cancelAutopay(deps: Deps) {
  return async (
    input: OperationContext & { loanId: number },
  ): Promise<{ enrolment: AutopayEnrolmentView; cancelled: boolean }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const current = await currentAutopayRow(tx, input.tenantId, loan.id);
      if (!current) throw notFound('Autopay enrolment of loan', loan.id);
      if (current.status !== 'ACTIVE') return { enrolment: autopayViewOf(current, loan), cancelled: false };
      const now = deps.clock();
      const [row] = await tx
        .update(autopayEnrolments)
        .set({ status: 'CANCELLED', cancelledAt: now, updatedAt: now })
        .where(and(eq(autopayEnrolments.tenantId, input.tenantId), eq(autopayEnrolments.id, current.id)))
        .returning();
      if (!row) throw new Error(`autopay enrolment ${current.id} vanished under the loan's lock`);
      return { enrolment: autopayViewOf(row, loan), cancelled: true };
    });
}
