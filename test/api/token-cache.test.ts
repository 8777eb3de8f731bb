/**
 * The token-grant cache of the bearer middleware (api/token-cache.ts: token verification cached with its expiry,
 * revocation honoured within a bounded time, at most `maxEntries` grants, least recently used evicted first). Each "API process" here is an app with its own pool and its own cache on the one
 * test database, as separate processes would be. The bound under test: a change to a client or token
 * (`clients disable`, a token row updated or deleted) is refused by every process as soon as the
 * `credential_changes` notification arrives (well under a second here), and within `TOKEN_CACHE_TTL_MS`
 * of the change in the worst case (notification lost); a cache whose LISTEN is not up serves nothing.
 */
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities, createPlatformOperations } from '../../activities';
import { createApp } from '../../api/app';
import { tokenCacheStaleTotal } from '../../api/metrics';
import { createDependencyHealth, createProcessClients } from '../../api/processes';
import { createTokenGrantCache, type TokenGrantCache } from '../../api/token-cache';
import { createDb } from '../../db/client';
import { accessTokens } from '../../db/schema';
import { withPlatformTransaction } from '../../db/tenant-tx';
import { sha256Hex } from '../../domain/hash';
import {
  createTestContext,
  credentialFor,
  type TestContext,
  testSecrets,
  uniqueTenant,
} from '../support/context';

let ctx: TestContext;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
});
afterAll(async () => {
  for (const p of opened) await p.close();
  await ctx?.close();
});

interface ApiProcess {
  app: ReturnType<typeof createApp>;
  tokenGrants: TokenGrantCache;
  close(): Promise<void>;
}

/** An app with its own pool and token cache on the test database, as a separate API process has. */
async function apiProcess(
  options: { ttlMs?: number; maxEntries?: number; start?: boolean } = {},
): Promise<ApiProcess> {
  const handle = createDb(inject('databaseUrl'), { maxConnections: 3 });
  const deps = {
    db: handle.db,
    clock: () => new Date(),
    secretPepper: testSecrets.secretPepper,
    dataEncryptionKey: testSecrets.dataEncryptionKey,
    environment: 'sandbox' as const,
  };
  const logger = pino({ level: 'silent' });
  const tokenGrants = createTokenGrantCache({
    db: handle.db,
    logger,
    ttlMs: options.ttlMs ?? 5000,
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
  });
  if (options.start !== false) await tokenGrants.start();
  const app = createApp({
    db: handle.db,
    activities: createActivities(deps),
    platform: createPlatformOperations(deps),
    startMarks: ctx.startMarks,
    processes: createProcessClients(ctx.client),
    health: createDependencyHealth(handle.db, ctx.client),
    config: {
      environment: 'sandbox',
      cursorSigningKey: testSecrets.cursorSigningKey,
      docsUrl: 'https://docs.test/lending',
      rateLimitPerSecond: 10_000,
      searchRateLimitPerSecond: 10_000,
    },
    logger,
    clock: deps.clock,
    tokenGrants,
  });
  const process = {
    app,
    tokenGrants,
    async close() {
      await tokenGrants.stop();
      await handle.close();
    },
  };
  opened.push(process);
  return process;
}

interface Bearer {
  tenant: string;
  clientId: string;
  token: string;
}

async function bearer(): Promise<Bearer> {
  const cred = await credentialFor(ctx, uniqueTenant('tc'));
  return { tenant: cred.tenant, clientId: cred.clientId, token: cred.token };
}

async function get(p: ApiProcess, b: Bearer): Promise<{ status: number; message: string }> {
  const res = await p.app.request('/v1/servicing/tasks', {
    headers: { authorization: `Bearer ${b.token}`, 'service-tenant': b.tenant },
  });
  const body = (await res.json()) as { developerMessage?: string };
  return { status: res.status, message: body.developerMessage ?? '' };
}

/** Milliseconds until `p` refuses `b` (401); fails after `limitMs`. */
async function refusedWithin(p: ApiProcess, b: Bearer, limitMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await get(p, b);
    const elapsed = performance.now() - started;
    if (res.status === 401) return elapsed;
    expect(res.status).toBe(200);
    if (elapsed > limitMs) throw new Error(`still accepted after ${Math.round(elapsed)} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Deletes the token's row without firing triggers (no NOTIFY), as if the notification were lost. */
async function deleteSilently(b: Bearer): Promise<void> {
  await withPlatformTransaction(ctx.db, async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.delete(accessTokens).where(eq(accessTokens.tokenDigest, sha256Hex(b.token)));
  });
}

async function waitFor(condition: () => boolean, limitMs: number): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > limitMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('token-grant cache', () => {
  it('two API processes refuse a disabled client’s token through NOTIFY, well under the TTL', async () => {
    const [a, b] = [await apiProcess(), await apiProcess()];
    const cred = await bearer();
    for (const p of [a, b]) {
      expect((await get(p, cred)).status).toBe(200);
      const hits = p.tokenGrants.stats().hits;
      expect((await get(p, cred)).status).toBe(200);
      expect(p.tokenGrants.stats().hits).toBe(hits + 1);
    }
    // `clients disable` through the operation, on a third pool (ctx's), as the admin CLI would.
    await ctx.platform.disableClient({ clientId: cred.clientId });
    for (const p of [a, b]) {
      const elapsed = await refusedWithin(p, cred, 5000);
      expect(elapsed).toBeLessThan(1000);
      expect((await get(p, cred)).message).toMatch(/unknown or revoked/);
    }
  });

  it('refuses a token whose row is deleted, through the access_tokens trigger, well under the TTL', async () => {
    const a = await apiProcess({ ttlMs: 60_000 });
    const cred = await bearer();
    expect((await get(a, cred)).status).toBe(200);
    await withPlatformTransaction(ctx.db, (tx) =>
      tx.delete(accessTokens).where(eq(accessTokens.tokenDigest, sha256Hex(cred.token))),
    );
    expect(await refusedWithin(a, cred, 5000)).toBeLessThan(1000);
  });

  it('serves a warm token from the cache without a database query', async () => {
    const [warm, cold] = [await apiProcess({ ttlMs: 60_000 }), await apiProcess({ ttlMs: 60_000 })];
    const cred = await bearer();
    expect((await get(warm, cred)).status).toBe(200);
    await deleteSilently(cred);
    // The row is gone: only a process that did not look it up again still accepts the token.
    expect((await get(cold, cred)).status).toBe(401);
    expect((await get(warm, cred)).status).toBe(200);
  });

  it('refuses within the TTL when the notification is lost', async () => {
    const a = await apiProcess({ ttlMs: 1500 });
    const cred = await bearer();
    expect((await get(a, cred)).status).toBe(200);
    await deleteSilently(cred);
    expect((await get(a, cred)).status).toBe(200);
    const elapsed = await refusedWithin(a, cred, 1500 + 500);
    expect(elapsed).toBeGreaterThan(500);
  });

  it('clears the cache when LISTEN is re-established (notifications may have been missed)', async () => {
    const a = await apiProcess({ ttlMs: 60_000 });
    const cred = await bearer();
    expect((await get(a, cred)).status).toBe(200);
    await deleteSilently(cred);
    expect((await get(a, cred)).status).toBe(200);
    const { listens, listenerPid } = a.tokenGrants.stats();
    expect(listenerPid).toEqual(expect.any(Number));
    await ctx.db.execute(sql`select pg_terminate_backend(${listenerPid})`);
    await waitFor(() => a.tokenGrants.stats().listens > listens, 10_000);
    expect((await get(a, cred)).status).toBe(401);
    // Listening again, it caches again.
    const other = await bearer();
    expect((await get(a, other)).status).toBe(200);
    const hits = a.tokenGrants.stats().hits;
    expect((await get(a, other)).status).toBe(200);
    expect(a.tokenGrants.stats().hits).toBe(hits + 1);
  });

  it('keeps serving after its event loop stalled longer than three heartbeats (notifications wait in the socket)', async () => {
    const tokenGrants = createTokenGrantCache({
      db: ctx.db,
      logger: pino({ level: 'silent' }),
      ttlMs: 60_000,
      heartbeatIntervalMs: 100,
    });
    try {
      await tokenGrants.start();
      const cred = await bearer();
      const digest = sha256Hex(cred.token);
      await tokenGrants.find(digest);
      // A few heartbeats pass while idle: still serving.
      await new Promise((r) => setTimeout(r, 500));
      await tokenGrants.find(digest);
      expect(tokenGrants.stats()).toMatchObject({ live: true, hits: 1 });
      // A stall of the loop (a long GC pause, a starved CPU) of ten heartbeats: no probe was sent or heard
      // meanwhile, yet nothing shows the LISTEN connection dead.
      const stallUntil = performance.now() + 1000;
      while (performance.now() < stallUntil) {
        // busy: nothing else runs
      }
      await tokenGrants.find(digest);
      expect(tokenGrants.stats()).toMatchObject({ live: true, hits: 2 });
    } finally {
      await tokenGrants.stop();
    }
  });

  it('stops serving while it cannot LISTEN (reconnect refused) and serves again once it can', async () => {
    // A role of its own, so that only this pool's reconnects can be refused (NOLOGIN keeps open sessions).
    const role = `token_cache_probe_${randomBytes(4).toString('hex')}`;
    await ctx.db.execute(sql.raw(`create role ${role} login password 'probe'`));
    await ctx.db.execute(sql.raw(`grant select on access_tokens, api_clients to ${role}`));
    const url = new URL(inject('databaseUrl'));
    url.username = role;
    url.password = 'probe';
    const handle = createDb(url.href, { maxConnections: 1 });
    const tokenGrants = createTokenGrantCache({
      db: handle.db,
      logger: pino({ level: 'silent' }),
      ttlMs: 60_000,
      heartbeatIntervalMs: 200,
    });
    try {
      await tokenGrants.start();
      const cred = await bearer();
      const digest = sha256Hex(cred.token);
      expect(await tokenGrants.find(digest)).toMatchObject({ clientId: cred.clientId });
      await tokenGrants.find(digest);
      expect(tokenGrants.stats()).toMatchObject({ live: true, hits: 1 });

      const { listens, listenerPid } = tokenGrants.stats();
      await ctx.db.execute(sql.raw(`alter role ${role} nologin`));
      await ctx.db.execute(sql`select pg_terminate_backend(${listenerPid})`);
      await waitFor(() => !tokenGrants.stats().live, 5000);
      // The pool's open session still answers: every find is a look-up now, and the stop is counted once.
      const { hits } = tokenGrants.stats();
      const stops = (await tokenCacheStaleTotal.get()).values[0]?.value ?? 0;
      await tokenGrants.find(digest);
      await tokenGrants.find(digest);
      expect(tokenGrants.stats()).toMatchObject({ hits, size: 0 });
      expect((await tokenCacheStaleTotal.get()).values[0]?.value).toBe(stops + 1);

      await ctx.db.execute(sql.raw(`alter role ${role} login`));
      await waitFor(() => tokenGrants.stats().live && tokenGrants.stats().listens > listens, 5000);
      await tokenGrants.find(digest);
      await tokenGrants.find(digest);
      expect(tokenGrants.stats().hits).toBe(hits + 1);
    } finally {
      await tokenGrants.stop();
      await handle.close();
      await ctx.db.execute(sql.raw(`drop owned by ${role}`));
      await ctx.db.execute(sql.raw(`drop role ${role}`));
    }
  });

  it('looks every token up while it is not listening', async () => {
    const a = await apiProcess({ ttlMs: 60_000, start: false });
    const cred = await bearer();
    expect((await get(a, cred)).status).toBe(200);
    expect((await get(a, cred)).status).toBe(200);
    expect(a.tokenGrants.stats().hits).toBe(0);
    await deleteSilently(cred);
    expect((await get(a, cred)).status).toBe(401);
  });

  it('refuses an expired token even when cached, and keeps no entry past the token’s expiry', async () => {
    const a = await apiProcess({ ttlMs: 60_000 });
    const cred = await bearer();
    const token = `at_test_${randomBytes(32).toString('base64url')}`;
    await withPlatformTransaction(ctx.db, (tx) =>
      tx.insert(accessTokens).values({
        tokenDigest: sha256Hex(token),
        clientId: cred.clientId,
        tenantId: cred.tenant,
        environment: 'sandbox',
        scopes: ['servicing:read'],
        expiresAt: new Date(Date.now() + 1200),
      }),
    );
    const short = { ...cred, token };
    expect((await get(a, short)).status).toBe(200);
    const hits = a.tokenGrants.stats().hits;
    expect((await get(a, short)).status).toBe(200);
    expect(a.tokenGrants.stats().hits).toBe(hits + 1);
    const size = a.tokenGrants.stats().size;
    await new Promise((r) => setTimeout(r, 1300));
    const res = await get(a, short);
    expect(res.status).toBe(401);
    expect(res.message).toMatch(/expired/);
    expect(a.tokenGrants.stats().size).toBe(size - 1);
  });

  it('holds at most maxEntries grants', async () => {
    const a = await apiProcess({ maxEntries: 2 });
    const creds = [await bearer(), await bearer(), await bearer()];
    for (const cred of creds) expect((await get(a, cred)).status).toBe(200);
    expect(a.tokenGrants.stats().size).toBe(2);
    // Least recently used first: the first token was evicted, the last one is served from the cache.
    const hits = a.tokenGrants.stats().hits;
    expect((await get(a, creds[2] as Bearer)).status).toBe(200);
    expect(a.tokenGrants.stats().hits).toBe(hits + 1);
    expect((await get(a, creds[0] as Bearer)).status).toBe(200);
    expect(a.tokenGrants.stats().hits).toBe(hits + 1);
  });

  it('evicts the least recently used grant, not the oldest one: a hit keeps its grant', async () => {
    const a = await apiProcess({ ttlMs: 60_000, maxEntries: 2 });
    const [first, second, third] = [await bearer(), await bearer(), await bearer()];
    expect((await get(a, first)).status).toBe(200);
    expect((await get(a, second)).status).toBe(200);
    const hits = a.tokenGrants.stats().hits;
    // The first grant is used again: the second is now the least recently used, and the third evicts it.
    expect((await get(a, first)).status).toBe(200);
    expect(a.tokenGrants.stats().hits).toBe(hits + 1);
    expect((await get(a, third)).status).toBe(200);
    expect(a.tokenGrants.stats().size).toBe(2);
    expect((await get(a, first)).status).toBe(200);
    expect(a.tokenGrants.stats().hits).toBe(hits + 2);
    const misses = a.tokenGrants.stats().misses;
    expect((await get(a, second)).status).toBe(200);
    expect(a.tokenGrants.stats().misses).toBe(misses + 1);
  });
});
