/**
 * Payload encryption at rest on a real Temporal server (the time-skipping test server): a workflow run by a worker
 * and client with the service's data converter (workers/payload-codec.ts) runs normally, while its history, fetched
 * raw by a client WITHOUT the codec, holds only `binary/encrypted` payloads and none of the clear values. The codec
 * endpoint (workers/codec-server.ts) decodes those very payloads for the Temporal UI, and refuses callers it must.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import type { PrivacyRequestWorkflowInput } from '../../domain/servicing/privacy-request';
import {
  type CodecServer,
  type JsonPayload,
  payloadFromJson,
  payloadToJson,
  startCodecServer,
} from '../../workers/codec-server';
import { EncryptionCodec, encryptedEncoding } from '../../workers/payload-codec';
import { fulfilRequestUpdate } from '../../workflows/servicing/privacy-request/messages';
import type { privacyRequestWorkflow } from '../../workflows/servicing/privacy-request/workflow';

const DAY = 24 * 3600_000;
const keyring = { currentKeyId: 'it-1', keys: { 'it-1': randomBytes(32).toString('hex') } };
const codec = new EncryptionCodec(keyring);
const token = randomBytes(24).toString('hex');
const uiOrigin = 'http://127.0.0.1:8233';

let env: TestWorkflowEnvironment;
let server: CodecServer;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // A runtime is already installed in this process.
  }
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
  });
  server = await startCodecServer({ address: '127.0.0.1:0', codec, token, allowedOrigins: [uiOrigin] });
});
afterAll(async () => {
  await server?.stop();
  await env?.teardown();
});

/** Every operation a spy that fails, but the privacy-request workflow's own steps. */
function activities(): Activities {
  const fail = (name: string) => async () => {
    throw new Error(`${name} is not a step of the privacy-request workflow`);
  };
  const every = Object.fromEntries(
    Object.keys(createActivities({} as Deps)).map((name) => [name, vi.fn(fail(name))]),
  ) as unknown as Activities;
  return {
    ...every,
    markPrivacyWorkflowStarted: async () => {},
    raisePrivacyReminder: async () => ({ raised: true }),
    markPrivacyRequestOverdue: async () => ({ status: 'OVERDUE' }),
    fulfilPrivacyRequest: async (input) => ({ requestId: input.requestId, status: input.outcome }),
  } as Activities;
}

/** Every payload of a raw history (inputs, results, update arguments and outcomes), however deep. */
function payloadsOf(value: unknown, found: Payload[] = []): Payload[] {
  if (Array.isArray(value)) for (const item of value) payloadsOf(item, found);
  else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.payloads)) found.push(...(record.payloads as Payload[]));
    else for (const child of Object.values(record)) payloadsOf(child, found);
  }
  return found;
}

/** `POST <codec endpoint><path>` with `payloads` in proto3 JSON form. */
function callCodec(path: string, payloads: Payload[], headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ payloads: payloads.map(payloadToJson) }),
  });
}

describe('payload encryption at rest', () => {
  let rawPayloads: Payload[] = [];
  const customerRef = `cus_${randomBytes(6).toString('hex')}`;

  it('a workflow runs normally while its history holds only binary/encrypted payloads', async () => {
    const taskQueue = `encryption-${randomBytes(4).toString('hex')}`;
    const workflowId = `privacy-request/enc-test/${taskQueue}`;
    const dataConverter = { payloadCodecs: [codec] };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: activities(),
      dataConverter,
    });
    const client = new Client({ connection: env.connection, dataConverter });
    const now = await env.currentTimeMs();
    const input: PrivacyRequestWorkflowInput = {
      tenantId: 'enc-test',
      requestId: 4242,
      caseId: 7,
      customerRef,
      regime: 'CCPA_CPRA',
      statutoryDueAt: new Date(now + 45 * DAY).toISOString(),
      dueAtMs: now + 45 * DAY,
      reminderAtMs: now + 35 * DAY,
    };
    const result = await worker.runUntil(async () => {
      const handle = await client.workflow.start<typeof privacyRequestWorkflow>('privacyRequestWorkflow', {
        taskQueue,
        workflowId,
        args: [input],
      });
      const updated = await handle.executeUpdate(fulfilRequestUpdate, {
        args: [
          {
            outcome: 'FULFILLED',
            outcomeReason: 'Deleted from all systems',
            evidenceIds: [1],
            actor: 'agent-enc',
            correlationId: 'enc-1',
          },
        ],
      });
      expect(updated).toEqual({ requestId: 4242, status: 'FULFILLED' });
      return handle.result();
    });
    expect(result).toEqual({ requestId: 4242, status: 'FULFILLED', wasOverdue: false });

    // The history as Temporal stores it, read by a client that has no codec.
    const bare = new Client({ connection: env.connection });
    const history = await bare.workflow.getHandle(workflowId).fetchHistory();
    rawPayloads = payloadsOf(history.events);
    // Workflow input, activity inputs and results, the update's argument and outcome, the workflow's result.
    expect(rawPayloads.length).toBeGreaterThanOrEqual(6);
    for (const payload of rawPayloads)
      expect(new TextDecoder().decode(payload.metadata?.encoding ?? new Uint8Array())).toBe(
        encryptedEncoding,
      );
    const stored = JSON.stringify(history, (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
    );
    expect(stored).not.toContain(customerRef);
    expect(stored).not.toContain(Buffer.from(customerRef).toString('base64').slice(0, 12));
    // Without the codec the result cannot be read at all.
    await expect(bare.workflow.getHandle(workflowId).result()).rejects.toThrow(/encoding/i);

    // The encrypted history replays with the codec, as an evicted workflow is replayed by a worker.
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter },
        history,
        workflowId,
      ),
    ).resolves.toBeUndefined();
  });

  it('the codec endpoint decodes what the codec encoded (the Temporal UI view of that history)', async () => {
    expect(rawPayloads.length).toBeGreaterThan(0);
    const res = await callCodec('/decode', rawPayloads, {
      authorization: `Bearer ${token}`,
      origin: uiOrigin,
      'x-namespace': 'default',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    const body = (await res.json()) as { payloads: JsonPayload[] };
    const values = body.payloads.map((p) => defaultPayloadConverter.fromPayload(payloadFromJson(p)));
    expect(values).toContainEqual(expect.objectContaining({ customerRef, requestId: 4242 }));
    expect(values).toContainEqual({ requestId: 4242, status: 'FULFILLED', wasOverdue: false });

    // And encodes: what /encode answers, the codec opens.
    const encoded = await callCodec('/encode', [defaultPayloadConverter.toPayload({ hello: 'ui' })], {
      authorization: `Bearer ${token}`,
    });
    const sealed = ((await encoded.json()) as { payloads: JsonPayload[] }).payloads.map(payloadFromJson);
    expect(new TextDecoder().decode(sealed[0]?.metadata?.encoding ?? new Uint8Array())).toBe(
      encryptedEncoding,
    );
    const [opened] = await codec.decode(sealed);
    expect(defaultPayloadConverter.fromPayload(opened as Payload)).toEqual({ hello: 'ui' });
  });

  it('refuses unauthenticated calls, other origins and bad bodies; answers the UI preflight', async () => {
    const sample = rawPayloads.slice(0, 1);
    const none = await callCodec('/decode', sample);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({
      httpStatusCode: '401',
      userMessageGlobalisationCode: 'error.msg.not.authenticated',
    });
    expect((await callCodec('/decode', sample, { authorization: `Bearer ${token}x` })).status).toBe(401);
    expect((await callCodec('/decode', sample, { authorization: token })).status).toBe(401);
    const foreign = await callCodec('/decode', sample, {
      authorization: `Bearer ${token}`,
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);

    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: uiOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/i);

    const bad = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"nope": 1}',
    });
    expect(bad.status).toBe(400);
    // A payload sealed under a key the endpoint does not hold: a clear 400 naming the key id.
    const foreignKey = new EncryptionCodec({ currentKeyId: 'other-9', keys: { 'other-9': 'cd'.repeat(32) } });
    const unknown = await callCodec('/decode', await foreignKey.encode(sample), {
      authorization: `Bearer ${token}`,
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { developerMessage: string }).developerMessage).toMatch(
      /unknown key id "other-9"/,
    );
    expect(
      (await fetch(`${server.url}/decode`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(405);
  });

  it('without a token it listens on loopback only', async () => {
    await expect(
      startCodecServer({ address: '0.0.0.0:0', codec, allowedOrigins: [uiOrigin] }),
    ).rejects.toThrow(/loopback/);
    const open = await startCodecServer({ address: '127.0.0.1:0', codec, allowedOrigins: [uiOrigin] });
    try {
      const res = await fetch(`${open.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: uiOrigin },
        body: JSON.stringify({ payloads: rawPayloads.slice(0, 1).map(payloadToJson) }),
      });
      expect(res.status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});
