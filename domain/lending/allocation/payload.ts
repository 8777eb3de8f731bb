/**
 * The wire payload of a payment's allocation: `PaymentAllocation` (types.ts) as plain JSON with decimal strings
 * of the currency's minor-unit digits (ISO 4217 via domain/money.ts `minorUnitDigits`), the shape stored in
 * `payments.allocation` and returned by the payment routes.
 *
 * Pure. RangeError for an unknown currency.
 */

import { formatMinor, minorUnitDigits } from '../../money';
import type { AllocationComponent, PaymentAllocation } from './types';

/** JSON shape of a `PaymentAllocation` (e.g. `payments.allocation`): amounts as decimal strings. */
export interface PaymentAllocationPayload {
  paymentId: number;
  valueDate: string;
  currency: string;
  amount: string;
  principal: string;
  interest: string;
  fee: string;
  penalty: string;
  overpayment: string;
  lines: {
    installmentNumber: number | null;
    component: AllocationComponent | 'OVERPAYMENT';
    amount: string;
  }[];
}

/**
 * `allocation` as plain JSON with decimal strings of the currency's minor-unit digits (domain/money.ts
 * `minorUnitDigits`: USD 2, JPY 0). RangeError for an unknown currency.
 */
export function paymentAllocationPayload(
  allocation: PaymentAllocation,
  currency: string,
): PaymentAllocationPayload {
  const digits = minorUnitDigits(currency);
  const format = (minor: bigint): string => formatMinor(minor, digits);
  return {
    paymentId: allocation.paymentId,
    valueDate: allocation.valueDate,
    currency,
    amount: format(allocation.amountMinor),
    principal: format(allocation.principalMinor),
    interest: format(allocation.interestMinor),
    fee: format(allocation.feeMinor),
    penalty: format(allocation.penaltyMinor),
    overpayment: format(allocation.overpaymentMinor),
    lines: allocation.lines.map((line) => ({
      installmentNumber: line.installmentNumber,
      component: line.component,
      amount: format(line.amountMinor),
    })),
  };
}
