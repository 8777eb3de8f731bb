/**
 * Named activity option presets (STYLE §6): both timeouts and the retry policy always stated.
 */
import type { ActivityOptions } from '@temporalio/workflow';

/** A database operation: short, retried with capped backoff until it succeeds. */
export const dbWrite: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '7 days',
  // No maximumAttempts: retried until scheduleToCloseTimeout.
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
  },
};

/**
 * One outbound HTTP call whose failure is a result, not an exception (`sendWebhook`): 20 s
 * start-to-close (the call's own limit is 15 s), and few retries, for a worker that died mid-call.
 */
export const httpCall: ActivityOptions = {
  startToCloseTimeout: '20 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
  },
};
