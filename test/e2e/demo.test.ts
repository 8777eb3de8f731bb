/**
 * End to end: `npm run demo` (scripts/demo.ts) against the stack as `npm start` runs it.
 * The demo runs both flows, its local receiver gets the test event and the real events, verifies each
 * signature with `client/src/webhooks.ts`, and the demo ends by itself with exit code 0.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../workers/config';
import { adminEnv, type BootedService, bootService } from './boot';

const run = promisify(execFile);
let booted: BootedService | undefined;

beforeAll(async () => {
  booted = await bootService('lending-e2e-demo-');
}, 120_000);

afterAll(async () => {
  await booted?.stop();
}, 60_000);

describe('npm run demo', () => {
  it('runs the flows and prints the test event and real events, each signature verified, then exits 0', async () => {
    const { stdout } = await run(path.join(projectRoot, 'node_modules', '.bin', 'tsx'), ['scripts/demo.ts'], {
      cwd: projectRoot,
      // As the README runs it: a second terminal with the service's data folder only.
      env: adminEnv(booted!),
      timeout: 90_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const webhookLines = stdout.split('\n').filter((line) => line.startsWith('< webhook '));
    for (const type of [
      'webhook.test',
      'case.transitioned',
      'funding.posted',
      'payment.posted',
      'payment.returned',
      'promise.kept',
      'contact.consent.updated',
      'hardship.offer.applied',
      'loan.charge.added',
      'loan.charge.waived',
      'loan.penalty.assessed',
      'loan.delinquency.changed',
      'loan.chargeoff.posted',
    ]) {
      expect(webhookLines.some((line) => line.startsWith(`< webhook ${type} evt_`))).toBe(true);
    }
    for (const line of webhookLines) {
      expect(line).toMatch(/ Service-Webhook-Id whd_\w+: signature verified, answered 204$/);
    }
    // Each received delivery is printed once and verified; the service lists the subscription's deliveries.
    expect(stdout).toContain(
      `Webhooks: ${webhookLines.length} deliveries received, ${webhookLines.length} verified.`,
    );
    expect(stdout).toMatch(/< 200: \d+ deliveries by state \{/);
    expect(stdout).toMatch(/\/deactivate\n< 200: subscription INACTIVE/);
    // The payment intent's life and where to see its process.
    expect(stdout).toMatch(
      /Payment intent \d+ on loan \d+: CREATED → SUBMITTED → POSTED → RETURNED \(return code R01\)\./,
    );
    expect(stdout).toMatch(
      /Its durable process in the Temporal UI: http:\/\/\S+\/workflows\/payment-intent%2F/,
    );
    // The servicing plane: custom fields, a promise kept by a payment, an AI output, a consent update, the close.
    expect(stdout).toMatch(
      /Servicing flow complete: case \d+ of cus_[a-p]{32} closed PROMISE_KEPT; promise \d+ KEPT\./,
    );
    expect(stdout).toMatch(
      /AI output aio_[A-Za-z]+: produced, review required false; SMS consent update COMPLETED\./,
    );
    expect(stdout).toMatch(
      /Form entry \d+: ANSWERS_CREATED → ANSWERS_UPDATED; case effects CASE_OPENED, .*PROMISE_KEPT.*CASE_CLOSED/,
    );
    expect(stdout).toMatch(
      /The promise's durable process in the Temporal UI: http:\/\/\S+\/workflows\/promise%2F/,
    );
    // Hardship: maker-checker approval, acceptance, evidence, the deferral applied as schedule version 2.
    expect(stdout).toMatch(
      /Hardship offer \d+ \(DEFER_[A-Z]+\) on loan \d+: PENDING_APPROVAL → APPROVED → AWAITING_DOCUMENTS → APPLIED; approved by demo\.supervisor \(maker demo\.agent\)\./,
    );
    expect(stdout).toMatch(
      /New schedule version 2: 12 → 14 installments, total due (\d+) → \1 \(minor units\)\./,
    );
    expect(stdout).toMatch(
      /The offer's durable process in the Temporal UI: http:\/\/\S+\/workflows\/hardship-offer%2F/,
    );
    // Statements and merchant advances: the statement's figures and its PDF on disk, the reconciliation.
    expect(stdout).toMatch(
      /Statement \d+ of loan \d+: period \d{4}-\d\d-\d\d … \d{4}-\d\d-\d\d, new balance \d+\.\d\d, amount due \d+\.\d\d USD by \d{4}-\d\d-\d\d, APR [\d.]+ %\./,
    );
    const pdfPath = /Its PDF: (\S+\.pdf)/.exec(stdout)?.[1];
    expect(pdfPath).toBeDefined();
    expect(
      readFileSync(pdfPath as string)
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
    expect(stdout).toMatch(
      /Merchant advance mca_[a-p]+: 7 periods reconciled, status unmatched; difference -?10\.00 on \d{4}-\d\d-\d\d\./,
    );
    // Pay in 4: the down payment with the funding, the NSF fee of the returned payment, the snooze fee waived.
    expect(stdout).toMatch(
      /Pay in 4: loan \d+: down payment 100\.00 recorded with the funding \(checkout-[a-z]+:down-payment\); payment \d+ returned R01 → NSF fee 15\.00 USD \(loan charge \d+\); snooze fee 5\.00 added and waived \(5\.00 waived, 0\.00 outstanding\); status loanStatusType\.active\./,
    );
    // Delinquency: yesterday closed by a run, the penalties, the collections range and case, a cure, the
    // charged-off loan's payment posted as a recovery.
    expect(stdout).toMatch(
      /Close of business \d{4}-\d\d-\d\d: run cob_\w+ COMPLETED, loans \{"total":2,"processed":2,"failed":0\}\./,
    );
    expect(stdout).toMatch(
      /loan \d+: 2 penalties \(10\.00 for the installment due \d{4}-\d\d-\d\d, 10\.00 for the installment due \d{4}-\d\d-\d\d\); range Collections 31-90 days/,
    );
    expect(stdout).toMatch(/collections case: \d+ ARREARS OPEN: /);
    // The cure sets the tag at once (the loan has had a close): no range, the history row, the case closed CURED.
    expect(stdout).toMatch(
      /cure: \d+\.\d\d paid \(payment \d+\) → range NO_DELINQUENCY at once, 0 days delinquent; history \d{4}-\d\d-\d\d Collections 31-90 days \([\w-]+\) → NO_DELINQUENCY \(case \d+\); case CLOSED CURED; /,
    );
    expect(stdout).toMatch(/charged off \d{4}-\d\d-\d\d by the run \(past chargeOffDaysPastDue\)/);
    expect(stdout).toMatch(
      /recovery 150\.00 \(payment \d+\): (EXTERNAL_CLEARING Dr 150\.00 Cr 0\.00, RECOVERY_INCOME Dr 0\.00 Cr 150\.00|RECOVERY_INCOME Dr 0\.00 Cr 150\.00, EXTERNAL_CLEARING Dr 150\.00 Cr 0\.00)/,
    );
  }, 120_000);
});
