/**
 * The Idempotency-Key store (docs/design.md §4 Idempotency-Key): claim → in flight →
 * complete → replay; another payload under the same key is a mismatch; a 5xx releases the key;
 * an abandoned lock (60 s) and an expired completion (24 h) can be taken over.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyClaimRefused, type IdempotencyScope } from '../../activities/platform/idempotency';
import { idempotencyKeys } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, newTenant } from './helpers';

let h: ActivityHarness;
let tenant: string;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'idem');
});
afterAll(async () => h?.close());
afterEach(() => {
  h.now.value = null;
});

const route = '/v1/servicing/cases';
const t0 = new Date('2026-04-01T12:00:00.000Z');

function scope(overrides: Partial<IdempotencyScope> = {}): IdempotencyScope {
  return {
    tenantId: tenant,
    environment: 'sandbox',
    clientId: 'cli_idem',
    key: `key-${randomBytes(6).toString('hex')}`,
    ...overrides,
  };
}

function at(offsetMs: number) {
  h.now.value = new Date(t0.getTime() + offsetMs);
}

function rowsOf(s: IdempotencyScope) {
  return withTenantTransaction(h.db, s.tenantId, (tx) =>
    tx
      .select()
      .from(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.clientId, s.clientId),
          eq(idempotencyKeys.key, s.key),
          eq(idempotencyKeys.environment, s.environment),
        ),
      ),
  );
}

describe('idempotency store', () => {
  it('claim → in flight → complete → replay', async () => {
    const s = scope();
    at(0);
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route })).toEqual(
      { kind: 'claimed' },
    );
    at(10);
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route })).toEqual(
      {
        kind: 'in-flight',
        retryAfterSeconds: 1,
      },
    );
    const [inFlight] = await rowsOf(s);
    expect(inFlight).toMatchObject({ state: 'IN_FLIGHT', fingerprint: 'fp-1', responseStatus: null });
    expect(inFlight?.lockedUntil.toISOString()).toBe('2026-04-01T12:01:00.000Z');

    at(20);
    // Keys out of jsonb's order (length, then bytes) and odd spacing: stored and replayed as is.
    const body = '{"status":"OPEN", "caseId":7,"nested":{"list":[1,"two",null]}}';
    await h.platform.completeIdempotencyKey({
      ...s,
      status: 201,
      body,
      headers: { location: '/v1/servicing/cases/7' },
    });
    at(30);
    const replay = await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route });
    expect(replay).toEqual({
      kind: 'replay',
      status: 201,
      body,
      headers: { location: '/v1/servicing/cases/7' },
    });
    // Replaying does not change what is stored.
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route })).toEqual(
      replay,
    );

    const rows = await rowsOf(s);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.state).toBe('COMPLETED');
    expect(rows[0]?.expiresAt?.toISOString()).toBe('2026-04-02T12:00:00.020Z');
  });

  it('stores a null, empty-object or scalar body faithfully, as text', async () => {
    for (const body of [null, '{}', '"text"', '0', 'false', '{"b":1,"a":2,"aa":{"zz":1,"z":2}}']) {
      const s = scope();
      await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp', routeTemplate: route });
      await h.platform.completeIdempotencyKey({ ...s, status: 200, body, headers: {} });
      expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp', routeTemplate: route })).toEqual(
        {
          kind: 'replay',
          status: 200,
          body,
          headers: {},
        },
      );
    }
  });

  it('answers mismatch for another fingerprint or route, in flight and after completion', async () => {
    const s = scope();
    at(0);
    await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route });
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-2', routeTemplate: route })).toEqual(
      { kind: 'mismatch' },
    );
    await h.platform.completeIdempotencyKey({ ...s, status: 201, body: '{"ok":true}', headers: {} });
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-2', routeTemplate: route })).toEqual(
      { kind: 'mismatch' },
    );
    expect(
      await h.platform.claimIdempotencyKey({
        ...s,
        fingerprint: 'fp-1',
        routeTemplate: '/v1/servicing/tasks',
      }),
    ).toEqual({
      kind: 'mismatch',
    });
    // The stored response is untouched by the mismatching attempts.
    expect((await rowsOf(s))[0]).toMatchObject({
      fingerprint: 'fp-1',
      routeTemplate: route,
      state: 'COMPLETED',
    });
  });

  it('release after a failure frees the key for a retry, but never drops a completed response', async () => {
    const s = scope();
    at(0);
    await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route });
    await h.platform.releaseIdempotencyKey(s);
    expect(await rowsOf(s)).toHaveLength(0);
    // Even another payload may use the key now: nothing was done under it.
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-2', routeTemplate: route })).toEqual(
      { kind: 'claimed' },
    );
    await h.platform.completeIdempotencyKey({ ...s, status: 200, body: '{"done":1}', headers: {} });
    await h.platform.releaseIdempotencyKey(s);
    expect(
      await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-2', routeTemplate: route }),
    ).toMatchObject({
      kind: 'replay',
      body: '{"done":1}',
    });
  });

  it('lets the same payload take over a lock abandoned for more than 60 s, not sooner, and not another payload', async () => {
    const s = scope();
    at(0);
    await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route });
    at(59_000);
    expect(
      await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route }),
    ).toMatchObject({ kind: 'in-flight' });
    at(61_000);
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-2', routeTemplate: route })).toEqual(
      { kind: 'mismatch' },
    );
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route })).toEqual(
      { kind: 'claimed' },
    );
    // The new holder has a fresh lock.
    at(62_000);
    expect(
      await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route }),
    ).toMatchObject({ kind: 'in-flight' });
  });

  it('forgets a completed response after 24 h', async () => {
    const s = scope();
    at(0);
    await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route });
    await h.platform.completeIdempotencyKey({ ...s, status: 201, body: '{"first":true}', headers: {} });
    at(24 * 3600_000 - 1000);
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-2', routeTemplate: route })).toEqual(
      { kind: 'mismatch' },
    );
    at(24 * 3600_000 + 1000);
    expect(await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-2', routeTemplate: route })).toEqual(
      { kind: 'claimed' },
    );
    expect((await rowsOf(s))[0]).toMatchObject({
      state: 'IN_FLIGHT',
      fingerprint: 'fp-2',
      responseBody: null,
    });
  });

  it('keeps keys of different clients, environments and tenants apart', async () => {
    const s = scope();
    const other = await newTenant(h, 'idem-other');
    await h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route });
    for (const variant of [
      { clientId: 'cli_other' },
      { environment: 'production' as const },
      { tenantId: other },
    ]) {
      expect(
        await h.platform.claimIdempotencyKey({ ...s, ...variant, fingerprint: 'fp-2', routeTemplate: route }),
        JSON.stringify(variant),
      ).toEqual({
        kind: 'claimed',
      });
    }
  });

  it('concurrent claims of one key: exactly one wins', async () => {
    h.now.value = null;
    const s = scope();
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.platform.claimIdempotencyKey({ ...s, fingerprint: 'fp-1', routeTemplate: route }),
      ),
    );
    expect(outcomes.filter((o) => o.kind === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'in-flight')).toHaveLength(3);
    expect(await rowsOf(s)).toHaveLength(1);
  });
});

describe('the claim inside the operation’s transaction (claimIdempotencyKeyWith)', () => {
  const request = (s: IdempotencyScope, fingerprint = 'fp-op') => ({
    ...s,
    fingerprint,
    routeTemplate: route,
  });
  /** A stand-in for an operation's own write: a second claim of another key in the same transaction. */
  const otherKey = (s: IdempotencyScope) => ({ ...s, key: `${s.key}-row` });
  async function operationWrite(s: IdempotencyScope, fail = false) {
    await withTenantTransaction(h.db, s.tenantId, async (tx) => {
      await tx.insert(idempotencyKeys).values({
        ...otherKey(s),
        fingerprint: 'row',
        routeTemplate: route,
        state: 'IN_FLIGHT',
        lockedUntil: t0,
        createdAt: t0,
      });
      if (fail) throw new Error('the operation refused');
    });
  }

  it('commits the claim with the operation’s rows, once, however many transactions the work opens', async () => {
    const s = scope();
    at(0);
    const outcome = await h.platform.claimIdempotencyKeyWith(request(s), async () => {
      await operationWrite(s);
      // A second transaction of the same request is not refused by the request's own claim.
      await withTenantTransaction(h.db, s.tenantId, async () => {});
    });
    expect(outcome).toEqual({ committed: true });
    expect(await rowsOf(s)).toMatchObject([{ state: 'IN_FLIGHT', fingerprint: 'fp-op' }]);
    expect(await rowsOf(otherKey(s))).toHaveLength(1);
  });

  it('rolls the claim back with an operation that fails: nothing of the key is stored', async () => {
    const s = scope();
    at(0);
    const outcome = await h.platform.claimIdempotencyKeyWith(request(s), () => operationWrite(s, true));
    expect(outcome.committed).toBe(false);
    expect(String(outcome.error)).toMatch(/the operation refused/);
    expect(await rowsOf(s)).toHaveLength(0);
    expect(await rowsOf(otherKey(s))).toHaveLength(0);
  });

  it('refuses a key in flight, completed or used for another request, and the operation writes nothing', async () => {
    const s = scope();
    at(0);
    await h.platform.claimIdempotencyKeyWith(request(s), async () => {
      await withTenantTransaction(h.db, s.tenantId, async () => {});
    });
    const refusal = async (fingerprint: string) => {
      const outcome = await h.platform.claimIdempotencyKeyWith(request(s, fingerprint), () =>
        operationWrite(s),
      );
      expect(outcome.committed).toBe(false);
      expect(await rowsOf(otherKey(s))).toHaveLength(0);
      return outcome.error as IdempotencyClaimRefused;
    };
    at(10);
    const inFlight = await refusal('fp-op');
    expect(inFlight).toBeInstanceOf(IdempotencyClaimRefused);
    expect(inFlight.outcome).toEqual({ kind: 'in-flight', retryAfterSeconds: 1 });
    expect(inFlight.code).toBe('idempotency.request.in.flight');
    expect(inFlight.retryAfterSeconds).toBe(1);
    expect((await refusal('fp-other')).outcome).toEqual({ kind: 'mismatch' });

    await h.platform.completeIdempotencyKey({ ...s, status: 201, body: '{"id":1}', headers: {} });
    at(20);
    expect((await refusal('fp-op')).outcome).toEqual({
      kind: 'replay',
      status: 201,
      body: '{"id":1}',
      headers: {},
    });
    expect((await refusal('fp-other')).code).toBe('idempotency.key.payload.mismatch');
  });

  it('never claims from work that outlives the request (a timer it armed)', async () => {
    const s = scope();
    at(0);
    let later: Promise<void> = Promise.resolve();
    const outcome = await h.platform.claimIdempotencyKeyWith(request(s), async () => {
      later = new Promise<void>((resolve, reject) => {
        setTimeout(() => operationWrite(s).then(resolve, reject), 20);
      });
    });
    expect(outcome).toEqual({ committed: false });
    await later;
    expect(await rowsOf(s)).toHaveLength(0);
    expect(await rowsOf(otherKey(s))).toHaveLength(1);
  });

  it('takes over an abandoned claim of the same request in the operation’s transaction', async () => {
    const s = scope();
    at(0);
    await h.platform.claimIdempotencyKey(request(s));
    at(61_000);
    const outcome = await h.platform.claimIdempotencyKeyWith(request(s), () => operationWrite(s));
    expect(outcome).toEqual({ committed: true });
    const [row] = await rowsOf(s);
    expect(row?.lockedUntil.toISOString()).toBe('2026-04-01T12:02:01.000Z');
  });

  it('stores the answer of a request whose claim never committed, unless another request holds the key', async () => {
    const s = scope();
    at(0);
    const answer = {
      status: 404,
      body: '{"code":"not found"}',
      headers: { 'content-type': 'application/json' },
    };
    await h.platform.storeUnclaimedIdempotentResponse({ ...request(s), ...answer });
    expect(await h.platform.claimIdempotencyKey(request(s))).toEqual({ kind: 'replay', ...answer });

    const held = scope();
    await h.platform.claimIdempotencyKey(request(held));
    await h.platform.storeUnclaimedIdempotentResponse({ ...request(held), ...answer });
    expect(await rowsOf(held)).toMatchObject([{ state: 'IN_FLIGHT', responseStatus: null }]);
  });
});
