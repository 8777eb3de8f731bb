/**
 * Request and response schemas of the reconciliation-exception routes (docs/lending.md "Reconciliation exceptions"; docs/design.md §4 Paging; docs/processes.md P1 "Reconciliation exceptions"). Query objects are strict: an unknown
 * parameter → 400. `reason` is `guardedText`: never a government identifier or an account or card number.
 */
import * as v from 'valibot';
import { guardedText, integerId, limitParam, offsetParam } from '../../validation/fields';
import {
  reconciliationExceptionStatuses,
  reconciliationExceptionTypes,
  reconciliationResolutions,
  resolutionReasonLengthMax,
} from '../reconciliation-exceptions';

const status = v.picklist(reconciliationExceptionStatuses);
const exceptionType = v.picklist(reconciliationExceptionTypes);
const timestamp = v.pipe(v.string(), v.isoTimestamp());

/** The export's filters: `status` (`open` | `resolved`) and `exceptionType`, both optional. */
export const exportReconciliationExceptionsQuery = v.strictObject({
  status: v.optional(status),
  exceptionType: v.optional(exceptionType),
});

/** The list's filters plus `limit` (1–200, default 50) and `offset` (≥ 0, default 0) (docs/design.md §4 Paging). */
export const listReconciliationExceptionsQuery = v.strictObject({
  status: v.optional(status),
  exceptionType: v.optional(exceptionType),
  limit: limitParam,
  offset: offsetParam,
});

export const exceptionIdParam = v.strictObject({ exceptionId: integerId('exceptionId') });

/** `POST …/{exceptionId}/resolve`: the decision and why (1–2000 characters). */
export const resolveReconciliationExceptionBody = v.strictObject({
  resolution: v.picklist(reconciliationResolutions),
  reason: guardedText(resolutionReasonLengthMax),
});

/**
 * One exception (docs/lending.md "Reconciliation exceptions"): `exceptionId`, `exceptionType`, `targetType`, `targetRef`,
 * `status`, `detail` (with `providerRef`; all values strings), `createdAt`, `lastSeenAt`; once resolved also
 * `resolution`, `resolutionReason`, `resolvedBy`, `resolvedAt`.
 */
export const reconciliationExceptionResponse = v.object({
  exceptionId: v.number(),
  exceptionType,
  targetType: v.string(),
  targetRef: v.string(),
  status,
  detail: v.objectWithRest({ providerRef: v.string() }, v.string()),
  createdAt: timestamp,
  lastSeenAt: timestamp,
  resolution: v.optional(v.picklist(reconciliationResolutions)),
  resolutionReason: v.optional(v.string()),
  resolvedBy: v.optional(v.string()),
  resolvedAt: v.optional(timestamp),
});

export const reconciliationExceptionListResponse = v.object({
  items: v.array(reconciliationExceptionResponse),
});
