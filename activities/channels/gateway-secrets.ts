/**
 * What the channel gateway operations share (docs/design.md §5 "Inbound channel events"): the gateway code's
 * format and the gateway secrets. Secrets are `gws_` + base64url of 32 random bytes, shown once, stored
 * AES-256-GCM encrypted under the data-encryption key (verifying an HMAC needs the secret itself), bound to their
 * gateway by the AAD; the active ones are those not yet expired.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import { channelGatewaySecrets } from '../../db/schema';
import type { DbExecutor } from '../../db/tenant-tx';
import { toBase64Url } from '../../domain/hash';

export const gatewayCodePattern = /^[a-z0-9-]{1,64}$/;
/** AES-GCM additional data: binds a ciphertext to its gateway (activities/common/encryption.ts). */
export const secretAad = (gatewayCode: string) => `channel-gateway-secret/v1|${gatewayCode}`;

export function newGatewaySecret(): string {
  return `gws_${toBase64Url(randomBytes(32))}`;
}

export async function activeSecretRows(executor: DbExecutor, code: string, at: Date) {
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
