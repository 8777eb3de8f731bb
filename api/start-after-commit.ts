/**
 * The create-then-start step of every route that opens a durable process (docs/processes.md P0 "Start specs"): the
 * operation has committed its rows and the process's start intent in one transaction; the route then starts the
 * process through its client port and marks the intent started, so that the start-intent relay
 * (`workers/start-intent-relay.ts`) leaves it alone. Starting is idempotent (the workflow id is the intent's), so a
 * replayed request or the relay starting the same intent later is a no-op.
 *
 * `workflow`: `{workflowId, input}` as the operation returned it (`input.tenantId` names the tenant); `start`: the
 * process's client port (`processes.<name>.start`). Errors: those of `start` (a DomainError 503 when Temporal cannot
 * be reached: the intent stays and the relay starts it once Temporal is back) and of the marking (a database error).
 */
import type { PlatformOperations } from '../activities';

export async function startAfterCommit<Input extends { tenantId: string }>(
  platform: Pick<PlatformOperations, 'markStartIntentStarted'>,
  workflow: { workflowId: string; input: Input },
  start: (input: Input) => Promise<unknown>,
): Promise<void> {
  await start(workflow.input);
  await platform.markStartIntentStarted({
    tenantId: workflow.input.tenantId,
    workflowId: workflow.workflowId,
  });
}
