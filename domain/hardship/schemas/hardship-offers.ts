/**
 * Request and response schemas of hardship offers (docs/processes.md P5 third bullet). The body is
 * strict (an unknown field is a 400). `requestedRelief` is `{reliefType, params}` with the parameters of that
 * relief type (domain/hardship/relief.ts): counts and basis points as JSON integers, dates as ISO calendar dates,
 * money as decimal strings of minor units of the loan's currency (`…Minor`, e.g. `"2500"` = 25.00 USD). Whether
 * the values make sense (a positive count, a reduced rate below the current one, …) is checked by the relief's
 * own rules (400 naming `requestedRelief.params.<name>`).
 */
import * as v from 'valibot';
import { makerCheckerPolicies } from '../../maker-checker';
import { isoDate } from '../../validation/dates';
import { integerId } from '../../validation/fields';
import { instantText } from '../../validation/money';
import { hardshipOfferDecisions, hardshipOfferStatuses } from '../offer';
import { reliefTypes } from '../relief';

const id = v.pipe(
  v.number(),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);
const integer = v.pipe(
  v.number(),
  v.integer('must be an integer.'),
  v.minValue(-1_000_000_000),
  v.maxValue(1_000_000_000),
);
const minor = v.pipe(
  v.string(),
  v.regex(/^(0|[1-9][0-9]{0,17})$/, 'must be a decimal string of minor units (digits only, at most 18).'),
);
const code = v.pipe(
  v.string(),
  v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be 1–64 of A–Z 0–9 _ starting with a letter.'),
);

const reliefVariant = v.variant(
  'reliefType',
  [
    v.strictObject({
      reliefType: v.literal('PAYMENT_DEFERRAL'),
      params: v.strictObject({ installmentCount: integer }),
    }),
    v.strictObject({
      reliefType: v.literal('FORBEARANCE'),
      params: v.strictObject({ installmentCount: integer, paymentReductionBasisPoints: integer }),
    }),
    v.strictObject({
      reliefType: v.literal('REDUCED_PAYMENT'),
      params: v.strictObject({ installmentCount: integer, reducedPaymentMinor: minor }),
    }),
    v.strictObject({
      reliefType: v.literal('FEE_WAIVER'),
      params: v.strictObject({
        fromDate: isoDate('fromDate'),
        toDate: isoDate('toDate'),
        maximumWaiverMinor: minor,
      }),
    }),
    v.strictObject({
      reliefType: v.literal('RATE_REDUCTION'),
      params: v.strictObject({ currentRateBasisPoints: integer, reducedRateBasisPoints: integer }),
    }),
    v.strictObject({
      reliefType: v.literal('PRINCIPAL_FORGIVENESS'),
      params: v.strictObject({ amountMinor: minor }),
    }),
  ],
  `reliefType must be one of ${reliefTypes.join(', ')}.`,
);

/** `POST /v1/servicing/hardship-offers` body. */
export const createHardshipOfferBody = v.strictObject({
  caseId: id,
  loanId: id,
  programCode: code,
  hardshipReasonCode: code,
  requestedRelief: reliefVariant,
});

export const offerIdParam = v.strictObject({ offerId: integerId('offerId') });

/** `POST /v1/servicing/hardship-offers` answer. */
export const createdHardshipOfferResponse = v.object({
  offerId: v.number(),
  status: v.picklist(hardshipOfferStatuses),
});

const reason = v.object({ code: v.string(), message: v.string() });

/** `GET /v1/servicing/hardship-offers/{offerId}` and the decision answers. */
export const hardshipOfferResponse = v.object({
  offerId: v.number(),
  caseId: v.number(),
  loanId: v.number(),
  programCode: v.string(),
  programVersion: v.number(),
  guardrailsVersion: v.number(),
  hardshipReasonCode: v.string(),
  requestedRelief: v.object({
    reliefType: v.picklist(reliefTypes),
    params: v.record(v.string(), v.union([v.string(), v.number()])),
  }),
  status: v.picklist(hardshipOfferStatuses),
  reliefSize: v.nullable(
    v.pipe(
      v.number(),
      v.description('Size of the relief in its unit: installments, whole currency units or basis points.'),
    ),
  ),
  reasons: v.array(reason),
  createdBy: v.pipe(v.string(), v.description('The maker: Service-Actor of the create request.')),
  createdByClientId: v.pipe(
    v.nullable(v.string()),
    v.description(
      "The maker's OAuth client id (whose token created the offer); null for offers made before it was recorded.",
    ),
  ),
  timers: v.object({ offerExpiresAt: v.nullable(instantText), documentsDueAt: v.nullable(instantText) }),
  decisions: v.array(
    v.object({
      actor: v.pipe(v.string(), v.description("The checker's Service-Actor.")),
      clientId: v.pipe(
        v.nullable(v.string()),
        v.description("The checker's OAuth client id; null on decisions recorded before it was kept."),
      ),
      makerActor: v.pipe(
        v.nullable(v.string()),
        v.description("The maker's Service-Actor the decision was checked against; null before it was kept."),
      ),
      makerClientId: v.pipe(
        v.nullable(v.string()),
        v.description(
          "The maker's OAuth client id the decision was checked against; null before it was kept.",
        ),
      ),
      makerCheckerPolicy: v.pipe(
        v.nullable(v.picklist(makerCheckerPolicies)),
        v.description(
          "The tenant's maker-checker policy at the decision: distinct-client (the checker is another client and another actor) or same-client-distinct-actor; null before it was kept.",
        ),
      ),
      decision: v.picklist(hardshipOfferDecisions),
      policyVersion: v.pipe(
        v.number(),
        v.description('The guardrails version the decision was taken under.'),
      ),
      requestHash: v.pipe(v.string(), v.description('Hex SHA-256 of the RFC 8785 canonical offer terms.')),
      decidedAt: instantText,
    }),
  ),
  acceptance: v.pipe(
    v.nullable(
      v.object({
        acceptedAt: instantText,
        acceptedBy: v.pipe(
          v.nullable(v.string()),
          v.description('Service-Actor of the accept request, if any.'),
        ),
      }),
    ),
    v.description("The borrower's acceptance; null before it."),
  ),
  application: v.pipe(
    v.nullable(
      v.object({
        appliedAt: instantText,
        scheduleVersion: v.pipe(v.number(), v.description("The loan's schedule version the relief created.")),
        evidenceId: v.pipe(
          v.nullable(v.number()),
          v.description('The evidence the process confirmed, if any.'),
        ),
        installmentCountBefore: v.number(),
        installmentCountAfter: v.number(),
        totalDueBefore: v.pipe(
          v.string(),
          v.description('Minor units: every installment due, all components.'),
        ),
        totalDueAfter: v.pipe(v.string(), v.description('Minor units, after the relief.')),
      }),
    ),
    v.description('What applying the relief did; null until APPLIED.'),
  ),
  createdAt: instantText,
});
