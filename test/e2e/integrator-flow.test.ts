/**
 * End to end: the service started exactly as `npm start` starts it (its own embedded PostgreSQL
 * and Temporal dev server, in a fresh data folder), a credential from the admin CLI, and the
 * integrator flow over HTTP; then Ctrl-C (SIGINT) stops everything cleanly.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoFlow } from '../../scripts/demo-flow';
import { type JsonPayload, payloadToJson } from '../../workers/codec-server';
import { loadConfig, projectRoot } from '../../workers/config';
import { temporalDataConverter } from '../../workers/payload-codec';
import { isProcessRunning, readRuntimeFile, runtimeFilePath } from '../../workers/runtime-file';
import { adminEnv, type BootedService, bootService, createClientWithAdminCli } from './boot';

let booted: BootedService | undefined;
let env: NodeJS.ProcessEnv;
let service: ChildProcess;
let baseUrl: string;
let temporalPort: number;

beforeAll(async () => {
  booted = await bootService();
  ({ env, service, baseUrl, temporalPort } = booted);
}, 120_000);

afterAll(async () => {
  await booted?.stop();
}, 60_000);

describe('npm start, admin CLI and the integrator flow', () => {
  it('serves health, the OpenAPI document and the whole privacy flow, visible in Temporal by tenant', async () => {
    const health = await fetch(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', dependencies: { database: 'up', temporal: 'up' } });
    expect(booted!.output()).toContain(`Temporal UI:  http://127.0.0.1:${env.TEMPORAL_UI_PORT}`);

    const credential = await createClientWithAdminCli(booted!, 'e2e-bank', 'servicing:read servicing:write');
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
      // The service's payload keys, generated into its data folder (workers/config.ts): read back by another process.
      const client = new Client({
        connection,
        dataConverter: temporalDataConverter(loadConfig(env).temporalPayloadKeys),
      });
      const handle = client.workflow.getHandle(result.workflowId);
      expect(await handle.result()).toMatchObject({ requestId: result.requestId, status: 'FULFILLED' });
      // Stored encrypted; the codec endpoint npm start serves (and hands to its dev server's UI) decodes it.
      const raw = await new Client({ connection }).workflow.getHandle(result.workflowId).fetchHistory();
      const input = raw.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      expect(Buffer.from(input?.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
      const codecUrl = /Codec: +(http:\/\/127\.0\.0\.1:[0-9]+)/.exec(booted!.output())?.[1];
      const decoded = await fetch(`${codecUrl}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${env.TEMPORAL_UI_PORT}` },
        body: JSON.stringify({ payloads: [payloadToJson(input as Payload)] }),
      });
      expect(decoded.status).toBe(200);
      const [plain] = ((await decoded.json()) as { payloads: JsonPayload[] }).payloads;
      expect(Buffer.from(plain?.metadata?.encoding ?? '', 'base64').toString()).toBe('json/plain');
      expect(Buffer.from(plain?.data ?? '', 'base64').toString()).toContain('"tenantId":"e2e-bank"');
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

  it('records itself in <DATA_DIR>/runtime.json, so the README credential command works as printed', async () => {
    const runtime = readRuntimeFile(booted!.dataDir);
    expect(runtime).toMatchObject({
      environment: 'sandbox',
      baseUrl,
      tokenUrl: `${baseUrl}/oauth2/token`,
      databaseUrl: expect.stringContaining(`@127.0.0.1:${env.EMBEDDED_POSTGRES_PORT}/`),
    });
    expect(isProcessRunning(runtime!.pid)).toBe(true);
    // The README's command for the sandbox tenant `demo` (which npm start creates), no --create-tenant.
    const { stdout } = await promisify(execFile)(
      path.join(projectRoot, 'node_modules', '.bin', 'tsx'),
      [
        'scripts/admin.ts',
        'clients',
        'create',
        '--tenant',
        'demo',
        '--environment',
        'sandbox',
        '--scopes',
        'servicing:read servicing:write lending:read lending:write',
        '--permissions',
        'ALL',
      ],
      { cwd: projectRoot, env: adminEnv(booted!) },
    );
    expect(JSON.parse(stdout)).toMatchObject({
      tenant: 'demo',
      clientSecret: expect.stringMatching(/^cs_test_/),
    });
  });

  it('stops everything cleanly on Ctrl-C and removes its runtime file', async () => {
    const exited = new Promise<number | null>((resolve) => service.once('exit', (code) => resolve(code)));
    service.kill('SIGINT');
    expect(await exited).toBe(0);
    const health = await fetch(`${baseUrl}/healthz`).catch(() => null);
    expect(health).toBeNull();
    expect(existsSync(runtimeFilePath(booted!.dataDir))).toBe(false);
  });
});
