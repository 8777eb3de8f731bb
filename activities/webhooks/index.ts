/**
 * Outbound webhooks (docs/integrating.md "Webhooks"; docs/design.md §5 Webhooks; docs/processes.md P0/P2), one transaction
 * per database operation:
 * - subscription operations (create, PATCH, rotate-secret, deactivate, test event); reads live in
 *   db/queries/webhooks/webhooks.ts;
 * - the activities of the `webhook-delivery` workflow: database reads/writes
 *   (`prepareWebhookAttempt`, `admitWebhookAttempt`, `recordWebhookAttempt`, `cancelWebhookDelivery`) apart from the HTTP
 *   call (`sendWebhook`) (docs/conventions.md §5: record intent → call → record outcome).
 */
import type { Deps } from '../deps';
import { admitWebhookAttempt } from './admit-webhook-attempt';
import { cancelWebhookDelivery } from './cancel-webhook-delivery';
import { createWebhookSubscription } from './create-webhook-subscription';
import { deactivateWebhookSubscription } from './deactivate-webhook-subscription';
import { prepareWebhookAttempt } from './prepare-webhook-attempt';
import { recordWebhookAttempt } from './record-webhook-attempt';
import { rotateWebhookSubscriptionSecret } from './rotate-webhook-subscription-secret';
import { sendWebhook } from './send-webhook';
import { sendWebhookTestEvent } from './send-webhook-test-event';
import { updateWebhookSubscription } from './update-webhook-subscription';

export { loadSigningSecrets } from './secrets';

/** The webhook subscription operations, spread into `createActivities` (names unique across workers). */
export function createWebhookActivities(deps: Deps) {
  return {
    createWebhookSubscription: createWebhookSubscription(deps),
    updateWebhookSubscription: updateWebhookSubscription(deps),
    rotateWebhookSubscriptionSecret: rotateWebhookSubscriptionSecret(deps),
    deactivateWebhookSubscription: deactivateWebhookSubscription(deps),
    sendWebhookTestEvent: sendWebhookTestEvent(deps),
  };
}

/** The webhook delivery operations, built from `deps`; names are unique across workers. */
export function createWebhookDeliveryActivities(deps: Deps) {
  return {
    prepareWebhookAttempt: prepareWebhookAttempt(deps),
    admitWebhookAttempt: admitWebhookAttempt(deps),
    sendWebhook: sendWebhook(deps),
    recordWebhookAttempt: recordWebhookAttempt(deps),
    cancelWebhookDelivery: cancelWebhookDelivery(deps),
  };
}
