/**
 * Loan products (OpenAPI `GET|POST /v1/loanproducts`):
 * Fineract's native calculation settings, attached charges and `lmsConfig`. Mounted at `/v1/loanproducts`.
 */
import { getLoanProduct, listLoanProducts } from '../../../db/queries/lending/products';
import { notFound } from '../../../domain/errors';
import {
  createdLoanProductResponse,
  createLoanProductBody,
  loanProductDefinitionOf,
  loanProductListResponse,
  loanProductResponse,
  productIdParam,
} from '../../../domain/lending/schemas/products';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: loan products'];

export const loanProductRoutes = factory
  .createApp()
  /**
   * Creates a loan product → 201 `{resourceId, productId}`. 400 (Shape A, `parameterName` per cause) for an
   * unknown code, bounds out of order (min > max, default outside), `digitsAfterDecimal` above the
   * currency's ISO 4217 minor unit (0 up to it is accepted, as in Fineract), amounts with more fraction digits
   * than `digitsAfterDecimal`, grace not below `numberOfRepayments`, malformed
   * `paymentAllocation`, `lmsConfig.statementLeadDays` outside 14–28 or not shorter than the repayment period,
   * attached charges (`charges[i].id`) unknown to the tenant, inactive or in another currency, and the
   * down-payment fields against Fineract's rules (domain/lending/products.ts `downPaymentErrors`: the percentage
   * 1–100 with ≤ 6 decimals, required with `enableDownPayment`, it and `enableAutoRepaymentForDownPayment` refused
   * without).
   * The product's `configurationStatus` is `CONFIGURED` or names what approval still misses.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a loan product',
      scope: 'lending:write',
      permission: 'CREATE_LOANPRODUCT',
      mutation: true,
      responses: { 201: { description: 'Product created', schema: createdLoanProductResponse } },
    }),
    requires('lending:write', 'CREATE_LOANPRODUCT'),
    noQuery(),
    ...jsonBody(createLoanProductBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const { charges, nsfChargeId, ...product } = body;
      const result = await c.get('deps').activities.createLoanProduct({
        ...operationContext(c),
        ...loanProductDefinitionOf(product),
        charges,
        nsfChargeId: nsfChargeId ?? null,
      });
      return c.json({ resourceId: result.productId, productId: result.productId }, 201);
    },
  )
  /** Every loan product of the tenant with its charges, oldest first: 200 array of loan products. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List loan products',
      scope: 'lending:read',
      permission: 'READ_LOANPRODUCT',
      responses: { 200: { description: 'The loan products', schema: loanProductListResponse } },
    }),
    requires('lending:read', 'READ_LOANPRODUCT'),
    noQuery(),
    async (c) => c.json(await listLoanProducts(c.get('deps').db, c.get('tenantId')), 200),
  )
  /** One loan product with its charges; another tenant's → 404. */
  .get(
    '/:productId',
    doc({
      tags,
      summary: 'Read a loan product',
      scope: 'lending:read',
      permission: 'READ_LOANPRODUCT',
      responses: { 200: { description: 'The loan product', schema: loanProductResponse } },
    }),
    requires('lending:read', 'READ_LOANPRODUCT'),
    pathParams(productIdParam),
    noQuery(),
    async (c) => {
      const { productId } = c.req.valid('param');
      const found = await getLoanProduct(c.get('deps').db, c.get('tenantId'), productId);
      if (!found) throw notFound('Loan product', productId);
      return c.json(found, 200);
    },
  );
