/**
 * `npm run demo`: runs the integrator flow (scripts/demo-flow.ts) against the running service
 * (`npm start`) with a fresh credential of the sandbox tenant `demo`, printing every request and
 * response, then where to see the workflow in the Temporal UI; then the lending flow
 * (scripts/lending-demo-flow.ts: one loan boarded with a year of history) with the same credential,
 * printing every request and response (long schedules and journal pages shortened); then a payment intent
 * (scripts/payment-demo-flow.ts: submitted, settled and returned through the sandbox simulations) and the link to
 * its workflow in the Temporal UI; then the servicing flow (scripts/servicing-demo-flow.ts: a case with custom
 * fields, a promise to pay kept by a recorded payment, an AI output citing evidence, an SMS consent update, the
 * case closed PROMISE_KEPT) and the link to the promise's workflow; then a hardship offer
 * (scripts/hardship-demo-flow.ts: a delinquent loan, a deferral above the straight-through maximum approved by a
 * second client holding actions:approve, accepted, evidenced, applied by the offer's process, the new schedule) and
 * the link to its workflow; then a statement (scripts/statement-demo-flow.ts:
 * the statement cycle run for a loan's last due date − lead days, the statement listed, its PDF written to a file
 * whose path is printed) and a merchant advance (scripts/merchant-advance-demo-flow.ts: a week of daily sales and
 * remittances, one short, and the reconciliation) and a pay-in-4 purchase (scripts/pay-in-4-demo-flow.ts: a 25 %
 * down payment recorded with the funding at checkout, three ACH payments of which one is returned R01 and adds the
 * product's NSF fee, a snooze fee added to the last installment and waived) and the delinquency flow
 * (scripts/delinquency-demo-flow.ts: a bucket with a collections range, an overdue penalty and charge-off at 120 days;
 * two loans behind; yesterday closed by `POST /v1/cob/runs`; the penalties, range, history and collections case; a
 * cure that sets the tag at once and closes the case CURED; a charged-off loan's payment posted as a recovery).
 * Webhooks (docs/integrating.md "Webhooks"; docs/design.md §5): before the flows it starts a local receiver on 127.0.0.1
 * (scripts/webhook-receiver.ts), subscribes it to `case.transitioned`, `funding.posted`, `payment.returned`,
 * `payment.posted`, `promise.kept`, `contact.consent.updated`, `hardship.offer.applied`, `loan.charge.added` and
 * `loan.charge.waived` (and the close-of-business events `loan.penalty.assessed`, `loan.delinquency.changed`,
 * `loan.chargeoff.posted` that the build's event catalogue has) and sends it a test event; after the flows it
 * waits (at most 30 s) for the test event and one delivery of each of those types but `funding.posted`, verifies each delivery's signature with
 * `client/src/webhooks.ts` and prints them. Exits 1 when one is missing or fails verification.
 * Every request goes through the typed client (client/; scripts/http-client.ts `demoClient`):
 * typed calls where a flow calls a fixed route, its token cached per flow, an Idempotency-Key per mutation,
 * 401 and 429/503 retries; the token requests are printed without the token.
 * The credential is made in the running service's database, found as `npm run admin` finds it
 * (workers/runtime-file.ts: `DATABASE_URL`, else `<DATA_DIR>/runtime.json`; exit 2 without either).
 * Env: DEMO_BASE_URL (default: the running service's address from runtime.json, else
 * http://127.0.0.1:$PORT), TEMPORAL_UI_URL (default http://127.0.0.1:8233).
 */
import { createPlatformOperations } from '../activities';
import type { operations } from '../client/src';
import { createDb } from '../db/client';
import { eventApiVersion, isEventType } from '../domain/events';
import { loadConfig, operationDeps } from '../workers/config';
import { NoServiceDatabaseError, readRuntimeFile, serviceDatabase } from '../workers/runtime-file';
import { runDelinquencyDemoFlow } from './delinquency-demo-flow';
import { type Exchange, runDemoFlow } from './demo-flow';
import { runHardshipDemoFlow } from './hardship-demo-flow';
import { demoClient } from './http-client';
import { runLendingDemoFlow } from './lending-demo-flow';
import { runMerchantAdvanceDemoFlow } from './merchant-advance-demo-flow';
import { runPayIn4DemoFlow } from './pay-in-4-demo-flow';
import { runPaymentDemoFlow } from './payment-demo-flow';
import { runServicingDemoFlow } from './servicing-demo-flow';
import { runStatementDemoFlow } from './statement-demo-flow';
import { startWebhookReceiver } from './webhook-receiver';

/** The body of `POST /v1/servicing/webhook-subscriptions`, as the client's generated types have it. */
type SubscriptionRequest =
  operations['postV1ServicingWebhookSubscriptions']['requestBody']['content']['application/json'];

const config = loadConfig();
const baseUrl =
  process.env.DEMO_BASE_URL ?? readRuntimeFile(config.dataDir)?.baseUrl ?? `http://127.0.0.1:${config.port}`;
const uiUrl = process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${config.temporalUiPort}`;

// A plain fetch, not the client: /healthz needs no token, and no credential exists yet to get one with.
const health = await fetch(`${baseUrl}/healthz`).catch(() => null);
if (health?.status !== 200) {
  process.stderr.write(
    `The service does not answer at ${baseUrl}/healthz: start it with \`npm start\` first.\n`,
  );
  process.exit(1);
}

let databaseUrl: string;
try {
  databaseUrl = serviceDatabase(config).databaseUrl;
} catch (err) {
  if (!(err instanceof NoServiceDatabaseError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}
const { db, close } = createDb(databaseUrl, { maxConnections: 2 });
const platform = createPlatformOperations(operationDeps(db, config));
const client = await platform.createClient({
  tenantId: 'demo',
  environment: config.environment,
  scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'],
  permissions: ['ALL'],
  description: 'npm run demo',
});
// The second person of maker-checker (docs/servicing.md "Hardship offers"): approves hardship offers, nothing else.
const checkerClient = await platform.createClient({
  tenantId: 'demo',
  environment: config.environment,
  scopes: ['servicing:read', 'actions:approve'],
  permissions: ['READ_HARDSHIPOFFER', 'APPROVE_HARDSHIPOFFER'],
  description: 'npm run demo (hardship checker)',
});
await close();

process.stdout.write(
  `Fresh credential for tenant demo: client ${client.clientId} (secret shown once, not printed)\n\n`,
);
const print = (x: Exchange, body: unknown = x.responseBody) => {
  process.stdout.write(`> ${x.method} ${x.path}\n`);
  if (x.requestBody !== undefined) {
    process.stdout.write(
      `${typeof x.requestBody === 'string' ? x.requestBody : JSON.stringify(x.requestBody, null, 2)}\n`,
    );
  }
  process.stdout.write(`< ${x.status}\n${JSON.stringify(body, null, 2)}\n\n`);
};
const credential = { tenant: 'demo', clientId: client.clientId, clientSecret: client.clientSecret };
/**
 * The close-of-business events the delinquency flow waits for (docs/processes.md P7): those this build's event
 * catalogue has (a build without the close-of-business step lacks the first two, and subscribing to an unknown type
 * is refused).
 */
const closeOfBusinessEvents = [
  'loan.penalty.assessed',
  'loan.delinquency.changed',
  'loan.chargeoff.posted',
].filter((type): type is SubscriptionRequest['eventTypes'][number] => isEventType(type));

// Webhooks: a local receiver, subscribed before the flows so their events reach it.
let signingSecret = '';
const receiver = await startWebhookReceiver({ secrets: () => [signingSecret] });
let exitCode = 0;
/** Deactivates the demo's subscription (set once it exists), so later runs leave no ACTIVE subscription to a closed receiver. */
let deactivateSubscription: (() => Promise<void>) | null = null;
try {
  // The typed client (client/): typed paths and bodies, its token cached, an Idempotency-Key per mutation.
  const hooks = demoClient(baseUrl, credential, 'servicing:read servicing:write', 'demo.integrator', (x) =>
    print(x),
  );
  const subscribeBody: SubscriptionRequest = {
    url: receiver.url,
    eventTypes: [
      'case.transitioned',
      'funding.posted',
      'payment.posted',
      'payment.returned',
      'promise.kept',
      'contact.consent.updated',
      'hardship.offer.applied',
      'loan.charge.added',
      'loan.charge.waived',
      ...closeOfBusinessEvents,
    ],
    apiVersion: eventApiVersion,
    description: 'npm run demo: local receiver',
  };
  const subscribed = await hooks.POST('/v1/servicing/webhook-subscriptions', { body: subscribeBody });
  const subscription = subscribed.data;
  print(
    {
      method: 'POST',
      path: '/v1/servicing/webhook-subscriptions',
      requestBody: subscribeBody,
      status: subscribed.response.status,
      responseBody: subscription ?? subscribed.error,
    },
    subscription
      ? {
          ...subscription,
          signingSecret: `${subscription.signingSecret.slice(0, 10)}… (shown once; kept by the receiver)`,
        }
      : subscribed.error,
  );
  if (subscribed.response.status !== 201 || !subscription)
    throw new Error(`subscribing the receiver answered ${subscribed.response.status}`);
  signingSecret = subscription.signingSecret;
  const subscriptionId = String(subscription.subscriptionId);
  const subscriptionPath = `/v1/servicing/webhook-subscriptions/${subscriptionId}`;
  const bySubscription = { params: { path: { subscriptionId } } };
  deactivateSubscription = async () => {
    const deactivated = await hooks.POST(
      '/v1/servicing/webhook-subscriptions/{subscriptionId}/deactivate',
      bySubscription,
    );
    process.stdout.write(
      `> POST ${subscriptionPath}/deactivate\n< ${deactivated.response.status}: subscription ${deactivated.data?.status ?? JSON.stringify(deactivated.error)} (the receiver stops now)\n`,
    );
  };
  const tested = await hooks.POST(
    '/v1/servicing/webhook-subscriptions/{subscriptionId}/test',
    bySubscription,
  );
  print({
    method: 'POST',
    path: `${subscriptionPath}/test`,
    status: tested.response.status,
    responseBody: tested.data ?? tested.error,
  });
  if (tested.response.status !== 202) throw new Error(`the test event answered ${tested.response.status}`);
  process.stdout.write(
    `Webhook receiver listening at ${receiver.url} (subscription ${subscription.subscriptionId})\n\n`,
  );

  const result = await runDemoFlow(baseUrl, credential, (x) => print(x));
  process.stdout.write(
    [
      `Flow complete: case ${result.caseId}, privacy request ${result.requestId}, ${result.effects.length} effects.`,
      `Workflow ${result.workflowId}:`,
      `  ${uiUrl}/namespaces/${config.temporalNamespace}/workflows/${encodeURIComponent(result.workflowId)}`,
      `All of the tenant's workflows: ${uiUrl}/namespaces/${config.temporalNamespace}/workflows?query=${encodeURIComponent('TenantId="demo"')}`,
      '',
      'Lending: boarding one loan with a year of history',
      '',
    ].join('\n'),
  );

  /** A response body as printed: schedule rows, transactions and journal pages are summarised, not listed. */
  function shortened(body: unknown): unknown {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    const out: Record<string, unknown> = { ...body };
    const schedule = out.repaymentSchedule as Record<string, unknown> | undefined;
    if (schedule && Array.isArray(schedule.periods)) {
      const periods = schedule.periods as { period?: number; dueDate: string; totalDueForPeriod: string }[];
      const installments = periods.filter((p) => p.period !== undefined);
      out.repaymentSchedule = {
        ...schedule,
        periods: `${periods.length} rows: the disbursement and ${installments.length} installments, ${installments[0]?.dueDate} … ${installments.at(-1)?.dueDate}, first ${installments[0]?.totalDueForPeriod}, last ${installments.at(-1)?.totalDueForPeriod}`,
      };
    }
    if (Array.isArray(out.transactions)) out.transactions = `${out.transactions.length} transactions`;
    if (Array.isArray(out.pageItems) && out.pageItems.length > 4) {
      const items = out.pageItems as unknown[];
      out.pageItems = [...items.slice(0, 3), `… ${items.length - 3} more lines`];
    }
    return out;
  }

  const lending = await runLendingDemoFlow(baseUrl, credential, (x) => print(x, shortened(x.responseBody)));
  const debit = lending.journal.pageItems.reduce((s, l) => s + Math.round(Number(l.debit) * 100), 0);
  const credit = lending.journal.pageItems.reduce((s, l) => s + Math.round(Number(l.credit) * 100), 0);
  process.stdout.write(
    [
      `Lending flow complete: customer ${lending.customerId}, loan ${lending.loanId} (${lending.summary.status.code}), funding ${lending.fundingId}, ${lending.paymentIds.length} payments.`,
      `  APR ${lending.loan.aprDisclosure?.annualPercentageRate} %, finance charge ${lending.loan.aprDisclosure?.financeCharge}, total of payments ${lending.loan.aprDisclosure?.totalOfPayments}.`,
      `  Journal: ${lending.journal.totalFilteredRecords} lines, debits ${(debit / 100).toFixed(2)} = credits ${(credit / 100).toFixed(2)}.`,
      '',
    ].join('\n'),
  );

  // Payments on rails: an intent → SUBMITTED → settled (sandbox) → POSTED → returned R01 → RETURNED.
  const paid = await runPaymentDemoFlow(baseUrl, credential, (x) => print(x, shortened(x.responseBody)));
  process.stdout.write(
    [
      `Payment intent ${paid.paymentId} on loan ${paid.loanId}: ${paid.payment.history.map((h: { status: string }) => h.status).join(' → ')} (return code ${paid.payment.returnCode}).`,
      `  Total outstanding ${paid.outstanding.before} → posted ${paid.outstanding.posted} → returned ${paid.outstanding.returned}.`,
      `  Its durable process in the Temporal UI: ${uiUrl}/namespaces/default/workflows/${encodeURIComponent(paid.workflowId)}`,
      '',
    ].join('\n'),
  );

  // The servicing plane: case with custom fields → promise → payment → KEPT → AI output → consent → close.
  process.stdout.write(
    'Servicing: a collections case with custom fields, a promise to pay, an AI output, a consent update\n\n',
  );
  const serviced = await runServicingDemoFlow(baseUrl, credential, (x) =>
    print(x, shortened(x.responseBody)),
  );
  process.stdout.write(
    [
      `Servicing flow complete: case ${serviced.caseId} of ${serviced.customerRef} closed PROMISE_KEPT; promise ${serviced.promiseId} ${serviced.promise.status}.`,
      `  AI output ${serviced.aiOutput.outputId}: ${serviced.aiOutput.status}, review required ${serviced.aiOutput.reviewRequired}; SMS consent update ${serviced.consent.outcome}.`,
      `  Form entry ${serviced.entryId}: ${serviced.formHistory.map((h) => h.action).join(' → ')}; case effects ${serviced.effects.map((e) => e.effectType).join(', ')}.`,
      `  The promise's durable process in the Temporal UI: ${uiUrl}/namespaces/default/workflows/${encodeURIComponent(serviced.promiseWorkflowId)}`,
      '',
    ].join('\n'),
  );

  // Statements: the cycle run for the loan's last due date − lead days, listed, its PDF saved.
  const stated = await runStatementDemoFlow(baseUrl, credential, (x) => print(x, shortened(x.responseBody)));
  const figures = stated.statement.figures;
  process.stdout.write(
    [
      `Statement ${stated.statementId} of loan ${stated.loanId}: period ${figures.periodStart} … ${figures.periodEnd}, new balance ${figures.newBalance}, amount due ${figures.amountDue} ${figures.currency} by ${figures.dueDate}, APR ${figures.annualPercentageRate} %.`,
      `  Its PDF: ${stated.pdfPath}`,
      `  The tenant's statement run in the Temporal UI: ${uiUrl}/namespaces/${config.temporalNamespace}/workflows/${encodeURIComponent(stated.workflowId)}`,
      '',
    ].join('\n'),
  );

  // Hardship: a delinquent loan → a deferral above straight-through → second-person approval → accepted →
  // evidence confirmed by the offer's process → deferral applied → the new schedule.
  process.stdout.write(
    'Hardship: a deferral needing approval, accepted, evidenced and applied to a delinquent loan\n\n',
  );
  const relieved = await runHardshipDemoFlow(
    baseUrl,
    credential,
    { tenant: 'demo', clientId: checkerClient.clientId, clientSecret: checkerClient.clientSecret },
    (x) => print(x, shortened(x.responseBody)),
  );
  const moved = relieved.scheduleAfter.filter(
    (row) =>
      relieved.scheduleBefore.find((b) => b.installmentNumber === row.installmentNumber)?.totalDue !==
      row.totalDue,
  );
  process.stdout.write(
    [
      `Hardship offer ${relieved.offerId} (${relieved.programCode}) on loan ${relieved.loanId}: ${relieved.statuses.join(' → ')}; approved by ${relieved.offer.decisions[0]?.actor} (maker ${relieved.offer.createdBy}).`,
      `  New schedule version ${relieved.offer.application.scheduleVersion}: ${relieved.scheduleBefore.length} → ${relieved.scheduleAfter.length} installments, total due ${relieved.offer.application.totalDueBefore} → ${relieved.offer.application.totalDueAfter} (minor units).`,
      ...moved.map((row) => `  installment ${row.installmentNumber} due ${row.dueDate}: ${row.totalDue}`),
      `  The offer's durable process in the Temporal UI: ${uiUrl}/namespaces/${config.temporalNamespace}/workflows/${encodeURIComponent(relieved.workflowId)}`,
      '',
    ].join('\n'),
  );

  // Merchant advances: a week of daily sales and remittances (one short), then the reconciliation.
  const reconciled = await runMerchantAdvanceDemoFlow(baseUrl, credential, (x) => print(x));
  const short = (reconciled.periods as { periodStart: string; difference: string }[]).filter(
    (p) => p.difference !== '0.00',
  );
  process.stdout.write(
    [
      `Merchant advance ${reconciled.advanceId}: ${reconciled.periods.length} periods reconciled, status ${reconciled.status}${short.length ? `; difference ${short.map((p) => `${p.difference} on ${p.periodStart}`).join(', ')}` : ''}.`,
      '',
    ].join('\n'),
  );

  // Pay in 4: a down payment at checkout, three ACH payments (one returned R01 with its NSF fee), a snooze fee
  // added and waived.
  process.stdout.write(
    'Pay in 4: a purchase with a down payment, a returned payment and a waived snooze fee\n\n',
  );
  const payIn4 = await runPayIn4DemoFlow(baseUrl, credential, (x) => print(x, shortened(x.responseBody)));
  const nsfFee = payIn4.returned.nsfFee;
  process.stdout.write(
    [
      `Pay in 4: loan ${payIn4.loanId}: down payment ${payIn4.downPayment.amount} recorded with the funding (${payIn4.downPayment.externalId}); payment ${payIn4.returned.paymentId} returned R01 → ${nsfFee ? `NSF fee ${nsfFee.amount} ${nsfFee.currency} (loan charge ${nsfFee.loanChargeId})` : 'no NSF fee'}; snooze fee ${payIn4.snoozeFee.amount} added and waived (${payIn4.snoozeFee.amountWaived} waived, ${payIn4.snoozeFee.amountOutstanding} outstanding); status ${payIn4.status}.`,
      ...payIn4.periods
        .filter((p) => typeof p.period === 'number')
        .map(
          (p) =>
            `  installment ${p.period}${p.downPaymentPeriod ? ' (down payment)' : ''} due ${p.dueDate}: due ${p.totalDueForPeriod}, paid ${p.totalPaidForPeriod}, waived ${p.totalWaivedForPeriod ?? '0.00'}, outstanding ${p.totalOutstandingForPeriod}`,
        ),
      '',
    ].join('\n'),
  );

  // Delinquency: a bucket with a collections range, an overdue penalty, automatic charge-off; two loans behind,
  // yesterday closed by a close-of-business run; the cure of one, a recovery payment on the other.
  process.stdout.write(
    'Delinquency: close of business for yesterday over two loans that fell behind, a cure and a recovery\n\n',
  );
  const delinquency = await runDelinquencyDemoFlow(baseUrl, credential, (x) =>
    print(x, shortened(x.responseBody)),
  );
  const a = delinquency.behindLoan;
  const b = delinquency.chargedOffLoan;
  const rangeName = (r: { classification?: string } | null) => r?.classification ?? 'NO_DELINQUENCY';
  process.stdout.write(
    [
      delinquency.run
        ? `Close of business ${delinquency.businessDate}: run ${delinquency.run.runId} ${delinquency.run.status}, loans ${JSON.stringify(delinquency.run.loans)}.`
        : `Close of business ${delinquency.businessDate}: this service has no POST /v1/cob/runs yet; the reads below are before any run.`,
      `  loan ${a.loanId}: ${a.penalties.length} penalties (${a.penalties.map((p) => `${p.amount} for the installment due ${p.dueDate}`).join(', ') || 'none'}); range ${rangeName(a.rangeAfterRun)}; ${a.delinquentAfterRun?.delinquentDays ?? '?'} days delinquent, ${a.delinquentAfterRun?.delinquentAmount ?? '?'} overdue`,
      `  history: ${a.history.map((h) => `${h.businessDate} ${h.previousClassification ?? 'NO_DELINQUENCY'} → ${h.classification}${h.collectionsCaseId ? ` (case ${h.collectionsCaseId})` : ''}${h.collectionsSuppressedBy ? ` (case held back by ${h.collectionsSuppressedBy})` : ''}`).join('; ') || 'none'}`,
      `  collections case: ${a.collectionsCase ? `${a.collectionsCase.caseId} ${a.collectionsCase.caseTypeCode} ${a.collectionsCase.status}: ${a.collectionsCase.summary}` : 'none'}`,
      `  cure: ${a.cure.amount} paid (payment ${a.cure.paymentId}) → range ${rangeName(a.rangeAfterCure)} at once, ${a.delinquentAfterCure?.delinquentDays ?? '?'} days delinquent; history ${a.historyAfterCure[0] ? `${a.historyAfterCure[0].businessDate} ${a.historyAfterCure[0].previousClassification ?? 'NO_DELINQUENCY'} → ${a.historyAfterCure[0].classification}${a.historyAfterCure[0].collectionsCaseId ? ` (case ${a.historyAfterCure[0].collectionsCaseId})` : ''}` : 'none'}; case ${a.collectionsCaseAfterCure ? `${a.collectionsCaseAfterCure.status}${a.collectionsCaseAfterCure.outcomeCode ? ` ${a.collectionsCaseAfterCure.outcomeCode}` : ''}` : 'none'}${a.laterRun ? `; a run for ${delinquency.businessDate} limited to the loan: ${a.laterRun.status}, ${JSON.stringify(a.laterRun.loans)} (the day is closed: the next close is tomorrow's run)` : ''}`,
      `  loan ${b.loanId}: charged off ${b.chargedOffOnDate ?? '?'} by the ${b.chargedOffBy === 'run' ? 'run (past chargeOffDaysPastDue)' : 'charge-off command (the run did not)'}; recovery ${b.recovery.amount} (payment ${b.recovery.paymentId}): ${b.recoveryLines.map((l) => `${l.accountCode} Dr ${l.debit} Cr ${l.credit}`).join(', ')}`,
      '',
    ].join('\n'),
  );
  const closedByRun = delinquency.run !== null;

  // Wait for the deliveries: the test event and one of each real event type, then a quiet second for the rest.
  const wanted = [
    'webhook.test',
    'case.transitioned',
    'payment.posted',
    'payment.returned',
    'promise.kept',
    'contact.consent.updated',
    'hardship.offer.applied',
    'loan.charge.added',
    'loan.charge.waived',
    // Written by the run (penalty, classification) or by the charge-off either way.
    ...closeOfBusinessEvents.filter((type) => closedByRun || type === 'loan.chargeoff.posted'),
  ];
  const has = (type: string) => receiver.received.some((d) => d.envelope?.eventType === type);
  process.stdout.write(`Webhooks: waiting (at most 30 s) for ${wanted.join(', ')} …\n`);
  const deadline = Date.now() + 30_000;
  await receiver.waitFor(() => wanted.every(has), 30_000);
  for (let seen = -1; seen !== receiver.received.length && Date.now() < deadline; ) {
    seen = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  for (const d of receiver.received) {
    const type = d.envelope?.eventType ?? '(unverified)';
    const verdict = d.envelope ? 'signature verified' : `REJECTED: ${d.verificationError}`;
    process.stdout.write(
      `< webhook ${type} ${d.envelope?.eventId ?? ''} Service-Webhook-Id ${d.deliveryId}: ${verdict}, answered ${d.answeredStatus}\n  ${d.envelope ? JSON.stringify(d.envelope) : d.body}\n`,
    );
  }
  const missing = wanted.filter((type) => !has(type));
  const rejected = receiver.received.filter((d) => d.envelope === null);
  // The service's side of the same deliveries (each attempt is recorded right after the receiver answered).
  const deliveriesPath = `${subscriptionPath}/deliveries?pageSize=200`;
  const listed = await hooks.GET('/v1/servicing/webhook-subscriptions/{subscriptionId}/deliveries', {
    params: { path: { subscriptionId }, query: { pageSize: '200' } },
  });
  const page = { data: listed.data?.data ?? [] };
  const states: Record<string, number> = {};
  for (const d of page.data ?? []) states[d.state] = (states[d.state] ?? 0) + 1;
  process.stdout.write(
    [
      '',
      `> GET ${deliveriesPath}`,
      `< ${listed.response.status}: ${page.data?.length ?? 0} deliveries by state ${JSON.stringify(states)}`,
      `Webhooks: ${receiver.received.length} deliveries received, ${receiver.received.length - rejected.length} verified.`,
      `  The subscription's deliveries (attempts, response codes, latency): GET ${baseUrl}${subscriptionPath}/deliveries`,
      '',
    ].join('\n'),
  );
  if (missing.length > 0) {
    process.stderr.write(`Webhooks: no verified delivery of ${missing.join(', ')} arrived within 30 s.\n`);
    exitCode = 1;
  }
  if (rejected.length > 0) {
    process.stderr.write(`Webhooks: ${rejected.length} deliveries failed verification.\n`);
    exitCode = 1;
  }
} finally {
  await deactivateSubscription?.().catch((err: unknown) => {
    process.stderr.write(`Deactivating the demo subscription failed: ${String(err)}\n`);
  });
  await receiver.close();
}
process.exit(exitCode);
