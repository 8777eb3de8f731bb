/**
 * Request and response schemas of close-of-business runs (docs/processes.md P7 "The run"; docs/design.md §4 Paging:
 * operational lists take `limit` and `offset`). Dates are ISO calendar dates in the tenant's time zone; instants ISO
 * 8601 UTC.
 */
import * as v from 'valibot';
import { isoDate } from '../../validation/dates';
import { limitParam, offsetParam } from '../../validation/fields';
import { dateText, instantText } from '../../validation/money';
import { maxChars } from '../../validation/text-length';

/** Loans one run may name (`loanIds`); more is a whole-tenant run's work. */
export const cobRunLoanIdsMax = 1000;

/**
 * `POST /v1/cob/runs` body: `businessDate` the day to close (it must have ended in the tenant's time zone, checked
 * by the operation), `loanIds` the loans to close (1 to 1000 positive integers; absent: every loan active on D).
 */
export const createCobRunBody = v.strictObject({
  businessDate: isoDate(),
  loanIds: v.optional(
    v.pipe(
      v.array(
        v.pipe(
          v.number('each loanId must be a positive integer.'),
          v.integer('each loanId must be a positive integer.'),
          v.minValue(1, 'each loanId must be a positive integer.'),
          v.maxValue(Number.MAX_SAFE_INTEGER, 'each loanId must be a positive integer.'),
        ),
        'loanIds must be an array of loan ids.',
      ),
      v.minLength(1, 'loanIds must name at least one loan.'),
      v.maxLength(cobRunLoanIdsMax, `loanIds names at most ${cobRunLoanIdsMax} loans.`),
    ),
  ),
});

/** Path `{runId}`: the opaque id a run was answered with (one naming no run of the tenant: 404). */
export const cobRunParams = v.strictObject({
  runId: v.pipe(v.string(), ...maxChars(64, 'must be at most 64 characters.')),
});

/** `GET /v1/cob/runs/{runId}/errors` query: `limit` 1–200 (default 50), `offset` ≥ 0. */
export const cobRunErrorsQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

/** A run (the 202 and 200 of `POST`, the 200 of `GET /v1/cob/runs/{runId}`). */
export const cobRunResponse = v.object({
  runId: v.string(),
  businessDate: dateText,
  status: v.picklist(['RUNNING', 'COMPLETED', 'COMPLETED_WITH_ERRORS']),
  loans: v.object({
    total: v.pipe(v.number(), v.description('Loans the run covers (0 until it counted them).')),
    processed: v.pipe(v.number(), v.description('Loans whose day D is closed (now, or found closed).')),
    failed: v.pipe(v.number(), v.description('Loans whose step failed (their day stays open).')),
  }),
  startedAt: instantText,
  completedAt: v.nullable(instantText),
});

/** 200 of `GET /v1/cob/runs/{runId}/errors`. */
export const cobRunErrorsResponse = v.object({
  items: v.array(v.object({ loanId: v.number(), error: v.string() })),
  limit: v.number(),
  offset: v.number(),
  hasMore: v.boolean(),
});
