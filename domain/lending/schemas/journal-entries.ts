/**
 * Query and response schemas of `GET /v1/journalentries` (docs/lending.md "Lending core"; docs/design.md §4 Paging: journal-entry
 * lists take offset and limit and answer `{totalFilteredRecords, pageItems}`).
 */
import * as v from 'valibot';
import { integerId, limitParam, offsetParam } from '../../validation/fields';
import { dateText, decimalText, instantText } from '../../validation/money';

/** `GET /v1/journalentries` query. */
export const listJournalEntriesQuery = v.strictObject({
  loanId: v.optional(integerId('loanId')),
  /** A merchant advance's opaque id (`mca_…`): its advance, remittance and reversal lines. */
  advanceId: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'advanceId must be an opaque id such as mca_abc….')),
  ),
  limit: limitParam,
  offset: offsetParam,
});

/** 200 of `GET /v1/journalentries`: the counted envelope of the spec's journal-entry list. */
export const journalEntryListResponse = v.object({
  totalFilteredRecords: v.number(),
  pageItems: v.array(
    v.object({
      id: v.number(),
      transactionRef: v.string(),
      accountCode: v.string(),
      entryDate: dateText,
      debit: decimalText,
      credit: decimalText,
      currency: v.string(),
      reversesEntryId: v.nullable(v.number()),
      createdAt: instantText,
    }),
  ),
});
