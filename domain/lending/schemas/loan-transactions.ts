/**
 * Input and response schemas of a loan's transaction commands (Apache Fineract `LoanTransactionsApiResource`
 * `POST /loans/{loanId}/transactions?command=charge-off|undo-charge-off`; docs/lending.md "Charge-off"). The body
 * is strict (unknown fields are refused, Shape A 400 naming them); which fields a command needs is checked by
 * `loanTransactionCommandErrors`, since both commands share the path.
 */
import * as v from 'valibot';
import { guardedText } from '../../validation/money';
import { refField } from '../../validation/refs';
import { dateText, fineractHints } from './loans';

/** The commands of `POST /v1/loans/{loanId}/transactions` built here. */
export const loanTransactionCommands = ['charge-off', 'undo-charge-off'] as const;
export type LoanTransactionCommand = (typeof loanTransactionCommands)[number];

/** Query of `POST /v1/loans/{loanId}/transactions`: `command` is required. */
export const loanTransactionCommandQuery = v.strictObject({
  command: v.picklist(loanTransactionCommands, 'must be charge-off or undo-charge-off.'),
});

/**
 * Body of the commands: `charge-off` takes `{transactionDate, reason, externalId?, locale?, dateFormat?}`
 * (`transactionDate` ISO or per `dateFormat`); `undo-charge-off` takes none of them (an empty body or `{}`).
 */
export const loanTransactionCommandBody = v.strictObject({
  transactionDate: v.optional(dateText),
  reason: v.optional(guardedText('reason', 500)),
  externalId: v.nullish(refField(100)),
  ...fineractHints,
});
export type LoanTransactionCommandBody = v.InferOutput<typeof loanTransactionCommandBody>;

/**
 * The fields `command` is missing or must not have, as `[parameterName, message]` pairs (empty when the body fits):
 * `charge-off` needs `transactionDate` and `reason`; `undo-charge-off` accepts no field.
 */
export function loanTransactionCommandErrors(
  command: LoanTransactionCommand,
  body: LoanTransactionCommandBody,
): [string, string][] {
  if (command === 'charge-off') {
    const errors: [string, string][] = [];
    if (body.transactionDate === undefined) errors.push(['transactionDate', 'transactionDate is required.']);
    if (body.reason === undefined) errors.push(['reason', 'reason is required.']);
    return errors;
  }
  return Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([name]) => [name, `${name} is not accepted by undo-charge-off.`]);
}

// Responses (for the OpenAPI document).
const decimalString = v.pipe(v.string(), v.description('decimal string with the currency digits'));
export const chargeOffResponse = v.object({
  resourceId: v.pipe(v.number(), v.description('the charge-off transaction id (transactions[].id, type 27)')),
  loanId: v.number(),
  changes: v.object({
    transactionDate: v.pipe(v.string(), v.description('ISO date')),
    amount: decimalString,
    principalPortion: decimalString,
    interestPortion: decimalString,
    feeChargesPortion: decimalString,
    penaltyChargesPortion: decimalString,
    currency: v.string(),
  }),
});
export const undoChargeOffResponse = v.object({
  resourceId: v.pipe(v.number(), v.description('the charge-off transaction id, now reversed')),
  loanId: v.number(),
  changes: v.object({
    reversed: v.literal(true),
    reversedOnDate: v.pipe(v.string(), v.description('ISO date')),
  }),
});
