/**
 * Issue 7 §6 property: any interleaving of payment intents (created, submitted, settled and posted, returned,
 * failed) and payments recorded as external, back-dated ones included, leaves the loan's journal balanced (trial
 * balance zero) and its stored installment state equal to a date-ordered replay of the posted payments (the
 * summary read from the stored state equals the replay from the raw tables, on several as-of dates), and never
 * posts a returned or failed payment. Real PostgreSQL; the operations are called as the payment-intent workflow
 * calls them (activities/payments/create-payment-intent.ts and the status changes beside it), in a random order.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLoanSummary } from '../../db/queries/lending/ledger';
import { withTenantTransaction } from '../../db/tenant-tx';
import { parseDecimalToMinor } from '../../domain/money';
import { type ActivityHarness, createHarness, newTenant } from './helpers';
import { approvedLoan } from './ledger-fixtures';

let h: ActivityHarness;
let counter = 0;
const ref = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const today = '2025-03-15';

beforeAll(() => {
  h = createHarness();
  h.now.value = new Date(`${today}T15:00:00Z`);
});
afterAll(async () => h?.close());

type Step =
  | { kind: 'intent'; cents: number }
  | { kind: 'settle'; pick: number }
  | { kind: 'return'; pick: number }
  | { kind: 'fail'; pick: number }
  | { kind: 'external'; cents: number; day: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('intent' as const), cents: fc.integer({ min: 100, max: 9_000 }) }),
  fc.record({ kind: fc.constant('settle' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('return' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('fail' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('external' as const),
    cents: fc.integer({ min: 100, max: 9_000 }),
    day: fc.integer({ min: 1, max: 72 }),
  }),
);

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const addDays = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('payment intents and external payments, interleaved', () => {
  it('keep the journal balanced and the stored allocation equal to the date-ordered replay', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 9 }), async (steps) => {
        const tenantId = await newTenant(h, 'prop-pay');
        const loan = await approvedLoan(h, tenantId);
        await h.activities.recordExternalFunding({
          tenantId,
          loanId: loan.loanId,
          amount: '300.00',
          currency: 'USD',
          fundingType: 'DISBURSEMENT',
          recipientType: 'BORROWER',
          recipientRef: 'borrower-primary',
          externalRecordRef: ref('fund'),
          reason: 'Disbursed',
          fundingDate: '2025-01-01',
        });
        const instrument = await h.activities.addPaymentInstrument({
          tenantId,
          customerId: loan.customerId,
          instrumentType: 'BANK_ACCOUNT',
          providerTokenRef: `tok_${ref('prop').replace(/-/g, '_')}`,
        });
        await h.activities.verifyPaymentInstrument({
          tenantId,
          customerId: loan.customerId,
          instrumentId: instrument.instrumentId,
          verificationSource: 'PLAID_AUTH',
        });
        const submitted: number[] = [];
        const posted: number[] = [];
        const gone = new Set<number>();
        const take = (list: number[], pick: number) =>
          list.length === 0 ? undefined : list.splice(pick % list.length, 1)[0];
        for (const s of steps) {
          const ids = { tenantId };
          if (s.kind === 'intent') {
            const created = await h.activities
              .createPaymentIntent({
                tenantId,
                loanId: loan.loanId,
                instrumentId: instrument.instrumentId,
                amount: money(s.cents),
                currency: 'USD',
                rail: 'ACH',
                effectiveDate: today,
                source: 'property',
              })
              .catch((err: { code?: string }) => {
                // Over the outstanding (or the loan closed by earlier payments): refused, nothing written.
                if (err.code === 'error.msg.loan.payment.amount.exceeds.outstanding') return null;
                if (err.code === 'error.msg.loan.invalid.state.transition') return null;
                throw err;
              });
            if (created) {
              await h.activities.markPaymentSubmitted({
                ...ids,
                paymentId: created.payment.paymentId,
                providerRef: `sbx_ach_${ref('p')}`,
              });
              submitted.push(created.payment.paymentId);
            }
          } else if (s.kind === 'settle') {
            const id = take(submitted, s.pick);
            if (id === undefined) continue;
            const result = await h.activities
              .postSettledPayment({
                ...ids,
                paymentId: id,
                amount: await amountOf(tenantId, id),
                settledOn: today,
              })
              .catch((err: { code?: string }) => {
                if (err.code === 'error.msg.loan.invalid.state.transition') return null; // loan closed meanwhile
                throw err;
              });
            if (result) posted.push(id);
            else submitted.push(id);
          } else if (s.kind === 'return') {
            const id = take(posted, s.pick);
            if (id === undefined) continue;
            await h.activities.returnPayment({ ...ids, paymentId: id, returnCode: 'R01', returnedOn: today });
            gone.add(id);
          } else if (s.kind === 'fail') {
            const id = take(submitted, s.pick);
            if (id === undefined) continue;
            await h.activities.failPaymentIntent({ ...ids, paymentId: id, reason: 'R-failure' });
            gone.add(id);
          } else {
            await h.activities
              .recordExternalPayment({
                tenantId,
                loanId: loan.loanId,
                amount: money(s.cents),
                currency: 'USD',
                effectiveDate: addDays('2025-01-01', s.day),
                externalRecordRef: ref('ext'),
                source: 'IMPORT',
                rationale: 'Boarded history',
              })
              .catch((err: { code?: string }) => {
                if (err.code === 'error.msg.loan.invalid.state.transition') return null; // closed by a payoff
                throw err;
              });
          }
        }
        // 1. The journal balances.
        const [balance] = await withTenantTransaction(h.db, tenantId, (tx) =>
          tx.execute<{ balance: string }>(
            sql`select coalesce(sum(debit) - sum(credit), 0)::text as balance from journal_entries where loan_id = ${loan.loanId}`,
          ),
        );
        expect(parseDecimalToMinor(balance!.balance, 6)).toBe(0n);
        // 2. Returned and failed payments carry no allocation; posted ones do.
        const rows = await withTenantTransaction(h.db, tenantId, (tx) =>
          tx.execute<{ id: number; status: string; allocated: boolean }>(
            sql`select id, status::text as status, allocation is not null as allocated from payments where loan_id = ${loan.loanId}`,
          ),
        );
        for (const row of rows) {
          if (gone.has(Number(row.id))) expect(row.status).toMatch(/^(RETURNED|FAILED)$/);
          if (row.status === 'POSTED') expect(row.allocated).toBe(true);
        }
        // 3. The stored state equals the date-ordered replay.
        for (const asOf of [today, '2025-06-01']) {
          const stored = await getLoanSummary(h.db, tenantId, loan.loanId, asOf, h.now.value!);
          const replayed = await getLoanSummary(h.db, tenantId, loan.loanId, asOf, h.now.value!, 'replay');
          expect(stored, `as of ${asOf}`).toEqual(replayed);
        }
      }),
      { numRuns: 12 },
    );
  });
});

async function amountOf(tenantId: string, paymentId: number): Promise<string> {
  const [row] = await withTenantTransaction(h.db, tenantId, (tx) =>
    tx.execute<{ amount: string }>(sql`select amount::text as amount from payments where id = ${paymentId}`),
  );
  return row!.amount.replace(/(\.\d\d)0+$/, '$1');
}
