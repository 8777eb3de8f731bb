/**
 * Reconciliation exceptions: the closed value sets and the shape of their `detail` (docs/lending.md "Reconciliation exceptions"; docs/processes.md P1 "Reconciliation exceptions"). Pure: valibot only.
 *
 * - `SETTLED_NOT_POSTED`: the rail settled a payment intent the workflow could not post automatically
 *   (settled amount differs from the intent, the loan no longer takes the payment, posting failed for good);
 *   the workflow waits for an operator's resolution.
 * - `UNMATCHED_SETTLEMENT`, `POSTED_NOT_SETTLED`, `RETURN_NOT_REVERSED`: found by the daily reconciliation of
 *   the rail's settlement report against intents and the ledger.
 *
 * Statuses are lower case as the spec shows them (`open`, then `resolved`). At most one exception per
 * (exception type, target) is open at a time; a recurrence moves its `lastSeenAt`.
 */
import * as v from 'valibot';
import { maxChars, minChars } from '../validation/text-length';

/** Every exception type (docs/processes.md P1). */
export const reconciliationExceptionTypes = [
  'SETTLED_NOT_POSTED',
  'UNMATCHED_SETTLEMENT',
  'POSTED_NOT_SETTLED',
  'RETURN_NOT_REVERSED',
] as const;
export type ReconciliationExceptionType = (typeof reconciliationExceptionTypes)[number];

/** `open` until an operator resolves it, then `resolved` (docs/lending.md "Reconciliation exceptions": "reconciliation exception status open"). */
export const reconciliationExceptionStatuses = ['open', 'resolved'] as const;
export type ReconciliationExceptionStatus = (typeof reconciliationExceptionStatuses)[number];

/**
 * An operator's decision on an exception (docs/processes.md P1): post the settled amount, post the intent's
 * amount, refund the borrower, or dismiss it (nothing to do).
 */
export const reconciliationResolutions = [
  'POST_AS_SETTLED',
  'POST_INTENT_AMOUNT',
  'REFUND_BORROWER',
  'DISMISS',
] as const;
export type ReconciliationResolution = (typeof reconciliationResolutions)[number];

/** Longest `reason` of a resolution, in characters (the limit of the other operator reasons, e.g. a hold's release). */
export const resolutionReasonLengthMax = 2000;

/**
 * `targetType`: what the exception is about, upper snake case (e.g. `PAYMENT_INTENT`, whose `targetRef` is the
 * paymentId as text). An open set: the daily reconciliation may name other targets (a settlement-report line).
 */
export const targetTypeSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'targetType must be upper snake case, 1–64 characters.'),
);

/** `targetRef`: the target's reference as text, 1–128 visible ASCII characters. */
export const targetRefSchema = v.pipe(
  v.string(),
  v.regex(/^[\x21-\x7e]{1,128}$/, 'targetRef must be 1–128 visible ASCII characters.'),
);

/**
 * `detail`: what the system saw, every value a string (amounts as decimal strings, e.g. `settledAmount`
 * `"99.50"`). `providerRef` (the rail's reference of the money movement) is always present (spec: "key seen
 * providerRef"); other keys are camelCase, at most 16 of them, each value at most 1000 characters. The values come
 * from the workflow and the rail, never from an operator's free text.
 */
export const reconciliationDetailSchema = v.pipe(
  v.objectWithRest(
    {
      providerRef: v.pipe(
        v.string(),
        ...minChars(1, 'must not be empty.'),
        ...maxChars(1000, 'must be at most 1000 characters.'),
      ),
    },
    v.pipe(v.string(), ...maxChars(1000, 'must be at most 1000 characters.')),
  ),
  v.check(
    (detail) => Object.keys(detail).every((key) => /^[a-z][A-Za-z0-9]{0,63}$/.test(key)),
    'detail keys must be camelCase, 1–64 characters.',
  ),
  v.check((detail) => Object.keys(detail).length <= 16, 'detail holds at most 16 keys.'),
);
export type ReconciliationDetail = { providerRef: string } & Record<string, string>;
