/**
 * Journal entries (OpenAPI `GET /v1/journalentries`, "filterable by loan; counted envelope";
 * docs/design.md §4 Paging: journal-entry lists take offset and limit and answer `{totalFilteredRecords, pageItems}`). Mounted at
 * `/v1/journalentries`. Lines come in the order they were appended (the ledger is append-only: a correction is a
 * reversing line pointing at the line it cancels through `reversesEntryId`).
 */
import { listJournalEntries } from '../../../db/queries/lending/ledger';
import { notFound } from '../../../domain/errors';
import {
  journalEntryListResponse,
  listJournalEntriesQuery,
} from '../../../domain/lending/schemas/journal-entries';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { doc } from '../../openapi';
import { queryParams } from '../../validation';

const tags = ['Lending: journal entries'];

export const journalEntryRoutes = factory
  .createApp()
  /**
   * The tenant's journal lines, oldest first: `loanId` (one loan's), `advanceId` (one merchant advance's), `offset`, `limit` (1–200, default 50) →
   * `{totalFilteredRecords, pageItems: [{id, transactionRef, accountCode, entryDate, debit, credit, currency,
   * reversesEntryId, createdAt}]}`. A `loanId` or `advanceId` the tenant does not have → 404.
   */
  .get(
    '/',
    doc({
      tags,
      summary: 'List journal entries',
      description:
        'Every money event posts balanced lines (Σ debit = Σ credit per transactionRef) on the default chart: LOAN_PORTFOLIO, EXTERNAL_CLEARING, INTEREST_INCOME, FEE_INCOME, PENALTY_INCOME, OVERPAYMENT_LIABILITY, PRINCIPAL_FORGIVENESS_EXPENSE (a hardship relief forgiving principal); merchant advances add MERCHANT_ADVANCE_RECEIVABLE and MERCHANT_DEFERRED_REVENUE (filter one advance with advanceId).',
      scope: 'lending:read',
      permission: 'READ_JOURNALENTRY',
      responses: { 200: { description: 'One page of journal lines', schema: journalEntryListResponse } },
    }),
    requires('lending:read', 'READ_JOURNALENTRY'),
    queryParams(listJournalEntriesQuery),
    async (c) => {
      const filter = c.req.valid('query');
      const page = await listJournalEntries(c.get('deps').db, c.get('tenantId'), filter);
      if (page === null) {
        throw filter.advanceId !== undefined && filter.loanId === undefined
          ? notFound('Merchant advance', filter.advanceId)
          : notFound('Loan', filter.loanId ?? 0);
      }
      return c.json(page, 200);
    },
  );
