/**
 * Helpers shared by the customer operations, always called inside the caller's transaction:
 * locking the aggregate's root row, and appending to the customer's append-only history while
 * bumping the root's `updated_at` (DESIGN §3: history is append-only; spec § Limits: customer
 * lists are newest-modified first).
 */
import { and, eq } from 'drizzle-orm';
import { customerHistory, customers } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';

/**
 * Locks the customer row `FOR UPDATE` for the rest of the transaction, serializing every change
 * of the aggregate (and any guarded command holding it `FOR SHARE`, see restrictions.ts).
 * Throws 404 `error.msg.resource.not.found` when the customer is not the tenant's.
 */
export async function lockCustomer(tx: Tx, tenantId: string, customerId: number): Promise<void> {
  const [row] = await tx
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.tenantId, tenantId), eq(customers.id, customerId)))
    .for('update');
  if (!row) throw notFound('Customer', customerId);
}

export interface CustomerChange {
  tenantId: string;
  customerId: number;
  /** e.g. CUSTOMER_CREATED, IDENTIFIER_ADDED, RESTRICTION_RELEASED. */
  action: string;
  /** What changed; never a full identifier value (masks only). */
  detail: Record<string, unknown>;
  actor?: string | null;
  correlationId?: string | null;
  occurredAt: Date;
}

/**
 * Appends one history entry and sets the customer's `updated_at` to `occurredAt`. Call it only
 * when the change really happened in this transaction (a replay writes nothing), which is what
 * keeps the history free of duplicates without a dedupe key.
 */
export async function recordCustomerChange(tx: Tx, change: CustomerChange): Promise<void> {
  await tx.insert(customerHistory).values({
    tenantId: change.tenantId,
    customerId: change.customerId,
    action: change.action,
    detail: change.detail,
    actorUsername: change.actor ?? null,
    correlationId: change.correlationId ?? null,
    occurredAt: change.occurredAt,
  });
  await tx
    .update(customers)
    .set({ updatedAt: change.occurredAt })
    .where(and(eq(customers.tenantId, change.tenantId), eq(customers.id, change.customerId)));
}
