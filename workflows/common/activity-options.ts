/**
 * Named activity option presets (docs/conventions.md §6): both timeouts and the retry policy always stated.
 */
import {
  ActivityCancellationType,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';

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
 * `dbWrite` for an operation a workflow may cancel (a stuck fulfilment superseded by a later one): cancelling
 * waits until the server confirms that no attempt of it runs or will run again, so the operation can never
 * commit after the workflow has moved on.
 */
export const dbWriteCancellable: ActivityOptions = {
  ...dbWrite,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
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

/**
 * One call to a payment rail (`submitPaymentToRail`): the provider's API answers within seconds; the
 * call is idempotent by paymentId (activities/payments/rail.ts), so it is retried with backoff for up to a day
 * (a provider outage), never given up on silently: a submission that cannot reach the rail for a day fails the
 * workflow task's activity and an operator sees it in the Temporal UI.
 */
export const railCall: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 day',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
  },
};

/**
 * A read whose answer is only a hint (which promise processes to signal after a posting): a few quick attempts,
 * then the workflow logs the failure and moves on instead of waiting days on a database outage.
 */
export const bestEffortRead: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 5,
  },
};

/**
 * `dbWrite` as a local activity (`proxyLocalActivities`): for a short step that only touches PostgreSQL and that the
 * workflow takes right after another step (marking a payment submitted, posting a settled payment). The worker that
 * runs the workflow task runs it at once, inside that task: no activity task, no extra workflow task, one marker in
 * the history. Same timeouts and retries as `dbWrite` (a retry beyond a minute waits on a durable timer).
 */
export const dbWriteLocal: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '7 days',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
  },
};

/** `bestEffortRead` as a local activity: a hint read after a step of the same workflow task (see `dbWriteLocal`). */
export const bestEffortReadLocal: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 5,
  },
};
