/**
 * The typed event catalogue (docs/integrating.md "Webhooks"; docs/design.md §5 Webhooks; docs/processes.md P0 "Typed event
 * catalogue"): every event type the service emits, its subject type and the exact schema of its
 * `data`, plus the envelope every delivery carries. The outbox writer
 * (`activities/platform/outbox.ts`) accepts only these types and checks `data` against the schema
 * here; `GET /v1/openapi.json` documents each one under OpenAPI 3.1 `webhooks`.
 *
 * Event types are `<resource>.<past tense>` (docs/design.md §5). `data` is a snapshot taken in the
 * transaction that made the change: integers are the spec's integer ids, money is a decimal
 * string with the currency's digits, dates are ISO calendar dates (`YYYY-MM-DD`), instants ISO
 * 8601 timestamps in UTC (`…Z`). Pure: valibot only.
 */
import * as v from 'valibot';
import { finalBoardingBatchStatuses } from './boarding/batch';
import { restrictionTypes } from './customers/customer';
import { initialHardshipOfferStatuses } from './hardship/offer';
import { reliefTypes } from './hardship/relief';
import { loanPartyRoles } from './lending/loan-parties';
import {
  reconciliationExceptionTypes,
  reconciliationResolutions,
} from './payments/reconciliation-exceptions';
import { contactConsentOperations } from './servicing/contact-consent';
import { promiseChannels } from './servicing/promise';

/** Version (a date, `YYYY-MM-DD`) of the envelope and payloads this build writes (docs/integrating.md "Webhooks"). */
export const eventApiVersion = '2026-11-01';

const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const decimal = v.pipe(
  v.string(),
  v.regex(/^-?[0-9]+(\.[0-9]+)?$/, 'must be a decimal string'),
  v.description('Decimal string with the currency’s minor-unit digits, e.g. `125.00`.'),
);
const currency = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/), v.description('ISO 4217 code.'));
const percent = v.pipe(
  v.string(),
  v.regex(/^[0-9]+(\.[0-9]+)?$/, 'must be a decimal string'),
  v.description('Percent a year, decimal string, e.g. `12.68`.'),
);
/**
 * The catalogue's money and currency schemas: every money field of every event's `data` is `moneySchema` (a
 * decimal string with the currency's digits, never minor units nor a number), and a `data` with money carries
 * `currency` (`currencySchema`) — checked over the whole catalogue by test/unit/events.test.ts.
 */
export const moneySchema = decimal;
export const currencySchema = currency;
const date = v.pipe(v.string(), v.isoDate(), v.description('ISO calendar date `YYYY-MM-DD`.'));
const instant = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601 instant in UTC.'));
const code = v.pipe(v.string(), v.minLength(1));

/** One catalogue entry: the subject the event is about, what it means, and the exact `data`. */
export interface EventDefinition<S extends v.GenericSchema = v.GenericSchema> {
  /** `subject.type` of the envelope; `subject.id` is that resource's id as text. */
  subjectType: string;
  description: string;
  data: S;
}

function event<S extends v.GenericSchema>(
  subjectType: string,
  description: string,
  data: S,
): EventDefinition<S> {
  return { subjectType, description, data };
}

/** `data` of the events that resolve a promise (`promise.kept`, `promise.partially.kept`, `promise.broken`). */
function promiseResolution<S extends 'KEPT' | 'PARTIALLY_KEPT' | 'BROKEN'>(status: S) {
  return v.strictObject({
    promiseId: id,
    caseId: id,
    loanId: id,
    status: v.literal(status),
    amount: decimal,
    /** Sum of the loan's POSTED payments value-dated in the promise's window (decimal string). */
    paidAmount: decimal,
    currency,
    promisedDate: date,
    resolvedAt: instant,
  });
}

/** The fields every hardship offer step event starts with. */
const hardshipOfferBase = {
  offerId: id,
  caseId: id,
  loanId: id,
  programCode: code,
  programVersion: id,
};

/** `data` of the checker's decisions on a hardship offer (`hardship.offer.approved`, `hardship.offer.rejected`). */
function hardshipOfferDecision<S extends 'APPROVED' | 'REJECTED'>(status: S) {
  return v.strictObject({
    offerId: id,
    caseId: id,
    loanId: id,
    programCode: code,
    programVersion: id,
    status: v.literal(status),
    /** The checker's `Service-Actor`. */
    decidedBy: code,
    /** The guardrails version the decision was taken under. */
    policyVersion: id,
    /** Hex SHA-256 of the RFC 8785 canonical offer terms decided on. */
    requestHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
    decidedAt: instant,
    /** APPROVED: when the approved offer expires; REJECTED: null. */
    offerExpiresAt: v.nullable(instant),
  });
}

/** Lines of one kind of a boarding batch: in the batch, boarded, failed (domain/boarding/batch.ts). */
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const boardingKindCount = v.strictObject({ total: count, boarded: count, failed: count });

/** Every event type the service emits today, in `<resource>.<past tense>` form. */
export const eventCatalogue = {
  'case.transitioned': event(
    'case',
    'A servicing case moved from one status to another (today: closed).',
    v.strictObject({
      caseId: id,
      fromStatus: code,
      toStatus: code,
      /** The case's outcome code at the transition (e.g. `PROMISE_KEPT`). */
      outcomeCode: code,
    }),
  ),
  'customer.created': event(
    'customer',
    'A customer was created.',
    v.strictObject({
      customerId: id,
      /** The customer's opaque reference `cus_…` (docs/processes.md P4 "Refs"). */
      customerRef: v.string(),
      /** The integrator's source key, or null. */
      externalId: v.nullable(v.string()),
    }),
  ),
  'contact.consent.updated': event(
    'contact_consent_update',
    'A contact-consent update took effect: one permission (SMS, e-mail or voice) of a contact point was set, at once or when its scheduled effectiveAt came (docs/processes.md P4). The contact value itself is never carried.',
    v.strictObject({
      customerRef: v.string(),
      contactPointRef: v.string(),
      operation: v.picklist(contactConsentOperations),
      /** The value the permission took (true: may be contacted on that channel). */
      permission: v.boolean(),
      effectiveAt: instant,
      /** The case the update was recorded on. */
      caseId: id,
    }),
  ),
  'restriction.applied': event(
    'restriction',
    'A restriction (hold) was applied to a customer, optionally scoped to one loan.',
    v.strictObject({
      restrictionId: id,
      customerId: id,
      loanId: v.nullable(id),
      restrictionType: v.picklist(restrictionTypes),
      effectiveAt: instant,
      expiresAt: v.nullable(instant),
    }),
  ),
  'restriction.released': event(
    'restriction',
    'An active restriction (hold) was released.',
    v.strictObject({
      restrictionId: id,
      customerId: id,
      loanId: v.nullable(id),
      restrictionType: v.picklist(restrictionTypes),
      releasedAt: instant,
    }),
  ),
  'loan.submitted': event(
    'loan',
    'A loan application was submitted (the loan exists in status SUBMITTED).',
    v.strictObject({
      loanId: id,
      /** The loan's `accountNo`. */
      loanRef: v.string(),
      clientId: id,
      productId: id,
      status: v.literal('SUBMITTED'),
      principal: decimal,
      currency,
      submittedOnDate: date,
      expectedDisbursementDate: date,
    }),
  ),
  'loan.approved': event(
    'loan',
    'A submitted loan was approved; its APR disclosure is finalized.',
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      clientId: id,
      status: v.literal('APPROVED'),
      approvedOnDate: date,
      approvedPrincipal: decimal,
      currency,
      expectedDisbursementDate: date,
      /** Disclosed APR in percent (2 decimals), or null when no disclosure applies. */
      annualPercentageRate: v.nullable(percent),
    }),
  ),
  'loan.party.added': event(
    'loan',
    'A customer other than the borrower was added to a loan as a party.',
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      partyId: id,
      customerId: id,
      role: v.picklist(loanPartyRoles),
    }),
  ),
  'loan.charge.added': event(
    'loan',
    'A specified-due-date charge was added to an active loan (Fineract LoanCharge); it is due on its installment with `dueDate`.',
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      /** The loan charge (`GET /v1/loans/{loanId}/charges/{loanChargeId}`). */
      loanChargeId: id,
      /** The charge definition. */
      chargeId: id,
      amount: decimal,
      currency,
      dueDate: date,
      /** FEE or PENALTY (Fineract `LoanCharge.penalty`). */
      chargeType: v.picklist(['FEE', 'PENALTY']),
      /** The installment it landed on (an additional one past the schedule's end when due after it). */
      installmentNumber: id,
    }),
  ),
  'loan.charge.waived': event(
    'loan',
    'What was still owed of a loan charge was waived (Fineract WAIVE_CHARGES): the borrower no longer owes it.',
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      loanChargeId: id,
      chargeId: id,
      /** The amount waived: the charge's outstanding amount when waived. */
      amountWaived: decimal,
      currency,
      waivedOnDate: date,
    }),
  ),
  'loan.chargeoff.posted': event(
    'loan',
    'A loan was charged off (Fineract CHARGE_OFF, transaction type 27): everything outstanding on its schedule recorded as charged off, its principal booked as a credit loss; the loan stays ACTIVE and later payments are recoveries.',
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      /** The charge-off transaction (`transactions[].id` of the loan read, type 27). */
      transactionId: id,
      transactionDate: date,
      reason: v.string(),
      /** True when the close of business charged it off (the product's chargeOffDaysPastDue), false for the command. */
      automatic: v.boolean(),
      amount: decimal,
      principalPortion: decimal,
      interestPortion: decimal,
      feeChargesPortion: decimal,
      penaltyChargesPortion: decimal,
      currency,
    }),
  ),
  'loan.chargeoff.reversed': event(
    'loan',
    'A charge-off was undone (Fineract undo-charge-off): its transaction and journal entries reversed, the loan no longer charged off.',
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      transactionId: id,
      transactionDate: date,
      amount: decimal,
      currency,
      /** ISO date of the undo: the tenant's business date. */
      reversedOnDate: date,
    }),
  ),
  'loan.penalty.assessed': event(
    'loan',
    "Close of business assessed an overdue-installment penalty (Fineract chargeTimeType 9, ApplyChargeToOverdueLoans) on an installment overdue past the tenant's penalty wait period; it is dated the installment's due date.",
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      /** The loan charge row (`GET /v1/loans/{loanId}/charges/{loanChargeId}`). */
      loanChargeId: id,
      /** The overdue charge definition of the product. */
      chargeId: id,
      installmentNumber: v.pipe(v.number(), v.integer(), v.minValue(1)),
      /** ISO date: the installment's due date. */
      dueDate: date,
      amount: decimal,
      currency,
      /** ISO date D of the day the close-of-business run closed. */
      businessDate: date,
    }),
  ),
  'loan.delinquency.changed': event(
    'loan',
    "A new delinquency classification was stored for a loan (Fineract SetLoanDelinquencyTags): by close of business, its delinquent days as of the day after businessDate fell in another range of its bucket, or in none (NO_DELINQUENCY); or by a money operation (payment, return, charge, waiver, charge-off, relief) that changed what is overdue as of the loan's business date businessDate (the day after its last closed day).",
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      /**
       * ISO date: D of the day the run closed (the figures are as of D + 1), or, set by a money operation, the
       * loan's business date (its last closed day + 1, the figures as of that day).
       */
      businessDate: date,
      previousClassification: code,
      classification: code,
      pastDueDays: count,
      delinquentDays: count,
      delinquentAmount: decimal,
      currency,
    }),
  ),
  'loan.repayment.due': event(
    'loan',
    "An installment falls due in the tenant's dueDaysForRepaymentEvent days (Fineract CheckLoanRepaymentDue); sent by the close of business of noticeDate.",
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      installmentNumber: v.pipe(v.number(), v.integer(), v.minValue(1)),
      /** ISO date the installment is due. */
      dueDate: date,
      /** What the installment still owes (principal, interest, fees, penalties). */
      amountDue: decimal,
      currency,
      /** ISO date: the day the notice belongs to (dueDate − dueDaysForRepaymentEvent). */
      noticeDate: date,
    }),
  ),
  'loan.repayment.overdue': event(
    'loan',
    'An installment is still unpaid overdueDaysForRepaymentEvent days after its due date (Fineract CheckLoanRepaymentOverdue); sent by the close of business of noticeDate.',
    v.strictObject({
      loanId: id,
      loanRef: v.string(),
      installmentNumber: v.pipe(v.number(), v.integer(), v.minValue(1)),
      /** ISO date the installment was due. */
      dueDate: date,
      /** What the installment still owes (principal, interest, fees, penalties). */
      amountDue: decimal,
      currency,
      /** ISO date: the day the notice belongs to (dueDate + overdueDaysForRepaymentEvent). */
      noticeDate: date,
    }),
  ),
  'funding.posted': event(
    'funding',
    'A funding (disbursement) was recorded and posted to the ledger.',
    v.strictObject({
      fundingId: id,
      loanRef: v.string(),
      status: v.literal('RECORDED_EXTERNAL'),
      amount: decimal,
      currency,
      /** The date the disbursement is value-dated to. */
      fundingDate: date,
      fundingType: code,
      recipientType: code,
    }),
  ),
  'payment.posted': event(
    'payment',
    'A payment was posted to the ledger (docs/integrating.md "Webhooks": payment posting emits payment.posted), including the down payment a funding records for a product with enableAutoRepaymentForDownPayment.',
    v.strictObject({
      paymentId: id,
      loanRef: v.string(),
      status: v.literal('POSTED'),
      amount: decimal,
      currency,
      effectiveDate: date,
      /**
       * Present only on the down payment recorded with a funding (Fineract `loanTransactionType.downPayment`),
       * posted in the funding's transaction right after its `funding.posted`.
       */
      transactionType: v.optional(
        v.pipe(
          v.literal('DOWN_PAYMENT'),
          v.description(
            'DOWN_PAYMENT on the down payment a funding records (externalRecordRef `<funding externalRecordRef>:down-payment`); absent on other payments.',
          ),
        ),
      ),
    }),
  ),
  'payment.returned': event(
    'payment',
    'A posted payment was returned by its rail and its posting reversed as if it had never been applied (docs/integrating.md "Webhooks": a payment return emits payment.returned).',
    v.strictObject({
      paymentId: id,
      loanRef: v.string(),
      status: v.literal('RETURNED'),
      amount: decimal,
      currency,
      effectiveDate: date,
      /** The rail's return code (NACHA `R01`…`R85` for ACH). */
      returnCode: code,
      /**
       * The NSF fee the return added to the loan (insufficient funds, R01 or R09, and the product names an NSF
       * charge; never for a borrower with an active SCRA_MLA_PROTECTED restriction), or null.
       */
      nsfFee: v.nullable(v.strictObject({ loanChargeId: id, amount: decimal, currency })),
    }),
  ),
  'payment.failed': event(
    'payment',
    'A payment intent failed before settlement (declined, rejected or failed by its rail, or closed without posting by a reconciliation decision); its reservation is released.',
    v.strictObject({
      paymentId: id,
      loanRef: v.string(),
      status: v.literal('FAILED'),
      amount: decimal,
      currency,
      effectiveDate: date,
      reason: v.string(),
    }),
  ),
  'reconciliation.exception.opened': event(
    'reconciliation_exception',
    'A reconciliation exception was opened (a recurrence of an open one moves its lastSeenAt and emits nothing).',
    v.strictObject({
      exceptionId: id,
      exceptionType: v.picklist(reconciliationExceptionTypes),
      /** What the exception is about, e.g. `PAYMENT_INTENT`. */
      targetType: code,
      /** The target's reference, e.g. the paymentId as text. */
      targetRef: code,
      status: v.literal('open'),
      /**
       * What the system saw: `providerRef` always, other values as recorded; amounts (keys ending in `Amount`) are
       * decimal strings and come with their `currency`.
       */
      detail: v.pipe(
        v.objectWithRest({ providerRef: v.string() }, v.string()),
        v.check(
          (detail) =>
            Object.entries(detail).every(
              ([key, value]) => !key.endsWith('Amount') || /^-?[0-9]+(\.[0-9]+)?$/.test(value),
            ) &&
            (!Object.keys(detail).some((key) => key.endsWith('Amount')) ||
              /^[A-Z]{3}$/.test(detail.currency ?? '')),
          'detail amounts must be decimal strings with a currency',
        ),
        v.description(
          'What the system saw, every value a string: `providerRef` always; an amount (a key ending in `Amount`, e.g. `settledAmount`) is a decimal string and comes with `currency` (ISO 4217).',
        ),
      ),
      createdAt: instant,
    }),
  ),
  'statement.generated': event(
    'statement',
    "A loan's periodic statement was issued (docs/processes.md P6), once per loan and due date, on due date − the product's statementLeadDays in the tenant's time zone.",
    v.strictObject({
      statementId: id,
      loanId: id,
      loanRef: code,
      statementDate: date,
      periodStart: date,
      periodEnd: date,
      dueDate: date,
      currency,
      previousBalance: decimal,
      newBalance: decimal,
      /** Current installment plus past due. */
      amountDue: decimal,
      /** Percent a year as disclosed at approval, null without an APR disclosure. */
      annualPercentageRate: v.nullable(v.pipe(v.string(), v.regex(/^[0-9]+(\.[0-9]+)?$/))),
      createdAt: instant,
    }),
  ),
  'reconciliation.exception.resolved': event(
    'reconciliation_exception',
    'An open reconciliation exception was resolved by an operator.',
    v.strictObject({
      exceptionId: id,
      exceptionType: v.picklist(reconciliationExceptionTypes),
      targetType: code,
      targetRef: code,
      status: v.literal('resolved'),
      resolution: v.picklist(reconciliationResolutions),
      resolvedAt: instant,
    }),
  ),
  'promise.created': event(
    'promise',
    'A promise to pay was taken on a case for a loan; its process watches the loan’s posted payments until the deadline.',
    v.strictObject({
      promiseId: id,
      caseId: id,
      loanId: id,
      status: v.literal('PENDING'),
      amount: decimal,
      currency,
      promisedDate: date,
      /** The channel the promise was taken on (the interaction channels). */
      channel: v.picklist(promiseChannels),
      /** End of the watch: the end of promisedDate + 3 grace days in the tenant’s time zone. */
      deadlineAt: instant,
    }),
  ),
  'promise.kept': event(
    'promise',
    'A promise to pay was kept: the loan’s posted payments in its window reached the promised amount.',
    promiseResolution('KEPT'),
  ),
  'promise.partially.kept': event(
    'promise',
    'A promise to pay ended partially kept: at its deadline the posted payments in its window were above zero but below the promised amount (a follow-up task is opened on the case).',
    promiseResolution('PARTIALLY_KEPT'),
  ),
  'promise.broken': event(
    'promise',
    'A promise to pay was broken: no payment posted in its window by its deadline (a follow-up task is opened on the case).',
    promiseResolution('BROKEN'),
  ),
  'hardship.offer.created': event(
    'hardship_offer',
    'A hardship offer was requested and routed (docs/processes.md P5): OFFERED (straight through), PENDING_APPROVAL (a second actor decides), REFERRED (above the approval band), SPECIALIST (a specialist handles it) or INELIGIBLE (with reason codes).',
    v.strictObject({
      offerId: id,
      caseId: id,
      loanId: id,
      programCode: code,
      programVersion: id,
      status: v.picklist(initialHardshipOfferStatuses),
      reliefType: v.picklist(reliefTypes),
      /** Size of the relief in its unit (installments, whole currency units, basis points); null when not sized. */
      reliefSize: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
      /** Reason codes of INELIGIBLE and SPECIALIST; empty otherwise. */
      reasonCodes: v.array(code),
      /** OFFERED: when the offer expires; null otherwise. */
      offerExpiresAt: v.nullable(instant),
    }),
  ),
  'hardship.offer.approved': event(
    'hardship_offer',
    'A second actor approved a PENDING_APPROVAL hardship offer (maker-checker, docs/servicing.md "Hardship offers"); it is open to the borrower until offerExpiresAt.',
    hardshipOfferDecision('APPROVED'),
  ),
  'hardship.offer.rejected': event(
    'hardship_offer',
    'A second actor rejected a PENDING_APPROVAL hardship offer (maker-checker, docs/servicing.md "Hardship offers").',
    hardshipOfferDecision('REJECTED'),
  ),
  'hardship.offer.accepted': event(
    'hardship_offer',
    'The borrower accepted an OFFERED or APPROVED hardship offer (docs/processes.md P5): AWAITING_DOCUMENTS until the workflow confirms the evidence the program requires (by documentsDueAt), or APPLIED at once when it requires none.',
    v.strictObject({
      ...hardshipOfferBase,
      status: v.picklist(['AWAITING_DOCUMENTS', 'APPLIED']),
      /** The `Service-Actor` that recorded the acceptance; null when none was sent. */
      acceptedBy: v.nullable(code),
      acceptedAt: instant,
      /** The program's `requiredEvidenceCode`; null when it requires none. */
      requiredEvidenceCode: v.nullable(code),
      /** AWAITING_DOCUMENTS: when the evidence is due (acceptance + the guardrails' documentDeadlineHoursMaximum). */
      documentsDueAt: v.nullable(instant),
    }),
  ),
  'hardship.offer.expired': event(
    'hardship_offer',
    "An OFFERED or APPROVED hardship offer was not accepted within the program's offerValidityHours (docs/processes.md P5).",
    v.strictObject({
      ...hardshipOfferBase,
      status: v.literal('EXPIRED'),
      offerExpiresAt: v.nullable(instant),
      expiredAt: instant,
    }),
  ),
  'hardship.offer.lapsed': event(
    'hardship_offer',
    'An accepted hardship offer lapsed: the evidence its program requires was not on the case by the document deadline (docs/processes.md P5).',
    v.strictObject({
      ...hardshipOfferBase,
      status: v.literal('LAPSED'),
      requiredEvidenceCode: code,
      documentsDueAt: v.nullable(instant),
      lapsedAt: instant,
    }),
  ),
  'hardship.offer.applied': event(
    'hardship_offer',
    "A hardship offer's relief was applied to the loan (docs/processes.md P5): a new schedule version, the ledger balanced. Totals are sums of every installment's due amounts over all components, decimal strings in the loan's currency.",
    v.strictObject({
      ...hardshipOfferBase,
      status: v.literal('APPLIED'),
      reliefType: v.picklist(reliefTypes),
      /** The loan's schedule version the relief created (1 is the original schedule). */
      scheduleVersion: id,
      installmentCountBefore: v.pipe(v.number(), v.integer(), v.minValue(0)),
      installmentCountAfter: v.pipe(v.number(), v.integer(), v.minValue(0)),
      totalDueBefore: decimal,
      totalDueAfter: decimal,
      currency,
      /** The journal entry of a relief that reduced a receivable (waiver, forgiveness); null otherwise. */
      journalEntryId: v.nullable(id),
      /** The evidence the workflow confirmed; null when the program requires none. */
      evidenceId: v.nullable(id),
      appliedAt: instant,
    }),
  ),
  'hardship.offer.reevaluated': event(
    'hardship_offer',
    'A material change of the loan (payment, funding, restriction) re-ran the eligibility of an open hardship offer and the loan no longer qualifies (docs/processes.md P5, guardrail reevaluateOnMaterialLoanDrift), or an accepted relief could no longer be applied (reason RELIEF_NOT_APPLICABLE).',
    v.strictObject({
      ...hardshipOfferBase,
      fromStatus: code,
      status: v.picklist(['INELIGIBLE', 'SPECIALIST']),
      reasonCodes: v.array(code),
      reevaluatedAt: instant,
    }),
  ),
  'merchant.advance.created': event(
    'merchant_advance',
    'A merchant advance (a purchase of future receivables) was created and posted to the ledger (docs/processes.md P6).',
    v.strictObject({
      /** Opaque `mca_…` id. */
      advanceId: v.string(),
      customerId: id,
      advanceAmount: decimal,
      purchasedAmount: decimal,
      /** Decimal string with 4 fraction digits in (0, 1]. */
      holdbackRate: v.string(),
      currency,
      remittanceFrequency: v.picklist(['DAILY', 'WEEKLY']),
      fundedOnDate: date,
    }),
  ),
  'merchant.sales.reported': event(
    'merchant_advance',
    'A merchant reported its sales of one remittance period; calculatedRemittance = amount × holdbackRate, rounded HALF_EVEN to the currency.',
    v.strictObject({
      advanceId: v.string(),
      periodStart: date,
      periodEnd: date,
      amount: decimal,
      currency,
      sourceRef: v.string(),
      calculatedRemittance: decimal,
    }),
  ),
  'merchant.remittance.posted': event(
    'merchant_remittance',
    'A merchant remittance was recorded and posted to the ledger (Dr EXTERNAL_CLEARING / Cr MERCHANT_ADVANCE_RECEIVABLE).',
    v.strictObject({
      /** Opaque `mrem_…` id. */
      remittanceId: v.string(),
      advanceId: v.string(),
      status: v.literal('POSTED'),
      periodStart: date,
      periodEnd: date,
      amount: decimal,
      currency,
      effectiveDate: date,
    }),
  ),
  'merchant.remittance.returned': event(
    'merchant_remittance',
    'A posted merchant remittance was returned and its posting reversed; it no longer counts as settled or posted.',
    v.strictObject({
      remittanceId: v.string(),
      advanceId: v.string(),
      status: v.literal('RETURNED'),
      periodStart: date,
      periodEnd: date,
      amount: decimal,
      currency,
      effectiveDate: date,
      /** The rail's or bank's return code. */
      returnCode: code,
    }),
  ),
  'boarding.batch.completed': event(
    'boarding_batch',
    'A portfolio boarding batch ended (docs/processes.md P3): its final status (COMPLETED, COMPLETED_WITH_ERRORS, or CANCELLED when an operator cancelled it; one type for every end, so one subscription hears each batch end exactly once) and its lines counted per kind. Delivered to every subscription naming it, with or without includeBoardedHistory; the events of the boarded history itself (source BOARDING) go only to subscriptions with includeBoardedHistory.',
    v.strictObject({
      batchId: id,
      status: v.picklist(finalBoardingBatchStatuses),
      /** Lines staged, and of them the lines that were not JSON of the line shape (counted under no kind). */
      records: v.pipe(v.number(), v.integer(), v.minValue(0)),
      malformed: v.pipe(v.number(), v.integer(), v.minValue(0)),
      /** Per kind: lines of the batch, boarded (or already boarded before), failed; PENDING lines of a cancelled batch are in total only. */
      counts: v.strictObject({
        charge: boardingKindCount,
        loanProduct: boardingKindCount,
        customer: boardingKindCount,
        restriction: boardingKindCount,
        loan: boardingKindCount,
        funding: boardingKindCount,
        payment: boardingKindCount,
        verification: boardingKindCount,
      }),
      /** When the process started working, and when it ended. */
      startedAt: v.nullable(instant),
      completedAt: instant,
    }),
  ),
  'webhook.test': event(
    'webhook_subscription',
    'A non-business test event, delivered only to the subscription it was sent for.',
    v.strictObject({
      subscriptionId: id,
      message: v.string(),
    }),
  ),
} as const satisfies Record<string, EventDefinition>;

/** Every catalogue event type. */
export type EventType = keyof typeof eventCatalogue;

/** The `data` of an event of type `T`, as written and delivered. */
export type EventData<T extends EventType> = v.InferOutput<(typeof eventCatalogue)[T]['data']>;

/** Catalogue types in a stable order. */
export const eventTypes = Object.keys(eventCatalogue) as EventType[];

/** Types a subscription may name (`webhook.test` goes only to the subscription it was sent for). */
export const subscribableEventTypes = eventTypes.filter((t) => t !== 'webhook.test');

/** True when `value` names a catalogue event type. */
export function isEventType(value: string): value is EventType {
  return Object.hasOwn(eventCatalogue, value);
}

/**
 * The envelope every delivery carries (docs/integrating.md "Webhooks"): `eventId` (`evt_…`, the receivers' dedupe
 * key), `apiVersion` the subscription's (`YYYY-MM-DD`), `occurredAt` an ISO 8601 instant, the
 * subject the event is about, and the type's `data`.
 *
 * Events written by portfolio boarding (the migrated history of boarded loans, docs/processes.md P3) add two
 * optional top-level members, `source: "BOARDING"` and `boardingBatchId`. They sit beside `data`, not in it, because
 * they say what caused the event, not what the resource is (`data` stays exactly its catalogue schema, the same
 * for a boarded and a live payment), and they are sent only to subscriptions created or patched with
 * `includeBoardedHistory: true`, so a receiver that never asked for boarded history never sees a member it does
 * not know. Absent on every live event.
 */
export interface EventEnvelope<T extends EventType = EventType> {
  eventId: string;
  eventType: T;
  apiVersion: string;
  occurredAt: string;
  subject: { type: string; id: string };
  data: EventData<T>;
  /** `BOARDING` on an event portfolio boarding wrote; absent otherwise. */
  source?: 'BOARDING';
  /** The boarding batch that wrote the event (`GET /v1/boarding/batches/{batchId}`); with `source` only. */
  boardingBatchId?: number;
}
