/**
 * Charge definitions (OpenAPI `POST /v1/charges`), in Apache Fineract's terms.
 * Mounted at `/v1/charges`.
 */
import { getCharge, listCharges } from '../../../db/queries/lending/products';
import { notFound } from '../../../domain/errors';
import {
  chargeDefinitionOf,
  chargeIdParam,
  chargeListResponse,
  chargeResponse,
  createChargeBody,
  createdChargeResponse,
} from '../../../domain/lending/schemas/products';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: charges'];

export const chargeRoutes = factory
  .createApp()
  /**
   * Defines a loan charge: body `{name, currencyCode, amount, chargeAppliesTo: 1, chargeTimeType (1, 2, 8, 9),
   * chargeCalculationType (1–4), penalty?, active?, chargePaymentMode? (0), locale?, dateFormat?}` →
   * 201 `{resourceId, chargeId}`. 400 for an unknown currency or code, a penalty at disbursement, an amount
   * that is not > 0 or has too many fraction digits (flat: the currency's; percentage: 6), an overdue-installment
   * charge (9) that is not a penalty or is of calculation type 4.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Define a charge',
      scope: 'lending:write',
      permission: 'CREATE_CHARGE',
      mutation: true,
      responses: { 201: { description: 'Charge defined', schema: createdChargeResponse } },
    }),
    requires('lending:write', 'CREATE_CHARGE'),
    noQuery(),
    ...jsonBody(createChargeBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.createCharge({
        ...operationContext(c),
        ...chargeDefinitionOf(body),
      });
      return c.json({ resourceId: result.chargeId, chargeId: result.chargeId }, 201);
    },
  )
  /** Every charge definition of the tenant, oldest first: 200 array of charges. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List charges',
      scope: 'lending:read',
      permission: 'READ_CHARGE',
      responses: { 200: { description: 'The charges', schema: chargeListResponse } },
    }),
    requires('lending:read', 'READ_CHARGE'),
    noQuery(),
    async (c) => c.json(await listCharges(c.get('deps').db, c.get('tenantId')), 200),
  )
  /** One charge definition; another tenant's → 404. */
  .get(
    '/:chargeId',
    doc({
      tags,
      summary: 'Read a charge',
      scope: 'lending:read',
      permission: 'READ_CHARGE',
      responses: { 200: { description: 'The charge', schema: chargeResponse } },
    }),
    requires('lending:read', 'READ_CHARGE'),
    pathParams(chargeIdParam),
    noQuery(),
    async (c) => {
      const { chargeId } = c.req.valid('param');
      const found = await getCharge(c.get('deps').db, c.get('tenantId'), chargeId);
      if (!found) throw notFound('Charge', chargeId);
      return c.json(found, 200);
    },
  );
