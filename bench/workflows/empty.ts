/**
 * The baseline of `npm run bench:payments` (docs/design.md §6: "payment intent end to end … ≥ 60% of the throughput of an
 * empty one-activity workflow on the same Temporal server"): a workflow that runs one activity doing nothing and
 * returns. Bundled only by the benchmark's own worker, never by the service's.
 */
import { proxyActivities } from '@temporalio/workflow';

const { nothing } = proxyActivities<{ nothing(): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

export async function emptyOneActivityWorkflow(): Promise<void> {
  await nothing();
}
