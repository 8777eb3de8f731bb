/**
 * The statement cycle (docs/design.md §5 "Statements"; docs/processes.md P6 "Statements"): timing and figures in
 * domain/lending/statements.ts, generation in activities/lending/generate-statement.ts.
 *
 * `dailyStatementCycleWorkflow` is started once a day by the Temporal Schedule `statement-cycle` (12:00 UTC,
 * overlap SKIP; `client.ts` `ensureStatementCycleSchedule`, created by every worker process at start). It lists the
 * tenants with a statement-enabled product and their time zones (a cross-tenant read), takes each tenant's local
 * date at the run's instant as its asOf, and runs one child `tenantStatementCycleWorkflow` per tenant (id
 * `statement-cycle/<tenant>/<asOf>`, search attribute `TenantId`), at most `tenantsInParallel` at a time. A tenant
 * that fails does not stop the others; the run then fails after every tenant was tried, naming them, and an
 * operator reruns the day (`npm run admin -- statements run`; idempotent).
 *
 * `tenantStatementCycleWorkflow` pages through the tenant's candidates (`listStatementCandidates`, `pageSize` loans
 * by id) and generates each one's statement (`generateStatement`, one transaction each, `generateInParallel` at a
 * time); after `pagesPerRun` pages it continues as new with its progress, so a tenant with many loans keeps a short
 * history (the progress carries exact counts and the first `listedMax` statements of each kind). A candidate the
 * operation refuses (non-retryable: the loan closed meanwhile) is recorded as skipped.
 *
 * Deterministic: time only through `workflowNow()`; activities reached through `proxyActivities`.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  executeChild,
  proxyActivities,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import { statementAsOfDate, tenantStatementCycleStartSpec } from '../../../domain/lending/statements';
import { dbWrite } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import type {
  DailyStatementCycleInput,
  DailyStatementCycleResult,
  TenantStatementCycleInput,
  TenantStatementCycleProgress,
  TenantStatementCycleResult,
} from './types';

const { listStatementTenants, listStatementCandidates, generateStatement } =
  proxyActivities<Activities>(dbWrite);

const tenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);

/** How many tenants' runs go at once. */
export const tenantsInParallel = 8;
/** Candidates read per page. */
export const pageSize = 100;
/** Statements generated at once within a page. */
export const generateInParallel = 10;
/** Pages per run before continue-as-new. */
export const pagesPerRun = 10;
/** Entries kept in each list of the progress (the counts stay exact). */
export const listedMax = 1000;

/**
 * One tenant's statements for `input.asOf` (module note). Returns what it generated, found and skipped (summed over
 * continue-as-new runs). Errors: the activities' transient errors are retried by `dbWrite`.
 */
export async function tenantStatementCycleWorkflow(
  input: TenantStatementCycleInput & { progress?: TenantStatementCycleProgress },
): Promise<TenantStatementCycleResult> {
  const progress: TenantStatementCycleProgress = input.progress ?? {
    afterLoanId: 0,
    counts: { generated: 0, existing: 0, skipped: 0 },
    generated: [],
    existing: [],
    skipped: [],
  };
  for (let page = 0; page < pagesPerRun; page++) {
    const candidates = await listStatementCandidates({
      tenantId: input.tenantId,
      asOf: input.asOf,
      afterLoanId: progress.afterLoanId,
      limit: pageSize,
    });
    for (let i = 0; i < candidates.length; i += generateInParallel) {
      const batch = candidates.slice(i, i + generateInParallel);
      const outcomes = await Promise.allSettled(
        batch.map((c) =>
          generateStatement({ tenantId: input.tenantId, loanId: c.loanId, dueDate: c.dueDate }),
        ),
      );
      outcomes.forEach((outcome, index) => {
        const candidate = batch[index] as (typeof batch)[number];
        if (outcome.status === 'fulfilled') {
          const row = { ...candidate, statementId: outcome.value.statement.statementId };
          const kind = outcome.value.created ? 'generated' : 'existing';
          progress.counts[kind] += 1;
          if (progress[kind].length < listedMax) progress[kind].push(row);
          return;
        }
        const failure = outcome.reason;
        const cause = failure instanceof ActivityFailure ? failure.cause : undefined;
        if (cause instanceof ApplicationFailure && cause.nonRetryable) {
          progress.counts.skipped += 1;
          if (progress.skipped.length < listedMax)
            progress.skipped.push({ ...candidate, reason: cause.message });
          return;
        }
        throw failure;
      });
    }
    const last = candidates[candidates.length - 1];
    if (last) progress.afterLoanId = last.loanId;
    if (candidates.length < pageSize) return { tenantId: input.tenantId, asOf: input.asOf, ...progress };
  }
  return continueAsNew<typeof tenantStatementCycleWorkflow>({ ...input, progress });
}

/**
 * The daily run over every tenant (module note). Returns each tenant's asOf and counts. Errors: a non-retryable
 * `ApplicationFailure` of type `TenantStatementCycleFailed` after every tenant was tried, when any tenant's run
 * failed (its details: the failed tenants and the partial result).
 */
export async function dailyStatementCycleWorkflow(
  input: DailyStatementCycleInput = {},
): Promise<DailyStatementCycleResult> {
  const atMs = input.atMs ?? workflowNow();
  const wanted = input.tenantIds ? new Set(input.tenantIds) : null;
  const tenants = (await listStatementTenants()).filter((t) => wanted === null || wanted.has(t.tenantId));
  const result: DailyStatementCycleResult = { tenants: [] };
  const failedTenants: string[] = [];
  for (let i = 0; i < tenants.length; i += tenantsInParallel) {
    const batch = tenants.slice(i, i + tenantsInParallel);
    const outcomes = await Promise.allSettled(
      batch.map((tenant) => {
        const spec = tenantStatementCycleStartSpec({
          tenantId: tenant.tenantId,
          asOf: statementAsOfDate(atMs, tenant.timeZone),
        });
        return executeChild(tenantStatementCycleWorkflow, {
          workflowId: spec.workflowId,
          taskQueue: spec.taskQueue,
          args: [spec.input],
          typedSearchAttributes: [{ key: tenantIdKey, value: tenant.tenantId }],
          staticSummary: spec.staticSummary,
        });
      }),
    );
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected') {
        failedTenants.push((batch[index] as (typeof batch)[number]).tenantId);
        return;
      }
      const r = outcome.value;
      result.tenants.push({
        tenantId: r.tenantId,
        asOf: r.asOf,
        ...r.counts,
      });
    });
  }
  if (failedTenants.length > 0) {
    throw ApplicationFailure.create({
      type: 'TenantStatementCycleFailed',
      message: `The statement cycle failed for ${failedTenants.length} tenant(s): ${failedTenants.join(', ')}`,
      nonRetryable: true,
      details: [{ failedTenants, partial: result }],
    });
  }
  return result;
}
