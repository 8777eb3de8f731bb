/**
 * What the preview (`calculateLoanSchedule`) and the creation (`createLoan`) of a loan share: reading the
 * application's product, borrower and charge definitions inside the operation's transaction and resolving the
 * application against them (domain/lending/loan-terms/application.ts), and the schedule as the API shows it. Always called
 * inside the caller's transaction (docs/conventions.md §5).
 */
import { and, eq } from 'drizzle-orm';
import { readLoanChargeDefinitions } from '../../db/queries/lending/loans';
import { type ProductForLoan, readProductForLoan } from '../../db/queries/lending/products';
import { customers } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { DomainError, type FieldError, fieldError } from '../../domain/errors';
import { resolveLoanApplication } from '../../domain/lending/loan-terms/application';
import { latestCalendarDate } from '../../domain/lending/loan-terms/dates';
import type { LoanApplication, ResolvedLoanApplication } from '../../domain/lending/loan-terms/types';
import type { DisbursementPeriod, RepaymentPeriod, Schedule } from '../../domain/lending/schedule';
import { formatMinor, parseDecimalToMinor } from '../../domain/money';
import type { LoanChunk } from './loan-chunk';

/** A 400 `validation.msg.validation.errors.exist` carrying `errors`. */
export function loanValidationFailure(errors: FieldError[]): DomainError {
  return new DomainError(
    'validation.msg.validation.errors.exist',
    errors.map((e) => e.developerMessage).join(' '),
    { errors },
  );
}

/**
 * Reads the product and the charge definitions the application names, checks that `clientId` is a customer of
 * the tenant (locking its row `FOR UPDATE` when `lockBorrower`, as a creation appends to its history), and
 * resolves the application; with `options.chunk` (portfolio boarding, activities/lending/loan-chunk.ts) the product,
 * the charge definitions and a borrower the chunk locked come from the chunk. Throws 400 naming `clientId` / `productId` when they are not the tenant's, and 400
 * with every broken rule of the terms otherwise (domain/lending/loan-terms/application.ts).
 */
export async function resolveApplicationInTx(
  tx: Tx,
  tenantId: string,
  application: LoanApplication,
  now: Date,
  options: { lockBorrower: boolean; chunk?: LoanChunk },
): Promise<{ product: ProductForLoan; resolved: ResolvedLoanApplication }> {
  const { chunk } = options;
  const borrowerQuery = tx
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.tenantId, tenantId), eq(customers.id, application.clientId)));
  // A borrower the chunk locked is the tenant's and already locked (activities/lending/loan-chunk.ts).
  const [borrower] = chunk?.lockedBorrowers.has(application.clientId)
    ? [{ id: application.clientId }]
    : await (options.lockBorrower ? borrowerQuery.for('update') : borrowerQuery);
  const product = chunk
    ? await chunk.productOf(tx, application.productId)
    : await readProductForLoan(tx, tenantId, application.productId);
  const errors: FieldError[] = [];
  if (!borrower) {
    errors.push(
      fieldError(
        'clientId',
        application.clientId,
        `Client ${application.clientId} is not a customer of this tenant.`,
        'validation.msg.loan.clientId.not.found',
      ),
    );
  }
  if (!product) {
    errors.push(
      fieldError(
        'productId',
        application.productId,
        `Loan product ${application.productId} was not found.`,
        'validation.msg.loan.productId.not.found',
      ),
    );
  }
  if (!product || errors.length > 0) throw loanValidationFailure(errors);
  const chargeIds = (application.charges ?? []).map((c) => c.chargeId);
  const definitions = chunk
    ? await chunk.chargeDefinitionsOf(tx, chargeIds)
    : await readLoanChargeDefinitions(tx, tenantId, chargeIds);
  const resolution = resolveLoanApplication(application, product, definitions, latestCalendarDate(now));
  if (!resolution.ok) throw loanValidationFailure(resolution.errors);
  return { product, resolved: resolution.value };
}

/** The disbursement row of a preview (no `period`), with what is paid (nothing) and outstanding. */
export interface DisbursementPreviewRow extends DisbursementPeriod {
  totalPaidForPeriod: string;
  totalOutstandingForPeriod: string;
}

/**
 * An installment of a preview, with what is paid (nothing: also nothing in advance or late, Fineract's
 * `totalPaidInAdvanceForPeriod` and `totalPaidLateForPeriod` printed 0) and outstanding (all of it).
 */
export interface InstallmentPreviewRow extends RepaymentPeriod {
  totalPaidForPeriod: string;
  totalPaidInAdvanceForPeriod: string;
  totalPaidLateForPeriod: string;
  totalOutstandingForPeriod: string;
}

/**
 * A schedule as `calculateLoanSchedule` shows it: domain/lending/schedule.ts's `Schedule`, rows with paid/outstanding,
 * and Fineract's totals of what was paid in advance and late (zero) and of what is outstanding (all of it).
 */
export interface SchedulePreview extends Omit<Schedule, 'periods'> {
  totalPaidInAdvance: string;
  totalPaidLate: string;
  totalOutstanding: string;
  periods: [DisbursementPreviewRow, ...InstallmentPreviewRow[]];
}

/**
 * `schedule` with `totalPaidForPeriod`, `totalPaidInAdvanceForPeriod` and `totalPaidLateForPeriod` zero and
 * `totalOutstandingForPeriod` = due on every installment (Fineract's preview; the disbursement row has no in-advance
 * or late amounts), decimal strings with the currency's digits.
 */
export function schedulePreviewOf(schedule: Schedule): SchedulePreview {
  const digits = schedule.currency.digitsAfterDecimal;
  const zero = formatMinor(0n, digits);
  const [disbursement, ...installments] = schedule.periods;
  const due = (text: string) => formatMinor(parseDecimalToMinor(text, digits), digits);
  return {
    ...schedule,
    totalPaidInAdvance: zero,
    totalPaidLate: zero,
    totalOutstanding: due(schedule.totalRepaymentExpected),
    periods: [
      {
        ...disbursement,
        totalPaidForPeriod: zero,
        totalOutstandingForPeriod: due(disbursement.totalDueForPeriod),
      },
      ...installments.map((period) => ({
        ...period,
        totalPaidForPeriod: zero,
        totalPaidInAdvanceForPeriod: zero,
        totalPaidLateForPeriod: zero,
        totalOutstandingForPeriod: due(period.totalDueForPeriod),
      })),
    ],
  };
}
