/**
 * Rules shared by the subscription operations: the URL policy of the deployment's environment and
 * the row lock that every change of a subscription takes first.
 */
import { and, eq } from 'drizzle-orm';
import { webhookSubscriptions } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { notFound, validationError } from '../../domain/errors';
import { checkWebhookUrl } from '../../domain/webhooks/url-policy';
import type { Deps } from '../deps';

/** 400 naming `url` with the policy's reason when `url` may not receive webhooks in this environment. */
export function assertWebhookUrl(deps: Deps, url: string): void {
  const verdict = checkWebhookUrl(url, deps.environment);
  if (!verdict.ok)
    throw validationError('url', url, `url is not an allowed webhook destination: ${verdict.reason}.`);
}

/** The subscription row, locked `FOR UPDATE`; 404 when absent or another tenant's. */
export async function lockSubscription(
  tx: Tx,
  tenantId: string,
  subscriptionId: number,
): Promise<typeof webhookSubscriptions.$inferSelect> {
  const [row] = await tx
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.tenantId, tenantId), eq(webhookSubscriptions.id, subscriptionId)))
    .for('update');
  if (!row) throw notFound('Webhook subscription', subscriptionId);
  return row;
}
