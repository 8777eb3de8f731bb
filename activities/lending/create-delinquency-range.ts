import { and, eq } from 'drizzle-orm';
import { caseTypes, delinquencyRanges } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { referenceNotFound, validationError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { duplicated } from './delinquency-errors';

export interface CreateDelinquencyRangeInput extends OperationContext {
  classification: string;
  /** Whole days, ≥ 0. */
  minimumAgeDays: number;
  /** Whole days ≥ `minimumAgeDays`, or null for no upper bound. */
  maximumAgeDays: number | null;
  /** A case type of the tenant that entering this range opens a collections case of. */
  collectionsCaseTypeCode?: string | undefined;
}

export interface CreateDelinquencyRangeResult {
  rangeId: number;
}

/**
 * Defines a delinquency range (Apache Fineract `DelinquencyWritePlatformServiceImpl.createDelinquencyRange`;
 * `POST /v1/delinquency/ranges`): `minimumAgeDays` to `maximumAgeDays` delinquent days, inclusive.
 * Idempotent by `requestKey`: a retry returns the range the first call defined.
 * Errors (400 Shape A, nothing stored): `maximumAgeDays` below `minimumAgeDays` (Fineract
 * `DelinquencyRangeInvalidAgesException`); a `classification` the tenant already has (field code
 * `error.msg.data.integrity.issue.entity.duplicated`, Fineract's); 404 naming `collectionsCaseTypeCode` when the
 * tenant has no such case type.
 */
export function createDelinquencyRange(deps: Deps) {
  return async (input: CreateDelinquencyRangeInput): Promise<CreateDelinquencyRangeResult> => {
    if (input.maximumAgeDays !== null && input.maximumAgeDays < input.minimumAgeDays) {
      throw validationError(
        'maximumAgeDays',
        input.maximumAgeDays,
        "The age days values are invalid: maximumAgeDays can't be lower than minimumAgeDays.",
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [replayed] = await tx
          .select({ id: delinquencyRanges.id })
          .from(delinquencyRanges)
          .where(
            and(
              eq(delinquencyRanges.tenantId, input.tenantId),
              eq(delinquencyRanges.requestKey, input.requestKey),
            ),
          );
        if (replayed) return { rangeId: replayed.id };
      }
      if (input.collectionsCaseTypeCode !== undefined) {
        const [caseType] = await tx
          .select({ code: caseTypes.code })
          .from(caseTypes)
          .where(
            and(eq(caseTypes.tenantId, input.tenantId), eq(caseTypes.code, input.collectionsCaseTypeCode)),
          );
        if (!caseType)
          throw referenceNotFound('collectionsCaseTypeCode', input.collectionsCaseTypeCode, 'Case type');
      }
      const [created] = await tx
        .insert(delinquencyRanges)
        .values({
          tenantId: input.tenantId,
          classification: input.classification,
          minimumAgeDays: input.minimumAgeDays,
          maximumAgeDays: input.maximumAgeDays,
          collectionsCaseTypeCode: input.collectionsCaseTypeCode ?? null,
          createdAt: deps.clock(),
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing()
        .returning({ id: delinquencyRanges.id });
      if (created) return { rangeId: created.id };
      // The classification is taken (a request-key race is answered by the replay check above on retry).
      throw duplicated('classification', input.classification, 'delinquency range');
    });
  };
}
