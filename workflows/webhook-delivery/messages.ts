/** Messages of `webhookDeliveryWorkflow` (used by `client.ts` and by the deactivation route). */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { WebhookDeliveryProgress } from './types';

/** Stops the delivery: a pending retry is not made; the delivery ends `CANCELLED`. */
export const cancelDeliverySignal = defineSignal<[{ reason: string }]>('cancelDelivery');

/** State, attempts made, last status and next attempt time. */
export const getDeliveryStateQuery = defineQuery<WebhookDeliveryProgress>('getDeliveryState');
