/**
 * `COPY … FROM STDIN` inside an open transaction (PostgreSQL manual "COPY"; postgres.js README "Copy to/from as
 * Streams"): bulk loads rows streamed from an async iterable at the pace the server takes them (Node stream
 * backpressure through `pipeline`), so memory holds one chunk at a time whatever the size. COPY FROM does not run
 * on a table under row-level security: load a `TEMP … ON COMMIT DROP` table, then `INSERT … SELECT` from it under
 * the tenant's policies (activities/boarding/stage-batch.ts).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import type { Tx } from './tenant-tx';

/** The postgres.js transaction under a Drizzle transaction (Drizzle keeps it as its session's client). */
function postgresClientOf(tx: Tx): postgres.TransactionSql {
  const client = (tx as unknown as { session?: { client?: postgres.TransactionSql } }).session?.client;
  if (!client) throw new Error('copyFromStdin: the transaction has no postgres.js client');
  return client;
}

/**
 * Runs `statement` (a complete `COPY <table> (<columns>) FROM STDIN` in the default text format, built from
 * constants only) in `tx` and writes every chunk of `chunks` (rows already in COPY text format, each ending in
 * `\n`) to it. Resolves when the server has taken the whole COPY; rejects with the server's error (the
 * transaction is then aborted) or the iterable's.
 */
export async function copyFromStdin(tx: Tx, statement: string, chunks: AsyncIterable<string>): Promise<void> {
  const writable = await postgresClientOf(tx).unsafe(statement).writable();
  await pipeline(Readable.from(chunks, { objectMode: false }), writable);
}

/**
 * One field of a row in COPY text format: `\N` for null; backslash, tab, line feed and carriage return escaped
 * (PostgreSQL manual "COPY", File Formats, Text Format).
 */
export function copyTextField(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return value.replace(/[\\\t\n\r]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
  );
}
