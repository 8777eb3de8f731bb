/**
 * API clients, their secrets and the client-credentials grant (RFC 6749 §4.4, §5.2; docs/design.md §4
 * Tokens): token issuance and each OAuthError, and secret rotation with its overlap.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accessTokens, apiClients, caseTypes, clientSecrets, tenants } from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { OAuthError, type OAuthErrorCode } from '../../domain/errors';
import { sha256Hex } from '../../domain/hash';
import { type ActivityHarness, createHarness, expectDomainError, newTenantId } from './helpers';

let h: ActivityHarness;
let tenant: string;

beforeAll(async () => {
  h = createHarness('sandbox');
  tenant = newTenantId('cli');
});
afterAll(async () => h?.close());
afterEach(() => {
  h.now.value = null;
});

function createClient(overrides: { environment?: 'sandbox' | 'production'; scopes?: string[] } = {}) {
  return h.platform.createClient({
    tenantId: tenant,
    environment: overrides.environment ?? 'sandbox',
    scopes: overrides.scopes ?? ['servicing:read', 'servicing:write'],
    permissions: ['ALL'],
    description: 'test client',
    createTenant: true,
  });
}

function token(clientId: string, clientSecret: string, extra: { grantType?: string; scope?: string } = {}) {
  return h.platform.issueAccessToken({
    clientId,
    clientSecret,
    grantType: extra.grantType ?? 'client_credentials',
    scope: extra.scope,
  });
}

async function oauthErrorOf(promise: Promise<unknown>): Promise<OAuthError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof OAuthError) return err;
    throw err;
  }
  throw new Error('expected an OAuthError, the call succeeded');
}

async function expectOAuthError(promise: Promise<unknown>, error: OAuthErrorCode, status: 400 | 401) {
  const err = await oauthErrorOf(promise);
  expect(err.error).toBe(error);
  expect(err.status).toBe(status);
}

describe('createClient / ensureTenant', () => {
  it('creates the tenant with its default case types, and a client with one stored digest (never the secret)', async () => {
    const created = await createClient();
    expect(created.clientId).toMatch(/^cli_[A-Za-z0-9_-]{16}$/);
    expect(created.clientSecret).toMatch(/^cs_test_[A-Za-z0-9_-]{43}$/);
    const [tenantRow] = await withPlatformTransaction(h.db, (tx) =>
      tx.select().from(tenants).where(eq(tenants.id, tenant)),
    );
    expect(tenantRow?.complianceTimeZone).toBe('America/Los_Angeles');
    const types = await withTenantTransaction(h.db, tenant, (tx) => tx.select().from(caseTypes));
    expect(types.map((t) => t.code).sort()).toEqual(['COMPLAINT', 'GENERAL', 'HARDSHIP', 'PRIVACY']);
    const secrets = await withPlatformTransaction(h.db, (tx) =>
      tx.select().from(clientSecrets).where(eq(clientSecrets.clientId, created.clientId)),
    );
    expect(secrets).toHaveLength(1);
    expect(secrets[0]?.expiresAt).toBeNull();
    expect(secrets[0]?.secretDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(secrets)).not.toContain(created.clientSecret);
  });

  it('ensureTenant is repeatable and reports whether it created the tenant', async () => {
    const id = newTenantId('ens');
    expect(await h.platform.ensureTenant({ tenantId: id })).toEqual({ tenantId: id, created: true });
    expect(await h.platform.ensureTenant({ tenantId: id })).toEqual({ tenantId: id, created: false });
    const types = await withTenantTransaction(h.db, id, (tx) => tx.select().from(caseTypes));
    expect(types).toHaveLength(4);
  });

  it.each(['Upper', 'has space', '', 'x'.repeat(65), 'under_score'])(
    'ensureTenant rejects the tenant id %j',
    async (id) => {
      const err = await expectDomainError(
        h.platform.ensureTenant({ tenantId: id }),
        'validation.msg.validation.errors.exist',
      );
      expect(err.errors[0]?.parameterName).toBe('tenant');
    },
  );

  it('refuses a client of an unknown tenant unless createTenant is asked for (no implicit tenants)', async () => {
    const missing = newTenantId('none');
    const input = {
      tenantId: missing,
      environment: 'sandbox' as const,
      scopes: ['servicing:read'],
      permissions: ['ALL'],
    };
    const err = await expectDomainError(h.platform.createClient(input), 'error.msg.resource.not.found');
    expect(err.message).toContain(missing);
    const rows = await withPlatformTransaction(h.db, (tx) =>
      tx.select().from(tenants).where(eq(tenants.id, missing)),
    );
    expect(rows).toHaveLength(0);
    const clients = await withPlatformTransaction(h.db, (tx) =>
      tx.select().from(apiClients).where(eq(apiClients.tenantId, missing)),
    );
    expect(clients).toHaveLength(0);
    // An existing tenant needs no flag; createTenant on an existing tenant is repeatable.
    const created = await h.platform.createClient({ ...input, createTenant: true });
    expect(created.tenant).toBe(missing);
    expect((await h.platform.createClient(input)).tenant).toBe(missing);
    expect((await h.platform.createClient({ ...input, createTenant: true })).tenant).toBe(missing);
  });

  it('listClients lists the tenant’s clients without secrets; 404 for an unknown tenant', async () => {
    const created = await createClient();
    const listed = await h.platform.listClients({ tenantId: tenant });
    expect(listed.map((c) => c.clientId)).toContain(created.clientId);
    expect(JSON.stringify(listed)).not.toContain('cs_test_');
    await expectDomainError(
      h.platform.listClients({ tenantId: newTenantId('none') }),
      'error.msg.resource.not.found',
    );
  });
});

describe('issueAccessToken', () => {
  it('issues a Bearer token for all the client’s scopes and stores only its digest', async () => {
    const c = await createClient();
    h.now.value = new Date('2026-04-01T00:00:00.000Z');
    const res = await token(c.clientId, c.clientSecret);
    expect(res).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'servicing:read servicing:write',
    });
    expect(res.access_token).toMatch(/^at_test_[A-Za-z0-9_-]{43}$/);
    const [row] = await withPlatformTransaction(h.db, (tx) =>
      tx
        .select()
        .from(accessTokens)
        .where(eq(accessTokens.tokenDigest, sha256Hex(res.access_token))),
    );
    expect(row).toMatchObject({
      clientId: c.clientId,
      tenantId: tenant,
      environment: 'sandbox',
      scopes: ['servicing:read', 'servicing:write'],
    });
    expect(row?.expiresAt.toISOString()).toBe('2026-04-01T01:00:00.000Z');
  });

  it('issues a token for a requested subset of scopes', async () => {
    const c = await createClient();
    expect((await token(c.clientId, c.clientSecret, { scope: 'servicing:read' })).scope).toBe(
      'servicing:read',
    );
    expect(
      (await token(c.clientId, c.clientSecret, { scope: '  servicing:write  servicing:read ' })).scope,
    ).toBe('servicing:write servicing:read');
  });

  it('gives every issued token a different value', async () => {
    const c = await createClient();
    const a = await token(c.clientId, c.clientSecret);
    const b = await token(c.clientId, c.clientSecret);
    expect(a.access_token).not.toBe(b.access_token);
  });

  it('answers invalid_client (401) for a wrong secret, an unknown client or another client’s secret', async () => {
    const c = await createClient();
    const d = await createClient();
    await expectOAuthError(token(c.clientId, `${c.clientSecret}x`), 'invalid_client', 401);
    await expectOAuthError(token(c.clientId, ''), 'invalid_client', 401);
    await expectOAuthError(token('cli_doesnotexist', c.clientSecret), 'invalid_client', 401);
    await expectOAuthError(token(c.clientId, d.clientSecret), 'invalid_client', 401);
  });

  it('answers invalid_client for a disabled client and for a client of the other environment', async () => {
    const disabled = await createClient();
    await withPlatformTransaction(h.db, (tx) =>
      tx.update(apiClients).set({ disabledAt: new Date() }).where(eq(apiClients.clientId, disabled.clientId)),
    );
    await expectOAuthError(token(disabled.clientId, disabled.clientSecret), 'invalid_client', 401);
    const production = await createClient({ environment: 'production' });
    expect(production.clientSecret.startsWith('cs_live_')).toBe(true);
    await expectOAuthError(token(production.clientId, production.clientSecret), 'invalid_client', 401);
  });

  it('disableClient disables at once: no new token, repeatable, 404 for an unknown client', async () => {
    const c = await createClient();
    await token(c.clientId, c.clientSecret);
    h.now.value = new Date('2026-03-01T10:00:00Z');
    const disabled = await h.platform.disableClient({ clientId: c.clientId });
    expect(disabled).toEqual({ clientId: c.clientId, disabledAt: '2026-03-01T10:00:00.000Z' });
    await expectOAuthError(token(c.clientId, c.clientSecret), 'invalid_client', 401);
    // Disabling again keeps the first instant.
    h.now.value = new Date('2026-03-02T10:00:00Z');
    expect(await h.platform.disableClient({ clientId: c.clientId })).toEqual(disabled);
    const listed = await h.platform.listClients({ tenantId: tenant });
    expect(listed.find((x) => x.clientId === c.clientId)?.disabledAt).toBe('2026-03-01T10:00:00.000Z');
    await expectDomainError(
      h.platform.disableClient({ clientId: 'cli_doesnotexist' }),
      'error.msg.resource.not.found',
    );
  });

  it('answers unsupported_grant_type (400) for any grant but client_credentials', async () => {
    const c = await createClient();
    for (const grantType of ['password', 'authorization_code', 'refresh_token', '']) {
      await expectOAuthError(token(c.clientId, c.clientSecret, { grantType }), 'unsupported_grant_type', 400);
    }
  });

  it('answers invalid_scope (400) for a scope not granted or an empty scope', async () => {
    const c = await createClient({ scopes: ['servicing:read'] });
    await expectOAuthError(
      token(c.clientId, c.clientSecret, { scope: 'servicing:write' }),
      'invalid_scope',
      400,
    );
    await expectOAuthError(
      token(c.clientId, c.clientSecret, { scope: 'servicing:read lending:write' }),
      'invalid_scope',
      400,
    );
    await expectOAuthError(token(c.clientId, c.clientSecret, { scope: '' }), 'invalid_scope', 400);
    await expectOAuthError(token(c.clientId, c.clientSecret, { scope: '   ' }), 'invalid_scope', 400);
  });

  it('checks the client before the scope: a wrong secret with a bad scope is invalid_client', async () => {
    const c = await createClient({ scopes: ['servicing:read'] });
    await expectOAuthError(token(c.clientId, 'wrong', { scope: 'lending:write' }), 'invalid_client', 401);
  });
});

describe('rotateClientSecret', () => {
  const t0 = Date.parse('2026-05-01T00:00:00.000Z');

  it('keeps the old secret working during the default 24 h overlap, then retires it', async () => {
    const c = await createClient();
    h.now.value = new Date(t0);
    const rotated = await h.platform.rotateClientSecret({ clientId: c.clientId });
    expect(rotated.clientId).toBe(c.clientId);
    expect(rotated.clientSecret).toMatch(/^cs_test_/);
    expect(rotated.clientSecret).not.toBe(c.clientSecret);
    expect(rotated.previousSecretExpiresAt).toBe('2026-05-02T00:00:00.000Z');

    h.now.value = new Date(t0 + 24 * 3600_000 - 1000);
    await expect(token(c.clientId, c.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
    await expect(token(c.clientId, rotated.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
    h.now.value = new Date(t0 + 24 * 3600_000 + 1000);
    await expectOAuthError(token(c.clientId, c.clientSecret), 'invalid_client', 401);
    await expect(token(c.clientId, rotated.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('with overlap 0 retires the old secret at once', async () => {
    const c = await createClient();
    h.now.value = new Date(t0);
    const rotated = await h.platform.rotateClientSecret({ clientId: c.clientId, overlapSeconds: 0 });
    expect(rotated.previousSecretExpiresAt).toBe('2026-05-01T00:00:00.000Z');
    await expectOAuthError(token(c.clientId, c.clientSecret), 'invalid_client', 401);
    await expect(token(c.clientId, rotated.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('keeps at most one previous secret: a second rotation retires the first secret at once', async () => {
    const c = await createClient();
    h.now.value = new Date(t0);
    const second = await h.platform.rotateClientSecret({ clientId: c.clientId, overlapSeconds: 3600 });
    h.now.value = new Date(t0 + 60_000);
    const third = await h.platform.rotateClientSecret({ clientId: c.clientId, overlapSeconds: 3600 });
    await expectOAuthError(token(c.clientId, c.clientSecret), 'invalid_client', 401);
    await expect(token(c.clientId, second.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
    await expect(token(c.clientId, third.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
    h.now.value = new Date(t0 + 60_000 + 3600_000 + 1000);
    await expectOAuthError(token(c.clientId, second.clientSecret), 'invalid_client', 401);
    await expect(token(c.clientId, third.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
    const active = (
      await withPlatformTransaction(h.db, (tx) =>
        tx.select().from(clientSecrets).where(eq(clientSecrets.clientId, c.clientId)),
      )
    ).filter((s) => s.expiresAt === null || s.expiresAt.getTime() > t0 + 60_000);
    expect(active).toHaveLength(2);
  });

  it.each([-1, 7 * 24 * 3600 + 1, 1.5, Number.NaN])(
    'rejects the overlap %d with a field error',
    async (overlapSeconds) => {
      const c = await createClient();
      const err = await expectDomainError(
        h.platform.rotateClientSecret({ clientId: c.clientId, overlapSeconds }),
        'validation.msg.validation.errors.exist',
      );
      expect(err.errors[0]?.parameterName).toBe('overlapSeconds');
      await expect(token(c.clientId, c.clientSecret)).resolves.toMatchObject({ token_type: 'Bearer' });
    },
  );

  it('accepts the maximum overlap of 7 days', async () => {
    const c = await createClient();
    h.now.value = new Date(t0);
    const rotated = await h.platform.rotateClientSecret({
      clientId: c.clientId,
      overlapSeconds: 7 * 24 * 3600,
    });
    expect(rotated.previousSecretExpiresAt).toBe('2026-05-08T00:00:00.000Z');
  });

  it('answers 404 for an unknown client', async () => {
    await expectDomainError(
      h.platform.rotateClientSecret({ clientId: 'cli_unknown' }),
      'error.msg.resource.not.found',
    );
  });
});
