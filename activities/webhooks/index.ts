/**
 * Delivery side of outbound webhooks (DESIGN §5, DESIGN-processes P0/P2): the activities of the
 * `webhook-delivery` workflow. Database reads/writes (`prepareWebhookAttempt`,
 * `recordWebhookAttempt`, `cancelWebhookDelivery`) and the HTTP call (`sendWebhook`) are separate
 * operations (STYLE §5: record intent → call → record outcome).
 */
import type { Deps } from '../deps';
import { cancelWebhookDelivery } from './cancel-webhook-delivery';
import { prepareWebhookAttempt } from './prepare-webhook-attempt';
import { recordWebhookAttempt } from './record-webhook-attempt';
import { sendWebhook } from './send-webhook';

/** The webhook delivery operations, built from `deps`; names are unique across workers. */
export function createWebhookDeliveryActivities(deps: Deps) {
  return {
    prepareWebhookAttempt: prepareWebhookAttempt(deps),
    sendWebhook: sendWebhook(deps),
    recordWebhookAttempt: recordWebhookAttempt(deps),
    cancelWebhookDelivery: cancelWebhookDelivery(deps),
  };
}
