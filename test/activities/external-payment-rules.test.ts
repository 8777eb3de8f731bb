/**
 * One rule set for a payment recorded as external (activities/payments/external-payments.ts), on the real database:
 * the route's operation (`recordExternalPayment`, `POST /v1/loans/{loanId}/payments/record-external`) and
 * boarding's payment history (`recordExternalPaymentHistory`) refuse the same payments with the same Shape A
 * error, replay each other's payments by the same content digest, and a rule added to the rule set reaches both
 * (the module is wrapped so that a test can add a refusal to its field checks or to its rules on the loan: an
 * operation with a copy of the rules of its own would not see it).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { shapeAOf, validationError } from '../../domain/errors';
import type { ExternalPayment } from '../../domain/payments/schemas/recorded-payments';
import { type ActivityHarness, createHarness, domainErrorOf, newTenant } from './helpers';
import { approvedLoan, type LoanFixture } from './ledger-fixtures';

/** A refusal a test adds to the rule set (null: the rule set as it is). */
const added = vi.hoisted(() => ({
  fieldRule: null as null | ((payment: { externalRecordRef: string }) => void),
  loanRule: null as null | ((payment: { effectiveDate: string }) => void),
}));

vi.mock('../../activities/payments/external-payments', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../activities/payments/external-payments')>();
  return {
    ...actual,
    checkPaymentFields: (...args: Parameters<typeof actual.checkPaymentFields>) => {
      added.fieldRule?.(args[0]);
      return actual.checkPaymentFields(...args);
    },
    assertNewPaymentRules: (...args: Parameters<typeof actual.assertNewPaymentRules>) => {
      added.loanRule?.(args[1]);
      return actual.assertNewPaymentRules(...args);
    },
  };
});

let h: ActivityHarness;
let tenantId: string;
let loan: LoanFixture;
let refCounter = 0;
const newRef = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(refCounter++).toString(36)}`;

beforeAll(async () => {
  h = createHarness();
  h.now.value = new Date('2025-06-01T12:00:00Z');
  tenantId = await newTenant(h, 'payrules');
  loan = await activeLoan();
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.now.value = new Date('2025-06-01T12:00:00Z');
  added.fieldRule = null;
  added.loanRule = null;
});

/** A 300.00 USD loan funded on 2025-01-01 (ACTIVE). */
async function activeLoan(): Promise<LoanFixture> {
  const fixture = await approvedLoan(h, tenantId);
  await h.activities.recordExternalFunding({
    tenantId,
    loanId: fixture.loanId,
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: newRef('fund'),
    reason: 'Disbursed by the originating bank',
    fundingDate: '2025-01-01',
  });
  return fixture;
}

function payment(overrides: Partial<ExternalPayment> = {}): ExternalPayment {
  return {
    amount: '10.00',
    currency: 'USD',
    effectiveDate: '2025-02-01',
    externalRecordRef: newRef('pay'),
    source: 'IMPORT',
    ...overrides,
  };
}

/** The Shape A body the route's operation refuses `p` with on `loanId`. */
async function routeRefusal(p: ExternalPayment, loanId = loan.loanId) {
  return shapeAOf(await domainErrorOf(h.activities.recordExternalPayment({ tenantId, loanId, ...p })));
}

/** The Shape A body boarding's history refuses `p` with on `loanId` (a history of `p` alone). */
async function historyRefusal(p: ExternalPayment, loanId = loan.loanId) {
  const result = await h.activities.recordExternalPaymentHistory({ tenantId, loanId, payments: [p] });
  const [outcome] = result.outcomes;
  if (!outcome || outcome.ok) throw new Error(`the history recorded ${p.externalRecordRef}`);
  return outcome.error;
}

describe('the route and boarding refuse a payment alike', () => {
  const refused: [string, () => ExternalPayment][] = [
    ['an effectiveDate in the future', () => payment({ effectiveDate: '2025-06-10' })],
    ['an effectiveDate before the first disbursement', () => payment({ effectiveDate: '2024-12-31' })],
    ['another currency than the loan’s', () => payment({ currency: 'EUR' })],
    ['an amount with more digits than the currency', () => payment({ amount: '10.001' })],
    ['an unknown currency', () => payment({ currency: 'XXZ' })],
    ['a malformed effectiveDate', () => payment({ effectiveDate: '2025-02-30' })],
    [
      'an externalRecordRef that looks like an account number',
      () => payment({ externalRecordRef: '123456789012' }),
    ],
  ];
  for (const [what, make] of refused) {
    it(`refuses ${what} with the same error`, async () => {
      const p = make();
      const fromRoute = await routeRefusal(p);
      expect(await historyRefusal(p)).toEqual(fromRoute);
    });
  }

  it('refuses a payment on a loan that is not ACTIVE with the same error', async () => {
    const approved = await approvedLoan(h, tenantId);
    const p = payment();
    const fromRoute = await routeRefusal(p, approved.loanId);
    expect(fromRoute.userMessageGlobalisationCode).toBe('error.msg.loan.invalid.state.transition');
    expect(await historyRefusal(p, approved.loanId)).toEqual(fromRoute);
  });

  it('replays a payment the other path recorded, and refuses its ref with other content', async () => {
    const p = payment();
    const recorded = await h.activities.recordExternalPayment({ tenantId, loanId: loan.loanId, ...p });
    const replay = await h.activities.recordExternalPaymentHistory({
      tenantId,
      loanId: loan.loanId,
      payments: [p],
    });
    expect(replay.outcomes).toEqual([
      { externalRecordRef: p.externalRecordRef, ok: true, payment: { ...recorded, created: false } },
    ]);
    const other = { ...p, amount: '11.00' };
    expect(await historyRefusal(other)).toEqual(await routeRefusal(other));
    expect((await routeRefusal(other)).userMessageGlobalisationCode).toBe(
      'error.msg.external.record.ref.conflict',
    );
  });
});

describe('a rule added to the rule set reaches the route and boarding', () => {
  it('a refusal added to the checks of the payment’s fields', async () => {
    const p = payment();
    added.fieldRule = (q) => {
      if (q.externalRecordRef === p.externalRecordRef)
        throw validationError('externalRecordRef', q.externalRecordRef, 'refused by the added rule.');
    };
    const fromRoute = await routeRefusal(p);
    expect(fromRoute.errors[0]?.developerMessage).toBe('refused by the added rule.');
    expect(await historyRefusal(p)).toEqual(fromRoute);
  });

  it('a refusal added to the rules a new payment meets on its loan', async () => {
    const p = payment({ effectiveDate: '2025-03-03' });
    added.loanRule = (q) => {
      if (q.effectiveDate === '2025-03-03')
        throw validationError('effectiveDate', q.effectiveDate, 'no payments on 2025-03-03 (added rule).');
    };
    const fromRoute = await routeRefusal(p);
    expect(fromRoute.errors[0]?.developerMessage).toBe('no payments on 2025-03-03 (added rule).');
    expect(await historyRefusal(p)).toEqual(fromRoute);
  });
});
