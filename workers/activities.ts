/**
 * Registers operations as Temporal activities, converting a DomainError once into a
 * non-retryable ApplicationFailure whose `type` is the error code and whose first detail carries
 * the field errors (docs/conventions.md §13.7). A PostgreSQL error no retry can cure (db/errors.ts
 * `isPermanentDataError`: invalid byte sequence, untranslatable character, check violation…) is
 * treated the same, as the 400 it stands for, so a workflow never retries it for ever.
 * Other errors stay retryable, without the SQL parameters drizzle-orm puts in a failed query's
 * message (db/errors.ts `withoutQueryParameters`): they would land in Temporal's history.
 *
 * Activities that may run for minutes (`heartbeatingActivities`: a boarding chunk) heartbeat every 5 s while they
 * run, so a worker that dies is noticed after the workflow's heartbeat timeout, not the start-to-close timeout;
 * those of `progressReportingActivities` also heartbeat after each item through the `onProgress` they are handed.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../activities';
import { permanentDataErrorAsDomainError, withoutQueryParameters } from '../db/errors';
import { DomainError } from '../domain/errors';

/**
 * A set of activity names checked against `Activities`: a name that is not an activity's (misspelled, or the
 * activity renamed) fails the typecheck instead of silently dropping the activity's heartbeat.
 */
export function activityNames(...names: (keyof Activities)[]): ReadonlySet<string> {
  return new Set<string>(names);
}

/** Operations that heartbeat while they run (module note). */
export const heartbeatingActivities = activityNames('boardBoardingChunk', 'closeCobChunk');

/**
 * Operations that also report their own progress: their input gets `onProgress`, which heartbeats (a
 * close-of-business chunk calls it after each loan's step, docs/processes.md P7).
 */
export const progressReportingActivities = activityNames('closeCobChunk');

export function asTemporalActivities(activities: Activities): Activities {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities) as [string, (input: unknown) => Promise<unknown>][]) {
    const activity = async (input: unknown) => {
      // The context is taken once here: a timer's callback may run outside the activity's async context.
      const context = heartbeatingActivities.has(name) ? Context.current() : null;
      const beat = context ? setInterval(() => context.heartbeat(), 5_000) : null;
      try {
        if (context && progressReportingActivities.has(name) && typeof input === 'object' && input !== null) {
          return await fn({ ...input, onProgress: () => context.heartbeat() });
        }
        return await fn(input);
      } catch (err) {
        const domainError = err instanceof DomainError ? err : permanentDataErrorAsDomainError(err);
        if (domainError !== null) {
          throw ApplicationFailure.create({
            message: domainError.message,
            type: domainError.code,
            nonRetryable: true,
            details: [{ errors: domainError.errors }],
          });
        }
        throw withoutQueryParameters(err);
      } finally {
        if (beat) clearInterval(beat);
      }
    };
    Object.defineProperty(activity, 'name', { value: name });
    wrapped[name] = activity;
  }
  return wrapped as Activities;
}
