/**
 * The merchant-advance part of `npm run demo` (issue 11 §2; DESIGN-processes P6 "Merchant advances"), over HTTP as
 * an integrator would: a merchant customer, an advance of 10,000.00 USD buying 12,500.00 of receivables with a 10 %
 * holdback remitted DAILY, a week of daily sales (the seven days ending yesterday, UTC) each followed by its
 * remittance recorded as external — the fifth day's remittance 10.00 short — and the reconciliation (`GET
 * /v1/merchant-advances/{advanceId}/reconciliation`), which is `unmatched` with a difference of 10.00 on that day
 * only. Every POST carries an Idempotency-Key. Needs only the API (no worker). Throws when a step answers other than
 * expected; returns the reconciliation body.
 */
import { randomBytes } from 'node:crypto';
import { formatMinor, parseDecimalToMinor } from '../domain/money';
import { clientRequest, type DemoCredential, demoClient, type Exchange } from './http-client';

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
  const session = demoClient(
    baseUrl,
    credential,
    'lending:read lending:write',
    'merchant.servicing',
    onExchange,
  );
  const send = async (method: string, path: string, body: unknown, expected: number): Promise<JsonBody> => {
    // The client gives each POST its own Idempotency-Key.
    const response = await clientRequest(session, method, path, body);
    const responseBody = (await response.json()) as JsonBody;
    onExchange({ method, path, requestBody: body, status: response.status, responseBody });
    if (response.status !== expected) {
      throw new Error(
        `${method} ${path} answered ${response.status}, expected ${expected}: ${JSON.stringify(responseBody)}`,
      );
    }
    return responseBody;
  };

  const runRef = letters(8);
  const merchant = await send(
    'POST',
    '/v1/customers',
    { firstName: 'Rosa', lastName: 'Bakery', externalId: `merchant-${runRef}` },
    201,
  );
  const advance = await send(
    'POST',
    '/v1/merchant-advances',
    {
      customerId: merchant.customerId,
      advanceAmount: '10000.00',
      purchasedAmount: '12500.00',
      holdbackRate: '0.1',
      currency: 'USD',
      remittanceFrequency: 'DAILY',
    },
    201,
  );
  const advancePath = `/v1/merchant-advances/${advance.advanceId}`;
  const now = new Date();
  for (const [index, amount] of weekSales.entries()) {
    const day = utcDateBefore(now, weekSales.length - index);
    const report = await send(
      'POST',
      `${advancePath}/reported-sales`,
      { periodStart: day, periodEnd: day, amount, sourceRef: `pos-${runRef}-${letters(6)}` },
      201,
    );
    // The fifth day's remittance comes in 10.00 short.
    const calculated = report.calculatedRemittance as string;
    const remitted = index === 4 ? formatMinor(parseDecimalToMinor(calculated, 2) - 1000n, 2) : calculated;
    await send(
      'POST',
      `${advancePath}/remittances/record-external`,
      {
        periodStart: day,
        periodEnd: day,
        amount: remitted,
        externalRecordRef: `bank-${runRef}-${letters(6)}`,
        effectiveDate: day,
      },
      201,
    );
  }
  const reconciliation = await send('GET', `${advancePath}/reconciliation`, undefined, 200);
  const differing = (reconciliation.periods as JsonBody[]).filter((p) => p.difference !== '0.00');
  if (
    reconciliation.status !== 'unmatched' ||
    differing.length !== 1 ||
    differing[0]?.difference !== '10.00'
  ) {
    throw new Error(`unexpected reconciliation: ${JSON.stringify(reconciliation)}`);
  }
  return reconciliation;
}
