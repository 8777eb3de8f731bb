/**
 * scripts/statement-demo-flow.ts over real HTTP against the app served on a free local port, with a worker on the
 * `lending` queue and the operator's start port on the test namespace: the lending flow boards a
 * loan with eleven payments on its statement-enabled product, the tenant's run for the last installment's statement
 * date issues its statement, the list shows it and the PDF is saved; the file is read back as text (unpdf). The
 * operator's rerun of the same day (the same port as `npm run admin -- statements run`) adds nothing.
 */

import { readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runStatementDemoFlow } from '../../scripts/statement-demo-flow';
import { startTenantStatementCycle } from '../../workflows/lending/statement-cycle/client';
import { call, createTestContext, credentialFor, type TestContext, uniqueTenant } from '../support/context';

let ctx: TestContext;
let server: ReturnType<typeof serve>;
let baseUrl: string;

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await ctx?.close();
});

describe('runStatementDemoFlow', () => {
  it('boards a loan, runs the statement cycle for its statement date, lists the statement and saves its PDF', async () => {
    const tenant = uniqueTenant('stmt-demo');
    const cred = await credentialFor(ctx, tenant, { scopes: ['lending:read', 'lending:write'] });
    const temporal = {
      address: inject('temporalAddress'),
      namespace: ctx.client.options.namespace,
      dataConverter: ctx.client.options.dataConverter,
    };
    const result = await runStatementDemoFlow(baseUrl, cred, () => {}, temporal);
    try {
      expect(result.workflowId).toBe(`statement-cycle/${tenant}/${result.statement.statementDate}`);
      expect(result.statement).toMatchObject({ loanId: result.loanId, statementId: result.statementId });
      const f = result.statement.figures;
      expect(f.installmentNumber).toBe(12);
      expect(f.transactions.filter((t: { type: string }) => t.type === 'PAYMENT')).toHaveLength(11);
      const summary = await call(
        ctx,
        cred,
        'GET',
        `/v1/loans/${result.loanId}/summary?asOfDate=${result.statement.statementDate}`,
      );
      expect(f.pastDue).toBe(summary.body.overdue.total);
      expect(path.dirname(path.dirname(result.pdfPath))).toBe(
        path.resolve((await import('node:os')).tmpdir()),
      );
      const bytes = new Uint8Array(await readFile(result.pdfPath));
      const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
      expect(text).toContain(`Amount due ${f.amountDue} USD`);
      expect(text).toContain(`Payment due date ${f.dueDate}`);
      expect(text).toContain(`${f.annualPercentageRate}%`);

      const asOf = result.statement.statementDate as string;
      const rerunId = await startTenantStatementCycle(ctx.client, { tenantId: tenant, asOf });
      const rerun = (await ctx.client.workflow.getHandle(rerunId).result()) as {
        generated: unknown[];
        existing: { statementId: number }[];
      };
      expect(rerun.generated).toEqual([]);
      expect(rerun.existing.map((s) => s.statementId)).toEqual([result.statementId]);
      const list = await call(ctx, cred, 'GET', `/v1/loans/${result.loanId}/statements`);
      expect(list.body.items).toHaveLength(1);
    } finally {
      await rm(path.dirname(result.pdfPath), { recursive: true, force: true });
    }
  }, 120_000);
});
