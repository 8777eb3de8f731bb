/**
 * Registers operations as Temporal activities, converting a DomainError once into a
 * non-retryable ApplicationFailure whose `type` is the error code and whose first detail carries
 * the field errors (STYLE §13.7). Other errors stay retryable.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../activities';
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
        throw err;
      }
    };
    Object.defineProperty(activity, 'name', { value: name });
    wrapped[name] = activity;
  }
  return wrapped as Activities;
}
