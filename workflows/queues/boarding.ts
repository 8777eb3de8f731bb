/** The `boarding` task queue's workflow entry (workers/queue-worker.ts `queueWorkflowsPaths`). */
export { boardingWorkflow } from '../boarding/boarding-batch/workflow';
export { boardingRawPurgeWorkflow } from '../boarding/boarding-purge/workflow';
