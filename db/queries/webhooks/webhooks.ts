/**
 * Read queries of the webhooks context (docs/processes.md P2): subscriptions as the API shows them
 * (never a secret) and a subscription's deliveries with their attempts. Each runs in a
 * tenant-scoped transaction, so row-level security confines it to `tenantId`.
 */
import { and, asc, desc, eq, gt, inArray, lt } from 'drizzle-orm';
import type { Db } from '../../client';
import { webhookDeliveries, webhookDeliveryAttempts, webhookSubscriptions } from '../../schema';
import { type DbExecutor, withTenantTransaction } from '../../tenant-tx';

export type WebhookSubscriptionStatus = (typeof webhookSubscriptions.$inferSelect)['status'];
export type WebhookDeliveryState = (typeof webhookDeliveries.$inferSelect)['state'];

/** A subscription as every route shows it (docs/integrating.md "Webhooks": "later reads expose only secretVersion"). */
export interface WebhookSubscriptionView {
  subscriptionId: number;
  /** The destination (https in production; docs/processes.md P2 URLs). */
  url: string;
  /** Catalogue event types (domain/events.ts) delivered to it. */
  eventTypes: string[];
  /** `YYYY-MM-DD`: the `apiVersion` of the envelopes it receives. */
  apiVersion: string;
  description: string;
  /** Also receives the events of portfolio boarding (`source` `BOARDING`); false unless asked for. */
  includeBoardedHistory: boolean;
  status: WebhookSubscriptionStatus;
  /** Only when the service disabled it: `GONE` (a 410) or `FAILING` (5 days of failures). */
  disabledReason?: string;
  /** Version of the newest signing secret (1 at creation, +1 per rotation). */
  secretVersion: number;
  /** Optimistic-concurrency version: the `ETag` (`"<version>"`), sent back in `If-Match`. */
  version: number;
  /** ISO 8601 instants. */
  createdAt: string;
  updatedAt: string;
}

/** The API view of a subscription row. */
export function webhookSubscriptionView(
  row: typeof webhookSubscriptions.$inferSelect,
): WebhookSubscriptionView {
  return {
    subscriptionId: row.id,
    url: row.url,
    eventTypes: row.eventTypes,
    apiVersion: row.apiVersion,
    description: row.description,
    includeBoardedHistory: row.includeBoardedHistory,
    status: row.status,
    ...(row.disabledReason === null ? {} : { disabledReason: row.disabledReason }),
    secretVersion: row.secretVersion,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The subscription row of `tenantId`, or null (another tenant's → null). */
export async function getWebhookSubscriptionRow(
  executor: DbExecutor,
  tenantId: string,
  subscriptionId: number,
): Promise<typeof webhookSubscriptions.$inferSelect | null> {
  const [row] = await executor
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.tenantId, tenantId), eq(webhookSubscriptions.id, subscriptionId)));
  return row ?? null;
}

/** A subscription as the API shows it, or null when absent or another tenant's. */
export async function getWebhookSubscription(
  db: Db,
  tenantId: string,
  subscriptionId: number,
): Promise<WebhookSubscriptionView | null> {
  const row = await withTenantTransaction(db, tenantId, (tx) =>
    getWebhookSubscriptionRow(tx, tenantId, subscriptionId),
  );
  return row ? webhookSubscriptionView(row) : null;
}

/**
 * One page of the tenant's subscriptions in creation order (keyset on id): up to `limit + 1`
 * rows after `afterId`, so the caller knows whether another page follows.
 */
export async function listWebhookSubscriptions(
  db: Db,
  tenantId: string,
  page: { afterId: number | null; limit: number },
): Promise<WebhookSubscriptionView[]> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.tenantId, tenantId),
          page.afterId === null ? undefined : gt(webhookSubscriptions.id, page.afterId),
        ),
      )
      .orderBy(asc(webhookSubscriptions.id))
      .limit(page.limit + 1),
  );
  return rows.map(webhookSubscriptionView);
}

/** One HTTP attempt of a delivery (docs/design.md §5 Webhooks). */
export interface WebhookDeliveryAttemptView {
  /** 1-based. */
  attempt: number;
  /** ISO 8601 instant the attempt was made. */
  at: string;
  /** HTTP status answered, or null when none came (timeout, refused, blocked address). */
  responseStatus: number | null;
  latencyMs: number;
  /** Short reason when no 2xx came, else null. */
  error: string | null;
}

/** A delivery of one event to one subscription, with its attempts and retry state. */
export interface WebhookDeliveryView {
  /** `whd_…`: the `Service-Webhook-Id` header of every attempt. */
  deliveryId: string;
  eventId: string;
  eventType: string;
  state: WebhookDeliveryState;
  attempts: WebhookDeliveryAttemptView[];
  /** ISO 8601 instant of the next planned attempt, or null once the delivery has ended. */
  nextAttemptAt: string | null;
}

/**
 * One page of a subscription's deliveries, newest first (keyset on id, descending), optionally
 * filtered by `eventType` and `state`: up to `limit + 1` deliveries before `beforeId`, with the
 * attempts of all of them read in one further query (no N+1), each list in attempt order.
 * Returns the row id of each delivery for the caller's cursor.
 */
export async function listWebhookDeliveries(
  db: Db,
  tenantId: string,
  subscriptionId: number,
  page: {
    beforeId: number | null;
    limit: number;
    eventType?: string | undefined;
    state?: WebhookDeliveryState | undefined;
  },
): Promise<(WebhookDeliveryView & { rowId: number })[]> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const deliveries = await tx
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.tenantId, tenantId),
          eq(webhookDeliveries.subscriptionId, subscriptionId),
          page.beforeId === null ? undefined : lt(webhookDeliveries.id, page.beforeId),
          page.eventType === undefined ? undefined : eq(webhookDeliveries.eventType, page.eventType),
          page.state === undefined ? undefined : eq(webhookDeliveries.state, page.state),
        ),
      )
      .orderBy(desc(webhookDeliveries.id))
      .limit(page.limit + 1);
    if (deliveries.length === 0) return [];
    const attempts = await tx
      .select()
      .from(webhookDeliveryAttempts)
      .where(
        and(
          eq(webhookDeliveryAttempts.tenantId, tenantId),
          inArray(
            webhookDeliveryAttempts.deliveryId,
            deliveries.map((d) => d.deliveryId),
          ),
        ),
      )
      .orderBy(asc(webhookDeliveryAttempts.deliveryId), asc(webhookDeliveryAttempts.attempt));
    const byDelivery = new Map<string, WebhookDeliveryAttemptView[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.deliveryId) ?? [];
      list.push({
        attempt: a.attempt,
        at: a.at.toISOString(),
        responseStatus: a.responseStatus,
        latencyMs: a.latencyMs,
        error: a.error,
      });
      byDelivery.set(a.deliveryId, list);
    }
    return deliveries.map((d) => ({
      rowId: d.id,
      deliveryId: d.deliveryId,
      eventId: d.eventId,
      eventType: d.eventType,
      state: d.state,
      attempts: byDelivery.get(d.deliveryId) ?? [],
      nextAttemptAt: d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    }));
  });
}
