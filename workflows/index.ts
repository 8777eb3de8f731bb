/** The single `workflowsPath` entry: every workflow function the workers run. */

export { autopayWorkflow } from './autopay/workflow';
export { boardingWorkflow } from './boarding/workflow';
export { boardingRawPurgeWorkflow } from './boarding-purge/workflow';
export { channelEventWorkflow } from './channel-event/workflow';
export { contactConsentUpdateWorkflow } from './contact-consent-update/workflow';
export { dailyReconciliationWorkflow, tenantReconciliationWorkflow } from './daily-reconciliation/workflow';
export { hardshipOfferWorkflow } from './hardship-offer/workflow';
export { paymentIntentWorkflow } from './payment-intent/workflow';
export { privacyRequestWorkflow } from './privacy-request/workflow';
export { promiseWorkflow } from './promise/workflow';
export { dailyStatementCycleWorkflow, tenantStatementCycleWorkflow } from './statement-cycle/workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery/workflow';
