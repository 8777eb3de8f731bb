/**
 * Webhook subscription operations (spec § Events; DESIGN §5 Webhooks; DESIGN-processes P2), one
 * transaction each. Reads live in db/queries/webhooks.ts; `loadSigningSecrets` (secrets.ts) serves
 * the delivery workflow.
 */
import type { Deps } from '../deps';
import { createWebhookSubscription } from './create-webhook-subscription';
import { deactivateWebhookSubscription } from './deactivate-webhook-subscription';
import { rotateWebhookSubscriptionSecret } from './rotate-webhook-subscription-secret';
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
