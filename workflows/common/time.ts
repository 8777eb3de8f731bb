/**
 * The one clock of workflow code (STYLE §7): the sandbox's deterministic `Date.now()`, which is
 * the time of the workflow task being processed and replays identically.
 */
export function workflowNow(): number {
  return Date.now();
}
