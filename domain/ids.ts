/**
 * Workflow ids and task queues (docs/design.md §1). Ids are deterministic so that a retried start is a
 * no-op and an operator can find a process by its business key in the Temporal UI.
 */
import { sha256Hex } from './hash';

/** Task queues, one per worker group. */
export const taskQueues = {
  servicing: 'servicing',
  lending: 'lending',
  boarding: 'boarding',
  webhooks: 'webhooks',
  /**
   * Webhook deliveries the outbox relay started with a delay (a tenant past its burst, an endpoint whose breaker
   * is open): a pool of their own, so a backlog's tasks never queue ahead of the live deliveries on `webhooks`.
   */
  webhooksBacklog: 'webhooks-backlog',
} as const;

export type TaskQueue = (typeof taskQueues)[keyof typeof taskQueues];

/** `privacy-request/<tenant>/<requestId>`. */
export function privacyRequestWorkflowId(tenantId: string, requestId: number | string): string {
  return `privacy-request/${tenantId}/${requestId}`;
}

/** `hardship-offer/<tenant>/<offerId>` (docs/processes.md P5): the process of one hardship offer. */
export function hardshipOfferWorkflowId(tenantId: string, offerId: number): string {
  return `hardship-offer/${tenantId}/${offerId}`;
}

/**
 * `webhook-delivery/<tenant>/<subscriptionId>/<eventId>` (docs/design.md §1, §5): one delivery workflow per
 * (event, subscription).
 */
export function webhookDeliveryWorkflowId(tenantId: string, subscriptionId: number, eventId: string): string {
  return `webhook-delivery/${tenantId}/${subscriptionId}/${eventId}`;
}

/**
 * The delivery id (`Service-Webhook-Id`, docs/design.md §5): `whd_` + the first 128 bits (hex) of
 * SHA-256 of `<tenant>/<subscriptionId>/<eventId>`, so every relay retry derives the same id.
 */
export function webhookDeliveryId(tenantId: string, subscriptionId: number, eventId: string): string {
  return `whd_${sha256Hex(`${tenantId}/${subscriptionId}/${eventId}`).slice(0, 32)}`;
}

/** Search attributes the project registers on the Temporal server (name → type). */
export const searchAttributes = {
  TenantId: 'Keyword',
  CustomerRef: 'Keyword',
  CaseId: 'Int',
  LoanId: 'Keyword',
} as const;

/** `boarding/<tenant>/<batchId>` (docs/design.md §1; docs/processes.md P3): the process of one boarding batch. */
export function boardingWorkflowId(tenantId: string, batchId: number | string): string {
  return `boarding/${tenantId}/${batchId}`;
}

/** `payment-intent/<tenant>/<paymentId>` (docs/design.md §1). */
export function paymentIntentWorkflowId(tenantId: string, paymentId: number | string): string {
  return `payment-intent/${tenantId}/${paymentId}`;
}

/** `autopay/<tenant>/<loanId>`: the loan's autopay process (docs/processes.md P1 Autopay), one per loan at a time. */
export function autopayWorkflowId(tenantId: string, loanId: number | string): string {
  return `autopay/${tenantId}/${loanId}`;
}

/** `channel-event/<tenant>/<gatewayCode>/<eventId>`. */
export function channelEventWorkflowId(tenantId: string, gatewayCode: string, eventId: string): string {
  return `channel-event/${tenantId}/${gatewayCode}/${eventId}`;
}

/** `contact-consent-update/<tenant>/<updateId>`: the timer of one scheduled contact-consent update (docs/processes.md P4). */
export function contactConsentUpdateWorkflowId(tenantId: string, updateId: number | string): string {
  return `contact-consent-update/${tenantId}/${updateId}`;
}

/** `promise/<tenant>/<promiseId>`: the promise-to-pay process (docs/processes.md P4 Promises to pay). */
export function promiseWorkflowId(tenantId: string, promiseId: number | string): string {
  return `promise/${tenantId}/${promiseId}`;
}

/**
 * `close-of-business/<tenant>/<businessDate>` (docs/processes.md P7 "The run"): the whole-tenant run of day D,
 * unique per tenant and day; with `runId`, a run for loans an operator named:
 * `close-of-business/<tenant>/<businessDate>/<runId>`.
 */
export function closeOfBusinessWorkflowId(tenantId: string, businessDate: string, runId?: string): string {
  const base = `close-of-business/${tenantId}/${businessDate}`;
  return runId === undefined ? base : `${base}/${runId}`;
}

/** `close-of-business/<tenant>`: the tenant's daily close-of-business Temporal Schedule (docs/processes.md P7). */
export function closeOfBusinessScheduleId(tenantId: string): string {
  return `close-of-business/${tenantId}`;
}
