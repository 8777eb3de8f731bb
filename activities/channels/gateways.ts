/**
 * Channel gateways and their signing secrets (docs/design.md §5 "Inbound channel events"; docs/processes.md
 * P2: gateways are registered by the admin CLI). Platform operations: gateways are looked up by
 * code before a tenant is known, so they live outside row-level security like API clients.
 *
 * Secrets are `gws_` + base64url of 32 random bytes, shown once, stored AES-256-GCM encrypted
 * under the data-encryption key (verifying an HMAC needs the secret itself). Rotation keeps the
 * newest previous secret valid for an overlap (default 24 h, at most 7 days, 0 retires it at
 * once), so a gateway can switch without losing events.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import { channelGatewaySecrets, channelGateways, tenants } from '../../db/schema';
import { type DbExecutor, withPlatformTransaction } from '../../db/tenant-tx';
import { DomainError, notFound, validationError } from '../../domain/errors';
import { toBase64Url } from '../../domain/hash';
import {
  isValidOverlapSeconds,
  rotationExpiries,
  secretRotationOverlapSeconds,
} from '../../domain/secret-rotation';
import { decryptField, encryptField } from '../common/encryption';
import type { Deps } from '../deps';

const gatewayCodePattern = /^[a-z0-9-]{1,64}$/;
/** AES-GCM additional data: binds a ciphertext to its gateway (activities/common/encryption.ts). */
const secretAad = (gatewayCode: string) => `channel-gateway-secret/v1|${gatewayCode}`;

function newGatewaySecret(): string {
  return `gws_${toBase64Url(randomBytes(32))}`;
}

/**
 * Registers gateway `code` for `tenantId` and returns its first secret (shown once).
 * Errors: 400 for a code that is not 1–64 lower-case letters, digits and hyphens; 404 unknown
 * tenant; 409 `error.msg.channel.gateway.duplicate` when the code is taken.
 */
export function createChannelGateway(deps: Deps) {
  return async (input: {
    tenantId: string;
    code: string;
  }): Promise<{ gatewayCode: string; tenant: string; gatewaySecret: string }> => {
    if (!gatewayCodePattern.test(input.code))
      throw validationError(
        'code',
        input.code,
        'A gateway code is 1 to 64 lower-case letters, digits and hyphens.',
      );
    return withPlatformTransaction(deps.db, async (tx) => {
      const [tenant] = await tx
        .select({ id: tenants.id })
        .from(tenants)
        .where(eq(tenants.id, input.tenantId));
      if (!tenant) throw notFound('Tenant', input.tenantId);
      const [created] = await tx
        .insert(channelGateways)
        .values({ code: input.code, tenantId: input.tenantId })
        .onConflictDoNothing()
        .returning({ code: channelGateways.code });
      if (!created)
        throw new DomainError('error.msg.channel.gateway.duplicate', `Gateway ${input.code} already exists.`);
      const gatewaySecret = newGatewaySecret();
      await tx.insert(channelGatewaySecrets).values({
        gatewayCode: input.code,
        secretCiphertext: encryptField(deps.dataEncryptionKey, secretAad(input.code), gatewaySecret),
      });
      return { gatewayCode: input.code, tenant: input.tenantId, gatewaySecret };
    });
  };
}

/**
 * Issues a new secret for gateway `code`; the newest previous one stays valid for
 * `overlapSeconds` (default 86 400, at most 604 800; 0 retires it at once), older ones end now.
 * Errors: 404 unknown gateway; 400 overlap out of range.
 */
export function rotateChannelGatewaySecret(deps: Deps) {
  return async (input: {
    code: string;
    overlapSeconds?: number;
  }): Promise<{ gatewayCode: string; gatewaySecret: string; previousSecretExpiresAt: string }> => {
    const overlap = input.overlapSeconds ?? secretRotationOverlapSeconds.default;
    if (!isValidOverlapSeconds(overlap))
      throw validationError(
        'overlapSeconds',
        overlap,
        `The overlap is 0 to ${secretRotationOverlapSeconds.max} seconds.`,
      );
    return withPlatformTransaction(deps.db, async (tx) => {
      const [gateway] = await tx
        .select()
        .from(channelGateways)
        .where(eq(channelGateways.code, input.code))
        .for('update');
      if (!gateway) throw notFound('Gateway', input.code);
      const now = deps.clock();
      const active = await activeSecretRows(tx, input.code, now);
      const { updates, previousSecretExpiresAt } = rotationExpiries(active, now, overlap);
      for (const update of updates)
        await tx
          .update(channelGatewaySecrets)
          .set({ expiresAt: update.expiresAt })
          .where(eq(channelGatewaySecrets.id, update.id));
      const gatewaySecret = newGatewaySecret();
      await tx.insert(channelGatewaySecrets).values({
        gatewayCode: input.code,
        secretCiphertext: encryptField(deps.dataEncryptionKey, secretAad(input.code), gatewaySecret),
      });
      return {
        gatewayCode: input.code,
        gatewaySecret,
        previousSecretExpiresAt: previousSecretExpiresAt.toISOString(),
      };
    });
  };
}

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

async function activeSecretRows(executor: DbExecutor, code: string, at: Date) {
  return executor
    .select()
    .from(channelGatewaySecrets)
    .where(
      and(
        eq(channelGatewaySecrets.gatewayCode, code),
        or(isNull(channelGatewaySecrets.expiresAt), gt(channelGatewaySecrets.expiresAt, at)),
      ),
    )
    .orderBy(asc(channelGatewaySecrets.id));
}

/**
 * The tenant and the secrets valid at `at` of an enabled gateway, newest last; null when the code
 * names no enabled gateway. Platform read (the tenant is not known yet).
 */
export async function gatewaySecretsAt(
  deps: Deps,
  code: string,
  at: Date,
): Promise<{ tenantId: string; secrets: string[] } | null> {
  if (!gatewayCodePattern.test(code)) return null;
  const [gateway] = await deps.db.select().from(channelGateways).where(eq(channelGateways.code, code));
  if (!gateway || gateway.disabledAt) return null;
  const rows = await activeSecretRows(deps.db, code, at);
  return {
    tenantId: gateway.tenantId,
    secrets: rows.map((r) => decryptField(deps.dataEncryptionKey, secretAad(code), r.secretCiphertext)),
  };
}
