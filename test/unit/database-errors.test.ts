/**
 * db/errors.ts and api/errors.ts `asDomainError`: which database failures answer 503 with `Retry-After`
 * (docs/processes.md P0 "Failure answers") and which are retried by db/tenant-tx.ts.
 */

import { ApplicationFailure } from '@temporalio/common';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import type { Activities } from '../../activities';
import { asDomainError } from '../../api/errors';
import {
  isDatabaseUnavailable,
  isPermanentDataError,
  isRetryableTransactionError,
  withoutQueryParameters,
} from '../../db/errors';
import { asTemporalActivities } from '../../workers/activities';

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
    ['foreign-key violation 23503', wrapped('23503')],
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

/** As postgres.js reports a server error (severity, code, message), inside drizzle-orm's DrizzleQueryError. */
const failedQuery = (code: string, serverMessage: string, params: unknown[]) =>
  new DrizzleQueryError(
    'update "privacy_requests" set "outcome_reason" = $1 where "id" = $2',
    params,
    Object.assign(new Error(serverMessage), { severity: 'ERROR', code }),
  );

describe('values PostgreSQL can never store', () => {
  it.each([
    ['22021 invalid byte sequence (NUL in text)', '22021'],
    ['22P05 untranslatable character (\\u0000 or a lone surrogate in jsonb)', '22P05'],
    ['22P02 invalid text representation', '22P02'],
    ['22001 string too long', '22001'],
    ['23514 check violation', '23514'],
    ['23502 not-null violation', '23502'],
    ['54000 program limit exceeded', '54000'],
  ])('%s → a 400 naming only the SQLSTATE', (_name, code) => {
    const err = failedQuery(code, 'invalid byte sequence for encoding "UTF8": 0x00', ['secret-reason', 42]);
    expect(isPermanentDataError(err)).toBe(true);
    const domainError = asDomainError(err);
    expect(domainError.status).toBe(400);
    expect(domainError.code).toBe('validation.msg.validation.errors.exist');
    expect(domainError.message).toContain(`SQLSTATE ${code}`);
    expect(domainError.message).not.toContain('secret-reason');
    expect(domainError.message).not.toContain('privacy_requests');
  });

  it.each([
    ['23505', wrapped('23505')],
    ['23503', wrapped('23503')],
    ['40001', wrapped('40001')],
    ['ECONNRESET', coded('ECONNRESET')],
    ['a plain Error', new Error('22021')],
  ])('%s is not permanent', (_name, err) => {
    expect(isPermanentDataError(err)).toBe(false);
  });

  it('an activity failing with one fails non-retryably, its message free of SQL parameters', async () => {
    const activities = asTemporalActivities({
      fulfilPrivacyRequest: async () => {
        throw failedQuery('22P05', 'unsupported Unicode escape sequence', ['Deleted\u0000 secret-reason', 7]);
      },
    } as unknown as Activities);
    const failure = await activities.fulfilPrivacyRequest({} as never).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).nonRetryable).toBe(true);
    expect((failure as ApplicationFailure).type).toBe('validation.msg.validation.errors.exist');
    expect((failure as ApplicationFailure).message).not.toContain('secret-reason');
    expect(JSON.stringify(failure)).not.toContain('secret-reason');
    expect((failure as ApplicationFailure).stack ?? '').not.toContain('secret-reason');
  });

  it('any other failed query leaves an activity retryable, without its parameters in message or stack', async () => {
    const activities = asTemporalActivities({
      fulfilPrivacyRequest: async () => {
        throw failedQuery('23505', 'duplicate key value violates unique constraint "x"', [
          'secret-reason',
          7,
        ]);
      },
    } as unknown as Activities);
    const failure = (await activities.fulfilPrivacyRequest({} as never).then(
      () => null,
      (e: unknown) => e,
    )) as Error;
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect(failure.message).toBe(
      'Database query failed (23505): duplicate key value violates unique constraint "x"; its parameters are withheld.',
    );
    expect(failure.stack ?? '').not.toContain('secret-reason');
    expect(failure.cause).toBeUndefined();
    expect(isRetryableTransactionError(withoutQueryParameters(wrapped('40001')))).toBe(true);
  });
});
