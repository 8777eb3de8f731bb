/**
 * Request and response schemas of merchant advances (docs/processes.md P6 "Merchant advances"; docs/lending.md "Merchant advances", docs/lending.md "Lending core"). Bodies are strict (an unknown field is a 400). Money is
 * a decimal string (never a JSON number) with at most the currency's ISO 4217 minor-unit digits (the advance's
 * currency for sales and remittances, checked by the operation); `holdbackRate` a decimal string in (0, 1] with at
 * most 4 decimals; periods ISO calendar dates with `periodEnd ≥ periodStart` (one day DAILY, seven days WEEKLY:
 * checked by the operation against the advance's frequency). `sourceRef`, `externalRecordRef` and `reason` must not
 * carry an identifier or account number and are never echoed in an error.
 */
import * as v from 'valibot';
import { minorUnitDigits, parseDecimalToMinor } from '../../money';
import { isoDate } from '../../validation/dates';
import { currency, fitsCurrency, guardedText, positiveAmountPattern } from '../../validation/money';
import { refField } from '../../validation/refs';
import {
  holdbackRateBasisPoints,
  merchantRemittanceStatuses,
  remittanceFrequencies,
} from '../merchant-advance';

/** Body fields whose value an error must not repeat. */
export const redactedMerchantFields = ['sourceRef', 'externalRecordRef', 'reason'] as const;

const positiveId = v.pipe(
  v.number('must be an integer.'),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,12})(\.[0-9]+)?$/;

/** A decimal string named `name`, > 0 (or ≥ 0 when `allowZero`) and below 10^13. */
const decimalAmount = (name: string, allowZero = false) =>
  v.pipe(
    v.string(`${name} must be a decimal string such as "125.00".`),
    v.regex(
      AMOUNT_PATTERN,
      `${name} must be a decimal string such as "125.00" (no sign, exponent or separators, below 10000000000000).`,
    ),
    v.check((value) => allowZero || /[1-9]/.test(value), `${name} must be greater than zero.`),
    // The OpenAPI document's pattern holds "greater than zero" too (found by `npm run fuzz`).
    v.metadata({ pattern: allowZero ? AMOUNT_PATTERN.source : positiveAmountPattern }),
  );

/** Opaque id path segment (`mca_…`, `mrem_…`): letters, digits, `_` and `-`, 1–64 characters. */
const opaqueId = (name: string) =>
  v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, `${name} must be an opaque id such as mca_abc….`));

export const advanceIdParam = v.strictObject({ advanceId: opaqueId('advanceId') });
export const remittanceIdParam = v.strictObject({
  advanceId: opaqueId('advanceId'),
  remittanceId: opaqueId('remittanceId'),
});

const digitsMessage = (field: string) => (issue: { input: unknown }) => {
  const code = (issue.input as { currency: string }).currency;
  return `${field} has more fraction digits than ${code} allows (${minorUnitDigits(code)}).`;
};

/** `POST /v1/merchant-advances` body. */
export const createMerchantAdvanceBody = v.pipe(
  v.strictObject({
    customerId: positiveId,
    advanceAmount: decimalAmount('advanceAmount'),
    purchasedAmount: decimalAmount('purchasedAmount'),
    holdbackRate: v.pipe(
      v.string('holdbackRate must be a decimal string such as "0.1".'),
      v.check(
        (rate) => holdbackRateBasisPoints(rate) !== null,
        'holdbackRate must be a decimal string above 0 and at most 1 with at most 4 decimals (e.g. "0.1", "0.0825").',
      ),
    ),
    currency,
    remittanceFrequency: v.picklist(remittanceFrequencies, 'remittanceFrequency must be DAILY or WEEKLY.'),
  }),
  v.forward(
    v.partialCheck(
      [['advanceAmount'], ['currency']],
      (input) => fitsCurrency({ amount: input.advanceAmount, currency: input.currency }),
      digitsMessage('advanceAmount'),
    ),
    ['advanceAmount'],
  ),
  v.forward(
    v.partialCheck(
      [['purchasedAmount'], ['currency']],
      (input) => fitsCurrency({ amount: input.purchasedAmount, currency: input.currency }),
      digitsMessage('purchasedAmount'),
    ),
    ['purchasedAmount'],
  ),
  v.forward(
    v.partialCheck(
      [['advanceAmount'], ['purchasedAmount']],
      (input) => {
        // a malformed amount is reported on its own field; compare at a scale that holds both
        if (!AMOUNT_PATTERN.test(input.advanceAmount) || !AMOUNT_PATTERN.test(input.purchasedAmount))
          return true;
        const scale = Math.max(
          input.advanceAmount.split('.')[1]?.length ?? 0,
          input.purchasedAmount.split('.')[1]?.length ?? 0,
        );
        return (
          parseDecimalToMinor(input.purchasedAmount, scale) >= parseDecimalToMinor(input.advanceAmount, scale)
        );
      },
      'purchasedAmount must not be below advanceAmount.',
    ),
    ['purchasedAmount'],
  ),
);

/** `POST /v1/merchant-advances/{advanceId}/reported-sales` body. */
export const reportMerchantSalesBody = v.pipe(
  v.strictObject({
    periodStart: isoDate('periodStart'),
    periodEnd: isoDate('periodEnd'),
    amount: decimalAmount('amount', true),
    sourceRef: refField(128),
  }),
  v.forward(
    v.partialCheck(
      [['periodStart'], ['periodEnd']],
      (input) => input.periodEnd >= input.periodStart,
      'periodEnd must not be before periodStart.',
    ),
    ['periodEnd'],
  ),
);

/** `POST /v1/merchant-advances/{advanceId}/remittances/record-external` body. */
export const recordMerchantRemittanceBody = v.pipe(
  v.strictObject({
    periodStart: isoDate('periodStart'),
    periodEnd: isoDate('periodEnd'),
    amount: decimalAmount('amount'),
    /** Optional, as every other record-external body carries it: must be the advance's currency (else 400). */
    currency: v.optional(currency),
    externalRecordRef: refField(128),
    effectiveDate: isoDate('effectiveDate'),
  }),
  v.forward(
    v.partialCheck(
      [['periodStart'], ['periodEnd']],
      (input) => input.periodEnd >= input.periodStart,
      'periodEnd must not be before periodStart.',
    ),
    ['periodEnd'],
  ),
);

/** `POST /v1/merchant-advances/{advanceId}/remittances/{remittanceId}/return` body. */
export const returnMerchantRemittanceBody = v.strictObject({
  returnCode: v.pipe(
    v.string('returnCode must be a string.'),
    v.regex(
      /^[A-Z][A-Z0-9_]{0,15}$/,
      'returnCode must be a return code such as "R01" (upper-case, at most 16).',
    ),
  ),
  reason: guardedText('reason', 500),
});

const decimalText = v.pipe(v.string(), v.description('Decimal string with the currency’s digits.'));
const dateText = v.pipe(v.string(), v.description('ISO calendar date.'));
const instantText = v.pipe(v.string(), v.description('ISO 8601 instant (UTC).'));

export const merchantAdvanceResponse = v.object({
  advanceId: v.pipe(v.string(), v.description('Opaque id `mca_…`.')),
  customerId: v.number(),
  advanceAmount: decimalText,
  purchasedAmount: decimalText,
  holdbackRate: v.pipe(v.string(), v.description('Decimal string with 4 fraction digits in (0, 1].')),
  currency: v.string(),
  remittanceFrequency: v.picklist(remittanceFrequencies),
  status: v.picklist(['ACTIVE', 'PAID_OFF']),
  remittedAmount: decimalText,
  outstandingAmount: decimalText,
  fundedOnDate: dateText,
  createdAt: instantText,
});

export const merchantSalesReportResponse = v.object({
  advanceId: v.string(),
  periodStart: dateText,
  periodEnd: dateText,
  amount: decimalText,
  currency: v.string(),
  sourceRef: v.string(),
  calculatedRemittance: decimalText,
  reportedAt: instantText,
});

export const merchantRemittanceResponse = v.object({
  remittanceId: v.pipe(v.string(), v.description('Opaque id `mrem_…`.')),
  advanceId: v.string(),
  periodStart: dateText,
  periodEnd: dateText,
  amount: decimalText,
  currency: v.string(),
  effectiveDate: dateText,
  status: v.picklist(merchantRemittanceStatuses),
  returnCode: v.nullable(v.string()),
  returnReason: v.nullable(v.string()),
  returnedAt: v.nullable(instantText),
  createdAt: instantText,
});

/** The spec's merchant advance reconciliation (§ Resources). */
export const merchantAdvanceReconciliationResponse = v.object({
  advanceId: v.string(),
  status: v.picklist(['matched', 'unmatched']),
  periods: v.array(
    v.object({
      periodStart: dateText,
      periodEnd: dateText,
      reportedSales: decimalText,
      calculatedRemittance: decimalText,
      settledRemittance: decimalText,
      postedRemittance: decimalText,
      difference: decimalText,
    }),
  ),
});
