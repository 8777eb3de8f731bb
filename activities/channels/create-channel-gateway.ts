/**
 * Registers a channel gateway for a tenant (docs/design.md §5 "Inbound channel events"; docs/processes.md P2:
 * gateways are registered by the admin CLI). Platform operation: gateways are looked up by code before a tenant
 * is known, so they live outside row-level security like API clients.
 */
import { eq } from 'drizzle-orm';
import { channelGatewaySecrets, channelGateways, tenants } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { DomainError, notFound, validationError } from '../../domain/errors';
import { encryptField } from '../common/encryption';
import type { Deps } from '../deps';
import { gatewayCodePattern, newGatewaySecret, secretAad } from './gateway-secrets';

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
