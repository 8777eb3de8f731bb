/**
 * What `npm run bench:cob` and the `cob` fault scenario stand on (bench/cob-seed.ts), against the app served on a
 * free local port and the test PostgreSQL: the seeded portfolio (templates through the API, copies in SQL) reads
 * through the API exactly as its templates do, takes new writes without an id collision, and balances; the
 * consistency check reports a broken copy; the SQL-pass baseline reads every active loan; the paced read load keeps
 * its rate and counts failures.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  checkPortfolio,
  latencySummary,
  pacedReads,
  type SeededPortfolio,
  seedPortfolio,
  sqlPassBaseline,
  templateKinds,
} from '../../bench/cob-seed';
import { tenantToday } from '../../scripts/delinquency-demo-flow';
import { type ApiSession, requestToken } from '../../scripts/http-client';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';

let ctx: TestContext;
let server: ReturnType<typeof serve>;
let baseUrl: string;
let sql: postgres.Sql;
let cred: Credential;
let seeded: SeededPortfolio;
const count = 12;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sql = postgres(inject('databaseUrl'), { max: 2, onnotice: () => {} });
  cred = await credentialFor(ctx, uniqueTenant('cobseed'), {
    scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
  });
  const session: ApiSession = {
    baseUrl,
    accessToken: await requestToken(
      baseUrl,
      cred,
      'lending:read lending:write servicing:read servicing:write',
      () => {},
    ),
    tenant: cred.tenant,
    actor: 'test.bench',
  };
  seeded = await seedPortfolio({
    session,
    sql,
    tenant: cred.tenant,
    count,
    today: tenantToday(),
    chunk: 4,
    say: () => {},
  });
}, 120_000);
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await new Promise((resolve) => server?.close(resolve));
  await ctx?.close();
});

/** Thrown to roll a transaction back after its checks. */
class RollBack extends Error {}

/** The loan summary as of today in the tenant's time zone (the templates' days), without what names the loan. */
async function summaryShape(loanId: number) {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=${tenantToday()}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { loanId: _id, loanRef: _ref, ...rest } = res.body;
  return rest;
}

describe('seedPortfolio', () => {
  it('makes the templates through the API and the rest as copies, every one active with its own account number', async () => {
    expect(seeded.templateLoanIds).toHaveLength(templateKinds.length);
    expect(seeded.loanIds).toHaveLength(count);
    const rows = await sql<{ account_no: string; external_id: string }[]>`
      select account_no, external_id from loans where tenant_id = ${cred.tenant} order by id`;
    expect(new Set(rows.map((r) => r.account_no)).size).toBe(count);
    expect(new Set(rows.map((r) => r.external_id)).size).toBe(count);
    const check = await checkPortfolio(sql, cred.tenant);
    expect(check.problems).toEqual([]);
    expect(check.loans).toBe(count);
  });

  it('copies read through the API as their templates do (schedule, balances, overdue, delinquency)', async () => {
    const pairs = await sql<{ copy_id: string; template_id: string }[]>`
      select c.id::text as copy_id, t.id::text as template_id
      from loans c join loans t on t.tenant_id = c.tenant_id and c.external_id like t.external_id || '-c%'
      where c.tenant_id = ${cred.tenant}`;
    expect(pairs).toHaveLength(count - templateKinds.length);
    for (const pair of pairs)
      expect(await summaryShape(Number(pair.copy_id))).toEqual(await summaryShape(Number(pair.template_id)));
    // The kinds differ: the never-paid template is further behind than the current one.
    const [current, , , , neverPaid] = await Promise.all(seeded.templateLoanIds.map(summaryShape));
    expect(neverPaid!.overdue.daysPastDue).toBeGreaterThan(120);
    expect(current!.overdue.total).toBe('0.00');
  });

  it('leaves the id sequences past the copies: a new payment on a copy posts and the books still balance', async () => {
    const copyId = seeded.loanIds.at(-1)!;
    const res = await call(ctx, cred, 'POST', `/v1/loans/${copyId}/payments/record-external`, {
      amount: '25.00',
      currency: 'USD',
      effectiveDate: tenantToday(),
      externalRecordRef: 'seed-test-payment',
      source: 'MANUAL',
      rationale: 'after seeding',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [owner] = await sql<{ loan_id: string }[]>`
      select loan_id::text from payments where id = ${res.body.paymentId}`;
    expect(Number(owner!.loan_id)).toBe(copyId);
    expect((await checkPortfolio(sql, cred.tenant)).problems).toEqual([]);
  });

  it('the consistency check reports an unbalanced loan and a journal line naming another loan’s payment', async () => {
    const [loan] = seeded.loanIds.slice(-1);
    await sql
      .begin(async (tx) => {
        await tx`create temp table broken on commit drop as select * from journal_entries
               where tenant_id = ${cred.tenant} and loan_id = ${loan!} limit 1`;
        const [line] = await tx<{ transaction_ref: string }[]>`select transaction_ref from broken`;
        // Checked inside a transaction that is rolled back: the shared database keeps its books.
        await tx`update journal_entries set debit = debit + 1 where tenant_id = ${cred.tenant} and loan_id = ${loan!}
               and transaction_ref = ${line!.transaction_ref} and debit > 0`;
        await tx`update journal_entries set loan_id = ${seeded.loanIds[0]!} where tenant_id = ${cred.tenant}
               and loan_id = ${loan!} and transaction_ref = ${line!.transaction_ref} and credit > 0`;
        const check = await checkPortfolio(tx as unknown as postgres.Sql, cred.tenant);
        expect(check.problems.some((p) => /unbalanced/.test(p))).toBe(true);
        expect(check.problems.some((p) => /naming no funding or payment of their loan/.test(p))).toBe(true);
        throw new RollBack();
      })
      .catch((err: unknown) => {
        if (!(err instanceof RollBack)) throw err;
      });
    expect((await checkPortfolio(sql, cred.tenant)).problems).toEqual([]);
  });
});

describe('sqlPassBaseline', () => {
  it('reads every active loan of the tenant and its installments once', async () => {
    const pass = await sqlPassBaseline(sql, cred.tenant);
    expect(pass.loans).toBe(count);
    expect(pass.installments).toBe(count * 12);
    expect(pass.loansPerSecond).toBeGreaterThan(0);
  });
});

describe('pacedReads', () => {
  it('keeps its rate whatever the answers take, and counts non-200 answers as failures', async () => {
    let answered = 0;
    const target = http.createServer((request, response) => {
      answered += 1;
      // Every request is slow (300 ms), so a closed loop of one would make 3 a second; the open loop keeps 40.
      setTimeout(() => response.writeHead(request.url === '/bad' ? 500 : 200).end('x'), 300);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    try {
      const load = pacedReads((i) => `${url}/${i % 10 === 9 ? 'bad' : 'ok'}`, {}, 40);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const samples = await load.stop();
      const total = samples.latenciesMs.length + samples.failures;
      expect(total).toBe(answered);
      expect(total).toBeGreaterThanOrEqual(70);
      expect(total).toBeLessThanOrEqual(90);
      expect(samples.failures).toBe(Math.floor(total / 10));
      expect(samples.failureNotes[0]).toBe('status 500');
      const summary = latencySummary(samples);
      expect(summary.count).toBe(samples.latenciesMs.length);
      expect(summary.p50).toBeGreaterThanOrEqual(300);
      expect(summary.p99).toBeGreaterThanOrEqual(summary.p50);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });
});
