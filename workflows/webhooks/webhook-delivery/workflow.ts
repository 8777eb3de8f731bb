/**
 * Delivery of one event to one webhook subscription (docs/design.md §5 Webhooks; docs/processes.md P0, P2;
 * the Standard Webhooks example schedule).
 *
 * Clock: attempts start 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the
 * previous one, each delay ±20% jitter (deterministic `Math.random()`), a receiver's later
 * `Retry-After` winning (capped at 24 h); 10 attempts (`domain/webhooks/retry-schedule.ts`).
 * Each attempt: `prepareWebhookAttempt` (subscription still ACTIVE? delivery not cancelled? URL,
 * body, current secrets) → `admitWebhookAttempt` (patch `webhook-endpoint-breaker`: the
 * endpoint's circuit breaker and the tenant's cap on concurrent attempts; while refused, the
 * delivery waits on a timer for the time it is told, holding no activity slot, and asks again,
 * after a breaker wait preparing again; waiting is not an attempt) → `sendWebhook` (connect 5 s, 15 s in all, signed at send time) →
 * `recordWebhookAttempt` (also feeds the breaker and frees the slot). Deliveries started before
 * the patch keep their recorded path (no admission).
 * Patch `webhook-admission-wake`: a refused delivery waits for the `admissionWake` signal rather than asking
 * again on a short timer (its timer is a 5–10 min safety net; one delivery per open endpoint keeps the breaker's
 * own timer), and after recording an attempt or cancelling, the delivery signals the waiting deliveries the
 * activity names (those that may now go), so a backlog of thousands of waiting deliveries costs no workflow task
 * until its turn (activities/webhooks/admission-waiters.ts).
 * Patch `webhook-unproven-endpoint-limits`: an attempt admitted to an endpoint with no recent success (`unproven`: no
 * attempt recorded yet, or failures since its last success) is sent, on the delivery's first two attempts, with the
 * short limits of `attemptLimitsFor` (connect 2 s, 5 s in all), so a receiver that holds every connection open holds a
 * slot 5 s, not 15 s, in the first minute of a burst (docs/processes.md P2 "Fair share from the first attempt").
 * The body is taken from the first preparation and reused, so every retry sends the same bytes.
 * Ends: 2xx → `SUCCEEDED`; 410 → `FAILED` and the subscription `DISABLED` (`GONE`); 5 days of
 * continuous failure of the subscription → `FAILED` and `DISABLED` (`FAILING`); 10 failed attempts
 * → `FAILED`; the subscription not ACTIVE, the delivery cancelled in the database, or the signal
 * `cancelDelivery` → `CANCELLED` (a pending retry is not made). Terminal outcomes are returned.
 * Messages: signals `cancelDelivery` and `admissionWake`, query `getDeliveryState`.
 * Id: `webhook-delivery/<tenant>/<subscriptionId>/<eventId>`; queue `webhooks`; search attribute TenantId.
 */
import {
  ActivityFailure,
  condition,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import type { SendWebhookResult } from '../../../activities/webhooks/send-webhook';
import {
  attemptLimitsFor,
  maxDeliveryAttempts,
  nextAttemptDelayMs,
} from '../../../domain/webhooks/retry-schedule';
import { dbWrite, httpCall } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { admissionWakeSignal, cancelDeliverySignal, getDeliveryStateQuery } from './messages';
import type { WebhookDeliveryInput, WebhookDeliveryProgress, WebhookDeliveryResult } from './types';

const { prepareWebhookAttempt, admitWebhookAttempt, recordWebhookAttempt, cancelWebhookDelivery } =
  proxyActivities<Activities>(dbWrite);

/** Patch id of the admission step (circuit breaker and per-tenant cap) before each attempt. */
export const endpointBreakerPatch = 'webhook-endpoint-breaker';
/** Patch id of waiting for a wake-up signal when refused admission, and of waking the waiting deliveries. */
export const admissionWakePatch = 'webhook-admission-wake';
/** Patch id of the short attempt limits for an endpoint with no recent success. */
export const unprovenEndpointLimitsPatch = 'webhook-unproven-endpoint-limits';
const { sendWebhook } = proxyActivities<Activities>(httpCall);

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const progress: WebhookDeliveryProgress = {
    state: 'PENDING',
    attempts: 0,
    lastResponseStatus: null,
    nextAttemptAt: null,
  };
  let cancelReason: string | null = null;
  setHandler(cancelDeliverySignal, ({ reason }) => {
    cancelReason ??= reason || 'CANCELLED';
  });
  setHandler(getDeliveryStateQuery, () => progress);
  let woken = false;
  setHandler(admissionWakeSignal, () => {
    woken = true;
  });
  /** Signals each waiting delivery named; one that has ended meanwhile is no matter. */
  const wakeWaiting = async (workflowIds: readonly string[] | undefined) => {
    await Promise.all(
      (workflowIds ?? []).map((id) =>
        getExternalWorkflowHandle(id)
          .signal(admissionWakeSignal)
          .catch(() => undefined),
      ),
    );
  };

  const cancel = async (reason: string): Promise<WebhookDeliveryResult> => {
    const wakeWaiters = patched(admissionWakePatch);
    const { deliveryState, wake } = await cancelWebhookDelivery({
      tenantId: input.tenantId,
      deliveryId: input.deliveryId,
      at: new Date(workflowNow()).toISOString(),
      ...(wakeWaiters ? { wakeWaiters } : {}),
    });
    if (wakeWaiters) await wakeWaiting(wake);
    progress.state = deliveryState;
    progress.nextAttemptAt = null;
    if (deliveryState === 'SUCCEEDED' || deliveryState === 'FAILED')
      return { state: deliveryState, attempts: progress.attempts, reason: null };
    return { state: 'CANCELLED', attempts: progress.attempts, reason };
  };

  let body: string | null = null;
  for (let attempt = 1; attempt <= maxDeliveryAttempts; attempt += 1) {
    if (cancelReason) return cancel(cancelReason);
    let prepared = await prepareWebhookAttempt({
      tenantId: input.tenantId,
      subscriptionId: input.subscriptionId,
      eventId: input.eventId,
      deliveryId: input.deliveryId,
    });
    if (!prepared.proceed) return cancel(prepared.reason);
    let admitted = false;
    let unproven = false;
    if (patched(endpointBreakerPatch)) {
      // Wait, without holding a slot, until the endpoint's breaker and the tenant's cap let it go;
      // after a breaker wait the subscription is read again (it may have changed or been deactivated).
      // Patched: a refused delivery waits for a wake-up signal (or its timer) instead of its timer alone.
      const waitsForWake = patched(admissionWakePatch);
      let refusals = 0;
      for (;;) {
        woken = false;
        const admission = await admitWebhookAttempt({
          tenantId: input.tenantId,
          subscriptionId: input.subscriptionId,
          deliveryId: input.deliveryId,
          at: new Date(workflowNow()).toISOString(),
          refusals,
          ...(waitsForWake ? { workflowId: workflowInfo().workflowId } : {}),
        });
        if (admission.admitted) {
          admitted = true;
          unproven = admission.unproven === true;
          break;
        }
        if (admission.reason === 'TENANT_AT_CAPACITY') refusals += 1;
        progress.nextAttemptAt = new Date(workflowNow() + admission.waitMs).toISOString();
        const waited = await condition(
          () => cancelReason !== null || (waitsForWake && woken),
          admission.waitMs,
        );
        if (waitsForWake ? cancelReason !== null : waited) return cancel(cancelReason ?? 'CANCELLED');
        // A tenant-cap wait is short and frequent under a backlog: ask again without reading again.
        if (admission.reason === 'TENANT_AT_CAPACITY') continue;
        prepared = await prepareWebhookAttempt({
          tenantId: input.tenantId,
          subscriptionId: input.subscriptionId,
          eventId: input.eventId,
          deliveryId: input.deliveryId,
        });
        if (!prepared.proceed) return cancel(prepared.reason);
      }
    }
    body ??= prepared.body;

    const attemptAtMs = workflowNow();
    // Only a delivery that went through admission holds a slot whose freeing may wake others.
    const wakesOthers = admitted && patched(admissionWakePatch);
    // Patched: an unproven endpoint's first attempts get the short limits (only an admitted attempt knows it).
    const limits =
      admitted && unproven && patched(unprovenEndpointLimitsPatch) ? attemptLimitsFor(attempt, true) : null;
    let sent: SendWebhookResult;
    try {
      sent = await sendWebhook({
        url: prepared.url,
        body,
        deliveryId: input.deliveryId,
        signingSecrets: prepared.signingSecrets,
        ...(limits ?? {}),
      });
    } catch (err) {
      // The call itself could not run (the worker died mid-call and retries ran out): a failed attempt.
      if (!(err instanceof ActivityFailure)) throw err;
      sent = { responseStatus: null, latencyMs: 0, error: 'attempt did not complete', retryAfterMs: null };
    }

    const failed = sent.responseStatus === null || sent.responseStatus < 200 || sent.responseStatus > 299;
    const gone = sent.responseStatus === 410;
    const delayMs =
      failed && !gone && attempt < maxDeliveryAttempts
        ? nextAttemptDelayMs(attempt + 1, Math.random(), sent.retryAfterMs)
        : null;
    const nextAttemptAt = delayMs === null ? null : new Date(workflowNow() + delayMs).toISOString();
    const recorded = await recordWebhookAttempt({
      tenantId: input.tenantId,
      subscriptionId: input.subscriptionId,
      deliveryId: input.deliveryId,
      attempt,
      at: new Date(attemptAtMs).toISOString(),
      responseStatus: sent.responseStatus,
      latencyMs: sent.latencyMs,
      error: sent.error,
      nextAttemptAt,
      ...(wakesOthers ? { wakeWaiters: true } : {}),
    });
    if (wakesOthers) await wakeWaiting(recorded.wake);
    progress.attempts = attempt;
    progress.lastResponseStatus = sent.responseStatus;
    progress.state = recorded.deliveryState;
    progress.nextAttemptAt = recorded.deliveryState === 'RETRYING' ? nextAttemptAt : null;

    if (recorded.deliveryState === 'SUCCEEDED')
      return { state: 'SUCCEEDED', attempts: attempt, reason: null };
    if (recorded.deliveryState === 'CANCELLED')
      return { state: 'CANCELLED', attempts: attempt, reason: cancelReason ?? 'DELIVERY_CANCELLED' };
    if (recorded.deliveryState === 'FAILED')
      return {
        state: 'FAILED',
        attempts: attempt,
        reason:
          recorded.disabledReason ??
          (gone ? 'GONE' : delayMs === null ? 'ATTEMPTS_EXHAUSTED' : 'SUBSCRIPTION_DISABLED'),
      };
    if (delayMs !== null && (await condition(() => cancelReason !== null, delayMs)))
      return cancel(cancelReason ?? 'CANCELLED');
  }
  return { state: 'FAILED', attempts: progress.attempts, reason: 'ATTEMPTS_EXHAUSTED' };
}
