/**
 * Pure rules of charges and loan products (domain/lending/*): decimal text handling, Fineract's payment
 * allocation checks (AdvancedPaymentAllocationsValidator, apache/fineract 4198b0bc), the configuration status
 * and the repayment-period floor used for statement lead times (docs/design.md §5 Statements).
 */
import { describe, expect, it } from 'vitest';
import {
  compareDecimalText,
  decimalTextOfNumber,
  fixDecimalText,
  isDecimalText,
  trimDecimalText,
} from '../../domain/lending/decimal-text';
import {
  configurationStatusOf,
  defaultPaymentAllocation,
  minimumRepaymentPeriodDays,
  type PaymentAllocationRule,
  paymentAllocationErrors,
  resolvedPaymentAllocation,
} from '../../domain/lending/products';

describe('decimal text', () => {
  it('accepts plain non-negative decimals only', () => {
    for (const ok of ['0', '12', '12.5', '0.000001', '1250.00']) expect(isDecimalText(ok), ok).toBe(true);
    for (const bad of ['', '-1', '+1', '01', '1.', '.5', '1e3', '1,5', ' 1', 'NaN']) {
      expect(isDecimalText(bad), bad).toBe(false);
    }
  });

  it('renders JSON numbers as written and refuses exponent forms', () => {
    expect(decimalTextOfNumber(12)).toBe('12');
    expect(decimalTextOfNumber(12.5)).toBe('12.5');
    expect(isDecimalText(decimalTextOfNumber(1e21))).toBe(false);
    expect(isDecimalText(decimalTextOfNumber(1e-7))).toBe(false);
    expect(isDecimalText(decimalTextOfNumber(Number.NaN))).toBe(false);
  });

  it('compares exactly across scales and re-renders without losing digits', () => {
    expect(compareDecimalText('5', '4.999999999')).toBe(1);
    expect(compareDecimalText('5.10', '5.1')).toBe(0);
    expect(compareDecimalText('0.3', '0.30000000000000004')).toBe(-1);
    expect(trimDecimalText('1.500000')).toBe('1.5');
    expect(trimDecimalText('25.000000')).toBe('25');
    expect(trimDecimalText('100')).toBe('100');
    expect(fixDecimalText('25.000000', 2)).toBe('25.00');
    expect(fixDecimalText('25', 3)).toBe('25.000');
    expect(fixDecimalText('1000.000000', 0)).toBe('1000');
    expect(() => fixDecimalText('25.125000', 2)).toThrow(RangeError);
  });
});

describe('payment allocation', () => {
  const advanced = 'advanced-payment-allocation-strategy';
  const rule = (overrides: Partial<PaymentAllocationRule> = {}): PaymentAllocationRule => ({
    ...structuredClone(defaultPaymentAllocation[0]!),
    ...overrides,
  });
  const names = (rules: PaymentAllocationRule[] | null, code = advanced) =>
    paymentAllocationErrors(code, rules).map((e) => [e.parameterName, e.userMessageGlobalisationCode]);

  it('accepts the docs/design.md §5 default and resolves it for advanced products only', () => {
    expect(names([rule()])).toEqual([]);
    expect(names(null)).toEqual([]);
    expect(resolvedPaymentAllocation(advanced, null)).toEqual(defaultPaymentAllocation);
    expect(resolvedPaymentAllocation('mifos-standard-strategy', null)).toBeNull();
  });

  it('rejects rules with another strategy, without DEFAULT, or with a transaction type twice', () => {
    expect(names([rule()], 'mifos-standard-strategy')).toEqual([
      ['paymentAllocation', 'validation.msg.loanproduct.paymentAllocation.not.allowed.for.strategy'],
    ]);
    expect(names([rule({ transactionType: 'REPAYMENT' })])).toEqual([
      ['paymentAllocation', 'validation.msg.loanproduct.paymentAllocation.without.default'],
    ]);
    expect(
      names([rule(), rule({ transactionType: 'REPAYMENT' }), rule({ transactionType: 'REPAYMENT' })]),
    ).toEqual([
      [
        'paymentAllocation[2].transactionType',
        'validation.msg.loanproduct.paymentAllocation.duplicate.transactionType',
      ],
    ]);
  });

  it('requires 12 distinct types with orders exactly 1 to 12, grouped by due-ness', () => {
    const order = rule().paymentAllocationOrder;
    const duplicate = order.map((o, i) =>
      i === 11 ? { ...o, paymentAllocationRule: order[0]!.paymentAllocationRule } : o,
    );
    const gap = order.map((o, i) => (i === 11 ? { ...o, order: 13 } : o));
    const mixed = order.map((o) =>
      o.order === 4 ? { ...o, order: 5 } : o.order === 5 ? { ...o, order: 4 } : o,
    );
    const at = 'paymentAllocation[0].paymentAllocationOrder';
    expect(names([rule({ paymentAllocationOrder: order.slice(1) })])).toEqual([
      [at, 'validation.msg.loanproduct.paymentAllocation.must.contain.12.entries'],
    ]);
    expect(names([rule({ paymentAllocationOrder: duplicate })])).toEqual([
      [at, 'validation.msg.loanproduct.paymentAllocation.duplicate.rule'],
    ]);
    expect(names([rule({ paymentAllocationOrder: gap })])).toEqual([
      [at, 'validation.msg.loanproduct.paymentAllocation.invalid.order'],
    ]);
    expect(names([rule({ paymentAllocationOrder: mixed })])).toEqual([
      [at, 'validation.msg.loanproduct.paymentAllocation.mixed.due.type'],
    ]);
    // Whole groups may come in any order (e.g. due before past due).
    const dueFirst = order.map((o) => ({ ...o, order: ((o.order + 3) % 12) + 1 }));
    expect(names([rule({ paymentAllocationOrder: dueFirst })])).toEqual([]);
  });
});

describe('configuration status', () => {
  const monthly = { repaymentEvery: 1, repaymentFrequencyType: 2 };
  const full = {
    productClass: 'COVERED_CONSUMER',
    aprEnabled: true,
    aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
    aprTolerancePolicy: 'IRREGULAR',
    statementEnabled: true,
  };

  it('checks class, then APR, then statements', () => {
    expect(configurationStatusOf(full, monthly)).toBe('CONFIGURED');
    expect(configurationStatusOf(undefined, monthly)).toBe('MISSING_PRODUCT_CLASS');
    expect(configurationStatusOf({ ...full, productClass: null, aprEnabled: false }, monthly)).toBe(
      'MISSING_PRODUCT_CLASS',
    );
    expect(configurationStatusOf({ ...full, aprEnabled: null }, monthly)).toBe('MISSING_APR_SETTINGS');
    const weekly = { repaymentEvery: 3, repaymentFrequencyType: 1 };
    expect(configurationStatusOf(full, weekly)).toBe('MISSING_STATEMENT_SETTINGS');
    expect(configurationStatusOf({ ...full, statementLeadDays: 20 }, weekly)).toBe('CONFIGURED');
    expect(configurationStatusOf({ ...full, aprRounding: null }, weekly)).toBe('MISSING_APR_SETTINGS');
  });

  it('floors repayment periods at their shortest calendar length', () => {
    expect(minimumRepaymentPeriodDays(20, 0)).toBe(20);
    expect(minimumRepaymentPeriodDays(2, 1)).toBe(14);
    expect(minimumRepaymentPeriodDays(1, 2)).toBe(28);
    expect(minimumRepaymentPeriodDays(1, 3)).toBe(365);
  });
});
