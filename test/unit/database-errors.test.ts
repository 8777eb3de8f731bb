/**
 * db/errors.ts and api/errors.ts `asDomainError`: which database failures answer 503 with `Retry-After`
 * (DESIGN-processes P0 "Failure answers") and which are retried by db/tenant-tx.ts.
 */
import { describe, expect, it } from 'vitest';
import { asDomainError } from '../../api/errors';
import { isDatabaseUnavailable, isRetryableTransactionError } from '../../db/errors';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
/** As drizzle-orm reports a failed query: the driver's error is the `cause`. */
const wrapped = (code: string) => Object.assign(new Error('Failed query: select 1'), { cause: coded(code) });

describe('database unavailable → 503 Shape A with Retry-After', () => {
  it.each([
    ['ECONNREFUSED', coded('ECONNREFUSED')],
    [
      'AggregateError of ECONNREFUSED (IPv6 and IPv4)',
      new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]),
    ],
    ['CONNECTION_ENDED', coded('CONNECTION_ENDED')],
    ['CONNECTION_DESTROYED', wrapped('CONNECTION_DESTROYED')],
    ['CONNECTION_CLOSED', wrapped('CONNECTION_CLOSED')],
    ['CONNECT_TIMEOUT', coded('CONNECT_TIMEOUT')],
    ['08006 connection_failure', wrapped('08006')],
    ['08001 unable to connect', wrapped('08001')],
    ['57P01 admin_shutdown', wrapped('57P01')],
    ['57P02 crash_shutdown', wrapped('57P02')],
    ['57P03 cannot_connect_now', wrapped('57P03')],
    ['53300 too_many_connections', wrapped('53300')],
  ])('%s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    const domainError = asDomainError(err);
    expect(domainError.code).toBe('error.msg.service.unavailable');
    expect(domainError.status).toBe(503);
    expect(domainError.retryAfterSeconds).toBe(5);
  });

  it.each([
    ['unique violation 23505', wrapped('23505')],
    ['serialization failure 40001', wrapped('40001')],
    ['syntax error 42601', wrapped('42601')],
    ['a plain Error', new Error('boom')],
    ['a string', 'boom'],
  ])('%s stays a 500', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect(asDomainError(err).status).toBe(500);
  });
});

describe('retryable transaction errors', () => {
  it('are 40001 and 40P01, bare or wrapped, and nothing else', () => {
    expect(isRetryableTransactionError(wrapped('40001'))).toBe(true);
    expect(isRetryableTransactionError(coded('40P01'))).toBe(true);
    expect(isRetryableTransactionError(wrapped('23505'))).toBe(false);
    expect(isRetryableTransactionError(wrapped('57P01'))).toBe(false);
    expect(isRetryableTransactionError(new Error('40001'))).toBe(false);
  });
});
