/**
 * The create-then-start step of every route that opens a durable process (docs/processes.md P0 "Start specs"): the
 * operation has committed its rows and the process's start intent in one transaction; the route then starts the
 * process through its client port and notes the intent started in the API's start-mark buffer
 * (api/start-marks.ts), which writes the marks of many requests in one UPDATE every ~100 ms. The request itself
 * writes nothing more after the start. Starting is idempotent (the workflow id is the intent's), so a replayed
 * request, or the start-intent relay (`workers/start-intent-relay.ts`) starting an intent whose mark was lost, is a
 * no-op.
 *
 * `marks`: the app's start-mark buffer (`AppDeps.startMarks`); `workflow`: `{workflowId, input}` as the operation
 * returned it (`input.tenantId` names the tenant); `start`: the process's client port (`processes.<name>.start`).
 * Errors: those of `start` (a DomainError 503 when Temporal cannot be reached: the intent stays unmarked and the
 * relay starts it once Temporal is back).
 */
import type { StartMarkSink } from './start-marks';

export async function startAfterCommit<Input extends { tenantId: string }>(
  marks: StartMarkSink,
  workflow: { workflowId: string; input: Input },
  start: (input: Input) => Promise<unknown>,
): Promise<void> {
  await start(workflow.input);
  marks.noteStarted({ tenantId: workflow.input.tenantId, workflowId: workflow.workflowId });
}
