/**
 * OAuth 2.0 client-credentials grant (RFC 6749 §4.4; docs/design.md §4 Tokens).
 * Access tokens are opaque 256-bit random values with an environment prefix, stored only as
 * SHA-256 digests with client, tenant, environment, scopes and expiry.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, or } from 'drizzle-orm';
import { accessTokens, apiClients, clientSecrets } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { accessTokenLifetimeSeconds, credentialPrefix } from '../../domain/auth';
import { OAuthError } from '../../domain/errors';
import { sha256Hex, timingSafeEqualText, toBase64Url } from '../../domain/hash';
import type { Deps } from '../deps';
import { secretDigest } from './client-secrets';

export interface IssueAccessTokenInput {
  clientId: string;
  clientSecret: string;
  grantType: string;
  /** Space-separated requested scopes; absent means all of the client's scopes. */
  scope?: string | undefined;
}

/** The token response of RFC 6749 §5.1. */
export interface AccessTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/**
 * Verifies the client's credentials (constant-time against each active secret) and issues a
 * token for the requested subset of its scopes.
 * Errors (OAuthError): `invalid_client` (401) unknown client, wrong secret, disabled client, or a
 * client of the other environment; `unsupported_grant_type` (400); `invalid_scope` (400).
 */
export function issueAccessToken(deps: Deps) {
  return async (input: IssueAccessTokenInput): Promise<AccessTokenResponse> => {
    if (input.grantType !== 'client_credentials') {
      throw new OAuthError('unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
    }
    const [client] = await deps.db.select().from(apiClients).where(eq(apiClients.clientId, input.clientId));
    const now = deps.clock();
    const secrets = client
      ? await deps.db
          .select({ digest: clientSecrets.secretDigest })
          .from(clientSecrets)
          .where(
            and(
              eq(clientSecrets.clientId, client.clientId),
              or(isNull(clientSecrets.expiresAt), gt(clientSecrets.expiresAt, now)),
            ),
          )
      : [];
    const presented = secretDigest(deps.secretPepper, input.clientSecret);
    let matched = false;
    for (const secret of secrets) matched = timingSafeEqualText(secret.digest, presented) || matched;
    if (!client || !matched || client.disabledAt !== null || client.environment !== deps.environment) {
      throw new OAuthError('invalid_client', 'Client authentication failed.');
    }
    const requested =
      input.scope === undefined ? client.scopes : input.scope.split(' ').filter((s) => s.length > 0);
    const notGranted = requested.filter((s) => !client.scopes.includes(s));
    if (notGranted.length > 0 || requested.length === 0) {
      throw new OAuthError(
        'invalid_scope',
        `Scope not granted to this client: ${notGranted.join(' ') || '(empty)'}.`,
      );
    }
    const token = credentialPrefix('at', client.environment) + toBase64Url(randomBytes(32));
    await withPlatformTransaction(deps.db, (tx) =>
      tx.insert(accessTokens).values({
        tokenDigest: sha256Hex(token),
        clientId: client.clientId,
        tenantId: client.tenantId,
        environment: client.environment,
        scopes: requested,
        issuedAt: now,
        expiresAt: new Date(now.getTime() + accessTokenLifetimeSeconds * 1000),
      }),
    );
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: accessTokenLifetimeSeconds,
      scope: requested.join(' '),
    };
  };
}
