/**
 * Delinquency ranges (Apache Fineract `DelinquencyApiResource`: `/v1/delinquency/ranges`; docs/lending.md
 * "Delinquency configuration"). Mounted at `/v1/delinquency/ranges`.
 */
import {
  getDelinquencyRange,
  listDelinquencyRanges,
} from '../../../db/queries/lending/delinquency-configuration';
import { notFound } from '../../../domain/errors';
import {
  createDelinquencyRangeBody,
  createdResourceResponse,
  delinquencyRangeListResponse,
  delinquencyRangeResponse,
  rangeIdParam,
} from '../../../domain/lending/schemas/delinquency-configuration';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: delinquency'];

export const delinquencyRangeRoutes = factory
  .createApp()
  /**
   * Defines a range: body `{classification, minimumAgeDays, maximumAgeDays?: number | null,
   * collectionsCaseTypeCode?, locale?}` (whole days, inclusive; null maximum: no upper bound) → 201 `{resourceId}`.
   * 400 for a maximum below the minimum or a classification the tenant has; 404 naming `collectionsCaseTypeCode`
   * for a case type the tenant does not have.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Define a delinquency range',
      scope: 'lending:write',
      permission: 'CREATE_DELINQUENCY_RANGE',
      mutation: true,
      responses: { 201: { description: 'Range defined', schema: createdResourceResponse } },
    }),
    requires('lending:write', 'CREATE_DELINQUENCY_RANGE'),
    noQuery(),
    ...jsonBody(createDelinquencyRangeBody),
    idempotent(),
    async (c) => {
      const { locale: _locale, ...body } = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.createDelinquencyRange({ ...operationContext(c), ...body });
      return c.json({ resourceId: result.rangeId }, 201);
    },
  )
  /** Every range of the tenant, oldest first: 200 `[{id, classification, minimumAgeDays, maximumAgeDays, collectionsCaseTypeCode}]`. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List delinquency ranges',
      scope: 'lending:read',
      permission: 'READ_DELINQUENCY_RANGE',
      responses: { 200: { description: 'The ranges', schema: delinquencyRangeListResponse } },
    }),
    requires('lending:read', 'READ_DELINQUENCY_RANGE'),
    noQuery(),
    async (c) => c.json(await listDelinquencyRanges(c.get('deps').db, c.get('tenantId')), 200),
  )
  /** One range; another tenant's → 404. */
  .get(
    '/:rangeId',
    doc({
      tags,
      summary: 'Read a delinquency range',
      scope: 'lending:read',
      permission: 'READ_DELINQUENCY_RANGE',
      responses: { 200: { description: 'The range', schema: delinquencyRangeResponse } },
    }),
    requires('lending:read', 'READ_DELINQUENCY_RANGE'),
    pathParams(rangeIdParam),
    noQuery(),
    async (c) => {
      const { rangeId } = c.req.valid('param');
      const found = await getDelinquencyRange(c.get('deps').db, c.get('tenantId'), rangeId);
      if (!found) throw notFound('Delinquency range', rangeId);
      return c.json(found, 200);
    },
  );
