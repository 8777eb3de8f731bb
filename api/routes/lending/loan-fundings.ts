/**
 * A loan's fundings (docs/lending.md "Lending core": fundings recorded as external; docs/lending.md "Lending core"; docs/design.md §4 Paging). Mounted at
 * `/v1/loans/{loanId}/fundings` (api/app.ts); every route of that path is here.
 *
 * Replays: the Idempotency-Key middleware answers a retry under the same key with the original status and body
 * (`x-served-from-cache: true`). A retry under another key (or none) with the same `externalRecordRef` and the
 * same content is answered by the operation with the same status, 201, and the funding as recorded; the same
 * `externalRecordRef` with other content → 409 `error.msg.external.record.ref.conflict`.
 */
import { listLoanFundings } from '../../../db/queries/lending/ledger';
import { notFound } from '../../../domain/errors';
import {
  externalFundingOf,
  fundingListResponse,
  listFundingsQuery,
  recordedFundingResponse,
  recordFundingBody,
} from '../../../domain/lending/schemas/fundings';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import { redactedMoneyFields } from '../../../domain/validation/money';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { noQuery, pathParams, queryParams, redactingJsonBody } from '../../validation';
import { operationContext } from '../context';
import { signalLoanChanged } from '../hardship/hardship-signals';

const tags = ['Lending: loan money'];

export const loanFundingRoutes = factory
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
   * owes interest on what was lent only). For a product with `enableAutoRepaymentForDownPayment` the same
   * transaction records the down payment (`DOWN_PAYMENT`, ref `<externalRecordRef>:down-payment`, value-dated to
   * `fundingDate`, its `payment.posted`; 409 `error.msg.external.record.ref.conflict` when that ref is taken).
   * 400 for too many decimals for the currency, a future `fundingDate` or one before approval, identifier-looking
   * text; 404 for another tenant's loan.
   */
  .post(
    '/record-external',
    doc({
      tags,
      summary: 'Record an external funding (disbursement)',
      description:
        "The disbursement posts value-dated to `fundingDate` (default: the loan's expected disbursement date): Dr loan portfolio / Cr external clearing. The loan becomes active as of its first funding date; the funding enters reconciliation; `funding.posted` is emitted. For a product with `enableAutoRepaymentForDownPayment`, the down payment is recorded with it: a DOWN_PAYMENT transaction under `<externalRecordRef>:down-payment`, value-dated to `fundingDate`, with its own `payment.posted` (`transactionType: DOWN_PAYMENT`). `externalRecordRef` is unique per tenant for ever: the same content returns the original result (201), other content → 409.",
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
        ...externalFundingOf(body),
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
    '/',
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
  );
