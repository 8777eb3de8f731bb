/**
 * The `servicing` task queue's workflow entry (workers/queue-worker.ts `queueWorkflowsPaths`): only the workflows
 * started on that queue, so its bundle evaluates none of the others' code per new execution (docs/operating.md).
 */
export { channelEventWorkflow } from '../channels/channel-event/workflow';
export { hardshipOfferWorkflow } from '../hardship/hardship-offer/workflow';
export { contactConsentUpdateWorkflow } from '../servicing/contact-consent-update/workflow';
export { privacyRequestWorkflow } from '../servicing/privacy-request/workflow';
export { promiseWorkflow } from '../servicing/promise/workflow';
