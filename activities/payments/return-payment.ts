/**
 * Records a rail's return of a posted payment, POSTED → RETURNED, the allocation re-run without it (docs/processes.md
 * P1), and the NSF fee a return for insufficient funds adds to the loan: `returnPayment`.
 */
import { and, eq } from 'drizzle-orm';
import type { PaymentIntentView } from '../../db/queries/payments/payments';
import { loanCharges, loanProducts } from '../../db/schema';
import { DomainError } from '../../domain/errors';
import { insufficientFundsReturnCodes } from '../../domain/payments/rails';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps } from '../deps';
import { addChargeToLockedLoan } from '../lending/add-loan-charge';
import { assertIsoDate } from '../lending/loan-money';
import { type AfterReturn, type NsfFeeAdded, type PaymentRef, transition } from './payment-status-changes';

/**
 * POSTED → RETURNED (docs/processes.md P1): the rail returned the money; the allocation is re-run without the
 * payment, as if it had never been applied (later payments re-allocated in date order; the journal appends only
 * the difference), event `payment.returned` with `returnCode` and `nsfFee`. Whether the return is inside the rail's
 * window is the workflow's decision (domain rails); this records it. Idempotent; 409 from another status.
 *
 * NSF fee (docs/lending.md "NSF fee on a returned payment"; Fineract's LoanCharge.feature "NSF fee because of
 * payment bounce"): in the same transaction, when `returnCode` is an insufficient-funds code (R01, R09,
 * domain/payments/rails.ts `insufficientFundsReturnCodes`) and the loan's product names an `nsfChargeId`, that
 * charge is added to the loan, due on `returnedOn` (activities/lending/add-loan-charge.ts
 * `addChargeToLockedLoan`, re-posting the loan), once per returned payment (request key
 * `nsf-fee/payment/<paymentId>`; a retried return finds the payment RETURNED and adds nothing), and never while the
 * borrower has an active SCRA_MLA_PROTECTED restriction (customer-wide or on this loan). When the charge cannot be
 * added (the loan no longer ACTIVE, the definition made inactive since) the return is still recorded, without fee.
 */
export function returnPayment(deps: Deps) {
  return (input: PaymentRef & { returnCode: string; returnedOn: string }): Promise<PaymentIntentView> =>
    transition(
      deps,
      input,
      'RETURNED',
      { returnCode: input.returnCode, returnedOn: input.returnedOn },
      async () => {
        assertIsoDate('returnedOn', input.returnedOn);
        return { returnCode: input.returnCode, returnedOn: input.returnedOn };
      },
      nsfFeeOnReturn(input.returnCode, input.returnedOn),
    );
}

/** The `afterReturn` step of a return with `returnCode` on `returnedOn` (see `returnPayment`). */
function nsfFeeOnReturn(returnCode: string, returnedOn: string): AfterReturn {
  return async (tx, loan, row, now): Promise<NsfFeeAdded | null> => {
    if (!insufficientFundsReturnCodes.includes(returnCode)) return null;
    const [product] = await tx
      .select({ nsfChargeId: loanProducts.nsfChargeId })
      .from(loanProducts)
      .where(and(eq(loanProducts.tenantId, row.tenantId), eq(loanProducts.id, loan.productId)));
    if (!product?.nsfChargeId) return null;
    const protectedBorrower = await activeRestrictions(tx, row.tenantId, loan.clientId, loan.id, {
      at: now,
      types: ['SCRA_MLA_PROTECTED'],
    });
    if (protectedBorrower.length > 0) return null;
    const requestKey = `nsf-fee/payment/${row.id}`;
    const [earlier] = await tx
      .select({ id: loanCharges.id })
      .from(loanCharges)
      .where(and(eq(loanCharges.tenantId, row.tenantId), eq(loanCharges.requestKey, requestKey)));
    if (earlier) return null;
    try {
      const added = await addChargeToLockedLoan(tx, {
        tenantId: row.tenantId,
        loan,
        chargeId: product.nsfChargeId,
        amount: null,
        dueDate: returnedOn,
        externalId: null,
        actor: null,
        requestKey,
        now,
      });
      return { loanChargeId: added.loanChargeId, amount: added.amount, currency: added.currency };
    } catch (err) {
      // refused before any write (addChargeToLockedLoan checks first): the return stands without a fee
      if (err instanceof DomainError) return null;
      throw err;
    }
  };
}
