/**
 * A loan's delinquency history (docs/lending.md "Delinquency"; Apache Fineract's loan delinquency tag history):
 * one row per change of classification that a close-of-business run stored. Mounted at
 * `/v1/loans/{loanId}/delinquency-history`. The derived figures are on the loan read and the summary
 * (api/routes/lending/loans.ts). Scope `lending:read`, permission `READ_LOAN`.
 */
import { listLoanDelinquencyHistory } from '../../../db/queries/lending/delinquency';
import { decodeCursor, encodeCursor } from '../../../domain/cursor';
import { notFound } from '../../../domain/errors';
import {
  delinquencyHistoryQuery,
  delinquencyHistoryResponse,
} from '../../../domain/lending/schemas/delinquency';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { doc } from '../../openapi';
import { pathParams, queryParams } from '../../validation';

const tags = ['Lending: delinquency'];
const historyRoute = '/v1/loans/:loanId/delinquency-history';

export const loanDelinquencyRoutes = factory
  .createApp()
  /**
   * The loan's stored classification changes, newest first: `limit` (1–200, default 50) and an opaque `cursor`
   * bound to the tenant, this route and the loan → `{items: [{businessDate, classification,
   * previousClassification, delinquentDays, delinquentAmount, collectionsCaseId, collectionsSuppressedBy}],
   * nextCursor}` (null on the last page). Another tenant's or an unknown loan → 404; a cursor altered, of another
   * tenant, route or loan → 400 naming `cursor`.
   */
  .get(
    '/',
    doc({
      tags,
      summary: "List a loan's delinquency history",
      description:
        'One row per change of classification stored by a close-of-business run (businessDate = the day the run closed; the classification is as of the next day). delinquentAmount in the loan currency, decimal string. Empty before the first change.',
      scope: 'lending:read',
      permission: 'READ_LOAN',
      responses: { 200: { description: 'One page of the history', schema: delinquencyHistoryResponse } },
    }),
    requires('lending:read', 'READ_LOAN'),
    pathParams(loanIdParam),
    queryParams(delinquencyHistoryQuery),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const { limit, cursor } = c.req.valid('query');
      const { db, config } = c.get('deps');
      const tenantId = c.get('tenantId');
      const binding = { loanId: String(loanId) };
      const beforeId = cursor
        ? Number(decodeCursor(config.cursorSigningKey, tenantId, historyRoute, binding, cursor).id)
        : null;
      const rows = await listLoanDelinquencyHistory(db, tenantId, loanId, { beforeId, limit });
      if (rows === null) throw notFound('Loan', loanId);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const nextCursor =
        rows.length > limit && last
          ? encodeCursor(config.cursorSigningKey, tenantId, historyRoute, binding, {
              sortKey: String(last.rowId),
              id: String(last.rowId),
            })
          : null;
      return c.json({ items: page.map(({ rowId: _rowId, ...item }) => item), nextCursor }, 200);
    },
  );
