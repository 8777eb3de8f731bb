/**
 * Registers operations as Temporal activities, converting a DomainError once into a
 * non-retryable ApplicationFailure whose `type` is the error code and whose first detail carries
 * the field errors (STYLE §13.7). Other errors stay retryable. A database error is replaced by a
 * retryable ApplicationFailure of type `DatabaseError` carrying only `loggableError`'s summary
 * (SQLSTATE, constraint, statement description): the original message holds the statement and all
 * its parameters, and would otherwise be written to the workflow's history and the worker's log
 * (issue 14).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../activities';
import { isDatabaseError, loggableError } from '../db/errors';
import { DomainError } from '../domain/errors';

export function asTemporalActivities(activities: Activities): Activities {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities) as [string, (input: unknown) => Promise<unknown>][]) {
    const activity = async (input: unknown) => {
      try {
        return await fn(input);
      } catch (err) {
        if (err instanceof DomainError) {
          throw ApplicationFailure.create({
            message: err.message,
            type: err.code,
            nonRetryable: true,
            details: [{ errors: err.errors }],
          });
        }
        if (isDatabaseError(err)) {
          const summary = loggableError(err);
          throw ApplicationFailure.create({
            message: summary.message,
            type: 'DatabaseError',
            nonRetryable: false,
            details: [{ code: summary.code ?? null, query: summary.query ?? null }],
          });
        }
        throw err;
      }
    };
    Object.defineProperty(activity, 'name', { value: name });
    wrapped[name] = activity;
  }
  return wrapped as Activities;
}
