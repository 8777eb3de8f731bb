/**
 * Start intents (docs/processes.md P0; db/schema/platform/platform.ts `workflowStartIntents`): the generic
 * record that a durable process must be started, written in the transaction that stores the row
 * it is started for. `recordStartIntent` is a helper for operations (takes their `tx`); the rest
 * are platform operations used by the API's start-mark buffer (api/start-marks.ts) after it started
 * workflows and by the start-intent relay in worker processes.
 */
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { workflowStartIntents } from '../../db/schema';
import { type Tx, withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import type { TaskQueue } from '../../domain/ids';
import type { WorkflowIdReusePolicy, WorkflowStartSpec } from '../../domain/workflow-start';
import type { Deps } from '../deps';

/**
 * Stores `spec` as an unstarted intent created at `now` (the operation's clock) inside the caller's transaction (so the intent exists if
 * and only if the row it starts a process for does). A second call for the same workflow id
 * changes nothing.
 */
export async function recordStartIntent(tx: Tx, spec: WorkflowStartSpec, now: Date): Promise<void> {
  await tx
    .insert(workflowStartIntents)
    .values({
      createdAt: now,
      tenantId: spec.tenantId,
      workflowId: spec.workflowId,
      workflowType: spec.workflowType,
      taskQueue: spec.taskQueue,
      input: spec.input,
      searchAttributes: spec.searchAttributes,
      staticSummary: spec.staticSummary,
      idReusePolicy: spec.idReusePolicy,
    })
    .onConflictDoNothing({ target: workflowStartIntents.workflowId });
}

/**
 * `recordStartIntent` for a process whose id is reused by later starts (id reuse policy ALLOW_DUPLICATE, e.g.
 * `autopay/<tenant>/<loanId>` after a re-enrolment): an intent already stored under the same workflow id is
 * re-armed with `spec` (new input, unstarted, unclaimed, attempts reset), so the relay covers every start, not only
 * the first.
 */
export async function rearmStartIntent(tx: Tx, spec: WorkflowStartSpec, now: Date): Promise<void> {
  const values = {
    createdAt: now,
    tenantId: spec.tenantId,
    workflowId: spec.workflowId,
    workflowType: spec.workflowType,
    taskQueue: spec.taskQueue,
    input: spec.input,
    searchAttributes: spec.searchAttributes,
    staticSummary: spec.staticSummary,
    idReusePolicy: spec.idReusePolicy,
  };
  await tx
    .insert(workflowStartIntents)
    .values(values)
    .onConflictDoUpdate({
      target: workflowStartIntents.workflowId,
      set: { ...values, startedAt: null, claimedUntil: null, attempts: 0, lastError: null },
    });
}

/** Notes that the intent's workflow runs (or ran). Repeatable; unknown ids change nothing. */
export function markStartIntentStarted(deps: Deps) {
  return async (input: { tenantId: string; workflowId: string }): Promise<void> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await tx
        .update(workflowStartIntents)
        .set({ startedAt: deps.clock(), claimedUntil: null })
        .where(
          and(
            eq(workflowStartIntents.tenantId, input.tenantId),
            eq(workflowStartIntents.workflowId, input.workflowId),
            isNull(workflowStartIntents.startedAt),
          ),
        );
    });
}

/**
 * Notes that the workflows `workflowIds` of one tenant run (or ran), in ONE statement: what the API's start-mark
 * buffer (api/start-marks.ts) and the start-intent relay write for a whole batch. Repeatable; unknown ids and ids
 * already marked change nothing; an empty list does nothing (no transaction). Returns how many intents it marked.
 * Errors: database errors only.
 */
export function markStartIntentsStarted(deps: Deps) {
  return async (input: { tenantId: string; workflowIds: readonly string[] }): Promise<number> => {
    if (input.workflowIds.length === 0) return 0;
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const marked = await tx
        .update(workflowStartIntents)
        .set({ startedAt: deps.clock(), claimedUntil: null })
        .where(
          and(
            eq(workflowStartIntents.tenantId, input.tenantId),
            inArray(workflowStartIntents.workflowId, [...new Set(input.workflowIds)]),
            isNull(workflowStartIntents.startedAt),
          ),
        )
        .returning({ id: workflowStartIntents.id });
      return marked.length;
    });
  };
}

export interface ClaimedStartIntent {
  spec: WorkflowStartSpec;
  /** Relay attempts including this one. */
  attempts: number;
  /** When the intent was stored (or re-armed): a run of the same id started before this is an earlier one. */
  createdAt: Date;
}

/**
 * Cross-tenant (owner role): claims up to `limit` unstarted intents created more than `graceMs`
 * ago and not held by another relay, oldest first, holding each for `leaseMs` (`FOR UPDATE SKIP
 * LOCKED` then a lease, so relays never wait on each other and no transaction stays open while
 * a relay calls Temporal). Each claim counts as an attempt.
 */
export function claimDueStartIntents(deps: Deps) {
  return async (input: {
    graceMs: number;
    leaseMs: number;
    limit: number;
    /** Only this tenant's intents (tests and operator tooling); unset: every tenant. */
    tenantId?: string;
  }): Promise<ClaimedStartIntent[]> =>
    withPlatformTransaction(deps.db, async (tx) => {
      const now = deps.clock();
      const due = await tx
        .select({ id: workflowStartIntents.id })
        .from(workflowStartIntents)
        .where(
          and(
            isNull(workflowStartIntents.startedAt),
            lt(workflowStartIntents.createdAt, new Date(now.getTime() - input.graceMs)),
            or(isNull(workflowStartIntents.claimedUntil), lt(workflowStartIntents.claimedUntil, now)),
            input.tenantId === undefined ? undefined : eq(workflowStartIntents.tenantId, input.tenantId),
          ),
        )
        .orderBy(workflowStartIntents.createdAt)
        .limit(input.limit)
        .for('update', { skipLocked: true });
      if (due.length === 0) return [];
      const claimed = await tx
        .update(workflowStartIntents)
        .set({
          claimedUntil: new Date(now.getTime() + input.leaseMs),
          attempts: sql`${workflowStartIntents.attempts} + 1`,
        })
        .where(
          sql`${workflowStartIntents.id} in (${sql.join(
            due.map((d) => sql`${d.id}`),
            sql`, `,
          )})`,
        )
        .returning();
      return claimed
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map((row) => ({
          attempts: row.attempts,
          createdAt: row.createdAt,
          spec: {
            workflowType: row.workflowType,
            workflowId: row.workflowId,
            taskQueue: row.taskQueue as TaskQueue,
            input: row.input,
            tenantId: row.tenantId,
            searchAttributes: row.searchAttributes as WorkflowStartSpec['searchAttributes'],
            staticSummary: row.staticSummary,
            idReusePolicy: row.idReusePolicy as WorkflowIdReusePolicy,
          },
        }));
    });
}

/**
 * Records a relay's failed start: the error text, and the claim shortened to `retryAfterMs` from
 * now (a simple back-off). The intent stays unstarted.
 */
export function recordStartIntentFailure(deps: Deps) {
  return async (input: {
    tenantId: string;
    workflowId: string;
    error: string;
    retryAfterMs: number;
  }): Promise<void> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await tx
        .update(workflowStartIntents)
        .set({
          lastError: input.error.slice(0, 2000),
          claimedUntil: new Date(deps.clock().getTime() + input.retryAfterMs),
        })
        .where(
          and(
            eq(workflowStartIntents.tenantId, input.tenantId),
            eq(workflowStartIntents.workflowId, input.workflowId),
            isNull(workflowStartIntents.startedAt),
          ),
        );
    });
}
