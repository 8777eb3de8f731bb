/**
 * The `lending` task queue's workflow entry (workers/queue-worker.ts `queueWorkflowsPaths`): close of business,
 * statements, payments and their children (children run on their parent's queue).
 */
export {
  closeOfBusinessLauncherWorkflow,
  closeOfBusinessWorkflow,
} from '../lending/close-of-business/workflow';
export {
  dailyStatementCycleWorkflow,
  tenantStatementCycleWorkflow,
} from '../lending/statement-cycle/workflow';
export { autopayWorkflow } from '../payments/autopay/workflow';
export {
  dailyReconciliationWorkflow,
  tenantReconciliationWorkflow,
} from '../payments/daily-reconciliation/workflow';
export { paymentIntentWorkflow } from '../payments/payment-intent/workflow';
