/**
 * Plans the next cycle of a loan's autopay process from the stored state (docs/processes.md P1 Autopay):
 * `planAutopayCycle`, called by `autopayWorkflow`. Read only.
 */
import { and, asc, eq, gt } from 'drizzle-orm';
import { currentAutopayRow } from '../../db/queries/payments/autopay';
import { loanInstallments, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type AutopayPlan,
  type AutopayWorkflowInput,
  autopayCollectionDateOf,
} from '../../domain/payments/autopay';
import type { Deps } from '../deps';

/**
 * Plans the next cycle of the loan's autopay process from the stored state (read only). The enrolment served is
 * the loan's ACTIVE one: the input's `enrolmentId` with its cursor `lastInstallmentNumber`, or (after a cancel and a
 * new enrolment) the new one from the start. The next installment is the lowest-numbered one after the cursor
 * that is due strictly after the enrolment's `enrolledOn` (no backfill). Returns COLLECT with its collection date
 * (due date − daysBeforeDue), or END: NO_ACTIVE_ENROLMENT, LOAN_NOT_ACTIVE, NOTHING_LEFT. Errors: none besides
 * infrastructure (an unknown loan plans END NO_ACTIVE_ENROLMENT).
 */
export function planAutopayCycle(deps: Deps) {
  return async (input: AutopayWorkflowInput): Promise<AutopayPlan> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const enrolment = await currentAutopayRow(tx, input.tenantId, input.loanId);
      if (enrolment?.status !== 'ACTIVE') return { kind: 'END', reason: 'NO_ACTIVE_ENROLMENT' };
      const [loan] = await tx
        .select({ status: loans.status })
        .from(loans)
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, input.loanId)));
      if (loan?.status !== 'ACTIVE') return { kind: 'END', reason: 'LOAN_NOT_ACTIVE' };
      const after = enrolment.id === input.enrolmentId ? input.lastInstallmentNumber : 0;
      const [next] = await tx
        .select({ installmentNumber: loanInstallments.installmentNumber, dueDate: loanInstallments.dueDate })
        .from(loanInstallments)
        .where(
          and(
            eq(loanInstallments.tenantId, input.tenantId),
            eq(loanInstallments.loanId, input.loanId),
            gt(loanInstallments.installmentNumber, after),
            gt(loanInstallments.dueDate, enrolment.enrolledOn),
          ),
        )
        .orderBy(asc(loanInstallments.installmentNumber))
        .limit(1);
      if (!next) return { kind: 'END', reason: 'NOTHING_LEFT' };
      return {
        kind: 'COLLECT',
        enrolmentId: enrolment.id,
        installmentNumber: next.installmentNumber,
        dueDate: next.dueDate,
        collectOn: autopayCollectionDateOf(next.dueDate, enrolment.daysBeforeDue),
      };
    });
}
