/**
 * One Temporal namespace per concurrently running test worker process (docs/design.md §7: heavy servers start once per
 * run; test isolation). Every test file's context runs its workers on the fixed task queues (`servicing`,
 * `lending`, …), so files running at the same time on one namespace would take each other's tasks: an activity
 * run with another file's clock, or lost for its start-to-close timeout when that file's worker shuts down.
 * vitest numbers its worker processes `VITEST_POOL_ID` = 1…maxWorkers, unique among those running at once; the
 * global setup creates these namespaces at the dev server's launch (search attributes registered in each).
 */

/** The namespaces the global setup creates: more than `maxWorkers` (vitest.config.ts) for headroom. */
export const testNamespaces = ['test-1', 'test-2', 'test-3', 'test-4'] as const;

/** This test process's namespace: `test-<VITEST_POOL_ID>`, or `default` outside a pool or beyond the list. */
export function testNamespace(): string {
  const name = `test-${process.env.VITEST_POOL_ID ?? ''}`;
  return (testNamespaces as readonly string[]).includes(name) ? name : 'default';
}
