/**
 * The merchant-advance part of `npm run demo` (docs/processes.md P6 "Merchant advances"), over HTTP as
 * an integrator would: a merchant customer, an advance of 10,000.00 USD buying 12,500.00 of receivables with a 10 %
 * holdback remitted DAILY, a week of daily sales (the seven days ending yesterday, UTC) each followed by its
 * remittance recorded as external — the fifth day's remittance 10.00 short — and the reconciliation (`GET
 * /v1/merchant-advances/{advanceId}/reconciliation`), which is `unmatched` with a difference of 10.00 on that day
 * only. Every call is a typed call of the client (client/); every POST carries an Idempotency-Key. Needs only the
 * API (no worker). Throws when a step answers other than expected; returns the reconciliation body.
 */
import { randomBytes } from 'node:crypto';
import { formatMinor, parseDecimalToMinor } from '../domain/money';
import {
  type DemoCredential,
  demoClient,
  type Exchange,
  type RequestBodyOf,
  reportingTo,
} from './http-client';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field
type JsonBody = Record<string, any>;

/** Daily gross sales of the demo week (decimal strings, USD). */
const weekSales = ['1000.05', '1000.15', '1250.00', '980.40', '1310.25', '875.10', '1422.35'];

/** The UTC calendar date `days` days before `now` (ISO `YYYY-MM-DD`). */
function utcDateBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** Letters only: refs and keys never carry digit runs that look like identifiers (domain/sensitive-data.ts). */
function letters(length: number): string {
  return [...randomBytes(length)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
}

/**
 * Runs the flow as `credential` against `baseUrl`, reporting each request and answer to `onExchange`. Returns the
 * reconciliation `{advanceId, status, periods: [{periodStart, periodEnd, reportedSales, calculatedRemittance,
 * settledRemittance, postedRemittance, difference}]}` (money as decimal strings).
 */
export async function runMerchantAdvanceDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
): Promise<JsonBody> {
  // Typed calls through the client (client/): it gives each POST its own Idempotency-Key.
  const client = demoClient(
    baseUrl,
    credential,
    'lending:read lending:write',
    'merchant.servicing',
    onExchange,
  );
  const reported = reportingTo(onExchange);

  const runRef = letters(8);
  const merchantBody = { firstName: 'Rosa', lastName: 'Bakery', externalId: `merchant-${runRef}` };
  const merchant = await reported(
    'POST',
    '/v1/customers',
    merchantBody,
    201,
    client.POST('/v1/customers', { body: merchantBody }),
  );
  const advanceBody: RequestBodyOf<'/v1/merchant-advances', 'post'> = {
    customerId: merchant.customerId,
    advanceAmount: '10000.00',
    purchasedAmount: '12500.00',
    holdbackRate: '0.1',
    currency: 'USD',
    remittanceFrequency: 'DAILY',
  };
  const advance = await reported(
    'POST',
    '/v1/merchant-advances',
    advanceBody,
    201,
    client.POST('/v1/merchant-advances', { body: advanceBody }),
  );
  const advancePath = `/v1/merchant-advances/${advance.advanceId}`;
  const byAdvance = { path: { advanceId: advance.advanceId } };
  const now = new Date();
  for (const [index, amount] of weekSales.entries()) {
    const day = utcDateBefore(now, weekSales.length - index);
    const salesBody = { periodStart: day, periodEnd: day, amount, sourceRef: `pos-${runRef}-${letters(6)}` };
    const report = await reported(
      'POST',
      `${advancePath}/reported-sales`,
      salesBody,
      201,
      client.POST('/v1/merchant-advances/{advanceId}/reported-sales', { body: salesBody, params: byAdvance }),
    );
    // The fifth day's remittance comes in 10.00 short.
    const calculated = report.calculatedRemittance;
    const remitted = index === 4 ? formatMinor(parseDecimalToMinor(calculated, 2) - 1000n, 2) : calculated;
    const remittanceBody = {
      periodStart: day,
      periodEnd: day,
      amount: remitted,
      externalRecordRef: `bank-${runRef}-${letters(6)}`,
      effectiveDate: day,
    };
    await reported(
      'POST',
      `${advancePath}/remittances/record-external`,
      remittanceBody,
      201,
      client.POST('/v1/merchant-advances/{advanceId}/remittances/record-external', {
        body: remittanceBody,
        params: byAdvance,
      }),
    );
  }
  const reconciliation = await reported(
    'GET',
    `${advancePath}/reconciliation`,
    undefined,
    200,
    client.GET('/v1/merchant-advances/{advanceId}/reconciliation', { params: byAdvance }),
  );
  const differing = reconciliation.periods.filter((p) => p.difference !== '0.00');
  if (
    reconciliation.status !== 'unmatched' ||
    differing.length !== 1 ||
    differing[0]?.difference !== '10.00'
  ) {
    throw new Error(`unexpected reconciliation: ${JSON.stringify(reconciliation)}`);
  }
  return reconciliation;
}
