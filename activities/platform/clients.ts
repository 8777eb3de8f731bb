/**
 * Tenants and API clients (admin CLI; docs/design.md §4 Tokens). Client secrets are 32 random
 * bytes with an environment prefix, shown once, stored as HMAC-SHA256 with the server pepper.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import { announceCredentialChange } from '../../db/notifications';
import { apiClients, caseTypes, clientSecrets, tenants } from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { credentialPrefix, type ServiceEnvironment } from '../../domain/auth';
import { DomainError, notFound, validationError } from '../../domain/errors';
import { hmacSha256Hex, toBase64Url } from '../../domain/hash';
import {
  isMakerCheckerPolicy,
  type MakerCheckerPolicy,
  makerCheckerPolicies,
} from '../../domain/maker-checker';
import {
  isValidOverlapSeconds,
  rotationExpiries,
  secretRotationOverlapSeconds,
} from '../../domain/secret-rotation';
import type { Deps } from '../deps';

/** Case types every new tenant starts with. */
export const defaultCaseTypes = [
  { code: 'GENERAL', displayName: 'General' },
  { code: 'PRIVACY', displayName: 'Privacy request' },
  { code: 'HARDSHIP', displayName: 'Hardship assistance' },
  { code: 'COMPLAINT', displayName: 'Complaint' },
] as const;

const tenantPattern = /^[a-z0-9-]{1,64}$/;

/** Digest under which a client secret is stored and compared. */
export function secretDigest(pepper: string, secret: string): string {
  return hmacSha256Hex(pepper, secret);
}

/**
 * Creates the tenant with its default case types when missing (repeatable).
 * Errors: 400 when the id is not `^[a-z0-9-]{1,64}$`.
 */
export function ensureTenant(deps: Deps) {
  return async (input: {
    tenantId: string;
    displayName?: string;
  }): Promise<{ tenantId: string; created: boolean }> => {
    if (!tenantPattern.test(input.tenantId)) {
      throw validationError(
        'tenant',
        input.tenantId,
        'A tenant id is 1 to 64 lowercase letters, digits or hyphens.',
      );
    }
    const inserted = await withPlatformTransaction(deps.db, (tx) =>
      tx
        .insert(tenants)
        .values({ id: input.tenantId, displayName: input.displayName ?? input.tenantId })
        .onConflictDoNothing()
        .returning({ id: tenants.id }),
    );
    await withTenantTransaction(deps.db, input.tenantId, (tx) =>
      tx
        .insert(caseTypes)
        .values(defaultCaseTypes.map((t) => ({ tenantId: input.tenantId, ...t })))
        .onConflictDoNothing(),
    );
    return { tenantId: input.tenantId, created: inserted.length > 0 };
  };
}

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

/**
 * Issues a new secret; the secrets active before keep working for `overlapSeconds` (default
 * 24 h, at most 7 days, 0 retires them at once). At most two secrets are active afterwards.
 * Errors: 404 unknown client; 400 overlap out of range.
 */
export function rotateClientSecret(deps: Deps) {
  return async (input: {
    clientId: string;
    overlapSeconds?: number;
  }): Promise<{ clientId: string; clientSecret: string; previousSecretExpiresAt: string }> => {
    const overlap = input.overlapSeconds ?? secretRotationOverlapSeconds.default;
    if (!isValidOverlapSeconds(overlap)) {
      throw validationError(
        'overlapSeconds',
        overlap,
        `The overlap is 0 to ${secretRotationOverlapSeconds.max} seconds.`,
      );
    }
    return withPlatformTransaction(deps.db, async (tx) => {
      const [client] = await tx
        .select()
        .from(apiClients)
        .where(eq(apiClients.clientId, input.clientId))
        .for('update');
      if (!client) throw notFound('Client', input.clientId);
      const now = deps.clock();
      const active = await tx
        .select({ id: clientSecrets.id, expiresAt: clientSecrets.expiresAt })
        .from(clientSecrets)
        .where(
          and(
            eq(clientSecrets.clientId, input.clientId),
            or(isNull(clientSecrets.expiresAt), gt(clientSecrets.expiresAt, now)),
          ),
        )
        .orderBy(asc(clientSecrets.id));
      const { updates, previousSecretExpiresAt } = rotationExpiries(active, now, overlap);
      for (const update of updates)
        await tx
          .update(clientSecrets)
          .set({ expiresAt: update.expiresAt })
          .where(eq(clientSecrets.id, update.id));
      const clientSecret = credentialPrefix('cs', client.environment) + toBase64Url(randomBytes(32));
      await tx
        .insert(clientSecrets)
        .values({ clientId: input.clientId, secretDigest: secretDigest(deps.secretPepper, clientSecret) });
      return {
        clientId: input.clientId,
        clientSecret,
        previousSecretExpiresAt: previousSecretExpiresAt.toISOString(),
      };
    });
  };
}

/**
 * Disables a client at once: its secrets no longer obtain tokens (`issueAccessToken`)
 * and its tokens are refused, since the bearer look-up reads the client's state in the same query
 * as the token (db/queries/platform.ts `findTokenGrant`) and the API's token-grant caches drop the
 * client's grants (api/token-cache.ts): at once in this process (announced on the pool after
 * commit), in every other API process when the `credential_changes` notification of the update arrives
 * (migration 0016), and within `TOKEN_CACHE_TTL_MS` (default 5 s) in the worst case. Repeatable: a
 * disabled client keeps its first `disabledAt` (ISO 8601 timestamp).
 * Errors: 404 `error.msg.resource.not.found` unknown client.
 */
export function disableClient(deps: Deps) {
  return async (input: { clientId: string }): Promise<{ clientId: string; disabledAt: string }> => {
    const result = await withPlatformTransaction(deps.db, async (tx) => {
      const [client] = await tx
        .select({ disabledAt: apiClients.disabledAt })
        .from(apiClients)
        .where(eq(apiClients.clientId, input.clientId))
        .for('update');
      if (!client) throw notFound('Client', input.clientId);
      let disabledAt = client.disabledAt;
      if (disabledAt === null) {
        disabledAt = deps.clock();
        await tx.update(apiClients).set({ disabledAt }).where(eq(apiClients.clientId, input.clientId));
      }
      return { clientId: input.clientId, disabledAt: disabledAt.toISOString() };
    });
    announceCredentialChange(deps.db, input.clientId);
    return result;
  };
}

/** A tenant's settings as `tenants settings` shows them. */
export interface TenantSettings {
  tenantId: string;
  /** domain/maker-checker.ts: `distinct-client` (default) or `same-client-distinct-actor`. */
  makerCheckerPolicy: MakerCheckerPolicy;
}

/**
 * Reads a tenant's settings and, when given, changes them first: `makerCheckerPolicy` (spec § Authentication 10; the
 * policy every maker-checker decision of the tenant is taken under from the next decision on, and recorded in it).
 * Errors: 400 naming `makerCheckerPolicy` for an unknown policy; 404 when the tenant does not exist.
 */
export function tenantSettings(deps: Deps) {
  return async (input: { tenantId: string; makerCheckerPolicy?: string }): Promise<TenantSettings> => {
    const policy = input.makerCheckerPolicy;
    if (policy !== undefined && !isMakerCheckerPolicy(policy)) {
      throw validationError(
        'makerCheckerPolicy',
        policy,
        `The maker-checker policy is one of ${makerCheckerPolicies.join(', ')}.`,
      );
    }
    const [row] = await withPlatformTransaction(deps.db, (tx) =>
      policy === undefined
        ? tx
            .select({ tenantId: tenants.id, makerCheckerPolicy: tenants.makerCheckerPolicy })
            .from(tenants)
            .where(eq(tenants.id, input.tenantId))
        : tx
            .update(tenants)
            .set({ makerCheckerPolicy: policy })
            .where(eq(tenants.id, input.tenantId))
            .returning({ tenantId: tenants.id, makerCheckerPolicy: tenants.makerCheckerPolicy }),
    );
    if (!row) throw notFound('Tenant', input.tenantId);
    return row;
  };
}

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
