/** Read queries of the platform context (no tenant scope: they run before a tenant is known). */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../client';
import { accessTokens, apiClients } from '../../schema';

export interface TokenGrant {
  clientId: string;
  tenantId: string;
  environment: 'sandbox' | 'production';
  scopes: string[];
  permissions: string[];
  rateLimitPerSecond: number | null;
  expiresAt: Date;
}

/**
 * The grant behind an access-token digest, or null when unknown or its client is disabled (expired
 * grants are returned: the caller refuses them). The bearer middleware reads it through the API's
 * token-grant cache (api/token-cache.ts), which the `credential_changes` triggers keep current.
 */
export async function findTokenGrant(db: Db, tokenDigest: string): Promise<TokenGrant | null> {
  const [row] = await db
    .select({
      clientId: accessTokens.clientId,
      tenantId: accessTokens.tenantId,
      environment: accessTokens.environment,
      scopes: accessTokens.scopes,
      permissions: apiClients.permissions,
      rateLimitPerSecond: apiClients.rateLimitPerSecond,
      expiresAt: accessTokens.expiresAt,
    })
    .from(accessTokens)
    .innerJoin(apiClients, eq(apiClients.clientId, accessTokens.clientId))
    .where(and(eq(accessTokens.tokenDigest, tokenDigest), isNull(apiClients.disabledAt)));
  return row ?? null;
}

/** True when the database answers. */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
