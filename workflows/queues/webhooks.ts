/** The `webhooks` and `webhooks-backlog` task queues' workflow entry (workers/queue-worker.ts `queueWorkflowsPaths`). */
export { webhookDeliveryWorkflow } from '../webhooks/webhook-delivery/workflow';
