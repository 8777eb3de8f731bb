/**
 * Charge-off through the public API (Apache Fineract `LoanTransactionsApiResource` `command=charge-off` /
 * `undo-charge-off`; docs/lending.md "Charge-off"): Fineract's LoanChargeOff.feature tables our engine expresses
 * (test/vectors/fineract-charge-off.json) replayed to the cent — the charge-off transaction's portions, the schedule
 * and transactions after it, its journal entry — then a payment after it posted as a recovery, the undo, the events,
 * and every refusal. The journal's trial balance is zero after every step.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { parseDecimalToMinor } from '../../domain/money';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';
import {
  activeLp1Loan,
  approvedLp1Loan,
  createLp1Charge,
  loanTrialBalance,
  recordLp1Payment,
  uniqueRef,
} from './lp1-loan';

interface Scenario {
  scenario: string;
  disbursedOn: string;
  charges: { name: string; penalty: boolean; dueDate: string; amount: string }[];
  payments: { date: string; amount: string }[];
  chargeOffOn: string;
  expected: {
    status: string;
    chargeOffJournal?: { account: string; debit: string | null; credit: string | null }[];
    chargeOffTransaction?: Record<string, string>;
    installments?: Record<string, unknown>[];
    transactions?: Record<string, string>[];
  };
}
const vectors = JSON.parse(
  readFileSync(new URL('../vectors/fineract-charge-off.json', import.meta.url), 'utf8'),
) as { scenarios: Scenario[] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let readOnly: Credential;
let DISBURSED = '2023-01-01';

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('chgoff'), { scopes: ['lending:read', 'lending:write'] });
  other = await credentialFor(ctx, uniqueTenant('chgoffx'), { scopes: ['lending:read', 'lending:write'] });
  readOnly = await credentialFor(ctx, cred.tenant, {
    scopes: ['lending:read', 'lending:write'],
    permissions: ['READ_LOAN', 'UNDOCHARGEOFF_LOAN'],
  });
});
afterAll(async () => ctx?.close());

const ref = uniqueRef;

const charge = (overrides: Record<string, unknown> = {}) => createLp1Charge(ctx, cred, overrides);

const approvedLoan = () => approvedLp1Loan(ctx, cred, DISBURSED);

const activeLoan = () => activeLp1Loan(ctx, cred, DISBURSED);

const pay = (loanId: number, effectiveDate: string, amount: string) =>
  recordLp1Payment(ctx, cred, loanId, effectiveDate, amount);

const trialBalanceOf = (loanId: number) => loanTrialBalance(ctx, cred, loanId);

async function chargeOff(loanId: number, body: Record<string, unknown>, c: Credential = cred) {
  return call(ctx, c, 'POST', `/v1/loans/${loanId}/transactions?command=charge-off`, body);
}
async function undo(loanId: number, c: Credential = cred) {
  return call(ctx, c, 'POST', `/v1/loans/${loanId}/transactions?command=undo-charge-off`);
}

type JournalRow = {
  transaction_ref: string;
  account_code: string;
  debit: string;
  credit: string;
  reverses_entry_id: string | null;
};
async function journalOf(loanId: number): Promise<JournalRow[]> {
  const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<JournalRow>(
      sql`select transaction_ref, account_code, debit::text, credit::text, reverses_entry_id::text
            from journal_entries where loan_id = ${loanId} order by id`,
    ),
  );
  return [...rows];
}

async function chargeOffEvents(
  loanId: number,
): Promise<{ event_type: string; data: Record<string, unknown> }[]> {
  const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ event_type: string; data: Record<string, unknown> }>(
      sql`select event_type, data from outbox_events where subject_id = ${String(loanId)} and event_type like 'loan.chargeoff.%' order by id`,
    ),
  );
  return [...rows];
}

const money = (value: string | null) =>
  value === null ? null : parseDecimalToMinor(value, 6, { allowTrailingZeros: true });

/** Builds the scenario's loan up to (not including) the charge-off. */
async function scenarioLoan(s: Scenario): Promise<number> {
  DISBURSED = s.disbursedOn;
  const loanId = await activeLoan();
  for (const c of s.charges) {
    const chargeId = await charge({ name: `${c.name} ${ref('c')}`, amount: c.amount, penalty: c.penalty });
    const added = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, {
      chargeId,
      dueDate: c.dueDate,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  }
  for (const p of s.payments) await pay(loanId, p.date, p.amount);
  expect(await trialBalanceOf(loanId)).toBe(0n);
  return loanId;
}

const typeName: Record<number, string> = { 1: 'Disbursement', 2: 'Repayment', 27: 'Charge-off' };

describe('charge-off: Fineract LoanChargeOff.feature tables', () => {
  for (const s of vectors.scenarios) {
    it(s.scenario, async () => {
      const loanId = await scenarioLoan(s);
      const res = await chargeOff(loanId, { transactionDate: s.chargeOffOn, reason: 'Uncollectible' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ resourceId: expect.any(Number), loanId });
      expect(await trialBalanceOf(loanId)).toBe(0n);

      const loan = await call(
        ctx,
        cred,
        'GET',
        `/v1/loans/${loanId}?associations=repaymentSchedule,transactions`,
      );
      expect(loan.status).toBe(200);
      expect(loan.body.status.code).toBe('loanStatusType.active');
      expect(loan.body.chargedOff).toBe(true);
      expect(loan.body.chargedOffOnDate).toBe(s.chargeOffOn);
      const transactions = (loan.body.transactions as Record<string, unknown>[]).map((t) => ({
        date: t.date,
        type: typeName[(t.type as { id: number }).id],
        amount: t.amount,
        principal: t.principalPortion,
        interest: t.interestPortion,
        fees: t.feeChargesPortion,
        penalties: t.penaltyChargesPortion,
        loanBalance: t.outstandingLoanBalance,
      }));
      const chargeOffTx = (loan.body.transactions as Record<string, unknown>[]).at(-1)!;
      expect(chargeOffTx).toMatchObject({
        id: res.body.resourceId,
        type: { id: 27, code: 'loanTransactionType.chargeOff', value: 'Charge-off' },
        date: s.chargeOffOn,
      });
      expect(res.body.changes).toEqual({
        transactionDate: s.chargeOffOn,
        amount: chargeOffTx.amount,
        principalPortion: chargeOffTx.principalPortion,
        interestPortion: chargeOffTx.interestPortion,
        feeChargesPortion: chargeOffTx.feeChargesPortion,
        penaltyChargesPortion: chargeOffTx.penaltyChargesPortion,
        currency: 'EUR',
      });
      if (s.expected.transactions) expect(transactions).toEqual(s.expected.transactions);
      if (s.expected.chargeOffTransaction) {
        const { date: _d, type: _t, ...portions } = transactions.at(-1)!;
        expect(portions).toEqual(s.expected.chargeOffTransaction);
      }
      if (s.expected.installments) {
        const periods = (loan.body.repaymentSchedule.periods as Record<string, unknown>[]).slice(1);
        expect(
          periods.map((p) =>
            Object.fromEntries(
              Object.keys(s.expected.installments![0]!).map((k) => [k, k === 'period' ? p.period : p[k]]),
            ),
          ),
        ).toEqual(s.expected.installments);
      }
      // Fineract's CHARGE_OFF journal, principal only on the cash basis: Dr credit loss / Cr loans receivable.
      const principal = money(chargeOffTx.principalPortion as string)!;
      const lines = (await journalOf(loanId)).filter((l) => l.transaction_ref.startsWith('charge-off/'));
      expect(
        lines.map((l) => ({ account: l.account_code, debit: money(l.debit), credit: money(l.credit) })),
      ).toEqual(
        principal === 0n
          ? []
          : [
              { account: 'CREDIT_LOSS_EXPENSE', debit: principal, credit: 0n },
              { account: 'LOAN_PORTFOLIO', debit: 0n, credit: principal },
            ],
      );
      if (s.expected.chargeOffJournal) {
        const expected = s.expected.chargeOffJournal.map((l) => ({
          account: l.account,
          debit: money(l.debit) ?? 0n,
          credit: money(l.credit) ?? 0n,
        }));
        expect(
          lines.map((l) => ({ account: l.account_code, debit: money(l.debit), credit: money(l.credit) })),
        ).toEqual(expect.arrayContaining(expected));
        expect(lines).toHaveLength(expected.length);
      }
      const events = await chargeOffEvents(loanId);
      expect(events).toEqual([
        {
          event_type: 'loan.chargeoff.posted',
          data: {
            loanId,
            loanRef: loan.body.accountNo,
            transactionId: res.body.resourceId,
            transactionDate: s.chargeOffOn,
            reason: 'Uncollectible',
            automatic: false,
            amount: chargeOffTx.amount,
            principalPortion: chargeOffTx.principalPortion,
            interestPortion: chargeOffTx.interestPortion,
            feeChargesPortion: chargeOffTx.feeChargesPortion,
            penaltyChargesPortion: chargeOffTx.penaltyChargesPortion,
            currency: 'EUR',
          },
        },
      ]);
    });
  }
});

describe('after a charge-off', () => {
  it('posts a later payment as a recovery, a back-dated one as usual (the charge-off re-measured), and refuses the undo', async () => {
    const s = vectors.scenarios[1]!; // 250 repaid, 750 charged off on 2023-02-22
    const loanId = await scenarioLoan(s);
    const res = await chargeOff(loanId, { transactionDate: s.chargeOffOn, reason: 'Uncollectible' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    await pay(loanId, '2023-03-10', '100.00');
    expect(await trialBalanceOf(loanId)).toBe(0n);
    const recovery = (await journalOf(loanId))
      .filter((l) => /^payment\/\d+$/.test(l.transaction_ref))
      .slice(-2);
    expect(recovery.map((l) => [l.account_code, money(l.debit), money(l.credit)])).toEqual([
      ['EXTERNAL_CLEARING', 100_000_000n, 0n],
      ['RECOVERY_INCOME', 0n, 100_000_000n],
    ]);
    // the recovery still pays the schedule as usual
    const loan = await call(
      ctx,
      cred,
      'GET',
      `/v1/loans/${loanId}?associations=repaymentSchedule,transactions`,
    );
    expect(loan.body.repaymentSchedule.periods[1]).toMatchObject({
      principalPaid: '350.00',
      principalOutstanding: '650.00',
    });
    expect(loan.body.chargedOff).toBe(true);

    // a payment back-dated before the charge-off posts as usual and lowers what was charged off
    await pay(loanId, '2023-02-01', '50.00');
    expect(await trialBalanceOf(loanId)).toBe(0n);
    const journal = await journalOf(loanId);
    const lastPayment = journal.filter((l) => /^payment\/\d+$/.test(l.transaction_ref)).slice(-2);
    expect(lastPayment.map((l) => [l.account_code, money(l.debit), money(l.credit)])).toEqual([
      ['EXTERNAL_CLEARING', 50_000_000n, 0n],
      ['LOAN_PORTFOLIO', 0n, 50_000_000n],
    ]);
    const after = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=transactions`);
    expect(
      (after.body.transactions as Record<string, unknown>[]).find(
        (t) => (t.type as { id: number }).id === 27,
      ),
    ).toMatchObject({ amount: '700.00', principalPortion: '700.00' });
    const portfolio = journal
      .filter((l) => l.account_code === 'LOAN_PORTFOLIO')
      .reduce((sum, l) => sum + money(l.debit)! - money(l.credit)!, 0n);
    expect(portfolio).toBe(0n);

    const refused = await undo(loanId);
    expectShapeA(refused, 409, 'error.msg.loan.charge.off.is.not.the.last.user.transaction');
  });

  it('undo reverses the transaction and its journal entry and clears the flag; a second undo is refused', async () => {
    const loanId = await scenarioLoan(vectors.scenarios[1]!);
    const res = await chargeOff(loanId, {
      transactionDate: '2023-02-22',
      reason: 'Uncollectible',
      externalId: ref('co'),
    });
    expect(res.status).toBe(200);
    const undone = await undo(loanId, readOnly);
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect(undone.body).toEqual({
      resourceId: res.body.resourceId,
      loanId,
      changes: { reversed: true, reversedOnDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
    });
    expect(await trialBalanceOf(loanId)).toBe(0n);
    const lines = (await journalOf(loanId)).filter((l) => l.transaction_ref.startsWith('charge-off/'));
    expect(lines.map((l) => [l.transaction_ref, l.account_code, money(l.debit), money(l.credit)])).toEqual([
      [`charge-off/${res.body.resourceId}`, 'CREDIT_LOSS_EXPENSE', 750_000_000n, 0n],
      [`charge-off/${res.body.resourceId}`, 'LOAN_PORTFOLIO', 0n, 750_000_000n],
      [`charge-off/${res.body.resourceId}/reversal/1`, 'CREDIT_LOSS_EXPENSE', 0n, 750_000_000n],
      [`charge-off/${res.body.resourceId}/reversal/1`, 'LOAN_PORTFOLIO', 750_000_000n, 0n],
    ]);
    expect(lines[2]!.reverses_entry_id).not.toBeNull();
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=transactions`);
    expect(loan.body).toMatchObject({ chargedOff: false, chargedOffOnDate: null });
    expect((loan.body.transactions as { type: { id: number } }[]).some((t) => t.type.id === 27)).toBe(false);
    const events = await chargeOffEvents(loanId);
    expect(events.map((e) => e.event_type)).toEqual(['loan.chargeoff.posted', 'loan.chargeoff.reversed']);
    expect(events[1]!.data).toEqual({
      loanId,
      loanRef: loan.body.accountNo,
      transactionId: res.body.resourceId,
      transactionDate: '2023-02-22',
      amount: '750.00',
      currency: 'EUR',
      reversedOnDate: undone.body.changes.reversedOnDate,
    });
    // a payment after the undo posts as usual again
    await pay(loanId, '2023-03-01', '100.00');
    const payment = (await journalOf(loanId)).slice(-2);
    expect(payment.map((l) => l.account_code)).toEqual(['EXTERNAL_CLEARING', 'LOAN_PORTFOLIO']);
    expect(await trialBalanceOf(loanId)).toBe(0n);

    expectShapeA(await undo(loanId), 409, 'error.msg.loan.is.not.charged.off');
    // charged off again after the undo: a new transaction
    const again = await chargeOff(loanId, { transactionDate: '2023-03-01', reason: 'Uncollectible' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.changes.principalPortion).toBe('650.00');
    expect(await trialBalanceOf(loanId)).toBe(0n);
  });
});

describe('charge-off replays', () => {
  it('answers a retried Idempotency-Key with the first answer; the operation (automatic, as the close of business calls it) replays its request key', async () => {
    const loanId = await scenarioLoan(vectors.scenarios[0]!);
    const key = { 'idempotency-key': `chgoff-${ref('k')}` };
    const body = { transactionDate: '2023-02-22', reason: 'Uncollectible' };
    const first = await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loanId}/transactions?command=charge-off`,
      body,
      key,
    );
    const second = await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loanId}/transactions?command=charge-off`,
      body,
      key,
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);

    const other = await scenarioLoan(vectors.scenarios[0]!);
    const input = {
      tenantId: cred.tenant,
      requestKey: `cob/2023-02-22/charge-off/${other}`,
      loanId: other,
      transactionDate: '2023-02-22',
      reason: 'Charged off at 120 days past due',
      automatic: true,
    };
    const charged = await ctx.activities.chargeOffLoan(input);
    const replayed = await ctx.activities.chargeOffLoan(input);
    expect(replayed).toEqual(charged);
    expect(charged).toMatchObject({
      loanId: other,
      principalPortion: '1000.00',
      amount: '1000.00',
      currency: 'EUR',
    });
    const events = await chargeOffEvents(other);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ automatic: true, reason: 'Charged off at 120 days past due' });
    expect((await journalOf(other)).filter((l) => l.transaction_ref.startsWith('charge-off/'))).toHaveLength(
      2,
    );
    expect(await trialBalanceOf(other)).toBe(0n);
  });
});

describe('charge-off refusals', () => {
  it('refuses what Fineract refuses, in Shape A, changing nothing', async () => {
    const loanId = await scenarioLoan(vectors.scenarios[1]!); // repaid on 2023-01-05
    const journalBefore = await journalOf(loanId);

    const before = await chargeOff(loanId, { transactionDate: '2023-01-04', reason: 'x' });
    expectShapeA(before, 400, 'validation.msg.validation.errors.exist');
    expect(before.body.errors[0]).toMatchObject({
      parameterName: 'transactionDate',
      userMessageGlobalisationCode: 'error.msg.loan.charge.off.is.before.than.the.last.user.transaction',
    });
    const future = await chargeOff(loanId, { transactionDate: '2199-01-01', reason: 'x' });
    expectShapeA(future, 400, 'validation.msg.validation.errors.exist');
    expect(future.body.errors[0]).toMatchObject({
      parameterName: 'transactionDate',
      userMessageGlobalisationCode: 'error.msg.loan.transaction.cannot.be.a.future.date',
    });
    const unreadable = await chargeOff(loanId, { transactionDate: '2023-02-30', reason: 'x' });
    expectShapeA(unreadable, 400, 'validation.msg.validation.errors.exist');
    expect(unreadable.body.errors[0].parameterName).toBe('transactionDate');
    const missing = await chargeOff(loanId, {});
    expectShapeA(missing, 400, 'validation.msg.validation.errors.exist');
    expect(missing.body.errors.map((e: { parameterName: string }) => e.parameterName)).toEqual([
      'transactionDate',
      'reason',
    ]);
    const unknownField = await chargeOff(loanId, { transactionDate: '2023-02-22', reason: 'x', amount: '1' });
    expectShapeA(unknownField, 400, 'validation.msg.validation.errors.exist');
    expect(unknownField.body.errors[0].parameterName).toBe('amount');
    const badCommand = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/transactions?command=writeoff`, {});
    expectShapeA(badCommand, 400, 'validation.msg.validation.errors.exist');
    expect(badCommand.body.errors[0].parameterName).toBe('command');
    const undoWithBody = await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loanId}/transactions?command=undo-charge-off`,
      {
        transactionDate: '2023-02-22',
      },
    );
    expectShapeA(undoWithBody, 400, 'validation.msg.validation.errors.exist');
    expect(undoWithBody.body.errors[0].parameterName).toBe('transactionDate');
    expectShapeA(await undo(loanId), 409, 'error.msg.loan.is.not.charged.off');
    expectShapeA(
      await chargeOff(loanId, { transactionDate: '2023-02-22', reason: 'x' }, other),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(await undo(loanId, other), 404, 'error.msg.resource.not.found');
    const forbidden = await chargeOff(loanId, { transactionDate: '2023-02-22', reason: 'x' }, readOnly);
    expect(forbidden.status).toBe(403);
    expect(await journalOf(loanId)).toEqual(journalBefore);

    const externalId = ref('co');
    const first = await chargeOff(loanId, { transactionDate: '2023-02-22', reason: 'x', externalId });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expectShapeA(
      await chargeOff(loanId, { transactionDate: '2023-02-22', reason: 'x' }),
      409,
      'error.msg.loan.is.already.charged.off',
    );

    const otherLoan = await scenarioLoan(vectors.scenarios[0]!);
    expectShapeA(
      await chargeOff(otherLoan, { transactionDate: '2023-02-22', reason: 'x', externalId }),
      409,
      'error.msg.loan.charge.off.external.id.conflict',
    );
    expect((await call(ctx, cred, 'GET', `/v1/loans/${otherLoan}`)).body.chargedOff).toBe(false);
  });

  it('refuses a loan that is not active', async () => {
    DISBURSED = '2023-01-01';
    const loanId = await approvedLoan();
    const res = await chargeOff(loanId, { transactionDate: '2023-02-22', reason: 'x' });
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
    expect(res.body.errors[0]).toMatchObject({
      parameterName: 'loanId',
      userMessageGlobalisationCode: 'error.msg.loan.is.not.active',
    });
    const u = await undo(loanId);
    expectShapeA(u, 400, 'validation.msg.validation.errors.exist');
    expect(u.body.errors[0].parameterName).toBe('loanId');
  });
});
