/**
 * Issues a new secret of an API client, the earlier ones valid for an overlap (admin CLI; docs/design.md §4 Tokens):
 * `rotateClientSecret`.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import { apiClients, clientSecrets } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { credentialPrefix } from '../../domain/auth';
import { notFound, validationError } from '../../domain/errors';
import { toBase64Url } from '../../domain/hash';
import {
  isValidOverlapSeconds,
  rotationExpiries,
  secretRotationOverlapSeconds,
} from '../../domain/secret-rotation';
import type { Deps } from '../deps';
import { secretDigest } from './client-secrets';

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
