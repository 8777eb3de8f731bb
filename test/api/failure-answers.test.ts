/**
 * Failure answers (docs/processes.md P0): PostgreSQL unreachable → 503 Shape A
 * `error.msg.service.unavailable` with `Retry-After`, never 500 (api/errors.ts `asDomainError`, db/errors.ts);
 * serialization failures (40001) and deadlocks (40P01) are retried inside the transaction helper, bounded
 * (db/tenant-tx.ts), and a persistent one surfaces after the bound.
 */
import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities, createPlatformOperations } from '../../activities';
import { createApp } from '../../api/app';
import { createDependencyHealth, createProcessClients } from '../../api/processes';
import { createTokenGrantCache } from '../../api/token-cache';
import { createDb } from '../../db/client';
import {
  type Tx,
  transactionRetryLimit,
  withPlatformTransaction,
  withTenantTransaction,
} from '../../db/tenant-tx';
import { credentialPrefix } from '../../domain/auth';
import { createTestContext, type TestContext, testSecrets, uniqueTenant } from '../support/context';
import { expectShapeA } from './helpers';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  await ctx.db.execute(
    sql`create table if not exists failure_answers_probe (id int primary key, counter int not null)`,
  );
});
afterAll(async () => {
  await ctx?.db.execute(sql`drop table if exists failure_answers_probe`);
  await ctx?.close();
});

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The app wired as `npm start` wires it, over a database at `url`. */
function appOver(db: ReturnType<typeof createDb>['db']) {
  const deps = {
    db,
    clock: () => new Date(),
    secretPepper: testSecrets.secretPepper,
    dataEncryptionKey: testSecrets.dataEncryptionKey,
    environment: 'sandbox' as const,
  };
  return createApp({
    db,
    activities: createActivities(deps),
    platform: createPlatformOperations(deps),
    startMarks: ctx.startMarks,
    processes: createProcessClients(ctx.client),
    health: createDependencyHealth(db, ctx.client),
    config: {
      environment: 'sandbox',
      cursorSigningKey: testSecrets.cursorSigningKey,
      docsUrl: 'https://docs.test/lending',
      rateLimitPerSecond: 10_000,
    },
    logger: pino({ level: 'silent' }),
    clock: deps.clock,
    // Not started: every token is looked up, which is what these failures are about.
    tokenGrants: createTokenGrantCache({ db, logger: pino({ level: 'silent' }) }),
  });
}

async function request(app: ReturnType<typeof appOver>, path: string, init: RequestInit = {}) {
  const res = await app.request(path, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

describe('PostgreSQL unreachable → 503 with Retry-After, never 500', () => {
  it('answers an authenticated API request 503 when the database refuses connections', async () => {
    const port = await closedPort();
    const handle = createDb(`postgres://lending:secret@127.0.0.1:${port}/lending`, { maxConnections: 1 });
    try {
      const app = appOver(handle.db);
      const res = await request(app, '/v1/customers/1', {
        headers: {
          authorization: `Bearer ${credentialPrefix('at', 'sandbox')}0123456789abcdef`,
          'service-tenant': uniqueTenant('down'),
        },
      });
      expectShapeA(res, 503, 'error.msg.service.unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      await handle.close();
    }
  });

  it('answers 503 on the token endpoint too, and when the pool was ended (CONNECTION_ENDED)', async () => {
    const handle = createDb(inject('databaseUrl'), { maxConnections: 1 });
    const app = appOver(handle.db);
    await handle.close();
    const res = await request(app, '/oauth2/token', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('client:secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expectShapeA(res, 503, 'error.msg.service.unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
  });
});

/** An error shaped as postgres.js reports a SQLSTATE (wrapped by drizzle-orm's DrizzleQueryError `cause`). */
function sqlStateError(code: string): Error {
  return Object.assign(new Error('Failed query'), { cause: Object.assign(new Error(code), { code }) });
}

describe('serialization failures and deadlocks are retried, bounded', () => {
  it('reruns a transaction whose first run fails with 40001, and one whose first run deadlocks (40P01)', async () => {
    for (const code of ['40001', '40P01']) {
      let runs = 0;
      const result = await withTenantTransaction(ctx.db, uniqueTenant('retry'), async (tx: Tx) => {
        runs++;
        await tx.execute(sql`select 1`);
        if (runs === 1) throw sqlStateError(code);
        return 'done';
      });
      expect(result).toBe('done');
      expect(runs).toBe(2);
    }
  });

  it('surfaces a persistent serialization failure after 1 + transactionRetryLimit runs', async () => {
    let runs = 0;
    await expect(
      withPlatformTransaction(ctx.db, async () => {
        runs++;
        throw sqlStateError('40001');
      }),
    ).rejects.toMatchObject({ cause: { code: '40001' } });
    expect(runs).toBe(1 + transactionRetryLimit);
  });

  it('never reruns on other errors', async () => {
    let runs = 0;
    await expect(
      withPlatformTransaction(ctx.db, async () => {
        runs++;
        throw sqlStateError('23505');
      }),
    ).rejects.toMatchObject({ cause: { code: '23505' } });
    expect(runs).toBe(1);
  });

  it('wins a real SERIALIZABLE conflict: two transactions updating the same row both commit', async () => {
    await ctx.db.execute(
      sql`insert into failure_answers_probe (id, counter) values (1, 0) on conflict (id) do update set counter = 0`,
    );
    let firstRead!: () => void;
    const firstHasRead = new Promise<void>((resolve) => {
      firstRead = resolve;
    });
    let secondRead!: () => void;
    const secondHasRead = new Promise<void>((resolve) => {
      secondRead = resolve;
    });
    let secondRuns = 0;
    const increment = async (tx: Tx) => {
      const [row] = (await tx.execute(
        sql`select counter from failure_answers_probe where id = 1`,
      )) as unknown as [{ counter: number }];
      await tx.execute(sql`update failure_answers_probe set counter = ${row.counter + 1} where id = 1`);
    };
    const first = withPlatformTransaction(
      ctx.db,
      async (tx) => {
        await tx.execute(sql`select counter from failure_answers_probe where id = 1`);
        firstRead();
        await secondHasRead;
        await increment(tx);
      },
      { isolationLevel: 'serializable' },
    );
    const second = withPlatformTransaction(
      ctx.db,
      async (tx) => {
        secondRuns++;
        await tx.execute(sql`select counter from failure_answers_probe where id = 1`);
        if (secondRuns === 1) {
          await firstHasRead;
          secondRead();
          await first; // the first commits its update; this run's snapshot is now stale
        }
        await increment(tx);
      },
      { isolationLevel: 'serializable' },
    );
    await Promise.all([first, second]);
    expect(secondRuns).toBe(2);
    const [row] = (await ctx.db.execute(
      sql`select counter from failure_answers_probe where id = 1`,
    )) as unknown as [{ counter: number }];
    expect(row.counter).toBe(2);
  });
});
