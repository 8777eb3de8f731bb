/**
 * A loan's money (spec § Lending core writes: fundings and payments recorded as external; § Lending core reads:
 * payments, summary; § States; § Limits). Mounted at `/v1/loans` after the loans sub-app, which owns `/v1/loans`,
 * `/v1/loans/{loanId}` and `/v1/loans/{loanId}/parties`; this one defines only the sub-resources below.
 *
 * Replays: the Idempotency-Key middleware answers a retry under the same key with the original status and body
 * (`x-served-from-cache: true`). A retry under another key (or none) with the same `externalRecordRef` and the
 * same content is answered by the operation with the same status, 201, and the record as it stands (for a
 * payment, its current allocation); the same `externalRecordRef` with other content → 409
 * `error.msg.external.record.ref.conflict`.
 */
import { getLoanSummary, listLoanFundings, listLoanPayments } from '../../../db/queries/lending/ledger';
import { pendingPromiseIdsOfLoan } from '../../../db/queries/servicing/promises';
import { notFound } from '../../../domain/errors';
import {
  fundingListResponse,
  listFundingsQuery,
  listPaymentsQuery,
  loanIdParam,
  loanSummaryResponse,
  paymentListResponse,
  recordedFundingResponse,
  recordedPaymentResponse,
  recordFundingBody,
  recordPaymentBody,
  redactedMoneyFields,
  summaryQuery,
} from '../../../domain/validation/money';
import { type AppDeps, factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { noQuery, pathParams, queryParams, redactingJsonBody } from '../../validation';
import { operationContext } from '../context';
import { signalLoanChanged } from '../hardship/hardship-signals';

const tags = ['Lending: loan money'];

/**
 * After a payment of `loanId` committed: signals `paymentPosted` to the loan's PENDING promise processes
 * (docs/processes.md P4). Best effort: a failure is logged and the answer stands, since each promise re-reads the
 * loan's payments at its deadline.
 */
async function signalPendingPromises(deps: AppDeps, tenantId: string, loanId: number, paymentId: number) {
  try {
    const promiseIds = await pendingPromiseIdsOfLoan(deps.db, tenantId, loanId);
    if (promiseIds.length === 0) return;
    const { failed } = await deps.processes.promises.notifyPaymentPosted(tenantId, promiseIds, { paymentId });
    for (const { promiseId, error } of failed) {
      deps.logger.warn({ promiseId, loanId, paymentId, err: error }, 'promise process not signalled');
    }
  } catch (err) {
    deps.logger.warn({ loanId, paymentId, err }, 'pending promises of the loan not signalled');
  }
}

export const loanMoneyRoutes = factory
  .createApp()
  /**
   * Records a disbursement made outside the system → 201 `{resourceId, fundingId, loanId, status:
   * "RECORDED_EXTERNAL", amount, currency, fundingDate}` (activities/lending/record-external-funding.ts). The loan
   * must be APPROVED or ACTIVE (else 409 `error.msg.loan.invalid.state.transition`), all its fundings together
   * not above the approved principal (409 `error.msg.loan.funding.exceeds.approved.principal`), no
   * DISBURSEMENT_HOLD active (409 `error.msg.loan.disbursement.hold.active`), the currency the loan's (400
   * `validation.msg.payment.currency.mismatch`). Charges due at disbursement are withheld from the loan's first
   * funding (in value-date order), so a first funding smaller than them is refused with 409
   * `error.msg.loan.funding.below.disbursement.charges` and nothing is recorded (the charges are
   * never split over fundings). The schedule is regenerated on the principal funded so far (a partly funded loan
   * owes interest on what was lent only). 400 for too many decimals for the currency, a future `fundingDate` or
   * one before approval, identifier-looking text; 404 for another tenant's loan.
   */
  .post(
    '/:loanId/fundings/record-external',
    doc({
      tags,
      summary: 'Record an external funding (disbursement)',
      description:
        "The disbursement posts value-dated to `fundingDate` (default: the loan's expected disbursement date): Dr loan portfolio / Cr external clearing. The loan becomes active as of its first funding date; the funding enters reconciliation; `funding.posted` is emitted. `externalRecordRef` is unique per tenant for ever: the same content returns the original result (201), other content → 409.",
      scope: 'lending:write',
      permission: 'RECORD_LMS_FUNDING',
      mutation: true,
      responses: {
        201: {
          description: 'Funding recorded (or the same record replayed)',
          schema: recordedFundingResponse,
        },
      },
    }),
    requires('lending:write', 'RECORD_LMS_FUNDING'),
    pathParams(loanIdParam),
    noQuery(),
    ...redactingJsonBody(recordFundingBody, redactedMoneyFields),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.recordExternalFunding({
        ...operationContext(c),
        loanId,
        amount: body.amount,
        currency: body.currency,
        fundingType: body.fundingType,
        recipientType: body.recipientType,
        recipientRef: body.recipientRef,
        externalRecordRef: body.externalRecordRef,
        reason: body.reason,
        fundingDate: body.fundingDate ?? null,
      });
      await signalLoanChanged(
        c.get('deps'),
        c.get('tenantId'),
        { loanId },
        {
          kind: 'FUNDING',
          resourceId: result.fundingId,
        },
      );
      return c.json(
        {
          resourceId: result.fundingId,
          fundingId: result.fundingId,
          loanId: result.loanId,
          status: result.status,
          amount: result.amount,
          currency: result.currency,
          fundingDate: result.fundingDate,
        },
        201,
      );
    },
  )
  /** The loan's fundings newest first: `limit` (1–200, default 50), `offset` → `{items}`; another tenant's loan → 404. */
  .get(
    '/:loanId/fundings',
    doc({
      tags,
      summary: "List a loan's fundings",
      scope: 'lending:read',
      permission: 'READ_LMS_FUNDING',
      responses: { 200: { description: 'One page of fundings, newest first', schema: fundingListResponse } },
    }),
    requires('lending:read', 'READ_LMS_FUNDING'),
    pathParams(loanIdParam),
    queryParams(listFundingsQuery),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const page = c.req.valid('query');
      const items = await listLoanFundings(c.get('deps').db, c.get('tenantId'), loanId, page);
      if (items === null) throw notFound('Loan', loanId);
      return c.json({ items }, 200);
    },
  )
  /**
   * Records a payment received outside the system and posts it → 201 `{resourceId, paymentId, loanId, status:
   * "POSTED", amount, currency, effectiveDate, allocation: {principal, interest, fee, penalty, overpayment}}`
   * (activities/lending/record-external-payment.ts). Value-dated to `effectiveDate` and allocated by the loan's
   * strategy; a back-dated payment re-allocates the later ones. A payment of at least the summary's payoff quote
   * for its `effectiveDate` pays the loan off (later interest, fees and penalties waived; the loan closes; any
   * excess is an overpayment). The loan must be ACTIVE (else 409
   * `error.msg.loan.invalid.state.transition`); a PAYMENT_HOLD does not block it. 400 for too many decimals, a
   * currency other than the loan's (`validation.msg.payment.currency.mismatch`), an `effectiveDate` before the
   * first funding or in the future, identifier-looking text; 404 for another tenant's loan.
   */
  .post(
    '/:loanId/payments/record-external',
    doc({
      tags,
      summary: 'Record an external payment',
      description:
        "Posted to the ledger value-dated to `effectiveDate` and allocated across installments by the loan's strategy; a back-dated payment re-allocates the later ones (reversing and re-posting their journal entries). `source` is `IMPORT` for boarded history. `externalRecordRef` is unique per tenant for ever: the same content returns the payment as it stands (201), other content → 409. `payment.posted` is emitted.",
      scope: 'lending:write',
      permission: 'RECORD_LMS_PAYMENT',
      mutation: true,
      responses: {
        201: { description: 'Payment posted (or the same record replayed)', schema: recordedPaymentResponse },
      },
    }),
    requires('lending:write', 'RECORD_LMS_PAYMENT'),
    pathParams(loanIdParam),
    noQuery(),
    ...redactingJsonBody(recordPaymentBody, redactedMoneyFields),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.recordExternalPayment({
        ...operationContext(c),
        loanId,
        amount: body.amount,
        currency: body.currency,
        effectiveDate: body.effectiveDate,
        externalRecordRef: body.externalRecordRef,
        source: body.source,
        rationale: body.rationale ?? null,
      });
      await signalPendingPromises(c.get('deps'), c.get('tenantId'), loanId, result.paymentId);
      await signalLoanChanged(
        c.get('deps'),
        c.get('tenantId'),
        { loanId },
        {
          kind: 'PAYMENT',
          resourceId: result.paymentId,
        },
      );
      return c.json(
        {
          resourceId: result.paymentId,
          paymentId: result.paymentId,
          loanId: result.loanId,
          status: result.status,
          amount: result.amount,
          currency: result.currency,
          effectiveDate: result.effectiveDate,
          allocation: result.allocation,
        },
        201,
      );
    },
  )
  /**
   * The loan's payments newest first (effective date, then recording order): `status`, `limit` (1–200, default
   * 50), `offset` → `{items: [{paymentId, loanRef, status, amount, currency, effectiveDate, allocation}]}`;
   * another tenant's loan → 404.
   */
  .get(
    '/:loanId/payments',
    doc({
      tags,
      summary: "List a loan's payments",
      scope: 'lending:read',
      permission: 'READ_LMS_PAYMENT',
      responses: { 200: { description: 'One page of payments, newest first', schema: paymentListResponse } },
    }),
    requires('lending:read', 'READ_LMS_PAYMENT'),
    pathParams(loanIdParam),
    queryParams(listPaymentsQuery),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const filter = c.req.valid('query');
      const items = await listLoanPayments(c.get('deps').db, c.get('tenantId'), loanId, filter);
      if (items === null) throw notFound('Loan', loanId);
      return c.json({ items }, 200);
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
      tags,
      summary: 'Read a loan summary',
      description:
        'Figures are the replay of the money events value-dated on or before `asOfDate`. Payoff: outstanding principal, unpaid interest, fees and penalties of installments due by `asOfDate`, and the interest of the current period accrued to `asOfDate` (straight-line over the period) less what is paid of it; no later interest or fees. A payment of that amount value-dated `asOfDate` pays the loan off: the rest is waived and the loan closes.',
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
