/**
 * Operations of payments on rails (docs/processes.md P1): payment intents and their status changes
 * (create-payment-intent.ts, then one file per status change over payment-status-changes.ts), the workflow's rail
 * calls (submit-payment-to-rail.ts, record-sandbox-rail-event.ts), the daily reconciliation's reads
 * (list-tenants-with-payment-intents.ts, reconcile-rail-settlements.ts) and autopay (enrol-autopay.ts,
 * cancel-autopay.ts, plan-autopay-cycle.ts, collect-autopay-installment.ts, plus `markStartIntentStarted` so
 * `autopayWorkflow` can confirm the intents' processes it started), and payments recorded as external
 * (record-external-payment.ts, and a loan's whole history at once for boarding, record-external-payment-history.ts,
 * both under the one rule set of external-payments.ts).
 * `createActivities` (activities/index.ts) spreads them in, so they are also Temporal activities under these names.
 */
import type { Deps } from '../deps';
import { markStartIntentStarted } from '../platform/start-intents';
import { cancelAutopay } from './cancel-autopay';
import { cancelPaymentIntent } from './cancel-payment-intent';
import { collectAutopayInstallment } from './collect-autopay-installment';
import { createPaymentIntent } from './create-payment-intent';
import { enrolAutopay } from './enrol-autopay';
import { failPaymentIntent } from './fail-payment-intent';
import { listTenantsWithPaymentIntents } from './list-tenants-with-payment-intents';
import { markPaymentSubmitted } from './mark-payment-submitted';
import { planAutopayCycle } from './plan-autopay-cycle';
import { postSettledPayment } from './post-settled-payment';
import { reconcileRailSettlements } from './reconcile-rail-settlements';
import { recordExternalPayment } from './record-external-payment';
import { recordExternalPaymentHistory } from './record-external-payment-history';
import { recordSandboxRailEvent } from './record-sandbox-rail-event';
import { returnPayment } from './return-payment';
import { submitPaymentToRail } from './submit-payment-to-rail';

export function createPaymentActivities(deps: Deps) {
  return {
    createPaymentIntent: createPaymentIntent(deps),
    markPaymentSubmitted: markPaymentSubmitted(deps),
    failPaymentIntent: failPaymentIntent(deps),
    cancelPaymentIntent: cancelPaymentIntent(deps),
    postSettledPayment: postSettledPayment(deps),
    returnPayment: returnPayment(deps),
    recordExternalPayment: recordExternalPayment(deps),
    recordExternalPaymentHistory: recordExternalPaymentHistory(deps),
    submitPaymentToRail: submitPaymentToRail(deps),
    recordSandboxRailEvent: recordSandboxRailEvent(deps),
    reconcileRailSettlements: reconcileRailSettlements(deps),
    listTenantsWithPaymentIntents: listTenantsWithPaymentIntents(deps),
    enrolAutopay: enrolAutopay(deps),
    cancelAutopay: cancelAutopay(deps),
    planAutopayCycle: planAutopayCycle(deps),
    collectAutopayInstallment: collectAutopayInstallment(deps),
    markStartIntentStarted: markStartIntentStarted(deps),
  };
}
