/**
 * The typed event catalogue (domain/events.ts; docs/processes.md P0): every event type an operation
 * writes is in it (read from the operations' source), every entry is emitted somewhere, each
 * schema accepts what the operations write and rejects what they do not, and the outbox writer's
 * run-time check refuses a payload that does not match before touching the database.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { writeOutboxEvent } from '../../activities/platform/outbox';
import type { Tx } from '../../db/tenant-tx';
import {
  currencySchema,
  type EventData,
  type EventType,
  eventApiVersion,
  eventCatalogue,
  eventTypes,
  isEventType,
  moneySchema,
  subscribableEventTypes,
} from '../../domain/events';
import { projectRoot } from '../../workers/config';

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Event types named by `writeOutboxEvent(tx, { … eventType: '<type>' … })` calls in activities/. */
function emittedEventTypes(): Set<string> {
  const found = new Set<string>();
  for (const file of sourcesUnder(path.join(projectRoot, 'activities'))) {
    const source = readFileSync(file, 'utf8');
    // writeOutboxEvent, and moveOffer (activities/hardship/hardship-offer-steps.ts), which writes its event.
    for (const call of source.split(/writeOutboxEvent\(|moveOffer\(/).slice(1)) {
      const match = /eventType:\s*'([a-z._]+)'/.exec(call.slice(0, 1200));
      if (match?.[1]) found.add(match[1]);
    }
  }
  return found;
}

/** One payload per type, shaped exactly as the operations write it today. */
const samples: { [T in EventType]: EventData<T> } = {
  'case.transitioned': { caseId: 7, fromStatus: 'OPEN', toStatus: 'CLOSED', outcomeCode: 'PROMISE_KEPT' },
  'customer.created': {
    customerId: 3,
    customerRef: 'cus_abcdefghijklmnopabcdefghijklmnop',
    externalId: null,
  },
  'contact.consent.updated': {
    customerRef: 'cus_abcdefghijklmnopabcdefghijklmnop',
    contactPointRef: 'cp_abcdefghijklmnopabcdefghijklmnop',
    operation: 'UPDATE_SMS_PERMISSION',
    permission: false,
    effectiveAt: '2026-11-23T10:00:00.000Z',
    caseId: 7,
  },
  'restriction.applied': {
    restrictionId: 4,
    customerId: 3,
    loanId: null,
    restrictionType: 'PAYMENT_HOLD',
    effectiveAt: '2026-11-23T10:00:00.000Z',
    expiresAt: null,
  },
  'restriction.released': {
    restrictionId: 4,
    customerId: 3,
    loanId: 9,
    restrictionType: 'DISBURSEMENT_HOLD',
    releasedAt: '2026-11-24T10:00:00.000Z',
  },
  'loan.submitted': {
    loanId: 9,
    loanRef: '000000009',
    clientId: 3,
    productId: 2,
    status: 'SUBMITTED',
    principal: '1000.00',
    currency: 'USD',
    submittedOnDate: '2026-11-01',
    expectedDisbursementDate: '2026-11-05',
  },
  'loan.approved': {
    loanId: 9,
    loanRef: '000000009',
    clientId: 3,
    status: 'APPROVED',
    approvedOnDate: '2026-11-02',
    approvedPrincipal: '1000.00',
    currency: 'USD',
    expectedDisbursementDate: '2026-11-05',
    annualPercentageRate: '12.68',
  },
  'loan.party.added': { loanId: 9, loanRef: '000000009', partyId: 1, customerId: 5, role: 'CO_BORROWER' },
  'loan.charge.added': {
    loanId: 9,
    loanRef: '000000009',
    loanChargeId: 4,
    chargeId: 2,
    amount: '10.00',
    currency: 'USD',
    dueDate: '2026-11-05',
    chargeType: 'PENALTY',
    installmentNumber: 1,
  },
  'loan.charge.waived': {
    loanId: 9,
    loanRef: '000000009',
    loanChargeId: 4,
    chargeId: 2,
    amountWaived: '10.00',
    currency: 'USD',
    waivedOnDate: '2026-11-07',
  },
  'loan.chargeoff.posted': {
    loanId: 9,
    loanRef: '000000009',
    transactionId: 3,
    transactionDate: '2026-11-07',
    reason: 'Uncollectible',
    automatic: false,
    amount: '760.00',
    principalPortion: '750.00',
    interestPortion: '0.00',
    feeChargesPortion: '10.00',
    penaltyChargesPortion: '0.00',
    currency: 'USD',
  },
  'loan.chargeoff.reversed': {
    loanId: 9,
    loanRef: '000000009',
    transactionId: 3,
    transactionDate: '2026-11-07',
    amount: '760.00',
    currency: 'USD',
    reversedOnDate: '2026-11-08',
  },
  'loan.penalty.assessed': {
    loanId: 9,
    loanRef: '000000009',
    loanChargeId: 4,
    chargeId: 2,
    installmentNumber: 1,
    dueDate: '2026-10-01',
    amount: '10.00',
    currency: 'USD',
    businessDate: '2026-10-04',
  },
  'loan.delinquency.changed': {
    loanId: 9,
    loanRef: '000000009',
    businessDate: '2026-10-04',
    previousClassification: 'NO_DELINQUENCY',
    classification: 'RANGE_1',
    pastDueDays: 4,
    delinquentDays: 4,
    delinquentAmount: '105.00',
    currency: 'USD',
  },
  'loan.repayment.due': {
    loanId: 9,
    loanRef: '000000009',
    installmentNumber: 2,
    dueDate: '2026-11-01',
    amountDue: '105.00',
    currency: 'USD',
    noticeDate: '2026-10-29',
  },
  'loan.repayment.overdue': {
    loanId: 9,
    loanRef: '000000009',
    installmentNumber: 1,
    dueDate: '2026-10-01',
    amountDue: '105.00',
    currency: 'USD',
    noticeDate: '2026-10-02',
  },
  'funding.posted': {
    fundingId: 1,
    loanRef: '000000009',
    status: 'RECORDED_EXTERNAL',
    amount: '1000.00',
    currency: 'USD',
    fundingDate: '2026-11-05',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
  },
  'payment.posted': {
    paymentId: 11,
    loanRef: '000000009',
    status: 'POSTED',
    amount: '125.00',
    currency: 'USD',
    effectiveDate: '2026-12-05',
  },
  'payment.returned': {
    paymentId: 12,
    loanRef: '000000009',
    status: 'RETURNED',
    amount: '125.00',
    currency: 'USD',
    effectiveDate: '2026-12-05',
    returnCode: 'R01',
    nsfFee: { loanChargeId: 4, amount: '25.00', currency: 'USD' },
  },
  'payment.failed': {
    paymentId: 13,
    loanRef: '000000009',
    status: 'FAILED',
    amount: '125.00',
    currency: 'USD',
    effectiveDate: '2026-12-05',
    reason: 'Card declined',
  },
  'reconciliation.exception.opened': {
    exceptionId: 5,
    exceptionType: 'SETTLED_NOT_POSTED',
    targetType: 'PAYMENT_INTENT',
    targetRef: '11',
    status: 'open',
    detail: {
      providerRef: 'sbx_ach_abc',
      reason: 'AMOUNT_MISMATCH',
      settledAmount: '99.50',
      currency: 'USD',
    },
    createdAt: '2026-11-24T10:00:00.000Z',
  },
  'statement.generated': {
    statementId: 3,
    loanId: 9,
    loanRef: 'LN-000009',
    statementDate: '2025-04-24',
    periodStart: '2025-03-15',
    periodEnd: '2025-04-24',
    dueDate: '2025-05-15',
    currency: 'USD',
    previousBalance: '0.00',
    newBalance: '5030.41',
    amountDue: '444.24',
    annualPercentageRate: '12.00',
    createdAt: '2026-11-24T10:00:00.000Z',
  },
  'reconciliation.exception.resolved': {
    exceptionId: 5,
    exceptionType: 'SETTLED_NOT_POSTED',
    targetType: 'PAYMENT_INTENT',
    targetRef: '11',
    status: 'resolved',
    resolution: 'POST_AS_SETTLED',
    resolvedAt: '2026-11-24T11:00:00.000Z',
  },
  'promise.created': {
    promiseId: 5,
    caseId: 7,
    loanId: 9,
    status: 'PENDING',
    amount: '100.00',
    currency: 'USD',
    promisedDate: '2026-12-01',
    channel: 'PHONE',
    deadlineAt: '2026-12-05T08:00:00.000Z',
  },
  'promise.kept': {
    promiseId: 5,
    caseId: 7,
    loanId: 9,
    status: 'KEPT',
    amount: '100.00',
    paidAmount: '100.00',
    currency: 'USD',
    promisedDate: '2026-12-01',
    resolvedAt: '2026-12-05T08:00:00.000Z',
  },
  'promise.partially.kept': {
    promiseId: 5,
    caseId: 7,
    loanId: 9,
    status: 'PARTIALLY_KEPT',
    amount: '100.00',
    paidAmount: '40.00',
    currency: 'USD',
    promisedDate: '2026-12-01',
    resolvedAt: '2026-12-05T08:00:00.000Z',
  },
  'promise.broken': {
    promiseId: 5,
    caseId: 7,
    loanId: 9,
    status: 'BROKEN',
    amount: '100.00',
    paidAmount: '0.00',
    currency: 'USD',
    promisedDate: '2026-12-01',
    resolvedAt: '2026-12-05T08:00:00.000Z',
  },
  'hardship.offer.created': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    status: 'INELIGIBLE',
    reliefType: 'PAYMENT_DEFERRAL',
    reliefSize: null,
    reasonCodes: ['MINIMUM_LOAN_AGE_NOT_MET'],
    offerExpiresAt: null,
  },
  'hardship.offer.approved': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    status: 'APPROVED',
    decidedBy: 'checker-1',
    policyVersion: 2,
    requestHash: 'ab'.repeat(32),
    decidedAt: '2026-11-24T11:00:00.000Z',
    offerExpiresAt: '2026-11-26T11:00:00.000Z',
  },
  'hardship.offer.rejected': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    status: 'REJECTED',
    decidedBy: 'checker-1',
    policyVersion: 2,
    requestHash: 'ab'.repeat(32),
    decidedAt: '2026-11-24T11:00:00.000Z',
    offerExpiresAt: null,
  },
  'hardship.offer.accepted': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    status: 'AWAITING_DOCUMENTS',
    acceptedBy: 'borrower-agent',
    acceptedAt: '2026-11-24T12:00:00.000Z',
    requiredEvidenceCode: 'INCOME_STATEMENT',
    documentsDueAt: '2026-12-01T12:00:00.000Z',
  },
  'hardship.offer.expired': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    status: 'EXPIRED',
    offerExpiresAt: '2026-11-26T11:00:00.000Z',
    expiredAt: '2026-11-26T11:00:00.000Z',
  },
  'hardship.offer.lapsed': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    status: 'LAPSED',
    requiredEvidenceCode: 'INCOME_STATEMENT',
    documentsDueAt: '2026-12-01T12:00:00.000Z',
    lapsedAt: '2026-12-01T12:00:00.000Z',
  },
  'hardship.offer.applied': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    status: 'APPLIED',
    reliefType: 'PAYMENT_DEFERRAL',
    scheduleVersion: 2,
    installmentCountBefore: 12,
    installmentCountAfter: 14,
    totalDueBefore: '10819.50',
    totalDueAfter: '10819.50',
    currency: 'USD',
    journalEntryId: null,
    evidenceId: 41,
    appliedAt: '2026-11-25T09:00:00.000Z',
  },
  'hardship.offer.reevaluated': {
    offerId: 3,
    caseId: 7,
    loanId: 9,
    programCode: 'DEFER',
    programVersion: 1,
    fromStatus: 'OFFERED',
    status: 'SPECIALIST',
    reasonCodes: ['SCRA_MLA_PROTECTED'],
    reevaluatedAt: '2026-11-25T09:00:00.000Z',
  },
  'merchant.advance.created': {
    advanceId: 'mca_abcdefghijklmnopabcdefghijklmnop',
    customerId: 3,
    advanceAmount: '10000.00',
    purchasedAmount: '12500.00',
    holdbackRate: '0.1000',
    currency: 'USD',
    remittanceFrequency: 'DAILY',
    fundedOnDate: '2026-11-23',
  },
  'merchant.sales.reported': {
    advanceId: 'mca_abcdefghijklmnopabcdefghijklmnop',
    periodStart: '2026-11-16',
    periodEnd: '2026-11-16',
    amount: '1000.05',
    currency: 'USD',
    sourceRef: 'pos-day-one',
    calculatedRemittance: '100.00',
  },
  'merchant.remittance.posted': {
    remittanceId: 'mrem_abcdefghijklmnopabcdefghijklmnop',
    advanceId: 'mca_abcdefghijklmnopabcdefghijklmnop',
    status: 'POSTED',
    periodStart: '2026-11-16',
    periodEnd: '2026-11-16',
    amount: '100.00',
    currency: 'USD',
    effectiveDate: '2026-11-17',
  },
  'merchant.remittance.returned': {
    remittanceId: 'mrem_abcdefghijklmnopabcdefghijklmnop',
    advanceId: 'mca_abcdefghijklmnopabcdefghijklmnop',
    status: 'RETURNED',
    periodStart: '2026-11-16',
    periodEnd: '2026-11-16',
    amount: '100.00',
    currency: 'USD',
    effectiveDate: '2026-11-17',
    returnCode: 'R01',
  },
  'boarding.batch.completed': {
    batchId: 12,
    status: 'COMPLETED_WITH_ERRORS',
    records: 5,
    malformed: 1,
    counts: {
      charge: { total: 1, boarded: 1, failed: 0 },
      loanProduct: { total: 0, boarded: 0, failed: 0 },
      customer: { total: 1, boarded: 1, failed: 0 },
      restriction: { total: 0, boarded: 0, failed: 0 },
      loan: { total: 1, boarded: 1, failed: 0 },
      funding: { total: 0, boarded: 0, failed: 0 },
      payment: { total: 1, boarded: 0, failed: 1 },
      verification: { total: 0, boarded: 0, failed: 0 },
    },
    startedAt: '2026-11-23T10:00:00.000Z',
    completedAt: '2026-11-23T10:05:00.000Z',
  },
  'webhook.test': { subscriptionId: 1, message: 'test' },
};

describe('event catalogue', () => {
  it('holds every event type an operation writes, and each of its types is written somewhere', () => {
    const emitted = emittedEventTypes();
    expect(emitted.size).toBeGreaterThanOrEqual(10);
    expect([...emitted].sort()).toEqual([...eventTypes].sort());
  });

  it('names types <resource>.<past tense> with a subject type and a description', () => {
    for (const type of eventTypes) {
      expect(type).toMatch(/^[a-z]+(\.[a-z]+)+$/);
      expect(eventCatalogue[type].subjectType).toMatch(/^[a-z_]+$/);
      expect(eventCatalogue[type].description.length).toBeGreaterThan(10);
    }
    expect(eventCatalogue['payment.posted'].subjectType).toBe('payment');
    expect(eventCatalogue['case.transitioned'].subjectType).toBe('case');
  });

  it('accepts what the operations write for every type', () => {
    for (const type of eventTypes) {
      const result = v.safeParse(eventCatalogue[type].data, samples[type]);
      expect(result.success, `${type}: ${JSON.stringify(result.issues)}`).toBe(true);
    }
  });

  it("gives payment events the spec's data: paymentId integer, amount decimal string, effectiveDate date", () => {
    const schema = eventCatalogue['payment.posted'].data;
    const good = samples['payment.posted'];
    expect(v.safeParse(schema, { ...good, paymentId: 1.5 }).success).toBe(false);
    expect(v.safeParse(schema, { ...good, paymentId: '11' }).success).toBe(false);
    expect(v.safeParse(schema, { ...good, amount: 125 }).success).toBe(false);
    expect(v.safeParse(schema, { ...good, amount: '1e3' }).success).toBe(false);
    expect(v.safeParse(schema, { ...good, effectiveDate: '2026-12-05T00:00:00Z' }).success).toBe(false);
    expect(v.safeParse(schema, { ...good, extra: true }).success).toBe(false);
    const { currency: _currency, ...missing } = good;
    expect(v.safeParse(schema, missing).success).toBe(false);
  });

  it('keeps webhook.test out of what subscriptions may name', () => {
    expect(subscribableEventTypes).not.toContain('webhook.test');
    expect(subscribableEventTypes.length).toBe(eventTypes.length - 1);
    expect(isEventType('payment.posted')).toBe(true);
    expect(isEventType('payment.exploded')).toBe(false);
    expect(isEventType('toString')).toBe(false);
  });

  it('versions the envelope with a date', () => {
    expect(eventApiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

/** A field's schema without `nullable`/`nullish`/`optional` wrappers. */
function unwrapped(schema: v.GenericSchema): v.GenericSchema {
  let current = schema as v.GenericSchema & { wrapped?: v.GenericSchema };
  while (current.wrapped) current = current.wrapped as typeof current;
  return current;
}

/** Names of money fields: amounts, balances, principal, totals due, fees, interest, penalties, remittances. */
const moneyName =
  /(amount|balance|principal|total|due$|fee|interest|penalty|penalties|remittance|overpayment|payoff|price)/i;
/** Names that match `moneyName` but are not money (dates, instants, counts, codes, rates, ids). */
const notMoney = /(date|at|on|count|code|rate|id|type|frequency|version|status|reason)s?$/i;

describe('event catalogue — money (docs/integrating.md "Webhooks": money is a decimal string with its currency)', () => {
  const entries = eventTypes.flatMap((type) => {
    const data = eventCatalogue[type].data as unknown as { entries: Record<string, v.GenericSchema> };
    // a nested object (e.g. payment.returned `nsfFee`) is checked field by field, as `<field>.<sub>`
    return Object.entries(data.entries).flatMap(([field, schema]) => {
      const inner = unwrapped(schema) as v.GenericSchema & { entries?: Record<string, v.GenericSchema> };
      if (!inner.entries) return [{ type, field, schema: inner }];
      return Object.entries(inner.entries).map(([sub, subSchema]) => ({
        type,
        field: `${field}.${sub}`,
        schema: unwrapped(subSchema),
      }));
    });
  });

  it('every event data schema is an object of named fields', () => {
    for (const type of eventTypes) {
      expect((eventCatalogue[type].data as unknown as { entries?: unknown }).entries, type).toBeTypeOf(
        'object',
      );
    }
  });

  it('every money field of every event type is a decimal-string money schema (never minor units or a number)', () => {
    const leaf = (field: string) => field.slice(field.lastIndexOf('.') + 1);
    const moneyFields = entries.filter(
      ({ field }) => moneyName.test(leaf(field)) && !notMoney.test(leaf(field)),
    );
    expect(moneyFields.length).toBeGreaterThan(10);
    for (const { type, field, schema } of moneyFields) {
      expect(schema, `${type}.${field}`).toBe(moneySchema);
    }
    // and the money schema itself takes decimal strings only
    expect(v.is(moneySchema, '1303.42')).toBe(true);
    expect(v.is(moneySchema, 130342)).toBe(false);
  });

  it('every event data with a money field carries currency', () => {
    const withMoney = new Set(entries.filter((e) => e.schema === moneySchema).map((e) => e.type));
    expect(withMoney.size).toBeGreaterThan(10);
    for (const type of withMoney) {
      const currency = entries.find((e) => e.type === type && e.field === 'currency');
      expect(currency?.schema, `${type}.currency`).toBe(currencySchema);
    }
  });

  it('a reconciliation exception detail with an amount needs its currency', () => {
    const { data } = eventCatalogue['reconciliation.exception.opened'];
    const sample = samples['reconciliation.exception.opened'];
    const { currency: _currency, ...withoutCurrency } = sample.detail;
    expect(v.is(data, sample)).toBe(true);
    expect(v.is(data, { ...sample, detail: withoutCurrency })).toBe(false);
    expect(v.is(data, { ...sample, detail: { ...sample.detail, settledAmount: '9950' + 'x' } })).toBe(false);
    expect(v.is(data, { ...sample, detail: { providerRef: 'sbx', reason: 'RETURN_AFTER_WINDOW' } })).toBe(
      true,
    );
  });

  it('hardship.offer.applied takes decimal strings with a currency, not minor-unit digits', () => {
    const { data } = eventCatalogue['hardship.offer.applied'];
    const sample = samples['hardship.offer.applied'];
    expect(v.is(data, sample)).toBe(true);
    const { currency: _currency, ...withoutCurrency } = sample;
    expect(v.is(data, withoutCurrency)).toBe(false);
    expect(v.is(data, { ...sample, totalDueBefore: 1081950 })).toBe(false);
  });
});

describe('writeOutboxEvent', () => {
  // The check runs before any statement, so a transaction that fails on use proves nothing was written.
  const untouchable = new Proxy({} as Tx, {
    get() {
      throw new Error('the writer touched the database');
    },
  });
  const base = {
    tenantId: 't-1',
    subjectId: 11,
    occurredAt: new Date('2026-12-05T00:00:00Z'),
    dedupeKey: 'payment/11/posted',
  };

  it('refuses data that does not match the catalogue schema, naming the field', async () => {
    const wrong = { ...samples['payment.posted'], amount: 125 } as unknown as EventData<'payment.posted'>;
    await expect(
      writeOutboxEvent(untouchable, { ...base, eventType: 'payment.posted', data: wrong }),
    ).rejects.toThrow(/payment\.posted data does not match the event catalogue: amount/);
    const extra = { ...samples['customer.created'], ssn: '123' } as unknown as EventData<'customer.created'>;
    await expect(
      writeOutboxEvent(untouchable, { ...base, eventType: 'customer.created', data: extra }),
    ).rejects.toThrow(/customer\.created data does not match/);
  });

  it('refuses a type outside the catalogue', async () => {
    await expect(
      writeOutboxEvent(untouchable, {
        ...base,
        eventType: 'payment.exploded' as EventType,
        data: {} as never,
      }),
    ).rejects.toThrow(/not a catalogue event type/);
  });

  it('reaches the database with a matching payload', async () => {
    await expect(
      writeOutboxEvent(untouchable, {
        ...base,
        eventType: 'payment.posted',
        data: samples['payment.posted'],
      }),
    ).rejects.toThrow(/touched the database/);
  });
});
