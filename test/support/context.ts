/**
 * Builds what integration tests need on the servers the global setup started: the database, the
 * operations, a real Temporal client and a servicing worker running in this test process, and
 * the Hono app wired exactly as `npm start` wires it. Each file gets its own tenants.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import pino from 'pino';
import { inject } from 'vitest';
import { createActivities, createPlatformOperations } from '../../activities';
import { createSandboxRail } from '../../activities/payments/sandbox-rail';
import { createApp } from '../../api/app';
import { createDependencyHealth, createProcessClients } from '../../api/processes';
import { createStartMarkBuffer, type StartMarkBuffer } from '../../api/start-marks';
import { createTokenGrantCache, type TokenGrantCache } from '../../api/token-cache';
import { createDb } from '../../db/client';
import { taskQueues } from '../../domain/ids';
import { type PayloadKeyring, temporalDataConverter } from '../../workers/payload-codec';
import { createQueueWorker } from '../../workers/queue-worker';
import { installTemporalRuntime } from '../../workers/stack';
import { temporalClientInterceptors } from '../../workers/tracing';
import { testNamespace } from './namespaces';

export const testSecrets = {
  secretPepper: 'test-pepper',
  cursorSigningKey: 'test-cursor-key',
  dataEncryptionKey: '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0',
  /** The Temporal payload keys of the tests' clients and workers (workers/payload-codec.ts), as the service has them. */
  temporalPayloadKeys: {
    currentKeyId: 'test-1',
    keys: { 'test-1': '8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b' },
  } satisfies PayloadKeyring,
};

/** `TEMPORAL_PAYLOAD_KEYS` of `testSecrets.temporalPayloadKeys`, for processes a test starts. */
export const testPayloadKeysEnv = `test-1:${testSecrets.temporalPayloadKeys.keys['test-1']}`;

/** The data converter of the tests' clients and workers: payloads encrypted as the service encrypts them. */
export const testDataConverter = temporalDataConverter(testSecrets.temporalPayloadKeys);

export interface TestContext {
  db: ReturnType<typeof createDb>['db'];
  activities: ReturnType<typeof createActivities>;
  platform: ReturnType<typeof createPlatformOperations>;
  app: ReturnType<typeof createApp>;
  /** The app's token-grant cache, started (as `serveApi` starts it); `appWith` apps share it. */
  tokenGrants: TokenGrantCache;
  /** The app's start-mark buffer (api/start-marks.ts); `flush()` writes the marks routes noted. */
  startMarks: StartMarkBuffer;
  client: Client;
  /** Current time seen by operations (tests may move it). */
  now: { value: Date | null };
  /** The environment the operations and the app serve (sandbox unless asked). */
  environment: 'sandbox' | 'production';
  close(): Promise<void>;
}

/**
 * A unique tenant id for one test: `<prefix>-<5 hex>x<5 hex>` (40 random bits).
 *
 * The `x` in the middle keeps any run of digits to at most five: tests embed the
 * tenant id in references (`externalRecordRef`, `externalId`) that the
 * sensitive-data check refuses when they hold 8 or more consecutive digits (it
 * reads them as an account number), and ten hex characters are all digits often
 * enough (about 1 run in 40) to make such a test fail at random.
 */
export function uniqueTenant(prefix = 't'): string {
  const hex = randomBytes(5).toString('hex');
  return `${prefix}-${hex.slice(0, 5)}x${hex.slice(5)}`;
}

export async function createTestContext(
  options: {
    worker?: boolean;
    rateLimitPerSecond?: number;
    environment?: 'sandbox' | 'production';
    maxConnections?: number;
    /** Also run a worker on the `lending` queue (payment intents), sharing the worker connection. */
    lendingWorker?: boolean;
    /** Also run a worker on the `boarding` queue (portfolio boarding), sharing the worker connection. */
    boardingWorker?: boolean;
  } = {},
): Promise<TestContext> {
  const environment = options.environment ?? 'sandbox';
  installTemporalRuntime();
  const { db, close: closeDb } = createDb(inject('databaseUrl'), {
    maxConnections: options.maxConnections ?? 10,
  });
  const now: { value: Date | null } = { value: null };
  const clock = () => now.value ?? new Date();
  // The sandbox rail (activities/payments/sandbox-rail.ts) in sandbox, as workers/config.ts `operationDeps` wires it.
  const sandboxRail = environment === 'sandbox' ? createSandboxRail(db, { clock }) : undefined;
  const deps = {
    db,
    clock,
    secretPepper: testSecrets.secretPepper,
    dataEncryptionKey: testSecrets.dataEncryptionKey,
    environment,
    ...(sandboxRail ? { paymentRail: sandboxRail, sandboxRail } : {}),
  };
  const activities = createActivities(deps);
  const platform = createPlatformOperations(deps);
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const namespace = testNamespace();
  // With tracing on (a test that called workers/tracing.ts `startTracing`), the client's spans as `npm start` makes them.
  const client = new Client({
    connection,
    namespace,
    interceptors: temporalClientInterceptors(),
    dataConverter: testDataConverter,
  });
  let worker: Worker | null = null;
  let workerRun: Promise<void> | null = null;
  let lendingWorker: Worker | null = null;
  let lendingWorkerRun: Promise<void> | null = null;
  let boardingWorker: Worker | null = null;
  let boardingWorkerRun: Promise<void> | null = null;
  let workerConnection: NativeConnection | null = null;
  if (options.worker !== false) {
    workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    worker = await createQueueWorker({
      connection: workerConnection,
      namespace,
      activities,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      dataConverter: testDataConverter,
    });
    workerRun = worker.run();
    if (options.lendingWorker) {
      lendingWorker = await createQueueWorker({
        connection: workerConnection,
        namespace,
        taskQueue: taskQueues.lending,
        activities,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        dataConverter: testDataConverter,
      });
      lendingWorkerRun = lendingWorker.run();
    }
    if (options.boardingWorker) {
      boardingWorker = await createQueueWorker({
        connection: workerConnection,
        namespace,
        taskQueue: taskQueues.boarding,
        activities,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        dataConverter: testDataConverter,
      });
      boardingWorkerRun = boardingWorker.run();
    }
  }
  const logger = pino({ level: 'silent' });
  const tokenGrants = createTokenGrantCache({ db, logger });
  await tokenGrants.start();
  const startMarks = createStartMarkBuffer({ platform, logger });
  const app = createApp({
    db,
    activities,
    platform,
    startMarks,
    processes: createProcessClients(client),
    health: createDependencyHealth(db, client),
    config: {
      environment,
      cursorSigningKey: testSecrets.cursorSigningKey,
      docsUrl: 'https://docs.test/lending',
      rateLimitPerSecond: options.rateLimitPerSecond ?? 10_000,
      searchRateLimitPerSecond: 10_000,
    },
    logger,
    clock: deps.clock,
    tokenGrants,
  });
  return {
    db,
    activities,
    platform,
    app,
    tokenGrants,
    startMarks,
    client,
    now,
    environment,
    async close() {
      await startMarks.stop();
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      if (lendingWorker && lendingWorker.getState() === 'RUNNING') lendingWorker.shutdown();
      await workerRun;
      if (boardingWorker && boardingWorker.getState() === 'RUNNING') boardingWorker.shutdown();
      await lendingWorkerRun;
      await boardingWorkerRun;
      await workerConnection?.close();
      await connection.close();
      await tokenGrants.stop();
      await closeDb();
    },
  };
}

export interface Credential {
  tenant: string;
  clientId: string;
  clientSecret: string;
  token: string;
}

/** Creates a client in `tenant` (and the tenant when missing) and exchanges it for a token through `POST /oauth2/token`. */
export async function credentialFor(
  ctx: TestContext,
  tenant: string,
  grant: { scopes?: string[]; permissions?: string[]; rateLimitPerSecond?: number | null } = {},
): Promise<Credential> {
  const created = await ctx.platform.createClient({
    tenantId: tenant,
    environment: ctx.environment,
    scopes: grant.scopes ?? ['servicing:read', 'servicing:write'],
    permissions: grant.permissions ?? ['ALL'],
    rateLimitPerSecond: grant.rateLimitPerSecond ?? 10_000,
    createTenant: true,
  });
  const res = await ctx.app.request('/oauth2/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { access_token: string };
  return { tenant, clientId: created.clientId, clientSecret: created.clientSecret, token: body.access_token };
}

/** Sends a JSON request as `cred` through `app.request()`. */
export async function call(
  ctx: TestContext,
  cred: Credential,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field and checked by the caller
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await ctx.app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${cred.token}`,
      'service-tenant': cred.tenant,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}
