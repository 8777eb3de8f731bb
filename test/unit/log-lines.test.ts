/**
 * workers/logger.ts: every log line, ours and the Temporal SDK's, is JSON of at most 8 KiB, and errors carry no
 * SQL parameters. The real database error through the API is in test/api/error-logs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { capLogLine, logLineBytesMax, temporalLogLine } from '../../workers/logger';

const secret = 'ELEANOR_RIGBY_19660805';

/** Shaped as drizzle-orm reports a failed query (`DrizzleQueryError`: message, query, params, cause). */
function failedQuery(): Error {
  const cause = Object.assign(new Error(`Key (external_id)=(${secret}) already exists.`), {
    code: '23505',
    severity: 'ERROR',
    routine: '_bt_check_unique',
    constraint_name: 'customers_tenant_external_id_idx',
  });
  const params = [secret, 'x'.repeat(100_000)];
  return Object.assign(
    new Error(`Failed query: insert into "customers" values ($1, $2)\nparams: ${params}`),
    {
      query: 'insert into "customers" ("external_id", "first_name") values ($1, $2)',
      params,
      cause,
    },
  );
}

describe('capLogLine', () => {
  it('leaves a short line alone and cuts a long one to valid, marked JSON', () => {
    expect(capLogLine('{"a":1}\n')).toBe('{"a":1}\n');
    const long = `${JSON.stringify({ level: 30, msg: 'm', blob: 'é'.repeat(20_000) })}\n`;
    const cut = capLogLine(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(logLineBytesMax);
    expect(JSON.parse(cut)).toMatchObject({
      level: 30,
      msg: 'm',
      truncated: true,
      originalBytes: Buffer.byteLength(long),
    });
  });

  it('keeps only the essential fields when many long fields would still exceed the cap', () => {
    const entry: Record<string, string> = { msg: 'many' };
    for (let i = 0; i < 100; i++) entry[`f${i}`] = 'y'.repeat(600);
    const cut = capLogLine(`${JSON.stringify(entry)}\n`);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(logLineBytesMax);
    expect(JSON.parse(cut)).toMatchObject({ msg: 'many', truncated: true });
  });

  it('wraps a line that is not JSON', () => {
    const cut = capLogLine(`${'z'.repeat(10_000)}\n`);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(logLineBytesMax);
    expect(JSON.parse(cut).truncated).toBe(true);
  });
});

describe('temporalLogLine', () => {
  it('writes the SDK entry as JSON with the error reduced to its code and statement, within the cap', () => {
    const line = temporalLogLine({
      level: 'WARN',
      message: 'Activity failed',
      timestampNanos: 1_767_225_600_000_000_000n,
      meta: { activityType: 'createCustomer', error: failedQuery(), attempt: 3 },
    });
    expect(line).not.toContain(secret);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(logLineBytesMax);
    expect(JSON.parse(line)).toMatchObject({
      level: 'warn',
      time: '2026-01-01T00:00:00.000Z',
      source: 'temporal-sdk',
      msg: 'Activity failed',
      activityType: 'createCustomer',
      attempt: 3,
      error: {
        code: '23505',
        query: 'insert customers',
        constraint: 'customers_tenant_external_id_idx',
      },
    });
  });
});
