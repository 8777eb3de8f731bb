/**
 * Per-tenant limits of outbound webhooks (DESIGN §5 Webhooks; Svix's per-application endpoint
 * limit and delivery throttling): how many ACTIVE subscriptions a tenant may have and how many of
 * its delivery attempts may be in flight at once, so that one tenant's receivers cannot take the
 * delivery capacity every tenant shares. Deployment-wide; set by `WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT`
 * and `WEBHOOK_MAX_CONCURRENT_DELIVERIES_PER_TENANT` (workers/config.ts).
 */
export interface WebhookLimits {
  /** ACTIVE subscriptions per tenant; one more is refused (409 `error.msg.webhook.subscription.limit.reached`). */
  maxSubscriptionsPerTenant: number;
  /** Delivery attempts of one tenant in flight at once (HTTP calls holding a worker slot). */
  maxConcurrentDeliveriesPerTenant: number;
}

export const defaultWebhookLimits: WebhookLimits = {
  maxSubscriptionsPerTenant: 100,
  maxConcurrentDeliveriesPerTenant: 5,
};
