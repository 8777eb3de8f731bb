/**
 * What a database failure means for the caller (DESIGN-processes P0 "Failure answers"): the database is
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
 * - retryable: 40001 serialization_failure, 40P01 deadlock_detected.
 */

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
