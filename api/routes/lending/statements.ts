/**
 * A loan's statements (OpenAPI `GET /v1/loans/{loanId}/statements`; docs/design.md §4 Paging; docs/design.md §5
 * "Statements"; docs/processes.md P6 "Statements"): the list, one statement, and its PDF. Statements are issued by
 * the statement cycle (workflows/lending/statement-cycle/), never through the API. Mounted at
 * `/v1/loans/{loanId}/statements`. Another tenant's (or an unknown) loan or statement → 404 Shape A.
 */
import {
  getLoanStatement,
  getStatementParties,
  listLoanStatements,
} from '../../../db/queries/lending/statements';
import { notFound } from '../../../domain/errors';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import {
  listStatementsQuery,
  statementListResponse,
  statementParams,
  statementResponse,
} from '../../../domain/lending/schemas/statements';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { doc } from '../../openapi';
import { renderStatementPdf } from '../../statement-pdf';
import { noQuery, pathParams, queryParams } from '../../validation';

const tags = ['Lending: statements'];

export const statementRoutes = factory
  .createApp()
  /**
   * The loan's statements newest first (statement date, then id): `limit` (1–200, default 50), `offset` →
   * `{items}`; a page shorter than `limit` ends the collection. Another tenant's loan → 404.
   */
  .get(
    '/',
    doc({
      tags,
      summary: "List a loan's statements",
      description:
        "Newest first. A statement is issued for each installment on its due date − the product's `statementLeadDays` (tenant time zone) when the product has `statementEnabled`.",
      scope: 'lending:read',
      permission: 'READ_STATEMENT',
      responses: {
        200: { description: 'One page of statements, newest first', schema: statementListResponse },
      },
    }),
    requires('lending:read', 'READ_STATEMENT'),
    pathParams(loanIdParam),
    queryParams(listStatementsQuery),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const page = c.req.valid('query');
      const items = await listLoanStatements(c.get('deps').db, c.get('tenantId'), loanId, page);
      if (items === null) throw notFound('Loan', loanId);
      return c.json({ items }, 200);
    },
  )
  /** One statement of the loan with its figures; unknown statement or another tenant's → 404. */
  .get(
    '/:statementId',
    doc({
      tags,
      summary: 'Read a statement',
      scope: 'lending:read',
      permission: 'READ_STATEMENT',
      responses: { 200: { description: 'The statement', schema: statementResponse } },
    }),
    requires('lending:read', 'READ_STATEMENT'),
    pathParams(statementParams),
    noQuery(),
    async (c) => {
      const { loanId, statementId } = c.req.valid('param');
      const statement = await getLoanStatement(c.get('deps').db, c.get('tenantId'), loanId, statementId);
      if (statement === null) throw notFound('Statement', statementId);
      return c.json(statement, 200);
    },
  )
  /**
   * The statement as a PDF the borrower can read (`application/pdf`, one or two US Letter pages; api/
   * statement-pdf.ts): lender (the tenant's display name), borrower, masked account number, period, balances,
   * amount due and due date, APR, late-payment warning, transactions. Unknown statement or another tenant's → 404.
   */
  .get(
    '/:statementId/pdf',
    doc({
      tags,
      summary: 'Download a statement as PDF',
      scope: 'lending:read',
      permission: 'READ_STATEMENT',
      responses: {
        200: { description: 'The statement, `application/pdf`', binary: 'application/pdf' },
      },
    }),
    requires('lending:read', 'READ_STATEMENT'),
    pathParams(statementParams),
    noQuery(),
    async (c) => {
      const { loanId, statementId } = c.req.valid('param');
      const { db } = c.get('deps');
      const tenantId = c.get('tenantId');
      const statement = await getLoanStatement(db, tenantId, loanId, statementId);
      if (statement === null) throw notFound('Statement', statementId);
      const parties = await getStatementParties(db, tenantId, loanId);
      if (parties === null) throw notFound('Loan', loanId);
      const pdf = await renderStatementPdf(statement, parties);
      return c.body(new Uint8Array(pdf), 200, {
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="statement-${statement.loanRef}-${statement.statementDate}.pdf"`,
        'Cache-Control': 'private, no-store',
      });
    },
  );
