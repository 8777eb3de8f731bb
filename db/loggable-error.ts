/**
 * What of an error may be logged (before this rule, error logs carried every SQL parameter of a failed statement,
 * names, dates of birth, external ids and free text; one line was 5.4 MB). `loggableError` is the `err`
 * serializer of the service's logger (workers/logger.ts). docs/design.md §3 and §4 Logs: identifiers and secrets are
 * never logged.
 */
import { errorCodesOf } from './errors';

/** An error as it may be logged: no SQL parameters, no values, bounded sizes. */
export interface LoggableError {
  type: string;
  message: string;
  /** SQLSTATE (PostgreSQL Appendix A), a postgres.js or Node errno code, or the error's own `code`. */
  code?: string;
  /** What the failed statement did, e.g. `insert into evidence` (never its text or parameters). */
  query?: string;
  constraint?: string;
  table?: string;
  column?: string;
  /** The stack's frames only (the first line, which repeats the message, is left out); at most 12. */
  stack?: string;
  cause?: LoggableError;
}

const messageLengthMax = 1000;
const stackFramesMax = 12;

/** Reads an own property even when it is not enumerable (postgres.js hides `query` and `parameters`). */
function own(err: object, name: string): unknown {
  return Object.getOwnPropertyDescriptor(err, name)?.value ?? (err as Record<string, unknown>)[name];
}

/**
 * True when `err` (or its `cause` chain) comes from a database statement: drizzle-orm's `DrizzleQueryError`
 * (`query`, `params`) or a postgres.js `PostgresError` (`query`, `parameters`, or `severity` and `routine`).
 */
export function isDatabaseError(err: unknown, depth = 0): boolean {
  if (depth > 8 || err === null || typeof err !== 'object') return false;
  if (['query', 'parameters', 'params'].some((name) => own(err, name) !== undefined)) return true;
  if (typeof own(err, 'severity') === 'string' && typeof own(err, 'routine') === 'string') return true;
  return isDatabaseError((err as { cause?: unknown }).cause, depth + 1);
}

/** The first value of `name` along the `cause` chain of `err` that is a string. */
function firstInChain(err: unknown, name: string, depth = 0): string | undefined {
  if (depth > 8 || err === null || typeof err !== 'object') return undefined;
  const value = own(err, name);
  if (typeof value === 'string') return value;
  return firstInChain((err as { cause?: unknown }).cause, name, depth + 1);
}

/**
 * A short description of an SQL statement that names no value: its verb and first table, e.g.
 * `insert into evidence`, `select from cases`, `update cases`; `select` when it reads no table.
 */
export function describeQuery(statement: string): string {
  const compact = statement.slice(0, 2000).replace(/\s+/g, ' ').trim();
  const verb =
    /^(with|select|insert into|update|delete from|lock table|set|begin|commit|rollback|savepoint|release)\b/i
      .exec(compact)?.[1]
      ?.toLowerCase() ?? 'statement';
  const table = /\b(?:from|into|update|table)\s+("?)([A-Za-z_][A-Za-z0-9_.]*)\1/i.exec(compact)?.[2];
  if (!table) return verb;
  return verb === 'select' || verb === 'with' ? `${verb} from ${table}` : `${verb.split(' ')[0]} ${table}`;
}

function stackFrames(err: object): string | undefined {
  const stack = own(err, 'stack');
  if (typeof stack !== 'string') return undefined;
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.slice(0, stackFramesMax).join('\n') || undefined;
}

/**
 * What may be logged about `err` (module note).
 * A database error becomes its SQLSTATE, the constraint, table and column it names, and a description of the
 * statement (`describeQuery`): never the statement's parameters, PostgreSQL's message or detail (they quote
 * values: `invalid input syntax for type integer: "…"`, `Key (external_id)=(…)`), nor drizzle's message (the
 * statement and its parameters). Any other error keeps its type, code, message (at most 1000 characters) and
 * cause (three levels). Stacks keep their frames only.
 */
export function loggableError(err: unknown, depth = 0): LoggableError {
  if (err === null || typeof err !== 'object') {
    return { type: typeof err, message: String(err).slice(0, messageLengthMax) };
  }
  const type = String(own(err, 'name') ?? err.constructor?.name ?? 'Error');
  const stack = stackFrames(err);
  if (isDatabaseError(err)) {
    const code = errorCodesOf(err)[0];
    const statement = firstInChain(err, 'query');
    const query = statement === undefined ? undefined : describeQuery(statement);
    const constraint = firstInChain(err, 'constraint_name');
    const table = firstInChain(err, 'table_name');
    const column = firstInChain(err, 'column_name');
    const message = `database error ${code ?? '(no code)'}${constraint ? ` on ${constraint}` : ''}${query ? ` in ${query}` : ''}`;
    return {
      type,
      message,
      ...(code === undefined ? {} : { code }),
      ...(query === undefined ? {} : { query }),
      ...(constraint === undefined ? {} : { constraint }),
      ...(table === undefined ? {} : { table }),
      ...(column === undefined ? {} : { column }),
      ...(stack === undefined ? {} : { stack }),
    };
  }
  const message = String(own(err, 'message') ?? '');
  const code = own(err, 'code');
  const cause = (err as { cause?: unknown }).cause;
  return {
    type,
    message:
      message.length > messageLengthMax ? `${message.slice(0, messageLengthMax)}… [truncated]` : message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(stack === undefined ? {} : { stack }),
    ...(cause !== undefined && depth < 3 ? { cause: loggableError(cause, depth + 1) } : {}),
  };
}
