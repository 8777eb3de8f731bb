/** Messages of `webhookDeliveryWorkflow` (used by `client.ts` and by the deactivation route). */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { WebhookDeliveryProgress } from './types';

/** Stops the delivery: a pending retry is not made; the delivery ends `CANCELLED`. */
export const cancelDeliverySignal = defineSignal<[{ reason: string }]>('cancelDelivery');

/** State, attempts made, last status and next attempt time. */
export const getDeliveryStateQuery = defineQuery<WebhookDeliveryProgress>('getDeliveryState');

/**
 * Wakes a delivery waiting for admission (its tenant at its cap, or its endpoint's breaker open): it asks
 * `admitWebhookAttempt` again at once. Sent by the delivery whose attempt freed a slot or the endpoint
 * (`recordWebhookAttempt` / `cancelWebhookDelivery` name whom to wake); harmless at any other time.
 */
export const admissionWakeSignal = defineSignal('admissionWake');
