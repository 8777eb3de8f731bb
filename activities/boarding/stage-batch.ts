/**
 * Staging of a boarding upload (docs/processes.md P3 "Input", `POST /v1/boarding/batches`): the bytes
 * of an NDJSON file are read as a stream, split into lines (numbered from 1; a trailing CR stripped; blank lines
 * skipped but counted), each line checked for the line shape (domain/boarding/staging.ts) and loaded with COPY
 * into a temporary table, then copied into `boarding_lines` under the tenant's row-level security, together with
 * the batch row (status STAGED) and the start intent of `boarding/<tenant>/<batchId>`: one transaction (STYLE
 * "activities as operations with one transaction"). Memory stays flat whatever the size: one line (at most
 * `boardingLineBytesMax` bytes) and one COPY chunk at a time, paced by PostgreSQL (backpressure). The identifier values
 * of `customer` lines are stored encrypted (./line-crypto.ts `sealLineIdentifiers`), never in clear.
 *
 * A large upload is followed by `ANALYZE boarding_lines` (`analyzeStagedLines`), so that the planner knows the new
 * batch's lines before the boarding reads them by parent ref.
 *
 * Not a Temporal activity (it takes a byte stream): a platform operation the API calls directly.
 */
import { createHash, type Hash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { copyFromStdin, copyTextField } from '../../db/copy';
import { sqlStateOf } from '../../db/errors';
import { boardingBatches } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type BoardingBatchStatus,
  type BoardingWorkflowInput,
  boardingStartSpec,
} from '../../domain/boarding/batch';
import {
  boardingLineBytesMax,
  overlongLine,
  type StagedLine,
  stageLine,
  undecodableLine,
} from '../../domain/boarding/staging';
import { DomainError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { recordStartIntent } from '../platform/start-intents';
import { sealLineIdentifiers } from './line-crypto';

export interface StageBoardingBatchInput extends OperationContext {
  /** The uploaded NDJSON bytes (the request body stream), read once. */
  body: AsyncIterable<Uint8Array>;
  /** The file's name (`?fileName=`), or null. */
  fileName: string | null;
}

export interface StagedBatch {
  batchId: number;
  status: BoardingBatchStatus;
  /** Lines staged (blank lines are not). */
  records: number;
  /** Lines staged FAILED because they are not of the line shape. */
  malformed: number;
}

export interface StageBoardingBatchResult {
  batch: StagedBatch;
  /** What the process must be started with (its intent is stored). */
  workflow: { workflowId: string; input: BoardingWorkflowInput };
  /** True when the batch was staged by an earlier request with the same `requestKey` (nothing staged now). */
  replayed: boolean;
}

/** Longest prefix of an overlong line kept as its `raw` text (bytes), for the operator's eye. */
const overlongRawPrefixBytes = 1024;
/** COPY text is written in chunks of about this many characters. */
const copyChunkChars = 256 * 1024;

/** One line of the upload: its number and bytes (without the line feed), or `overlong` when past the limit. */
interface UploadLine {
  lineNo: number;
  bytes: Uint8Array;
  overlong: boolean;
}

/**
 * Splits a byte stream on LF into lines numbered from 1, feeding every byte to `hash`. A line longer than
 * `maxBytes` is yielded as `overlong` with only its first bytes (the rest is hashed and dropped, never buffered).
 * The last line need not end in LF.
 */
export async function* uploadLines(
  body: AsyncIterable<Uint8Array>,
  hash: Hash,
  maxBytes: number,
): AsyncGenerator<UploadLine> {
  let parts: Uint8Array[] = [];
  let length = 0;
  let overlong = false;
  let lineNo = 1;
  const take = (piece: Uint8Array) => {
    if (overlong) return;
    if (length + piece.length > maxBytes) {
      overlong = true;
      const room = Math.max(0, overlongRawPrefixBytes - length);
      if (room > 0) parts.push(piece.subarray(0, room));
      length += Math.min(room, piece.length);
      return;
    }
    parts.push(piece);
    length += piece.length;
  };
  const finish = (): UploadLine => {
    const bytes = parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts, length);
    const line = { lineNo, bytes, overlong };
    parts = [];
    length = 0;
    overlong = false;
    lineNo += 1;
    return line;
  };
  for await (const chunk of body) {
    hash.update(chunk);
    let start = 0;
    for (;;) {
      const lf = chunk.indexOf(0x0a, start);
      if (lf === -1) break;
      // Copy: the chunk's buffer may be reused by the stream after this iteration.
      take(Uint8Array.prototype.slice.call(chunk, start, lf));
      yield finish();
      start = lf + 1;
    }
    if (start < chunk.length) take(Uint8Array.prototype.slice.call(chunk, start));
  }
  if (length > 0 || overlong) yield finish();
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');
/** U+0000 cannot be stored in `text`: shown as U+FFFD in the stored raw text (the line is FAILED anyway). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what this pattern finds.
const nul = /\u0000/g;

/** The staged form of one upload line, or null for a blank line (skipped, its number kept). */
function stagedOf(line: UploadLine): { raw: string; staged: StagedLine } | null {
  if (line.overlong) {
    return { raw: lenientUtf8.decode(line.bytes).replace(nul, '\ufffd'), staged: overlongLine(line.lineNo) };
  }
  let text: string;
  try {
    text = strictUtf8.decode(line.bytes);
  } catch {
    return {
      raw: lenientUtf8.decode(line.bytes).replace(nul, '\ufffd'),
      staged: undecodableLine(line.lineNo),
    };
  }
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.trim() === '') return null;
  return { raw: text.replace(nul, '\ufffd'), staged: stageLine(line.lineNo, text) };
}

/** Tallies of a staging run, filled while the COPY streams. */
interface Tally {
  records: number;
  malformed: number;
}

/** The upload as COPY text rows of `boarding_stage`, in chunks of about `copyChunkChars`. */
async function* copyRows(
  body: AsyncIterable<Uint8Array>,
  hash: Hash,
  tally: Tally,
  seal: (kind: string | null, raw: string) => string,
): AsyncGenerator<string> {
  let chunk = '';
  for await (const line of uploadLines(body, hash, boardingLineBytesMax)) {
    const staged = stagedOf(line);
    if (staged === null) continue;
    tally.records += 1;
    if (staged.staged.state === 'FAILED') tally.malformed += 1;
    const s = staged.staged;
    chunk += `${[
      line.lineNo,
      copyTextField(seal(s.kind, staged.raw)),
      copyTextField(s.kind),
      copyTextField(s.sourceRef),
      copyTextField(s.parentSourceRef),
      s.state,
      copyTextField(s.error === null ? null : JSON.stringify(s.error)),
    ].join('\t')}\n`;
    if (chunk.length >= copyChunkChars) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

type BatchRow = typeof boardingBatches.$inferSelect;

function resultOf(row: BatchRow, replayed: boolean): StageBoardingBatchResult {
  const spec = boardingStartSpec({
    tenantId: row.tenantId,
    batchId: row.id,
    fileName: row.fileName,
    records: row.records,
    cursor: null,
  });
  return {
    batch: {
      batchId: row.id,
      status: row.status as BoardingBatchStatus,
      records: row.records,
      malformed: row.malformed,
    },
    workflow: { workflowId: spec.workflowId, input: spec.input },
    replayed,
  };
}

/** The batch an earlier upload with `requestKey` staged, or null. */
async function batchOfRequestKey(deps: Deps, tenantId: string, requestKey: string): Promise<BatchRow | null> {
  const rows = await withTenantTransaction(deps.db, tenantId, (tx) =>
    tx
      .select()
      .from(boardingBatches)
      .where(and(eq(boardingBatches.tenantId, tenantId), eq(boardingBatches.requestKey, requestKey))),
  );
  return rows[0] ?? null;
}

/** Uploads of at least this many lines are followed by `analyzeStagedLines`. */
export const analyzeAfterLines = 1_000;

/**
 * `ANALYZE boarding_lines`, outside any transaction, after a large upload committed. Without it, until autovacuum
 * analyzes the table (a minute or more, and never on a table it has not analyzed yet that is still being loaded),
 * the planner estimates a fresh batch at a couple of lines and reads a chunk's fundings and payments by scanning
 * every line of the batch instead of using the parent-ref index: 37 ms per chunk of 25 loans at 150,000 lines, and
 * growing with the batch. Statistics only speed up the reads, so a failure here (a role that does not own the
 * table only gets a warning) leaves the staged batch as it is.
 */
async function analyzeStagedLines(deps: Deps): Promise<void> {
  try {
    await deps.db.execute(sql`analyze boarding_lines`);
  } catch {
    // The batch is staged and committed; the boarding still runs, with the plans of the older statistics.
  }
}

/**
 * Stages an upload as a new batch (module note) → the batch `{batchId, status: "STAGED", records, malformed}` and
 * the process to start. With a `requestKey` already used in the tenant, answers that batch (`replayed`) without
 * reading the body. Malformed lines are staged FAILED with their Shape A error, never fatal. Errors: 503 when the
 * transaction had to be rerun (the body is read once: send the upload again); database errors as they come.
 */
export function stageBoardingBatch(deps: Deps) {
  return async (input: StageBoardingBatchInput): Promise<StageBoardingBatchResult> => {
    const requestKey = input.requestKey ?? null;
    if (requestKey !== null) {
      const earlier = await batchOfRequestKey(deps, input.tenantId, requestKey);
      if (earlier) return resultOf(earlier, true);
    }
    let bodyRead = false;
    try {
      const row = await withTenantTransaction(deps.db, input.tenantId, async (tx) => {
        if (bodyRead) {
          throw new DomainError(
            'error.msg.service.unavailable',
            'The upload could not be staged (its transaction had to be rerun, and the body is read once); send it again.',
          );
        }
        bodyRead = true;
        await tx.execute(sql`
          create temp table boarding_stage (
            line_no integer not null, raw text not null, kind text, source_ref text,
            parent_source_ref text, state text not null, error jsonb
          ) on commit drop`);
        const hash = createHash('sha256');
        const tally: Tally = { records: 0, malformed: 0 };
        await copyFromStdin(
          tx,
          'copy boarding_stage (line_no, raw, kind, source_ref, parent_source_ref, state, error) from stdin',
          copyRows(input.body, hash, tally, (kind, raw) =>
            sealLineIdentifiers(deps.dataEncryptionKey, input.tenantId, kind, raw),
          ),
        );
        const [batch] = await tx
          .insert(boardingBatches)
          .values({
            tenantId: input.tenantId,
            fileName: input.fileName,
            records: tally.records,
            malformed: tally.malformed,
            status: 'STAGED',
            contentSha256: hash.digest('hex'),
            createdBy: input.actor ?? null,
            createdAt: deps.clock(),
            requestKey,
          })
          .returning();
        if (!batch) throw new Error('boarding batch insert returned no row');
        await tx.execute(sql`
          insert into boarding_lines
            (tenant_id, batch_id, line_no, raw, kind, source_ref, parent_source_ref, state, error)
          select ${input.tenantId}, ${batch.id}, line_no, raw, kind, source_ref, parent_source_ref, state, error
          from boarding_stage`);
        const staged = resultOf(batch, false);
        await recordStartIntent(tx, boardingStartSpec(staged.workflow.input), deps.clock());
        return batch;
      });
      if (row.records >= analyzeAfterLines) await analyzeStagedLines(deps);
      return resultOf(row, false);
    } catch (err) {
      // Two uploads with the same key at once: the first to commit owns the batch; the other answers it.
      if (requestKey !== null && sqlStateOf(err) === '23505') {
        const earlier = await batchOfRequestKey(deps, input.tenantId, requestKey);
        if (earlier) return resultOf(earlier, true);
      }
      throw err;
    }
  };
}
