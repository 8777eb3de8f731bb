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
