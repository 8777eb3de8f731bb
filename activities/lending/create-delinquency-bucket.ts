import { and, eq } from 'drizzle-orm';
import { readDelinquencyRanges } from '../../db/queries/lending/delinquency-configuration';
import { delinquencyBucketRanges, delinquencyBuckets } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { referenceNotFound, validationError } from '../../domain/errors';
import { firstOverlap } from '../../domain/lending/delinquency-ranges';
import type { Deps, OperationContext } from '../deps';
import { duplicated } from './delinquency-errors';

export interface CreateDelinquencyBucketInput extends OperationContext {
  name: string;
  /** Ids of the tenant's ranges, distinct. */
  ranges: number[];
}

export interface CreateDelinquencyBucketResult {
  bucketId: number;
}

/**
 * Defines a delinquency bucket of the tenant's ranges (Apache Fineract
 * `DelinquencyWritePlatformServiceImpl.createDelinquencyBucket`; `POST /v1/delinquency/buckets`).
 * Idempotent by `requestKey`: a retry returns the bucket the first call defined.
 * Errors (nothing stored): 404 naming `ranges` for an id that is not one of the tenant's ranges; 400 naming `ranges`
 * when two of them share a day (Fineract `DelinquencyBucketAgesOverlapedException`); 400 naming `name` when the tenant
 * already has a bucket of that name (field code `error.msg.data.integrity.issue.entity.duplicated`).
 */
export function createDelinquencyBucket(deps: Deps) {
  return async (input: CreateDelinquencyBucketInput): Promise<CreateDelinquencyBucketResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [replayed] = await tx
          .select({ id: delinquencyBuckets.id })
          .from(delinquencyBuckets)
          .where(
            and(
              eq(delinquencyBuckets.tenantId, input.tenantId),
              eq(delinquencyBuckets.requestKey, input.requestKey),
            ),
          );
        if (replayed) return { bucketId: replayed.id };
      }
      const found = await readDelinquencyRanges(tx, input.tenantId, input.ranges);
      const missing = input.ranges.find((id) => !found.some((r) => r.id === id));
      if (missing !== undefined) throw referenceNotFound('ranges', missing, 'Delinquency range');
      const overlap = firstOverlap(found);
      if (overlap) {
        const [a, b] = overlap;
        throw validationError(
          'ranges',
          input.ranges,
          `The delinquency ranges' age days overlap: range ${a.id} and range ${b.id} share at least one day.`,
        );
      }
      const [created] = await tx
        .insert(delinquencyBuckets)
        .values({
          tenantId: input.tenantId,
          name: input.name,
          createdAt: deps.clock(),
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing()
        .returning({ id: delinquencyBuckets.id });
      if (!created) throw duplicated('name', input.name, 'delinquency bucket');
      await tx
        .insert(delinquencyBucketRanges)
        .values(input.ranges.map((rangeId) => ({ tenantId: input.tenantId, bucketId: created.id, rangeId })));
      return { bucketId: created.id };
    });
}
