/**
 * Operations of payments on rails (issue 7; DESIGN-processes P1): payment intents and their status changes
 * (payment-intents.ts), the workflow's rail calls (rail-calls.ts) and the daily reconciliation's reads
 * (reconcile-rail-settlements.ts). `createActivities` (activities/index.ts) spreads them in, so they are also Temporal
 * activities under these names.
 */
import type { Deps } from '../deps';
import {
  cancelPaymentIntent,
  createPaymentIntent,
  failPaymentIntent,
  markPaymentSubmitted,
  postSettledPayment,
  returnPayment,
} from './payment-intents';
import { recordSandboxRailEvent, submitPaymentToRail } from './rail-calls';
import { listTenantsWithPaymentIntents, reconcileRailSettlements } from './reconcile-rail-settlements';

export function createPaymentActivities(deps: Deps) {
  return {
    createPaymentIntent: createPaymentIntent(deps),
    markPaymentSubmitted: markPaymentSubmitted(deps),
    failPaymentIntent: failPaymentIntent(deps),
    cancelPaymentIntent: cancelPaymentIntent(deps),
    postSettledPayment: postSettledPayment(deps),
    returnPayment: returnPayment(deps),
    submitPaymentToRail: submitPaymentToRail(deps),
    recordSandboxRailEvent: recordSandboxRailEvent(deps),
    reconcileRailSettlements: reconcileRailSettlements(deps),
    listTenantsWithPaymentIntents: listTenantsWithPaymentIntents(deps),
  };
}
