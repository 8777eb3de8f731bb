/**
 * The one clock of workflow code (docs/conventions.md §7): the sandbox's deterministic `Date.now()`, which is
 * the time of the workflow task being processed and replays identically.
 */
export function workflowNow(): number {
  return Date.now();
}
