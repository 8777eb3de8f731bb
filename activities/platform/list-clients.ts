/**
 * Lists a tenant's API clients, no secrets (admin CLI; docs/design.md §4 Tokens): `listClients`.
 */

import { asc, eq } from 'drizzle-orm';
import { apiClients, tenants } from '../../db/schema';
import { DomainError } from '../../domain/errors';
import type { Deps } from '../deps';

/** Lists a tenant's clients (no secrets). Errors: 404 when the tenant does not exist. */
export function listClients(deps: Deps) {
  return async (input: { tenantId: string }) => {
    const [tenant] = await deps.db.select().from(tenants).where(eq(tenants.id, input.tenantId));
    if (!tenant)
      throw new DomainError('error.msg.resource.not.found', `Tenant ${input.tenantId} was not found.`);
    const rows = await deps.db
      .select()
      .from(apiClients)
      .where(eq(apiClients.tenantId, input.tenantId))
      .orderBy(asc(apiClients.createdAt));
    return rows.map((c) => ({
      clientId: c.clientId,
      tenant: c.tenantId,
      environment: c.environment,
      scopes: c.scopes,
      permissions: c.permissions,
      rateLimitPerSecond: c.rateLimitPerSecond,
      createdAt: c.createdAt.toISOString(),
      disabledAt: c.disabledAt?.toISOString() ?? null,
    }));
  };
}
