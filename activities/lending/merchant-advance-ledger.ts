/**
 * What the merchant-advance operations share: the row lock of an advance (every money event of one advance runs
 * under it) and the append of a balanced entry to `journal_entries` (domain/lending/merchant-advance.ts posting
 * rules; `loan_id` null, refs `merchant-advance/<advanceId>…`). The tenant's chart gets the merchant accounts
 * (insert … on conflict do nothing) before the first line that names them.
 */
import { and, eq } from 'drizzle-orm';
import { type MerchantAdvanceRow, merchantAdvanceRowOf } from '../../db/queries/lending/merchant-advances';
import { glAccounts, journalEntries } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import { type MerchantPosting, merchantAdvanceChart } from '../../domain/lending/merchant-advance';
import { formatMinor, minorUnitDigits } from '../../domain/money';

/** The advance `advanceRef` of the tenant, locked for update; 404 when the tenant has none. */
export async function lockMerchantAdvance(
  tx: Tx,
  tenantId: string,
  advanceRef: string,
): Promise<MerchantAdvanceRow> {
  const advance = await merchantAdvanceRowOf(tx, tenantId, advanceRef, true);
  if (!advance) throw notFound('Merchant advance', advanceRef);
  return advance;
}

/**
 * Appends `posting` (balanced, checked by the domain) value-dated `valueDate`. When `reverses` names an entry's
 * ref, line i of the new entry links to line i of that entry (`reverses_entry_id`).
 */
export async function appendMerchantPosting(
  tx: Tx,
  input: { tenantId: string; posting: MerchantPosting; valueDate: string; now: Date; reverses?: string },
): Promise<void> {
  const { tenantId, posting } = input;
  await tx
    .insert(glAccounts)
    .values(
      merchantAdvanceChart.map((account) => ({
        tenantId,
        code: account.code,
        name: account.name,
        accountType: account.accountType,
      })),
    )
    .onConflictDoNothing({ target: [glAccounts.tenantId, glAccounts.code] });
  let reversed: number[] = [];
  if (input.reverses) {
    const rows = await tx
      .select({ id: journalEntries.id })
      .from(journalEntries)
      .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.transactionRef, input.reverses)))
      .orderBy(journalEntries.id);
    reversed = rows.map((row) => row.id);
    if (reversed.length !== posting.lines.length) {
      throw new RangeError(
        `journal entry ${input.reverses} has ${reversed.length} lines, not ${posting.lines.length}`,
      );
    }
  }
  const digits = minorUnitDigits(posting.currency);
  await tx.insert(journalEntries).values(
    posting.lines.map((line, index) => ({
      tenantId,
      loanId: null,
      transactionRef: posting.transactionRef,
      accountCode: line.accountCode,
      entryDate: input.valueDate,
      debit: formatMinor(line.debitMinor, digits),
      credit: formatMinor(line.creditMinor, digits),
      currencyCode: posting.currency,
      reversesEntryId: input.reverses ? (reversed[index] ?? null) : null,
      createdAt: input.now,
    })),
  );
}
