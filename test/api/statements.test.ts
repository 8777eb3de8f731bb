/**
 * Loan statements on the real database (docs/processes.md P6 "Statements"; activities/lending/
 * generate-statement.ts, api/routes/lending/statements.ts): generation idempotent per (loan, due date) with one
 * `statement.generated` event, figures equal to `GET /v1/loans/{loanId}/summary` at the period's edges to the cent,
 * the list newest first with limit/offset, 404 for another tenant's or an unknown loan or statement, 403 without
 * `READ_STATEMENT`, and the PDF read back as text (unpdf). Loans come from test/activities/ledger-fixtures.ts
 * (300.00 USD; installments of 100.00 principal, 3.00 interest and a 2.00 fee due 2025-02-01, 2025-03-01,
 * 2025-04-01) on a product with statements 21 days ahead.
 */
import { and, count, eq } from 'drizzle-orm';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxEvents, statements } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { minorOf } from '../../domain/lending/loan-allocation';
import { statementCycleScheduleId } from '../../domain/lending/statements';
import { formatMinor } from '../../domain/money';
import { ensureStatementCycleSchedule } from '../../workflows/lending/statement-cycle/client';
import { approvedLoan, type LoanFixture } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { authHeaders, expectShapeA } from './helpers';

const lending = { scopes: ['lending:read', 'lending:write'] };
const statementConfig = {
  productClass: 'COMMERCIAL',
  aprEnabled: false,
  statementEnabled: true,
  statementLeadDays: 21,
};

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let refCounter = 0;
const ref = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(refCounter++).toString(36)}`;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('stmt'), lending);
  other = await credentialFor(ctx, uniqueTenant('stmt-other'), lending);
});
afterAll(async () => ctx?.close());

async function fundedLoan(): Promise<LoanFixture> {
  const loan = await approvedLoan(ctx, cred.tenant, { lmsConfig: statementConfig });
  const funded = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/fundings/record-external`, {
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: ref('fund'),
    reason: 'Disbursed by the originating bank',
  });
  expect(funded.status, JSON.stringify(funded.body)).toBe(201);
  return loan;
}

async function pay(loanId: number, amount: string, effectiveDate: string) {
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
    amount,
    currency: 'USD',
    effectiveDate,
    externalRecordRef: ref('pay'),
    source: 'IMPORT',
    rationale: 'Boarded history',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** `payoff.total − balances.overpayment` of the summary at `asOfDate` (the statement's balance, module note). */
async function summaryBalance(loanId: number, asOfDate: string) {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=${asOfDate}`);
  expect(res.status).toBe(200);
  const minor = minorOf(res.body.payoff.total, 'USD') - minorOf(res.body.balances.overpayment, 'USD');
  return { balance: formatMinor(minor, 2), pastDue: res.body.overdue.total as string };
}

describe('generateStatement and listStatementCandidates', () => {
  it('generates once per (loan, due date): a replay returns the stored statement, one row and one event', async () => {
    const loan = await fundedLoan();
    const input = { tenantId: cred.tenant, loanId: loan.loanId, dueDate: '2025-02-01' };
    const first = await ctx.activities.generateStatement(input);
    const again = await ctx.activities.generateStatement(input);
    expect(first.created).toBe(true);
    expect(again.created).toBe(false);
    expect(again.statement).toEqual(first.statement);
    expect(first.statement).toMatchObject({
      loanId: loan.loanId,
      loanRef: loan.accountNo,
      statementDate: '2025-01-11',
      periodStart: '2025-01-01',
      periodEnd: '2025-01-11',
      dueDate: '2025-02-01',
    });
    const [rows, events] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      Promise.all([
        tx
          .select({ n: count() })
          .from(statements)
          .where(and(eq(statements.tenantId, cred.tenant), eq(statements.loanId, loan.loanId))),
        tx
          .select()
          .from(outboxEvents)
          .where(
            and(
              eq(outboxEvents.tenantId, cred.tenant),
              eq(outboxEvents.eventType, 'statement.generated'),
              eq(outboxEvents.subjectId, String(first.statement.statementId)),
            ),
          ),
      ]),
    );
    expect(rows[0]?.n).toBe(1);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({
      statementId: first.statement.statementId,
      loanId: loan.loanId,
      dueDate: '2025-02-01',
      amountDue: first.statement.figures.amountDue,
      annualPercentageRate: '21.47',
    });
  });

  it('refuses a statement before its date, an unknown due date, a closed loan or one of another tenant, writing nothing', async () => {
    const loan = await fundedLoan();
    const at = ctx.now.value;
    ctx.now.value = new Date('2025-02-07T20:00:00Z'); // 12:00 PST: the statement of 2025-03-01 is due tomorrow
    try {
      await expect(
        ctx.activities.generateStatement({
          tenantId: cred.tenant,
          loanId: loan.loanId,
          dueDate: '2025-03-01',
        }),
      ).rejects.toMatchObject({ code: 'validation.msg.validation.errors.exist' });
      ctx.now.value = new Date('2025-02-08T20:00:00Z');
      const issued = await ctx.activities.generateStatement({
        tenantId: cred.tenant,
        loanId: loan.loanId,
        dueDate: '2025-03-01',
      });
      expect(issued.statement.statementDate).toBe('2025-02-08');
    } finally {
      ctx.now.value = at;
    }
    await expect(
      ctx.activities.generateStatement({ tenantId: cred.tenant, loanId: loan.loanId, dueDate: '2025-03-02' }),
    ).rejects.toMatchObject({ code: 'error.msg.resource.not.found' });
    await expect(
      ctx.activities.generateStatement({
        tenantId: other.tenant,
        loanId: loan.loanId,
        dueDate: '2025-02-01',
      }),
    ).rejects.toMatchObject({ code: 'error.msg.resource.not.found' });
    const plain = await approvedLoan(ctx, cred.tenant);
    await expect(
      ctx.activities.generateStatement({
        tenantId: cred.tenant,
        loanId: plain.loanId,
        dueDate: '2025-02-01',
      }),
    ).rejects.toMatchObject({ code: 'error.msg.loan.invalid.state.transition' });
    const list = await call(ctx, cred, 'GET', `/v1/loans/${plain.loanId}/statements`);
    expect(list.body).toEqual({ items: [] });
  });

  it('agrees with the loan summary to the cent, and each period starts where the previous one ended', async () => {
    const loan = await fundedLoan();
    await pay(loan.loanId, '105.00', '2025-02-01');
    await pay(loan.loanId, '50.00', '2025-02-05');
    const first = (
      await ctx.activities.generateStatement({
        tenantId: cred.tenant,
        loanId: loan.loanId,
        dueDate: '2025-02-01',
      })
    ).statement;
    const second = (
      await ctx.activities.generateStatement({
        tenantId: cred.tenant,
        loanId: loan.loanId,
        dueDate: '2025-03-01',
      })
    ).statement;
    expect(second).toMatchObject({
      statementDate: '2025-02-08',
      periodStart: '2025-01-12',
      periodEnd: '2025-02-08',
    });

    const atFirst = await summaryBalance(loan.loanId, '2025-01-11');
    const atSecond = await summaryBalance(loan.loanId, '2025-02-08');
    expect(first.figures.newBalance).toBe(atFirst.balance);
    expect(first.figures.pastDue).toBe(atFirst.pastDue);
    expect(first.figures.previousBalance).toBe('0.00');
    expect(first.figures.disbursements).toBe('300.00');
    // Generated after installment 1 was paid, the first statement still shows it as due on its statement date.
    expect(first.figures).toMatchObject({ currentDue: '105.00', amountDue: '105.00', payments: '0.00' });
    expect(second.figures.previousBalance).toBe(first.figures.newBalance);
    expect(second.figures.newBalance).toBe(atSecond.balance);
    expect(second.figures.pastDue).toBe(atSecond.pastDue);
    expect(second.figures.payments).toBe('155.00');
    expect(second.figures.transactions.map((t) => [t.date, t.amount])).toEqual([
      ['2025-02-01', '-105.00'],
      ['2025-02-05', '-50.00'],
    ]);
    // previous + disbursements + interest + fees − payments − other credits = new, to the cent.
    const f = second.figures;
    const m = (amount: string) => minorOf(amount, 'USD');
    expect(
      m(f.previousBalance) +
        m(f.disbursements) +
        m(f.interestCharged) +
        m(f.feesCharged) -
        m(f.payments) -
        m(f.otherCredits),
    ).toBe(m(f.newBalance));
    // The 50.00 paid ahead covers part of installment 2 (105.00): 55.00 is still due, nothing is past due.
    expect(f.currentDue).toBe('55.00');
    expect(f.amountDue).toBe('55.00');
    expect(f.annualPercentageRate).toBe('21.47');
  });

  it('lists ACTIVE loans whose installment falls due lead days ahead; a paid-off loan gets none', async () => {
    const open = await fundedLoan();
    const paidOff = await fundedLoan();
    const before = await ctx.activities.listStatementCandidates({
      tenantId: cred.tenant,
      asOf: '2025-02-08',
    });
    expect(before).toEqual(
      expect.arrayContaining([
        { loanId: open.loanId, dueDate: '2025-03-01' },
        { loanId: paidOff.loanId, dueDate: '2025-03-01' },
      ]),
    );
    expect(
      await ctx.activities.listStatementCandidates({ tenantId: cred.tenant, asOf: '2025-02-07' }),
    ).toEqual([]);
    const quote = await call(ctx, cred, 'GET', `/v1/loans/${paidOff.loanId}/summary?asOfDate=2025-01-20`);
    await pay(paidOff.loanId, quote.body.payoff.total, '2025-01-20');
    const after = await ctx.activities.listStatementCandidates({ tenantId: cred.tenant, asOf: '2025-02-08' });
    expect(after.map((c) => c.loanId)).toContain(open.loanId);
    expect(after.map((c) => c.loanId)).not.toContain(paidOff.loanId);
    // Installment 2 paid ahead (210.00 on 2025-02-01 covers installments 1 and 2): still a statement, nothing due.
    await pay(open.loanId, '210.00', '2025-02-01');
    const ahead = await ctx.activities.listStatementCandidates({ tenantId: cred.tenant, asOf: '2025-02-08' });
    expect(ahead).toContainEqual({ loanId: open.loanId, dueDate: '2025-03-01' });
    const paidAhead = await ctx.activities.generateStatement({
      tenantId: cred.tenant,
      loanId: open.loanId,
      dueDate: '2025-03-01',
    });
    expect(paidAhead.statement.figures).toMatchObject({
      currentDue: '0.00',
      pastDue: '0.00',
      amountDue: '0.00',
    });
    const page = await ctx.activities.listStatementCandidates({
      tenantId: cred.tenant,
      asOf: '2025-02-08',
      afterLoanId: open.loanId,
    });
    expect(page.map((c) => c.loanId)).not.toContain(open.loanId);
  });
});

describe('GET /v1/loans/{loanId}/statements', () => {
  let loan: LoanFixture;
  let ids: number[] = [];

  beforeAll(async () => {
    loan = await fundedLoan();
    await pay(loan.loanId, '105.00', '2025-02-01');
    ids = [];
    for (const dueDate of ['2025-02-01', '2025-03-01', '2025-04-01']) {
      const { statement } = await ctx.activities.generateStatement({
        tenantId: cred.tenant,
        loanId: loan.loanId,
        dueDate,
      });
      ids.push(statement.statementId);
    }
  });

  it('lists newest first with limit and offset → {items}', async () => {
    const all = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/statements`);
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(['items']);
    expect(all.body.items.map((s: { dueDate: string }) => s.dueDate)).toEqual([
      '2025-04-01',
      '2025-03-01',
      '2025-02-01',
    ]);
    const page = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/statements?limit=1&offset=1`);
    expect(page.body.items.map((s: { statementId: number }) => s.statementId)).toEqual([ids[1]]);
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/statements?limit=0`),
      400,
      'validation.msg.validation.errors.exist',
    );
  });

  it('reads one statement; unknown, another loan’s or another tenant’s → 404 Shape A', async () => {
    const one = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/statements/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ statementId: ids[0], loanId: loan.loanId, dueDate: '2025-02-01' });
    const otherLoan = await fundedLoan();
    for (const path of [
      `/v1/loans/${loan.loanId}/statements/${(ids[2] ?? 0) + 1000}`,
      `/v1/loans/${otherLoan.loanId}/statements/${ids[0]}`,
      `/v1/loans/${otherLoan.loanId}/statements/${ids[0]}/pdf`,
    ]) {
      expectShapeA(await call(ctx, cred, 'GET', path), 404, 'error.msg.resource.not.found');
    }
    for (const path of [
      `/v1/loans/${loan.loanId}/statements`,
      `/v1/loans/${loan.loanId}/statements/${ids[0]}`,
      `/v1/loans/${loan.loanId}/statements/${ids[0]}/pdf`,
    ]) {
      expectShapeA(await call(ctx, other, 'GET', path), 404, 'error.msg.resource.not.found');
    }
  });

  it('refuses a client without READ_STATEMENT → 403', async () => {
    const narrow = await credentialFor(ctx, cred.tenant, {
      scopes: ['lending:read'],
      permissions: ['READ_LOAN'],
    });
    for (const path of [
      `/v1/loans/${loan.loanId}/statements`,
      `/v1/loans/${loan.loanId}/statements/${ids[0]}`,
      `/v1/loans/${loan.loanId}/statements/${ids[0]}/pdf`,
    ]) {
      expectShapeA(await call(ctx, narrow, 'GET', path), 403, 'error.msg.not.authorized');
    }
  });

  it('renders the PDF a borrower can read: amounts, due date, APR, warning', async () => {
    const json = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/statements/${ids[1]}`);
    const f = json.body.figures;
    const res = await ctx.app.request(`/v1/loans/${loan.loanId}/statements/${ids[1]}/pdf`, {
      headers: authHeaders(cred),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const pdf = await getDocumentProxy(bytes);
    const { totalPages, text } = await extractText(pdf, { mergePages: true });
    expect(totalPages).toBeLessThanOrEqual(2);
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain(`Amount due ${f.amountDue} USD`);
    expect(text).toContain(`Payment due date ${f.dueDate}`);
    expect(text).toContain(`New balance ${f.newBalance} USD`);
    expect(text).toContain(`Previous balance ${f.previousBalance} USD`);
    expect(text).toContain('(APR) 21.47%');
    expect(text).toContain('Late payment warning');
    expect(text).not.toContain(loan.accountNo);
    expect(text).toContain(loan.accountNo.slice(-4));
  });
});

describe('the statement cycle schedule', () => {
  it('is created once, then updated in place: daily at 12:00 UTC, overlap SKIP, dailyStatementCycleWorkflow', async () => {
    const scheduleId = `${statementCycleScheduleId}-test-${uniqueTenant('s')}`;
    try {
      expect(await ensureStatementCycleSchedule(ctx.client, scheduleId)).toBe('created');
      const results = await Promise.all([
        ensureStatementCycleSchedule(ctx.client, scheduleId),
        ensureStatementCycleSchedule(ctx.client, scheduleId),
      ]);
      expect(results).toEqual(['updated', 'updated']);
      const described = await ctx.client.schedule.getHandle(scheduleId).describe();
      expect(described.policies.overlap).toBe('SKIP');
      expect(described.spec.timezone).toBe('UTC');
      expect(described.spec.calendars).toMatchObject([{ hour: [{ start: 12 }], minute: [{ start: 0 }] }]);
      expect(described.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'dailyStatementCycleWorkflow',
        taskQueue: 'lending',
        args: [{}],
      });
    } finally {
      await ctx.client.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => {});
    }
  });
});
