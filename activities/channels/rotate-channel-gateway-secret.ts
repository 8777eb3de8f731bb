/**
 * Rotates a channel gateway's signing secret (docs/design.md §5 "Inbound channel events"). Rotation keeps the
 * newest previous secret valid for an overlap (default 24 h, at most 7 days, 0 retires it at once), so a gateway
 * can switch without losing events. Platform operation, outside row-level security.
 */
import { eq } from 'drizzle-orm';
import { channelGatewaySecrets, channelGateways } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { notFound, validationError } from '../../domain/errors';
import {
  isValidOverlapSeconds,
  rotationExpiries,
  secretRotationOverlapSeconds,
} from '../../domain/secret-rotation';
import { encryptField } from '../common/encryption';
import type { Deps } from '../deps';
import { activeSecretRows, newGatewaySecret, secretAad } from './gateway-secrets';

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
