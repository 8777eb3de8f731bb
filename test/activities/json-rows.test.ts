/**
 * `insertJsonRows` (db/queries/json-rows.ts) on the real PostgreSQL: the rows it stores are the rows Drizzle's
 * `VALUES` insert stores — exact decimals, dates, timestamps, nulls and `jsonb` — for installments, journal lines
 * and outbox events; `ON CONFLICT DO NOTHING` counts only new rows; rows of different shapes go through Drizzle;
 * row-level security still refuses another tenant's rows; `insertJsonRowsReturning` answers payments as Drizzle's
 * `RETURNING` does.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJsonRows, insertJsonRowsReturning } from '../../db/queries/json-rows';
import { glAccounts, journalEntries, loanInstallments, outboxEvents, payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { defaultChartOfAccounts } from '../../domain/lending/ledger';
import { type ActivityHarness, createHarness, newTenant } from './helpers';
import { approvedLoan } from './ledger-fixtures';

let h: ActivityHarness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

describe('insertJsonRows', () => {
  it('stores the same journal lines and installments as a VALUES insert, to the last digit', async () => {
    const tenantId = await newTenant(h, 'jrows');
    const viaValues = await approvedLoan(h, tenantId);
    const viaJson = await approvedLoan(h, tenantId);
    const createdAt = new Date('2025-03-04T05:06:07.891Z');
    const lines = (loanId: number) =>
      [
        ['LOAN_PORTFOLIO', '2025-01-01', '123456789012.345678', '0'],
        ['EXTERNAL_CLEARING', '2025-01-31', '0', '123456789012.345678'],
        ['LOAN_PORTFOLIO', '2025-02-28', '0.000001', '0'],
        ['EXTERNAL_CLEARING', '2025-02-28', '0', '0.000001'],
      ].map(([accountCode, entryDate, debit, credit], i) => ({
        tenantId,
        loanId,
        transactionRef: `jrows-${i >> 1}`,
        accountCode: accountCode as string,
        entryDate: entryDate as string,
        debit: debit as string,
        credit: credit as string,
        currencyCode: 'USD',
        reversesEntryId: null,
        createdAt,
      }));
    const read = (loanId: number) =>
      withTenantTransaction(h.db, tenantId, async (tx) => ({
        journal: (
          await tx
            .select()
            .from(journalEntries)
            .where(eq(journalEntries.loanId, loanId))
            .orderBy(asc(journalEntries.id))
        ).map(({ id: _id, loanId: _loan, ...rest }) => rest),
        installments: (
          await tx
            .select()
            .from(loanInstallments)
            .where(eq(loanInstallments.loanId, loanId))
            .orderBy(asc(loanInstallments.installmentNumber))
        ).map(({ loanId: _loan, ...rest }) => rest),
      }));
    await withTenantTransaction(h.db, tenantId, async (tx) => {
      await tx
        .insert(glAccounts)
        .values(
          defaultChartOfAccounts.map((a) => ({
            tenantId,
            code: a.code,
            name: a.name,
            accountType: a.accountType,
          })),
        )
        .onConflictDoNothing();
      await tx.insert(journalEntries).values(lines(viaValues.loanId));
      expect(await insertJsonRows(tx, journalEntries, lines(viaJson.loanId))).toBe(4);
      // The installments the application stored, written again through each path on the twin loan.
      const stored = await tx
        .select()
        .from(loanInstallments)
        .where(eq(loanInstallments.loanId, viaValues.loanId))
        .orderBy(asc(loanInstallments.installmentNumber));
      expect(stored.length).toBeGreaterThan(0);
      await tx.delete(loanInstallments).where(eq(loanInstallments.loanId, viaJson.loanId));
      expect(
        await insertJsonRows(
          tx,
          loanInstallments,
          stored.map((row) => ({
            ...row,
            loanId: viaJson.loanId,
            principalPaid: '0.01',
            obligationsMetOnDate: null,
          })),
        ),
      ).toBe(stored.length);
      await tx.delete(loanInstallments).where(eq(loanInstallments.loanId, viaValues.loanId));
      await tx
        .insert(loanInstallments)
        .values(stored.map((row) => ({ ...row, principalPaid: '0.01', obligationsMetOnDate: null })));
    });
    const [a, b] = [await read(viaValues.loanId), await read(viaJson.loanId)];
    expect(b).toEqual(a);
    expect(b.journal[0]).toMatchObject({ debit: '123456789012.345678', entryDate: '2025-01-01', createdAt });
  });

  it('ON CONFLICT DO NOTHING counts only new rows; jsonb and nulls round-trip; mixed shapes go through Drizzle', async () => {
    const tenantId = await newTenant(h, 'jrowsb');
    const event = (n: number, extra: Record<string, unknown> = {}) => ({
      tenantId,
      eventId: `evt_jrows${tenantId.replace(/[^a-z]/g, '')}${'x'.repeat(n)}`,
      eventType: 'payment.posted',
      apiVersion: '2025-01-01',
      occurredAt: new Date('2025-01-02T03:04:05.678Z'),
      subjectType: 'payment',
      subjectId: `p${'q'.repeat(n)}`,
      data: { amount: '10.00', nested: { list: [1, 'two', null] }, quote: 'it\'s "quoted" \\ ok' },
      dedupeKey: `jrows/${n}`,
      targetSubscriptionId: null,
      ...extra,
    });
    const target = [outboxEvents.tenantId, outboxEvents.dedupeKey];
    const inserted = await withTenantTransaction(h.db, tenantId, async (tx) => {
      const first = await insertJsonRows(tx, outboxEvents, [event(1), event(2)], {
        onConflictDoNothing: { target },
      });
      const again = await insertJsonRows(tx, outboxEvents, [event(2), event(3)], {
        onConflictDoNothing: { target },
      });
      // event(4) leaves out targetSubscriptionId: not the same shape, so Drizzle inserts these two.
      const { targetSubscriptionId: _omitted, ...withoutTarget } = event(4);
      const mixed = await insertJsonRows(tx, outboxEvents, [withoutTarget, event(5)], {
        onConflictDoNothing: { target },
      });
      return [first, again, mixed];
    });
    expect(inserted).toEqual([2, 1, 2]);
    const rows = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.tenantId, tenantId)))
        .orderBy(asc(outboxEvents.dedupeKey)),
    );
    expect(rows.map((r) => r.dedupeKey)).toEqual(['jrows/1', 'jrows/2', 'jrows/3', 'jrows/4', 'jrows/5']);
    expect(rows[0]).toMatchObject({
      data: event(1).data,
      occurredAt: new Date('2025-01-02T03:04:05.678Z'),
      targetSubscriptionId: null,
      publishedAt: null,
    });
  });

  it('row-level security refuses rows of another tenant', async () => {
    const tenantId = await newTenant(h, 'jrowsc');
    const other = await newTenant(h, 'jrowsd');
    await expect(
      withTenantTransaction(h.db, tenantId, (tx) =>
        insertJsonRows(tx, outboxEvents, [
          {
            tenantId: other,
            eventId: `evt_jrowsrls${tenantId.replace(/[^a-z]/g, '')}`,
            eventType: 'payment.posted',
            apiVersion: '2025-01-01',
            occurredAt: new Date(),
            subjectType: 'payment',
            subjectId: 'p',
            data: {},
            dedupeKey: 'jrows/rls',
            targetSubscriptionId: null,
          },
        ]),
      ),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/row-level security/) } });
  });

  it('insertJsonRowsReturning answers the rows as Drizzle’s VALUES … RETURNING does, conflicts left out', async () => {
    const tenantId = await newTenant(h, 'jrowsr');
    const viaValues = (await approvedLoan(h, tenantId)).loanId;
    const viaJson = (await approvedLoan(h, tenantId)).loanId;
    const createdAt = new Date('2025-03-04T05:06:07.891Z');
    const rows = (loanId: number, tag: string) =>
      [
        ['123456789012.345678', '2025-01-31', null],
        ['0.000001', '2025-02-28', 'a rationale'],
      ].map(([amount, effectiveDate, rationale], i) => ({
        tenantId,
        loanId,
        amount: amount as string,
        currencyCode: 'USD',
        effectiveDate: effectiveDate as string,
        status: 'POSTED' as const,
        source: 'BOARDING',
        rationale: rationale as string | null,
        externalRecordRef: `jrowsr-${tag}-${i}`,
        contentDigest: `digest-${i}`,
        actorUsername: null,
        createdAt,
      }));
    const target = { target: [payments.tenantId, payments.externalRecordRef] };
    const [expected, got, again] = await withTenantTransaction(h.db, tenantId, async (tx) => [
      await tx.insert(payments).values(rows(viaValues, 'v')).onConflictDoNothing(target).returning(),
      await insertJsonRowsReturning(tx, payments, rows(viaJson, 'j'), { onConflictDoNothing: target }),
      await insertJsonRowsReturning(tx, payments, rows(viaJson, 'j'), { onConflictDoNothing: target }),
    ]);
    const comparable = (list: (typeof payments.$inferSelect)[]) =>
      list
        .map(({ id, loanId: _loan, externalRecordRef, updatedAt, ...rest }) => ({
          ...rest,
          idIsNumber: typeof id === 'number',
          updatedAtIsDate: updatedAt instanceof Date,
          ref: externalRecordRef?.replace(/-[vj]-/, '-'),
        }))
        .sort((a, b) => (a.ref ?? '').localeCompare(b.ref ?? ''));
    expect(got.length).toBe(2);
    expect(comparable(got)).toEqual(comparable(expected));
    expect(got[0]?.createdAt).toEqual(createdAt);
    expect(again).toEqual([]);
  });
});
