/**
 * Delinquency buckets (Apache Fineract `DelinquencyApiResource`: `/v1/delinquency/buckets`; docs/lending.md
 * "Delinquency configuration"). Mounted at `/v1/delinquency/buckets`.
 */
import {
  getDelinquencyBucket,
  listDelinquencyBuckets,
} from '../../../db/queries/lending/delinquency-configuration';
import { notFound } from '../../../domain/errors';
import {
  bucketIdParam,
  createDelinquencyBucketBody,
  createdResourceResponse,
  delinquencyBucketListResponse,
  delinquencyBucketResponse,
} from '../../../domain/lending/schemas/delinquency-configuration';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: delinquency'];

export const delinquencyBucketRoutes = factory
  .createApp()
  /**
   * Defines a bucket: body `{name, ranges: [rangeId…]}` (distinct ids of the tenant's ranges, none overlapping
   * another) → 201 `{resourceId}`. 400 naming `ranges` for overlapping ranges, naming `name` for a name the tenant
   * has; 404 naming `ranges` for a range that is not the tenant's.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Define a delinquency bucket',
      scope: 'lending:write',
      permission: 'CREATE_DELINQUENCY_BUCKET',
      mutation: true,
      responses: { 201: { description: 'Bucket defined', schema: createdResourceResponse } },
    }),
    requires('lending:write', 'CREATE_DELINQUENCY_BUCKET'),
    noQuery(),
    ...jsonBody(createDelinquencyBucketBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.createDelinquencyBucket({ ...operationContext(c), ...body });
      return c.json({ resourceId: result.bucketId }, 201);
    },
  )
  /** Every bucket of the tenant, oldest first, each with its ranges by `minimumAgeDays`: 200 `[{id, name, ranges}]`. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List delinquency buckets',
      scope: 'lending:read',
      permission: 'READ_DELINQUENCY_BUCKET',
      responses: { 200: { description: 'The buckets', schema: delinquencyBucketListResponse } },
    }),
    requires('lending:read', 'READ_DELINQUENCY_BUCKET'),
    noQuery(),
    async (c) => c.json(await listDelinquencyBuckets(c.get('deps').db, c.get('tenantId')), 200),
  )
  /** One bucket with its ranges; another tenant's → 404. */
  .get(
    '/:bucketId',
    doc({
      tags,
      summary: 'Read a delinquency bucket',
      scope: 'lending:read',
      permission: 'READ_DELINQUENCY_BUCKET',
      responses: { 200: { description: 'The bucket', schema: delinquencyBucketResponse } },
    }),
    requires('lending:read', 'READ_DELINQUENCY_BUCKET'),
    pathParams(bucketIdParam),
    noQuery(),
    async (c) => {
      const { bucketId } = c.req.valid('param');
      const found = await getDelinquencyBucket(c.get('deps').db, c.get('tenantId'), bucketId);
      if (!found) throw notFound('Delinquency bucket', bucketId);
      return c.json(found, 200);
    },
  );
