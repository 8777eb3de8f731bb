import { and, eq } from 'drizzle-orm';
import { readDelinquencyActions } from '../../db/queries/lending/delinquency-configuration';
import { loanDelinquencyActions, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import { delinquencyActionErrors, loanBusinessDate } from '../../domain/lending/delinquency-actions';
import { localDate } from '../../domain/time-zone';
import { tenantComplianceTimeZone } from '../common/tenant-time-zone';
import type { Deps, OperationContext } from '../deps';

export interface CreateLoanDelinquencyActionInput extends OperationContext {
  loanId: number;
  /** Fineract's actions, as its API takes them. */
  action: 'pause' | 'resume';
  /** ISO date. */
  startDate: string;
  /** ISO date; a pause's last day boundary (required), never given for a resume. */
  endDate?: string | undefined;
}

export interface CreateLoanDelinquencyActionResult {
  actionId: number;
}

/**
 * Records a delinquency PAUSE or RESUME on a loan (Apache Fineract `DelinquencyWritePlatformServiceImpl.
 * createDelinquencyAction`; `POST /v1/loans/{loanId}/delinquency-actions`) under the loan's row lock, with the rules of
 * domain/lending/delinquency-actions.ts `delinquencyActionErrors` against the loan's stored actions. The loan's
 * business date is its `lastClosedBusinessDate` + 1, or the tenant's calendar date today (its compliance time zone)
 * before its first close of business.
 * Idempotent by `requestKey`: a retry returns the action the first call recorded.
 * Errors: 404 when the loan is not the tenant's; 400 `validation.msg.validation.errors.exist` with one field error per
 * broken rule, each with Fineract's code (nothing stored).
 */
export function createLoanDelinquencyAction(deps: Deps) {
  return async (input: CreateLoanDelinquencyActionInput): Promise<CreateLoanDelinquencyActionResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [loan] = await tx
        .select({
          status: loans.status,
          disbursedOnDate: loans.disbursedOnDate,
          lastClosedBusinessDate: loans.lastClosedBusinessDate,
        })
        .from(loans)
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, input.loanId)))
        .for('update');
      if (!loan) throw notFound('Loan', input.loanId);
      if (input.requestKey) {
        const [replayed] = await tx
          .select({ id: loanDelinquencyActions.id })
          .from(loanDelinquencyActions)
          .where(
            and(
              eq(loanDelinquencyActions.tenantId, input.tenantId),
              eq(loanDelinquencyActions.requestKey, input.requestKey),
            ),
          );
        if (replayed) return { actionId: replayed.id };
      }
      const existing = await readDelinquencyActions(tx, input.tenantId, input.loanId);
      const today = localDate(deps.clock().getTime(), await tenantComplianceTimeZone(tx, input.tenantId));
      const errors = delinquencyActionErrors(input, {
        active: loan.status === 'ACTIVE',
        disbursedOnDate: loan.disbursedOnDate,
        businessDate: loanBusinessDate(loan.lastClosedBusinessDate, today),
        existing,
      });
      if (errors.length > 0) {
        throw new DomainError(
          'validation.msg.validation.errors.exist',
          errors.map((e) => e.developerMessage).join(' '),
          { errors },
        );
      }
      const [created] = await tx
        .insert(loanDelinquencyActions)
        .values({
          tenantId: input.tenantId,
          loanId: input.loanId,
          action: input.action === 'pause' ? 'PAUSE' : 'RESUME',
          startDate: input.startDate,
          endDate: input.action === 'pause' ? (input.endDate ?? null) : null,
          createdAt: deps.clock(),
          requestKey: input.requestKey ?? null,
        })
        .returning({ id: loanDelinquencyActions.id });
      return { actionId: created!.id };
    });
}
