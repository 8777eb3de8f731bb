/**
 * Per-tenant limits of outbound webhooks (docs/design.md §5 Webhooks; Svix's per-application endpoint
 * limit and delivery throttling): how many ACTIVE subscriptions a tenant may have and how many of
 * its delivery attempts may be in flight at once, so that one tenant's receivers cannot take the
 * delivery capacity every tenant shares. Deployment-wide; set by `WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT`
 * and `WEBHOOK_MAX_CONCURRENT_DELIVERIES_PER_TENANT` (workers/config.ts).
 */
import { defaultStartPacing, type StartPacing } from './start-pacing';

export interface WebhookLimits {
  /** ACTIVE subscriptions per tenant; one more is refused (409 `error.msg.webhook.subscription.limit.reached`). */
  maxSubscriptionsPerTenant: number;
  /** Delivery attempts of one tenant in flight at once (HTTP calls holding a worker slot). */
  maxConcurrentDeliveriesPerTenant: number;
  /**
   * The outbox relay's pacing of a tenant's delivery starts (domain/webhooks/start-pacing.ts): starts per second
   * after a burst (`WEBHOOK_TENANT_STARTS_PER_SECOND`, default 20; 0 = no pacing) and the burst
   * (`WEBHOOK_TENANT_START_BURST`, default 100). Absent: the defaults.
   */
  deliveryStartPacing?: StartPacing;
}

export const defaultWebhookLimits: Required<WebhookLimits> = {
  maxSubscriptionsPerTenant: 100,
  maxConcurrentDeliveriesPerTenant: 5,
  deliveryStartPacing: defaultStartPacing,
};
