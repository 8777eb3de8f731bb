/**
 * The body schema of each boarding line kind (docs/migrating.md "Portfolio boarding"; `POST /v1/boarding/batches`
 * of the OpenAPI document): the public route's own valibot input schema
 * (domain/<context>/schemas/*, which the routes use too: reused, never copied) with source refs in place of ids:
 * - `charge`: `POST /v1/charges`;
 * - `loanProduct`: `POST /v1/loanproducts` with `chargeSourceRefs: [<charge sourceRef>…]` in place of `charges`
 *   and `nsfChargeSourceRef` (a charge line's sourceRef) in place of `nsfChargeId`;
 * - `customer`: `POST /v1/customers` plus optional `identifiers`, `consents`, `paymentInstruments` (the bodies of
 *   those sub-routes; an instrument may carry its own `sourceRef`, unique within its customer);
 * - `restriction`: `customerSourceRef` plus `POST /v1/customers/{id}/restrictions` without `loanId` (restrictions
 *   board before loans, so a loan-scoped hold cannot name its loan);
 * - `loan`: `POST /v1/loans` with `customerSourceRef`, `productSourceRef` in place of `clientId`, `productId`,
 *   `charges: [{chargeSourceRef, amount?, dueDate?}]`, and optional `approval` (the approve command's body);
 * - `funding` / `payment`: `loanSourceRef` plus the record-external body, `externalRecordRef` optional (default the
 *   line's `sourceRef`); a payment's `source` defaults to `IMPORT`;
 * - `verification`: `customerSourceRef`, `instrumentSourceRef` plus the verify body.
 * `externalId` of customers and loans defaults to the line's `sourceRef` (applied when boarding).
 *
 * `lineErrorOf` turns valibot issues into the route's Shape A 400 (domain/validation/fields.ts `issuesToError`), each
 * `parameterName` prefixed with `body.`, the values of fields that may hold sensitive data withheld.
 */
import * as v from 'valibot';
import type { BoardingKind } from '../../domain/boarding/batch';
import {
  applyRestrictionBody,
  createConsentBody,
  createCustomerBody,
  createIdentifierBody,
  createInstrumentBody,
  verifyInstrumentBody,
} from '../../domain/customers/schemas/customers';
import { DomainError, type FieldError, fieldError } from '../../domain/errors';
import { recordFundingBody } from '../../domain/lending/schemas/fundings';
import { approveLoanBody, createLoanBody, loanChargeBody } from '../../domain/lending/schemas/loans';
import { createChargeBody, createLoanProductBody } from '../../domain/lending/schemas/products';
import { recordPaymentBody } from '../../domain/payments/schemas/recorded-payments';
import { noSensitiveData } from '../../domain/sensitive-data';
import { loanDatesInRange } from '../../domain/validation/dates';
import { issuesToError } from '../../domain/validation/fields';
import { fitsCurrency, fitsCurrencyMessage } from '../../domain/validation/money';

/** A source ref inside a body: 1–128 characters, never an identifier or account number. */
const sourceRef = v.pipe(
  v.string('must be a string.'),
  v.minLength(1, 'must not be empty.'),
  v.maxLength(128, 'must be at most 128 characters.'),
  noSensitiveData(),
);

const {
  charges: _productCharges,
  nsfChargeId: _nsfChargeId,
  ...productEntries
} = createLoanProductBody.entries;
const loanEntries = createLoanBody.pipe[0].entries;
const { clientId: _clientId, productId: _productId, charges: _loanCharges, ...loanRest } = loanEntries;
const { loanId: _restrictionLoanId, ...restrictionEntries } = applyRestrictionBody.entries;
const fundingEntries = recordFundingBody.pipe[0].entries;
const paymentEntries = recordPaymentBody.pipe[0].entries;

/** Body schema per kind (module note). */
export const boardingBodySchemas = {
  charge: createChargeBody,
  loanProduct: v.strictObject({
    ...productEntries,
    chargeSourceRefs: v.optional(v.pipe(v.array(sourceRef), v.maxLength(50, 'at most 50 charges.')), []),
    nsfChargeSourceRef: v.optional(sourceRef),
  }),
  customer: v.strictObject({
    ...createCustomerBody.entries,
    identifiers: v.optional(
      v.pipe(v.array(createIdentifierBody), v.maxLength(10, 'at most 10 identifiers.')),
      [],
    ),
    consents: v.optional(v.pipe(v.array(createConsentBody), v.maxLength(50, 'at most 50 consents.')), []),
    paymentInstruments: v.optional(
      v.pipe(
        v.array(v.strictObject({ ...createInstrumentBody.entries, sourceRef: v.optional(sourceRef) })),
        v.maxLength(20, 'at most 20 payment instruments.'),
      ),
      [],
    ),
  }),
  restriction: v.strictObject({ ...restrictionEntries, customerSourceRef: sourceRef }),
  loan: v.pipe(
    v.strictObject({
      ...loanRest,
      customerSourceRef: sourceRef,
      productSourceRef: sourceRef,
      charges: v.nullish(
        v.pipe(
          v.array(
            v.strictObject({
              chargeSourceRef: sourceRef,
              amount: loanChargeBody.entries.amount,
              dueDate: loanChargeBody.entries.dueDate,
            }),
          ),
          v.maxLength(50, 'at most 50 charges.'),
        ),
      ),
      approval: v.optional(approveLoanBody),
    }),
    loanDatesInRange({
      fields: ['expectedDisbursementDate', 'submittedOnDate', 'repaymentsStartingFromDate'],
      items: { charges: ['dueDate'] },
    }),
  ),
  funding: v.pipe(
    v.strictObject({
      ...fundingEntries,
      externalRecordRef: v.optional(fundingEntries.externalRecordRef),
      loanSourceRef: sourceRef,
    }),
    v.forward(v.partialCheck([['amount'], ['currency']], fitsCurrency, fitsCurrencyMessage), ['amount']),
  ),
  payment: v.pipe(
    v.strictObject({
      ...paymentEntries,
      externalRecordRef: v.optional(paymentEntries.externalRecordRef),
      source: v.optional(paymentEntries.source, 'IMPORT'),
      loanSourceRef: sourceRef,
    }),
    v.forward(v.partialCheck([['amount'], ['currency']], fitsCurrency, fitsCurrencyMessage), ['amount']),
  ),
  verification: v.strictObject({
    ...verifyInstrumentBody.entries,
    customerSourceRef: sourceRef,
    instrumentSourceRef: sourceRef,
  }),
} satisfies Record<BoardingKind, v.GenericSchema>;

export type BoardingBody<K extends BoardingKind> = v.InferOutput<(typeof boardingBodySchemas)[K]>;

/** Leaf field names whose value is never echoed in a line's error (identifiers, tokens, references, free text). */
const withheldFields = new Set([
  'value',
  'externalId',
  'providerTokenRef',
  'externalRecordRef',
  'recipientRef',
  'reason',
  'rationale',
  'evidenceRef',
  'lastFour',
]);

function leafOf(parameterName: string): string {
  const last = parameterName.split('.').at(-1) ?? parameterName;
  return last.replace(/\[\d+\]$/, '');
}

/** `fieldError` with `body.` before its parameter name, its value withheld for the fields above. */
export function bodyFieldError(error: FieldError): FieldError {
  const parameterName = `body.${error.parameterName}`;
  if (!withheldFields.has(leafOf(error.parameterName)) || error.value === null) {
    return { ...error, parameterName };
  }
  const hidden = String(error.value);
  const scrub = (text: string) => (hidden.trim() === '' ? text : text.split(hidden).join('[withheld]'));
  return {
    ...error,
    parameterName,
    value: null,
    defaultUserMessage: scrub(error.defaultUserMessage),
    developerMessage: scrub(error.developerMessage),
  };
}

/** A DomainError whose field errors name body fields (`body.` prefix, withheld values as above). */
export function asBodyError(err: DomainError): DomainError {
  if (err.errors.length === 0) return err;
  const errors = err.errors.map(bodyFieldError);
  return new DomainError(err.code, errors.map((e) => e.developerMessage).join(' '), { errors });
}

/**
 * Parses a line's body with its kind's schema: the output (transformed as the route would pass it on), or the
 * route's 400 `validation.msg.validation.errors.exist` naming each bad field as `body.<path>`.
 */
export function parseLineBody<K extends BoardingKind>(
  kind: K,
  body: unknown,
): { ok: true; value: BoardingBody<K> } | { ok: false; error: DomainError } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const message = 'body must be a JSON object.';
    return {
      ok: false,
      error: new DomainError('validation.msg.validation.errors.exist', message, {
        errors: [fieldError('body', null, message)],
      }),
    };
  }
  const result = v.safeParse(boardingBodySchemas[kind] as v.GenericSchema, body);
  if (result.success) return { ok: true, value: result.output as BoardingBody<K> };
  // valibot's issue paths are Standard Schema paths (object keys and array indexes): the route's converter reads them.
  const issues = result.issues as unknown as Parameters<typeof issuesToError>[1];
  return { ok: false, error: asBodyError(issuesToError('json', issues, body)) };
}

/** A 400 on one body field (`body.<name>`), for the cross-reference checks. */
export function bodyReferenceError(name: string, value: unknown, message: string): DomainError {
  const error = fieldError(`body.${name}`, value, message);
  return new DomainError('validation.msg.validation.errors.exist', message, { errors: [error] });
}
