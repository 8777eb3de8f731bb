/**
 * End to end, production topology (docs/processes.md P0 "Processes run apart"): `npm run build`,
 * then one worker process (`node dist/start-worker.js --queues servicing`) and one API
 * process (`node dist/start-api.js`) started apart with plain node against the test run's
 * PostgreSQL and Temporal: a credential from the built admin CLI, the privacy flow over HTTP, its
 * workflow run by the worker process and found in Temporal by `TenantId`; a token the API process
 * has cached refused well under `TOKEN_CACHE_TTL_MS` once the built admin CLI disables its client
 * (the `credential_changes` notification crosses processes); then both stopped by
 * pid with SIGTERM, each exiting 0. A fresh database and a fresh Temporal namespace keep these
 * processes apart from the other test files.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { runDemoFlow } from '../../scripts/demo-flow';
import { projectRoot } from '../../workers/config';
import { testDataConverter, testPayloadKeysEnv, testSecrets } from '../support/context';

const run = promisify(execFile);
const suffix = randomBytes(4).toString('hex');
const outdir = path.join('.data', `e2e-dist-${suffix}`);
const namespace = `e2e-processes-${suffix}`;
const database = `e2e_processes_${suffix}`;

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

let env: NodeJS.ProcessEnv;
let dataDir: string;
let worker: Started | undefined;
let api: Started | undefined;
let baseUrl: string;
let connection: Connection | undefined;
let workerMetricsPort: number;

/** Runs `node <built entry> …args` and waits until its output contains `ready`. */
async function startBuilt(
  entry: string,
  args: string[],
  ready: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Started> {
  let output = '';
  const child = spawn(process.execPath, [path.join(outdir, entry), ...args], {
    cwd: projectRoot,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!output.includes(ready)) {
    if (child.exitCode !== null) throw new Error(`${entry} exited early (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} was not ready in 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => output, exited };
}

/** SIGTERM by pid; resolves with the exit code (SIGKILL after 30 s). */
async function stopByPid(started: Started): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  process.kill(started.child.pid!, 'SIGTERM');
  const timer = setTimeout(() => started.child.kill('SIGKILL'), 30_000);
  const code = await started.exited;
  clearTimeout(timer);
  return code;
}

beforeAll(async () => {
  await run(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--outdir', outdir], {
    cwd: projectRoot,
  });

  const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  await admin.end();
  const databaseUrl = inject('databaseUrl').replace(/\/[^/?]+(\?|$)/, `/${database}$1`);

  connection = await Connection.connect({ address: inject('temporalAddress') });
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });

  dataDir = await mkdtemp(path.join(tmpdir(), 'lending-e2e-processes-'));
  const port = await freePort();
  workerMetricsPort = await freePort();
  env = {
    ...process.env,
    SERVICE_ENVIRONMENT: 'sandbox',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: namespace,
    SECRET_PEPPER: testSecrets.secretPepper,
    CURSOR_SIGNING_KEY: testSecrets.cursorSigningKey,
    DATA_ENCRYPTION_KEY: testSecrets.dataEncryptionKey,
    TEMPORAL_PAYLOAD_KEYS: testPayloadKeysEnv,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_POOL_SIZE: '5',
    LOG_LEVEL: 'warn',
    // Far longer than the test waits: only the change notification can explain a refusal in time.
    TOKEN_CACHE_TTL_MS: '60000',
    // The worker's Prometheus metrics (the API process ignores it).
    WORKER_METRICS_ADDRESS: `127.0.0.1:${workerMetricsPort}`,
  };
  delete env.WORKFLOW_BUNDLE_PATH;
  worker = await startBuilt('start-worker.js', ['--queues', 'servicing'], 'Worker ready');
  api = await startBuilt('start-api.js', [], 'API ready at');
  baseUrl = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  for (const started of [api, worker])
    if (started && started.child.exitCode === null) started.child.kill('SIGKILL');
  await connection?.close();
  await rm(path.join(projectRoot, outdir), { recursive: true, force: true });
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('API and worker as separate processes (built, plain node)', () => {
  it('the worker runs on the prebuilt bundle with activity slots sized to its pool', () => {
    expect(worker!.output()).toContain('queues servicing (4 activity slots each, pool 5');
    expect(worker!.output()).toContain(
      `bundle ${path.join(projectRoot, outdir, 'workflow-bundle-servicing.js')}`,
    );
    expect(api!.output()).toContain(`API ready at ${baseUrl}`);
  });

  it('a privacy request made over HTTP to the API process is run by the worker process', async () => {
    const health = await fetch(`${baseUrl}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', dependencies: { database: 'up', temporal: 'up' } });

    const { stdout } = await run(
      process.execPath,
      [
        path.join(outdir, 'admin.js'),
        'clients',
        'create',
        '--tenant',
        'e2e-apart',
        '--environment',
        'sandbox',
        '--scopes',
        'servicing:read servicing:write',
        '--permissions',
        'ALL',
        '--create-tenant',
      ],
      { cwd: projectRoot, env },
    );
    const credential = JSON.parse(stdout) as { clientId: string; clientSecret: string };

    const statuses: number[] = [];
    const result = await runDemoFlow(
      baseUrl,
      { tenant: 'e2e-apart', clientId: credential.clientId, clientSecret: credential.clientSecret },
      (x) => statuses.push(x.status),
    );
    expect(statuses).toEqual([200, 201, 201, 201, 201, 200, 200, 200]);
    expect(result.effects.map((e) => e.effectType)).toContain('PRIVACY_REQUEST_FULFILLED');

    const client = new Client({ connection: connection!, namespace, dataConverter: testDataConverter });
    const handle = client.workflow.getHandle(result.workflowId);
    expect(await handle.result()).toMatchObject({ requestId: result.requestId, status: 'FULFILLED' });
    let listed: string[] = [];
    for (let i = 0; i < 50 && !listed.includes(result.workflowId); i++) {
      listed = [];
      for await (const wf of client.workflow.list({ query: `TenantId = "e2e-apart"` }))
        listed.push(wf.workflowId);
      if (!listed.includes(result.workflowId)) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed).toContain(result.workflowId);
  });

  it('a cached token is refused at once when the admin CLI, another process, disables its client', async () => {
    const admin = (args: string[]) =>
      run(process.execPath, [path.join(outdir, 'admin.js'), 'clients', ...args], { cwd: projectRoot, env });
    const { stdout } = await admin([
      'create',
      '--tenant',
      'e2e-apart',
      '--environment',
      'sandbox',
      '--scopes',
      'servicing:read',
      '--permissions',
      'ALL',
      '--create-tenant',
    ]);
    const credential = JSON.parse(stdout) as { clientId: string; clientSecret: string };
    const issued = await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    const token = ((await issued.json()) as { access_token: string }).access_token;
    const list = () =>
      fetch(`${baseUrl}/v1/servicing/tasks`, {
        headers: { authorization: `Bearer ${token}`, 'service-tenant': 'e2e-apart' },
      }).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      });
    expect(await list()).toBe(200);
    expect(await list()).toBe(200);

    await admin(['disable', '--client-id', credential.clientId]);
    const disabledAt = performance.now();
    let status = await list();
    // 20 requests per second at most: under the sandbox rate limit (25/s).
    while (status === 200 && performance.now() - disabledAt < 5000) {
      await new Promise((r) => setTimeout(r, 50));
      status = await list();
    }
    expect(status).toBe(401);
    expect(performance.now() - disabledAt).toBeLessThan(1000);
  });

  it("the worker serves its metrics and the Temporal SDK's at WORKER_METRICS_ADDRESS; the API its own", async () => {
    expect(worker!.output()).toContain(`metrics at http://127.0.0.1:${workerMetricsPort}/metrics`);
    const workerMetrics = await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`);
    expect(workerMetrics.status).toBe(200);
    const workerText = await workerMetrics.text();
    // The SDK's worker metrics (the privacy request above ran on this worker), Node's, and the durable state.
    expect(workerText).toMatch(/^temporal_workflow_completed_total\{|^temporal_[a-z_]+_total\{/m);
    expect(workerText).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(workerText).toMatch(/^outbox_unpublished_events \d/m);
    const apiMetrics = await fetch(`${baseUrl}/metrics`);
    expect(apiMetrics.status).toBe(200);
    expect(await apiMetrics.text()).toMatch(
      /^http_requests_total\{method="POST",route="\/v1\/servicing\/privacy-requests",status="201"\} \d/m,
    );
  });

  it('with API_PROCESSES=2, GET /metrics shows the sum over both API processes', async () => {
    const port = await freePort();
    const clustered = await startBuilt('start-api.js', [], 'API ready at', {
      PORT: String(port),
      API_PROCESSES: '2',
    });
    try {
      // A new connection per request, so the cluster's round robin spreads them over both processes.
      const healthz = () =>
        new Promise<number>((resolve, reject) => {
          get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          }).on('error', reject);
        });
      const requests = 20;
      for (let i = 0; i < requests; i++) expect(await healthz()).toBe(200);
      const counted = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { connection: 'close' } });
        expect(res.status).toBe(200);
        const match = /^http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)/m.exec(
          await res.text(),
        );
        return Number(match?.[1]);
      };
      // Whichever process answers the scrape, it counts every request (one process alone saw about half).
      for (let scrape = 0; scrape < 4; scrape++) expect(await counted()).toBe(requests);
    } finally {
      expect(await stopByPid(clustered)).toBe(0);
    }
  });

  it('both stop on SIGTERM by pid with exit code 0', async () => {
    expect(await stopByPid(api!)).toBe(0);
    expect(await stopByPid(worker!)).toBe(0);
    expect(await fetch(`${baseUrl}/healthz`).catch(() => null)).toBeNull();
  });
});
