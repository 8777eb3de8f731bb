/**
 * The loan step of close of business over a chunk of 1,000 loans (activities/lending/close-loan-business-day.ts
 * `closeLoansForDay`; docs/processes.md P7 "Scale"): every loan CLOSED, the changes written once per loan, a second
 * pass SKIPPED for all. It logs the loans closed per second of a quiet day (only the stamp) and of a day on which
 * every loan changes classification, as a figure to read (not asserted: the machine is shared).
 */
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeLoansForDay } from '../../activities/lending/close-loan-business-day';
import { loanDelinquencyHistory, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, newTenant } from './helpers';
import { approvedLoan } from './ledger-fixtures';

let h: ActivityHarness;
const loanCount = 1_000;

beforeAll(() => {
  h = createHarness();
  h.now.value = new Date('2025-06-01T12:00:00Z');
});
afterAll(async () => h?.close());

/** Copies the rows of `table` for loan `sourceId` onto every loan of `targets` (`column` names the loan). */
async function copyRowsOf(
  tenantId: string,
  table: string,
  sourceId: number,
  targets: number[],
  overrides: Record<string, string> = {},
) {
  await withTenantTransaction(h.db, tenantId, async (tx) => {
    const columns = (
      (await tx.execute(sql`
        select column_name from information_schema.columns
         where table_schema = current_schema() and table_name = ${table}
           and is_generated = 'NEVER' and identity_generation is null
         order by ordinal_position`)) as unknown as { column_name: string }[]
    ).map((c) => c.column_name);
    const list = columns.map((c) => `"${c}"`).join(', ');
    const select = columns.map((c) => (c === 'loan_id' ? 't.id' : (overrides[c] ?? `s."${c}"`))).join(', ');
    await tx.execute(
      sql.raw(
        `insert into "${table}" (${list}) select ${select} from "${table}" s, unnest(array[${targets.join(',')}]::bigint[]) as t(id) where s.tenant_id = '${tenantId}' and s.loan_id = ${sourceId}`,
      ),
    );
  });
}

describe('close of business over a chunk', () => {
  it(`closes ${loanCount} loans, each once`, async () => {
    const tenantId = await newTenant(h, 'cobvol');
    const range = await h.activities.createDelinquencyRange({
      tenantId,
      classification: 'LATE',
      minimumAgeDays: 1,
      maximumAgeDays: null,
    });
    const { bucketId } = await h.activities.createDelinquencyBucket({
      tenantId,
      name: 'Volume',
      ranges: [range.rangeId],
    });
    const source = await approvedLoan(h, tenantId);
    await h.activities.recordExternalFunding({
      tenantId,
      loanId: source.loanId,
      amount: '300.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: 'volume-source-funding',
      reason: 'Disbursed by the originating bank',
      fundingDate: '2025-01-01',
    });
    // Clone the funded loan: loans, installments and fundings (the step reads nothing else of a current loan).
    const targets = await withTenantTransaction(h.db, tenantId, async (tx) => {
      await tx
        .update(loans)
        .set({
          terms: sql`${loans.terms} || ${JSON.stringify({ delinquency: { delinquencyBucketId: bucketId } })}::jsonb`,
        })
        .where(and(eq(loans.tenantId, tenantId), eq(loans.id, source.loanId)));
      const rows = (await tx.execute(sql`
        insert into loans (tenant_id, account_no, client_id, product_id, loan_type, status, currency_code, principal,
                           approved_principal, terms, transaction_processing_strategy_code, submitted_on_date,
                           expected_disbursement_date, approved_on_date, disbursed_on_date, apr_disclosure)
        select l.tenant_id, l.account_no || '-' || g, l.client_id, l.product_id, l.loan_type, l.status,
               l.currency_code, l.principal, l.approved_principal, l.terms, l.transaction_processing_strategy_code,
               l.submitted_on_date, l.expected_disbursement_date, l.approved_on_date, l.disbursed_on_date,
               l.apr_disclosure
          from loans l, generate_series(1, ${loanCount - 1}) g
         where l.tenant_id = ${tenantId} and l.id = ${source.loanId}
        returning id`)) as unknown as { id: string | number }[];
      return rows.map((r) => Number(r.id));
    });
    await copyRowsOf(tenantId, 'loan_installments', source.loanId, targets);
    await copyRowsOf(tenantId, 'fundings', source.loanId, targets, {
      external_record_ref: `s.external_record_ref || '-' || t.id`,
    });
    const loanIds = [source.loanId, ...targets];
    const close = closeLoansForDay(h.deps);

    const timed = async (businessDate: string) => {
      const started = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      const outcomes = await close({ tenantId, businessDate, loanIds, concurrency: 4 });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = process.cpuUsage(cpu);
      return {
        outcomes,
        loansPerSecond: Math.round(loanIds.length / seconds),
        cpuMsPerLoan: ((used.user + used.system) / 1000 / loanIds.length).toFixed(2),
      };
    };
    const quiet = await timed('2025-01-10');
    expect(quiet.outcomes.every((o) => o.outcome === 'CLOSED')).toBe(true);
    const changing = await timed('2025-02-01');
    expect(changing.outcomes.every((o) => o.outcome === 'CLOSED')).toBe(true);
    const again = await close({ tenantId, businessDate: '2025-02-01', loanIds, concurrency: 4 });
    expect(again.every((o) => o.outcome === 'SKIPPED')).toBe(true);
    const [history] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select({ n: count() })
        .from(loanDelinquencyHistory)
        .where(eq(loanDelinquencyHistory.tenantId, tenantId)),
    );
    expect(history?.n).toBe(loanCount);
    console.log(
      `close of business, ${loanCount} loans, 4 lanes: quiet day ${quiet.loansPerSecond} loans/s ` +
        `(${quiet.cpuMsPerLoan} ms of this process's CPU per loan); every loan changing classification ` +
        `${changing.loansPerSecond} loans/s (${changing.cpuMsPerLoan} ms)`,
    );
  }, 120_000);
});
