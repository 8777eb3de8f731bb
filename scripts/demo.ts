/**
 * `npm run demo`: runs the integrator flow (scripts/demo-flow.ts) against the running service
 * (`npm start`) with a fresh credential of the sandbox tenant `demo`, printing every request and
 * response, then where to see the workflow in the Temporal UI; then the lending flow
 * (scripts/lending-demo-flow.ts: one loan boarded with a year of history) with the same credential,
 * printing every request and response (long schedules and journal pages shortened).
 * Env: DEMO_BASE_URL (default http://127.0.0.1:$PORT), TEMPORAL_UI_URL (default http://127.0.0.1:8233).
 */
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { startEmbeddedPostgres } from '../db/embedded';
import { loadConfig, operationDeps } from '../workers/config';
import { type Exchange, runDemoFlow } from './demo-flow';
import { runLendingDemoFlow } from './lending-demo-flow';

const config = loadConfig();
const baseUrl = process.env.DEMO_BASE_URL ?? `http://127.0.0.1:${config.port}`;
const uiUrl = process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${config.temporalUiPort}`;

const health = await fetch(`${baseUrl}/healthz`).catch(() => null);
if (health?.status !== 200) {
  process.stderr.write(
    `The service does not answer at ${baseUrl}/healthz: start it with \`npm start\` first.\n`,
  );
  process.exit(1);
}

const embedded = config.databaseUrl
  ? null
  : await startEmbeddedPostgres({ dataDir: `${config.dataDir}/postgres`, port: config.embeddedPostgresPort });
const { db, close } = createDb(config.databaseUrl ?? embedded!.url, { maxConnections: 2 });
const platform = createPlatformOperations(operationDeps(db, config));
const client = await platform.createClient({
  tenantId: 'demo',
  environment: config.environment,
  scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'],
  permissions: ['ALL'],
  description: 'npm run demo',
});
await close();
await embedded?.stop();

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
