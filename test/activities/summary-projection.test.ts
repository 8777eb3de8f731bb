/**
 * Issue 13: the loan summary's projection (`loan_summary_projections`, kept by the triggers of migration 0018) is
 * never older than its sources once committed. Real PostgreSQL, row-level security on:
 * - two writers to one loan's sources (a funding, a payment) in two open transactions: the second waits for the
 *   first at its first write, and the committed row holds both writes;
 * - many concurrent fundings and payments through the operations: the committed row equals a recompute from the
 *   sources, no committed row is `stale`, and the summary from it equals the replay from the raw tables;
 * - a rolled-back write leaves the row as it was.
 * The figures themselves (the projection's installments, fundings and overpayments read as the summary) are
 * compared with the replay after every event in test/activities/read-path.test.ts.
 */
import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb } from '../../db/client';
import { getLoanSummary } from '../../db/queries/lending/ledger';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, newTenant } from './helpers';
import { approvedLoan, type LoanFixture } from './ledger-fixtures';

let h: ActivityHarness;
let refCounter = 0;
// Letters and short numbers only: a random hex run of 9 digits would trip the identifier guard.
const newRef = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(refCounter++).toString(36)}`;

interface ProjectionRow extends Record<string, unknown> {
  installments: unknown;
  disbursed: string;
  disbursement_count: number;
  last_funding_date: string | null;
  overpayment: string;
  last_payment_date: string | null;
  unallocated_payments: number;
  stale: boolean;
}

/** The loan's committed projection row, and the same row recomputed from the sources now (rolled back). */
async function storedAndRecomputed(
  loan: LoanFixture,
): Promise<{ stored: ProjectionRow; recomputed: ProjectionRow }> {
  const select = sql`select installments::text as installments, disbursed::text as disbursed, disbursement_count,
                            last_funding_date::text as last_funding_date, overpayment::text as overpayment,
                            last_payment_date::text as last_payment_date, unallocated_payments, stale
                       from loan_summary_projections where tenant_id = ${loan.tenantId} and loan_id = ${loan.loanId}`;
  const rollback = new Error('rollback');
  let result: { stored: ProjectionRow; recomputed: ProjectionRow } | undefined;
  await withTenantTransaction(h.db, loan.tenantId, async (tx) => {
    const [stored] = await tx.execute<ProjectionRow>(select);
    await tx.execute(sql`select refresh_loan_summary_projection(${loan.tenantId}, ${loan.loanId})`);
    const [recomputed] = await tx.execute<ProjectionRow>(select);
    result = { stored: stored!, recomputed: recomputed! };
    throw rollback;
  }).catch((err) => {
    if (err !== rollback) throw err;
  });
  return result!;
}

/** A tenant transaction opened by hand on `client` (one connection), for interleaving two writers. */
async function openTenantTransaction(client: postgres.ReservedSql, tenantId: string): Promise<void> {
  await client`begin`;
  await client`select set_config('role', 'lending_app', true), set_config('app.tenant_id', ${tenantId}, true)`;
}

beforeAll(async () => {
  h = createHarness();
  h.now.value = new Date('2025-03-15T12:00:00Z');
});

afterAll(async () => {
  await h?.close();
});

describe('loan_summary_projections under concurrent writers', () => {
  it('a second writer waits for the first, and the committed row holds both writes', async () => {
    const loan = await approvedLoan(h, await newTenant(h, 'proj'));
    const handle = createDb(inject('databaseUrl'), { maxConnections: 2 });
    const first = await handle.db.$client.reserve();
    const second = await handle.db.$client.reserve();
    try {
      await openTenantTransaction(first, loan.tenantId);
      await first`insert into fundings (tenant_id, loan_id, amount, currency_code, funding_type, recipient_type,
                                        recipient_ref, external_record_ref, reason, funding_date, status, content_digest)
                  values (${loan.tenantId}, ${loan.loanId}, 300, 'USD', 'DISBURSEMENT', 'BORROWER', 'borrower-primary',
                          ${newRef('fund')}, 'test', '2025-01-01', 'RECORDED_EXTERNAL', 'digest')`;
      await openTenantTransaction(second, loan.tenantId);
      let secondDone = false;
      const secondWrite =
        second`insert into payments (tenant_id, loan_id, amount, currency_code, effective_date, status, source)
                                 values (${loan.tenantId}, ${loan.loanId}, 25, 'USD', '2025-02-03', 'POSTED', 'IMPORT')`.then(
          () => {
            secondDone = true;
          },
        );
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The second writer is blocked on the loan's projection row, which the first holds until it ends.
      expect(secondDone).toBe(false);
      await first`commit`;
      await secondWrite;
      await second`commit`;
      const { stored, recomputed } = await storedAndRecomputed(loan);
      expect(stored).toMatchObject({
        disbursed: '300.000000',
        disbursement_count: 1,
        last_funding_date: '2025-01-01',
        last_payment_date: '2025-02-03',
        unallocated_payments: 1,
        stale: false,
      });
      expect(stored).toEqual(recomputed);
    } finally {
      await first`rollback`.catch(() => {});
      await second`rollback`.catch(() => {});
      first.release();
      second.release();
      await handle.close();
    }
  });

  it('many concurrent fundings and payments: the committed row equals its sources and the summary the replay', async () => {
    const loan = await approvedLoan(h, await newTenant(h, 'proj'), { numberOfRepayments: 6 });
    await h.activities.recordExternalFunding({
      tenantId: loan.tenantId,
      loanId: loan.loanId,
      amount: '100.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: newRef('fund'),
      reason: 'First tranche',
      fundingDate: '2025-01-01',
    });
    const writes = [
      ...[50, 50, 100].map((amount, i) =>
        h.activities.recordExternalFunding({
          tenantId: loan.tenantId,
          loanId: loan.loanId,
          amount: `${amount}.00`,
          currency: 'USD',
          fundingType: 'DISBURSEMENT',
          recipientType: 'BORROWER',
          recipientRef: 'borrower-primary',
          externalRecordRef: newRef('fund'),
          reason: 'Later tranche',
          fundingDate: `2025-01-0${2 + i}`,
        }),
      ),
      ...Array.from({ length: 12 }, (_, i) =>
        h.activities.recordExternalPayment({
          tenantId: loan.tenantId,
          loanId: loan.loanId,
          amount: '15.00',
          currency: 'USD',
          effectiveDate: `2025-02-${String(1 + i).padStart(2, '0')}`,
          externalRecordRef: newRef('pay'),
          source: 'IMPORT',
          rationale: 'Boarded history',
        }),
      ),
    ];
    const outcomes = await Promise.allSettled(writes);
    expect(
      outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason),
    ).toEqual([]);
    const { stored, recomputed } = await storedAndRecomputed(loan);
    expect(stored).toEqual(recomputed);
    expect(stored).toMatchObject({
      disbursed: '300.000000',
      disbursement_count: 4,
      last_payment_date: '2025-02-12',
      unallocated_payments: 0,
      stale: false,
    });
    const [staleRows] = await withTenantTransaction(h.db, loan.tenantId, (tx) =>
      tx.execute<{ stale: number }>(
        sql`select count(*)::int as stale from loan_summary_projections where stale`,
      ),
    );
    expect(staleRows?.stale).toBe(0);
    for (const asOf of ['2025-02-12', '2025-03-15', '2025-05-01']) {
      const fromProjection = await getLoanSummary(h.db, loan.tenantId, loan.loanId, asOf, h.now.value!);
      const replayed = await getLoanSummary(h.db, loan.tenantId, loan.loanId, asOf, h.now.value!, 'replay');
      expect(fromProjection, `as of ${asOf}`).toEqual(replayed);
    }
  });

  it('a rolled-back write leaves the row as it was', async () => {
    const loan = await approvedLoan(h, await newTenant(h, 'proj'));
    await h.activities.recordExternalFunding({
      tenantId: loan.tenantId,
      loanId: loan.loanId,
      amount: '300.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: newRef('fund'),
      reason: 'Disbursed',
      fundingDate: '2025-01-01',
    });
    const before = (await storedAndRecomputed(loan)).stored;
    const rollback = new Error('rollback');
    await withTenantTransaction(h.db, loan.tenantId, async (tx) => {
      await tx.execute(sql`insert into payments (tenant_id, loan_id, amount, currency_code, effective_date, status, source)
                           values (${loan.tenantId}, ${loan.loanId}, 25, 'USD', '2025-02-03', 'POSTED', 'IMPORT')`);
      throw rollback;
    }).catch((err) => {
      if (err !== rollback) throw err;
    });
    expect((await storedAndRecomputed(loan)).stored).toEqual(before);
  });
});
