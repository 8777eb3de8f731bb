/** The single `workflowsPath` entry: every workflow function the workers run. */
export { privacyRequestWorkflow } from './privacy-request/workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery/workflow';
