/**
 * The statements part of `npm run demo` (docs/processes.md P6 "Statements"), as an integrator and an
 * operator would do it: a loan boarded by the lending flow (scripts/lending-demo-flow.ts) with eleven of its twelve
 * installments paid, on its product with `lmsConfig.statementEnabled` (checked: the flow refuses a product
 * without statements) → the statement of the twelfth installment issued by starting the tenant's statement run
 * for its statement date (due date − `statementLeadDays`) through the same port as `npm run admin -- statements
 * run --tenant <t> --as-of <date>` (workflows/lending/statement-cycle/client.ts `startTenantStatementCycle`; idempotent,
 * so a rerun adds nothing) and waiting for the run → `GET /v1/loans/{loanId}/statements` → the statement →
 * `GET …/{statementId}/pdf` saved under the OS temp directory. The reads are typed calls of the client (client/).
 *
 * Needs the running service (`npm start`) with a worker on the `lending` queue, and its Temporal server: the
 * address and namespace come from `temporal` or, as `npm run admin` finds them (workers/runtime-file.ts
 * `serviceTemporal`: `TEMPORAL_ADDRESS`, else the running service's runtime file, else `127.0.0.1:<TEMPORAL_PORT>`).
 * Throws when a step answers other than expected.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { statementDateFor, statementSettingsOf } from '../domain/lending/statements';
import { loadConfig } from '../workers/config';
import { temporalDataConverter } from '../workers/payload-codec';
import { serviceTemporal } from '../workers/runtime-file';
import { startTenantStatementCycle } from '../workflows/lending/statement-cycle/client';
import { type DemoCredential, demoClient, type Exchange, reportedCall } from './http-client';
import { type JsonBody, runLendingDemoFlow } from './lending-demo-flow';

export interface StatementDemoResult {
  loanId: number;
  statementId: number;
  /** `statement-cycle/<tenant>/<asOf>`: the tenant's run in the Temporal UI. */
  workflowId: string;
  /** `GET /v1/loans/{loanId}/statements/{statementId}`. */
  statement: JsonBody;
  /** Where the PDF was written (under the OS temp directory). */
  pdfPath: string;
}

/**
 * Runs the flow (module note); `temporal` overrides where the tenant's run is started and, with `dataConverter`,
 * the payload codec (default: the service's keys from the environment, workers/config.ts).
 */
export async function runStatementDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
  temporal?: { address: string; namespace: string; dataConverter?: DataConverter },
): Promise<StatementDemoResult> {
  // A loan with eleven of its twelve installments paid in the boarded history: ACTIVE, the last one still owed.
  const lending = await runLendingDemoFlow(baseUrl, credential, () => {}, { historyPayments: 11 });
  // Typed reads through the client (client/), its token cached.
  const reader = demoClient(baseUrl, credential, 'lending:read', 'statement.demo', onExchange);
  const productId = String(lending.productId);
  const product = await reportedCall(
    onExchange,
    'GET',
    `/v1/loanproducts/${productId}`,
    undefined,
    200,
    reader.GET('/v1/loanproducts/{productId}', { params: { path: { productId } } }),
  );
  const settings = statementSettingsOf(product.lmsConfig as Record<string, unknown> | null | undefined);
  if (!settings.enabled)
    throw new Error(
      `product ${lending.productId} has no statements (lmsConfig.statementEnabled is not true)`,
    );
  const lastInstallment = (lending.schedule.periods as JsonBody[])
    .filter((p) => typeof p.period === 'number')
    .at(-1) as JsonBody;
  const dueDate = lastInstallment.dueDate as string;
  const asOf = statementDateFor(dueDate, settings.leadDays);

  // The operator's port (`npm run admin -- statements run`): the tenant's run for the statement date, awaited.
  const config = loadConfig();
  const target = temporal ?? serviceTemporal(config);
  const connection = await Connection.connect({ address: target.address });
  let workflowId: string;
  try {
    const client = new Client({
      connection,
      namespace: target.namespace,
      dataConverter: temporal?.dataConverter ?? temporalDataConverter(config.temporalPayloadKeys),
    });
    workflowId = await startTenantStatementCycle(client, { tenantId: credential.tenant, asOf });
    await client.workflow.getHandle(workflowId).result();
  } finally {
    await connection.close();
  }

  const loanId = String(lending.loanId);
  const loanPath = `/v1/loans/${loanId}`;
  const list = await reportedCall(
    onExchange,
    'GET',
    `${loanPath}/statements?limit=10&offset=0`,
    undefined,
    200,
    reader.GET('/v1/loans/{loanId}/statements', {
      params: { path: { loanId }, query: { limit: '10', offset: '0' } },
    }),
  );
  const listed = list.items.find((s) => s.dueDate === dueDate);
  if (!listed)
    throw new Error(`no statement of loan ${lending.loanId} for ${dueDate} after run ${workflowId}`);
  const statementId = String(listed.statementId);
  const statement: JsonBody = await reportedCall(
    onExchange,
    'GET',
    `${loanPath}/statements/${statementId}`,
    undefined,
    200,
    reader.GET('/v1/loans/{loanId}/statements/{statementId}', { params: { path: { loanId, statementId } } }),
  );

  const pdfPath = `${loanPath}/statements/${statementId}/pdf`;
  const { response } = await reader.GET('/v1/loans/{loanId}/statements/{statementId}/pdf', {
    params: { path: { loanId, statementId } },
    parseAs: 'stream',
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const contentType = response.headers.get('content-type');
  onExchange({
    method: 'GET',
    path: pdfPath,
    status: response.status,
    responseBody: { contentType, bytes: bytes.length },
  });
  if (response.status !== 200 || contentType !== 'application/pdf')
    throw new Error(`GET ${pdfPath} answered ${response.status} ${contentType}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'statement-demo-'));
  const file = path.join(
    dir,
    `statement-${lending.loanId}-${statement.statementDate}-${randomBytes(3).toString('hex')}.pdf`,
  );
  await writeFile(file, bytes);
  return { loanId: lending.loanId, statementId: listed.statementId, workflowId, statement, pdfPath: file };
}
