/**
 * What a database failure means for the caller (docs/processes.md P0 "Failure answers"): the database is
 * unreachable (→ the API answers 503 with `Retry-After`, never 500), or a transaction lost a race that a retry
 * can win (serialization failure, deadlock → retried inside the operation by db/tenant-tx.ts).
 *
 * Errors are recognised by their codes, looking through wrappers (`cause`, e.g. drizzle-orm's
 * `DrizzleQueryError`) and `AggregateError.errors` (Node's connect with several addresses):
 * - SQLSTATE (PostgreSQL Appendix A "Error Codes"): class 08 connection exception, 57P01 admin_shutdown,
 *   57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections;
 * - postgres.js connection errors (`src/errors.js` `connection`): `CONNECTION_CLOSED`, `CONNECTION_ENDED`,
 *   `CONNECTION_DESTROYED`, `CONNECT_TIMEOUT`;
 * - Node socket errno codes: `ECONNREFUSED`, `ECONNRESET`, `ETIMEDOUT`, `EHOSTUNREACH`, `ENETUNREACH`,
 *   `ENOTFOUND`, `EAI_AGAIN`, `EPIPE`;
 * - retryable: 40001 serialization_failure, 40P01 deadlock_detected;
 * - permanent (a retry sends the same values and fails the same way): class 22 data_exception (e.g.
 *   22021 character_not_in_repertoire, "invalid byte sequence for encoding UTF8: 0x00"; 22P05
 *   untranslatable_character, a `\\u0000` or lone-surrogate escape in jsonb; 22001 string_data_right_truncation;
 *   22003 numeric_value_out_of_range), 23502 not_null_violation, 23514 check_violation, 54000
 *   program_limit_exceeded (e.g. an index row too large). Unique (23505) and foreign-key (23503) violations are
 *   not listed: a concurrent writer can make a retry succeed or turn it into a domain answer.
 *
 * drizzle-orm reports a failed query as `Failed query: <sql>\nparams: <values>`: the values must never travel
 * further (Temporal history, logs), so `withoutQueryParameters` rewrites such an error before it leaves an
 * activity.
 */
import { DomainError } from '../domain/errors';

const unavailableCodes = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

const retryableCodes = new Set(['40001', '40P01']);

/** The codes (`code` properties) of `err`, its `cause` chain and its `AggregateError` members, outermost first. */
export function errorCodesOf(err: unknown, depth = 0): string[] {
  if (depth > 8 || err === null || typeof err !== 'object') return [];
  const codes: string[] = [];
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') codes.push(code);
  const members = (err as { errors?: unknown }).errors;
  if (Array.isArray(members)) for (const member of members) codes.push(...errorCodesOf(member, depth + 1));
  codes.push(...errorCodesOf((err as { cause?: unknown }).cause, depth + 1));
  return codes;
}

/** True when `err` says PostgreSQL cannot be reached or refuses connections now (codes above). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return errorCodesOf(err).some((code) => unavailableCodes.has(code) || code.startsWith('08'));
}

/** True when `err` is a serialization failure (40001) or a deadlock (40P01): the transaction may be retried. */
export function isRetryableTransactionError(err: unknown): boolean {
  return errorCodesOf(err).some((code) => retryableCodes.has(code));
}

const permanentCodes = new Set(['23502', '23514', '54000']);

/** The first SQLSTATE (five characters, digits and capitals) in `err`'s chain, or undefined. */
export function sqlStateOf(err: unknown): string | undefined {
  return errorCodesOf(err).find((code) => /^[0-9A-Z]{5}$/.test(code));
}

/**
 * True when `err` is a PostgreSQL error that no retry can cure (module note: class 22, 23502, 23514, 54000): the
 * values it was given cannot be stored.
 */
export function isPermanentDataError(err: unknown): boolean {
  const code = sqlStateOf(err);
  return code !== undefined && (code.startsWith('22') || permanentCodes.has(code));
}

/**
 * The 400 a permanent data error stands for (`isPermanentDataError`), or null for any other error:
 * `validation.msg.validation.errors.exist` with a fixed message naming only the SQLSTATE, never the SQL or its
 * values. Used where an operation's failure leaves the process (activity wrapper, API error handler).
 */
export function permanentDataErrorAsDomainError(err: unknown): DomainError | null {
  if (!isPermanentDataError(err)) return null;
  return new DomainError(
    'validation.msg.validation.errors.exist',
    `The request holds a value the database cannot store (SQLSTATE ${sqlStateOf(err)}); nothing was changed. Check text for NUL characters or unpaired surrogates, and values for their documented limits.`,
  );
}

/** The PostgreSQL server message of the driver error inside `err`, when there is one (no SQL, no parameters). */
function serverMessageOf(err: unknown, depth = 0): string | undefined {
  if (depth > 8 || err === null || typeof err !== 'object') return undefined;
  const candidate = err as { severity?: unknown; message?: unknown; cause?: unknown };
  if (typeof candidate.severity === 'string' && typeof candidate.message === 'string')
    return candidate.message;
  return serverMessageOf(candidate.cause, depth + 1);
}

/**
 * `err` without the SQL values drizzle-orm puts in its message and stack (`Failed query: …\nparams: …`): such
 * an error becomes a plain `Error` named `DatabaseError` whose message holds the SQLSTATE and, except for class 22
 * (whose server messages quote the offending input), the server's message; no `cause`, so nothing else travels.
 * Any other error is returned as is.
 */
export function withoutQueryParameters(err: unknown): unknown {
  if (!(err instanceof Error) || !('params' in err) || !('query' in err)) return err;
  const code = sqlStateOf(err) ?? errorCodesOf(err)[0];
  const server = code?.startsWith('22') ? undefined : serverMessageOf(err.cause);
  const clean = new Error(
    `Database query failed${code ? ` (${code})` : ''}${server ? `: ${server}` : ''}; its parameters are withheld.`,
  );
  clean.name = 'DatabaseError';
  if (code !== undefined) Object.assign(clean, { code });
  return clean;
}
