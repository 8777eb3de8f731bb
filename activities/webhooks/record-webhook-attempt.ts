/**
 * `recordWebhookAttempt` (docs/design.md §5 Webhooks; docs/processes.md P2): records the outcome of one
 * attempt in one transaction, idempotently (a retried call leaves one attempt row and the same
 * state).
 *
 * - Appends the attempt (`webhook_delivery_attempts`, unique on delivery id + attempt number).
 * - 2xx → delivery `SUCCEEDED`; the subscription's `failingSince` cleared.
 * - 410 → delivery `FAILED`; an `ACTIVE` subscription becomes `DISABLED` (`GONE`).
 * - Other failure → `failingSince` set when not yet set; when the subscription has been failing
 *   for 5 days (`shouldDisableForFailures`), it becomes `DISABLED` (`FAILING`) and the delivery
 *   `FAILED`; otherwise the delivery is `RETRYING` until `nextAttemptAt`, or `FAILED` when the
 *   workflow planned no further attempt (`nextAttemptAt` null).
 * A delivery already `CANCELLED` keeps that state (its attempt is still recorded).
 * The endpoint's circuit breaker (domain/webhooks/circuit-breaker.ts) counts the outcome once:
 * 2xx closes it, a failure counts towards opening it (or re-opens it after a failed probe); the
 * delivery's slot in its tenant's concurrency cap (`admitWebhookAttempt`) is freed.
 * With `wakeWaiters`, the slot and the breaker change under the tenant's admission lock, and the result names the
 * waiting deliveries of the tenant to wake (`wake`: workflow ids, for the caller to signal `admissionWake`; see
 * `activities/webhooks/admission-waiters.ts`); without it (deliveries started before the wake-up), `wake` is empty.
 * Instants are ISO strings chosen by the workflow (its deterministic clock), not `deps.clock()`,
 * so the 5-day rule follows the delivery's own timeline.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookDeliverySlots,
  webhookSubscriptions,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { breakerAfterAttempt } from '../../domain/webhooks/circuit-breaker';
import { defaultWebhookLimits } from '../../domain/webhooks/limits';
import {
  isGoneStatus,
  isSuccessStatus,
  shouldDisableForFailures,
} from '../../domain/webhooks/retry-schedule';
import type { Deps } from '../deps';
import { lockTenantAdmission, waitersToWake } from './admission-waiters';
import { lockBreaker, storeBreaker } from './admit-webhook-attempt';

export type WebhookDeliveryState = 'PENDING' | 'RETRYING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface RecordWebhookAttemptInput {
  tenantId: string;
  subscriptionId: number;
  deliveryId: string;
  /** 1-based attempt number. */
  attempt: number;
  /** ISO instant the attempt started (workflow time). */
  at: string;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  /** ISO instant of the next planned attempt; null when this was the last one. */
  nextAttemptAt: string | null;
  /** Name the waiting deliveries to wake (the caller signals them). */
  wakeWaiters?: boolean;
}

export interface RecordWebhookAttemptResult {
  deliveryState: WebhookDeliveryState;
  /** Set when this attempt disabled the subscription (`GONE` or `FAILING`). */
  disabledReason: 'GONE' | 'FAILING' | null;
  /** Workflow ids of the waiting deliveries to signal `admissionWake` (empty without `wakeWaiters`). */
  wake: string[];
}

export const recordWebhookAttempt =
  (deps: Deps) =>
  async (input: RecordWebhookAttemptInput): Promise<RecordWebhookAttemptResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const at = new Date(input.at);
      // First, before any row lock: an admission holds this lock while it locks the breaker row.
      if (input.wakeWaiters) await lockTenantAdmission(tx, input.tenantId);
      const inserted = await tx
        .insert(webhookDeliveryAttempts)
        .values({
          tenantId: input.tenantId,
          deliveryId: input.deliveryId,
          attempt: input.attempt,
          at,
          responseStatus: input.responseStatus,
          latencyMs: input.latencyMs,
          error: input.error,
        })
        .onConflictDoNothing({
          target: [webhookDeliveryAttempts.deliveryId, webhookDeliveryAttempts.attempt],
        })
        .returning({ id: webhookDeliveryAttempts.id });

      const [subscription] = await tx
        .select({ status: webhookSubscriptions.status, failingSince: webhookSubscriptions.failingSince })
        .from(webhookSubscriptions)
        .where(
          and(
            eq(webhookSubscriptions.tenantId, input.tenantId),
            eq(webhookSubscriptions.id, input.subscriptionId),
          ),
        )
        .for('update');
      if (!subscription) throw new Error(`webhook subscription ${input.subscriptionId} not found`);
      const [delivery] = await tx
        .select({ state: webhookDeliveries.state })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.tenantId, input.tenantId),
            eq(webhookDeliveries.deliveryId, input.deliveryId),
          ),
        )
        .for('update');
      if (!delivery) throw new Error(`webhook delivery ${input.deliveryId} not found`);

      let state: WebhookDeliveryState;
      let disabledReason: 'GONE' | 'FAILING' | null = null;
      const updateSubscription = (values: PgUpdateSetSource<typeof webhookSubscriptions>) =>
        tx
          .update(webhookSubscriptions)
          .set(values)
          .where(
            and(
              eq(webhookSubscriptions.tenantId, input.tenantId),
              eq(webhookSubscriptions.id, input.subscriptionId),
            ),
          );
      const disable = async (reason: 'GONE' | 'FAILING') => {
        if (subscription.status !== 'ACTIVE') return;
        disabledReason = reason;
        await updateSubscription({
          status: 'DISABLED',
          disabledReason: reason,
          version: sql`${webhookSubscriptions.version} + 1`,
          updatedAt: at,
        });
      };

      if (isSuccessStatus(input.responseStatus)) {
        state = 'SUCCEEDED';
        if (subscription.failingSince) await updateSubscription({ failingSince: null });
      } else if (isGoneStatus(input.responseStatus)) {
        state = 'FAILED';
        await disable('GONE');
      } else {
        const failingSince = subscription.failingSince ?? at;
        if (!subscription.failingSince) await updateSubscription({ failingSince });
        if (shouldDisableForFailures(failingSince.getTime(), at.getTime())) {
          state = 'FAILED';
          await disable('FAILING');
        } else {
          state = input.nextAttemptAt ? 'RETRYING' : 'FAILED';
        }
      }
      if (delivery.state === 'CANCELLED') state = 'CANCELLED';

      // The endpoint's breaker counts this outcome once (a retried call inserted no attempt row),
      // and the delivery's slot in its tenant's cap is freed.
      if (inserted.length > 0) {
        const breaker = await lockBreaker(tx, input.tenantId, input.subscriptionId);
        const endedAtMs = at.getTime() + input.latencyMs;
        const next = breakerAfterAttempt(
          breaker,
          input.deliveryId,
          isSuccessStatus(input.responseStatus),
          endedAtMs,
        );
        // Stored also when unchanged but absent: the row is how a later admission knows the endpoint answered.
        if (!breaker.recorded || JSON.stringify(next) !== JSON.stringify(breaker))
          await storeBreaker(tx, input.tenantId, input.subscriptionId, next, new Date(endedAtMs));
      }
      await tx
        .delete(webhookDeliverySlots)
        .where(
          and(
            eq(webhookDeliverySlots.tenantId, input.tenantId),
            eq(webhookDeliverySlots.deliveryId, input.deliveryId),
          ),
        );
      const ended = state !== 'RETRYING';
      await tx
        .update(webhookDeliveries)
        .set({
          state,
          attemptCount: sql<number>`greatest(${webhookDeliveries.attemptCount}, ${input.attempt})`,
          nextAttemptAt: ended ? null : new Date(input.nextAttemptAt!),
          ...(ended && delivery.state !== 'CANCELLED' ? { completedAt: at } : {}),
        })
        .where(
          and(
            eq(webhookDeliveries.tenantId, input.tenantId),
            eq(webhookDeliveries.deliveryId, input.deliveryId),
          ),
        );
      const wake = input.wakeWaiters
        ? await waitersToWake(tx, {
            tenantId: input.tenantId,
            subscriptionId: input.subscriptionId,
            at: new Date(at.getTime() + input.latencyMs),
            cap: (deps.webhookLimits ?? defaultWebhookLimits).maxConcurrentDeliveriesPerTenant,
          })
        : [];
      return { deliveryState: state, disabledReason, wake };
    });
