/**
 * `POST /oauth2/token`: OAuth 2.0 client-credentials grant (docs/design.md §4 Tokens;
 * RFC 6749 §4.4, errors §5.2). HTTP Basic client id and secret; form body
 * `grant_type=client_credentials` and optional `scope` (a subset of the client's scopes, default
 * all) → `{access_token, token_type: "Bearer", expires_in: 3600, scope}` with `Cache-Control: no-store`.
 * Errors: 401 `invalid_client` (+ `WWW-Authenticate: Basic`), 400 `unsupported_grant_type`,
 * `invalid_scope`, `invalid_request`; 429 Shape A from `tokenRateLimit` (api/middleware/rate-limit.ts).
 * Its public address is `<AUTH_BASE_URL>/oauth2/token` when `AUTH_BASE_URL` is set (docs/design.md §4;
 * api/openapi.ts `withTokenAddress`).
 */
import { describeRoute } from 'hono-openapi';
import { OAuthError } from '../../domain/errors';
import { factory } from '../env';
import { basicCredentials } from '../middleware/auth';

export const oauthRoutes = factory.createApp().post(
  '/token',
  describeRoute({
    tags: ['Authentication'],
    summary: 'Issue an access token (client credentials)',
    description:
      'HTTP Basic authentication with the client id and secret; `application/x-www-form-urlencoded` body with `grant_type=client_credentials` and an optional space-separated `scope`.',
    security: [{ basicClient: [] }],
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['grant_type'],
            properties: {
              grant_type: { type: 'string', enum: ['client_credentials'] },
              scope: { type: 'string' },
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: 'Token issued',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                access_token: { type: 'string' },
                token_type: { type: 'string', enum: ['Bearer'] },
                expires_in: { type: 'integer' },
                scope: { type: 'string' },
              },
            },
          },
        },
      },
      400: { description: '`invalid_request`, `unsupported_grant_type` or `invalid_scope` (RFC 6749 §5.2)' },
      401: { description: '`invalid_client`' },
      429: {
        description:
          'Too many token requests for this client id (Shape A `error.msg.rate.limited`, `Retry-After` in seconds; docs/design.md §5)',
      },
    },
  }),
  async (c) => {
    const contentType = c.req.header('content-type') ?? '';
    if (!/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
      throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
    }
    const form = new URLSearchParams(await c.req.text());
    for (const name of ['grant_type', 'scope']) {
      if (form.getAll(name).length > 1)
        throw new OAuthError('invalid_request', `${name} appears more than once.`);
    }
    const grantType = form.get('grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
    const credentials = basicCredentials(c.req.header('authorization'));
    if (!credentials) throw new OAuthError('invalid_client', 'HTTP Basic client authentication is required.');
    const scope = form.get('scope');
    const token = await c.get('deps').platform.issueAccessToken({
      ...credentials,
      grantType,
      scope: scope === null ? undefined : scope,
    });
    return c.json(token, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  },
);
