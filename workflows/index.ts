/** The single `workflowsPath` entry: every workflow function the workers run. */

export { boardingWorkflow } from './boarding/boarding-batch/workflow';
export { boardingRawPurgeWorkflow } from './boarding/boarding-purge/workflow';
export { channelEventWorkflow } from './channels/channel-event/workflow';
export { hardshipOfferWorkflow } from './hardship/hardship-offer/workflow';
export {
  closeOfBusinessLauncherWorkflow,
  closeOfBusinessWorkflow,
} from './lending/close-of-business/workflow';
export {
  dailyStatementCycleWorkflow,
  tenantStatementCycleWorkflow,
} from './lending/statement-cycle/workflow';
export { autopayWorkflow } from './payments/autopay/workflow';
export {
  dailyReconciliationWorkflow,
  tenantReconciliationWorkflow,
} from './payments/daily-reconciliation/workflow';
export { paymentIntentWorkflow } from './payments/payment-intent/workflow';
export { contactConsentUpdateWorkflow } from './servicing/contact-consent-update/workflow';
export { privacyRequestWorkflow } from './servicing/privacy-request/workflow';
export { promiseWorkflow } from './servicing/promise/workflow';
export { webhookDeliveryWorkflow } from './webhooks/webhook-delivery/workflow';
