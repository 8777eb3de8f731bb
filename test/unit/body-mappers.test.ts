/**
 * The body → input mappers that a route and boarding share (domain/lending/schemas/products.ts,
 * domain/lending/schemas/fundings.ts, domain/payments/schemas/recorded-payments.ts): a parsed request body becomes
 * the operation's fields, with the defaults the operation expects, and the body's formatting fields stay behind.
 * A boarded line's body is the route's body (activities/boarding/line-schemas.ts), so the same body gives the same
 * input on both paths.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { boardingBodySchemas } from '../../activities/boarding/line-schemas';
import { externalFundingOf, recordFundingBody } from '../../domain/lending/schemas/fundings';
import {
  chargeDefinitionOf,
  createChargeBody,
  createLoanProductBody,
  loanProductDefinitionOf,
} from '../../domain/lending/schemas/products';
import { externalPaymentOf, recordPaymentBody } from '../../domain/payments/schemas/recorded-payments';

const productBody = {
  name: 'Personal loan',
  shortName: 'PL',
  currencyCode: 'USD',
  digitsAfterDecimal: 2,
  principal: 1000,
  numberOfRepayments: 12,
  interestRatePerPeriod: 1,
  repaymentEvery: 1,
  repaymentFrequencyType: 2,
  interestRateFrequencyType: 2,
  interestType: 0,
  amortizationType: 1,
  interestCalculationPeriodType: 1,
  daysInYearType: 1,
  daysInMonthType: 1,
  transactionProcessingStrategyCode: 'mifos-standard-strategy',
};

describe('body → input mappers shared by routes and boarding', () => {
  it('gives a loan product the defaults of what its body leaves out, and leaves the charges to the caller', () => {
    const { charges, ...product } = v.parse(createLoanProductBody, { ...productBody, charges: [{ id: 7 }] });
    expect(charges).toEqual([{ id: 7 }]);
    const definition = loanProductDefinitionOf(product);
    expect(definition).toMatchObject({
      inMultiplesOf: 0,
      installmentAmountInMultiplesOf: null,
      minPrincipal: null,
      maxPrincipal: null,
      minNumberOfRepayments: null,
      maxInterestRatePerPeriod: null,
      allowPartialPeriodInterestCalcualtion: false,
      graceOnPrincipalPayment: 0,
      graceOnInterestPayment: 0,
      paymentAllocation: null,
      lmsConfig: null,
      principal: '1000',
      interestRatePerPeriod: '1',
      enableDownPayment: false,
      disbursedAmountPercentageForDownPayment: null,
      enableAutoRepaymentForDownPayment: null,
    });
    expect(definition).not.toHaveProperty('charges');
  });

  it('maps the down-payment fields of a product body and of a boarded loanProduct line alike', () => {
    const downPayment = {
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: 25.5,
      enableAutoRepaymentForDownPayment: true,
    };
    const { charges: _charges, ...routeProduct } = v.parse(createLoanProductBody, {
      ...productBody,
      ...downPayment,
    });
    const { chargeSourceRefs: _refs, ...line } = v.parse(boardingBodySchemas.loanProduct, {
      ...productBody,
      ...downPayment,
    });
    expect(loanProductDefinitionOf(routeProduct)).toMatchObject({
      enableDownPayment: true,
      disbursedAmountPercentageForDownPayment: '25.5',
      enableAutoRepaymentForDownPayment: true,
    });
    expect(loanProductDefinitionOf(line)).toEqual(loanProductDefinitionOf(routeProduct));
  });

  it('maps a boarded loanProduct line (charges by source reference) to the same definition as the route body', () => {
    const { chargeSourceRefs, ...line } = v.parse(boardingBodySchemas.loanProduct, {
      ...productBody,
      chargeSourceRefs: ['fee-1'],
    });
    expect(chargeSourceRefs).toEqual(['fee-1']);
    const { charges: _charges, ...routeProduct } = v.parse(createLoanProductBody, productBody);
    expect(loanProductDefinitionOf(line)).toEqual(loanProductDefinitionOf(routeProduct));
  });

  it('keeps only the charge fields of a charge body, not its formatting fields', () => {
    const body = v.parse(createChargeBody, {
      name: 'Late fee',
      currencyCode: 'USD',
      amount: 15,
      chargeAppliesTo: 1,
      chargeTimeType: 2,
      chargeCalculationType: 1,
      chargePaymentMode: 0,
      locale: 'en',
    });
    const definition = chargeDefinitionOf(body);
    expect(Object.keys(definition).sort()).toEqual(
      [
        'active',
        'amount',
        'chargeAppliesTo',
        'chargeCalculationType',
        'chargeTimeType',
        'currencyCode',
        'name',
        'penalty',
      ].sort(),
    );
    expect(definition).toMatchObject({ name: 'Late fee', amount: '15', chargeTimeType: 2 });
  });

  it('gives a funding without fundingDate null and a payment without rationale null', () => {
    const funding = externalFundingOf(
      v.parse(recordFundingBody, {
        amount: '1000.00',
        currency: 'USD',
        fundingType: 'DISBURSEMENT',
        recipientType: 'BORROWER',
        recipientRef: 'borrower-1',
        externalRecordRef: 'wire-1',
        reason: 'Loan proceeds',
      }),
    );
    expect(funding).toEqual({
      amount: '1000.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-1',
      externalRecordRef: 'wire-1',
      reason: 'Loan proceeds',
      fundingDate: null,
    });
    const payment = externalPaymentOf(
      v.parse(recordPaymentBody, {
        amount: '105.00',
        currency: 'USD',
        effectiveDate: '2026-02-01',
        externalRecordRef: 'ach-9',
        source: 'IMPORT',
      }),
    );
    expect(payment).toEqual({
      amount: '105.00',
      currency: 'USD',
      effectiveDate: '2026-02-01',
      externalRecordRef: 'ach-9',
      source: 'IMPORT',
      rationale: null,
    });
  });
});
