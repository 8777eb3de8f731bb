/**
 * A loan's charges (Apache Fineract `LoanChargesApiResource`; docs/lending.md "Charges on an active loan"). Mounted
 * at `/v1/loans/{loanId}/charges` (api/app.ts); every route of that path is here.
 *
 * Replays: the Idempotency-Key middleware answers a retry under the same key with the original status and body;
 * the operation itself returns the charge a request key already added.
 */
import { getLoanCharge, listLoanCharges } from '../../../db/queries/lending/loan-charges';
import { notFound } from '../../../domain/errors';
import {
  addedLoanChargeResponse,
  addLoanChargeBody,
  loanChargeCommandQuery,
  loanChargeListResponse,
  loanChargeParams,
  loanChargeResponse,
  waivedLoanChargeResponse,
  waiveLoanChargeBody,
} from '../../../domain/lending/schemas/loan-charges';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, optionalJsonBody, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: loan charges'];

export const loanChargeRoutes = factory
  .createApp()
  /**
   * Adds a specified-due-date charge to an ACTIVE loan → 201 `{resourceId (loanChargeId), loanId}`
   * (activities/lending/add-loan-charge.ts `addLoanCharge`): body `{chargeId, amount?, dueDate, externalId?,
   * locale?, dateFormat?}`. The charge lands on the installment whose period holds `dueDate` (an additional
   * installment after the last one when later) and the loan's allocation is re-posted in value-date order; event
   * `loan.charge.added`. 400 naming `loanId` (loan not ACTIVE), `chargeId` (inactive, other currency, not
   * specified-due-date, not flat), `dueDate` (unreadable, before the disbursement), `amount`; 404 for another
   * tenant's loan or an unknown charge; 409 `error.msg.loan.charge.external.id.conflict`.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Add a charge to an active loan',
      description:
        "Fineract `POST /loans/{loanId}/charges` for a specified-due-date charge (chargeTimeType 2, fee or penalty, flat, in the loan's currency). It joins the fees or penalties of the installment whose period holds `dueDate` (fromDate < dueDate ≤ dueDate; the first installment includes the disbursement date), or of an additional installment after the last one. Payments value-dated on or after `dueDate` are re-allocated to it.",
      scope: 'lending:write',
      permission: 'CREATE_LOANCHARGE',
      mutation: true,
      responses: { 201: { description: 'Charge added', schema: addedLoanChargeResponse } },
    }),
    requires('lending:write', 'CREATE_LOANCHARGE'),
    pathParams(loanIdParam),
    noQuery(),
    ...jsonBody(addLoanChargeBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.addLoanCharge({
        ...operationContext(c),
        loanId,
        chargeId: body.chargeId,
        amount: body.amount ?? null,
        dueDate: body.dueDate,
        externalId: body.externalId ?? null,
        locale: body.locale ?? null,
        dateFormat: body.dateFormat ?? null,
      });
      return c.json({ resourceId: result.loanChargeId, loanId: result.loanId }, 201);
    },
  )
  /** The charges added to the loan, by due date then id (Fineract `LoanChargeData`); another tenant's loan → 404. */
  .get(
    '/',
    doc({
      tags,
      summary: "List a loan's charges",
      scope: 'lending:read',
      permission: 'READ_LOANCHARGE',
      responses: { 200: { description: "The loan's charges", schema: loanChargeListResponse } },
    }),
    requires('lending:read', 'READ_LOANCHARGE'),
    pathParams(loanIdParam),
    noQuery(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const items = await listLoanCharges(c.get('deps').db, c.get('tenantId'), loanId);
      if (items === null) throw notFound('Loan', loanId);
      return c.json(items, 200);
    },
  )
  /** One charge of the loan: `{id, chargeId, name, chargeTimeType, dueDate, amount, amountPaid, amountWaived, amountOutstanding, penalty, …}`; 404 otherwise. */
  .get(
    '/:loanChargeId',
    doc({
      tags,
      summary: 'Read a loan charge',
      scope: 'lending:read',
      permission: 'READ_LOANCHARGE',
      responses: { 200: { description: 'The loan charge', schema: loanChargeResponse } },
    }),
    requires('lending:read', 'READ_LOANCHARGE'),
    pathParams(loanChargeParams),
    noQuery(),
    async (c) => {
      const { loanId, loanChargeId } = c.req.valid('param');
      const charge = await getLoanCharge(c.get('deps').db, c.get('tenantId'), loanId, loanChargeId);
      if (charge === null) throw notFound('Loan charge', loanChargeId);
      return c.json(charge, 200);
    },
  )
  /**
   * `?command=waive`, optional body `{transactionDate?, locale?, dateFormat?}` → 200 `{resourceId, loanId, changes:
   * {amountWaived}}` (activities/lending/waive-loan-charge.ts `waiveLoanCharge`): what is still owed of the charge
   * is waived, dated `transactionDate` (default today) or the charge's due date when earlier; event
   * `loan.charge.waived`. 409 `error.msg.loan.charge.already.waived` / `error.msg.loan.charge.already.paid`; 400
   * naming `loanId` when the loan is not ACTIVE, `transactionDate` when unreadable, after today or before the
   * disbursement; 404 for another tenant's loan or charge.
   */
  .post(
    '/:loanChargeId',
    doc({
      tags,
      summary: 'Waive a loan charge',
      description:
        'Fineract `POST /loans/{loanId}/charges/{loanChargeId}?command=waive` (WAIVE_CHARGES): the outstanding amount of the charge is waived and is no longer owed; it shows in the installment’s `feeChargesWaived`/`penaltyChargesWaived` and as a "Waive loan charges" transaction of the loan. The optional body’s `transactionDate` is the business date of the waiver (default: today in the tenant’s time zone; not after today, not before the disbursement); as in Fineract the waiver is dated that day, or the charge’s due date when that is earlier.',
      scope: 'lending:write',
      permission: 'WAIVE_LOANCHARGE',
      mutation: true,
      responses: { 200: { description: 'Charge waived', schema: waivedLoanChargeResponse } },
    }),
    requires('lending:write', 'WAIVE_LOANCHARGE'),
    pathParams(loanChargeParams),
    queryParams(loanChargeCommandQuery),
    ...optionalJsonBody(waiveLoanChargeBody),
    idempotent(),
    async (c) => {
      const { loanId, loanChargeId } = c.req.valid('param');
      const body = c.req.valid('json') ?? {};
      const result = await c.get('deps').activities.waiveLoanCharge({
        ...operationContext(c),
        loanId,
        loanChargeId,
        transactionDate: body.transactionDate ?? null,
        locale: body.locale ?? null,
        dateFormat: body.dateFormat ?? null,
      });
      return c.json(
        {
          resourceId: result.loanChargeId,
          loanId: result.loanId,
          changes: { amountWaived: result.amountWaived },
        },
        200,
      );
    },
  );
