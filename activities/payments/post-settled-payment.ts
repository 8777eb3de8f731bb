/**
 * Posts a settled payment, SUBMITTED → POSTED through the loan's allocation and journal (docs/processes.md P1):
 * `postSettledPayment`.
 */

import type { PaymentIntentView } from '../../db/queries/payments/payments';
import { DomainError } from '../../domain/errors';
import type { Deps } from '../deps';
import { assertIsoDate, moneyOfInput } from '../lending/loan-money';
import { type PaymentRef, transition } from './payment-status-changes';

/**
 * SUBMITTED → POSTED on settlement (docs/processes.md P1): the payment is posted value-dated to its `effectiveDate`
 * through the loan's allocation and the journal (repost-loan.ts, as record-external), event `payment.posted`.
 * `amount` is what is posted (decimal string): the intent's amount, or the settled amount when an operator resolved
 * a reconciliation exception with POST_AS_SETTLED (the intent's amount stays in the history). `settledOn` is the
 * rail's settlement date (ISO). Errors: 409 `error.msg.loan.invalid.state.transition` when the loan no longer
 * accepts payments (not ACTIVE): the workflow then opens a `SETTLED_NOT_POSTED` exception; 409 from a status other
 * than SUBMITTED; 400 for a malformed amount.
 */
export function postSettledPayment(deps: Deps) {
  return (input: PaymentRef & { amount: string; settledOn: string }): Promise<PaymentIntentView> =>
    transition(
      deps,
      input,
      'POSTED',
      { settledOn: input.settledOn, postedAmount: input.amount },
      async (_tx, loan, row) => {
        assertIsoDate('settledOn', input.settledOn);
        const money = moneyOfInput(input.amount, row.currencyCode);
        if (loan.status !== 'ACTIVE') {
          throw new DomainError(
            'error.msg.loan.invalid.state.transition',
            `Loan ${loan.id} is ${loan.status}: the settled payment ${row.id} cannot be posted automatically.`,
          );
        }
        return { amount: money.text, settledOn: input.settledOn };
      },
    );
}
