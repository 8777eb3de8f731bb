/**
 * The daily reconciliation of the rails' settlement reports with our intents (docs/processes.md P1
 * "Reconciliation exceptions"): the comparison and its timing rules are in domain/payments/daily-reconciliation.ts.
 *
 * `dailyReconciliationWorkflow` is started once a day by the Temporal Schedule `daily-reconciliation` (06:00
 * America/New_York, overlap SKIP; `client.ts` `ensureDailyReconciliationSchedule`, created by every worker
 * process at start). It takes the day before the run's date (or `input.date`), lists the tenants with payment
 * intents (a cross-tenant read) and runs one child `tenantReconciliationWorkflow` per tenant, at most
 * `tenantsInParallel` at a time. A tenant that fails does not stop the others; the run then fails, after every
 * tenant was tried, naming the failed tenants (visible on the schedule's recent actions), and the next day's run
 * or an operator's rerun repeats the day (idempotent). Its id is the schedule's (`daily-reconciliation-<time>`),
 * without `TenantId`: it belongs to no tenant.
 *
 * `tenantReconciliationWorkflow` (id `daily-reconciliation/<tenant>/<date>`, search attribute `TenantId`) runs
 * `reconcileRailSettlements` (the rail's report and our intents, compared; no write), then opens each finding with
 * `openReconciliationException`, one activity (one transaction) per finding: a finding already open only moves its
 * `lastSeenAt`, so a rerun of the same day opens nothing new. It returns the counts by type.
 *
 * Deterministic: time only through `workflowNow()`; activities reached through `proxyActivities`.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { ApplicationFailure, executeChild, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import {
  reconciliationDateOf,
  tenantReconciliationStartSpec,
} from '../../../domain/payments/daily-reconciliation';
import { dbWrite, railCall } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import type {
  DailyReconciliationInput,
  DailyReconciliationResult,
  FindingCounts,
  TenantReconciliationInput,
  TenantReconciliationResult,
} from './types';

const { listTenantsWithPaymentIntents, openReconciliationException } = proxyActivities<Activities>(dbWrite);
// The rail's report is fetched inside this activity: retried like every rail call.
const { reconcileRailSettlements } = proxyActivities<Activities>(railCall);

const tenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);

/** How many tenants' reconciliations run at once. */
export const tenantsInParallel = 8;

const zeroCounts = (): FindingCounts => ({
  UNMATCHED_SETTLEMENT: 0,
  POSTED_NOT_SETTLED: 0,
  RETURN_NOT_REVERSED: 0,
});

/**
 * One tenant's reconciliation of the ISO dates `from`–`to` (module note). Returns what it opened and what recurred,
 * by type. Errors: the activities' (a 400 for a range that is not closed fails the workflow; transient errors are
 * retried by the presets).
 */
export async function tenantReconciliationWorkflow(
  input: TenantReconciliationInput,
): Promise<TenantReconciliationResult> {
  const comparison = await reconcileRailSettlements(input);
  const opened = zeroCounts();
  const recurred = zeroCounts();
  const exceptionIds: number[] = [];
  for (const finding of comparison.findings) {
    const { exception, created } = await openReconciliationException({
      tenantId: input.tenantId,
      ...finding,
      observedAtMs: workflowNow(),
    });
    (created ? opened : recurred)[finding.exceptionType] += 1;
    exceptionIds.push(exception.exceptionId);
  }
  return {
    tenantId: input.tenantId,
    from: input.from,
    to: input.to,
    linesCompared: comparison.linesCompared,
    intentsCompared: comparison.intentsCompared,
    opened,
    recurred,
    exceptionIds,
  };
}

/**
 * The daily run over every tenant (module note). Returns the day, the tenants reconciled and the summed counts.
 * Errors: a non-retryable `ApplicationFailure` of type `TenantReconciliationFailed` after every tenant was tried,
 * when any tenant's reconciliation failed (its details: the day, the failed tenants and the partial result).
 */
export async function dailyReconciliationWorkflow(
  input: DailyReconciliationInput = {},
): Promise<DailyReconciliationResult> {
  const date = input.date ?? reconciliationDateOf(workflowNow());
  const tenantIds = input.tenantIds ?? (await listTenantsWithPaymentIntents());
  const result: DailyReconciliationResult = {
    date,
    tenantsReconciled: 0,
    opened: zeroCounts(),
    recurred: zeroCounts(),
  };
  const failedTenants: string[] = [];
  for (let i = 0; i < tenantIds.length; i += tenantsInParallel) {
    const batch = tenantIds.slice(i, i + tenantsInParallel);
    const outcomes = await Promise.allSettled(
      batch.map((tenantId) => {
        const spec = tenantReconciliationStartSpec({ tenantId, from: date, to: date });
        return executeChild(tenantReconciliationWorkflow, {
          workflowId: spec.workflowId,
          taskQueue: spec.taskQueue,
          args: [spec.input],
          typedSearchAttributes: [{ key: tenantIdKey, value: tenantId }],
          staticSummary: spec.staticSummary,
        });
      }),
    );
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected') {
        failedTenants.push(batch[index] as string);
        return;
      }
      result.tenantsReconciled += 1;
      for (const type of Object.keys(result.opened) as (keyof FindingCounts)[]) {
        result.opened[type] += outcome.value.opened[type];
        result.recurred[type] += outcome.value.recurred[type];
      }
    });
  }
  if (failedTenants.length > 0) {
    throw ApplicationFailure.create({
      type: 'TenantReconciliationFailed',
      message: `The reconciliation of ${date} failed for ${failedTenants.length} tenant(s): ${failedTenants.join(', ')}`,
      nonRetryable: true,
      details: [{ date, failedTenants, partial: result }],
    });
  }
  return result;
}
