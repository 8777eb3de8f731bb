/**
 * db/loggable-error.ts: what of an error the logger writes (no SQL parameters or values in logs).
 * The real database errors are exercised in test/api/error-logs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { describeQuery, isDatabaseError, loggableError } from '../../db/loggable-error';

describe('describeQuery', () => {
  it.each([
    ['insert into "evidence" ("tenant_id", "case_id") values ($1, $2)', 'insert evidence'],
    ['select "id", "status" from "cases" where "cases"."tenant_id" = $1', 'select from cases'],
    ['update "cases" set "status" = $1 where "id" = $2', 'update cases'],
    ['delete from "idempotency_keys" where "expires_at" < $1', 'delete idempotency_keys'],
    ['select set_config($1, $2, true)', 'select'],
    ['  WITH x AS (select 1) SELECT * FROM "customers"', 'with from customers'],
    ['vacuum', 'statement'],
  ])('%s → %s', (statement, description) => {
    expect(describeQuery(statement)).toBe(description);
  });
});

describe('loggableError', () => {
  it('keeps an ordinary error’s type, code and cause, cuts a long message and drops the stack’s message line', () => {
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const err = new Error(`boom ${'x'.repeat(5000)}`, { cause });
    const logged = loggableError(err);
    expect(logged.type).toBe('Error');
    expect(logged.message.length).toBeLessThan(1100);
    expect(logged.message).toContain('[truncated]');
    expect(logged.stack).not.toContain('boom');
    expect(logged.cause).toMatchObject({ type: 'Error', message: 'socket hang up', code: 'ECONNRESET' });
    expect(isDatabaseError(err)).toBe(false);
  });

  it('reads a non-error value as its type and text', () => {
    expect(loggableError('plain')).toEqual({ type: 'string', message: 'plain' });
    expect(loggableError(null)).toEqual({ type: 'object', message: 'null' });
  });
});
