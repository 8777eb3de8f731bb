/** Input, result and state of `webhookDeliveryWorkflow` (JSON-serializable). */
import type { WebhookDeliveryState } from '../../../activities/webhooks/record-webhook-attempt';

export type { WebhookDeliveryState };

export interface WebhookDeliveryInput {
  tenantId: string;
  /** The subscription's bigint id. */
  subscriptionId: number;
  /** `evt_…` of the outbox event. */
  eventId: string;
  /** Catalogue event type, for the UI summary. */
  eventType: string;
  /** `whd_…` (`webhookDeliveryId`), the `Service-Webhook-Id` header. */
  deliveryId: string;
}

export interface WebhookDeliveryResult {
  /** `SUCCEEDED`, `FAILED` (10 attempts, 410, or the subscription disabled for failing) or `CANCELLED`. */
  state: Exclude<WebhookDeliveryState, 'PENDING' | 'RETRYING'>;
  /** Attempts made (0 when cancelled before the first). */
  attempts: number;
  /** Why it ended when not `SUCCEEDED`: `ATTEMPTS_EXHAUSTED`, `GONE`, `FAILING`, `SUBSCRIPTION_INACTIVE`, … */
  reason: string | null;
}

/** What `getDeliveryState` answers. */
export interface WebhookDeliveryProgress {
  state: WebhookDeliveryState;
  attempts: number;
  lastResponseStatus: number | null;
  /** ISO instant of the next attempt; null when none is planned. */
  nextAttemptAt: string | null;
}
