/**
 * Creates an API client of a tenant with its first secret, shown once (admin CLI; docs/design.md §4 Tokens):
 * `createClient`.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { apiClients, clientSecrets, tenants } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { credentialPrefix, type ServiceEnvironment } from '../../domain/auth';
import { notFound } from '../../domain/errors';
import { toBase64Url } from '../../domain/hash';
import type { Deps } from '../deps';
import { secretDigest } from './client-secrets';
import { ensureTenant } from './ensure-tenant';

export interface CreateClientInput {
  tenantId: string;
  environment: ServiceEnvironment;
  scopes: string[];
  /** Permission names or `['ALL']`. */
  permissions: string[];
  /** Requests per second; null takes the environment default. */
  rateLimitPerSecond?: number | null;
  description?: string | null;
  /**
   * Create the tenant (with its default case types) when it does not exist yet. Default false: a
   * client of an unknown tenant is refused (no implicit tenants; a typo must not make one).
   */
  createTenant?: boolean;
}

export interface CreatedClient {
  clientId: string;
  /** Shown once; only its digest is stored. */
  clientSecret: string;
  tenant: string;
  environment: ServiceEnvironment;
  scopes: string[];
  permissions: string[];
}

/**
 * Creates an API client with one active secret. The tenant must exist unless `createTenant` is
 * true (then it is created when missing, with its default case types).
 * Errors: 404 `error.msg.resource.not.found` unknown tenant without `createTenant`; 400 tenant id
 * not `^[a-z0-9-]{1,64}$` (with `createTenant`).
 */
export function createClient(deps: Deps) {
  const ensure = ensureTenant(deps);
  return async (input: CreateClientInput): Promise<CreatedClient> => {
    if (input.createTenant) await ensure({ tenantId: input.tenantId });
    const clientId = `cli_${toBase64Url(randomBytes(12))}`;
    const clientSecret = credentialPrefix('cs', input.environment) + toBase64Url(randomBytes(32));
    await withPlatformTransaction(deps.db, async (tx) => {
      const [tenant] = await tx
        .select({ id: tenants.id })
        .from(tenants)
        .where(eq(tenants.id, input.tenantId));
      if (!tenant) throw notFound('Tenant', input.tenantId);
      await tx.insert(apiClients).values({
        clientId,
        tenantId: input.tenantId,
        environment: input.environment,
        scopes: input.scopes,
        permissions: input.permissions,
        rateLimitPerSecond: input.rateLimitPerSecond ?? null,
        description: input.description ?? null,
      });
      await tx
        .insert(clientSecrets)
        .values({ clientId, secretDigest: secretDigest(deps.secretPepper, clientSecret) });
    });
    return {
      clientId,
      clientSecret,
      tenant: input.tenantId,
      environment: input.environment,
      scopes: input.scopes,
      permissions: input.permissions,
    };
  };
}
