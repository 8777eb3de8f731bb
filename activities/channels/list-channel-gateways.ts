/**
 * Lists a tenant's channel gateways (docs/design.md §5 "Inbound channel events"), without their secrets.
 * Platform read, outside row-level security.
 */
import { asc, eq } from 'drizzle-orm';
import { channelGateways } from '../../db/schema';
import type { Deps } from '../deps';

/** A tenant's gateways (no secrets). */
export function listChannelGateways(deps: Deps) {
  return async (input: { tenantId: string }) => {
    const rows = await deps.db
      .select()
      .from(channelGateways)
      .where(eq(channelGateways.tenantId, input.tenantId))
      .orderBy(asc(channelGateways.code));
    return rows.map((g) => ({
      gatewayCode: g.code,
      tenant: g.tenantId,
      createdAt: g.createdAt.toISOString(),
      disabledAt: g.disabledAt?.toISOString() ?? null,
    }));
  };
}
