/**
 * Loans (OpenAPI `POST /v1/loans`, `POST /v1/loans?command=calculateLoanSchedule`,
 * `POST /v1/loans/{loanId}?command=approve`, `POST /v1/loans/{loanId}/parties`; OpenAPI `GET /v1/loans`, `GET /v1/loans/{loanId}?associations=repaymentSchedule,transactions`; docs/lending.md "Lending core": loan
 * submitted → approved; `GET /v1/loans/{loanId}/summary`). Mounted at `/v1/loans`; a loan's sub-resources with
 * routes of their own have their own files, each mounted at its own path (api/app.ts): fundings
 * (api/routes/lending/loan-fundings.ts), payments (api/routes/payments/loan-payments.ts), autopay
 * (api/routes/payments/autopay.ts) and statements (api/routes/lending/statements.ts).
 *
 * Scopes and permissions (docs/integrating.md "Routes, scopes and permissions"):
 * - `POST /v1/loans`: `lending:write` + `CREATE_LOAN`; with `command=calculateLoanSchedule`: `lending:read` +
 *   `CALCULATE_LOANSCHEDULE` — the preview stores nothing, and
 *   `lending:read` covers schedules (a quoting front end with a read-only credential can preview). Any other `command` → 400.
 *   The preview takes no part in `Idempotency-Key` handling (nothing to replay); the creation does.
 * - `POST /v1/loans/{loanId}?command=approve`: `lending:write` + `APPROVE_LOAN`; a missing or other `command` →
 *   400.
 * - `GET /v1/loans`, `GET /v1/loans/{loanId}`: `lending:read` + `READ_LOAN`.
 * - `POST /v1/loans/{loanId}/parties`: `lending:write` + `CREATE_LOANPARTY`.
 * - `GET /v1/loans/{loanId}/summary`: `lending:read` + `READ_LOAN`.
 */
import { getLoanSummary } from '../../../db/queries/lending/ledger';
import { getLoan, listLoans } from '../../../db/queries/lending/loans';
import { notFound } from '../../../domain/errors';
import { loanStatusView } from '../../../domain/lending/loan-status';
import { loanSummaryResponse, summaryQuery } from '../../../domain/lending/schemas/loan-summary';
import {
  addLoanPartyBody,
  approvedLoanResponse,
  approveLoanBody,
  createdLoanResponse,
  createdPartyResponse,
  createLoanBody,
  listLoansQuery,
  loanCommandQuery,
  loanIdParam,
  loanListResponse,
  loanResponse,
  loansCommandQuery,
  readLoanQuery,
  schedulePreviewResponse,
} from '../../../domain/lending/schemas/loans';
import { factory } from '../../env';
import { guard, requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: loans'];

const isPreview = (command: string | undefined) => command === 'calculateLoanSchedule';
/** The scope and permission of `POST /v1/loans`, by `command` (module note). */
const previewOrCreateGuard = guard((c) =>
  isPreview(c.req.query('command'))
    ? { scope: 'lending:read', permission: 'CALCULATE_LOANSCHEDULE' }
    : { scope: 'lending:write', permission: 'CREATE_LOAN' },
);
const createIdempotency = idempotent();

/** `Idempotency-Key` handling for the creation only. */
const createOnlyIdempotency = factory.createMiddleware((c, next) =>
  isPreview(c.req.query('command')) ? next() : createIdempotency(c, next),
);

export const loanRoutes = factory
  .createApp()
  /**
   * Without `command`: submits a loan → 201 `{loanId, resourceId, clientId, accountNo, status}` (status
   * `loanStatusType.submitted.and.pending.approval`); stored with its terms and installments.
   * With `command=calculateLoanSchedule`: the same body previewed → 200 `{currency, loanTermInDays, totals…,
   * periods}` (the disbursement row has no `period`), plus `aprDisclosure` for products with
   * `lmsConfig.aprEnabled` (null with `aprDisclosureUnavailable` — reason included — when approval would fail on
   * the disclosure or on a product that is not CONFIGURED). Nothing is stored.
   * 400 naming the field: `clientId`/`productId` not the tenant's, term type ≠ repayment type, term ≠
   * repayments × every, values outside the product's bounds, amounts with too many digits, charges unknown,
   * inactive or in another currency (`charges[i].chargeId`), bad dates, `expectedDisbursementDate` before
   * `submittedOnDate`, an `externalId` that looks like an identifier or account number. 409
   * `error.msg.loan.external.id.conflict` for another loan's `externalId`.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a loan, or preview its schedule (command=calculateLoanSchedule)',
      description:
        'Fineract loan application body (integer codes: term/repayment frequency 0 days, 1 weeks, 2 months, 3 years; interestType 0 declining, 1 flat; amortizationType 0 equal principal, 1 equal installments; interestCalculationPeriodType 0 daily, 1 same as repayment). Dates ISO, or per `dateFormat` (e.g. "dd MMMM yyyy", English month names). `command=calculateLoanSchedule` needs scope `lending:read` and permission `CALCULATE_LOANSCHEDULE` and stores nothing.',
      scope: 'lending:write',
      permission: 'CREATE_LOAN',
      mutation: true,
      responses: {
        200: {
          description: 'Schedule preview (command=calculateLoanSchedule)',
          schema: schedulePreviewResponse,
        },
        201: { description: 'Loan submitted', schema: createdLoanResponse },
      },
    }),
    previewOrCreateGuard,
    queryParams(loansCommandQuery),
    ...jsonBody(createLoanBody),
    createOnlyIdempotency,
    async (c) => {
      const { command } = c.req.valid('query');
      const body = c.req.valid('json');
      const { activities } = c.get('deps');
      if (isPreview(command)) {
        return c.json(await activities.calculateLoanSchedule({ ...operationContext(c), ...body }), 200);
      }
      const result = await activities.createLoan({ ...operationContext(c), ...body });
      return c.json(
        {
          loanId: result.loanId,
          resourceId: result.loanId,
          clientId: result.clientId,
          accountNo: result.accountNo,
          status: loanStatusView(result.status),
        },
        201,
      );
    },
  )
  /**
   * The native loan list: `offset` (≥ 0, default 0), `limit` (1–200, default 50), `orderBy` (id, accountNo,
   * submittedOnDate; default id), `sortOrder` (ASC/DESC, default ASC) → `{totalFilteredRecords, pageItems:
   * [{id, accountNo, clientId, status: {id, code, value}}]}`.
   */
  .get(
    '/',
    doc({
      tags,
      summary: 'List loans',
      scope: 'lending:read',
      permission: 'READ_LOAN',
      responses: { 200: { description: 'One page of loans', schema: loanListResponse } },
    }),
    requires('lending:read', 'READ_LOAN'),
    queryParams(listLoansQuery),
    async (c) => {
      const query = c.req.valid('query');
      return c.json(await listLoans(c.get('deps').db, c.get('tenantId'), query), 200);
    },
  )
  /**
   * One loan: ids, status, currency, principal and approved principal, terms, timeline, externalId, the frozen
   * `aprDisclosure`, parties; with `associations` (comma list of `repaymentSchedule`, `transactions`, or `all`)
   * the authoritative schedule with paid and outstanding amounts per installment (and, with Fineract's names, what
   * was paid of it in advance and late: `totalPaidInAdvanceForPeriod`, `totalPaidLateForPeriod`), and the posted
   * fundings and payments by value date with their portions and the outstanding principal after each
   * (`outstandingLoanBalance`); rules in db/queries/lending/loans.ts. `delinquent` is derived as of today in the
   * tenant's time zone (docs/lending.md "Delinquency"); `delinquencyRange`, `lastClosedBusinessDate`,
   * `chargedOff`, `chargedOffOnDate` are stored. Money: decimal strings with the currency's digits.
   * Another tenant's loan → 404; an unknown association → 400.
   */
  .get(
    '/:loanId',
    doc({
      tags,
      summary: 'Read a loan',
      description:
        "delinquent is derived when read, as of today in the tenant's time zone; delinquencyRange is the classification the close of business stored (null before its first run).",
      scope: 'lending:read',
      permission: 'READ_LOAN',
      responses: { 200: { description: 'The loan', schema: loanResponse } },
    }),
    requires('lending:read', 'READ_LOAN'),
    pathParams(loanIdParam),
    queryParams(readLoanQuery),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const { associations } = c.req.valid('query');
      const found = await getLoan(
        c.get('deps').db,
        c.get('tenantId'),
        loanId,
        associations ?? { repaymentSchedule: false, transactions: false },
        c.get('deps').clock(),
      );
      if (!found) throw notFound('Loan', loanId);
      return c.json(found, 200);
    },
  )
  /**
   * `command=approve` `{approvedOnDate, approvedLoanAmount, expectedDisbursementDate?, note?}` → 200 `{loanId,
   * resourceId, clientId, changes: {status, approvedOnDate, approvedLoanAmount, expectedDisbursementDate}}`;
   * freezes the §1026.18 disclosure for APR products. 409 `error.msg.loan.invalid.state.transition` unless
   * SUBMITTED; 409 `error.msg.loan.apr.disclosure.unavailable` (reason in `developerMessage`) when the product is
   * not CONFIGURED or the disclosure cannot be produced — the loan stays submitted; 400 naming the field.
   */
  .post(
    '/:loanId',
    doc({
      tags,
      summary: 'Approve a loan (command=approve)',
      description:
        'approvedLoanAmount may be below the principal applied for (the schedule is generated again with it), never above.',
      scope: 'lending:write',
      permission: 'APPROVE_LOAN',
      mutation: true,
      responses: { 200: { description: 'Loan approved', schema: approvedLoanResponse } },
    }),
    requires('lending:write', 'APPROVE_LOAN'),
    pathParams(loanIdParam),
    queryParams(loanCommandQuery),
    ...jsonBody(approveLoanBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.approveLoan({ ...operationContext(c), loanId, ...body });
      const { code, value } = loanStatusView(result.status);
      return c.json(
        {
          loanId: result.loanId,
          resourceId: result.loanId,
          clientId: result.clientId,
          changes: {
            status: { code, value },
            approvedOnDate: result.approvedOnDate,
            approvedLoanAmount: result.approvedPrincipal,
            expectedDisbursementDate: result.expectedDisbursementDate,
          },
        },
        200,
      );
    },
  )
  /**
   * Adds a co-borrower, authorized party or guarantor `{customerId, role}` → 201 `{resourceId, partyId}`; the
   * same customer and role again → 200 with the existing party. 404 for another tenant's loan; 400 naming
   * `customerId` when it is not the tenant's customer or is the borrower.
   */
  .post(
    '/:loanId/parties',
    doc({
      tags,
      summary: 'Add a loan party',
      description: 'role CO_BORROWER, AUTHORIZED_PARTY or GUARANTOR.',
      scope: 'lending:write',
      permission: 'CREATE_LOANPARTY',
      mutation: true,
      responses: {
        200: { description: 'The party already existed', schema: createdPartyResponse },
        201: { description: 'Party added', schema: createdPartyResponse },
      },
    }),
    requires('lending:write', 'CREATE_LOANPARTY'),
    pathParams(loanIdParam),
    noQuery(),
    ...jsonBody(addLoanPartyBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.addLoanParty({ ...operationContext(c), loanId, ...body });
      return c.json({ resourceId: result.partyId, partyId: result.partyId }, result.created ? 201 : 200);
    },
  )
  /**
   * The loan summary as of `asOfDate` (default: today in UTC): balances outstanding by component, overdue
   * components with `daysPastDue`, the payoff projection at `asOfDate` (domain/lending/allocation/payoff.ts payoff rule: the
   * same rule that posts a payment of that amount on that date as the payoff), the frozen APR disclosure and the
   * restrictions in force — one read statement (db/queries/lending/ledger.ts `getLoanSummary`). Another tenant's loan → 404.
   */
  .get(
    '/:loanId/summary',
    doc({
      tags: ['Lending: loan money'],
      summary: 'Read a loan summary',
      description:
        'Figures are the replay of the money events value-dated on or before `asOfDate`. Payoff: outstanding principal, unpaid interest, fees and penalties of installments due by `asOfDate`, and the interest of the current period accrued to `asOfDate` (straight-line over the period) less what is paid of it; no later interest or fees. A payment of that amount value-dated `asOfDate` pays the loan off: the rest is waived and the loan closes. `delinquent` is derived as of `asOfDate`; `delinquencyRange` is the classification the close of business stored.',
      scope: 'lending:read',
      permission: 'READ_LOAN',
      responses: { 200: { description: 'The loan summary', schema: loanSummaryResponse } },
    }),
    requires('lending:read', 'READ_LOAN'),
    pathParams(loanIdParam),
    queryParams(summaryQuery),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const now = c.get('deps').clock();
      const asOfDate = c.req.valid('query').asOfDate ?? now.toISOString().slice(0, 10);
      const summary = await getLoanSummary(c.get('deps').db, c.get('tenantId'), loanId, asOfDate, now);
      if (summary === null) throw notFound('Loan', loanId);
      return c.json(summary, 200);
    },
  );
