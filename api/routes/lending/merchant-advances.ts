/**
 * Merchant advances (docs/processes.md P6 "Merchant advances"; OpenAPI `GET
 * /v1/merchant-advances/{advanceId}/reconciliation`, docs/lending.md "Merchant advances", docs/integrating.md "Webhooks"
 * "merchant sales and remittances"). Mounted at `/v1/merchant-advances`. Every write is one synchronous operation
 * (activities/lending/*merchant*.ts) under the advance's row lock, with Idempotency-Key on every POST; reads come
 * from the database. Ids are opaque strings (`mca_…`, `mrem_…`); another tenant's advance → 404.
 *
 * Postings (journal lines with `loanId` null, readable through `GET /v1/journalentries?advanceId=<advanceId>`):
 * the advance Dr MERCHANT_ADVANCE_RECEIVABLE purchased / Cr EXTERNAL_CLEARING advance / Cr MERCHANT_DEFERRED_REVENUE
 * the discount; each remittance Dr EXTERNAL_CLEARING / Cr MERCHANT_ADVANCE_RECEIVABLE; a return reverses it.
 */
import {
  getMerchantAdvance,
  getMerchantAdvanceReconciliation,
} from '../../../db/queries/lending/merchant-advances';
import { notFound } from '../../../domain/errors';
import {
  advanceIdParam,
  createMerchantAdvanceBody,
  merchantAdvanceReconciliationResponse,
  merchantAdvanceResponse,
  merchantRemittanceResponse,
  merchantSalesReportResponse,
  recordMerchantRemittanceBody,
  redactedMerchantFields,
  remittanceIdParam,
  reportMerchantSalesBody,
  returnMerchantRemittanceBody,
} from '../../../domain/lending/schemas/merchant-advances';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams, redactingJsonBody } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: merchant advances'];

export const merchantAdvanceRoutes = factory
  .createApp()
  /**
   * Creates an advance `{customerId, advanceAmount, purchasedAmount, holdbackRate, currency, remittanceFrequency}` →
   * 201 with the advance (`advanceId` `mca_…`, outstanding = purchasedAmount), posted to the ledger at once. 400
   * naming the field (amounts, purchasedAmount < advanceAmount, holdbackRate outside (0, 1] or > 4 decimals,
   * currency, remittanceFrequency); 404 naming `customerId` when not the tenant's.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a merchant advance',
      description:
        'A purchase of future receivables repaid by a holdback of the merchant’s sales. Posted at once, value-dated today (UTC): Dr MERCHANT_ADVANCE_RECEIVABLE purchasedAmount / Cr EXTERNAL_CLEARING advanceAmount / Cr MERCHANT_DEFERRED_REVENUE (purchasedAmount − advanceAmount). Event `merchant.advance.created`.',
      scope: 'lending:write',
      permission: 'CREATE_MERCHANTADVANCE',
      mutation: true,
      responses: { 201: { description: 'Advance created', schema: merchantAdvanceResponse } },
    }),
    requires('lending:write', 'CREATE_MERCHANTADVANCE'),
    noQuery(),
    ...jsonBody(createMerchantAdvanceBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const created = await c
        .get('deps')
        .activities.createMerchantAdvance({ ...operationContext(c), ...body });
      return c.json(created, 201);
    },
  )
  /** One advance with its remitted and outstanding purchased amounts; unknown or another tenant's → 404. */
  .get(
    '/:advanceId',
    doc({
      tags,
      summary: 'Read a merchant advance',
      scope: 'lending:read',
      permission: 'READ_MERCHANTADVANCE',
      responses: { 200: { description: 'The advance', schema: merchantAdvanceResponse } },
    }),
    requires('lending:read', 'READ_MERCHANTADVANCE'),
    pathParams(advanceIdParam),
    noQuery(),
    async (c) => {
      const { advanceId } = c.req.valid('param');
      const found = await getMerchantAdvance(c.get('deps').db, c.get('tenantId'), advanceId);
      if (!found) throw notFound('Merchant advance', advanceId);
      return c.json(found, 200);
    },
  )
  /**
   * The spec's reconciliation: `{advanceId, status, periods: [{periodStart, periodEnd, reportedSales,
   * calculatedRemittance, settledRemittance, postedRemittance, difference}]}`, periods by start. 404 as above.
   */
  .get(
    '/:advanceId/reconciliation',
    doc({
      tags,
      summary: 'Reconcile reported sales against remittances',
      description:
        'One row per period with reported sales or a remittance, ordered by periodStart. calculatedRemittance = reportedSales × holdbackRate rounded HALF_EVEN to the currency’s minor unit; settledRemittance = remittances settled for the period (recorded as external: settled when recorded; returned ones excluded); postedRemittance = remittances posted and not reversed; difference = calculated − posted. status is matched when every difference is zero, else unmatched.',
      scope: 'lending:read',
      permission: 'READ_MERCHANTADVANCE',
      responses: {
        200: {
          description: 'Merchant advance reconciliation',
          schema: merchantAdvanceReconciliationResponse,
        },
      },
    }),
    requires('lending:read', 'READ_MERCHANTADVANCE'),
    pathParams(advanceIdParam),
    noQuery(),
    async (c) => {
      const { advanceId } = c.req.valid('param');
      const found = await getMerchantAdvanceReconciliation(c.get('deps').db, c.get('tenantId'), advanceId);
      if (!found) throw notFound('Merchant advance', advanceId);
      return c.json(found, 200);
    },
  )
  /**
   * Reports a period's sales `{periodStart, periodEnd, amount, sourceRef}` → 201 with the calculated remittance. The
   * same period with the same amount and sourceRef → the first report again (201); other content → 409
   * `error.msg.merchant.sales.period.conflict`; an overlapping period → 409 `error.msg.merchant.period.overlap`; a
   * period that is not one day (DAILY) or seven days (WEEKLY) → 400 naming `periodEnd`.
   */
  .post(
    '/:advanceId/reported-sales',
    doc({
      tags,
      summary: 'Report the sales of a period',
      description:
        'Periods are closed ISO date ranges: DAILY advances report one day (periodEnd = periodStart), WEEKLY advances seven days (periodEnd = periodStart + 6); periods never overlap. A report cannot be changed: the same content again is a replay, other content for the period (or a sourceRef reused for another period) → 409. Event `merchant.sales.reported`.',
      scope: 'lending:write',
      permission: 'REPORT_MERCHANTSALES',
      mutation: true,
      responses: {
        201: {
          description: 'Sales reported (or the same report replayed)',
          schema: merchantSalesReportResponse,
        },
      },
    }),
    requires('lending:write', 'REPORT_MERCHANTSALES'),
    pathParams(advanceIdParam),
    noQuery(),
    ...redactingJsonBody(reportMerchantSalesBody, redactedMerchantFields),
    idempotent(),
    async (c) => {
      const { advanceId } = c.req.valid('param');
      const body = c.req.valid('json');
      const report = await c.get('deps').activities.reportMerchantSales({
        ...operationContext(c),
        advanceId,
        ...body,
      });
      return c.json(report, 201);
    },
  )
  /**
   * Records a remittance received outside the system `{periodStart, periodEnd, amount, currency?, externalRecordRef,
   * effectiveDate}` → 201, posted to the ledger; `currency` other than the advance's → 400
   * `validation.msg.payment.currency.mismatch`. The same externalRecordRef with the same content → the remittance
   * as it stands (201); other content → 409 `error.msg.external.record.ref.conflict`; above the outstanding purchased
   * amount → 409 `error.msg.merchant.remittance.exceeds.outstanding`.
   */
  .post(
    '/:advanceId/remittances/record-external',
    doc({
      tags,
      summary: 'Record an external remittance',
      description:
        "Posted value-dated to effectiveDate: Dr EXTERNAL_CLEARING / Cr MERCHANT_ADVANCE_RECEIVABLE. `currency` is optional; when given it must be the advance's currency (else 400 `validation.msg.payment.currency.mismatch`). Counts as settled and posted for its period in the reconciliation; several remittances may share a period. Event `merchant.remittance.posted`.",
      scope: 'lending:write',
      permission: 'RECORD_MERCHANTREMITTANCE',
      mutation: true,
      responses: {
        201: { description: 'Remittance recorded (or replayed)', schema: merchantRemittanceResponse },
      },
    }),
    requires('lending:write', 'RECORD_MERCHANTREMITTANCE'),
    pathParams(advanceIdParam),
    noQuery(),
    ...redactingJsonBody(recordMerchantRemittanceBody, redactedMerchantFields),
    idempotent(),
    async (c) => {
      const { advanceId } = c.req.valid('param');
      const body = c.req.valid('json');
      const remittance = await c.get('deps').activities.recordExternalMerchantRemittance({
        ...operationContext(c),
        advanceId,
        ...body,
      });
      return c.json(remittance, 201);
    },
  )
  /**
   * Returns a posted remittance `{returnCode, reason}` → 200 with it RETURNED; its posting is reversed. Unknown
   * remittance → 404; already returned → 409 `error.msg.merchant.remittance.invalid.state.transition`.
   */
  .post(
    '/:advanceId/remittances/:remittanceId/return',
    doc({
      tags,
      summary: 'Return a remittance',
      description:
        'Appends the reversal of the remittance’s posting (each line linked to the line it reverses, same value date); the remittance no longer counts as settled or posted. Event `merchant.remittance.returned`.',
      scope: 'lending:write',
      permission: 'RECORD_MERCHANTREMITTANCE',
      mutation: true,
      responses: { 200: { description: 'Remittance returned', schema: merchantRemittanceResponse } },
    }),
    requires('lending:write', 'RECORD_MERCHANTREMITTANCE'),
    pathParams(remittanceIdParam),
    noQuery(),
    ...redactingJsonBody(returnMerchantRemittanceBody, redactedMerchantFields),
    idempotent(),
    async (c) => {
      const { advanceId, remittanceId } = c.req.valid('param');
      const body = c.req.valid('json');
      const returned = await c.get('deps').activities.returnMerchantRemittance({
        ...operationContext(c),
        advanceId,
        remittanceId,
        ...body,
      });
      return c.json(returned, 200);
    },
  );
