/**
 * End to end: the service started exactly as `npm start` starts it (its own embedded PostgreSQL
 * and Temporal dev server, in a fresh data folder), a credential from the admin CLI, and the
 * integrator flow over HTTP; then Ctrl-C (SIGINT) stops everything cleanly.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { runDemoFlow } from '../../scripts/demo-flow';
import { projectRoot } from '../../workers/config';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

let dataDir: string;
let env: NodeJS.ProcessEnv;
let service: ChildProcess;
let output = '';
let baseUrl: string;
let temporalPort: number;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lending-e2e-'));
  await chmod(dataDir, 0o755);
  const [port, pgPort, tPort, uiPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  temporalPort = tPort;
  env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    EMBEDDED_POSTGRES_PORT: String(pgPort),
    TEMPORAL_PORT: String(tPort),
    TEMPORAL_UI_PORT: String(uiPort),
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  baseUrl = `http://127.0.0.1:${port}`;
  service = spawn(tsx, ['scripts/start.ts'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  service.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const deadline = Date.now() + 90_000;
  while (!output.includes('ready in')) {
    if (service.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready in 90 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 120_000);

afterAll(async () => {
  if (service && service.exitCode === null) {
    service.kill('SIGKILL');
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start, admin CLI and the integrator flow', () => {
  it('serves health, the OpenAPI document and the whole privacy flow, visible in Temporal by tenant', async () => {
    const health = await fetch(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', dependencies: { database: 'up', temporal: 'up' } });
    expect(output).toContain(`Temporal UI:  http://127.0.0.1:${env.TEMPORAL_UI_PORT}`);

    const { stdout } = await run(
      tsx,
      [
        'scripts/admin.ts',
        'clients',
        'create',
        '--tenant',
        'e2e-bank',
        '--environment',
        'sandbox',
        '--scopes',
        'servicing:read servicing:write',
        '--permissions',
        'ALL',
      ],
      { cwd: projectRoot, env },
    );
    const credential = JSON.parse(stdout) as { clientId: string; clientSecret: string; tenant: string };
    expect(credential.clientSecret).toMatch(/^cs_test_/);

    const exchanges: { status: number; path: string }[] = [];
    const result = await runDemoFlow(
      baseUrl,
      { tenant: 'e2e-bank', clientId: credential.clientId, clientSecret: credential.clientSecret },
      (x) => exchanges.push({ status: x.status, path: x.path }),
    );
    expect(exchanges.map((x) => x.status)).toEqual([200, 201, 201, 201, 201, 200, 200, 200]);
    expect(result.effects.map((e) => e.effectType)).toEqual([
      'CASE_OPENED',
      'INTERACTION_LOGGED',
      'PRIVACY_REQUEST_RECEIVED',
      'TASK_CREATED',
      'EVIDENCE_ADDED',
      'PRIVACY_REQUEST_FULFILLED',
      'CASE_CLOSED',
    ]);

    const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      const client = new Client({ connection });
      const handle = client.workflow.getHandle(result.workflowId);
      expect(await handle.result()).toMatchObject({ requestId: result.requestId, status: 'FULFILLED' });
      const description = await handle.describe();
      expect(description.typedSearchAttributes.getAll().map((p) => p.key.name)).toContain('TenantId');
      let listed: string[] = [];
      for (let i = 0; i < 50 && !listed.includes(result.workflowId); i++) {
        listed = [];
        for await (const wf of client.workflow.list({ query: `TenantId = "e2e-bank"` }))
          listed.push(wf.workflowId);
        if (!listed.includes(result.workflowId)) await new Promise((r) => setTimeout(r, 200));
      }
      expect(listed).toContain(result.workflowId);
    } finally {
      await connection.close();
    }
  });

  it('stops everything cleanly on Ctrl-C', async () => {
    const exited = new Promise<number | null>((resolve) => service.once('exit', (code) => resolve(code)));
    service.kill('SIGINT');
    expect(await exited).toBe(0);
    const health = await fetch(`${baseUrl}/healthz`).catch(() => null);
    expect(health).toBeNull();
  });
});
