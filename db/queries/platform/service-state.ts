/**
 * Cross-tenant counts of durable state for the operators' metrics (`GET /metrics`, api/metrics.ts).
 * Every query reads an index, never a growing table in full: the outbox through its partial index of unpublished
 * rows (counted up to `outboxCountCap`), open reconciliation exceptions through their partial unique index of open
 * rows, boarding through the batches table (one row per upload; the lines table is never scanned). They run in one
 * read-only platform transaction (the owner role, as the outbox relay's sweep does: docs/design.md §3 "the few
 * cross-tenant sweeps"), bounded by a statement timeout so a slow database answers late rather than never.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../client';
import { withPlatformTransaction } from '../../tenant-tx';

/** Unpublished outbox rows are counted up to this many; a larger backlog reads as this number. */
export const outboxCountCap = 100_000;

export interface ServiceStateCounts {
  /** Unpublished outbox events (capped at `outboxCountCap`). */
  outboxUnpublished: number;
  /** Age in seconds of the oldest unpublished outbox event (by id); 0 when none. */
  outboxOldestUnpublishedAgeSeconds: number;
  /** Open reconciliation exceptions per exception type (types with none are absent). */
  openReconciliationExceptions: { exceptionType: string; count: number }[];
  /** Boarding batches per status, with the lines boarded and failed as their counts last recorded. */
  boardingBatches: { status: string; batches: number; linesBoarded: number; linesFailed: number }[];
}

/**
 * Reads `ServiceStateCounts` across every tenant in one read-only transaction. `statementTimeoutMs` (default 1000)
 * bounds each statement. Errors: the database's (unreachable, timeout): the caller decides what a failed read means.
 */
export async function readServiceStateCounts(
  db: Db,
  options: { statementTimeoutMs?: number } = {},
): Promise<ServiceStateCounts> {
  const timeoutMs = Math.max(1, Math.floor(options.statementTimeoutMs ?? 1000));
  return withPlatformTransaction(
    db,
    async (tx) => {
      await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`);
      const [outbox] = (await tx.execute(sql`
        select
          (select count(*) from (select 1 from outbox_events where published_at is null limit ${outboxCountCap}) s)::int
            as unpublished,
          coalesce((select extract(epoch from (now() - occurred_at)) from outbox_events
            where published_at is null order by id limit 1), 0)::float8 as oldest_age_seconds
      `)) as unknown as { unpublished: number; oldest_age_seconds: number }[];
      const exceptions = (await tx.execute(sql`
        select exception_type::text as exception_type, count(*)::int as count
        from reconciliation_exceptions where status = 'open' group by exception_type
      `)) as unknown as { exception_type: string; count: number }[];
      const batches = (await tx.execute(sql`
        select b.status, count(*)::int as batches,
          coalesce(sum(c.boarded), 0)::int as lines_boarded, coalesce(sum(c.failed), 0)::int as lines_failed
        from boarding_batches b
        left join lateral (
          select sum((v->>'boarded')::bigint) as boarded, sum((v->>'failed')::bigint) as failed
          from jsonb_each(coalesce(b.counts, '{}'::jsonb)) as e(k, v)
        ) c on true
        group by b.status
      `)) as unknown as { status: string; batches: number; lines_boarded: number; lines_failed: number }[];
      return {
        outboxUnpublished: Number(outbox?.unpublished ?? 0),
        outboxOldestUnpublishedAgeSeconds: Math.max(0, Number(outbox?.oldest_age_seconds ?? 0)),
        openReconciliationExceptions: exceptions.map((r) => ({
          exceptionType: r.exception_type,
          count: Number(r.count),
        })),
        boardingBatches: batches.map((r) => ({
          status: r.status,
          batches: Number(r.batches),
          linesBoarded: Number(r.lines_boarded),
          linesFailed: Number(r.lines_failed),
        })),
      };
    },
    { accessMode: 'read only' },
  );
}
