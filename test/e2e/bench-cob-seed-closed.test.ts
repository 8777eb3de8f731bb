/**
 * bench/cob-seed.ts seeding a portfolio closed every day before (`closedThrough`, what `npm run bench:cob` measures
 * a daily close on), against the app served on a free local port with a worker on the `lending` queue (the
 * templates' close is a close-of-business run; docs/processes.md P7): the templates at every due-date phase are
 * closed through the day before yesterday, the copies carry what that close wrote (the loan's close fields,
 * penalties, charge-off, delinquency history without the template's collections case, journal lines with their
 * revisions and reversals), the catch-up copies are never closed, and the books balance. Then yesterday is closed
 * for every loan by one run: each closed copy's day writes what its template's day writes (penalties, history
 * rows, charge-offs, events), so the copies are as consistent as the templates, and the books still balance.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  checkPortfolio,
  type SeededPortfolio,
  seedPortfolio,
  startCobRun,
  templateKinds,
  templateShiftsDays,
  waitForCobRun,
  yesterdayIn,
} from '../../bench/cob-seed';
import { addDays } from '../../domain/calendar';
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
let sql: postgres.Sql;
let cred: Credential;
let session: ApiSession;
let seeded: SeededPortfolio;
const templates = templateKinds.length * templateShiftsDays.length;
const count = templates * 2 + 6;
const catchUpCount = 6;
const businessDate = yesterdayIn();
const closedThrough = addDays(businessDate, -1);

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sql = postgres(inject('databaseUrl'), { max: 2, onnotice: () => {} });
  cred = await credentialFor(ctx, uniqueTenant('cobseedc'), {
    scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
  });
  session = {
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
    chunk: 9,
    closedThrough,
    catchUpCount,
    say: () => {},
  });
}, 240_000);
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await new Promise((resolve) => server?.close(resolve));
  await ctx?.close();
});

/** Each copy with its template (the copy's external id is the template's, suffixed). */
async function copyPairs(): Promise<{ copy: number; template: number }[]> {
  const rows = await sql<{ copy_id: string; template_id: string }[]>`
    select c.id::text as copy_id, t.id::text as template_id
    from loans c join loans t on t.tenant_id = c.tenant_id and c.external_id like t.external_id || '-c%'
    where c.tenant_id = ${cred.tenant} order by c.id`;
  return rows.map((r) => ({ copy: Number(r.copy_id), template: Number(r.template_id) }));
}

/** What a loan's close wrote, without what names the loan or its rows: comparable between a copy and its template. */
async function closeState(loanId: number) {
  const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}`);
  expect(loan.status, JSON.stringify(loan.body)).toBe(200);
  const summary = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=${tenantToday()}`);
  expect(summary.status, JSON.stringify(summary.body)).toBe(200);
  const history = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/delinquency-history`);
  const charges = await sql<{ installment_number: number; due_date: string; amount: string }[]>`
    select installment_number, due_date::text, amount::text from loan_charges
    where tenant_id = ${cred.tenant} and loan_id = ${loanId} order by installment_number`;
  const chargeOffs = await sql<{ transaction_date: string; amount: string; automatic: boolean }[]>`
    select transaction_date::text, amount::text, automatic from loan_charge_offs
    where tenant_id = ${cred.tenant} and loan_id = ${loanId}`;
  const journal = await sql<
    { ref: string; account_code: string; debit: string; credit: string; reverses: boolean }[]
  >`
    select regexp_replace(transaction_ref, '^([a-z-]+)/[0-9]+', '\\1') as ref, account_code, debit::text,
           credit::text, reverses_entry_id is not null as reverses
    from journal_entries where tenant_id = ${cred.tenant} and loan_id = ${loanId}
    order by entry_date, ref, account_code, debit, credit`;
  const { loanId: _id, loanRef: _ref, ...summaryRest } = summary.body;
  return {
    lastClosedBusinessDate: loan.body.lastClosedBusinessDate,
    delinquencyRange: loan.body.delinquencyRange,
    chargedOff: loan.body.chargedOff,
    chargedOffOnDate: loan.body.chargedOffOnDate,
    summary: summaryRest,
    history: (history.body.items as { collectionsCaseId: number | null }[]).map((h) => ({
      ...h,
      collectionsCaseId: null,
    })),
    charges,
    chargeOffs,
    journal,
  };
}

describe('seedPortfolio closed through the day before yesterday', () => {
  it('closes the templates by a run, copies what the close wrote, keeps the catch-up copies never closed', async () => {
    expect(seeded.templateLoanIds).toHaveLength(templates);
    expect(seeded.loanIds).toHaveLength(count);
    expect(seeded.templatesClose?.run).toMatchObject({
      status: 'COMPLETED',
      loans: { total: templates, processed: templates, failed: 0 },
    });
    expect(seeded.catchUpLoanIds).toHaveLength(catchUpCount);
    expect((await checkPortfolio(sql, cred.tenant)).problems).toEqual([]);
    const [written] = await sql<{ penalties: number; charge_offs: number; history: number }[]>`
      select (select count(*)::int from loan_charges where tenant_id = ${cred.tenant}) as penalties,
             (select count(*)::int from loan_charge_offs where tenant_id = ${cred.tenant}) as charge_offs,
             (select count(*)::int from loan_delinquency_history where tenant_id = ${cred.tenant}) as history`;
    // The close wrote each kind of row the copies must carry.
    expect(written!.penalties).toBeGreaterThan(0);
    expect(written!.charge_offs).toBeGreaterThan(0);
    expect(written!.history).toBeGreaterThan(0);

    const catchUp = new Set(seeded.catchUpLoanIds);
    const pairs = await copyPairs();
    expect(pairs).toHaveLength(count - templates);
    for (const pair of pairs) {
      const copy = await closeState(pair.copy);
      const created = await sql<{ id: string; created_at: Date }[]>`
        select id::text, created_at from loans where tenant_id = ${cred.tenant} and id in (${pair.copy}, ${pair.template})`;
      // Every loan stands for one made on its disbursement day, catch-up copies included (a loan created today is
      // never charged off for an earlier day).
      expect(new Set(created.map((r) => r.created_at.toISOString())).size).toBe(1);
      expect(created[0]!.created_at.getTime()).toBeLessThan(Date.now() - 86_400_000 * 100);
      if (catchUp.has(pair.copy)) {
        expect(copy.lastClosedBusinessDate).toBeNull();
        expect(copy.history).toEqual([]);
        continue;
      }
      expect(copy.lastClosedBusinessDate).toBe(closedThrough);
      expect(copy).toEqual(await closeState(pair.template));
    }
    const [cases] = await sql<{ n: number }[]>`
      select count(*)::int as n from loan_delinquency_history
      where tenant_id = ${cred.tenant} and collections_case_id is not null
        and loan_id <> all(${seeded.templateLoanIds})`;
    expect(cases!.n).toBe(0);
  });

  it('a run of yesterday over every loan does on each closed copy what it does on its template; books balance', async () => {
    const started = await startCobRun(session, { businessDate, loanIds: seeded.loanIds }, 'seed-closed-day');
    const run = await waitForCobRun(session, started.runId, { timeoutMs: 120_000, everyMs: 250 });
    expect(run).toMatchObject({ status: 'COMPLETED', loans: { total: count, processed: count, failed: 0 } });
    const catchUp = new Set(seeded.catchUpLoanIds);
    for (const pair of await copyPairs())
      if (!catchUp.has(pair.copy))
        expect(await closeState(pair.copy)).toEqual(await closeState(pair.template));
    const events = await sql<{ loan_id: string; event_type: string; n: number }[]>`
      select data->>'loanId' as loan_id, event_type, count(*)::int as n from outbox_events
      where tenant_id = ${cred.tenant} and (data->>'businessDate' = ${businessDate} or data->>'noticeDate' = ${businessDate})
      group by 1, 2`;
    const eventsOf = (loanId: number) =>
      events
        .filter((e) => e.loan_id === String(loanId))
        .map((e) => `${e.event_type} ${e.n}`)
        .sort();
    for (const pair of await copyPairs())
      if (!catchUp.has(pair.copy)) expect(eventsOf(pair.copy)).toEqual(eventsOf(pair.template));
    expect((await checkPortfolio(sql, cred.tenant)).problems).toEqual([]);
  });
});
