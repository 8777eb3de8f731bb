/**
 * Request and response schemas of promises to pay (docs/processes.md P4 "Promises to pay"). The body is
 * strict (an unknown field is a 400). `amount` is a decimal string (never a JSON number) with at most the currency's
 * ISO 4217 minor-unit digits; `promisedDate` an ISO calendar date (whether it is today or later in the tenant's time
 * zone, and within the horizon, is the operation's check); `channel` one of the interaction channels.
 */
import * as v from 'valibot';
import { isoDate } from '../../validation/dates';
import { integerId, limitParam, offsetParam } from '../../validation/fields';
import { amount, currency, fitsCurrency, fitsCurrencyMessage } from '../../validation/money';
import { promiseChannels, promiseStatuses } from '../promise';

const id = v.pipe(
  v.number(),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

export const promiseIdParam = v.strictObject({ promiseId: integerId('promiseId') });

/** `POST /v1/servicing/promises` body. */
export const createPromiseBody = v.pipe(
  v.strictObject({
    caseId: id,
    loanId: id,
    amount,
    currency,
    promisedDate: isoDate('promisedDate'),
    channel: v.picklist(promiseChannels, `channel must be one of ${promiseChannels.join(', ')}.`),
  }),
  v.forward(v.partialCheck([['amount'], ['currency']], fitsCurrency, fitsCurrencyMessage), ['amount']),
);

/** `GET /v1/servicing/promises` query: `caseId` (required), `limit` (1–200, default 50), `offset`. */
export const listPromisesQuery = v.strictObject({
  caseId: integerId('caseId'),
  limit: limitParam,
  offset: offsetParam,
});

const timestamp = v.pipe(v.string(), v.isoTimestamp());

/** A promise as answered by the create and read routes. */
export const promiseResponse = v.object({
  promiseId: v.number(),
  resourceId: v.number(),
  caseId: v.number(),
  loanId: v.number(),
  amount: v.pipe(v.string(), v.description('Decimal string with the currency’s digits.')),
  currency: v.string(),
  promisedDate: v.pipe(v.string(), v.description('ISO calendar date.')),
  channel: v.picklist(promiseChannels),
  status: v.picklist(promiseStatuses),
  paidAmount: v.pipe(
    v.string(),
    v.description('Decimal string: paid in the window when resolved; zero while PENDING.'),
  ),
  deadlineAt: v.pipe(
    v.string(),
    v.description('End of the watch (promisedDate + 3 grace days), ISO 8601 with the tenant zone offset.'),
  ),
  createdAt: timestamp,
  resolvedAt: v.nullable(timestamp),
  followUpTaskId: v.nullable(v.number()),
});

export const promiseListResponse = v.object({
  items: v.array(promiseResponse),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});
