/**
 * Portfolio search (docs/lending.md "Lending core": "search by name, email or phone; cursor-paged";
 * docs/design.md §4 Paging: history and search lists page with limit and an opaque cursor → `{items, nextCursor}`).
 * Mounted at `/v1/portfolio`.
 */
import {
  type SearchHit,
  searchCustomersByContact,
  searchCustomersByName,
} from '../../../db/queries/customers/customers';
import { decodeCursor, encodeCursor } from '../../../domain/cursor';
import { searchQuery, searchResponse } from '../../../domain/customers/schemas/customers';
import { classifySearchQuery } from '../../../domain/customers/search';
import { validationError } from '../../../domain/errors';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { doc } from '../../openapi';
import { queryParams } from '../../validation';

const tags = ['Lending: portfolio'];
const searchRoute = '/v1/portfolio/search';

export const portfolioRoutes = factory
  .createApp()
  /**
   * Finds customers by `q`: with `@` an e-mail (exact, case-insensitive); written with digits and
   * phone punctuation only a phone number (normalized to E.164, US assumed without a country
   * code); otherwise a case- and accent-insensitive prefix of "first last" or of "last first" (so the
   * first name, the last name alone, or either order of both).
   * `limit` 1–200 (default 50), `cursor` from the previous page (bound to `q`) →
   * `{items: [{customerId, displayName, matchedOn}], nextCursor}`.
   * 400: `q` shorter than 2 characters, an unparseable e-mail or phone number, a cursor of
   * another query.
   */
  .get(
    '/search',
    doc({
      tags,
      summary: 'Search the portfolio',
      description:
        '`q` is an e-mail (exact), a phone number (E.164 after normalization) or a name prefix (first name, last name, "first last" or "last first"). Results are cursor-paged; send `nextCursor` unchanged with the same `q`.',
      scope: 'lending:read',
      permission: 'SEARCH_PORTFOLIO',
      responses: { 200: { description: 'One page of matches', schema: searchResponse } },
    }),
    requires('lending:read', 'SEARCH_PORTFOLIO'),
    queryParams(searchQuery),
    async (c) => {
      const { q, limit, cursor } = c.req.valid('query');
      const { db, config } = c.get('deps');
      const tenantId = c.get('tenantId');
      const binding = { q };
      const after = cursor
        ? decodeCursor(config.cursorSigningKey, c.get('tenantId'), searchRoute, binding, cursor)
        : null;
      const query = classifySearchQuery(q);
      let rows: SearchHit[];
      if (query.kind === 'INVALID') throw validationError('q', q, query.message);
      if (query.kind === 'NAME') {
        if (query.prefix.length < 2)
          throw validationError('q', q, 'q must contain at least 2 letters or digits.');
        rows = await searchCustomersByName(db, tenantId, query.prefix, {
          after: after ? { sortKey: after.sortKey, id: Number(after.id) } : null,
          limit,
        });
      } else {
        rows = await searchCustomersByContact(db, tenantId, query.kind, query.value, {
          afterId: after ? Number(after.id) : null,
          limit,
        });
      }
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const nextCursor =
        rows.length > limit && last
          ? encodeCursor(config.cursorSigningKey, c.get('tenantId'), searchRoute, binding, {
              sortKey: last.sortKey,
              id: String(last.id),
            })
          : null;
      const items = page.map((hit) => ({
        customerId: hit.customerId,
        customerRef: hit.customerRef,
        displayName: hit.displayName,
        matchedOn: hit.matchedOn,
      }));
      return c.json({ items, nextCursor }, 200);
    },
  );
