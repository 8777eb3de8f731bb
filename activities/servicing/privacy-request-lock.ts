/**
 * The lock of a privacy request shared by the operations of its workflow (docs/design.md §5 Privacy-request clocks):
 * `RequestRef` names the request, `lockRequest` reads its row `FOR UPDATE` (404 when the tenant has none).
 */
import { and, eq } from 'drizzle-orm';
import { privacyRequests } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';

/** A tenant's privacy request, by id. */
export interface RequestRef {
  tenantId: string;
  requestId: number;
}

/** The request's row, locked `FOR UPDATE` in `tx`; 404 `error.msg.resource.not.found` when the tenant has none. */
export async function lockRequest(tx: Tx, ref: RequestRef) {
  const [row] = await tx
    .select()
    .from(privacyRequests)
    .where(and(eq(privacyRequests.tenantId, ref.tenantId), eq(privacyRequests.id, ref.requestId)))
    .for('update');
  if (!row) throw notFound('Privacy request', ref.requestId);
  return row;
}
