/**
 * The voice-provider control surface through the app, on the real database (docs/servicing.md "Voice-provider control surface", docs/design.md §5 "Inbound channel events"; docs/processes.md P4; docs/design.md §5 voice task token): workflow versions (create, the
 * exact snake_case read, gapless numbering under concurrency, one active version, validation, 404 / cross-tenant /
 * 403), and voice dispatches (pinning the active version, case and contact-point checks, the task token shown
 * once and stored only hashed or sealed, the callback authenticated by it alone, duplicates, the terminal event
 * ending the task and the token, expiry, and no token in any log line).
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys, voiceDispatches, voiceTaskTokens } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { sha256Hex } from '../../domain/hash';
import { createLogger } from '../../workers/logger';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { appWith, countRows, expectShapeA, type Json, newKey, openCase, send } from './helpers';

const versions = '/v1/servicing/voice-provider/control/api/v1/workflow-versions';
const dispatches = '/v1/servicing/voice-dispatches';
const tokenHeader = 'x-service-voice-task-token';
const allScopes = { scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let n = 0;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('voice'), allScopes);
  other = await credentialFor(ctx, uniqueTenant('voice-other'), allScopes);
});
afterAll(async () => ctx?.close());

/** A fresh workflow id built from letters and a counter (no digit runs: domain/sensitive-data.ts). */
function newWorkflowId(): string {
  return `wf-${Date.now().toString(36)}-${(n++).toString(36)}`;
}

/** A valid outbound script: start → greet → gather → (yes) transfer / (no) bye (hangup). */
function definitionOf(id: string, extra: { nodes?: Json[]; edges?: Json[] } = {}): Json {
  return {
    id,
    name: 'Payment reminder',
    outbound: true,
    nodes: [
      { id: 'start', type: 'start', label: 'Start' },
      { id: 'greet', type: 'say', label: 'Greeting' },
      { id: 'ask', type: 'gather', label: 'Ask to pay now' },
      { id: 'agent', type: 'transfer', label: 'Transfer to an agent' },
      { id: 'bye', type: 'hangup', label: 'Goodbye' },
      ...(extra.nodes ?? []),
    ],
    edges: [
      { from: 'start', to: 'greet', on: 'next' },
      { from: 'greet', to: 'ask', on: 'next' },
      { from: 'ask', to: 'agent', on: 'digit.1' },
      { from: 'ask', to: 'bye', on: 'digit.2' },
      ...(extra.edges ?? []),
    ],
  };
}

async function createVersion(
  workflowId: string,
  definition: Json = definitionOf(workflowId),
  as: Credential = cred,
): Promise<Json> {
  const res = await call(ctx, as, 'POST', `${versions}/${workflowId}`, { label: 'First cut', definition });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function activate(workflowId: string, version: number, as: Credential = cred): Promise<Json> {
  const res = await call(ctx, as, 'POST', `${versions}/${workflowId}/${version}/activate`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('voice workflow versions', () => {
  it('creates version 1, then 2, and reads each in exactly the spec shape (snake_case)', async () => {
    const workflowId = newWorkflowId();
    const first = await createVersion(workflowId);
    expect(Object.keys(first)).toEqual([
      'id',
      'workflow_id',
      'version',
      'label',
      'is_active',
      'created_at',
      'definition',
    ]);
    expect(first).toEqual({
      id: expect.any(Number),
      workflow_id: workflowId,
      version: 1,
      label: 'First cut',
      is_active: false,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      definition: definitionOf(workflowId),
    });
    const second = await createVersion(workflowId);
    expect(second.version).toBe(2);
    const read = await send(ctx, `${versions}/${workflowId}/1`, {
      headers: { authorization: `Bearer ${cred.token}`, 'service-tenant': cred.tenant },
    });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(first);
    // The definition comes back with the spec's key order, whatever jsonb did to it.
    expect(Object.keys(read.body.definition)).toEqual(['id', 'name', 'outbound', 'nodes', 'edges']);
    expect(Object.keys(read.body.definition.nodes[0])).toEqual(['id', 'type', 'label']);
    expect(Object.keys(read.body.definition.edges[0])).toEqual(['from', 'to', 'on']);
  });

  it('numbers concurrent creates 1..n without gaps or duplicates', async () => {
    const workflowId = newWorkflowId();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(ctx, cred, 'POST', `${versions}/${workflowId}`, {
          label: 'Parallel',
          definition: definitionOf(workflowId),
        }),
      ),
    );
    for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps exactly one version active: activating one deactivates the previous', async () => {
    const workflowId = newWorkflowId();
    await createVersion(workflowId);
    await createVersion(workflowId);
    expect((await activate(workflowId, 1)).is_active).toBe(true);
    const second = await activate(workflowId, 2);
    expect(second).toMatchObject({ version: 2, is_active: true });
    expect((await call(ctx, cred, 'GET', `${versions}/${workflowId}/1`)).body.is_active).toBe(false);
    expect((await call(ctx, cred, 'GET', `${versions}/${workflowId}/2`)).body.is_active).toBe(true);
    // Activating the active version changes nothing.
    expect(await activate(workflowId, 2)).toEqual(second);
    // The database refuses a second active version outright (partial unique index) and a changed definition
    // (the application role may update is_active and activated_at only).
    const failure = (statement: ReturnType<typeof sql>) =>
      withTenantTransaction(ctx.db, cred.tenant, (tx) => tx.execute(statement)).then(
        () => null,
        (err: { code?: string; cause?: { code?: string } }) => err.cause?.code ?? err.code,
      );
    expect(
      await failure(
        sql`update voice_workflow_versions set is_active = true where workflow_id = ${workflowId} and version = 1`,
      ),
    ).toBe('23505');
    expect(
      await failure(
        sql`update voice_workflow_versions set definition = '{}'::jsonb where workflow_id = ${workflowId}`,
      ),
    ).toBe('42501');
  });

  it('refuses invalid definitions with 400 naming the field, storing nothing', async () => {
    const workflowId = newWorkflowId();
    const post = (definition: Json, label = 'Broken') =>
      call(ctx, cred, 'POST', `${versions}/${workflowId}`, { label, definition });
    const dangling = definitionOf(workflowId, { edges: [{ from: 'agent', to: 'nowhere', on: 'next' }] });
    expectShapeA(await post(dangling), 400, 'validation.msg.validation.errors.exist', [
      'definition.edges[4].to',
    ]);
    const twoStarts = definitionOf(workflowId, {
      nodes: [{ id: 'again', type: 'start', label: 'Second start' }],
      edges: [{ from: 'again', to: 'greet', on: 'next' }],
    });
    expectShapeA(await post(twoStarts), 400, 'validation.msg.validation.errors.exist', ['definition.nodes']);
    const duplicate = definitionOf(workflowId, { nodes: [{ id: 'greet', type: 'say', label: 'Again' }] });
    expectShapeA(await post(duplicate), 400, 'validation.msg.validation.errors.exist', [
      'definition.nodes[5].id',
    ]);
    expectShapeA(await post(definitionOf('another-id')), 400, 'validation.msg.validation.errors.exist', [
      'definition.id',
    ]);
    const unreachable = definitionOf(workflowId, { nodes: [{ id: 'orphan', type: 'say', label: 'Orphan' }] });
    expectShapeA(await post(unreachable), 400, 'validation.msg.validation.errors.exist', [
      'definition.nodes[5].id',
    ]);
    const leavesHangup = definitionOf(workflowId, { edges: [{ from: 'bye', to: 'greet', on: 'next' }] });
    expectShapeA(await post(leavesHangup), 400, 'validation.msg.validation.errors.exist', [
      'definition.edges[4].from',
    ]);
    const badType = definitionOf(workflowId);
    badType.nodes[1].type = 'dance';
    expectShapeA(await post(badType), 400, 'validation.msg.validation.errors.exist', [
      'definition.nodes[1].type',
    ]);
    const tooMany = definitionOf(workflowId);
    tooMany.nodes = Array.from({ length: 201 }, (_, i) => ({
      id: `n${i.toString(36)}`,
      type: i === 0 ? 'start' : 'say',
      label: 'Node',
    }));
    expectShapeA(await post(tooMany), 400, 'validation.msg.validation.errors.exist', ['definition.nodes']);
    // Free text carrying an account-like number is refused and not echoed.
    const guarded = expectShapeA(
      await post(definitionOf(workflowId), 'Card 4111 1111 1111 1111'),
      400,
      'validation.msg.validation.errors.exist',
      ['label'],
    );
    expect(JSON.stringify(guarded)).not.toContain('4111');
    expectShapeA(
      await call(ctx, cred, 'POST', `${versions}/bad%20id`, {
        label: 'x',
        definition: definitionOf('bad id'),
      }),
      400,
      'validation.msg.validation.errors.exist',
      ['workflowId'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `${versions}/${workflowId}/1`),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('answers 404 for an unknown version and for another tenant, 403 without the permission or scope', async () => {
    const workflowId = newWorkflowId();
    await createVersion(workflowId);
    expectShapeA(
      await call(ctx, cred, 'GET', `${versions}/${workflowId}/2`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `${versions}/${workflowId}/2/activate`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, other, 'GET', `${versions}/${workflowId}/1`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, other, 'POST', `${versions}/${workflowId}/1/activate`),
      404,
      'error.msg.resource.not.found',
    );
    const reader = await credentialFor(ctx, cred.tenant, { permissions: ['READ_VOICEWORKFLOWVERSION'] });
    expect((await call(ctx, reader, 'GET', `${versions}/${workflowId}/1`)).status).toBe(200);
    expectShapeA(
      await call(ctx, reader, 'POST', `${versions}/${workflowId}`, {
        label: 'x',
        definition: definitionOf(workflowId),
      }),
      403,
      'error.msg.not.authorized',
    );
    expectShapeA(
      await call(ctx, reader, 'POST', `${versions}/${workflowId}/1/activate`),
      403,
      'error.msg.not.authorized',
    );
    const lendingOnly = await credentialFor(ctx, cred.tenant, { scopes: ['lending:read'] });
    expectShapeA(
      await call(ctx, lendingOnly, 'GET', `${versions}/${workflowId}/1`),
      403,
      'error.msg.not.authorized',
    );
  });
});

interface Customer {
  customerRef: string;
  phoneRef: string;
  emailRef: string;
}

async function newCustomer(as: Credential = cred): Promise<Customer> {
  const created = await call(ctx, as, 'POST', '/v1/customers', {
    firstName: 'Ana',
    lastName: 'Lopez',
    contactPoints: [
      { contactType: 'EMAIL', value: 'ana.lopez@example.com' },
      { contactType: 'PHONE', value: '(415) 555-2671' },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const read = await call(ctx, as, 'GET', `/v1/customers/${created.body.customerId}`);
  const ref = (type: string) =>
    read.body.contactPoints.find((cp: Json) => cp.contactType === type).contactPointRef as string;
  return { customerRef: created.body.customerRef, phoneRef: ref('PHONE'), emailRef: ref('EMAIL') };
}

/** A case of a new customer, an active workflow, and a dispatch on them. */
async function dispatchFixture(
  headers: Record<string, string> = {},
): Promise<{ workflowId: string; customer: Customer; caseId: number; created: Json }> {
  const workflowId = newWorkflowId();
  await createVersion(workflowId);
  await activate(workflowId, 1);
  const customer = await newCustomer();
  const caseId = await openCase(ctx, cred, { customerRef: customer.customerRef });
  const res = await call(
    ctx,
    cred,
    'POST',
    dispatches,
    { caseId, workflowId, contactPointRef: customer.phoneRef },
    headers,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { workflowId, customer, caseId, created: res.body };
}

let eventCounter = 0;

/** The provider's callback: only the task token header (no bearer token, no tenant header). */
function callback(
  dispatchId: number | string,
  token: string | null,
  body: Json = {},
  app: TestContext['app'] = ctx.app,
): Promise<{ status: number; body: Json; headers: Headers }> {
  return (async () => {
    const res = await app.request(`${dispatches}/${dispatchId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token === null ? {} : { [tokenHeader]: token }) },
      body: JSON.stringify({
        eventId: `ev-${(eventCounter++).toString(36)}`,
        eventType: 'call.answered',
        occurredAt: new Date().toISOString(),
        ...body,
      }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  })();
}

/** Posts a callback whose `data` nests 2,000 arrays deep (the exact text, not through JSON.stringify). */
async function deepCallback(dispatchId: number | string, token: string) {
  const text = `{"eventId":"deep","eventType":"call.answered","occurredAt":"${new Date().toISOString()}","data":{"d":${'['.repeat(2000)}${']'.repeat(2000)}}}`;
  const res = await ctx.app.request(`${dispatches}/${dispatchId}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [tokenHeader]: token },
    body: text,
  });
  const raw = await res.text();
  return { status: res.status, body: raw ? JSON.parse(raw) : null, headers: res.headers };
}

describe('voice dispatches', () => {
  it('creates a dispatch pinned to the active version, with its task and a token shown once', async () => {
    const { workflowId, customer, caseId, created } = await dispatchFixture();
    expect(created).toEqual({
      dispatchId: expect.any(Number),
      taskToken: expect.stringMatching(/^vtt_[A-Za-z0-9_-]{43}$/),
      resourceId: created.dispatchId,
      caseId,
      taskId: expect.any(Number),
      workflowId,
      workflowVersion: 1,
      contactPointRef: customer.phoneRef,
      customerRef: customer.customerRef,
      status: 'DISPATCHED',
      lastNodeId: null,
      outcome: null,
      interactionId: null,
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
      completedAt: null,
    });
    expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(24 * 3600 * 1000);
    const read = await call(ctx, cred, 'GET', `${dispatches}/${created.dispatchId}`);
    expect(read.status).toBe(200);
    const { taskToken: _shownOnce, ...withoutToken } = created;
    expect(read.body).toEqual(withoutToken);
    expect(JSON.stringify(read.body)).not.toContain('vtt_');
    const task = await call(ctx, cred, 'GET', `/v1/servicing/tasks/${created.taskId}`);
    expect(task.body).toMatchObject({ taskType: 'VOICE_DISPATCH', status: 'OPEN', caseId });
    // Only the digest is stored.
    const [stored] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(voiceTaskTokens).where(eq(voiceTaskTokens.dispatchId, created.dispatchId)),
    );
    expect(stored?.tokenDigest).toBe(sha256Hex(created.taskToken));
    expect(JSON.stringify(stored)).not.toContain(created.taskToken);
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(effects.body.items.map((e: Json) => e.effectType)).toEqual(
      expect.arrayContaining(['VOICE_DISPATCH_CREATED', 'TASK_CREATED']),
    );
    expectShapeA(
      await call(ctx, other, 'GET', `${dispatches}/${created.dispatchId}`),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('refuses a workflow without an active version (409), a contact point of another customer (404), an e-mail (400), an unknown case (404)', async () => {
    const workflowId = newWorkflowId();
    await createVersion(workflowId);
    const customer = await newCustomer();
    const stranger = await newCustomer();
    const caseId = await openCase(ctx, cred, { customerRef: customer.customerRef });
    const post = (body: Json) =>
      call(ctx, cred, 'POST', dispatches, {
        caseId,
        workflowId,
        contactPointRef: customer.phoneRef,
        ...body,
      });
    expectShapeA(await post({}), 409, 'error.msg.voice.workflow.no.active.version', ['workflowId']);
    expectShapeA(
      await post({ workflowId: newWorkflowId() }),
      409,
      'error.msg.voice.workflow.no.active.version',
      ['workflowId'],
    );
    await activate(workflowId, 1);
    expectShapeA(await post({ contactPointRef: stranger.phoneRef }), 404, 'error.msg.resource.not.found', [
      'contactPointRef',
    ]);
    expectShapeA(
      await post({ contactPointRef: 'cp_abcdefghijklmnopabcdefghijklmnop' }),
      404,
      'error.msg.resource.not.found',
      ['contactPointRef'],
    );
    // A ref of the right shape that holds an SSN's nine digits: 404, and neither the message nor the field error
    // repeats it (docs/design.md §5 Error details: identifier values are masked).
    const identifierLike = await post({ contactPointRef: 'cp_536228417' });
    const notFound = expectShapeA(identifierLike, 404, 'error.msg.resource.not.found', ['contactPointRef']);
    expect(notFound.errors[0]?.value).toBeNull();
    expect(JSON.stringify(identifierLike.body)).not.toContain('536228417');
    expectShapeA(
      await post({ contactPointRef: customer.emailRef }),
      400,
      'validation.msg.validation.errors.exist',
      ['contactPointRef'],
    );
    expectShapeA(await post({ caseId: 999_999_999 }), 404, 'error.msg.resource.not.found', ['caseId']);
    const otherCase = await openCase(ctx, other, { customerRef: customer.customerRef });
    expectShapeA(await post({ caseId: otherCase }), 404, 'error.msg.resource.not.found', ['caseId']);
    expect(await countRows(ctx, cred.tenant, voiceDispatches, eq(voiceDispatches.caseId, caseId))).toBe(0);
    expect((await post({})).status).toBe(201);
  });

  it('accepts events with its own token only; duplicates answer duplicate: true; nodes come from the pinned version', async () => {
    const { workflowId, created } = await dispatchFixture();
    const second = await dispatchFixture();
    const token = created.taskToken as string;
    const entered = await callback(created.dispatchId, token, {
      eventId: 'node-greet',
      eventType: 'node.entered',
      nodeId: 'greet',
    });
    expect(entered.status, JSON.stringify(entered.body)).toBe(200);
    expect(entered.body).toEqual({ eventId: 'node-greet', duplicate: false, status: 'IN_PROGRESS' });
    const again = await callback(created.dispatchId, token, {
      eventId: 'node-greet',
      eventType: 'node.entered',
      nodeId: 'greet',
    });
    expect(again.body).toEqual({ eventId: 'node-greet', duplicate: true, status: 'IN_PROGRESS' });
    // A later version with other nodes does not change the pinned one.
    await createVersion(
      workflowId,
      definitionOf(workflowId, {
        nodes: [{ id: 'survey', type: 'gather', label: 'Survey' }],
        edges: [{ from: 'agent', to: 'survey', on: 'done' }],
      }),
    );
    await activate(workflowId, 2);
    expectShapeA(
      await callback(created.dispatchId, token, { eventType: 'node.entered', nodeId: 'survey' }),
      400,
      'validation.msg.validation.errors.exist',
      ['nodeId'],
    );
    expectShapeA(
      await callback(created.dispatchId, token, { eventType: 'node.entered' }),
      400,
      'validation.msg.validation.errors.exist',
      ['nodeId'],
    );
    expectShapeA(
      await callback(created.dispatchId, token, { eventType: 'call.ringing' }),
      400,
      'validation.msg.validation.errors.exist',
      ['eventType'],
    );
    const read = await call(ctx, cred, 'GET', `${dispatches}/${created.dispatchId}`);
    expect(read.body).toMatchObject({ status: 'IN_PROGRESS', lastNodeId: 'greet', workflowVersion: 1 });

    // Every authentication failure is one and the same 401.
    const refusals = [
      await callback(created.dispatchId, second.created.taskToken),
      await callback(second.created.dispatchId, token),
      await callback(created.dispatchId, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`),
      await callback(created.dispatchId, null),
      await callback(999_999_999, token),
      await callback('not-a-dispatch', token),
      await callback(created.dispatchId, 'x'.repeat(5000)),
    ];
    for (const res of refusals) expectShapeA(res, 401, 'error.msg.not.authenticated');
    expect(new Set(refusals.map((r) => JSON.stringify(r.body))).size).toBe(1);
    // A bearer token of the tenant is no substitute.
    const withBearer = await ctx.app.request(`${dispatches}/${created.dispatchId}/events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cred.token}`,
        'service-tenant': cred.tenant,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        eventId: 'bearer',
        eventType: 'call.answered',
        occurredAt: new Date().toISOString(),
      }),
    });
    expect(withBearer.status).toBe(401);
  });

  it('a terminal event completes the dispatch and its task, logs an interaction, and ends the token', async () => {
    const { caseId, created } = await dispatchFixture();
    const token = created.taskToken as string;
    const done = await callback(created.dispatchId, token, {
      eventId: 'done',
      eventType: 'call.completed',
      data: { durationSeconds: 95, providerCallRef: 'call-abc' },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ eventId: 'done', duplicate: false, status: 'COMPLETED' });
    const read = await call(ctx, cred, 'GET', `${dispatches}/${created.dispatchId}`);
    expect(read.body).toMatchObject({
      status: 'COMPLETED',
      outcome: 'call.completed',
      interactionId: expect.any(Number),
      completedAt: expect.any(String),
    });
    const task = await call(ctx, cred, 'GET', `/v1/servicing/tasks/${created.taskId}`);
    expect(task.body.status).toBe('COMPLETED');
    const interaction = await call(ctx, cred, 'GET', `/v1/servicing/interactions/${read.body.interactionId}`);
    expect(interaction.body).toMatchObject({ caseId, channel: 'VOICE', direction: 'OUTBOUND' });
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    expect(effects.body.items.map((e: Json) => e.effectType)).toEqual(
      expect.arrayContaining(['VOICE_DISPATCH_COMPLETED', 'TASK_COMPLETED', 'INTERACTION_LOGGED']),
    );
    expectShapeA(await callback(created.dispatchId, token), 401, 'error.msg.not.authenticated');
    expectShapeA(
      await callback(created.dispatchId, token, { eventId: 'done', eventType: 'call.completed' }),
      401,
      'error.msg.not.authenticated',
    );
  });

  it('a callback body nested 2,000 levels deep → 400 on body (was a stack overflow → 500); the event id stays free', async () => {
    const { created } = await dispatchFixture();
    const res = await deepCallback(created.dispatchId, created.taskToken as string);
    const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['body']);
    expect((err.errors[0] as Json).userMessageGlobalisationCode).toBe('validation.msg.json.nesting.too.deep');
    const after = await callback(created.dispatchId, created.taskToken as string, { eventId: 'deep' });
    expect(after.body).toMatchObject({ eventId: 'deep', duplicate: false });
  });

  it('a callback body over 64 KiB is refused with 413 Shape A before anything is recorded', async () => {
    const { created } = await dispatchFixture();
    const big = await callback(created.dispatchId, created.taskToken as string, {
      eventId: 'too-big',
      data: { padding: 'x'.repeat(70 * 1024) },
    });
    expectShapeA(big, 413, 'error.msg.payload.too.large');
    const after = await callback(created.dispatchId, created.taskToken as string, { eventId: 'too-big' });
    expect(after.body).toMatchObject({ eventId: 'too-big', duplicate: false });
  });

  it('a call ending after its case was closed is logged without the case', async () => {
    const { caseId, created } = await dispatchFixture();
    const closed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'RESOLVED',
      closureReason: 'Settled by letter',
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const done = await callback(created.dispatchId, created.taskToken, { eventType: 'call.no_answer' });
    expect(done.body).toMatchObject({ duplicate: false, status: 'NO_ANSWER' });
    const read = await call(ctx, cred, 'GET', `${dispatches}/${created.dispatchId}`);
    const interaction = await call(ctx, cred, 'GET', `/v1/servicing/interactions/${read.body.interactionId}`);
    expect(interaction.body).toMatchObject({ caseId: null, channel: 'VOICE' });
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    const types = effects.body.items.map((e: Json) => e.effectType);
    expect(types).toContain('VOICE_DISPATCH_COMPLETED');
    expect(types).not.toContain('INTERACTION_LOGGED');
  });

  it('the token stops working when its task is completed by a person, and after 24 hours', async () => {
    const first = await dispatchFixture();
    const completed = await call(ctx, cred, 'POST', `/v1/servicing/tasks/${first.created.taskId}/complete`, {
      note: 'Called the customer ourselves',
    });
    expect(completed.status).toBe(200);
    expectShapeA(
      await callback(first.created.dispatchId, first.created.taskToken),
      401,
      'error.msg.not.authenticated',
    );

    const second = await dispatchFixture();
    expect((await callback(second.created.dispatchId, second.created.taskToken)).status).toBe(200);
    ctx.now.value = new Date(Date.parse(second.created.expiresAt) + 1000);
    try {
      expectShapeA(
        await callback(second.created.dispatchId, second.created.taskToken),
        401,
        'error.msg.not.authenticated',
      );
    } finally {
      ctx.now.value = null;
    }
  });

  it('replays a create from the key store (sealed there), never keeping the token in clear', async () => {
    const key = newKey('vd');
    const { workflowId, customer, caseId, created } = await dispatchFixture({ 'idempotency-key': key });
    const replay = await call(
      ctx,
      cred,
      'POST',
      dispatches,
      { caseId, workflowId, contactPointRef: customer.phoneRef },
      { 'idempotency-key': key },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    // The token is in the replayed body too: no cache may keep it (the first answer's Cache-Control is replayed).
    expect(replay.headers.get('cache-control')).toBe('no-store');
    expect(replay.body).toEqual(created);
    expect(await countRows(ctx, cred.tenant, voiceDispatches, eq(voiceDispatches.caseId, caseId))).toBe(1);
    const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select({ body: idempotencyKeys.responseBody })
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.clientId, cred.clientId), eq(idempotencyKeys.key, key))),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.body).toMatch(/^sealed:v1:/);
    expect(rows[0]?.body).not.toContain(created.taskToken);
    expect(rows[0]?.body).not.toContain('vtt_');
  });

  it('a retried create under the same request key (the answer was lost) returns the dispatch with a new token that replaces the first', async () => {
    const workflowId = newWorkflowId();
    await createVersion(workflowId);
    await activate(workflowId, 1);
    const customer = await newCustomer();
    const caseId = await openCase(ctx, cred, { customerRef: customer.customerRef });
    const input = {
      tenantId: cred.tenant,
      requestKey: `${cred.clientId}/${newKey('vd')}`,
      caseId,
      workflowId,
      contactPointRef: customer.phoneRef,
    };
    const first = await ctx.activities.createVoiceDispatch(input);
    const second = await ctx.activities.createVoiceDispatch(input);
    expect(second.dispatch).toEqual(first.dispatch);
    expect(second.taskToken).not.toBe(first.taskToken);
    expect(await countRows(ctx, cred.tenant, voiceDispatches, eq(voiceDispatches.caseId, caseId))).toBe(1);
    expectShapeA(
      await callback(first.dispatch.dispatchId, first.taskToken),
      401,
      'error.msg.not.authenticated',
    );
    expect((await callback(first.dispatch.dispatchId, second.taskToken)).status).toBe(200);
  });

  it('concurrent activations of two versions leave exactly one active', async () => {
    const workflowId = newWorkflowId();
    await createVersion(workflowId);
    await createVersion(workflowId);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        call(ctx, cred, 'POST', `${versions}/${workflowId}/1/activate`),
        call(ctx, cred, 'POST', `${versions}/${workflowId}/2/activate`),
      ]);
      for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const active = await Promise.all(
        [1, 2].map(
          async (version) => (await call(ctx, cred, 'GET', `${versions}/${workflowId}/${version}`)).body,
        ),
      );
      expect(active.filter((v) => v.is_active)).toHaveLength(1);
    }
  });

  it('never writes the token to a log line', async () => {
    const lines: string[] = [];
    const app = appWith(ctx, { logger: createLogger('info', { write: (line: string) => lines.push(line) }) });
    const workflowId = newWorkflowId();
    await createVersion(workflowId);
    await activate(workflowId, 1);
    const customer = await newCustomer();
    const caseId = await openCase(ctx, cred, { customerRef: customer.customerRef });
    const res = await app.request(dispatches, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cred.token}`,
        'service-tenant': cred.tenant,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ caseId, workflowId, contactPointRef: customer.phoneRef }),
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Json;
    const token = created.taskToken as string;
    expect((await callback(created.dispatchId, token, {}, app)).status).toBe(200);
    expect((await callback(created.dispatchId, `${token}x`, {}, app)).status).toBe(401);
    expect((await callback(created.dispatchId, token, { eventType: 'nonsense' }, app)).status).toBe(400);
    expect((await callback(created.dispatchId, token, { eventType: 'call.failed' }, app)).status).toBe(200);
    expect((await callback(created.dispatchId, token, {}, app)).status).toBe(401);
    expect(lines.length).toBeGreaterThan(4);
    const output = lines.join('');
    expect(output).toContain('voice callback refused');
    expect(output).not.toContain(token);
    expect(output).not.toContain(token.slice(4));
    expect(output).not.toContain('vtt_');
  });
});
