/**
 * Boarding batches over HTTP (docs/processes.md P3), on real PostgreSQL and a real worker on the
 * `boarding` queue of the dev server. What the routes own: the upload of the example portfolio (202, lines staged
 * with kind, sourceRef and parent, the batch row, the process started with its type, TenantId and summary, the
 * intent marked started); malformed lines (FAILED with Shape A in `…/errors`, the rest PENDING); CRLF and blank
 * lines keeping line numbers; the same Idempotency-Key answering the same batch without staging again; 415 on
 * another content type; scopes and permissions (403); another tenant's batch (404); pause/resume/cancel (200 while
 * the batch runs, 409 once final); and a 200,000-line upload staged in flat memory.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { analyzeAfterLines } from '../../activities/boarding/stage-batch';
import { boardingBatches, boardingLines, workflowStartIntents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { boardingWorkflowId, taskQueues } from '../../domain/ids';
import { createQueueWorker } from '../../workers/queue-worker';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  testDataConverter,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, type Json, newKey } from './helpers';

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let workerConnection: NativeConnection;
let worker: Worker;
let workerRun: Promise<void>;
const everything = { scopes: ['lending:read', 'lending:write'] };

const exampleText = readFileSync(
  fileURLToPath(new URL('../../domain/boarding/example-portfolio.ndjson', import.meta.url)),
  'utf8',
);

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  // The boarding queue's worker (the process answers its progress query; the placeholder never progresses).
  workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await createQueueWorker({
    connection: workerConnection,
    namespace: ctx.client.options.namespace,
    taskQueue: taskQueues.boarding,
    activities: ctx.activities,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    dataConverter: testDataConverter,
  });
  workerRun = worker.run();
  cred = await credentialFor(ctx, uniqueTenant('brd'), everything);
  other = await credentialFor(ctx, uniqueTenant('brd-other'), everything);
});
afterAll(async () => {
  if (worker && worker.getState() === 'RUNNING') worker.shutdown();
  await workerRun;
  await workerConnection?.close();
  await ctx?.close();
});

/** `POST /v1/boarding/batches` with `body` (text or a byte stream) as NDJSON unless `headers` say otherwise. */
async function upload(
  c: Credential,
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  options: { headers?: Record<string, string>; query?: string } = {},
) {
  const res = await ctx.app.request(`/v1/boarding/batches${options.query ?? ''}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${c.token}`,
      'service-tenant': c.tenant,
      'content-type': 'application/x-ndjson',
      ...options.headers,
    },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Reads the batch until its status is final (the boarding worker works in the background), or fails after 60 s. */
async function untilFinal(batchId: number): Promise<Json> {
  const until = Date.now() + 60_000;
  for (;;) {
    const read = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    if (['COMPLETED', 'COMPLETED_WITH_ERRORS', 'CANCELLED'].includes(read.body.status)) return read.body;
    if (Date.now() > until) throw new Error(`batch ${batchId} still ${read.body.status} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function linesOf(tenant: string, batchId: number) {
  return withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .select()
      .from(boardingLines)
      .where(and(eq(boardingLines.tenantId, tenant), eq(boardingLines.batchId, batchId)))
      .orderBy(asc(boardingLines.lineNo)),
  );
}

async function setStatus(tenant: string, batchId: number, status: string) {
  await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .update(boardingBatches)
      .set({ status })
      .where(and(eq(boardingBatches.tenantId, tenant), eq(boardingBatches.id, batchId))),
  );
}

describe('POST /v1/boarding/batches', () => {
  it('stages the example portfolio: 202, every line PENDING with kind, sourceRef and parent; the process started', async () => {
    const res = await upload(cred, exampleText, {
      query: '?fileName=example-portfolio.ndjson',
      headers: { 'service-actor': 'migration-team' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const expected = exampleText.split('\n').filter((l) => l !== '');
    expect(res.body).toEqual({ batchId: expect.any(Number), status: 'STAGED', records: expected.length });
    const { batchId } = res.body;

    // What staging wrote (the process may already be boarding: states are checked at the end).
    const lines = await linesOf(cred.tenant, batchId);
    expect(lines.map((l) => l.lineNo)).toEqual(expected.map((_, i) => i + 1));
    for (const [i, line] of lines.entries()) {
      const source = JSON.parse(expected[i] as string);
      // Identifier values are stored encrypted (activities/boarding/line-crypto.ts); the rest of the line as uploaded.
      const values: string[] = (source.body.identifiers ?? []).map((item: { value: string }) => item.value);
      if (values.length === 0) expect(line.raw).toBe(expected[i]);
      else {
        for (const value of values) expect(line.raw).not.toContain(value);
        const stored = JSON.parse(line.raw ?? '{}');
        for (const item of stored.body.identifiers) expect(item.value).toMatch(/^enc:v1:[A-Za-z0-9+/=]+$/);
        expect({ ...stored, body: { ...stored.body, identifiers: source.body.identifiers } }).toEqual(source);
      }
      expect(line).toMatchObject({
        kind: source.kind,
        sourceRef: source.sourceRef,
        parentSourceRef: source.body.loanSourceRef ?? source.body.customerSourceRef ?? null,
      });
    }
    const [batch] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(boardingBatches).where(eq(boardingBatches.id, batchId)),
    );
    expect(batch).toMatchObject({
      records: expected.length,
      malformed: 0,
      fileName: 'example-portfolio.ndjson',
      createdBy: 'migration-team',
      requestKey: null,
    });
    const { createHash } = await import('node:crypto');
    expect(batch?.contentSha256).toBe(createHash('sha256').update(exampleText).digest('hex'));

    const workflowId = boardingWorkflowId(cred.tenant, batchId);
    const described = await ctx.client.workflow.getHandle(workflowId).describe();
    expect(described.type).toBe('boardingWorkflow');
    expect(described.taskQueue).toBe('boarding');
    expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toContainEqual([
      'TenantId',
      cred.tenant,
    ]);
    expect(await described.staticSummary()).toBe(
      `Boarding batch ${batchId}: example-portfolio.ndjson, ${expected.length} lines`,
    );
    // The route notes the mark; the app's start-mark buffer writes it at its next flush.
    await ctx.startMarks.flush();
    const [intent] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.select().from(workflowStartIntents).where(eq(workflowStartIntents.workflowId, workflowId)),
    );
    expect(intent?.startedAt).toBeInstanceOf(Date);

    // The example portfolio boards completely: every line BOARDED with what it created.
    const done = await untilFinal(batchId);
    expect(done).toMatchObject({
      batchId,
      status: 'COMPLETED',
      records: expected.length,
      malformed: 0,
      counts: {
        charge: { total: 2, boarded: 2, failed: 0 },
        loanProduct: { total: 2, boarded: 2, failed: 0 },
        customer: { total: 3, boarded: 3, failed: 0 },
        restriction: { total: 1, boarded: 1, failed: 0 },
        loan: { total: 3, boarded: 3, failed: 0 },
        funding: { total: 3, boarded: 3, failed: 0 },
        payment: { total: 10, boarded: 10, failed: 0 },
        verification: { total: 1, boarded: 1, failed: 0 },
      },
      etaSeconds: null,
    });
    expect(Date.parse(done.completedAt)).toBeGreaterThanOrEqual(Date.parse(done.startedAt));
    const boarded = await linesOf(cred.tenant, batchId);
    expect(boarded.every((l) => l.state === 'BOARDED' && l.resourceId !== null && l.error === null)).toBe(
      true,
    );
    const errors = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}/errors`);
    expect(errors.body).toEqual({ items: [], limit: 100, offset: 0, hasMore: false });
  });

  it('stages malformed lines FAILED with a Shape A error each; CRLF and blank lines keep line numbers', async () => {
    const good = (ref: string) =>
      JSON.stringify({
        kind: 'payment',
        sourceRef: ref,
        body: {
          loanSourceRef: 'loan-x',
          amount: '10.00',
          currency: 'USD',
          effectiveDate: '2025-01-02',
          source: 'IMPORT',
        },
      });
    const overlong = JSON.stringify({
      kind: 'charge',
      sourceRef: 'big',
      body: { name: 'x'.repeat(1_100_000) },
    });
    const text = [
      good('pay-a'), // 1
      'this is not json', // 2
      JSON.stringify({ sourceRef: 'no-kind', body: {} }), // 3
      JSON.stringify({ kind: 'mortgage', sourceRef: 'odd-kind', body: {} }), // 4
      '', // 5 blank
      JSON.stringify({ kind: 'customer', sourceRef: 'cust-bad', body: [1, 2] }), // 6
      '   ', // 7 blank
      overlong, // 8
      good('pay-b'), // 9
    ].join('\r\n');
    const res = await upload(cred, `${text}\r\n\r\n`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.records).toBe(7);
    const { batchId } = res.body;

    // The process then fails the two payments too (their loan is in no batch): wait for it, then read.
    const done = await untilFinal(batchId);
    expect(done.status).toBe('COMPLETED_WITH_ERRORS');
    const lines = await linesOf(cred.tenant, batchId);
    expect(lines.map((l) => [l.lineNo, l.state, l.kind, l.sourceRef])).toEqual([
      [1, 'FAILED', 'payment', 'pay-a'],
      [2, 'FAILED', null, null],
      [3, 'FAILED', null, 'no-kind'],
      [4, 'FAILED', null, 'odd-kind'],
      [6, 'FAILED', 'customer', 'cust-bad'],
      [8, 'FAILED', null, null],
      [9, 'FAILED', 'payment', 'pay-b'],
    ]);
    expect(lines[0]?.raw).toBe(good('pay-a'));
    expect(lines[0]?.parentSourceRef).toBe('loan-x');
    expect(lines.find((l) => l.lineNo === 8)?.raw?.length).toBeLessThanOrEqual(1024);

    const errors = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}/errors`);
    expect(errors.status).toBe(200);
    expect(errors.body.items.map((i: { line: number }) => i.line)).toEqual([1, 2, 3, 4, 6, 8, 9]);
    const expectedNames: Record<number, string[]> = {
      2: ['line'],
      3: ['kind'],
      4: ['kind'],
      6: ['body'],
      8: ['line'],
    };
    for (const item of errors.body.items.filter((i: { line: number }) => expectedNames[i.line])) {
      expectShapeA(
        { status: 400, body: item.error, headers: new Headers({ 'content-type': 'application/json' }) },
        400,
        'validation.msg.validation.errors.exist',
        expectedNames[item.line],
      );
    }
    expect(errors.body.items[4]).toMatchObject({ line: 6, kind: 'customer', sourceRef: 'cust-bad' });
    expect(errors.body.items[0]).toMatchObject({ line: 1, kind: 'payment', sourceRef: 'pay-a' });

    const page = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}/errors?limit=2&offset=2`);
    expect(page.body).toMatchObject({ limit: 2, offset: 2, hasMore: true });
    expect(page.body.items.map((i: { line: number }) => i.line)).toEqual([3, 4]);
    for (const limit of ['0', '1001', 'x']) {
      const bad = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}/errors?limit=${limit}`);
      expectShapeA(bad, 400, 'validation.msg.validation.errors.exist', ['limit']);
    }

    const read = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}`);
    expect(read.body).toMatchObject({ records: 7, malformed: 5 });
    expect(read.body.counts.payment).toEqual({ total: 2, boarded: 0, failed: 2 });
    expect(read.body.counts.customer).toEqual({ total: 1, boarded: 0, failed: 1 });
  });

  it('stages bytes that are not UTF-8, and a raw U+0000, FAILED naming line (stored with U+FFFD)', async () => {
    const encoder = new TextEncoder();
    const bytes = new Uint8Array([
      ...encoder.encode('{"kind":"charge","sourceRef":"ok","body":{}}\n'),
      ...encoder.encode('{"kind":"charge","sourceRef":"bad-'),
      0xff,
      0xfe,
      ...encoder.encode('","body":{}}\n{"kind":"charge",'),
      0x00,
      ...encoder.encode('"sourceRef":"nul","body":{}}\n'),
    ]);
    const res = await upload(cred, bytes);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const lines = await linesOf(cred.tenant, res.body.batchId);
    expect(lines.map((l) => [l.lineNo, l.state])).toEqual([
      [1, 'PENDING'],
      [2, 'FAILED'],
      [3, 'FAILED'],
    ]);
    expect(lines[1]?.raw).toContain('bad-\ufffd');
    expect(lines[2]?.raw).toContain('"charge",\ufffd"sourceRef"');
    expect(lines.slice(1).map((l) => l.error?.errors.map((e) => e.parameterName))).toEqual([
      ['line'],
      ['line'],
    ]);
  });

  it('the same Idempotency-Key answers the first batch without staging again', async () => {
    const c = await credentialFor(ctx, uniqueTenant('brd-idem'), everything);
    const key = newKey('upload');
    const first = await upload(c, exampleText, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(202);
    const again = await upload(c, exampleText, { headers: { 'idempotency-key': key } });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    // Even with another body: the key names the first upload.
    const other = await upload(c, 'not json at all\n', { headers: { 'idempotency-key': key } });
    expect(other.body).toEqual(first.body);
    expect(await countRows(ctx, c.tenant, boardingBatches)).toBe(1);
    expect(await countRows(ctx, c.tenant, boardingLines)).toBe(first.body.records);
    // Another key is another batch.
    const second = await upload(c, exampleText, { headers: { 'idempotency-key': newKey('upload') } });
    expect(second.body.batchId).not.toBe(first.body.batchId);
    expect(await countRows(ctx, c.tenant, boardingBatches)).toBe(2);
  });

  it('another content type → 415 naming header.Content-Type, nothing staged', async () => {
    const c = await credentialFor(ctx, uniqueTenant('brd-415'), everything);
    for (const contentType of ['application/json', 'text/plain']) {
      const res = await upload(c, exampleText, { headers: { 'content-type': contentType } });
      expectShapeA(res, 415, 'error.msg.unsupported.media.type', ['header.Content-Type']);
    }
    const res = await ctx.app.request('/v1/boarding/batches', {
      method: 'POST',
      headers: { authorization: `Bearer ${c.token}`, 'service-tenant': c.tenant },
    });
    expect(res.status).toBe(415);
    expect(await countRows(ctx, c.tenant, boardingBatches)).toBe(0);
    const long = await upload(c, exampleText, { query: `?fileName=${'f'.repeat(256)}` });
    expectShapeA(long, 400, 'validation.msg.validation.errors.exist', ['fileName']);
  });

  it('needs lending:write and BOARD_PORTFOLIO to upload, lending:read and READ_BOARDINGBATCH to read', async () => {
    const tenant = uniqueTenant('brd-auth');
    const readOnly = await credentialFor(ctx, tenant, { scopes: ['lending:read'] });
    expectShapeA(await upload(readOnly, exampleText), 403, 'error.msg.not.authorized');
    const reader = await credentialFor(ctx, tenant, {
      scopes: ['lending:read', 'lending:write'],
      permissions: ['READ_BOARDINGBATCH'],
    });
    expectShapeA(await upload(reader, exampleText), 403, 'error.msg.not.authorized');
    const boarder = await credentialFor(ctx, tenant, {
      scopes: ['lending:read', 'lending:write'],
      permissions: ['BOARD_PORTFOLIO'],
    });
    const staged = await upload(boarder, exampleText);
    expect(staged.status).toBe(202);
    const path = `/v1/boarding/batches/${staged.body.batchId}`;
    expectShapeA(await call(ctx, boarder, 'GET', path), 403, 'error.msg.not.authorized');
    expectShapeA(await call(ctx, boarder, 'GET', `${path}/errors`), 403, 'error.msg.not.authorized');
    expect((await call(ctx, reader, 'GET', path)).status).toBe(200);
    expectShapeA(await call(ctx, reader, 'POST', `${path}/pause`), 403, 'error.msg.not.authorized');
    expectShapeA(await call(ctx, readOnly, 'POST', `${path}/cancel`), 403, 'error.msg.not.authorized');
  });
});

describe('a batch', () => {
  it("another tenant's or an unknown batch → 404", async () => {
    const staged = await upload(cred, exampleText);
    const path = `/v1/boarding/batches/${staged.body.batchId}`;
    expectShapeA(await call(ctx, other, 'GET', path), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, other, 'GET', `${path}/errors`), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, other, 'POST', `${path}/pause`), 404, 'error.msg.resource.not.found');
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/boarding/batches/999999999'),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('pause, resume and cancel answer 200 with the batch while it runs, 409 once it is final', async () => {
    const staged = await upload(cred, exampleText);
    const { batchId } = staged.body;
    // Paused at once (before the small batch can finish), then resumed and cancelled back to back.
    for (const action of ['pause', 'resume', 'cancel']) {
      const res = await call(ctx, cred, 'POST', `/v1/boarding/batches/${batchId}/${action}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ batchId, records: staged.body.records });
    }
    expect((await untilFinal(batchId)).status).toBe('CANCELLED');
    // The process has ended (its last write of the row done) before the row is changed below.
    await ctx.client.workflow.getHandle(boardingWorkflowId(cred.tenant, batchId)).result();
    for (const status of ['COMPLETED', 'COMPLETED_WITH_ERRORS', 'CANCELLED']) {
      await setStatus(cred.tenant, batchId, status);
      for (const action of ['pause', 'resume', 'cancel']) {
        const res = await call(ctx, cred, 'POST', `/v1/boarding/batches/${batchId}/${action}`);
        expectShapeA(res, 409, 'error.msg.boarding.batch.invalid.state.transition', ['batchId']);
      }
      // A final batch is read from its row.
      const read = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}`);
      expect(read.body.status).toBe(status);
    }
  });
});

describe('a large upload', () => {
  it('analyzes boarding_lines after an upload of 1,000 lines or more, so the boarding reads by parent ref use its index', async () => {
    const lastAnalyze = async () => {
      const rows = (await ctx.db.execute(
        sql`select last_analyze from pg_stat_user_tables where relname = 'boarding_lines'`,
      )) as unknown as { last_analyze: Date | string | null }[];
      const at = rows[0]?.last_analyze ?? null;
      return at === null ? 0 : new Date(at).getTime();
    };
    const before = await lastAnalyze();
    const lines = Array.from(
      { length: analyzeAfterLines },
      (_, i) =>
        `{"kind":"payment","sourceRef":"pa-${i}","body":{"loanSourceRef":"ln-${i % 40}","amount":"10.00","currency":"USD","effectiveDate":"2025-06-01","source":"IMPORT"}}`,
    ).join('\n');
    const res = await upload(cred, lines, { query: '?fileName=analyzed.ndjson' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(await lastAnalyze()).toBeGreaterThan(before);
    const cancelled = await call(ctx, cred, 'POST', `/v1/boarding/batches/${res.body.batchId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
  });

  it('stages 200,000 generated lines streamed without the process growing by more than ~100 MB', async () => {
    const total = 200_000;
    const perChunk = 2_000;
    const encoder = new TextEncoder();
    // About 450 bytes a line, 90 MB in all: a route that buffered the body would pass the bound by itself.
    const padding = 'Imported from the servicing platform of record '.repeat(6);
    let n = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (n >= total) {
          controller.close();
          return;
        }
        let chunk = '';
        for (let i = 0; i < perChunk && n < total; i++, n++) {
          const loan = `loan-${(n % 5000).toString(36)}`;
          chunk += `{"kind":"payment","sourceRef":"pay-${n.toString(36)}","body":{"loanSourceRef":"${loan}","amount":"125.50","currency":"USD","effectiveDate":"2025-06-01","source":"IMPORT","rationale":"${padding}"}}\n`;
        }
        controller.enqueue(encoder.encode(chunk));
      },
    });
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const started = Date.now();
    const res = await upload(cred, stream, { query: '?fileName=large.ndjson' });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.records).toBe(total);
    const grewMiB = Math.round((peak - before) / 2 ** 20);
    expect(peak - before, `RSS grew by ${grewMiB} MiB`).toBeLessThan(100 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(60_000);
    // Stop the process (its payments name loans of no batch): the test is about staging.
    const cancelled = await call(ctx, cred, 'POST', `/v1/boarding/batches/${res.body.batchId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const read = await call(ctx, cred, 'GET', `/v1/boarding/batches/${res.body.batchId}`);
    expect(read.body).toMatchObject({ records: total, malformed: 0 });
    expect(
      await countRows(ctx, cred.tenant, boardingLines, eq(boardingLines.batchId, res.body.batchId)),
    ).toBe(total);
  }, 90_000);
});
