/**
 * Rate limits hold for the deployment, not per process: TWO API processes (`node --import tsx scripts/start-api.ts`,
 * each its own pool and memory) on one fresh database, a client's requests sent alternately to both. The client is
 * admitted at its configured `rateLimitPerSecond` in all (5 of a burst of 10; at most 5 per second over 2.2 s), and a
 * source address at `TOKEN_SOURCE_RATE_LIMIT_PER_SECOND` on the token endpoint, because both processes count in the
 * same PostgreSQL row (db/rate-limits.ts). With counters in each process's memory the same traffic is admitted twice
 * over. The refusals keep their answer: 429 Shape A `error.msg.rate.limited`, `Retry-After`, `RateLimit-Policy` and
 * `RateLimit`. Both processes are started once for the file and ended by their process group.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatformOperations } from '../../activities';
import { createDb, type DbHandle } from '../../db/client';
import { freePort } from '../../db/embedded';
import { projectRoot } from '../../workers/config';
import { testSecrets } from '../support/context';

const database = `e2e_rate_limits_${randomBytes(4).toString('hex')}`;
const clientRate = 5;
const sourceRate = 4;

interface Started {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<void>;
}

let dataDir: string;
let handle: DbHandle | undefined;
const started: Started[] = [];

/** Starts one API process in its own process group and waits for its ready line. */
async function startApi(env: NodeJS.ProcessEnv): Promise<Started> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-api.ts'], {
    cwd: projectRoot,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const process_ = { child, baseUrl: `http://127.0.0.1:${port}`, exited };
  started.push(process_);
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const deadline = Date.now() + 60_000;
  while (!output.includes('API ready at')) {
    if (child.exitCode !== null) throw new Error(`API process exited early (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`API process not ready in 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return process_;
}

/** SIGTERM to the process group it leads, SIGKILL after 10 s. */
async function stopGroup(p: Started): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null || !p.child.pid) return;
  const pid = p.child.pid;
  process.kill(-pid, 'SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, 10_000);
  await p.exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  await admin.end();
  const databaseUrl = inject('databaseUrl').replace(/\/[^/?]+(\?|$)/, `/${database}$1`);
  dataDir = await mkdtemp(path.join(tmpdir(), 'lending-e2e-rate-limits-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SERVICE_ENVIRONMENT: 'sandbox',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: 'default',
    SECRET_PEPPER: testSecrets.secretPepper,
    CURSOR_SIGNING_KEY: testSecrets.cursorSigningKey,
    DATA_ENCRYPTION_KEY: testSecrets.dataEncryptionKey,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    DATABASE_POOL_SIZE: '3',
    LOG_LEVEL: 'warn',
    TOKEN_SOURCE_RATE_LIMIT_PER_SECOND: String(sourceRate),
  };
  delete env.API_PROCESSES;
  delete env.WORKFLOW_BUNDLE_PATH;
  // Together: one applies the migrations under their advisory lock while the other waits.
  await Promise.all([startApi(env), startApi(env)]);
  handle = createDb(databaseUrl, { maxConnections: 2 });
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map(stopGroup));
  await handle?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${database} with (force)`);
  await admin.end();
}, 60_000);

/** The process for request `i`: alternately the first and the second. */
const target = (i: number) => (started[i % 2] as Started).baseUrl;

function tokenRequest(baseUrl: string, clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
}

async function expectRateLimited(res: Response, policy: string, rate: number): Promise<void> {
  expect(res.status).toBe(429);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({
    httpStatusCode: '429',
    userMessageGlobalisationCode: 'error.msg.rate.limited',
  });
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${rate};w=1`);
  expect(res.headers.get('ratelimit')).toBe(`"${policy}";r=0;t=1`);
}

describe('rate limits across two API processes', () => {
  it('the token endpoint admits one source address at its rate across both processes', async () => {
    // Unknown client ids from 127.0.0.1, sent together: only the source's bucket is shared between them.
    const results = await Promise.all(
      Array.from({ length: 2 * sourceRate }, (_, i) =>
        tokenRequest(target(i), `cli_guess${randomBytes(6).toString('hex')}`, 'cs_test_wrong'),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([
      ...Array<number>(sourceRate).fill(401),
      ...Array<number>(sourceRate).fill(429),
    ]);
    for (const res of results.filter((r) => r.status === 429)) {
      await expectRateLimited(res, 'token-source', sourceRate);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('admits a client at its rateLimitPerSecond across both processes, not twice it', async () => {
    const platform = createPlatformOperations({
      db: (handle as DbHandle).db,
      clock: () => new Date(),
      secretPepper: testSecrets.secretPepper,
      dataEncryptionKey: testSecrets.dataEncryptionKey,
      environment: 'sandbox',
    });
    const tenant = `rl-${randomBytes(4).toString('hex')}`;
    const client = await platform.createClient({
      tenantId: tenant,
      environment: 'sandbox',
      scopes: ['servicing:read'],
      permissions: ['ALL'],
      rateLimitPerSecond: clientRate,
      createTenant: true,
    });
    // The source's window of the test before has ended.
    await new Promise((r) => setTimeout(r, 1100));
    const tokenRes = await tokenRequest(target(0), client.clientId, client.clientSecret);
    expect(tokenRes.status).toBe(200);
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const get = (i: number) =>
      fetch(`${target(i)}/v1/servicing/tasks`, {
        headers: { authorization: `Bearer ${token}`, 'service-tenant': tenant },
      });

    // A burst of twice the rate, alternately to both processes: the rate is admitted, the rest refused.
    const burst = await Promise.all(Array.from({ length: 2 * clientRate }, (_, i) => get(i)));
    const statuses = burst.map((r) => r.status).sort();
    expect(statuses).toEqual([
      ...Array<number>(clientRate).fill(200),
      ...Array<number>(clientRate).fill(429),
    ]);
    for (const res of burst.filter((r) => r.status === 429))
      await expectRateLimited(res, 'default', clientRate);
    for (const res of burst.filter((r) => r.status === 200)) {
      expect(res.headers.get('ratelimit-policy')).toBe(`"default";q=${clientRate};w=1`);
      expect(res.headers.get('ratelimit')).toMatch(/^"default";r=[0-4];t=[01]$/);
    }

    // Sustained: requests every 20 ms for 2.2 s after the burst's window, alternately to both. Windows of one second
    // each: at most 3 windows begin in 2.2 s (15 admitted), and at least 2 are filled (10). Each process counting on
    // its own would admit about 2 × (5 + 5 × 2.2) = 32.
    await new Promise((r) => setTimeout(r, 1100));
    const statusesOverTime: number[] = [];
    const until = Date.now() + 2200;
    for (let i = 0; Date.now() < until; i++) {
      const res = await get(i);
      await res.arrayBuffer();
      statusesOverTime.push(res.status);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(statusesOverTime.every((s) => s === 200 || s === 429)).toBe(true);
    const admitted = statusesOverTime.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(2 * clientRate);
    expect(admitted).toBeLessThanOrEqual(3 * clientRate);
  });
});
