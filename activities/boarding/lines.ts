/**
 * Reads and writes of staged boarding lines and source refs (db/schema/boarding/boarding.ts), inside the caller's tenant
 * transaction: pages of lines, the final state of handled lines (one statement per page), the source refs already
 * boarded, and the counts per kind and state.
 */
import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { intArrayLiteral } from '../../db/queries/json-rows';
import { boardingLines, boardingSourceRefs } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import {
  type BoardingCounts,
  type BoardingKind,
  emptyBoardingCounts,
  isBoardingKind,
} from '../../domain/boarding/batch';
import type { ShapeABody } from '../../domain/errors';
import { openLineIdentifiers } from './line-crypto';

/** A staged line as the boarding activities read it (`body` parsed from `raw`, not yet validated). */
export interface StagedLine {
  lineNo: number;
  kind: BoardingKind;
  sourceRef: string;
  parentSourceRef: string | null;
  state: string;
  resourceId: number | null;
  body: unknown;
}

/** The parsed `body` of a staged line; undefined when its raw text was purged (./purge.ts) or is not JSON. */
function bodyOf(raw: string | null): unknown {
  if (raw === null) return undefined;
  try {
    const parsed = JSON.parse(raw) as { body?: unknown };
    return parsed?.body;
  } catch {
    return undefined;
  }
}

const lineColumns = {
  lineNo: boardingLines.lineNo,
  kind: boardingLines.kind,
  sourceRef: boardingLines.sourceRef,
  parentSourceRef: boardingLines.parentSourceRef,
  state: boardingLines.state,
  resourceId: boardingLines.resourceId,
  raw: boardingLines.raw,
};

type LineRow = { [K in keyof typeof lineColumns]: (typeof boardingLines.$inferSelect)[K] };

function stagedOf(row: LineRow): StagedLine {
  return {
    lineNo: row.lineNo,
    kind: row.kind as BoardingKind,
    sourceRef: row.sourceRef ?? '',
    parentSourceRef: row.parentSourceRef,
    state: row.state,
    resourceId: row.resourceId,
    body: bodyOf(row.raw),
  };
}

/**
 * Lines of `kind` after `afterLine` (through `throughLine` when given), PENDING only unless `anyState`, their identifier
 * values decrypted with `dataEncryptionKey` (./line-crypto.ts: they are stored encrypted and opened only here, in
 * memory, to be validated or boarded).
 */
export async function readLines(
  tx: Tx,
  where: {
    dataEncryptionKey: string;
    tenantId: string;
    batchId: number;
    kind: BoardingKind;
    afterLine: number;
    throughLine?: number;
    limit?: number;
    anyState?: boolean;
  },
): Promise<StagedLine[]> {
  const query = tx
    .select(lineColumns)
    .from(boardingLines)
    .where(
      and(
        eq(boardingLines.tenantId, where.tenantId),
        eq(boardingLines.batchId, where.batchId),
        eq(boardingLines.kind, where.kind),
        gt(boardingLines.lineNo, where.afterLine),
        where.throughLine === undefined ? undefined : lte(boardingLines.lineNo, where.throughLine),
        where.anyState ? undefined : eq(boardingLines.state, 'PENDING'),
      ),
    )
    .orderBy(asc(boardingLines.lineNo));
  const rows = where.limit === undefined ? await query : await query.limit(where.limit);
  return rows.map((row) => {
    const line = stagedOf(row);
    return { ...line, body: openLineIdentifiers(where.dataEncryptionKey, where.tenantId, line.body) };
  });
}

/** PENDING lines of `kinds` whose parent is one of `parentSourceRefs` (fundings and payments of loans). */
export async function readChildLines(
  tx: Tx,
  where: { tenantId: string; batchId: number; kinds: BoardingKind[]; parentSourceRefs: string[] },
): Promise<StagedLine[]> {
  if (where.parentSourceRefs.length === 0) return [];
  const rows = await tx
    .select(lineColumns)
    .from(boardingLines)
    .where(
      and(
        eq(boardingLines.tenantId, where.tenantId),
        eq(boardingLines.batchId, where.batchId),
        inArray(boardingLines.parentSourceRef, where.parentSourceRefs),
        inArray(boardingLines.kind, where.kinds),
        eq(boardingLines.state, 'PENDING'),
      ),
    )
    .orderBy(asc(boardingLines.lineNo));
  return rows.map(stagedOf);
}

/** Lines of the batch by (kind, sourceRef), any state: what a cross reference can point at. */
export async function readLinesByRef(
  tx: Tx,
  where: { tenantId: string; batchId: number; refs: { kind: BoardingKind; sourceRef: string }[] },
): Promise<{ kind: BoardingKind; sourceRef: string; lineNo: number; state: string; body: unknown }[]> {
  if (where.refs.length === 0) return [];
  const rows = await tx.execute<{
    kind: string;
    source_ref: string;
    line_no: number;
    state: string;
    raw: string;
  }>(sql`
    select l.kind, l.source_ref, l.line_no, l.state, l.raw
    from (select distinct * from jsonb_to_recordset(${refsJson(where.refs)}::jsonb) as r(kind text, source_ref text)) r
    cross join lateral (
      select l.kind, l.source_ref, l.line_no, l.state, l.raw from boarding_lines l
      where l.tenant_id = ${where.tenantId} and l.batch_id = ${where.batchId}
        and l.kind = r.kind and l.source_ref = r.source_ref
    ) l
    order by l.line_no`);
  return rows.map((r) => ({
    kind: r.kind as BoardingKind,
    sourceRef: r.source_ref,
    lineNo: Number(r.line_no),
    state: r.state,
    body: bodyOf(r.raw),
  }));
}

/** (kind, sourceRef) pairs as a JSON array for `jsonb_to_recordset` (one parameter whatever their number). */
function refsJson(refs: { kind: string; sourceRef: string }[]): string {
  return JSON.stringify(refs.map((r) => ({ kind: r.kind, source_ref: r.sourceRef })));
}

/** Key of a source ref in the maps below. */
export const refKey = (kind: string, sourceRef: string) => `${kind}\u0000${sourceRef}`;

/** What the given source refs boarded before (any batch): `refKey` → resourceId. */
export async function readSourceRefs(
  tx: Tx,
  tenantId: string,
  refs: { kind: string; sourceRef: string }[],
): Promise<Map<string, number>> {
  if (refs.length === 0) return new Map();
  const rows = await tx.execute<{ kind: string; source_ref: string; resource_id: string | number }>(sql`
    select s.kind, s.source_ref, s.resource_id
    from (select distinct * from jsonb_to_recordset(${refsJson(refs)}::jsonb) as r(kind text, source_ref text)) r
    cross join lateral (
      select s.kind, s.source_ref, s.resource_id from boarding_source_refs s
      where s.tenant_id = ${tenantId} and s.kind = r.kind and s.source_ref = r.source_ref
    ) s`);
  return new Map(rows.map((r) => [refKey(r.kind, r.source_ref), Number(r.resource_id)]));
}

/** A source ref that boarded a resource (recorded once; the first batch keeps it). */
export interface BoardedRef {
  kind: string;
  sourceRef: string;
  resourceId: number;
}

/** The end state of one handled line. */
export interface LineOutcome {
  lineNo: number;
  state: 'BOARDED' | 'FAILED' | 'SKIPPED';
  resourceId: number | null;
  error: ShapeABody | null;
}

/**
 * Writes the outcomes of handled lines and the source refs they boarded (source refs: insert, on conflict do
 * nothing), two statements whatever their number.
 */
export async function writeOutcomes(
  tx: Tx,
  where: { tenantId: string; batchId: number },
  outcomes: LineOutcome[],
  boarded: BoardedRef[],
): Promise<void> {
  if (boarded.length > 0) {
    await tx
      .insert(boardingSourceRefs)
      .values(
        boarded.map((b) => ({
          tenantId: where.tenantId,
          kind: b.kind,
          sourceRef: b.sourceRef,
          resourceId: b.resourceId,
          batchId: where.batchId,
        })),
      )
      .onConflictDoNothing();
  }
  if (outcomes.length === 0) return;
  await tx.execute(sql`
    update boarding_lines l
    set state = o.state, resource_id = o.resource_id, error = o.error
    from jsonb_to_recordset(${JSON.stringify(
      outcomes.map((o) => ({ line_no: o.lineNo, state: o.state, resource_id: o.resourceId, error: o.error })),
    )}::jsonb)
      as o(line_no integer, state text, resource_id bigint, error jsonb)
    where l.tenant_id = ${where.tenantId} and l.batch_id = ${where.batchId}
      and l.line_no = any(${intArrayLiteral(outcomes.map((o) => o.lineNo))}::int[]) and l.line_no = o.line_no`);
}

/** Lines per kind and state of the batch (lines without a kind are not counted). */
export async function countLines(tx: Tx, tenantId: string, batchId: number): Promise<BoardingCounts> {
  const rows = await tx
    .select({ kind: boardingLines.kind, state: boardingLines.state, n: sql<number>`count(*)::int` })
    .from(boardingLines)
    .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, batchId)))
    .groupBy(boardingLines.kind, boardingLines.state);
  const counts = emptyBoardingCounts();
  for (const row of rows) {
    if (!isBoardingKind(row.kind)) continue;
    const c = counts[row.kind];
    c.total += Number(row.n);
    if (row.state === 'BOARDED' || row.state === 'SKIPPED') c.boarded += Number(row.n);
    if (row.state === 'FAILED') c.failed += Number(row.n);
  }
  return counts;
}
