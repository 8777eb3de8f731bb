/**
 * Close-of-business runs through the public API (docs/processes.md P7 "The run"; api/routes/lending/cob-runs.ts):
 * a run of an ended day answers 202 and, run by a `lending` worker, closes the loans active on the day; the
 * whole-tenant run asked again answers 200 with the same run; a day not ended or an unknown loan → 400 naming the
 * field; a run of named loans is a run of its own; reads (READ_COB or RUN_COB) and the errors' paging; 404 for an
 * unknown or another tenant's run.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cobRunErrors, cobRuns, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { localDate } from '../../domain/time-zone';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';
import { fundedLoan } from './payment-fixtures';

let ctx: TestContext;
let cred: Credential;
let reader: Credential;
let runner: Credential;
let neither: Credential;
let other: Credential;
let early: number[];
let late: number;

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  const tenant = uniqueTenant('cobrun');
  cred = await credentialFor(ctx, tenant, { scopes: ['lending:read', 'lending:write'] });
  reader = await credentialFor(ctx, tenant, {
    scopes: ['lending:read', 'lending:write'],
    permissions: ['READ_COB'],
  });
  runner = await credentialFor(ctx, tenant, {
    scopes: ['lending:read', 'lending:write'],
    permissions: ['RUN_COB'],
  });
  neither = await credentialFor(ctx, tenant, {
    scopes: ['lending:read', 'lending:write'],
    permissions: ['READ_LOAN'],
  });
  other = await credentialFor(ctx, uniqueTenant('cobrunx'), { scopes: ['lending:read', 'lending:write'] });
  early = [
    (await fundedLoan(ctx, cred, '2025-01-01')).loanId,
    (await fundedLoan(ctx, cred, '2025-01-10')).loanId,
  ];
  late = (await fundedLoan(ctx, cred, '2025-03-01')).loanId;
}, 120_000);
afterAll(async () => ctx?.close());

/** Reads the run until it is no longer RUNNING (a worker runs it). */
async function finished(runId: string) {
  for (let i = 0; i < 200; i++) {
    const res = await call(ctx, cred, 'GET', `/v1/cob/runs/${runId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (res.body.status !== 'RUNNING') return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} did not finish`);
}

async function lastClosed(ids: number[]) {
  const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx
      .select({ id: loans.id, day: loans.lastClosedBusinessDate })
      .from(loans)
      .where(and(eq(loans.tenantId, cred.tenant), inArray(loans.id, ids))),
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.day]));
}

describe('POST /v1/cob/runs', () => {
  let wholeRunId: string;

  it('starts the whole-tenant run of an ended day (202), which closes the loans active on it', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/cob/runs', { businessDate: '2025-02-01' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ businessDate: '2025-02-01', status: 'RUNNING', completedAt: null });
    expect(res.body.runId).toMatch(/^cob_[0-9a-f]{24}$/);
    expect(Date.parse(res.body.startedAt)).not.toBeNaN();
    wholeRunId = res.body.runId;
    const done = await finished(wholeRunId);
    expect(done).toMatchObject({
      runId: wholeRunId,
      status: 'COMPLETED',
      loans: { total: 2, processed: 2, failed: 0 },
    });
    expect(Date.parse(done.completedAt)).toBeGreaterThanOrEqual(Date.parse(done.startedAt));
    expect(await lastClosed([...early, late])).toEqual({
      [early[0] as number]: '2025-02-01',
      [early[1] as number]: '2025-02-01',
      [late]: null,
    });
  }, 60_000);

  it('asked again, answers 200 with the same run and starts nothing', async () => {
    const again = await call(ctx, cred, 'POST', '/v1/cob/runs', { businessDate: '2025-02-01' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({
      runId: wholeRunId,
      status: 'COMPLETED',
      loans: { total: 2, processed: 2 },
    });
  });

  it('a run of named loans is a run of its own, for those loans only', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/cob/runs', {
      businessDate: '2025-03-05',
      loanIds: [late, late],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.runId).not.toBe(wholeRunId);
    const done = await finished(res.body.runId);
    expect(done).toMatchObject({ status: 'COMPLETED', loans: { total: 1, processed: 1, failed: 0 } });
    const days = await lastClosed([...early, late]);
    expect(days[late]).toBe('2025-03-05');
    expect(days[early[0] as number]).toBe('2025-02-01');
  }, 60_000);

  it('refuses a day that has not ended, an unknown loan and a malformed body (400 naming the field)', async () => {
    const today = localDate(Date.now(), 'America/Los_Angeles');
    for (const businessDate of [today, addDays(today, 1)]) {
      const res = await call(ctx, cred, 'POST', '/v1/cob/runs', { businessDate });
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['businessDate']);
      expect(err.developerMessage).toContain('ended');
    }
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/cob/runs', { businessDate: '2025-02-02', loanIds: [999_999_999] }),
      400,
      'validation.msg.validation.errors.exist',
      ['loanIds'],
    );
    // Another tenant's loan is unknown here too.
    expectShapeA(
      await call(ctx, other, 'POST', '/v1/cob/runs', { businessDate: '2025-02-02', loanIds: [late] }),
      400,
      'validation.msg.validation.errors.exist',
      ['loanIds'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/cob/runs', { businessDate: '2025-02-02', loanIds: [] }),
      400,
      'validation.msg.validation.errors.exist',
      ['loanIds'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/cob/runs', { businessDate: '2025-02-30' }),
      400,
      'validation.msg.validation.errors.exist',
      ['businessDate'],
    );
  });

  it('needs RUN_COB', async () => {
    const res = await call(ctx, reader, 'POST', '/v1/cob/runs', { businessDate: '2025-02-03' });
    expectShapeA(res, 403, 'error.msg.not.authorized');
  });

  describe('reads', () => {
    it('GET needs READ_COB or RUN_COB; unknown and other tenants’ runs are 404', async () => {
      for (const c of [reader, runner]) {
        const res = await call(ctx, c, 'GET', `/v1/cob/runs/${wholeRunId}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.runId).toBe(wholeRunId);
        expect((await call(ctx, c, 'GET', `/v1/cob/runs/${wholeRunId}/errors`)).status).toBe(200);
      }
      expectShapeA(
        await call(ctx, neither, 'GET', `/v1/cob/runs/${wholeRunId}`),
        403,
        'error.msg.not.authorized',
      );
      expectShapeA(
        await call(ctx, neither, 'GET', `/v1/cob/runs/${wholeRunId}/errors`),
        403,
        'error.msg.not.authorized',
      );
      expectShapeA(
        await call(ctx, other, 'GET', `/v1/cob/runs/${wholeRunId}`),
        404,
        'error.msg.resource.not.found',
      );
      expectShapeA(
        await call(ctx, other, 'GET', `/v1/cob/runs/${wholeRunId}/errors`),
        404,
        'error.msg.resource.not.found',
      );
      expectShapeA(
        await call(ctx, cred, 'GET', '/v1/cob/runs/cob_000000000000000000000000'),
        404,
        'error.msg.resource.not.found',
      );
    });

    it('a RUNNING run whose workflow cannot answer shows its stored counts (no 500)', async () => {
      const runId = 'cob_00000000000000000000abcd';
      await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
        tx.insert(cobRuns).values({
          tenantId: cred.tenant,
          runId,
          businessDate: '2025-01-20',
          loanIds: [late],
          workflowId: `close-of-business/${cred.tenant}/2025-01-20/${runId}`,
          loansTotal: 1,
        }),
      );
      const res = await call(ctx, reader, 'GET', `/v1/cob/runs/${runId}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        runId,
        status: 'RUNNING',
        loans: { total: 1, processed: 0, failed: 0 },
        completedAt: null,
      });
    });

    it('pages the errors by loan id with limit, offset and hasMore', async () => {
      const empty = await call(ctx, cred, 'GET', `/v1/cob/runs/${wholeRunId}/errors`);
      expect(empty.body).toEqual({ items: [], limit: 50, offset: 0, hasMore: false });
      const failedIds = [...early, late].sort((a, b) => a - b);
      await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
        tx.insert(cobRunErrors).values(
          failedIds.map((loanId) => ({
            tenantId: cred.tenant,
            runId: wholeRunId,
            loanId,
            error: `failed ${loanId}`,
          })),
        ),
      );
      const first = await call(ctx, cred, 'GET', `/v1/cob/runs/${wholeRunId}/errors?limit=2`);
      expect(first.body).toEqual({
        items: failedIds.slice(0, 2).map((loanId) => ({ loanId, error: `failed ${loanId}` })),
        limit: 2,
        offset: 0,
        hasMore: true,
      });
      const second = await call(ctx, cred, 'GET', `/v1/cob/runs/${wholeRunId}/errors?limit=2&offset=2`);
      expect(second.body).toEqual({
        items: [{ loanId: failedIds[2], error: `failed ${failedIds[2]}` }],
        limit: 2,
        offset: 2,
        hasMore: false,
      });
      expectShapeA(
        await call(ctx, cred, 'GET', `/v1/cob/runs/${wholeRunId}/errors?limit=0`),
        400,
        'validation.msg.validation.errors.exist',
        ['limit'],
      );
      expectShapeA(
        await call(ctx, cred, 'GET', `/v1/cob/runs/${wholeRunId}/errors?page=2`),
        400,
        'validation.msg.validation.errors.exist',
      );
    });
  });
});
