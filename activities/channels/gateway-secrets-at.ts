/**
 * The tenant and valid secrets of a channel gateway (docs/design.md §5 "Inbound channel events"), read to verify
 * an inbound event's signature before a tenant is known. Platform read, outside row-level security.
 */
import { eq } from 'drizzle-orm';
import { channelGateways } from '../../db/schema';
import { decryptField } from '../common/encryption';
import type { Deps } from '../deps';
import { activeSecretRows, gatewayCodePattern, secretAad } from './gateway-secrets';

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
