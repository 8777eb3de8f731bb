/**
 * A loan's transaction commands (Apache Fineract `LoanTransactionsApiResource`; docs/lending.md "Charge-off").
 * Mounted at `/v1/loans/{loanId}/transactions` (api/app.ts); every route of that path is here.
 *
 * Replays: the Idempotency-Key middleware answers a retry under the same key with the original status and body.
 */
import * as v from 'valibot';
import { DomainError, fieldError } from '../../../domain/errors';
import {
  chargeOffResponse,
  loanTransactionCommandBody,
  loanTransactionCommandErrors,
  loanTransactionCommandQuery,
  undoChargeOffResponse,
} from '../../../domain/lending/schemas/loan-transactions';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import { factory } from '../../env';
import { guard } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { optionalJsonBody, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: loan transactions'];

/** The permission of `POST /v1/loans/{loanId}/transactions`, by `command` (checked before any input is read). */
const commandGuard = guard((c) => ({
  scope: 'lending:write',
  permission: c.req.query('command') === 'undo-charge-off' ? 'UNDOCHARGEOFF_LOAN' : 'CHARGEOFF_LOAN',
}));

export const loanTransactionRoutes = factory
  .createApp()
  /**
   * `?command=charge-off` `{transactionDate, reason, externalId?, locale?, dateFormat?}` (permission
   * `CHARGEOFF_LOAN`) → 200 `{resourceId (the charge-off transaction), loanId, changes: {transactionDate, amount,
   * principalPortion, interestPortion, feeChargesPortion, penaltyChargesPortion, currency}}`
   * (activities/lending/charge-off-loan.ts `chargeOffLoan`); event `loan.chargeoff.posted`. 400 naming `loanId`
   * (`error.msg.loan.is.not.active`) or `transactionDate` (`error.msg.loan.transaction.cannot.be.a.future.date`,
   * `error.msg.loan.charge.off.is.before.than.the.last.user.transaction`, unreadable); 409
   * `error.msg.loan.is.already.charged.off`, `error.msg.loan.charge.off.external.id.conflict`.
   *
   * `?command=undo-charge-off` (no body fields; permission `UNDOCHARGEOFF_LOAN`) → 200 `{resourceId, loanId,
   * changes: {reversed: true, reversedOnDate}}` (activities/lending/undo-charge-off-loan.ts `undoChargeOffLoan`);
   * event `loan.chargeoff.reversed`. 400 naming `loanId` when not ACTIVE; 409 `error.msg.loan.is.not.charged.off`,
   * `error.msg.loan.charge.off.is.not.the.last.user.transaction` (a payment was posted after the charge-off).
   *
   * Both: 404 for another tenant's (or no) loan; a field the command does not take, or lacks, → 400 naming it.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Charge off a loan, or undo its charge-off',
      description:
        'Fineract `POST /loans/{loanId}/transactions?command=charge-off`: records a charge-off transaction (type 27, `loanTransactionType.chargeOff`) of everything outstanding on the schedule (principal, interest, fees and penalties of every installment); the loan stays ACTIVE with `chargedOff: true`, its principal is booked as a credit loss and later payments as recoveries. Needs `CHARGEOFF_LOAN`. `?command=undo-charge-off` (no body fields, `UNDOCHARGEOFF_LOAN`) reverses it while no payment was posted after it.',
      scope: 'lending:write',
      permission: 'CHARGEOFF_LOAN',
      mutation: true,
      responses: {
        200: {
          description: 'Charged off (charge-off) or reversed (undo-charge-off)',
          schema: v.union([chargeOffResponse, undoChargeOffResponse]),
        },
      },
    }),
    commandGuard,
    pathParams(loanIdParam),
    queryParams(loanTransactionCommandQuery),
    ...optionalJsonBody(loanTransactionCommandBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const { command } = c.req.valid('query');
      const body = c.req.valid('json') ?? {};
      const missing = loanTransactionCommandErrors(command, body);
      if (missing.length > 0) {
        throw new DomainError(
          'validation.msg.validation.errors.exist',
          missing.map(([, message]) => message).join(' '),
          { errors: missing.map(([name, message]) => fieldError(name, null, message)) },
        );
      }
      const deps = c.get('deps');
      if (command === 'undo-charge-off') {
        const result = await deps.activities.undoChargeOffLoan({ ...operationContext(c), loanId });
        return c.json(
          {
            resourceId: result.transactionId,
            loanId: result.loanId,
            changes: { reversed: true as const, reversedOnDate: result.reversedOnDate },
          },
          200,
        );
      }
      const result = await deps.activities.chargeOffLoan({
        ...operationContext(c),
        loanId,
        transactionDate: body.transactionDate!,
        reason: body.reason!,
        externalId: body.externalId ?? null,
        locale: body.locale ?? null,
        dateFormat: body.dateFormat ?? null,
      });
      return c.json(
        {
          resourceId: result.transactionId,
          loanId: result.loanId,
          changes: {
            transactionDate: result.transactionDate,
            amount: result.amount,
            principalPortion: result.principalPortion,
            interestPortion: result.interestPortion,
            feeChargesPortion: result.feeChargesPortion,
            penaltyChargesPortion: result.penaltyChargesPortion,
            currency: result.currency,
          },
        },
        200,
      );
    },
  );
