/**
 * Disables an API client at once (admin CLI; docs/design.md §4 Tokens): `disableClient`.
 */

import { eq } from 'drizzle-orm';
import { announceCredentialChange } from '../../db/notifications';
import { apiClients } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { Deps } from '../deps';

/**
 * Disables a client at once: its secrets no longer obtain tokens (`issueAccessToken`)
 * and its tokens are refused, since the bearer look-up reads the client's state in the same query
 * as the token (db/queries/platform/clients.ts `findTokenGrant`) and the API's token-grant caches drop the
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
